//! The RC API (lua-api.md): `dlmp.set_remote_vehicle(player, vehicle [, detonation])`,
//! `dlmp.remove_remote_vehicle(player)`, `dlmp.rc_range()`, `dlmp.set_rc_range(meters)`,
//! and the events `player_remote_enter(player, vehicle)` (refusable) and
//! `player_remote_exit(player, vehicle, how)`. What the scripts' view knows (the player
//! alive and on foot, the model, the scope, a wreck, another driver) is a Lua error at
//! the call; whether the RC is streamed to the player is checked when the command is
//! applied (ADR 0069).

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use mlua::{Error, Lua, Result, Table, Value, Variadic};

use super::{MAX_RC_RANGE, PendingRemoteEnter, RemoteCommand, RemoteQueue};
use crate::models::{VehicleClass, VehicleModels};
use crate::script::{LuaVehicle, is_seated, player_view, vehicle_arg, vehicle_info};
use dlmp_player::script::LuaPlayer;
use dlmp_protocol::ids::VehicleId;
use dlmp_script::api::{args, queue_message};
use dlmp_script::{ResourceId, ScriptEvent, ScriptHost};

/// The scripts' view of the RCs (Lua app data): who drives which, and `rc_range`.
#[derive(Debug, Default)]
struct RemoteBook {
    drivers: HashMap<VehicleId, Entity>,
    range: f32,
}

fn book(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, RemoteBook>> {
    if lua.app_data_ref::<RemoteBook>().is_none() {
        lua.set_app_data(RemoteBook {
            range: super::DEFAULT_RC_RANGE,
            ..RemoteBook::default()
        });
    }
    lua.app_data_mut::<RemoteBook>()
        .ok_or_else(|| Error::runtime("no RC state"))
}

/// Before the scripts run: the book takes the server's drivers and range.
pub(super) fn refresh(lua: &Lua, range: f32, drivers: impl Iterator<Item = (VehicleId, Entity)>) {
    if let Ok(mut book) = book(lua) {
        book.range = range;
        book.drivers.clear();
        book.drivers.extend(drivers);
    }
}

/// Adds the RC functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, _resource: ResourceId) -> Result<()> {
    dlmp.set(
        "set_remote_vehicle",
        lua.create_function(|lua, a: Variadic<Value>| {
            const F: &str = "set_remote_vehicle";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let p = dlmp_player::script::player_arg(F, "player", &arg(0))?;
            let v = vehicle_arg(F, &arg(1))?;
            let detonation = args::boolean_or(F, "detonation", &arg(2), false)?;
            let (able, scope) = player_view(lua, F, &p)?;
            let info = vehicle_info(lua, F, v)?;
            let fail = |why: &str| Err(Error::runtime(format!("{F}: {why}")));
            let rc = lua
                .app_data_ref::<VehicleModels>()
                .and_then(|m| m.get(info.model).map(|i| i.class == VehicleClass::Rc))
                .unwrap_or(false);
            if !rc {
                return fail(&format!("model {} is not remote-controlled", info.model));
            }
            if !able {
                return fail("the player is not spawned and alive");
            }
            if is_seated(lua, p.entity) {
                return fail("the player sits in a vehicle");
            }
            if info.scope != scope {
                return fail(&format!(
                    "vehicle {} is in another world scope than the player",
                    v.id.0
                ));
            }
            if info.wrecked {
                return fail(&format!("vehicle {} is a wreck", v.id.0));
            }
            {
                let mut book = book(lua)?;
                if book.drivers.get(&v.id).is_some_and(|d| *d != p.entity) {
                    return fail(&format!("another player drives vehicle {}", v.id.0));
                }
                book.drivers.retain(|_, d| *d != p.entity);
                book.drivers.insert(v.id, p.entity);
            }
            queue_message(
                lua,
                RemoteCommand::Set {
                    player: p.entity,
                    token: p.token,
                    vehicle: v.id,
                    detonation,
                },
            )
        })?,
    )?;
    dlmp.set(
        "remove_remote_vehicle",
        lua.create_function(|lua, p: Value| {
            const F: &str = "remove_remote_vehicle";
            let p = dlmp_player::script::player_arg(F, "player", &p)?;
            player_view(lua, F, &p)?;
            book(lua)?.drivers.retain(|_, d| *d != p.entity);
            queue_message(
                lua,
                RemoteCommand::Remove {
                    player: p.entity,
                    token: p.token,
                },
            )
        })?,
    )?;
    dlmp.set(
        "rc_range",
        lua.create_function(|lua, ()| Ok(f64::from(book(lua)?.range)))?,
    )?;
    dlmp.set(
        "set_rc_range",
        lua.create_function(|lua, m: Value| {
            let meters = args::f32_in("set_rc_range", "meters", &m, 1.0..=MAX_RC_RANGE)?;
            book(lua)?.range = meters;
            queue_message(lua, RemoteCommand::Range(meters))
        })?,
    )?;
    Ok(())
}

fn lua_player(o: crate::Occupant) -> LuaPlayer {
    LuaPlayer {
        entity: o.entity,
        token: o.token,
    }
}

/// Inside the script pass: `player_remote_exit` for this tick's exits and range releases,
/// then `player_remote_enter` for each waiting request (false from a handler refuses it).
pub(crate) fn emit(host: &mut ScriptHost, queue: &mut RemoteQueue) {
    for (player, id, how) in std::mem::take(&mut queue.exits) {
        host.emit(&ScriptEvent::new(
            "player_remote_exit",
            [
                lua_player(player).into(),
                LuaVehicle { id }.into(),
                how.into(),
            ],
        ));
    }
    for request in &mut queue.enters {
        let PendingRemoteEnter { player, id, .. } = *request;
        let event = ScriptEvent::new(
            "player_remote_enter",
            [lua_player(player).into(), LuaVehicle { id }.into()],
        );
        request.refused |= host.emit(&event).refused;
    }
}
