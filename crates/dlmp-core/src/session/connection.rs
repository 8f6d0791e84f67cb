//! A player's connection as the game sees it: where its datagrams go, its two reliable
//! lanes, and what it is sent this tick. Every packet is encoded when queued, so an
//! invalid one is refused to its caller at once (connection.md §1) and never sent.

use std::collections::VecDeque;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use bevy_ecs::component::Component;

use super::pace::SendPace;
use dlmp_net::Lot;
use dlmp_net::lane::{
    AckOutcome, Delivery, InboundLane, LaneHealth, OutboundLane, Polled, PushError, Verdict,
};
use dlmp_protocol::bundle::Packer;
use dlmp_protocol::connection::handshake::Protocol;
use dlmp_protocol::connection::roster::{PlayerJoin, PlayerLeave};
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken, SessionToken};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::{EncodeError, MAX_DATAGRAM, ServerPacket};

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

/// [`ROSTER_WINDOW`] of a connection whose connect spawn has not been granted yet: what a
/// held grant waits for (the objects at the point, acknowledged: world.md, "Ordering
/// around spawns") is queued behind at most this many roster events, not behind hundreds
/// of them that the send budget paces (issue 11's join storm; ADR 0043). SpawnPlayer
/// depends on no PlayerJoin, and nothing about a player is shown before its join (ADR
/// 0020), so the rest of the roster may follow the grant.
pub const ROSTER_WINDOW_BEFORE_SPAWN: usize = 16;

/// Bytes of room for a tick's unreliable packets a connection keeps between ticks: a
/// crowded view's relays (about 50 × 140 bytes) fit; a rare burst's room is given back.
const UNRELIABLE_KEPT: usize = 64 * 1024;

/// The session's transport state; one per player entity.
#[derive(Component)]
pub struct Connection {
    addr: SocketAddr,
    session_token: SessionToken,
    outbound: OutboundLane<Vec<u8>>,
    inbound: InboundLane,
    /// This tick's unreliable packets, encoded back to back (no allocation per packet).
    unreliable: Vec<u8>,
    /// Where each of them ends in `unreliable`, and the lane event it must not overtake.
    unreliable_at: Vec<Unreliable>,
    /// Relays dropped because the event they may not overtake could not leave in their
    /// tick ([`Relays`](super::relays::Relays)).
    held_back: u64,
    ack_due: bool,
    /// Roster events not yet in the lane, in order.
    roster: VecDeque<RosterEvent>,
    /// What the client said in its hello: whether it accepts bundles (connection.md §1).
    protocol: Protocol,
    /// The connect spawn was granted (SpawnPlayer went out): the roster is fed
    /// [`ROSTER_WINDOW`] deep, not [`ROSTER_WINDOW_BEFORE_SPAWN`].
    spawn_granted: bool,
    /// The event_id of the last ScopeChanged queued: the barrier of the client's
    /// launches (player.md ScopeChanged, weapons.md ProjectileCreate).
    scope_barrier: Option<EventId>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("addr", &self.addr)
            .field("waiting", &self.outbound.waiting())
            .field("unreliable", &self.unreliable_at.len())
            .finish_non_exhaustive()
    }
}

/// A roster event waiting outside the lane, kept small: a newcomer's backlog is up to
/// `max_players` of them, so a join storm holds N² of them at once (issue 11: 296 bytes
/// a ServerPacket, 44 a PlayerJoin).
#[derive(Debug)]
enum RosterEvent {
    Join(PlayerJoin),
    Leave(PlayerLeave),
    Other(Box<ServerPacket>),
}

/// One unreliable packet of the tick.
#[derive(Debug, Clone, Copy)]
struct Unreliable {
    /// End of its bytes in [`Connection::unreliable`].
    end: usize,
    /// The latest lane event queued before it: it leaves after that event and before
    /// every later one (queue order).
    at: EventId,
}

fn encode(packet: &ServerPacket) -> Result<Vec<u8>, SendError> {
    let mut buf = [0u8; MAX_DATAGRAM];
    let n = packet.encode(&mut buf).map_err(SendError::Invalid)?;
    Ok(buf[..n].to_vec())
}

/// Where [`Connection::drain`] puts a tick's packets: a [`Packer`] for a protocol 2
/// client, one datagram each otherwise, all written into the connection's [`Lot`] of the
/// tick's shipment; every datagram begun is counted in the tick's [`SendPace`].
struct Sink<'p, 'w> {
    packer: Option<Packer>,
    lot: &'p mut Lot<'w>,
    pace: &'p mut SendPace,
}

impl Sink<'_, '_> {
    /// Datagrams `packet` begins: 0 when it joins the bundle being built.
    fn cost(&self, packet: &[u8]) -> usize {
        match &self.packer {
            Some(packer) => usize::from(self.lot.starts_datagram(packer, packet)),
            None => 1,
        }
    }

    /// Puts a packet that is never held.
    #[inline(always)]
    fn put(&mut self, packet: &[u8]) {
        let began = self.write(packet);
        self.pace.charge(usize::from(began));
    }

