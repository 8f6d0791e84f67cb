//! The world's Lua API (lua-api.md, "World and vehicles, with exact signatures"): the
//! clock, weather and garages, checkpoints, colshapes, gang zones, 3D labels, blips,
//! objects, pickups, map files and waypoints, registered with the script host
//! ([`ScriptApi`]). Each function checks its arguments, shows its effect in the world's
//! view at once ([`WorldView`]) and queues the feature's message (ADR 0011).

pub(crate) mod args;
mod blip;
mod checkpoint;
mod clock;
mod colshape;
pub mod events;
mod gang_zone;
mod label;
pub mod object;
mod waypoint;

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use dlmp_script::{ResourceId, ScriptApi, ScriptHost, ScriptSystems};
use mlua::{Error, Lua, Result, Table};

pub use blip::LuaBlip;
pub use checkpoint::LuaCheckpoint;
pub use colshape::LuaColshape;
pub use gang_zone::LuaGangZone;
pub use label::LuaLabel;
pub use object::LuaObject;

use super::script_view::{WorldScriptParts, WorldView};
use super::{ColshapeIds, MarkerIds};
use dlmp_player::script::LuaPlayer;
use dlmp_player::script::movement::FloorPlaces;

/// The world view and the script clock, for a call that reads them.
pub(crate) struct WorldRead<'a> {
    pub(crate) world: mlua::AppDataRef<'a, WorldView>,
    pub(crate) now: Duration,
}

/// The world view and the script clock, for a call that changes the view.
pub(crate) struct WorldWrite<'a> {
    pub(crate) world: mlua::AppDataRefMut<'a, WorldView>,
    pub(crate) now: Duration,
}

fn no_view() -> Error {
    Error::runtime("no world view")
}

/// The world as this pass sees it, for reading.
pub(crate) fn state(lua: &Lua) -> Result<WorldRead<'_>> {
    let now = dlmp_script::api::state(lua)?.now();
    Ok(WorldRead {
        world: lua.app_data_ref::<WorldView>().ok_or_else(no_view)?,
        now,
    })
}

/// The world as this pass sees it, for writing.
pub(crate) fn state_mut(lua: &Lua) -> Result<WorldWrite<'_>> {
    let now = dlmp_script::api::state(lua)?.now();
    Ok(WorldWrite {
        world: lua.app_data_mut::<WorldView>().ok_or_else(no_view)?,
        now,
    })
}

/// Adds the world functions to `dlmp` of `resource`.
fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    clock::install(lua, dlmp)?;
    checkpoint::install(lua, dlmp, resource)?;
    colshape::install(lua, dlmp, resource)?;
    gang_zone::install(lua, dlmp, resource)?;
    label::install(lua, dlmp, resource)?;
    blip::install(lua, dlmp, resource)?;
    object::install(lua, dlmp, resource)?;
    super::pickup::script::install(lua, dlmp, resource)?;
    crate::edit::script::install(lua, dlmp, resource)?;
    Ok(())
}

/// What the world adds to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, resource| install(lua, dlmp, resource.id))
        .methods::<LuaPlayer>(waypoint::add_methods)
        .methods::<LuaPlayer>(crate::edit::script::add_methods)
        .events(events::NAMES)
        .setup(|lua, world| {
            let marker_ids = world.get_resource_or_init::<MarkerIds>().clone();
            let colshape_ids = world.get_resource_or_init::<ColshapeIds>().clone();
            lua.set_app_data(WorldView::new(marker_ids, colshape_ids));
            crate::edit::script::setup(lua, world);
            lua.set_app_data(FloorPlaces(|lua, player, at, scope| {
                super::object::script::book(lua).map_or(0, |b| b.floor_places(player, at, scope))
            }));
        });
}

/// Registers the world's Lua API and adds its systems to the script pass.
pub struct WorldScriptPlugin;

impl Plugin for WorldScriptPlugin {
    fn build(&self, app: &mut App) {
        // Scripts hand out world ids in the call, from the app's own counters.
        app.init_resource::<MarkerIds>()
            .init_resource::<ColshapeIds>();
        register(&mut app.world_mut().get_resource_or_init::<ScriptApi>());
        app.add_systems(
            FixedUpdate,
            (
                refresh_view,
                crate::edit::script::refresh_view,
                events::collect,
            )
                .in_set(ScriptSystems::Collect),
        );
    }
}

/// Rebuilds the world's view from the ECS before the scripts run.
fn refresh_view(host: NonSend<ScriptHost>, parts: WorldScriptParts) {
    if let Some(mut view) = host.lua().app_data_mut::<WorldView>() {
        parts.refresh(&mut view);
    }
}
