//! What every connected player entity carries, and the messages sessions raise.

use std::net::SocketAddr;
use std::time::Duration;

use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity;
use bevy_ecs::message::Message;
use bevy_ecs::resource::Resource;

use dlmp_protocol::ClientPacket;
use dlmp_protocol::connection::handshake::LeaveReason;
use dlmp_protocol::ids::{PlayerId, PlayerToken};

use super::PlayerName;

/// A connected player: its slot and that slot's generation (connection.md §5).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Player {
    pub id: PlayerId,
    pub token: PlayerToken,
}

/// The name the player connected with.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct Name(pub PlayerName);

impl Name {
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// Player entities by slot, for packets that name a player id.
#[derive(Resource, Debug, Default)]
pub struct PlayerIndex {
    slots: Vec<Option<Entity>>,
}

impl PlayerIndex {
    pub fn get(&self, id: PlayerId) -> Option<Entity> {
        usize::try_from(id.0)
            .ok()
            .and_then(|i| self.slots.get(i).copied().flatten())
    }

    pub(crate) fn insert(&mut self, id: PlayerId, entity: Entity) {
        let Ok(i) = usize::try_from(id.0) else { return };
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        self.slots[i] = Some(entity);
    }

    pub(crate) fn remove(&mut self, id: PlayerId, entity: Entity) {
        if let Ok(i) = usize::try_from(id.0)
            && self.slots.get(i).copied().flatten() == Some(entity)
        {
            self.slots[i] = None;
        }
    }

    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A packet from a live session, after the token and address check and, for a client
/// event, in lane order and exactly once (connection.md §1, §3).
#[derive(Message, Debug, Clone, PartialEq)]
pub struct Received {
    pub player: Entity,
    pub packet: ClientPacket,
    /// When the network thread read the datagram, on the server's clock: a rule timed by
    /// the client's sending (vehicles.md VehicleShot's interval) is judged by arrival, not
    /// by the tick that happened to take it.
    pub at: Duration,
}

/// A session opened: the player is "connected, not spawned" (connection.md §2).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerConnected {
    pub player: Entity,
    pub id: PlayerId,
    pub token: PlayerToken,
}

/// A session closed; the entity is gone. Gameplay cleans up what the player owned.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct PlayerDisconnected {
    pub player: Entity,
    pub id: PlayerId,
    pub token: PlayerToken,
    pub name: PlayerName,
    pub reason: LeaveReason,
}

/// A request to end a session at the next Outbound pass.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndSession {
    pub player: Entity,
    /// PlayerLeave reason for the others.
    pub leave: LeaveReason,
    /// Disconnect reason for the player itself, sent 3 times 50 ms apart; `None` when the
    /// client left by itself or its address now belongs to another session.
    pub disconnect: Option<LeaveReason>,
}

/// Disconnects still to be sent to addresses whose session ended (connection.md §2: 3
/// times, 50 ms apart).
#[derive(Resource, Debug, Default)]
pub struct Farewells {
    pending: Vec<Farewell>,
}

#[derive(Debug, Clone, Copy)]
struct Farewell {
    addr: SocketAddr,
    reason: LeaveReason,
    next_at: Duration,
    left: u8,
}

/// Spacing of the Disconnect burst.
pub const FAREWELL_SPACING: Duration = Duration::from_millis(50);
/// Copies of the Disconnect burst.
pub const FAREWELL_COPIES: u8 = 3;

impl Farewells {
    pub(crate) fn push(&mut self, addr: SocketAddr, reason: LeaveReason, now: Duration) {
        self.pending.push(Farewell {
            addr,
            reason,
            next_at: now,
            left: FAREWELL_COPIES,
        });
    }

    /// The Disconnects due at `now`. Copy `i` is due `i` × 50 ms after the first, so a
    /// tick that is not a divisor of 50 ms delays a copy without pushing back the next.
    pub(crate) fn due(&mut self, now: Duration, mut out: impl FnMut(SocketAddr, LeaveReason)) {
        for f in &mut self.pending {
            if f.left > 0 && f.next_at <= now {
                out(f.addr, f.reason);
                f.left -= 1;
                f.next_at += FAREWELL_SPACING;
            }
        }
        self.pending.retain(|f| f.left > 0);
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}
