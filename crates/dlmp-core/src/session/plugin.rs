//! The session feature in the app: hellos, the token and address check, client events in
//! lane order, timeouts, PlayerJoin / PlayerLeave, Disconnect, and the outbound flush
//! (connection.md §1-§4). Thin systems around the I/O-free [`Sessions`], [`HelloGate`] and
//! lanes.

use std::collections::HashSet;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::budget::Admit;
use super::components::{
    EndSession, Farewells, Name, Player, PlayerConnected, PlayerDisconnected, PlayerIndex, Received,
};
use super::connection::Connection;
use super::hello::HelloLimits;
use super::nametag::{
    NametagColor, NametagCommand, RenameRefusals, apply_nametag_commands, send_nametags,
};
use super::pace::SendPace;
use super::relays::Relays;
use super::{HelloGate, HelloOutcome, Ignored, Sessions, Stranger, WorldInfo};
use crate::tick::{ServerSystems, StepDeadline, StreamingSystems, Transport};
use dlmp_net::lane::{LaneHealth, Verdict};
use dlmp_net::{Datagram, DropReason, Inbound};
use dlmp_protocol::connection::handshake::{LeaveReason, Protocol, ServerDisconnect};
use dlmp_protocol::connection::roster::{PlayerJoin, PlayerLeave};
use dlmp_protocol::ids::EventId;
use dlmp_protocol::{ClientPacket, MAX_DATAGRAM, ServerPacket};

/// Session settings.
#[derive(Resource, Debug, Clone, Copy)]
pub struct SessionSettings {
    /// Player slots. Default 1000.
    pub max_players: u16,
    /// Silence that ends a session. Default 10 s.
    pub timeout: Duration,
    /// Live sessions per source IP. Default 16 (ADR 0018).
    pub max_sessions_per_ip: usize,
    /// Datagrams a tick, all sessions together, before lane traffic waits (ADR 0043).
    /// Default 2 000.
    pub send_budget: usize,
}

/// The world as a ServerHello tells it; the clock, weather and garage features keep it
/// current.
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct HelloWorld(pub WorldInfo);

/// The session registry and the hello gate.
#[derive(Resource, Debug)]
pub struct SessionState {
    pub sessions: Sessions,
    pub gate: HelloGate,
}

/// Datagrams taken this tick that are not hellos, routed after the new sessions exist.
#[derive(Resource, Debug, Default)]
struct InboundBatch(Vec<Inbound>);

/// The first datagram read that arrived after the last step's deadline: it and everything
/// behind it in the channel wait for the next step (the network thread stamps arrivals in
/// the order it queues them).
#[derive(Resource, Debug, Default)]
struct Late(Option<Inbound>);

/// Where the next tick's flush starts among the connections: the first one whose lane
/// traffic had to wait this tick, so the budget goes round (ADR 0043).
#[derive(Resource, Debug, Default)]
struct PaceCursor(usize);

/// Answers to hellos outside a connection's queue: ConnectRefused, a repeated ServerHello.
#[derive(Resource, Debug, Default)]
struct Direct(Vec<Datagram>);

/// Adds sessions to the app.
pub struct SessionPlugin {
    pub settings: SessionSettings,
}

