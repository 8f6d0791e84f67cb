//! Chat and commands (connection.md §4): rate-limited lines, `/commands` routed to their
//! handlers ("Unknown command" otherwise), and everything else broadcast as `name: text`.

mod command;

use std::collections::HashMap;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemId;
use bevy_time::Time;
use tracing::debug;

pub use command::{CommandCall, parse_command};

use crate::lane::Delivery;
use crate::protocol::ClientPacket;
use crate::protocol::connection::chat::{ChatMessage, ChatText, Color, MAX_CHAT};
use crate::protocol::ids::EventId;
use crate::server::ServerSystems;
use crate::session::ratelimit::{RateLimit, TokenBucket};
use crate::session::{Connection, Name, PlayerConnected, Received};

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

pub struct ChatPlugin;

impl Plugin for ChatPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ChatCommands>()
            .add_message::<PlayerChat>()
            .add_systems(
                FixedUpdate,
                (give_chat_limit, handle_chat)
                    .chain()
                    .in_set(ServerSystems::Gameplay),
            );
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

/// `text` as a ChatMessage body: cut at 144 bytes on a character boundary.
pub fn chat_text(text: &str) -> ChatText {
    let mut end = text.len().min(MAX_CHAT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    ChatText::new(&text[..end]).unwrap_or_default()
}

/// Sends one notice line to one player.
pub fn notify(conn: &mut Connection, text: &str) {
    let message = ChatMessage {
        event_id: EventId(0),
        color: NOTICE_COLOR,
        text: chat_text(text),
    };
    if let Err(e) = conn.send_event(message, Delivery::Normal) {
        debug!("notice not sent: {e}");
    }
}

fn handle_chat(
    mut commands: Commands,
    time: Res<Time>,
    registry: Res<ChatCommands>,
    mut received: MessageReader<Received>,
    mut speakers: Query<(&Name, &mut ChatLimit)>,
    mut connections: Query<&mut Connection>,
    mut said: MessageWriter<PlayerChat>,
) {
    let now = time.elapsed();
    for Received { player, packet } in received.read() {
        let ClientPacket::ClientChat(chat) = packet else {
            continue;
        };
        let player = *player;
        let Ok((name, mut limit)) = speakers.get_mut(player) else {
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
        let text = chat.text.as_str();
        if let Some((command, args)) = parse_command(text) {
            match registry.get(&command) {
                Some(handler) => {
                    commands.run_system_with(
                        handler,
                        CommandCall {
                            player,
                            name: command,
                            args: args.to_owned(),
                        },
                    );
                }
                None => {
                    if let Ok(mut conn) = connections.get_mut(player) {
                        notify(&mut conn, "Unknown command");
                    }
                }
            }
            continue;
        }
        let line = chat_text(&format!("{}: {text}", name.as_str()));
        for mut conn in &mut connections {
            let message = ChatMessage {
                event_id: EventId(0),
                color: CHAT_COLOR,
                text: line,
            };
            if let Err(e) = conn.send_event(message, Delivery::Normal) {
                debug!("chat line not delivered: {e}");
            }
        }
        said.write(PlayerChat {
            player,
            text: text.to_owned(),
        });
    }
}
