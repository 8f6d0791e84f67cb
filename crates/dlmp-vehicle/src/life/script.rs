//! The life API (lua-api.md): `dlmp.respawn_vehicle(vehicle)` and the event
//! `vehicle_death(vehicle, cause, killer)`. `vehicle:is_wrecked()` and `vehicle:epoch()`
//! are the vehicle reads (`crate::script`).

use mlua::{Lua, Result, Table, Value};

use super::explode::VehicleDied;
use super::respawn::RespawnVehicle;
use crate::components::FULL_HEALTH;
use crate::script::{LuaVehicle, edit_view, vehicle_arg};
use dlmp_player::script::LuaPlayer;
use dlmp_protocol::vehicle::life::VehicleDeathCause;
use dlmp_script::ScriptEvent;
use dlmp_script::api::queue_message;

/// Adds the life functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "respawn_vehicle",
        lua.create_function(|lua, v: Value| {
            const F: &str = "respawn_vehicle";
            let v = vehicle_arg(F, &v)?;
            edit_view(lua, F, v.id, |info| {
                info.epoch = info.epoch.wrapping_add(1);
                info.wrecked = false;
                info.health = FULL_HEALTH;
                info.occupants.clear();
            })?;
            queue_message(lua, RespawnVehicle { id: v.id })
        })?,
    )?;
    Ok(())
}

/// The word of a cause in `vehicle_death`.
pub fn cause_name(cause: VehicleDeathCause) -> &'static str {
    match cause {
        VehicleDeathCause::Exploded => "explosion",
        VehicleDeathCause::Drowned => "water",
    }
}

/// `vehicle_death(vehicle, cause, killer)` of an accepted explosion or drowning.
pub(crate) fn death_event(d: &VehicleDied) -> ScriptEvent {
    let killer = d.killer.map(|k| LuaPlayer {
        entity: k.entity,
        token: k.token,
    });
    ScriptEvent::new(
        "vehicle_death",
        [
            LuaVehicle { id: d.vehicle_id }.into(),
            cause_name(d.cause).into(),
            killer.into(),
        ],
    )
}
