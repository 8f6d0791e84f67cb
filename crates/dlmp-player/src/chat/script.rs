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

use bevy_ecs::prelude::*;
use dlmp_core::session::{Connection, Player};
use dlmp_protocol::connection::chat::{ChatText, Color};
use dlmp_script::api::{args, queue};
use dlmp_script::{Arg, ScriptCommand, ScriptHost};
use mlua::{Error, Lua, Result, Table, Value};
use tracing::debug;

use super::{CHAT_COLOR, PendingChat, chat_text, exact_chat_text, say_text};
use crate::script::events::{player_chat, player_command};
use crate::script::{LuaPlayer, PlayerViews, players_arg, views_mut};

const F: &str = "send_chat";

/// Takes a lane place of every listed player still connected, all or none; `func` names
/// the call in the error. A per-player command to a list (`dlmp.set_time`,
/// `dlmp.set_weather`) takes its places here too (ADR 0020).
pub fn reserve_all(
    state: &mut PlayerViews,
    func: &str,
    listed: &[LuaPlayer],
) -> Result<Vec<bevy_ecs::entity::Entity>> {
    let here: Vec<&LuaPlayer> = listed
        .iter()
        .filter(|p| state.player(p.entity, p.token).is_some_and(|v| v.connected))
        .collect();
    for p in &here {
        let wanted = here.iter().filter(|q| q.entity == p.entity).count();
        let view = &state.0[&p.entity];
        if view.lane_room < wanted {
            return Err(Error::runtime(format!(
                "{func}: queue full (the reliable lane of {} (id {}) is full); nothing was sent",
                view.name, view.id.0
            )));
        }
    }
    for p in &here {
        if let Some(view) = state.0.get_mut(&p.entity) {
            view.lane_room -= 1;
        }
    }
    Ok(here.iter().map(|p| p.entity).collect())
}

/// Takes a lane place of every connected player that has one; the others, by id, missed
/// the line.
fn reserve_each(state: &mut PlayerViews) -> (Vec<bevy_ecs::entity::Entity>, Vec<LuaPlayer>) {
    let mut everyone: Vec<_> = state.0.iter_mut().filter(|(_, v)| v.connected).collect();
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

pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        F,
        lua.create_function(
            |lua, (text, color, players, opts): (Value, Value, Value, Value)| {
                let text = args::string(F, "text", &text)?;
                let color = Color(args::integer_or(
                    F,
                    "color",
                    &color,
                    0..=0x00FF_FFFF,
                    i64::from(CHAT_COLOR.0),
                )? as u32);
                let raw = match args::table_or_nil(F, "options", &opts)? {
                    Some(opts) => {
                        args::known_options(F, &opts, &["raw"])?;
                        args::boolean_or(F, "raw", &opts.get::<Value>("raw")?, false)?
                    }
                    None => false,
                };
                let text = if raw {
                    exact_chat_text(&text)
                } else {
                    chat_text(&text)
                };
                let listed = if players.is_nil() {
                    None
                } else {
                    Some(players_arg(F, "players", &players)?)
                };
                let mut state = views_mut(lua)?;
                let (to, missed) = match listed {
                    Some(listed) => (reserve_all(&mut state, F, &listed)?, Vec::new()),
                    None => reserve_each(&mut state),
                };
                drop(state);
                queue(lua, send_chat(text, color, to))?;
                lua.create_sequence_from(missed)
            },
        )?,
    )
}

/// `dlmp.send_chat`: the line to the players in `to`, whose lane places the call took.
fn send_chat(text: ChatText, color: Color, to: Vec<Entity>) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        for player in to {
            if let Some(mut conn) = world.get_mut::<Connection>(player)
                // The call took the place; a refusal here is a bug of the reservation.
                && !say_text(&mut conn, color, text)
            {
                debug!(
                    ?player,
                    "send_chat line refused after the call reserved its place"
                );
            }
        }
    })
}

/// Raises `player_chat` for each pending line and `player_command` for each pending
/// command; the chat system later sends what no handler refused or handled.
pub(crate) fn emit_chat(
    mut host: NonSendMut<ScriptHost>,
    mut pending: ResMut<PendingChat>,
    players: Query<&Player>,
) {
    let handle = |entity: Entity| {
        players.get(entity).ok().map(|p| LuaPlayer {
            entity,
            token: p.token,
        })
    };
    for line in &mut pending.lines {
        let Some(player) = handle(line.player) else {
            continue;
        };
        line.refused |= host.emit(&player_chat(player, line.text.clone())).refused;
    }
    for command in &mut pending.commands {
        let Some(player) = handle(command.call.player) else {
            continue;
        };
        let args: Vec<String> = command
            .call
            .args
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let outcome = host.emit(&player_command(
            player,
            command.call.name.clone(),
            args.clone(),
        ));
        command.handled |= outcome.handled;
        command.failed |= outcome.failed;
        if !command.handled
            && !command.failed
            && let Some(ok) = host.run_command(&command.call.name, &Arg::from(player), &args)
        {
            command.handled = true;
            command.failed = !ok;
        }
    }
}
