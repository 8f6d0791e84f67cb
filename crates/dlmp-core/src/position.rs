//! Where a player is, for every feature that places or streams it (player.md, "Player
//! streaming"): its position, its world scope and the point its streaming is measured from.

use bevy_ecs::prelude::*;
use dlmp_net::lane::Delivery;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::player::streaming::ScopeChanged;

use crate::session::Connection;

/// The server's position of the player, in world units.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Position(pub Vec3);

/// The world scope: only players (and things) in the same virtual world and interior see
/// each other (player.md, "Player streaming"). Never on the wire.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scope {
    pub virtual_world: u32,
    /// 0 = outside.
    pub interior: u8,
}

impl Scope {
    /// Moves the player to `new`. A change tells the owner with ScopeChanged, a critical
    /// event (player.md, ScopeChanged): the virtual world setter, a teleport into another
    /// interior and a respawn grant into another interior use it; the connect spawn sets
    /// the scope without it. Streaming reconciles the new scope in the same tick
    /// ([`ServerSystems::Streaming`](crate::tick::ServerSystems::Streaming) runs after the gameplay).
    pub fn change(&mut self, new: Scope, conn: &mut Connection) -> bool {
        if *self == new {
            return false;
        }
        *self = new;
        if let Err(e) = conn.send_event(
            ScopeChanged {
                event_id: EventId(0),
            },
            Delivery::Critical,
        ) {
            tracing::debug!(?e, "ScopeChanged not queued");
        }
        true
    }
}

/// The point the player's streaming distance is measured from (player.md, "Player
/// streaming"): its body, or its camera while the camera is not its own (SetCamera).
/// Written by the control feature (`player::control`) every tick before streaming.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct StreamCenter {
    /// Where a fixed or spectating camera puts the center; `None` = the body.
    pub camera: Option<Vec3>,
    /// A spectate target (SetCamera mode 2), shown at any distance.
    pub spectating: Option<PlayerId>,
}
