//! The `dlmp` table every resource sees (lua-api.md, "The core, with exact signatures").
//! Each resource gets its own copy whose functions know the resource, so what it registers
//! (handlers, timers, exports) is removed when it stops.

pub mod animation;
pub(crate) mod args;
mod ban;
mod chat;
mod control;
mod custom;
pub mod db;
pub mod handles;
mod looks;
pub(crate) mod movement;
#[cfg(test)]
mod number_tests;
pub mod player;
mod query;
mod respawn;
#[cfg(test)]
mod tests;
pub mod timer;
pub mod world;

use std::time::Duration;

use mlua::{Error, Lua, MultiValue, Result, Table, Value, Variadic};

use self::player::LuaPlayer;
use self::timer::LuaTimer;
use super::state::{Handler, QueuedMessage, ResourceId, ScriptCommand, ScriptState, Timer};
use crate::player::SpawnInfo;

/// The longest ray `dlmp.set_weapon_range` sets, m.
const MAX_WEAPON_RANGE: f32 = 10_000.0;

/// The script state of this pass, for writing; every API function reaches it through here.
pub(super) fn state_mut(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, ScriptState>> {
    lua.app_data_mut::<ScriptState>()
        .ok_or_else(|| Error::runtime("no script state"))
}

/// Queues a feature's message for the app (see [`ScriptCommand::Message`]).
pub(crate) fn queue_message<M: bevy_ecs::message::Message>(lua: &Lua, message: M) -> Result<()> {
    state_mut(lua)?
        .commands
        .push(ScriptCommand::Message(QueuedMessage::new(message)));
    Ok(())
}

/// Queues several messages at once: all of them or, without a script state, none.
pub(crate) fn queue_messages<M: bevy_ecs::message::Message>(
    lua: &Lua,
    messages: impl IntoIterator<Item = M>,
) -> Result<()> {
    state_mut(lua)?.commands.extend(
        messages
            .into_iter()
            .map(|m| ScriptCommand::Message(QueuedMessage::new(m))),
    );
    Ok(())
}

/// The folder of `resource`, where its map files are.
pub(crate) fn resource_dir(lua: &Lua, resource: ResourceId) -> Result<std::path::PathBuf> {
    state(lua)?
        .resource_dirs
        .get(&resource)
        .cloned()
        .ok_or_else(|| Error::runtime("the resource has no folder"))
}

/// The name of `resource`, for logs.
pub(crate) fn resource_name(lua: &Lua, resource: ResourceId) -> Option<String> {
    state(lua).ok()?.resource_names.get(&resource).cloned()
}

/// The script state of this pass, for reading.
pub(super) fn state(lua: &Lua) -> Result<mlua::AppDataRef<'_, ScriptState>> {
    lua.app_data_ref::<ScriptState>()
        .ok_or_else(|| Error::runtime("no script state"))
}

