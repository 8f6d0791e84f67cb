//! PlayerNametag (connection.md §4): sent again to the subject and to every recipient the
//! subject is shown to on a rename or a color change. The show itself carries the
//! nametag (player streaming), so a new player's first nametag is not sent from here.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::components::{Name, Player};
use super::connection::Connection;
use crate::lane::Delivery;
use crate::protocol::connection::chat::Color;
use crate::protocol::connection::roster::PlayerNametag;
use crate::protocol::ids::EventId;

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

/// Sends the nametag of every player renamed or recolored this tick to the player itself.
/// Recipients the player is shown to get it from the streaming feature, which owns the
/// shown sets.
pub(crate) fn send_nametags(
    mut players: Query<(&Player, Ref<Name>, Ref<NametagColor>, &mut Connection)>,
) {
    for (player, name, color, mut conn) in &mut players {
        let changed = name.is_changed() || color.is_changed();
        if !changed || color.is_added() {
            continue;
        }
        if let Err(e) = conn.send_event(color.packet(player, &name), Delivery::Normal) {
            debug!("PlayerNametag: {e}");
        }
    }
}
