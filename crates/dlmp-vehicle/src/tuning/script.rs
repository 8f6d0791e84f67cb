//! The tuning and handling API (lua-api.md: `dlmp.add_vehicle_component`,
//! `remove_vehicle_component`, `set_vehicle_paintjob`, `set_vehicle_plate`,
//! `set_vehicle_dirt`, `set_vehicle_taxi_light`, `set_vehicle_nitro_charges`,
//! `set_vehicle_handling`). A call checks its change against the scripts' view of the
//! vehicle's tuning ([`TuningBook`], refreshed from the ECS when a tuning changed and
//! updated by the calls themselves), so a refusal is the call's Lua error; the change is
//! queued and applied in the same tick.

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use mlua::{Error, Lua, Result, Table, Value};

use super::handling::{self, HandlingCommand, HandlingValues};
use super::state::{Plate, Tuning, TuningChange};
use super::{TuningCommand, TuningData};
use crate::Vehicle;
use crate::script::{LuaVehicle, vehicle_arg};
use dlmp_protocol::vehicle::tuning::{
    HANDLING_PROPERTIES, MAX_DIRT, MAX_NITRO_CHARGES, MAX_PAINTJOB, PART_IDS,
};
use dlmp_script::ScriptHost;
use dlmp_script::api::{args, queue_message};

/// The scripts' view of every tuned vehicle (Lua app data), by vehicle id.
#[derive(Debug, Default)]
pub struct TuningBook(HashMap<u32, Tuning>);

/// Checks `change` against the vehicle's model and current tuning, takes it into the book
/// and queues it.
fn change(lua: &Lua, func: &str, v: LuaVehicle, change: TuningChange) -> Result<bool> {
    let model = v.with(lua, func, |info| info.model)?;
    let changed = {
        let mut book = lua
            .app_data_mut::<TuningBook>()
            .ok_or_else(|| Error::runtime("no tuning state"))?;
        let now = book.0.entry(v.id.0).or_default();
        let mut next = *now;
        let applied = next
            .apply(change, model, TuningData::get())
            .map_err(|e| Error::runtime(format!("{func}: {e}")))?;
        *now = next;
        applied.changed
    };
    queue_message(lua, TuningCommand { id: v.id, change })?;
    Ok(changed)
}

fn u8_or_nil(func: &str, arg: &str, v: &Value, max: u8) -> Result<Option<u8>> {
    if v.is_nil() {
        return Ok(None);
    }
    Ok(Some(args::integer(func, arg, v, 0..=i64::from(max))? as u8))
}

fn part(func: &str, v: &Value) -> Result<u16> {
    let range = i64::from(*PART_IDS.start())..=i64::from(*PART_IDS.end());
    Ok(args::integer(func, "part", v, range)? as u16)
}

/// The handling table: every key a property of the page's table with a value in its
/// range; a property the table leaves out (nil) is not set.
fn handling_values(func: &str, t: &Table) -> Result<HandlingValues> {
    let mut values: HandlingValues = [None; HANDLING_PROPERTIES.len()];
    for pair in t.pairs::<Value, Value>() {
        let (key, value) = pair?;
        let name = match &key {
            Value::String(s) => s.to_str()?.to_owned(),
            other => format!("{other:?}"),
        };
        let i = handling::index(&name).ok_or_else(|| {
            Error::runtime(format!(
                "{func}: unknown property {name} (known: {})",
                HANDLING_PROPERTIES.map(|p| p.name).join(", ")
            ))
        })?;
        let p = &HANDLING_PROPERTIES[i];
        let v = args::f32_in(func, p.name, &value, p.min..=p.max)?;
        values[i] =
            Some(handling::check(p, v).map_err(|e| Error::runtime(format!("{func}: {e}")))?);
    }
    Ok(values)
}

