//! A player's connection as the game sees it: where its datagrams go, its two reliable
//! lanes, and what it is sent this tick. Every packet is encoded when queued, so an
//! invalid one is refused to its caller at once (connection.md §1) and never sent.

use std::collections::VecDeque;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use bevy_ecs::component::Component;

use crate::lane::{
    AckOutcome, Delivery, InboundLane, LaneHealth, OutboundLane, PushError, Verdict,
};
use crate::protocol::ids::{EventId, PlayerId, PlayerToken, SessionToken};
use crate::protocol::{EncodeError, MAX_DATAGRAM, ServerPacket};
use crate::serial::Serial;

/// Why a packet was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendError {
    /// The packet breaks a rule a client's decoder enforces.
    Invalid(EncodeError),
    /// A normal or droppable event met a full queue ("queue full"); try again later.
    QueueFull,
    /// A critical event overflowed the lane: the session is ending.
    Overflowed,
    /// A reliable packet was sent unreliably, or the other way round.
    WrongLane,
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Invalid(e) => write!(f, "{e}"),
            SendError::QueueFull => f.write_str("queue full"),
            SendError::Overflowed => f.write_str("reliable lane overflowed"),
            SendError::WrongLane => f.write_str("packet sent on the wrong lane"),
        }
    }
}

impl std::error::Error for SendError {}

/// Roster events (PlayerJoin, PlayerLeave) are fed into the lane only while fewer than
/// this many events wait: a newcomer's snapshot of up to `max_players` joins must not
/// overflow its 512-event lane (docs/decisions/0005-server-core.md).
pub const ROSTER_WINDOW: usize = 256;

/// The session's transport state; one per player entity.
#[derive(Component)]
pub struct Connection {
    addr: SocketAddr,
    session_token: SessionToken,
    outbound: OutboundLane<Vec<u8>>,
    inbound: InboundLane,
    unreliable: Vec<Vec<u8>>,
    ack_due: bool,
    /// Roster events not yet in the lane, in order.
    roster: VecDeque<ServerPacket>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("addr", &self.addr)
            .field("waiting", &self.outbound.waiting())
            .field("unreliable", &self.unreliable.len())
            .finish_non_exhaustive()
    }
}

fn encode(packet: &ServerPacket) -> Result<Vec<u8>, SendError> {
    let mut buf = [0u8; MAX_DATAGRAM];
    let n = packet.encode(&mut buf).map_err(SendError::Invalid)?;
    Ok(buf[..n].to_vec())
}

impl Connection {
    pub fn new(addr: SocketAddr, session_token: SessionToken) -> Self {
        Connection {
            addr,
            session_token,
            outbound: OutboundLane::new(),
            inbound: InboundLane::new(),
            unreliable: Vec::new(),
            ack_due: false,
            roster: VecDeque::new(),
        }
    }

    /// The smoothed round trip of the reliable lane; `None` before the first ack.
    pub fn ping(&self) -> Option<std::time::Duration> {
        self.outbound.rtt().srtt()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn session_token(&self) -> SessionToken {
        self.session_token
    }

    /// Queues an unreliable packet for this tick's outbound pass.
    pub fn send(&mut self, packet: impl Into<ServerPacket>) -> Result<(), SendError> {
        let packet = packet.into();
        if packet.event_id().is_some() {
            return Err(SendError::WrongLane);
        }
        self.unreliable.push(encode(&packet)?);
        Ok(())
    }

    /// Queues a reliable event; its `event_id` is stamped here. The result says at once
    /// whether the lane took it (connection.md §3).
    pub fn send_event(
        &mut self,
        packet: impl Into<ServerPacket>,
        delivery: Delivery,
    ) -> Result<EventId, SendError> {
        let mut packet = packet.into();
        if !packet.set_event_id(self.outbound.next_id()) {
            return Err(SendError::WrongLane);
        }
        let bytes = encode(&packet)?;
        self.outbound.push(bytes, delivery).map_err(|e| match e {
            PushError::QueueFull => SendError::QueueFull,
            PushError::Overflowed(_) => SendError::Overflowed,
        })
    }

    /// Queues a roster event (PlayerJoin, PlayerLeave): delivered reliably and in order
    /// with the other roster events, fed into the lane at most [`ROSTER_WINDOW`] deep.
    pub fn send_roster(&mut self, packet: impl Into<ServerPacket>) -> Result<(), SendError> {
        let packet = packet.into();
        if packet.event_id().is_none() {
            return Err(SendError::WrongLane);
        }
        encode(&packet)?;
        self.roster.push_back(packet);
        self.pump_roster();
        Ok(())
    }

    /// Roster events still waiting outside the lane.
    pub fn roster_backlog(&self) -> usize {
        self.roster.len()
    }

    /// Whether the PlayerJoin of player `id` of generation `token` still waits outside the
    /// lane: nothing about that player may reach this recipient before its join
    /// (connection.md §4), so streaming does not show it yet (ADR 0020).
    pub fn awaits_join(&self, id: PlayerId, token: PlayerToken) -> bool {
        self.roster.iter().any(
            |p| matches!(p, ServerPacket::PlayerJoin(j) if j.id == id && j.player_token == token),
        )
    }

    fn pump_roster(&mut self) {
        while self.outbound.waiting() < ROSTER_WINDOW
            && let Some(packet) = self.roster.pop_front()
        {
            // Checked in send_roster; a critical push never refuses.
            let _ = self.send_event(packet, Delivery::Critical);
        }
    }

    /// Events a push of `delivery` may still add before it is refused.
    pub fn room(&self, delivery: Delivery) -> usize {
        self.outbound.room(delivery)
    }

    /// Events waiting for an ack, sent or not.
    pub fn waiting(&self) -> usize {
        self.outbound.waiting()
    }

    /// The latest event the client acknowledged (ClientAck): every event up to it was
    /// applied. Features that time something from the ack of their event (a teleport's
    /// landing, the physics apply window) compare their event id with it.
    pub fn last_acked(&self) -> EventId {
        self.outbound.last_acked()
    }

    /// Whether the client has acknowledged event `id` (acks are cumulative): it has the
    /// event applied. Features whose server state follows the client's (a camera
    /// transition) read it.
    pub fn is_acked(&self, id: EventId) -> bool {
        !id.is_newer_than(self.outbound.last_acked())
    }

    /// A ClientAck arrived.
    pub(crate) fn on_ack(&mut self, id: EventId, now: Duration) -> AckOutcome {
        self.outbound.on_ack(id, now)
    }

    /// A client event arrived: whether to apply it. Applied or not, a ServerAck is due.
    pub(crate) fn receive_event(&mut self, id: EventId) -> Verdict {
        self.ack_due = true;
        self.inbound.receive(id).0
    }

    pub(crate) fn health(&self, now: Duration) -> LaneHealth {
        self.outbound.health(now)
    }

    /// Everything to send this tick, in order: the ServerAck if due, the unreliable
    /// packets, then the lane's resends and new events.
    pub(crate) fn drain(&mut self, now: Duration, mut out: impl FnMut(Vec<u8>)) {
        self.pump_roster();
        if std::mem::take(&mut self.ack_due) {
            let ack = crate::protocol::connection::lane::ServerAck {
                event_id: self.inbound.last_applied(),
            };
            if let Ok(bytes) = encode(&ack.into()) {
                out(bytes);
            }
        }
        for bytes in self.unreliable.drain(..) {
            out(bytes);
        }
        self.outbound.poll(now, |t| out(t.event.clone()));
    }
}
