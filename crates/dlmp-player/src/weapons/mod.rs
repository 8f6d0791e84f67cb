//! weapons.md: thrown and launched projectiles, satchel charges, stealth kills and the
//! gamemode's explosions (ADR 0130: a feature of the player crate, below the vehicle
//! crate whose killer credit reads its action log).
//!
//! Done so far: CreateExplosion from `dlmp.create_explosion` ([`explosion`]).

pub mod explosion;

use bevy_app::{App, Plugin};
use dlmp_script::ScriptApi;

/// The weapons feature: its Lua API.
pub struct WeaponsPlugin;

impl Plugin for WeaponsPlugin {
    fn build(&self, app: &mut App) {
        let mut api = app.world_mut().get_resource_or_init::<ScriptApi>();
        register(&mut api);
    }
}

/// What the weapons feature adds to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, _| explosion::install(lua, dlmp))
        .setup(|lua, _| {
            lua.set_app_data(explosion::TickBudget::default());
        });
}
