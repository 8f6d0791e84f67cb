//! The `dlmp` table every resource sees (lua-api.md, "The core, with exact signatures").
//! Each resource gets its own copy whose functions know the resource, so what it registers
//! (handlers, timers, exports) is removed when it stops.

pub mod args;
pub(crate) mod custom;
pub mod handles;
pub mod timer;

use std::time::Duration;

use mlua::{Error, Lua, MultiValue, Result, Table, Value};

use self::timer::LuaTimer;
use crate::registry::{ResourceContext, ScriptApi};
use crate::state::{Handler, ResourceId, ScriptCommand, ScriptState, Timer};

/// The script state of this pass, for writing; every API function reaches it through here.
pub fn state_mut(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, ScriptState>> {
    lua.app_data_mut::<ScriptState>()
        .ok_or_else(|| Error::runtime("no script state"))
}

/// Queues a feature's message for the app (see [`ScriptCommand::message`]).
pub fn queue_message<M: bevy_ecs::message::Message>(lua: &Lua, message: M) -> Result<()> {
    queue(lua, ScriptCommand::message(message))
}

/// Queues a command for the app's world, after those the calls before queued.
pub fn queue(lua: &Lua, command: ScriptCommand) -> Result<()> {
    state_mut(lua)?.commands.push(command);
    Ok(())
}

/// Queues several messages at once: all of them or, without a script state, none.
pub fn queue_messages<M: bevy_ecs::message::Message>(
    lua: &Lua,
    messages: impl IntoIterator<Item = M>,
) -> Result<()> {
    state_mut(lua)?
        .commands
        .extend(messages.into_iter().map(ScriptCommand::message));
    Ok(())
}

/// The folder of `resource`, where its map files are.
pub fn resource_dir(lua: &Lua, resource: ResourceId) -> Result<std::path::PathBuf> {
    state(lua)?
        .resource_dirs
        .get(&resource)
        .cloned()
        .ok_or_else(|| Error::runtime("the resource has no folder"))
}

/// The name of `resource`, for logs.
pub fn resource_name(lua: &Lua, resource: ResourceId) -> Option<String> {
    state(lua).ok()?.resource_names.get(&resource).cloned()
}

/// The script state of this pass, for reading.
pub fn state(lua: &Lua) -> Result<mlua::AppDataRef<'_, ScriptState>> {
    lua.app_data_ref::<ScriptState>()
        .ok_or_else(|| Error::runtime("no script state"))
}

/// Builds the `dlmp` table of `resource`: the host's own functions, then each crate's
/// ([`ScriptApi::functions`]).
pub(crate) fn install(
    lua: &Lua,
    api: &ScriptApi,
    resource: ResourceId,
    name: &str,
) -> Result<Table> {
    let dlmp = lua.create_table()?;
    let resource_name = name.to_owned();

    dlmp.set(
        "on",
        lua.create_function(move |lua, (event, func): (Value, Value)| {
            let event = args::string("on", "event", &event)?;
            let func = args::function("on", "fn", func)?;
            let mut state = state_mut(lua)?;
            custom::check_event_name("on", &event, &state.event_names)?;
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

    // Milliseconds since the server started, on the clock timers run on (the fixed tick's).
    dlmp.set(
        "tick_count",
        lua.create_function(|lua, ()| {
            Ok(i64::try_from(state(lua)?.now().as_millis()).unwrap_or(i64::MAX))
        })?,
    )?;
    custom::install(lua, &dlmp, resource)?;
    api.install(lua, &dlmp, ResourceContext { id: resource, name })?;
    dlmp.set("resource_name", resource_name)?;
    Ok(dlmp)
}
