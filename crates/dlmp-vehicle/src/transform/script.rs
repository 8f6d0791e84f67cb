//! The transform API (lua-api.md: `dlmp.set_vehicle_position(vehicle, x, y, z)`,
//! `set_vehicle_rotation(vehicle, x, y, z, w)`, `set_vehicle_velocity(vehicle, x, y, z)`,
//! `set_vehicle_turn_velocity(vehicle, x, y, z)`, `set_vehicle_frozen(vehicle, on)`). Each
//! call checks what the server checks (a Lua error naming the rule), changes the scripts'
//! view at once and queues a [`TransformCommand`]. Velocities are m/s and rad/s here, per
//! physics step on the wire (ADR 0065).

use mlua::{Error, Lua, Result, Table, Value, Variadic};

use super::TransformCommand;
use super::change::{self, Change, Target, TransformError};
use crate::models::VehicleModels;
use crate::script::{LuaVehicle, book, gone, vehicle_arg};
use dlmp_player::frame::rules::STEPS_PER_SECOND;
use dlmp_protocol::geometry::Vec3;
use dlmp_script::api::{args, queue_message};

fn refused(func: &str, why: TransformError) -> Error {
    Error::runtime(format!("{func}: {why}"))
}

/// Checks `change` against the scripts' view of the vehicle, applies it there and queues
/// it.
fn transform(lua: &Lua, func: &str, v: LuaVehicle, change: Change) -> Result<()> {
    if lua.app_data_ref::<VehicleModels>().is_none() {
        // A call at a resource's start, before the first tick put the table there.
        lua.set_app_data(VehicleModels::load());
    }
    {
        let mut book = book(lua)?;
        let info = book.get_mut(v.id).ok_or_else(|| gone(func, v.id))?;
        let is_train = lua
            .app_data_ref::<VehicleModels>()
            .and_then(|m| m.get(info.model).map(|i| i.is_train()))
            .unwrap_or(false);
        let target = Target {
            id: v.id,
            model: info.model,
            is_train,
            wrecked: info.wrecked,
            frozen: info.frozen.held(),
        };
        change::check(&change, &target).map_err(|why| refused(func, why))?;
        change::apply(&change, &mut info.pose, &mut info.frozen);
    }
    queue_message(
        lua,
        TransformCommand {
            vehicle: v.id,
            change,
        },
    )
}

/// Three numbers per second (m/s or rad/s) as a per-step vector, at most `max` long.
fn per_step(
    func: &str,
    a: &Variadic<Value>,
    max: f64,
    too_fast: fn(f64) -> TransformError,
) -> Result<Vec3> {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
    let [x, y, z] = [
        args::number(func, "x", &arg(1))?,
        args::number(func, "y", &arg(2))?,
        args::number(func, "z", &arg(3))?,
    ];
    let len = (x * x + y * y + z * z).sqrt();
    if len > max {
        return Err(refused(func, too_fast(len)));
    }
    let steps = f64::from(STEPS_PER_SECOND);
    #[expect(
        clippy::cast_possible_truncation,
        reason = "at most 200 / 50 per axis, an f32"
    )]
    Ok(Vec3::new(
        (x / steps) as f32,
        (y / steps) as f32,
        (z / steps) as f32,
    ))
}

/// Adds the transform functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "set_vehicle_position",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "set_vehicle_position";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let v = vehicle_arg(F, &arg(0))?;
            let p = args::world_point(F, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
            transform(lua, F, v, Change::Position(p))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_rotation",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "set_vehicle_rotation";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let v = vehicle_arg(F, &arg(0))?;
            let q = [
                args::f32_finite(F, "x", &arg(1))?,
                args::f32_finite(F, "y", &arg(2))?,
                args::f32_finite(F, "z", &arg(3))?,
                args::f32_finite(F, "w", &arg(4))?,
            ];
            transform(lua, F, v, Change::Rotation(q))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_velocity",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "set_vehicle_velocity";
            let v = vehicle_arg(F, a.first().unwrap_or(&Value::Nil))?;
            let speed = per_step(F, &a, change::MAX_SPEED, TransformError::Speed)?;
            transform(lua, F, v, Change::Velocity(speed))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_turn_velocity",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "set_vehicle_turn_velocity";
            let v = vehicle_arg(F, a.first().unwrap_or(&Value::Nil))?;
            let turn = per_step(F, &a, change::MAX_TURN, TransformError::Turn)?;
            transform(lua, F, v, Change::TurnVelocity(turn))
        })?,
    )?;
    dlmp.set(
        "set_vehicle_frozen",
        lua.create_function(|lua, (v, on): (Value, Value)| {
            const F: &str = "set_vehicle_frozen";
            let v = vehicle_arg(F, &v)?;
            let on = args::boolean(F, "on", &on)?;
            transform(lua, F, v, Change::Freeze(on))
        })?,
    )?;
    Ok(())
}
