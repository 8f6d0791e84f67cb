//! The player's Lua API (lua-api.md: "The core", "Moving players", looks and HUD, control,
//! animations, respawns) and its events, registered with the script host
//! ([`ScriptApi`]): the `Player` handle and its methods, the `dlmp` functions, the view
//! the calls answer from ([`view`]), the events ([`events`]) and the commands the calls
//! queue (`commands`).

pub mod animation;
mod commands;
pub mod control;
pub mod events;
mod functions;
pub mod looks;
pub mod movement;
mod player;
pub mod respawn;
pub mod view;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use dlmp_script::api::{args, queue, queue_message};
use dlmp_script::{ScriptApi, ScriptSystems};

pub use player::{LuaPlayer, player_arg, players_arg, require_alive, require_confirmed_life};
pub use view::{PlayerView, PlayerViews, set_players, views, views_mut};

/// The player's systems in the script pass run in this order inside
/// [`ScriptSystems::Ask`]; the features above put theirs after it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlayerAsk;

/// Registers the player's Lua API and adds its systems to the script pass.
pub struct PlayerScriptPlugin;

impl Plugin for PlayerScriptPlugin {
    fn build(&self, app: &mut App) {
        let mut api = app.world_mut().get_resource_or_init::<ScriptApi>();
        register(&mut api);
        app.init_resource::<view::Departed>()
            .add_systems(
                FixedUpdate,
                (
                    view::refresh_views,
                    events::collect,
                    events::collect_refusals,
                )
                    .in_set(ScriptSystems::Collect),
            )
            .add_systems(
                FixedUpdate,
                (view::settle_departures, crate::chat::script::emit_chat)
                    .chain()
                    .in_set(ScriptSystems::Ask)
                    .in_set(PlayerAsk),
            );
    }
}

/// What the player adds to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, _| {
        functions::install(lua, dlmp)?;
        respawn::install(lua, dlmp)?;
        crate::chat::script::install(lua, dlmp)
    })
    .methods::<LuaPlayer>(player::add_methods)
    .methods::<LuaPlayer>(looks::add_methods)
    .methods::<LuaPlayer>(respawn::add_methods)
    .methods::<LuaPlayer>(movement::add_methods)
    .methods::<LuaPlayer>(control::add_methods)
    .methods::<LuaPlayer>(animation::add_methods)
    .events(events::NAMES)
    .setup(|lua, _| {
        lua.set_app_data(PlayerViews::default());
    })
    .on_forget(|lua, entity| {
        if let Some(mut views) = lua.app_data_mut::<PlayerViews>() {
            views.0.remove(&entity);
        }
    });
}