    /// Puts a lane transmission if the pace allows it; says whether it did.
    fn put_lane(&mut self, packet: &[u8]) -> bool {
        let ok = self.pace.allow_lane(self.cost(packet));
        if ok {
            self.write(packet);
        }
        ok
    }

    /// Writes `packet`; says whether it began a datagram. A shed datagram is counted where
    /// it is shed (net/outbound.rs).
    #[inline(always)]
    fn write(&mut self, packet: &[u8]) -> bool {
        match &mut self.packer {
            Some(packer) => self.lot.pack(packer, packet),
            None => {
                let _ = self.lot.push(packet);
                true
            }
        }
    }

    /// Sends the bundle being built.
    fn finish(mut self) {
        if let Some(mut packer) = self.packer.take() {
            self.lot.finish(&mut packer);
        }
    }
}

impl Connection {
    pub fn new(addr: SocketAddr, session_token: SessionToken) -> Self {
        Connection {
            addr,
            session_token,
            outbound: OutboundLane::new(),
            inbound: InboundLane::new(),
            unreliable: Vec::new(),
            unreliable_at: Vec::new(),
            held_back: 0,
            ack_due: false,
            roster: VecDeque::new(),
            protocol: Protocol::default(),
            spawn_granted: false,
            scope_barrier: None,
        }
    }

    /// The connect spawn was granted: the rest of the roster may fill the lane
    /// [`ROSTER_WINDOW`] deep from now on.
    pub fn spawn_granted(&mut self) {
        self.spawn_granted = true;
        self.pump_roster();
    }

    /// Whether the connect spawn has not been granted yet: its flush goes first in the
    /// tick's send budget (session flush, ADR 0043), so a held grant's floor is not paced
    /// behind other sessions' rosters.
    pub fn awaits_spawn(&self) -> bool {
        !self.spawn_granted
    }

    fn roster_window(&self) -> usize {
        if self.spawn_granted {
            ROSTER_WINDOW
        } else {
            ROSTER_WINDOW_BEFORE_SPAWN
        }
    }

