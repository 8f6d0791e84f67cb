//! What server browsers see of the gamemode (query.md; docs/lua-api.md, "The server
//! query"): `dlmp.set_rule(key, value)`, `dlmp.set_game_mode_text(text)`,
//! `player:set_score(n)`, `player:score()`. Each queues the query feature's message.

use mlua::{Error, Lua, Result, Table, UserDataMethods, Value};

use dlmp_protocol::query::{MAX_RULE_KEY, MAX_RULE_VALUE};
use dlmp_script::api::{args, queue_message};
use dlmp_script::{ResourceId, ScriptApi};

use crate::query::{SetGameModeText, SetRule, SetScore, VERSION_RULE};
use dlmp_player::script::LuaPlayer;

/// What the server query adds to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, resource| install(lua, dlmp, resource.id))
        .methods::<LuaPlayer>(add_methods);
}

/// ServerInfo's `gamemode` field holds 32 bytes.
const MAX_GAME_MODE_TEXT: usize = 32;

/// A text of at most `max` bytes without NUL.
fn short_text(func: &str, arg: &str, v: &Value, min: usize, max: usize) -> Result<String> {
    let text = args::string(func, arg, v)?;
    if !(min..=max).contains(&text.len()) || text.contains('\0') {
        return Err(Error::runtime(format!(
            "{func}: {arg} must be {min}..={max} bytes without NUL, got {}",
            text.len()
        )));
    }
    Ok(text)
}

/// Adds the `dlmp` functions of `resource`.
fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "set_rule",
        lua.create_function(move |lua, (key, value): (Value, Value)| {
            const F: &str = "set_rule";
            let key = short_text(F, "key", &key, 1, MAX_RULE_KEY)?;
            if key == VERSION_RULE {
                return Err(Error::runtime(format!(
                    "{F}: the rule {VERSION_RULE:?} is the server's"
                )));
            }
            let value = if value.is_nil() {
                None
            } else {
                Some(short_text(F, "value", &value, 0, MAX_RULE_VALUE)?)
            };
            queue_message(
                lua,
                SetRule {
                    resource,
                    key,
                    value,
                },
            )
        })?,
    )?;
    dlmp.set(
        "set_game_mode_text",
        lua.create_function(move |lua, text: Value| {
            let text = short_text("set_game_mode_text", "text", &text, 0, MAX_GAME_MODE_TEXT)?;
            queue_message(lua, SetGameModeText { resource, text })
        })?,
    )?;
    Ok(())
}

/// Adds the `Player` methods.
fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("set_score", |lua, this, n: Value| {
        const F: &str = "set_score";
        let score = args::integer(F, "n", &n, i64::from(i32::MIN)..=i64::from(i32::MAX))?;
        let score = i32::try_from(score).map_err(Error::external)?;
        this.with_mut(lua, F, |p| {
            p.score = score;
            Ok(())
        })?;
        queue_message(
            lua,
            SetScore {
                player: this.entity,
                score,
            },
        )
    });
    methods.add_method("score", |lua, this, ()| {
        this.with(lua, "score", |p| p.score)
    });
}
