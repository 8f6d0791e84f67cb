//! The train functions (lua-api.md: `dlmp.set_train_direction(train, along)`,
//! `set_train_derailed(train, on)`, `set_train_speed(train, speed)`). Each checks its
//! arguments at once (a Lua error naming the bad one, or a vehicle that is not a
//! locomotive) and queues a [`TrainCommand`], applied in the same tick.

use mlua::{Error, Lua, Result, Table, Value};

use super::announce::{TrainChange, TrainCommand};
use crate::frame::fields::is_train;
use crate::script::LuaVehicle;
use dlmp_protocol::vehicle::sync::TRAIN_MODELS;
use dlmp_protocol::vehicle::train::MAX_TRAIN_SPEED;
use dlmp_script::api::{args, queue_message};

/// The `train` argument: a vehicle that exists and is a locomotive.
fn train_arg(func: &str, lua: &Lua, v: &Value) -> Result<LuaVehicle> {
    let train = match v {
        Value::UserData(u) => u.borrow::<LuaVehicle>().map(|t| *t).ok(),
        _ => None,
    }
    .ok_or_else(|| {
        Error::runtime(format!(
            "{func}: train must be a Vehicle, got {}",
            v.type_name()
        ))
    })?;
    let model = train.with(lua, func, |i| i.model)?;
    if !is_train(model) {
        return Err(Error::runtime(format!(
            "{func}: vehicle {} (model {model}) is not a train (locomotives {TRAIN_MODELS:?})",
            train.id.0
        )));
    }
    Ok(train)
}

fn queue(lua: &Lua, train: LuaVehicle, change: TrainChange) -> Result<()> {
    queue_message(
        lua,
        TrainCommand {
            train: train.id,
            change,
        },
    )
}

/// Adds the train functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "set_train_direction",
        lua.create_function(|lua, (t, along): (Value, Value)| {
            const F: &str = "set_train_direction";
            let train = train_arg(F, lua, &t)?;
            let along = args::boolean(F, "along", &along)?;
            queue(lua, train, TrainChange::Direction(along))
        })?,
    )?;
    dlmp.set(
        "set_train_derailed",
        lua.create_function(|lua, (t, on): (Value, Value)| {
            const F: &str = "set_train_derailed";
            let train = train_arg(F, lua, &t)?;
            let on = args::boolean(F, "on", &on)?;
            queue(lua, train, TrainChange::Derailed(on))
        })?,
    )?;
    dlmp.set(
        "set_train_speed",
        lua.create_function(|lua, (t, speed): (Value, Value)| {
            const F: &str = "set_train_speed";
            let train = train_arg(F, lua, &t)?;
            let speed = args::f32_in(F, "speed", &speed, -MAX_TRAIN_SPEED..=MAX_TRAIN_SPEED)?;
            queue(lua, train, TrainChange::Speed(speed))
        })?,
    )?;
    Ok(())
}
