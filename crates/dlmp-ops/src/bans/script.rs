//! `player:ban([minutes [, reason]])`, `dlmp.ban_ip(ip [, minutes [, reason]])`,
//! `dlmp.unban(name or ip)` (issue 17, ConnectRefused reason 4): queued as
//! [`BanCommand`]s that the bans feature applies in the same tick (ADR 0032).

use std::net::IpAddr;

use mlua::{Error, Lua, Result, Table, UserDataMethods, Value};

use dlmp_script::ScriptApi;
use dlmp_script::api::{args, queue_message};

use crate::bans::BanCommand;
use dlmp_player::script::LuaPlayer;

/// What the bans add to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, resource| install(lua, dlmp, resource.name))
        .methods::<LuaPlayer>(add_methods);
}

/// At most ten years, in minutes.
const MAX_MINUTES: i64 = 10 * 366 * 24 * 60;

fn minutes(func: &str, v: &Value) -> Result<Option<u32>> {
    if v.is_nil() {
        return Ok(None);
    }
    Ok(Some(
        args::integer(func, "minutes", v, 1..=MAX_MINUTES)? as u32
    ))
}

/// The resource whose code called: chunks are named `@RESOURCE/FILE` (host.rs), so the
/// calling function's source names it.
fn caller_resource(lua: &Lua) -> String {
    lua.inspect_stack(1, |debug| {
        debug.source().source.and_then(|s| {
            s.strip_prefix('@')
                .and_then(|s| s.split('/').next())
                .map(str::to_owned)
        })
    })
    .flatten()
    .unwrap_or_else(|| "script".to_owned())
}

fn install(lua: &Lua, dlmp: &Table, resource: &str) -> Result<()> {
    let owner = resource.to_owned();
    dlmp.set(
        "ban_ip",
        lua.create_function(move |lua, (ip, m, reason): (Value, Value, Value)| {
            const F: &str = "ban_ip";
            let text = args::string(F, "ip", &ip)?;
            let ip: IpAddr = text.parse().map_err(|_| {
                Error::runtime(format!("{F}: ip \"{text}\" is not an IPv4 or IPv6 address"))
            })?;
            let minutes = minutes(F, &m)?;
            let reason = args::string_or(F, "reason", &reason, "")?;
            queue_message(
                lua,
                BanCommand::Address {
                    ip,
                    minutes,
                    reason,
                    by: owner.clone(),
                },
            )
        })?,
    )?;
    let owner = resource.to_owned();
    dlmp.set(
        "unban",
        lua.create_function(move |lua, what: Value| {
            let what = args::string("unban", "name_or_ip", &what)?;
            if what.trim().is_empty() {
                return Err(Error::runtime("unban: name_or_ip must not be empty"));
            }
            queue_message(
                lua,
                BanCommand::Lift {
                    what: what.trim().to_owned(),
                    by: owner.clone(),
                },
            )
        })?,
    )?;
    Ok(())
}

fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("ban", |lua, this, (m, reason): (Value, Value)| {
        const F: &str = "ban";
        let minutes = minutes(F, &m)?;
        let reason = args::string_or(F, "reason", &reason, "")?;
        this.present(lua, F)?;
        let by = caller_resource(lua);
        queue_message(
            lua,
            BanCommand::Player {
                player: this.entity,
                minutes,
                reason,
                by,
            },
        )
    });
}