/// Adds the tuning and handling functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    if lua.app_data_ref::<TuningBook>().is_none() {
        lua.set_app_data(TuningBook::default());
    }
    dlmp.set(
        "add_vehicle_component",
        lua.create_function(|lua, (v, p): (Value, Value)| {
            const F: &str = "add_vehicle_component";
            let v = vehicle_arg(F, &v)?;
            change(lua, F, v, TuningChange::Add(part(F, &p)?)).map(|_| ())
        })?,
    )?;
    dlmp.set(
        "remove_vehicle_component",
        lua.create_function(|lua, (v, p): (Value, Value)| {
            const F: &str = "remove_vehicle_component";
            let v = vehicle_arg(F, &v)?;
            change(lua, F, v, TuningChange::Remove(part(F, &p)?))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_paintjob",
        lua.create_function(|lua, (v, n): (Value, Value)| {
            const F: &str = "set_vehicle_paintjob";
            let v = vehicle_arg(F, &v)?;
            let n = u8_or_nil(F, "paintjob", &n, MAX_PAINTJOB)?;
            change(lua, F, v, TuningChange::Paintjob(n)).map(|_| ())
        })?,
    )?;
    dlmp.set(
        "set_vehicle_plate",
        lua.create_function(|lua, (v, text): (Value, Value)| {
            const F: &str = "set_vehicle_plate";
            let v = vehicle_arg(F, &v)?;
            let plate = if text.is_nil() {
                None
            } else {
                let text = args::string(F, "text", &text)?;
                Some(Plate::parse(&text).map_err(|e| Error::runtime(format!("{F}: {e}")))?)
            };
            change(lua, F, v, TuningChange::Plate(plate)).map(|_| ())
        })?,
    )?;
    dlmp.set(
        "set_vehicle_dirt",
        lua.create_function(|lua, (v, level): (Value, Value)| {
            const F: &str = "set_vehicle_dirt";
            let v = vehicle_arg(F, &v)?;
            let level = u8_or_nil(F, "level", &level, MAX_DIRT)?;
            change(lua, F, v, TuningChange::Dirt(level)).map(|_| ())
        })?,
    )?;
    dlmp.set(
        "set_vehicle_taxi_light",
        lua.create_function(|lua, (v, on): (Value, Value)| {
            const F: &str = "set_vehicle_taxi_light";
            let v = vehicle_arg(F, &v)?;
            let on = args::boolean(F, "on", &on)?;
            change(lua, F, v, TuningChange::TaxiLight(on)).map(|_| ())
        })?,
    )?;
    dlmp.set(
        "set_vehicle_nitro_charges",
        lua.create_function(|lua, (v, n): (Value, Value)| {
            const F: &str = "set_vehicle_nitro_charges";
            let v = vehicle_arg(F, &v)?;
            let n = args::integer(F, "n", &n, 0..=i64::from(MAX_NITRO_CHARGES))? as u8;
            change(lua, F, v, TuningChange::NitroCharges(n)).map(|_| ())
        })?,
    )?;
    dlmp.set(
        "set_vehicle_handling",
        lua.create_function(|lua, (v, t): (Value, Value)| {
            const F: &str = "set_vehicle_handling";
            let v = vehicle_arg(F, &v)?;
            let Value::Table(t) = t else {
                return Err(Error::runtime(format!(
                    "{F}: properties must be a table, got {}",
                    t.type_name()
                )));
            };
            v.with(lua, F, |_| ())?;
            let values = handling_values(F, &t)?;
            queue_message(lua, HandlingCommand { id: v.id, values })
        })?,
    )?;
    Ok(())
}

/// Before the scripts run: when a tuning changed (a call's, a spent charge, a burnt-out
/// nitro) or a vehicle went, the book is the ECS's again.
pub(super) fn refresh_book(
    host: Option<NonSend<ScriptHost>>,
    changed: Query<(), Changed<Tuning>>,
    mut removed: RemovedComponents<Tuning>,
    all: Query<(&Vehicle, &Tuning)>,
) {
    let gone = removed.read().count() > 0;
    if changed.is_empty() && !gone {
        return;
    }
    let Some(host) = host else { return };
    let book = all
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(v, t)| (v.id.0, *t))
        .collect();
    host.lua().set_app_data(TuningBook(book));
}
