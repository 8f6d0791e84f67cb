//! weapons.md: thrown and launched projectiles, satchel charges, stealth kills and the
//! gamemode's explosions (ADR 0130: a feature of the player crate, below the vehicle
//! crate whose killer credit reads its action log).
//!
//! Done so far: CreateExplosion from `dlmp.create_explosion` ([`explosion`]), the weapon
//! event limit ([`limit`]) and on-foot launches ([`launch`]).

pub mod explosion;
pub mod launch;
pub mod limit;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use dlmp_core::tick::{ServerSystems, StreamingSystems};
use dlmp_script::ScriptApi;

use crate::frame::admit_frames;

/// The weapons feature: launches, their relay and the Lua API.
pub struct WeaponsPlugin;

impl Plugin for WeaponsPlugin {
    fn build(&self, app: &mut App) {
        let mut api = app.world_mut().get_resource_or_init::<ScriptApi>();
        register(&mut api);
        app.init_resource::<launch::LaunchStats>()
            .add_message::<launch::LaunchAccepted>()
            .add_systems(
                FixedUpdate,
                (
                    limit::give,
                    launch::note_armed,
                    launch::clear_latches,
                    launch::admit_launches,
                )
                    .chain()
                    .after(admit_frames)
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                launch::relay_launches.in_set(StreamingSystems::Relay),
            );
    }
}

/// What the weapons feature adds to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, _| explosion::install(lua, dlmp))
        .setup(|lua, _| {
            lua.set_app_data(explosion::TickBudget::default());
        });
}
