//! The parameter and color functions (lua-api.md: `dlmp.set_vehicle_engine`, `_lights`,
//! `_locked`, `_locked_for`, `_door`, `_alarm`, `_siren`, `_has_siren`, `_objective`,
//! `_winch`, `_colors`). Each checks its arguments, names a bad one in its Lua error, and
//! queues a command applied in the same tick (vehicles.md VehicleParams, VehicleColors).

use mlua::{Error, Lua, Result, Table, Value};

use super::colors::ColorsCommand;
use super::command::ParamsCommand;
use super::rules::{self, DOOR_NAMES, ParamChange, Who, Winch};
use crate::components::Colors;
use crate::models::{ModelInfo, VehicleModels};
use crate::script::with_vehicle_info;
use dlmp_protocol::vehicle::sync::MAX_COLOR;
use dlmp_script::api::{args, queue_message};

/// The player a call names, if it is still connected.
fn player_arg(lua: &Lua, func: &str, v: &Value) -> Result<Who> {
    let p = dlmp_player::script::player_arg(func, "player", v)?;
    let state = dlmp_player::script::views(lua)?;
    state
        .player(p.entity, p.token)
        .filter(|v| v.connected)
        .map(|v| (v.id, v.token))
        .ok_or_else(|| Error::runtime(format!("{func}: the player has left the server")))
}

/// `f` of the model's row (the table the scripts' view holds; before the first tick, the
/// shipped one).
fn model_row<R>(lua: &Lua, model: u16, f: impl FnOnce(Option<&ModelInfo>) -> R) -> R {
    match lua.app_data_ref::<VehicleModels>() {
        Some(models) => f(models.get(model)),
        None => f(VehicleModels::default().get(model)),
    }
}

/// Queues `change` of the vehicle named in `v`.
fn change(lua: &Lua, func: &str, v: &Value, change: ParamChange) -> Result<()> {
    let vehicle = with_vehicle_info(lua, func, v, |v, _| Ok(v.id))?;
    queue_message(lua, ParamsCommand { vehicle, change })
}

/// A `dlmp.set_vehicle_X(vehicle, on)` function of the vehicle's own bits.
fn switch(
    lua: &Lua,
    dlmp: &Table,
    name: &'static str,
    make: fn(bool) -> ParamChange,
) -> Result<()> {
    dlmp.set(
        name,
        lua.create_function(move |lua, (v, on): (Value, Value)| {
            let on = args::boolean(name, "on", &on)?;
            change(lua, name, &v, make(on))
        })?,
    )
}

/// Adds the functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    switch(lua, dlmp, "set_vehicle_engine", ParamChange::Engine)?;
    switch(lua, dlmp, "set_vehicle_lights", ParamChange::Lights)?;
    switch(lua, dlmp, "set_vehicle_locked", ParamChange::Locked)?;
    switch(lua, dlmp, "set_vehicle_alarm", ParamChange::Alarm)?;
    switch(lua, dlmp, "set_vehicle_siren", ParamChange::Siren)?;
    dlmp.set(
        "set_vehicle_has_siren",
        lua.create_function(|lua, (v, on): (Value, Value)| {
            const F: &str = "set_vehicle_has_siren";
            let on = args::boolean(F, "on", &on)?;
            let model = with_vehicle_info(lua, F, &v, |_, info| Ok(info.model))?;
            // A siren given where it is mute is not given (ADR 0062): the call says so.
            if on && !model_row(lua, model, |m| m.is_some_and(rules::siren_capable)) {
                return Ok(false);
            }
            change(lua, F, &v, ParamChange::HasSiren(on))?;
            Ok(true)
        })?,
    )?;
    dlmp.set(
        "set_vehicle_locked_for",
        lua.create_function(|lua, (v, p, on): (Value, Value, Value)| {
            const F: &str = "set_vehicle_locked_for";
            let who = player_arg(lua, F, &p)?;
            let on = if on.is_nil() {
                None
            } else {
                Some(args::boolean(F, "on", &on)?)
            };
            change(lua, F, &v, ParamChange::LockedFor(who, on))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_objective",
        lua.create_function(|lua, (v, p, on): (Value, Value, Value)| {
            const F: &str = "set_vehicle_objective";
            let who = player_arg(lua, F, &p)?;
            let on = args::boolean(F, "on", &on)?;
            change(lua, F, &v, ParamChange::Objective(who, on))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_door",
        lua.create_function(|lua, (v, door, open): (Value, Value, Value)| {
            const F: &str = "set_vehicle_door";
            let name = args::string(F, "door", &door)?;
            let bit = rules::door_bit(&name).ok_or_else(|| {
                Error::runtime(format!("{F}: door \"{name}\" is not one of {DOOR_NAMES}"))
            })?;
            let open = args::boolean(F, "open", &open)?;
            change(lua, F, &v, ParamChange::Door(bit, open))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_winch",
        lua.create_function(|lua, (v, kind): (Value, Value)| {
            const F: &str = "set_vehicle_winch";
            let kind = if kind.is_nil() {
                None
            } else {
                let word = args::string(F, "kind", &kind)?;
                Some(Winch::parse(&word).ok_or_else(|| {
                    Error::runtime(format!(
                        "{F}: kind \"{word}\" is not \"magnet\", \"small\" or nil"
                    ))
                })?)
            };
            let model = with_vehicle_info(lua, F, &v, |_, info| Ok(info.model))?;
            let capable = model_row(lua, model, |m| m.is_some_and(rules::winch_capable));
            if kind.is_some() && !capable {
                let class = model_row(lua, model, |m| m.map_or("unknown", |m| m.class.name()));
                return Err(Error::runtime(format!(
                    "{F}: model {model} is a {class}: only helicopters carry a winch"
                )));
            }
            change(lua, F, &v, ParamChange::Winch(kind))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_colors",
        lua.create_function(|lua, (v, c1, c2): (Value, Value, Value)| {
            const F: &str = "set_vehicle_colors";
            let range = 0..=i64::from(MAX_COLOR);
            let colors = Colors {
                color1: args::integer(F, "color1", &c1, range.clone())? as u8,
                color2: args::integer(F, "color2", &c2, range)? as u8,
            };
            let vehicle = with_vehicle_info(lua, F, &v, |v, info| {
                if info.wrecked {
                    return Err(Error::runtime(format!(
                        "{F}: vehicle {} is a wreck",
                        v.id.0
                    )));
                }
                info.colors = (colors.color1, colors.color2);
                Ok(v.id)
            })?;
            queue_message(lua, ColorsCommand { vehicle, colors })
        })?,
    )?;
    Ok(())
}
