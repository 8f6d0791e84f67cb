//! The world part of the `dlmp` table (lua-api.md, "World and vehicles, with exact
//! signatures"): the clock, weather and garages, checkpoints, colshapes, gang zones, 3D
//! labels, blips and waypoints.
//! Each function checks its arguments, shows its effect in the script view at once and
//! queues the feature's message (ADR 0011).

pub(crate) mod args;
mod blip;
mod checkpoint;
mod clock;
mod colshape;
mod gang_zone;
mod label;
pub mod object;
pub(super) mod waypoint;

use mlua::{Lua, Result, Table};

pub use blip::LuaBlip;
pub use checkpoint::LuaCheckpoint;
pub use colshape::LuaColshape;
pub use gang_zone::LuaGangZone;
pub use label::LuaLabel;
pub use object::LuaObject;

use super::super::state::ResourceId;

/// Adds the world functions to `dlmp` of `resource`.
pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    clock::install(lua, dlmp)?;
    checkpoint::install(lua, dlmp, resource)?;
    colshape::install(lua, dlmp, resource)?;
    gang_zone::install(lua, dlmp, resource)?;
    label::install(lua, dlmp, resource)?;
    blip::install(lua, dlmp, resource)?;
    object::install(lua, dlmp, resource)?;
    Ok(())
}