impl Plugin for SessionPlugin {
    fn build(&self, app: &mut App) {
        let settings = self.settings;
        app.insert_resource(settings)
            .insert_resource(SessionState {
                sessions: Sessions::new(settings.max_players).with_timeout(settings.timeout),
                gate: HelloGate::new(HelloLimits {
                    max_sessions_per_ip: settings.max_sessions_per_ip,
                    ..HelloLimits::default()
                }),
            })
            .init_resource::<HelloWorld>()
            .init_resource::<PlayerIndex>()
            .init_resource::<Farewells>()
            .init_resource::<InboundBatch>()
            .init_resource::<Late>()
            .init_resource::<PaceCursor>()
            .init_resource::<Direct>()
            .init_resource::<Relays>()
            .add_message::<Received>()
            .add_message::<PlayerConnected>()
            .add_message::<PlayerDisconnected>()
            .add_message::<EndSession>()
            .add_message::<NametagCommand>()
            .init_resource::<RenameRefusals>()
            .add_systems(
                FixedUpdate,
                (
                    take_hellos,
                    publish_sessions,
                    route_packets,
                    expire_sessions,
                )
                    .chain()
                    .in_set(ServerSystems::Ingest),
            )
            .add_systems(FixedUpdate, send_nametags.in_set(StreamingSystems::Relay))
            .add_systems(
                FixedUpdate,
                apply_nametag_commands.in_set(crate::tick::GameplaySystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                (check_lanes, end_sessions, publish_sessions, flush)
                    .chain()
                    .in_set(ServerSystems::Outbound),
            );
    }
}

/// A datagram read at `at` on the server's clock, which stands at the step's deadline
/// during the step; without a deadline, the step's time.
fn on_clock(now: Duration, deadline: Option<&StepDeadline>, at: std::time::Instant) -> Duration {
    deadline.map_or(now, |d| {
        now.saturating_sub(d.0.saturating_duration_since(at))
    })
}

fn encode(packet: impl Into<ServerPacket>) -> Option<Vec<u8>> {
    let mut buf = [0u8; MAX_DATAGRAM];
    match packet.into().encode(&mut buf) {
        Ok(n) => Some(buf[..n].to_vec()),
        Err(e) => {
            dlmp_net::log_limited!(warn, "not sent: {e}");
            None
        }
    }
}

/// Answers every hello of the tick and spawns the new players; keeps the other datagrams
/// for [`route_packets`]. Takes what arrived before the step's deadline, if one is set.
/// Leaves the live sessions for the network thread when one opened or ended since the
/// last time (ADR 0088): after the hellos, so a new client's first packet passes, and after
/// the ends, so a gone session's packets are dropped early.
fn publish_sessions(
    state: Res<SessionState>,
    transport: Res<Transport>,
    mut published: Local<Option<u64>>,
) {
    let changes = state.sessions.changes();
    if *published == Some(changes) {
        return;
    }
    *published = Some(changes);
    transport.sessions.publish(
        state
            .sessions
            .live()
            .map(|(token, addr)| (token.0, addr))
            .collect(),
    );
}

fn take_hellos(
    mut commands: Commands,
    transport: Res<Transport>,
    (deadline, mut late): (Option<Res<StepDeadline>>, ResMut<Late>),
    time: Res<Time>,
    world: Res<HelloWorld>,
    mut state: ResMut<SessionState>,
    mut index: ResMut<PlayerIndex>,
    mut batch: ResMut<InboundBatch>,
    mut direct: ResMut<Direct>,
    mut connections: Query<(Entity, &Player, &Name, &mut Connection)>,
    mut connected: MessageWriter<PlayerConnected>,
    mut ended: MessageWriter<EndSession>,
) {
    let now = time.elapsed();
    let state = &mut *state;
    // Players accepted this tick; their entities exist once the commands apply.
    let mut fresh: Vec<(Entity, Player, Name, Connection)> = Vec::new();
    let deadline = deadline.map(|d| d.0);
    while let Some(inbound) = late.0.take().or_else(|| transport.inbound.try_recv().ok()) {
        if deadline.is_some_and(|d| inbound.at > d) {
            late.0 = Some(inbound);
            break;
        }
        let ClientPacket::ClientHello(hello) = &inbound.packet else {
            batch.0.push(inbound);
            continue;
        };
        let from = inbound.from;
        let protocol = Protocol::of(hello.protocol).unwrap_or_default();
        let outcome = state
            .gate
            .handle(&mut state.sessions, hello, from, now, &world.0);
        // Counted as `flush` counts the answer: by whether the address has a proven
        // session once the hello is handled (a new nonce replaces a proven one).
        if !state.sessions.by_addr(from).is_some_and(|s| s.is_proven()) {
            transport
                .stats
                .unproven_received(dlmp_protocol::Packet::encoded_len(hello));
        }
        // A session this hello replaced at its address, or an unproven one it evicted to
        // make room (ADR 0087), leaves without a farewell: its address was never proven
        // or is the new client's now.
        for old in outcome.replaced().into_iter().chain(outcome.evicted()) {
            if let Some(entity) = index.get(old.session.id()) {
                ended.write(EndSession {
                    player: entity,
                    leave: LeaveReason::Timeout,
                    disconnect: None,
                });
            }
        }
        match outcome {
            HelloOutcome::Accepted { hello, .. } => {
                let player = Player {
                    id: hello.player_id,
                    token: hello.player_token,
                };
                let name = Name(
                    state
                        .sessions
                        .get(player.id)
                        .map(|s| *s.name())
                        .unwrap_or_default(),
                );
                let mut conn = Connection::new(from, hello.session_token).with_protocol(protocol);
                // Outside the connection: until the client proves its token, the
                // ServerHello is all that goes to its address (ADR 0018).
                if let Some(bytes) = encode(hello) {
                    direct.0.push(Datagram { to: from, bytes });
                }
                for (_, other, other_name, mut other_conn) in &mut connections {
                    join(&mut conn, other, other_name);
                    join(&mut other_conn, &player, &name);
                }
                for (_, other, other_name, other_conn) in &mut fresh {
                    join(&mut conn, other, other_name);
                    join(other_conn, &player, &name);
                }
                dlmp_net::log_limited!(info, id = player.id.0, name = name.as_str(), %from, "player connected");
                let entity = commands.spawn_empty().id();
                index.insert(player.id, entity);
                fresh.push((entity, player, name, conn));
            }
            HelloOutcome::Repeated { hello } => {
                if let Some(bytes) = encode(hello) {
                    direct.0.push(Datagram { to: from, bytes });
                }
            }
            HelloOutcome::Refused { answer, .. } => {
                dlmp_net::log_limited!(info, %from, reason = ?answer.reason, "connection refused");
                if let Some(bytes) = encode(answer) {
                    direct.0.push(Datagram { to: from, bytes });
                }
            }
            HelloOutcome::Ignored(why) => {
                debug!(%from, why = why.kind(), "hello ignored");
                if why == Ignored::RateLimited {
                    transport.stats.count_drop(DropReason::RateLimited);
                }
            }
        }
    }
    for (entity, player, name, conn) in fresh {
        commands
            .entity(entity)
            .insert((player, name, conn, NametagColor::default()));
        connected.write(PlayerConnected {
            player: entity,
            id: player.id,
            token: player.token,
        });
    }
}

/// PlayerJoin of `subject` to `to`: a roster event, delivered like a critical one (connection.md §4).
fn join(to: &mut Connection, subject: &Player, name: &Name) {
    let packet = PlayerJoin {
        id: subject.id,
        player_token: subject.token,
        event_id: EventId(0),
        name: name.0,
    };
    if let Err(e) = to.send_roster(packet) {
        debug!("PlayerJoin: {e}");
    }
}

/// Takes the non-hello datagrams: strangers are dropped and counted, acks applied, client
/// events applied once and in order, everything else passed on as [`Received`].
fn route_packets(
    transport: Res<Transport>,
    time: Res<Time>,
    mut state: ResMut<SessionState>,
    index: Res<PlayerIndex>,
    mut batch: ResMut<InboundBatch>,
    mut connections: Query<(&mut Connection, &Name)>,
    mut received: MessageWriter<Received>,
    mut ended: MessageWriter<EndSession>,
    deadline: Option<Res<StepDeadline>>,
) {
    let now = time.elapsed();
    let mut kicked = HashSet::new();
    for Inbound { from, packet, at } in batch.0.drain(..) {
        let Some(token) = packet.session_token() else {
            continue;
        };
        let id = match state.sessions.accept(token, from, now) {
            Ok(id) => id,
            Err(stranger) => {
                transport.stats.count_drop(match stranger {
                    Stranger::UnknownToken => DropReason::UnknownToken,
                    Stranger::WrongAddress => DropReason::WrongAddress,
                });
                continue;
            }
        };
        let Some(player) = index.get(id) else {
            continue;
        };
        let Ok((mut conn, name)) = connections.get_mut(player) else {
            continue;
        };
        match state.sessions.admit(id, now) {
            Admit::Take => {}
            Admit::Drop => {
                transport.stats.count_drop(DropReason::OverBudget);
                continue;
            }
            Admit::Kick => {
                transport.stats.count_drop(DropReason::OverBudget);
                if kicked.insert(player) {
                    dlmp_net::log_limited!(warn, id = id.0, name = name.as_str(), %from, "kicked: kept sending past its inbound budget");
                    ended.write(EndSession {
                        player,
                        leave: LeaveReason::Kicked,
                        disconnect: Some(LeaveReason::Kicked),
                    });
                }
                continue;
            }
        }
        match &packet {
            ClientPacket::ClientDisconnect(_) => {
                ended.write(EndSession {
                    player,
                    leave: LeaveReason::Quit,
                    disconnect: None,
                });
            }
            ClientPacket::ClientAck(ack) => {
                conn.on_ack(ack.event_id, now);
            }
            _ => match packet.event_id() {
                Some(event) if conn.receive_event(event) != Verdict::Apply => {}
                _ => {
                    received.write(Received {
                        player,
                        packet,
                        at: on_clock(now, deadline.as_deref(), at),
                    });
                }
            },
        }
    }
}

/// Ends sessions silent for the timeout (connection.md §2, reason 1).
fn expire_sessions(
    time: Res<Time>,
    state: Res<SessionState>,
    index: Res<PlayerIndex>,
    mut ended: MessageWriter<EndSession>,
) {
    for id in state.sessions.expired(time.elapsed()) {
        if let Some(player) = index.get(id) {
            ended.write(EndSession {
                player,
                leave: LeaveReason::Timeout,
                disconnect: Some(LeaveReason::Timeout),
            });
        }
    }
}

/// Ends sessions whose lane overflowed (Disconnect 2) or stalled (reason 1), connection.md §3.
fn check_lanes(
    time: Res<Time>,
    transport: Res<Transport>,
    connections: Query<(Entity, &Connection)>,
    mut ended: MessageWriter<EndSession>,
) {
    let now = time.elapsed();
    for (player, conn) in &connections {
        let disconnect = match conn.health(now) {
            LaneHealth::Healthy => continue,
            LaneHealth::Overflowed => {
                transport.stats.lane_overflowed();
                LeaveReason::Kicked
            }
            LaneHealth::Stalled => LeaveReason::Timeout,
        };
        ended.write(EndSession {
            player,
            leave: LeaveReason::Timeout,
            disconnect: Some(disconnect),
        });
    }
}

/// Closes the sessions asked to end this tick: the slot is freed, the entity despawned,
/// PlayerLeave goes to everyone else (critical), `Disconnect` to the player if asked.
fn end_sessions(
    mut commands: Commands,
    time: Res<Time>,
    transport: Res<Transport>,
    mut requests: MessageReader<EndSession>,
    mut state: ResMut<SessionState>,
    mut index: ResMut<PlayerIndex>,
    mut farewells: ResMut<Farewells>,
    mut connections: Query<(Entity, &Player, &Name, &mut Connection)>,
    mut disconnected: MessageWriter<PlayerDisconnected>,
    mut relays: ResMut<Relays>,
) {
    let mut ending: Vec<EndSession> = Vec::new();
    let mut seen = HashSet::new();
    for request in requests.read() {
        if seen.insert(request.player) && connections.contains(request.player) {
            ending.push(*request);
        }
    }
    if ending.is_empty() {
        return;
    }
    let mut leaves = Vec::with_capacity(ending.len());
    // One writer for all who leave: a mass disconnect is a few shipments, not one each.
    let mut writer = transport.outbound.writer();
    for request in &ending {
        let Ok((entity, player, name, mut conn)) = connections.get_mut(request.player) else {
            continue;
        };
        let session = state
            .sessions
            .get(player.id)
            .filter(|s| s.token() == player.token)
            .copied();
        if session.is_some() {
            state.sessions.remove(player.id);
        }
        index.remove(player.id, entity);
        // An unproven address is sent nothing but its ServerHello, not even a farewell
        // (ADR 0018). A proven one still gets what it was sent this tick (a kick's reason).
        if session.is_some_and(|s| s.is_proven()) {
            let to = conn.addr();
            let mut pace = SendPace::unlimited();
            let queued = relays.to(player.id);
            let polled = conn.drain(time.elapsed(), &mut pace, &mut writer.lot(to), queued);
            transport.stats.lane_resent(polled.resent);
            relays.forget(player.id);
            if let Some(reason) = request.disconnect {
                farewells.push(to, reason, time.elapsed());
            }
        }
        dlmp_net::log_limited!(info, id = player.id.0, name = name.as_str(), reason = ?request.leave, "player left");
        disconnected.write(PlayerDisconnected {
            player: entity,
            id: player.id,
            token: player.token,
            name: name.0,
            reason: request.leave,
        });
        leaves.push(PlayerLeave {
            id: player.id,
            player_token: player.token,
            event_id: EventId(0),
            reason: request.leave,
        });
        commands.entity(entity).despawn();
    }
    for (entity, _, _, mut conn) in &mut connections {
        if seen.contains(&entity) {
            continue;
        }
        for leave in &leaves {
            if let Err(e) = conn.send_roster(leave.clone()) {
                debug!("PlayerLeave: {e}");
            }
        }
    }
}

/// Hands every datagram of the tick to the network thread.
///
/// A connection whose client has not proven its token yet is held (ADR 0018): what it was
/// queued waits until its first packet with the token. The bytes that do go to unproven
/// addresses (hello answers) are counted. Every datagram sent to a session adds one to its
/// inbound budget (ADR 0019).
///
/// All of it is paced by the tick's global send budget (ADR 0043): hello answers first,
/// then the connections in turn from [`PaceCursor`], each sending its lane traffic while
/// the budget lasts; the first connection that had to wait starts the next tick.
fn flush(
    time: Res<Time>,
    transport: Res<Transport>,
    settings: Res<SessionSettings>,
    mut cursor: ResMut<PaceCursor>,
    mut state: ResMut<SessionState>,
    mut direct: ResMut<Direct>,
    mut farewells: ResMut<Farewells>,
    mut connections: Query<(&Player, &mut Connection)>,
    mut relays: ResMut<Relays>,
) {
    let now = time.elapsed();
    let mut writer = transport.outbound.writer();
    let mut pace = SendPace::new(settings.send_budget);
    for datagram in direct.0.drain(..) {
        if !state
            .sessions
            .by_addr(datagram.to)
            .is_some_and(|s| s.is_proven())
        {
            transport.stats.unproven_sent(datagram.bytes.len());
        }
        pace.charge(1);
        let _ = writer.push(datagram.to, &datagram.bytes);
    }
    let total = connections.iter().len();
    let start = if cursor.0 < total { cursor.0 } else { 0 };
    let mut first_deferred = None;
    let mut all: Vec<_> = connections.iter_mut().collect();
    // Sessions still waiting for their connect spawn first: their lanes carry little (a
    // shallow roster window) and a held grant waits for it (issue 11's join storm).
    let (newcomers, others): (Vec<usize>, Vec<usize>) = (start..total)
        .chain(0..start)
        .partition(|&i| all[i].1.awaits_spawn());
    for i in newcomers.into_iter().chain(others) {
        let (player, conn) = &mut all[i];
        let proven = state
            .sessions
            .get(player.id)
            .is_some_and(|s| s.token() == player.token && s.is_proven());
        if !proven {
            continue;
        }
        let mut lot = writer.lot(conn.addr());
        let polled = conn.drain(now, &mut pace, &mut lot, relays.to(player.id));
        let sent = lot.put();
        if polled.resent > 0 {
            transport.stats.lane_resent(polled.resent);
        }
        if pace.take_deferred() && first_deferred.is_none() {
            first_deferred = Some(i);
        }
        state.sessions.earn(player.id, sent);
    }
    // Relays are never kept for a later tick: what did not leave now would be stale.
    relays.clear();
    if let Some(i) = first_deferred {
        transport.stats.send_deferred();
        cursor.0 = i;
    }
    farewells.due(now, |to, reason| {
        if let Some(bytes) = encode(ServerDisconnect { reason }) {
            let _ = writer.push(to, &bytes);
        }
    });
}
