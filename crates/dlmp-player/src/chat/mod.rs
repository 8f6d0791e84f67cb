//! Chat and commands (connection.md §4): rate-limited lines, `/commands` routed to their
//! handlers ("Unknown command" otherwise), and everything else broadcast as `name: text`.

mod command;
pub mod script;

use std::collections::HashMap;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemId;
use bevy_time::Time;
use tracing::debug;

pub use command::{CommandCall, parse_command};

/// The target of the moderation log's events (every chat line, player command and console
/// command): `tracing::info!(target: CHAT_LOG, ...)`; the operations' logs write it to its
/// own file.
pub const CHAT_LOG: &str = "dlmp::chat_log";

use dlmp_core::session::ratelimit::{RateLimit, TokenBucket};
use dlmp_core::session::{Connection, Name, PlayerConnected, Received};
use dlmp_core::tick::GameplaySystems;
use dlmp_net::lane::Delivery;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::connection::chat::{ChatMessage, ChatText, Color, MAX_CHAT};
use dlmp_protocol::ids::EventId;
use dlmp_protocol::text::strip_spoofing;

/// The color of a player's line. White.
pub const CHAT_COLOR: Color = Color(0x00FF_FFFF);
/// The color of the server's own notices to one player. Light grey-blue.
pub const NOTICE_COLOR: Color = Color(0x00A9_C4E4);

/// A player's chat allowance: 5 lines at once, 1 a second (connection.md §4).
#[derive(Component, Debug, Clone, Copy)]
pub struct ChatLimit {
    bucket: TokenBucket,
    /// The player was told about the limit since its last accepted line.
    told: bool,
}

impl ChatLimit {
    pub fn new(now: Duration) -> Self {
        ChatLimit {
            bucket: TokenBucket::new(RateLimit::CHAT, now),
            told: false,
        }
    }
}

/// Command handlers by lower-case name: one-shot systems taking a [`CommandCall`].
#[derive(Resource, Debug, Default)]
pub struct ChatCommands {
    handlers: HashMap<String, SystemId<In<CommandCall>>>,
}

impl ChatCommands {
    pub fn get(&self, name: &str) -> Option<SystemId<In<CommandCall>>> {
        self.handlers.get(name).copied()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.handlers.keys().map(String::as_str)
    }
}

/// Registers chat commands on an [`App`].
pub trait ChatCommandsExt {
    /// `/name args` runs `system` with the caller and the arguments.
    fn add_chat_command<M>(
        &mut self,
        name: &str,
        system: impl IntoSystem<In<CommandCall>, (), M> + 'static,
    ) -> &mut Self;
}

impl ChatCommandsExt for App {
    fn add_chat_command<M>(
        &mut self,
        name: &str,
        system: impl IntoSystem<In<CommandCall>, (), M> + 'static,
    ) -> &mut Self {
        let id = self.world_mut().register_system(system);
        self.world_mut()
            .get_resource_or_init::<ChatCommands>()
            .handlers
            .insert(name.to_ascii_lowercase(), id);
        self
    }
}

/// A line a player said that went to everyone.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct PlayerChat {
    pub player: Entity,
    pub text: String,
}

/// This tick's accepted chat lines and commands, between [`GameplaySystems::Intake`] and
/// [`GameplaySystems::Apply`]: the scripts may refuse a line or handle a command in
/// between.
#[derive(Resource, Debug, Default)]
pub struct PendingChat {
    pub lines: Vec<PendingLine>,
    pub commands: Vec<PendingCommand>,
}

/// A chat line waiting for its broadcast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingLine {
    pub player: Entity,
    pub text: String,
    /// A gameplay handler refused the broadcast (`player_chat` returned false).
    pub refused: bool,
}

/// A command waiting for a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCommand {
    pub call: CommandCall,
    /// A gameplay handler took it (`player_command` returned true).
    pub handled: bool,
    /// A gameplay handler of it failed (a Lua error): the player is told the command
    /// failed, not that it is unknown (ADR 0035).
    pub failed: bool,
}

pub struct ChatPlugin;

impl Plugin for ChatPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ChatCommands>()
            .init_resource::<ChatDrops>()
            .init_resource::<PendingChat>()
            .add_message::<PlayerChat>()
            .add_systems(
                FixedUpdate,
                (give_chat_limit, take_chat)
                    .chain()
                    .in_set(GameplaySystems::Intake),
            )
            .add_systems(FixedUpdate, finish_chat.in_set(GameplaySystems::Apply));
    }
}

fn give_chat_limit(
    mut commands: Commands,
    time: Res<Time>,
    mut connected: MessageReader<PlayerConnected>,
) {
    for c in connected.read() {
        commands
            .entity(c.player)
            .insert(ChatLimit::new(time.elapsed()));
    }
}

