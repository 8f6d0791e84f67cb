//! The respawn policy for gamemodes (ADR 0012; docs/lua-api.md, "Death and respawn"):
//! `dlmp.set_respawn_delay(ms)`, `player:set_respawn_point(x, y, z, heading_deg
//! [, interior])`, `player:clear_respawn_point()`. Each queues the respawn feature's
//! message ([`SetRespawnDelay`], [`SetRespawnPoint`]).

use std::time::Duration;

use mlua::{Lua, Result, Table, UserDataMethods, Value, Variadic};

use super::args;
use super::player::LuaPlayer;
use super::queue_message;
use crate::respawn::{MAX_RESPAWN_DELAY, SetRespawnDelay, SetRespawnPoint, SpawnPoint};

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

/// Adds the `Player` methods.
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("set_respawn_point", |lua, this, a: Variadic<Value>| {
        const F: &str = "set_respawn_point";
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
        let position = args::world_point(F, ["x", "y", "z"], [&arg(0), &arg(1), &arg(2)])?;
        let heading = args::heading_radians(F, "heading", &arg(3))?;
        let interior = args::integer_or(F, "interior", &arg(4), 0..=255, 0)?;
        this.present(lua, F)?;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "interior checked 0..=255"
        )]
        let point = SpawnPoint {
            position,
            heading,
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
