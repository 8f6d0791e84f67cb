//! `dlmp.send_chat(text [, color [, players]])` (lua-api.md, the core). ChatMessage is a
//! normal event (connection.md §3): a recipient whose reliable lane is full is refused it.
//! What that means for the call (ADR 0020):
//!
//! - To the players listed, the line goes to all of them or to none: if one of them has
//!   no room, the call raises `send_chat: queue full (...)` naming that player, and
//!   nothing is sent.
//! - To everyone (`players` nil), one full lane must not silence a server-wide line: the
//!   line goes to every player with room, and the call returns the list of the players it
//!   did not reach (empty when it reached everyone), so the gamemode can try again.

use mlua::{Error, Lua, Result, Table, Value};

use super::args;
use super::player::LuaPlayer;
use super::state_mut;
use crate::chat::CHAT_COLOR;
use crate::script::state::{ScriptCommand, ScriptState};
use dlmp_protocol::connection::chat::Color;

const F: &str = "send_chat";

/// Takes a lane place of every listed player still connected, all or none; `func` names
/// the call in the error. A per-player command to a list (`dlmp.set_time`,
/// `dlmp.set_weather`) takes its places here too (ADR 0020).
pub(super) fn reserve_all(
    state: &mut ScriptState,
    func: &str,
    listed: &[LuaPlayer],
) -> Result<Vec<bevy_ecs::entity::Entity>> {
    let here: Vec<&LuaPlayer> = listed
        .iter()
        .filter(|p| state.player(p.entity, p.token).is_some_and(|v| v.connected))
        .collect();
    for p in &here {
        let wanted = here.iter().filter(|q| q.entity == p.entity).count();
        let view = &state.players[&p.entity];
        if view.lane_room < wanted {
            return Err(Error::runtime(format!(
                "{func}: queue full (the reliable lane of {} (id {}) is full); nothing was sent",
                view.name, view.id.0
            )));
        }
    }
    for p in &here {
        if let Some(view) = state.players.get_mut(&p.entity) {
            view.lane_room -= 1;
        }
    }
    Ok(here.iter().map(|p| p.entity).collect())
}

/// Takes a lane place of every connected player that has one; the others, by id, missed
/// the line.
fn reserve_each(state: &mut ScriptState) -> (Vec<bevy_ecs::entity::Entity>, Vec<LuaPlayer>) {
    let mut everyone: Vec<_> = state
        .players
        .iter_mut()
        .filter(|(_, v)| v.connected)
        .collect();
    everyone.sort_by_key(|(_, v)| v.id);
    let (mut to, mut missed) = (Vec::new(), Vec::new());
    for (&entity, view) in everyone {
        if view.lane_room > 0 {
            view.lane_room -= 1;
            to.push(entity);
        } else {
            missed.push(LuaPlayer {
                entity,
                token: view.token,
            });
        }
    }
    (to, missed)
}

pub(super) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        F,
        lua.create_function(|lua, (text, color, players): (Value, Value, Value)| {
            let text = args::string(F, "text", &text)?;
            let color = Color(args::integer_or(
                F,
                "color",
                &color,
                0..=0x00FF_FFFF,
                i64::from(CHAT_COLOR.0),
            )? as u32);
            let listed = if players.is_nil() {
                None
            } else {
                Some(args::players(F, "players", &players)?)
            };
            let mut state = state_mut(lua)?;
            let (to, missed) = match listed {
                Some(listed) => (reserve_all(&mut state, F, &listed)?, Vec::new()),
                None => reserve_each(&mut state),
            };
            state
                .commands
                .push(ScriptCommand::SendChat { text, color, to });
            drop(state);
            lua.create_sequence_from(missed.into_iter().map(super::handles::Cached))
        })?,
    )
}