/// `text` as a ChatMessage body: without the characters that make a line display as
/// something else ([`strip_spoofing`]), cut at 144 bytes on a character boundary.
pub fn chat_text(text: &str) -> ChatText {
    exact_chat_text(&strip_spoofing(text))
}

/// `text` as a ChatMessage body as it is, cut at 144 bytes on a character boundary: for a
/// gamemode that opted out of the stripping (`dlmp.send_chat(..., { raw = true })`).
pub fn exact_chat_text(text: &str) -> ChatText {
    let mut end = text.len().min(MAX_CHAT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    ChatText::new(&text[..end]).unwrap_or_default()
}

/// Sends one notice line to one player.
pub fn notify(conn: &mut Connection, text: &str) {
    let _ = say(conn, NOTICE_COLOR, text);
}

/// Sends one line in `color` to one player: a normal event, refused by a full queue
/// (connection.md §3). Whether the lane took it; what a refusal means is the caller's
/// (ADR 0020).
pub fn say(conn: &mut Connection, color: Color, text: &str) -> bool {
    say_text(conn, color, chat_text(text))
}

/// Sends one line, already a ChatMessage body, as [`say`] does.
pub fn say_text(conn: &mut Connection, color: Color, text: ChatText) -> bool {
    let message = ChatMessage {
        event_id: EventId(0),
        color,
        text,
    };
    conn.send_event(message, Delivery::Normal)
        .inspect_err(|e| debug!("chat line not delivered: {e}"))
        .is_ok()
}

/// Chat lines the lanes refused (connection.md §3, ADR 0020).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ChatDrops {
    /// Copies of players' lines that a recipient's full lane refused.
    pub line_queue_full: u64,
}

/// Rate-limits the tick's ClientChat lines and sorts them into lines and commands.
fn take_chat(
    time: Res<Time>,
    mut pending: ResMut<PendingChat>,
    mut received: MessageReader<Received>,
    mut speakers: Query<&mut ChatLimit>,
    mut connections: Query<&mut Connection>,
    who: Query<(&dlmp_core::session::Player, &dlmp_core::session::Name)>,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::ClientChat(chat) = packet else {
            continue;
        };
        let player = *player;
        let Ok(mut limit) = speakers.get_mut(player) else {
            continue;
        };
        if !limit.bucket.try_take(now) {
            if !std::mem::replace(&mut limit.told, true)
                && let Ok(mut conn) = connections.get_mut(player)
            {
                notify(&mut conn, "You are sending messages too fast.");
            }
            continue;
        }
        limit.told = false;
        // What the gamemode and everyone else see has no characters that would make it
        // display as something else (a right-to-left override, zero-width spaces).
        let text = strip_spoofing(chat.text.as_str());
        if text.trim().is_empty() {
            continue;
        }
        let text = text.as_ref();
        // The admin's record of what players said and ran (rate-limited by the bucket):
        // the console and, with `log_dir`, the chat log.
        if let Ok((p, name)) = who.get(player) {
            tracing::info!(target: CHAT_LOG, player_id = p.id.0, name = name.as_str(), "chat: {text}");
        }
        match parse_command(text) {
            Some((name, args)) => pending.commands.push(PendingCommand {
                call: CommandCall {
                    player,
                    name,
                    args: args.to_owned(),
                },
                handled: false,
                failed: false,
            }),
            None => pending.lines.push(PendingLine {
                player,
                text: text.to_owned(),
                refused: false,
            }),
        }
    }
}

/// Runs or answers the commands nobody handled and broadcasts the lines nobody refused.
fn finish_chat(
    mut commands: Commands,
    registry: Res<ChatCommands>,
    mut pending: ResMut<PendingChat>,
    names: Query<&Name>,
    mut connections: Query<&mut Connection>,
    mut said: MessageWriter<PlayerChat>,
    mut drops: ResMut<ChatDrops>,
) {
    for PendingCommand {
        call,
        handled,
        failed,
    } in pending.commands.drain(..)
    {
        if failed {
            if let Ok(mut conn) = connections.get_mut(call.player) {
                notify(&mut conn, &format!("Command /{} failed", call.name));
            }
            continue;
        }
        if handled {
            continue;
        }
        match registry.get(&call.name) {
            Some(handler) => {
                commands.run_system_with(handler, call);
            }
            None => {
                if let Ok(mut conn) = connections.get_mut(call.player) {
                    notify(&mut conn, "Unknown command");
                }
            }
        }
    }
    for PendingLine {
        player,
        text,
        refused,
    } in pending.lines.drain(..)
    {
        if refused {
            continue;
        }
        let Ok(name) = names.get(player) else {
            continue;
        };
        let line = format!("{}: {text}", name.as_str());
        // A player's line is a broadcast: a recipient with a full lane misses it, the
        // others still get it (ADR 0020).
        for mut conn in &mut connections {
            if !say(&mut conn, CHAT_COLOR, &line) {
                drops.line_queue_full += 1;
            }
        }
        said.write(PlayerChat { player, text });
    }
}
