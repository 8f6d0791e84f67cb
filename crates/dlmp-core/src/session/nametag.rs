//! PlayerNametag (connection.md §4): sent again to the subject and to every recipient the
//! subject is shown to on a rename or a color change. The show itself carries the
//! nametag (player streaming, `crate::streaming`), so a new player's first nametag is not
//! sent from here.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::components::{Name, Player, PlayerIndex};
use super::connection::Connection;
use super::plugin::SessionState;
use super::registry::PlayerName;
use crate::streaming::Reshows;
use crate::viewers::{Viewers, tell_viewers};
use dlmp_net::lane::Delivery;
use dlmp_protocol::connection::chat::Color;
use dlmp_protocol::connection::roster::PlayerNametag;
use dlmp_protocol::ids::{EventId, PlayerToken};

/// The color of a player's name tag. White by default.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct NametagColor(pub Color);

impl Default for NametagColor {
    fn default() -> Self {
        NametagColor(Color(0x00FF_FFFF))
    }
}

impl NametagColor {
    /// The nametag packet of `player` with this color.
    pub fn packet(&self, player: &Player, name: &Name) -> PlayerNametag {
        PlayerNametag {
            id: player.id,
            player_token: player.token,
            event_id: EventId(0),
            color: self.0,
            name: name.0,
        }
    }
}

/// What [`send_nametags`] reads of a player.
type NametagParts = (
    Entity,
    &'static Player,
    Ref<'static, Name>,
    Ref<'static, NametagColor>,
    Option<&'static Viewers>,
);

/// Sends the nametag of every player renamed or recolored this tick to the player itself
/// and to every recipient it is shown to (its [`Viewers`], as player streaming left them
/// this tick). A recipient shown the player this tick also got the nametag in the show's
/// snapshot; the repeat is harmless. A viewer whose lane is full gets a fresh show
/// instead ([`tell_viewers`]). A new player's first nametag rides its shows.
pub(crate) fn send_nametags(
    players: Query<NametagParts>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut reshows: ResMut<Reshows>,
) {
    for (entity, player, name, color, viewers) in &players {
        let changed = name.is_changed() || color.is_changed();
        if !changed || color.is_added() {
            continue;
        }
        let packet = color.packet(player, &name);
        if let Ok(mut conn) = connections.get_mut(entity)
            && let Err(e) = conn.send_event(packet.clone(), Delivery::Normal)
        {
            debug!("PlayerNametag to its subject: {e}");
        }
        if let Some(viewers) = viewers {
            tell_viewers(
                entity,
                viewers,
                &index,
                &mut connections,
                &mut reshows,
                packet,
            );
        }
    }
}

/// A gamemode's change of a player's name tag (`player:set_name`, `player:set_color`;
/// ADR 0071): the next nametag pass sends it (connection.md §4, "on a rename or a color
/// change"). A command for a player who left, or a later generation in the same slot,
/// changes nothing.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub enum NametagCommand {
    Rename {
        player: Entity,
        token: PlayerToken,
        name: PlayerName,
    },
    Recolor {
        player: Entity,
        token: PlayerToken,
        color: Color,
    },
}

/// Renames refused when they were applied: another player took the name in the same tick
/// (the script's own check saw the tick's start).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RenameRefusals(pub u64);

/// Applies the tick's [`NametagCommand`]s in order. A rename also renames the session, so
/// the hello's "name in use" and the query see the new name and free the old one.
pub(crate) fn apply_nametag_commands(
    mut read: MessageReader<NametagCommand>,
    mut state: ResMut<SessionState>,
    mut refused: ResMut<RenameRefusals>,
    mut players: Query<(&Player, &mut Name, &mut NametagColor)>,
) {
    for command in read.read() {
        match command {
            NametagCommand::Rename {
                player,
                token,
                name,
            } => {
                let Ok((p, mut current, _)) = players.get_mut(*player) else {
                    continue;
                };
                if p.token != *token || current.0 == *name {
                    continue;
                }
                if state.sessions.rename(p.id, *name) {
                    current.0 = *name;
                } else {
                    refused.0 += 1;
                    dlmp_net::log_limited!(
                        warn,
                        player = p.id.0,
                        name = name.as_str(),
                        "a rename refused: the name is in use"
                    );
                }
            }
            NametagCommand::Recolor {
                player,
                token,
                color,
            } => {
                if let Ok((p, _, mut current)) = players.get_mut(*player)
                    && p.token == *token
                {
                    current.set_if_neq(NametagColor(*color));
                }
            }
        }
    }
}
