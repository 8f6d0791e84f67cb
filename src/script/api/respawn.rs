//! The respawn policy for gamemodes (ADR 0012; docs/lua-api.md, "Death and respawn"):
//! `dlmp.set_respawn_delay(ms)`, `player:set_respawn_point(x, y, z, heading_deg
//! [, interior])`, `player:clear_respawn_point()`. Each queues the respawn feature's
//! message ([`SetRespawnDelay`], [`SetRespawnPoint`]).

use std::time::Duration;

use mlua::{Error, Lua, Result, Table, UserDataMethods, Value, Variadic};

use super::args;
use super::player::LuaPlayer;
use super::queue_message;
use crate::player::respawn::{MAX_RESPAWN_DELAY, SetRespawnDelay, SetRespawnPoint, SpawnPoint};
use crate::protocol::geometry::Vec3;
use crate::protocol::world::shared::{WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};

/// Adds the `dlmp` functions.
pub(super) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "set_respawn_delay",
        lua.create_function(|lua, ms: Value| {
            let max = i64::try_from(MAX_RESPAWN_DELAY.as_millis()).unwrap_or(i64::MAX);
            let ms = args::integer("set_respawn_delay", "ms", &ms, 0..=max)?;
            queue_message(
                lua,
                SetRespawnDelay(Duration::from_millis(ms.unsigned_abs())),
            )
        })?,
    )?;
    Ok(())
}

/// A coordinate within the world bounds.
fn coordinate(func: &str, arg: &str, v: &Value, min: f32, max: f32) -> Result<f32> {
    let n = args::number(func, arg, v)?;
    if (f64::from(min)..=f64::from(max)).contains(&n) {
        #[expect(clippy::cast_possible_truncation, reason = "within the world bounds")]
        Ok(n as f32)
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} {n} is outside the world ({min}..={max})"
        )))
    }
}

/// Adds the `Player` methods.
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("set_respawn_point", |lua, this, a: Variadic<Value>| {
        const F: &str = "set_respawn_point";
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
        let x = coordinate(F, "x", &arg(0), -WORLD_XY, WORLD_XY)?;
        let y = coordinate(F, "y", &arg(1), -WORLD_XY, WORLD_XY)?;
        let z = coordinate(F, "z", &arg(2), WORLD_Z_MIN, WORLD_Z_MAX)?;
        let heading = args::number(F, "heading", &arg(3))?;
        let interior = args::integer_or(F, "interior", &arg(4), 0..=255, 0)?;
        this.present(lua, F)?;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a finite heading; interior checked 0..=255"
        )]
        let point = SpawnPoint {
            position: Vec3::new(x, y, z),
            heading: heading.to_radians() as f32,
            interior: interior as u8,
        };
        queue_message(
            lua,
            SetRespawnPoint {
                player: this.entity,
                point: Some(point),
            },
        )
    });
    methods.add_method("clear_respawn_point", |lua, this, ()| {
        this.present(lua, "clear_respawn_point")?;
        queue_message(
            lua,
            SetRespawnPoint {
                player: this.entity,
                point: None,
            },
        )
    });
}