    /// The connection of a client that said `protocol` in its hello.
    #[must_use]
    pub fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The protocol the client said in its hello.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The smoothed round trip of the reliable lane; `None` before the first ack (the
    /// console's `players`, the query's ping).
    pub fn ping(&self) -> Option<std::time::Duration> {
        self.outbound.rtt().srtt()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn session_token(&self) -> SessionToken {
        self.session_token
    }

    /// Queues an unreliable packet for this tick's outbound pass. It leaves in queue
    /// order: after the lane events queued before it, before those queued after it (a
    /// RespawnPlayer before the events of the new life, a ServerHello before the roster).
    pub fn send(&mut self, packet: impl Into<ServerPacket>) -> Result<(), SendError> {
        self.queue_unreliable(packet.into())
    }

    fn queue_unreliable(&mut self, packet: ServerPacket) -> Result<(), SendError> {
        if packet.event_id().is_some() {
            return Err(SendError::WrongLane);
        }
        // Encoded in place at the end of the tick's buffer: no datagram-sized copy.
        let start = self.unreliable.len();
        self.unreliable.resize(start + MAX_DATAGRAM, 0);
        match packet.encode(&mut self.unreliable[start..]) {
            Ok(n) => {
                self.unreliable.truncate(start + n);
                self.unreliable_at.push(Unreliable {
                    end: self.unreliable.len(),
                    at: self.last_queued(),
                });
                Ok(())
            }
            Err(e) => {
                self.unreliable.truncate(start);
                Err(SendError::Invalid(e))
            }
        }
    }

    /// The latest event queued on the lane (sent or not); the id before the first while
    /// none was queued.
    pub fn last_queued(&self) -> EventId {
        EventId(self.outbound.next_id().0.wrapping_sub(1))
    }

    /// Whether lane event `id` has left at least once.
    pub fn is_sent(&self, id: EventId) -> bool {
        self.outbound.is_sent(id)
    }

    /// Unreliable packets dropped so far because the event they may not overtake had not
    /// left in their tick.
    pub fn held_back(&self) -> u64 {
        self.held_back
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
        let scope_changed = matches!(packet, ServerPacket::ScopeChanged(_));
        let id = self.outbound.push(bytes, delivery).map_err(|e| match e {
            PushError::QueueFull => SendError::QueueFull,
            PushError::Overflowed(_) => SendError::Overflowed,
        })?;
        if scope_changed {
            self.scope_barrier = Some(id);
        }
        Ok(id)
    }

    /// The event_id of the last ScopeChanged queued to this client; `None` before one.
    /// A launch the client made before applying it belongs to a scope it has left
    /// (weapons.md, ProjectileCreate).
    pub fn scope_barrier(&self) -> Option<EventId> {
        self.scope_barrier
    }

    /// Queues a roster event (PlayerJoin, PlayerLeave): delivered reliably and in order
    /// with the other roster events, fed into the lane at most [`ROSTER_WINDOW`] deep
    /// ([`ROSTER_WINDOW_BEFORE_SPAWN`] until the connect spawn is granted).
    pub fn send_roster(&mut self, packet: impl Into<ServerPacket>) -> Result<(), SendError> {
        let packet = packet.into();
        if packet.event_id().is_none() {
            return Err(SendError::WrongLane);
        }
        encode(&packet)?;
        self.roster.push_back(match packet {
            ServerPacket::PlayerJoin(join) => RosterEvent::Join(join),
            ServerPacket::PlayerLeave(leave) => RosterEvent::Leave(leave),
            other => RosterEvent::Other(Box::new(other)),
        });
        self.pump_roster();
        Ok(())
    }

    /// Queues a critical event about player `id` of generation `token`: behind its
    /// PlayerJoin when that still waits outside the lane, since nothing about a player may
    /// reach this recipient before its join (connection.md §4; ADR 0121).
    pub fn send_about(
        &mut self,
        (id, token): (PlayerId, PlayerToken),
        packet: impl Into<ServerPacket>,
    ) -> Result<(), SendError> {
        if !self.awaits_join(id, token) {
            return self.send_event(packet, Delivery::Critical).map(|_| ());
        }
        let packet = packet.into();
        if packet.event_id().is_none() {
            return Err(SendError::WrongLane);
        }
        encode(&packet)?;
        self.roster.push_back(RosterEvent::Other(Box::new(packet)));
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
        self.roster
            .iter()
            .any(|e| matches!(e, RosterEvent::Join(j) if j.id == id && j.player_token == token))
    }

    fn pump_roster(&mut self) {
        while self.outbound.waiting() < self.roster_window()
            && let Some(event) = self.roster.pop_front()
        {
            let packet = match event {
                RosterEvent::Join(join) => ServerPacket::from(join),
                RosterEvent::Leave(leave) => leave.into(),
                RosterEvent::Other(packet) => *packet,
            };
            // Checked in send_roster; a critical push never refuses.
            let _ = self.send_event(packet, Delivery::Critical);
        }
        // A newcomer's roster is max_players entries once; its room is not kept after.
        if self.roster.is_empty() && self.roster.capacity() > 16 {
            self.roster = VecDeque::new();
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

    /// Everything to send this tick, as datagrams, in this order: the ServerAck if due,
    /// then the lane's resends and new events with the unreliable packets of
    /// [`send`](Self::send) in queue order among them, then this connection's `relays`
    /// ([`Relays`](super::relays::Relays)) in order, after every event of the tick (a
    /// show or death queued in the tick reaches the client before them; one whose barrier
    /// event has not left is dropped and counted in [`held_back`](Self::held_back)). A
    /// protocol 2 client gets all of it packed into as few bundles as fit, in that order
    /// (connection.md §1); a protocol 1 client one datagram per packet. Each datagram is
    /// written into `lot`, its shipment to the network thread.
    ///
    /// Lane transmissions go only while `pace` allows them (the tick's global send
    /// budget, ADR 0043); the rest wait in the lane, in order, for a later tick.
    /// Everything else leaves in its tick and is counted in `pace`.
    ///
    /// Returns what the lane sent (its resends are counted by the caller).
    pub(crate) fn drain<'r>(
        &mut self,
        now: Duration,
        pace: &mut SendPace,
        lot: &mut Lot<'_>,
        relays: impl IntoIterator<Item = (&'r [u8], Option<EventId>)>,
    ) -> Polled {
        self.pump_roster();
        let mut sink = Sink {
            packer: self.protocol.bundles().then(Packer::new),
            lot,
            pace,
        };
        if std::mem::take(&mut self.ack_due) {
            let ack = dlmp_protocol::connection::lane::ServerAck {
                event_id: self.inbound.last_applied(),
            };
            if let Ok(bytes) = encode(&ack.into()) {
                sink.put(&bytes);
            }
        }
        let (bytes, queued) = (&self.unreliable, &self.unreliable_at);
        let mut ordered = queued
            .iter()
            .scan(0, |start, u| {
                let range = *start..u.end;
                *start = u.end;
                Some((range, u.at))
            })
            .peekable();
        let polled = self.outbound.poll_paced(now, |t| {
            while let Some((range, _)) = ordered.next_if(|&(_, at)| t.id.is_newer_than(at)) {
                sink.put(&bytes[range]);
            }
            sink.put_lane(t.event)
        });
        for (range, _) in ordered {
            sink.put(&bytes[range]);
        }
        for (relay, after) in relays {
            if after.is_some_and(|id| !self.outbound.is_sent(id)) {
                self.held_back += 1;
                continue;
            }
            sink.put(relay);
        }
        self.unreliable.clear();
        self.unreliable_at.clear();
        // A tick's burst of unreliable packets (a Go-Back-N of hundreds) keeps no room.
        if self.unreliable.capacity() > UNRELIABLE_KEPT {
            self.unreliable.shrink_to(UNRELIABLE_KEPT / 4);
            self.unreliable_at.shrink_to(64);
        }
        sink.finish();
        polled
    }
}
