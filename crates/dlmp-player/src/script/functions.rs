//! The player's functions of the `dlmp` table (lua-api.md, "The core"): `dlmp.players`,
//! `dlmp.spawn_player`, `dlmp.set_team_damage`, `dlmp.set_weapon_range`.

use mlua::{Error, Lua, Result, Table, Value, Variadic};

use super::commands;
use super::view::views;
use super::{LuaPlayer, args, looks, player_arg, queue};
use crate::SpawnInfo;
use dlmp_script::api::handles::Cached;

/// The longest ray `dlmp.set_weapon_range` sets, m.
const MAX_WEAPON_RANGE: f32 = 10_000.0;

pub(super) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "players",
        lua.create_function(|lua, ()| {
            let views = views(lua)?;
            let mut list: Vec<_> = views.0.iter().filter(|(_, p)| p.connected).collect();
            list.sort_by_key(|(_, p)| p.id);
            let handles: Vec<_> = list
                .into_iter()
                .map(|(&entity, p)| {
                    Cached(LuaPlayer {
                        entity,
                        token: p.token,
                    })
                })
                .collect();
            drop(views);
            lua.create_sequence_from(handles)
        })?,
    )?;

    dlmp.set(
        "spawn_player",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "spawn_player";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let player = player_arg(F, "player", &arg(0))?;
            let position = args::world_point(F, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
            let heading = args::heading_radians(F, "heading", &arg(4))?;
            let current = player.with_mut(lua, F, |p| Ok(p.appearance))?;
            // Without a skin the player keeps its current look (ADR 0014).
            let (skin, variant) = if arg(5).is_nil() {
                (
                    current.skin,
                    looks::skin_variant(F, &arg(6), current.variant)?,
                )
            } else {
                (
                    looks::skin_model(F, "skin", &arg(5))?,
                    looks::skin_variant(F, &arg(6), 1)?,
                )
            };
            let interior = args::integer_or(F, "interior", &arg(7), 0..=255, 0)?;
            let info = SpawnInfo {
                position,
                heading,
                interior: interior as u8,
                skin,
                variant,
            };
            queue(lua, commands::spawn_player(player.entity, info))
        })?,
    )?;

    dlmp.set(
        "set_team_damage",
        lua.create_function(|lua, on: Value| {
            let on = args::boolean("set_team_damage", "on", &on)?;
            queue(lua, commands::set_team_damage(on))
        })?,
    )?;

    dlmp.set(
        "set_weapon_range",
        lua.create_function(|lua, (w, m): (Value, Value)| {
            const F: &str = "set_weapon_range";
            let weapon = args::integer(F, "weapon", &w, 22..=38)?;
            let meters = args::f32_in(F, "meters", &m, 0.0..=MAX_WEAPON_RANGE)?;
            if meters <= 0.0 {
                return Err(Error::runtime(format!(
                    "set_weapon_range: meters {meters} is outside 0 < m <= 10000"
                )));
            }
            queue(lua, commands::set_weapon_range(weapon as u8, meters))
        })?,
    )?;
    Ok(())
}