/// Builds the `dlmp` table of `resource`.
pub(crate) fn install(lua: &Lua, resource: ResourceId, name: &str) -> Result<Table> {
    let dlmp = lua.create_table()?;
    let resource_name = name.to_owned();

    dlmp.set(
        "on",
        lua.create_function(move |lua, (event, func): (Value, Value)| {
            let event = args::string("on", "event", &event)?;
            custom::check_event_name("on", &event)?;
            let func = args::function("on", "fn", func)?;
            let mut state = state_mut(lua)?;
            let handle = state.next_handle();
            state.handlers.entry(event).or_default().push(Handler {
                handle,
                resource,
                func,
            });
            Ok(handle)
        })?,
    )?;

    dlmp.set(
        "off",
        lua.create_function(|lua, handle: Value| {
            let handle = args::integer("off", "handle", &handle, 0..=i64::MAX)? as u64;
            let mut state = state_mut(lua)?;
            let mut removed = false;
            for list in state.handlers.values_mut() {
                let before = list.len();
                list.retain(|h| h.handle != handle);
                removed |= list.len() != before;
            }
            Ok(removed)
        })?,
    )?;

    let owner = resource_name.clone();
    dlmp.set(
        "export",
        lua.create_function(move |lua, (name, func): (Value, Value)| {
            let name = args::string("export", "name", &name)?;
            let func = args::function("export", "fn", func)?;
            state_mut(lua)?.exports.insert((owner.clone(), name), func);
            Ok(())
        })?,
    )?;

    dlmp.set(
        "call",
        lua.create_function(|lua, mut rest: MultiValue| {
            let target = args::string("call", "resource", &rest.pop_front().unwrap_or(Value::Nil))?;
            let name = args::string("call", "name", &rest.pop_front().unwrap_or(Value::Nil))?;
            let func = state(lua)?
                .exports
                .get(&(target.clone(), name.clone()))
                .cloned()
                .ok_or_else(|| {
                    Error::runtime(format!("call: {target} exports no function {name}"))
                })?;
            func.call::<MultiValue>(rest)
        })?,
    )?;

    dlmp.set(
        "set_timer",
        lua.create_function(move |lua, mut rest: MultiValue| {
            const F: &str = "set_timer";
            let mut arg = || rest.pop_front().unwrap_or(Value::Nil);
            let ms = args::integer(F, "ms", &arg(), 0..=i64::from(u32::MAX))?;
            let func = args::function(F, "fn", arg())?;
            // The third argument is `repeating` (a boolean) or `times` (0 = until stopped).
            let remaining = match arg() {
                Value::Nil | Value::Boolean(false) => Some(1),
                Value::Boolean(true) => None,
                times => match args::integer(F, "times", &times, 0..=i64::from(u32::MAX))? {
                    0 => None,
                    n => Some(n as u32),
                },
            };
            let mut state = state_mut(lua)?;
            let id = state.next_handle();
            let interval = Duration::from_millis(ms.unsigned_abs());
            let due = state.now + interval;
            state.timers.push(Timer {
                id,
                resource,
                due,
                interval,
                remaining,
                func,
                args: rest.into_iter().collect(),
            });
            Ok(LuaTimer { id })
        })?,
    )?;

    chat::install(lua, &dlmp)?;
    custom::install(lua, &dlmp, resource)?;

    dlmp.set(
        "players",
        lua.create_function(|lua, ()| {
            let state = state(lua)?;
            let mut list: Vec<_> = state.players.iter().filter(|(_, p)| p.connected).collect();
            list.sort_by_key(|(_, p)| p.id);
            let handles: Vec<_> = list
                .into_iter()
                .map(|(&entity, p)| {
                    handles::Cached(LuaPlayer {
                        entity,
                        token: p.token,
                    })
                })
                .collect();
            drop(state);
            lua.create_sequence_from(handles)
        })?,
    )?;

    dlmp.set(
        "spawn_player",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "spawn_player";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let player = args::player(F, "player", &arg(0))?;
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
            state_mut(lua)?.commands.push(ScriptCommand::SpawnPlayer {
                player: player.entity,
                info,
            });
            Ok(())
        })?,
    )?;

    dlmp.set(
        "set_team_damage",
        lua.create_function(|lua, on: Value| {
            let on = args::boolean("set_team_damage", "on", &on)?;
            state_mut(lua)?
                .commands
                .push(ScriptCommand::SetTeamDamage(on));
            Ok(())
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
            state_mut(lua)?
                .commands
                .push(ScriptCommand::SetWeaponRange {
                    weapon: weapon as u8,
                    meters,
                });
            Ok(())
        })?,
    )?;

    respawn::install(lua, &dlmp)?;
    query::install(lua, &dlmp, resource)?;
    db::install(lua, &dlmp, resource)?;
    ban::install(lua, &dlmp, name)?;
    world::install(lua, &dlmp, resource)?;
    crate::world::pickup::script::install(lua, &dlmp, resource)?;
    crate::vehicle::script::install(lua, &dlmp, resource)?;
    crate::vehicle::damage::script::install(lua, &dlmp)?;
    crate::vehicle::transform::script::install(lua, &dlmp)?;
    crate::vehicle::train::script::install(lua, &dlmp)?;
    crate::vehicle::remote::script::install(lua, &dlmp, resource)?;
    crate::vehicle::life::script::install(lua, &dlmp)?;
    crate::vehicle::tow::script::install(lua, &dlmp)?;
    crate::vehicle::tuning::script::install(lua, &dlmp)?;
    crate::vehicle::params::script::install(lua, &dlmp)?;
    crate::world::map::script::install(lua, &dlmp, resource)?;
    dlmp.set("resource_name", resource_name)?;
    Ok(dlmp)
}
