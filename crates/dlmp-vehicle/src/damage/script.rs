//! The Lua functions of vehicle health and damage (lua-api.md: `dlmp.set_vehicle_health`,
//! `dlmp.repair_vehicle`, `dlmp.set_vehicle_damage_status`). A call checks its arguments
//! and the vehicle (gone, a wreck, a model without a status) and raises a Lua error naming
//! the rule; otherwise it updates the scripts' view at once (`vehicle:health()`) and queues
//! a [`DamageCommand`].

use mlua::{Error, Lua, Result, Table, Value};

use super::command::{DamageCommand, HEALTH_RANGE};
use super::status::{Shape, StatusParts};
use crate::VehicleModels;
use crate::components::FULL_HEALTH;
use crate::script::{LuaVehicle, VehicleInfo, vehicle_arg};
use dlmp_protocol::vehicle::damage::{
    DOOR_DAMAGED, DOOR_MISSING, LIGHTS_MASK, MAX_PANEL, MAX_WHEEL, PANEL_COUNT, VehicleDamageStatus,
};
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// The keys of `set_vehicle_damage_status`'s table.
const PARTS: [&str; 4] = ["panels", "doors", "lights", "wheels"];

/// Adds the functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "set_vehicle_health",
        lua.create_function(|lua, (v, health): (Value, Value)| {
            const F: &str = "set_vehicle_health";
            let v = vehicle_arg(F, &v)?;
            let health = args::f32_in(F, "health", &health, HEALTH_RANGE)?;
            v.with_mut(lua, F, |info| {
                not_a_wreck(F, v, info)?;
                info.health = health;
                Ok(())
            })?;
            queue_message(lua, DamageCommand::Health { id: v.id, health })
        })?,
    )?;
    dlmp.set(
        "repair_vehicle",
        lua.create_function(|lua, v: Value| {
            const F: &str = "repair_vehicle";
            let v = vehicle_arg(F, &v)?;
            v.with_mut(lua, F, |info| {
                not_a_wreck(F, v, info)?;
                info.health = FULL_HEALTH;
                Ok(())
            })?;
            queue_message(lua, DamageCommand::Repair { id: v.id })
        })?,
    )?;
    dlmp.set(
        "set_vehicle_damage_status",
        lua.create_function(|lua, (v, status): (Value, Value)| {
            const F: &str = "set_vehicle_damage_status";
            let v = vehicle_arg(F, &v)?;
            let model = v.with_mut(lua, F, |info| {
                not_a_wreck(F, v, info)?;
                Ok(info.model)
            })?;
            let shape = shape_of(lua, model);
            if shape == Shape::None {
                return Err(Error::runtime(format!(
                    "{F}: model {model} has no damage status (bicycles, boats, aircraft and trains have none)"
                )));
            }
            let Value::Table(t) = status else {
                return Err(Error::runtime(format!(
                    "{F}: status must be a table {{panels=, doors={{...}}, lights=, wheels={{...}}}}, got {}",
                    status.type_name()
                )));
            };
            let parts = parts(F, &t)?;
            if !shape.fits(&parts.over(&VehicleDamageStatus::INTACT)) {
                return Err(Error::runtime(format!(
                    "{F}: a motorbike's status is its wheels only: wheels = {{front, rear, 0, 0}}, each 0 (intact) or 1 (burst)"
                )));
            }
            queue_message(lua, DamageCommand::Status { id: v.id, parts })
        })?,
    )?;
    Ok(())
}

fn not_a_wreck(func: &str, v: LuaVehicle, info: &VehicleInfo) -> Result<()> {
    if info.wrecked {
        return Err(Error::runtime(format!(
            "{func}: vehicle {} is a wreck (dlmp.respawn_vehicle brings it back)",
            v.id.0
        )));
    }
    Ok(())
}

fn shape_of(lua: &Lua, model: u16) -> Shape {
    let class = |models: &VehicleModels| models.get(model).map(|m| m.class);
    let class = match lua.app_data_ref::<VehicleModels>() {
        Some(models) => class(&models),
        None => class(&VehicleModels::default()),
    };
    class.map_or(Shape::None, |c| Shape::of(model, c))
}

/// The parts the table gives, each checked against the page's ranges.
fn parts(func: &str, t: &Table) -> Result<StatusParts> {
    known_options(func, t, &PARTS)?;
    let bits = |name: &str| -> Result<Option<u32>> {
        match t.get::<Value>(name)? {
            Value::Nil => Ok(None),
            v => Ok(Some(
                args::integer(func, name, &v, 0..=i64::from(u32::MAX))? as u32,
            )),
        }
    };
    let panels = bits("panels")?;
    if let Some(p) = panels {
        if p >> (4 * PANEL_COUNT) != 0 {
            return Err(Error::runtime(format!(
                "{func}: panels 0x{p:08X} has bits above the seven panels (bits 28..31)"
            )));
        }
        let status = VehicleDamageStatus {
            panels: p,
            ..VehicleDamageStatus::INTACT
        };
        if let Some(i) = (0..PANEL_COUNT).find(|&i| u32::from(status.panel(i)) > MAX_PANEL) {
            return Err(Error::runtime(format!(
                "{func}: panels 0x{p:08X}: panel {i} is {}, outside 0..={MAX_PANEL}",
                status.panel(i)
            )));
        }
    }
    let lights = bits("lights")?;
    if let Some(l) = lights
        && l & !LIGHTS_MASK != 0
    {
        return Err(Error::runtime(format!(
            "{func}: lights 0x{l:02X} has bits outside 0x{LIGHTS_MASK:02X} (one bit per light)"
        )));
    }
    let doors = list::<6>(func, "doors", &t.get::<Value>("doors")?, |name, v| {
        let d = args::integer(func, name, v, 0..=255)? as u8;
        if [0, DOOR_DAMAGED, DOOR_MISSING].contains(&d) {
            Ok(d)
        } else {
            Err(Error::runtime(format!(
                "{func}: {name} is {d}; a door is 0 (intact), 2 (damaged) or 4 (missing)"
            )))
        }
    })?;
    let wheels = list::<4>(func, "wheels", &t.get::<Value>("wheels")?, |name, v| {
        Ok(args::integer(func, name, v, 0..=i64::from(MAX_WHEEL))? as u8)
    })?;
    Ok(StatusParts {
        panels,
        doors,
        lights,
        wheels,
    })
}

/// A list of exactly `N` values, each through `item` (named `key[i]`, from 1); `None` when
/// nil.
fn list<const N: usize>(
    func: &str,
    key: &str,
    v: &Value,
    item: impl Fn(&str, &Value) -> Result<u8>,
) -> Result<Option<[u8; N]>> {
    let t = match v {
        Value::Nil => return Ok(None),
        Value::Table(t) => t,
        other => {
            return Err(Error::runtime(format!(
                "{func}: {key} must be a list of {N} numbers, got {}",
                other.type_name()
            )));
        }
    };
    let len = t.pairs::<Value, Value>().count();
    if len != N || t.raw_len() != N {
        return Err(Error::runtime(format!(
            "{func}: {key} must be a list of {N} numbers, got {len} entries"
        )));
    }
    let mut out = [0u8; N];
    for (i, slot) in out.iter_mut().enumerate() {
        let name = format!("{key}[{}]", i + 1);
        *slot = item(&name, &t.raw_get::<Value>(i + 1)?)?;
    }
    Ok(Some(out))
}
