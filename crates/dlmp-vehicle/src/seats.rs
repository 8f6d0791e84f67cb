//! Seats (vehicles.md VehicleEnter, VehicleExit, VehicleOccupancy): the checks of a seat
//! request, the wait for `vehicle_start_enter` (and `vehicle_jack` for a jack), the second
//! check and the seating; exits; the server's seating and unseating; and the seats a
//! death, a disconnect, a destroyed vehicle or a change of scope frees.
//!
//! Every seat change goes, critical, to everyone the vehicle is streamed to (the occupant
//! always is, its own vehicle is always shown); a deny goes to the requester only. A
//! disconnect frees the seat without a broadcast (PlayerLeave closes it).

use bevy_ecs::prelude::*;
use tracing::debug;

use super::components::{Occupant, Params, Seats, Train, Vehicle, VehicleScope};
use super::event_limit::{Judged, VehicleLane};
use super::models::{CARRIAGE_LENGTH, VehicleModels};
use super::stream::{VehicleStream, occupancy};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player, PlayerDisconnected, PlayerIndex, Received};
use dlmp_core::vehicle::{Life, Pose, Seated};
use dlmp_net::lane::Delivery;
use dlmp_player::Life as PlayerLife;
use dlmp_player::frame::FrameState;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, PlayerToken, VehicleEpoch, VehicleId};
use dlmp_protocol::vehicle::seats::OccupancyKind;

/// A seat request is accepted within this distance of the vehicle's server position, m.
pub const ENTER_DISTANCE: f32 = 15.0;

/// Why a seat request was denied (counted, console `stats`; the tests name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Deny {
    /// The vehicle does not exist (any more).
    NoVehicle,
    /// Not streamed to the sender, or not in its virtual world and interior now.
    NotStreamed,
    /// Not alive, not spawned, or frozen.
    NotAble,
    /// Farther than 15 m (+ 25 m per carriage).
    TooFar,
    /// No such seat on the model.
    NoSeat,
    /// The seat is taken.
    Taken,
    /// The sender sits in another vehicle.
    Seated,
    /// A derailed train.
    Derailed,
    Wrecked,
    Locked,
    /// Jacking is off.
    NoJacking,
    /// A handler returned false.
    Refused,
    /// A respawn of the vehicle in the meantime.
    Respawned,
    /// The driver of a jack changed in the meantime.
    DriverChanged,
}

/// Whether jacking is on (`dlmp.set_vehicle_jacking`; on by default).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jacking(pub bool);

impl Default for Jacking {
    fn default() -> Self {
        Jacking(true)
    }
}

/// Denied seat requests, by reason.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatStats {
    pub denied: std::collections::HashMap<Deny, u64>,
}

/// A request that passed the first check and waits for the scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingEnter {
    pub player: Occupant,
    pub vehicle: Entity,
    pub vehicle_id: VehicleId,
    pub epoch: VehicleEpoch,
    pub seat: u8,
    /// The driver a jack pulls out.
    pub jacked: Option<Occupant>,
    /// A handler of `vehicle_start_enter` or `vehicle_jack` returned false.
    pub refused: bool,
}

/// The tick's requests between the intake and the seating.
#[derive(Resource, Debug, Default)]
pub struct PendingEnters(pub Vec<PendingEnter>);

/// A seat change, for the scripts (`player_enter_vehicle` / `player_exit_vehicle`).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatChanged {
    pub player: Occupant,
    pub vehicle: VehicleId,
    pub seat: u8,
    /// True: entered (or was put in); false: left.
    pub entered: bool,
}

/// The server's seating, from a script or a Rust plugin, applied in order.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatCommand {
    /// `dlmp.put_player_in_vehicle`: a warp, ignoring the lock, not into a wreck or a
    /// vehicle of another scope; a seated player leaves its seat first.
    Put {
        player: Entity,
        token: PlayerToken,
        vehicle: VehicleId,
        seat: u8,
    },
    /// `dlmp.remove_player_from_vehicle`.
    Remove { player: Entity, token: PlayerToken },
}

/// `dlmp.set_vehicle_jacking(on)`.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct JackingCommand(pub bool);

/// Applies the tick's [`JackingCommand`]s (before the waiting requests are seated: a jack
/// switched off in the meantime is a deny).
pub(super) fn apply_jacking(mut read: MessageReader<JackingCommand>, mut jacking: ResMut<Jacking>) {
    if let Some(last) = read.read().last() {
        jacking.0 = last.0;
    }
}

/// The scripts' part of the waiting requests, inside the script pass: each raises
/// `vehicle_start_enter(vehicle, player, seat, jacked)` and a jack also
/// `vehicle_jack(vehicle, jacker, victim)`; false from any handler is a deny.
pub(crate) fn emit_start_enters(host: &mut dlmp_script::ScriptHost, pending: &mut PendingEnters) {
    use super::script::LuaVehicle;
    use dlmp_player::script::LuaPlayer;
    use dlmp_script::ScriptEvent;
    let lua = |o: Occupant| LuaPlayer {
        entity: o.entity,
        token: o.token,
    };
    for request in &mut pending.0 {
        let vehicle = LuaVehicle {
            id: request.vehicle_id,
        };
        let start = ScriptEvent::new(
            "vehicle_start_enter",
            [
                vehicle.into(),
                lua(request.player).into(),
                request.seat.into(),
                request.jacked.map(lua).into(),
            ],
        );
        request.refused |= host.emit(&start).refused;
        if let Some(victim) = request.jacked {
            let jack = ScriptEvent::new(
                "vehicle_jack",
                [
                    vehicle.into(),
                    lua(request.player).into(),
                    lua(victim).into(),
                ],
            );
            request.refused |= host.emit(&jack).refused;
        }
    }
}

/// What the checks read of the sender.
pub struct Sender<'a> {
    pub id: PlayerId,
    pub token: PlayerToken,
    pub life: &'a PlayerLife,
    pub position: Vec3,
    pub scope: Scope,
    pub frozen: bool,
    pub seated: Option<&'a Seated>,
}

/// What the checks read of the vehicle.
pub struct Target<'a> {
    pub entity: Entity,
    pub vehicle: &'a Vehicle,
    pub scope: Scope,
    pub pose: &'a Pose,
    pub seats: &'a Seats,
    pub life: &'a Life,
    pub train: &'a Train,
    pub params: &'a Params,
}

/// The page's checks of a seat request, in its order. `streamed`: the vehicle is in the
/// sender's streamed set. A seat taken by another driver is a jack (the caller decides
/// about it), so `Taken` is only answered for a passenger seat.
pub fn check(
    sender: &Sender,
    target: &Target,
    seat: u8,
    streamed: bool,
    models: &VehicleModels,
) -> Result<(), Deny> {
    if !streamed || target.scope != sender.scope {
        return Err(Deny::NotStreamed);
    }
    if !(sender.life.alive && sender.life.spawned) || sender.frozen {
        return Err(Deny::NotAble);
    }
    let info = models.get(target.vehicle.model);
    let carriages = info.map_or(0, |i| i.carriages_to(seat));
    let reach = ENTER_DISTANCE + CARRIAGE_LENGTH * f32::from(carriages);
    if !within(sender.position, target.pose.position, reach) {
        return Err(Deny::TooFar);
    }
    if !target.seats.exists(seat) {
        return Err(Deny::NoSeat);
    }
    if seat != 0 && target.seats.at(seat).is_some() {
        return Err(Deny::Taken);
    }
    if let Some(mine) = sender.seated {
        // Only another vehicle is refused: a free seat of its own vehicle is a seat change
        // (no jack from inside, nor its own seat).
        if mine.vehicle != target.entity {
            return Err(Deny::Seated);
        }
        if target.seats.at(seat).is_some() {
            return Err(Deny::Taken);
        }
    }
    if info.is_some_and(|i| i.is_train()) && target.train.derailed {
        return Err(Deny::Derailed);
    }
    if target.life.wrecked {
        return Err(Deny::Wrecked);
    }
    if target.params.locked_for(sender.id, sender.token) {
        return Err(Deny::Locked);
    }
    Ok(())
}

fn within(a: Vec3, b: Vec3, r: f32) -> bool {
    let (dx, dy, dz) = (a.x - b.x, a.y - b.y, a.z - b.z);
    dx * dx + dy * dy + dz * dz <= r * r
}

/// What the seat systems (and the remote-control ones) read of a player.
pub(super) type PlayerParts = (
    Entity,
    &'static Player,
    &'static PlayerLife,
    &'static Position,
    &'static Scope,
    Option<&'static FrameState>,
    Option<&'static Seated>,
);

/// What the seat systems read of a vehicle.
type VehicleParts = (
    &'static Vehicle,
    &'static VehicleScope,
    &'static Pose,
    &'static Life,
    &'static Train,
    &'static Params,
);

fn sender<'a>(
    (_, player, life, position, scope, frame, seated): &'a (
        Entity,
        &Player,
        &PlayerLife,
        &Position,
        &Scope,
        Option<&FrameState>,
        Option<&'a Seated>,
    ),
) -> Sender<'a> {
    Sender {
        id: player.id,
        token: player.token,
        life,
        position: position.0,
        scope: **scope,
        frozen: frame.is_some_and(|f| f.frozen.is_some()),
        seated: *seated,
    }
}

/// Sends a seat change to everyone `vehicle` is streamed to, critical; behind the seated
/// player's PlayerJoin for a viewer still waiting for it (ADR 0121).
pub fn tell_viewers(
    stream: &VehicleStream,
    index: &PlayerIndex,
    connections: &mut Query<&mut Connection>,
    vehicle: VehicleId,
    player: Occupant,
    seat: u8,
    kind: OccupancyKind,
) {
    let packet = occupancy(vehicle, player.id, player.token, seat, kind).into();
    stream.shown().tell_viewers_about(
        vehicle.0,
        &packet,
        (player.id, player.token),
        index,
        connections,
    );
}

fn send_to(
    connections: &mut Query<&mut Connection>,
    to: Entity,
    packet: impl Into<dlmp_protocol::ServerPacket>,
) {
    if let Ok(mut c) = connections.get_mut(to)
        && let Err(e) = c.send_event(packet.into(), Delivery::Critical)
    {
        dlmp_net::log_limited!(warn, "a seat change not queued: {e}");
    }
}

fn deny(
    stats: &mut SeatStats,
    connections: &mut Query<&mut Connection>,
    to: Occupant,
    vehicle: VehicleId,
    seat: u8,
    why: Deny,
) {
    *stats.denied.entry(why).or_default() += 1;
    debug!(
        player = to.id.0,
        vehicle = vehicle.0,
        seat,
        ?why,
        "seat request denied"
    );
    send_to(
        connections,
        to.entity,
        occupancy(vehicle, to.id, to.token, seat, OccupancyKind::Deny),
    );
}

/// The intake of the tick's VehicleEnter and VehicleExit, in lane order, after the other
/// vehicle events of the tick were judged (each as the lane found the sender's seat,
/// ADR 0120): an exit frees the seat; a request that passes the checks waits for the
/// scripts.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn intake(
    mut commands: Commands,
    models: Res<VehicleModels>,
    jacking: Res<Jacking>,
    registry: Res<dlmp_core::vehicle::Vehicles>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut stats: ResMut<SeatStats>,
    mut pending: ResMut<PendingEnters>,
    mut received: MessageReader<Received>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<PlayerParts>,
    vehicles: Query<VehicleParts>,
    mut seats: Query<&mut Seats>,
    mut connections: Query<&mut Connection>,
    lane: Res<VehicleLane>,
) {
    pending.0.clear();
    for Received { player, packet, .. } in received.read() {
        if !matches!(
            packet,
            ClientPacket::VehicleEnter(_) | ClientPacket::VehicleExit(_)
        ) {
            continue;
        }
        let Ok(mut parts) = players.get(*player) else {
            continue;
        };
        let judged = lane.judged(*player, packet);
        if judged == Judged::Limited {
            debug!(
                player = parts.1.id.0,
                "a vehicle event past the rate limit dropped"
            );
            continue;
        }
        parts.6 = judged.seat(parts.6);
        let me = Occupant {
            entity: parts.0,
            id: parts.1.id,
            token: parts.1.token,
        };
        match packet {
            ClientPacket::VehicleExit(exit) => {
                let Some(seated) = parts.6.filter(|s| s.id == exit.vehicle_id) else {
                    continue;
                };
                free_seat(
                    &mut commands,
                    &mut seats,
                    me,
                    seated,
                    Some((&stream, &index, &mut connections)),
                    &mut changed,
                );
            }
            ClientPacket::VehicleEnter(enter) => {
                let (id, seat) = (enter.vehicle_id, enter.seat);
                let Some(entity) = registry.entity(id) else {
                    deny(&mut stats, &mut connections, me, id, seat, Deny::NoVehicle);
                    continue;
                };
                let (Ok(v), Ok(s)) = (vehicles.get(entity), seats.get(entity)) else {
                    continue;
                };
                let target = target(entity, v, s);
                let streamed = stream.shown().contains(me.id, id.0);
                let sender = sender(&parts);
                if let Err(why) = check(&sender, &target, seat, streamed, &models) {
                    deny(&mut stats, &mut connections, me, id, seat, why);
                    continue;
                }
                let jacked = (seat == 0).then(|| s.driver()).flatten();
                if jacked.is_some() && !jacking.0 {
                    deny(&mut stats, &mut connections, me, id, seat, Deny::NoJacking);
                    continue;
                }
                // One request per player per tick waits; a second replaces nothing.
                if pending.0.iter().any(|p| p.player.entity == me.entity) {
                    deny(&mut stats, &mut connections, me, id, seat, Deny::Seated);
                    continue;
                }
                pending.0.push(PendingEnter {
                    player: me,
                    vehicle: entity,
                    vehicle_id: id,
                    epoch: v.3.epoch,
                    seat,
                    jacked,
                    refused: false,
                });
            }
            _ => {}
        }
    }
}

fn target<'a>(
    entity: Entity,
    (vehicle, scope, pose, life, train, params): (
        &'a Vehicle,
        &'a VehicleScope,
        &'a Pose,
        &'a Life,
        &'a Train,
        &'a Params,
    ),
    seats: &'a Seats,
) -> Target<'a> {
    Target {
        entity,
        vehicle,
        scope: scope.0,
        pose,
        seats,
        life,
        train,
        params,
    }
}

/// Frees `player`'s seat: the vehicle's entry, the player's [`Seated`], and, unless
/// `tell` is `None` (a disconnect), VehicleOccupancy exit to everyone the vehicle is
/// streamed to and `player_exit_vehicle`.
pub(super) fn free_seat(
    commands: &mut Commands,
    seats: &mut Query<&mut Seats>,
    player: Occupant,
    seated: &Seated,
    tell: Option<(&VehicleStream, &PlayerIndex, &mut Query<&mut Connection>)>,
    changed: &mut MessageWriter<SeatChanged>,
) {
    if let Ok(mut s) = seats.get_mut(seated.vehicle)
        && let Some(slot) = s.0.get_mut(usize::from(seated.seat))
        && slot.is_some_and(|o| o.entity == player.entity)
    {
        *slot = None;
    }
    if let Ok(mut e) = commands.get_entity(player.entity) {
        e.remove::<Seated>();
    }
    if let Some((stream, index, connections)) = tell {
        tell_viewers(
            stream,
            index,
            connections,
            seated.id,
            player,
            seated.seat,
            OccupancyKind::Exit,
        );
        changed.write(SeatChanged {
            player,
            vehicle: seated.id,
            seat: seated.seat,
            entered: false,
        });
    }
}

/// Takes a seat: the vehicle's entry, the player's [`Seated`], the change to everyone the
/// vehicle is streamed to (`kind`: enter or warp), and `player_enter_vehicle`.
#[allow(
    clippy::too_many_arguments,
    reason = "the seat, its vehicle and where the change goes"
)]
fn take_seat(
    commands: &mut Commands,
    seats: &mut Query<&mut Seats>,
    player: Occupant,
    vehicle: Entity,
    id: VehicleId,
    seat: u8,
    kind: OccupancyKind,
    (stream, index, connections): (&VehicleStream, &PlayerIndex, &mut Query<&mut Connection>),
    changed: &mut MessageWriter<SeatChanged>,
) {
    let Ok(mut s) = seats.get_mut(vehicle) else {
        return;
    };
    let Some(slot) = s.0.get_mut(usize::from(seat)) else {
        return;
    };
    *slot = Some(player);
    commands
        .entity(player.entity)
        .insert(Seated { vehicle, id, seat });
    tell_viewers(stream, index, connections, id, player, seat, kind);
    changed.write(SeatChanged {
        player,
        vehicle: id,
        seat,
        entered: true,
    });
}

/// After the scripts: each waiting request is checked again and seated, or denied; a jack
/// tells its driver first (jacked), then the jacker's enter goes out.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn seat_pending(
    mut commands: Commands,
    models: Res<VehicleModels>,
    jacking: Res<Jacking>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut stats: ResMut<SeatStats>,
    mut pending: ResMut<PendingEnters>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<PlayerParts>,
    vehicles: Query<VehicleParts>,
    mut seats: Query<&mut Seats>,
    mut connections: Query<&mut Connection>,
) {
    // Seats taken in this pass, so two requests of one tick do not both get one seat.
    for request in std::mem::take(&mut pending.0) {
        let me = request.player;
        let (id, seat) = (request.vehicle_id, request.seat);
        let Some(parts) = players
            .get(me.entity)
            .ok()
            .filter(|p| p.1.token == me.token)
        else {
            continue;
        };
        let outcome = (|| {
            if request.refused {
                return Err(Deny::Refused);
            }
            let v = vehicles.get(request.vehicle).map_err(|_| Deny::NoVehicle)?;
            if v.3.epoch != request.epoch {
                return Err(Deny::Respawned);
            }
            let s = seats.get(request.vehicle).map_err(|_| Deny::NoVehicle)?;
            let streamed = stream.shown().contains(me.id, id.0);
            check(
                &sender(&parts),
                &target(request.vehicle, v, s),
                seat,
                streamed,
                &models,
            )?;
            let driver = (seat == 0).then(|| s.driver()).flatten();
            match (request.jacked, driver) {
                (_, None) => Ok(None),
                (Some(was), Some(now)) if was == now => {
                    if jacking.0 {
                        Ok(Some(now))
                    } else {
                        Err(Deny::NoJacking)
                    }
                }
                _ => Err(Deny::DriverChanged),
            }
        })();
        let victim = match outcome {
            Ok(victim) => victim,
            Err(why) => {
                deny(&mut stats, &mut connections, me, id, seat, why);
                continue;
            }
        };
        if let Some(victim) = victim {
            if let Ok(mut s) = seats.get_mut(request.vehicle)
                && let Some(slot) = s.0.get_mut(0)
            {
                *slot = None;
            }
            commands.entity(victim.entity).remove::<Seated>();
            send_to(
                &mut connections,
                victim.entity,
                occupancy(id, victim.id, victim.token, 0, OccupancyKind::Jacked),
            );
            changed.write(SeatChanged {
                player: victim,
                vehicle: id,
                seat: 0,
                entered: false,
            });
        }
        // A seat change within the vehicle: the old seat's exit, then the new seat's enter.
        if let Some(old) = parts.6.filter(|s| s.vehicle == request.vehicle) {
            free_seat(
                &mut commands,
                &mut seats,
                me,
                old,
                Some((&stream, &index, &mut connections)),
                &mut changed,
            );
        }
        take_seat(
            &mut commands,
            &mut seats,
            me,
            request.vehicle,
            id,
            seat,
            OccupancyKind::Enter,
            (&stream, &index, &mut connections),
            &mut changed,
        );
    }
}

/// Applies the tick's [`SeatCommand`]s.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn apply_commands(
    mut commands: Commands,
    registry: Res<dlmp_core::vehicle::Vehicles>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut read: MessageReader<SeatCommand>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<PlayerParts>,
    vehicles: Query<VehicleParts>,
    mut seats: Query<&mut Seats>,
    mut connections: Query<&mut Connection>,
) {
    // A player seated or unseated earlier in this pass (Seated is written by command).
    let mut now_in: Vec<(Entity, Option<Seated>)> = Vec::new();
    for command in read.read() {
        let (player, token) = match *command {
            SeatCommand::Put { player, token, .. } | SeatCommand::Remove { player, token } => {
                (player, token)
            }
        };
        let Some(parts) = players.get(player).ok().filter(|p| p.1.token == token) else {
            continue;
        };
        let me = Occupant {
            entity: player,
            id: parts.1.id,
            token,
        };
        let seated = now_in
            .iter()
            .rev()
            .find(|(e, _)| *e == player)
            .map_or(parts.6.copied(), |(_, s)| *s);
        match *command {
            SeatCommand::Remove { .. } => {
                if let Some(seated) = seated {
                    free_seat(
                        &mut commands,
                        &mut seats,
                        me,
                        &seated,
                        Some((&stream, &index, &mut connections)),
                        &mut changed,
                    );
                    now_in.push((player, None));
                }
            }
            SeatCommand::Put { vehicle, seat, .. } => {
                let Some(entity) = registry.entity(vehicle) else {
                    continue;
                };
                let (Ok(v), Ok(s)) = (vehicles.get(entity), seats.get(entity)) else {
                    continue;
                };
                let free = s.at(seat).is_none_or(|o| o.entity == player);
                if v.3.wrecked
                    || v.1.0 != *parts.4
                    || !s.exists(seat)
                    || !free
                    || !(parts.2.alive && parts.2.spawned)
                {
                    debug!(vehicle = vehicle.0, seat, "put_player_in_vehicle refused");
                    continue;
                }
                if seated.is_some_and(|s| s.vehicle == entity && s.seat == seat) {
                    continue;
                }
                if let Some(old) = seated {
                    free_seat(
                        &mut commands,
                        &mut seats,
                        me,
                        &old,
                        Some((&stream, &index, &mut connections)),
                        &mut changed,
                    );
                }
                take_seat(
                    &mut commands,
                    &mut seats,
                    me,
                    entity,
                    vehicle,
                    seat,
                    OccupancyKind::Warp,
                    (&stream, &index, &mut connections),
                    &mut changed,
                );
                now_in.push((
                    player,
                    Some(Seated {
                        vehicle: entity,
                        id: vehicle,
                        seat,
                    }),
                ));
            }
        }
    }
}

/// Seats that must go without a request: a disconnect (no broadcast), a death, a vehicle
/// that no longer exists (destroyed, its resource stopped) or a seat entry that no longer
/// names its player.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn free_lost_seats(
    mut commands: Commands,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut left: MessageReader<PlayerDisconnected>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<(Entity, &Player, &PlayerLife, &Seated)>,
    mut seats: Query<&mut Seats>,
    vehicles: Query<&Vehicle>,
    mut connections: Query<&mut Connection>,
) {
    let gone: Vec<Entity> = left.read().map(|d| d.player).collect();
    for mut s in &mut seats {
        for slot in s.0.iter_mut() {
            if slot.is_some_and(|o| gone.contains(&o.entity) || !players.contains(o.entity)) {
                *slot = None;
            }
        }
    }
    for (entity, player, life, seated) in &players {
        let me = Occupant {
            entity,
            id: player.id,
            token: player.token,
        };
        if !vehicles.contains(seated.vehicle) {
            commands.entity(entity).remove::<Seated>();
            send_to(
                &mut connections,
                entity,
                occupancy(seated.id, me.id, me.token, seated.seat, OccupancyKind::Exit),
            );
            changed.write(SeatChanged {
                player: me,
                vehicle: seated.id,
                seat: seated.seat,
                entered: false,
            });
        } else if !life.alive {
            free_seat(
                &mut commands,
                &mut seats,
                me,
                seated,
                Some((&stream, &index, &mut connections)),
                &mut changed,
            );
        }
    }
}

/// A destroyed vehicle's occupants leave it first (VehicleOccupancy exit to everyone it
/// was shown to), then its hide follows in the streaming pass.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn empty_destroyed(
    mut commands: Commands,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut read: MessageReader<super::VehicleCommand>,
    registry: Res<dlmp_core::vehicle::Vehicles>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<&Seated>,
    mut seats: Query<&mut Seats>,
    mut connections: Query<&mut Connection>,
) {
    for command in read.read() {
        let super::VehicleCommand::Destroy { id } = *command else {
            continue;
        };
        if let Some(entity) = registry.entity(id) {
            vacate(
                entity,
                &mut commands,
                (&stream, &index, &mut connections),
                &players,
                &mut seats,
                &mut changed,
            );
        }
    }
}

/// A stopped resource's occupied vehicles are emptied the same way before they are
/// despawned (lua-api.md, Resources: "exactly as `dlmp.destroy_vehicle`"): every viewer
/// gets each occupant's exit before the hide.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn empty_owned(
    mut commands: Commands,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut stopped: MessageReader<dlmp_script::ResourceStopped>,
    owned: Query<(Entity, &dlmp_script::Owned), With<Seats>>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<&Seated>,
    mut seats: Query<&mut Seats>,
    mut connections: Query<&mut Connection>,
) {
    let gone: Vec<_> = stopped.read().map(|s| s.0).collect();
    if gone.is_empty() {
        return;
    }
    for (entity, owner) in &owned {
        if gone.contains(&owner.0) {
            vacate(
                entity,
                &mut commands,
                (&stream, &index, &mut connections),
                &players,
                &mut seats,
                &mut changed,
            );
        }
    }
}

/// Every occupant of `vehicle` leaves its seat, told to everyone the vehicle is shown to.
fn vacate(
    vehicle: Entity,
    commands: &mut Commands,
    (stream, index, connections): (&VehicleStream, &PlayerIndex, &mut Query<&mut Connection>),
    players: &Query<&Seated>,
    seats: &mut Query<&mut Seats>,
    changed: &mut MessageWriter<SeatChanged>,
) {
    let occupants: Vec<Occupant> = seats
        .get(vehicle)
        .map(|s| s.occupied().map(|(_, o)| o).collect())
        .unwrap_or_default();
    for o in occupants {
        if let Ok(seated) = players.get(o.entity).copied() {
            free_seat(
                commands,
                seats,
                o,
                &seated,
                Some((stream, index, &mut *connections)),
                changed,
            );
        }
    }
}

/// The script event of a seat change.
pub(crate) fn seat_event(change: &SeatChanged) -> dlmp_script::ScriptEvent {
    use dlmp_script::ScriptEvent;
    let player = dlmp_player::script::LuaPlayer {
        entity: change.player.entity,
        token: change.player.token,
    };
    let vehicle = super::script::LuaVehicle { id: change.vehicle };
    let name = if change.entered {
        "player_enter_vehicle"
    } else {
        "player_exit_vehicle"
    };
    ScriptEvent::new(name, [player.into(), vehicle.into(), change.seat.into()])
}

/// player.md, "Player streaming": "A change of virtual_world or interior (TeleportPlayer
/// to another area) first frees the seat: VehicleOccupancy exit precedes TeleportPlayer".
/// Runs in [`MoveSystems::Unseat`](dlmp_player::teleport::MoveSystems::Unseat), before
/// the moves: every teleport a seated player will take frees its seat (a seated body
/// does not move without its vehicle, ADR 0052), and so does a scope change.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn unseat_moved(
    mut commands: Commands,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut teleports: MessageReader<dlmp_player::teleport::Teleport>,
    mut scopes: MessageReader<dlmp_player::scope::SetScope>,
    mut changed: MessageWriter<SeatChanged>,
    players: Query<(&Player, &PlayerLife, &Scope, &Seated)>,
    mut seats: Query<&mut Seats>,
    mut connections: Query<&mut Connection>,
) {
    let mut moved: Vec<Entity> = Vec::new();
    for t in teleports.read() {
        if t.check().is_ok()
            && players
                .get(t.player)
                .is_ok_and(|(_, life, ..)| life.alive && life.spawned)
        {
            moved.push(t.player);
        }
    }
    for s in scopes.read() {
        let Ok((_, _, scope, _)) = players.get(s.player) else {
            continue;
        };
        let to = Scope {
            virtual_world: s.virtual_world.unwrap_or(scope.virtual_world),
            interior: s.interior.unwrap_or(scope.interior),
        };
        if to != *scope {
            moved.push(s.player);
        }
    }
    moved.sort_unstable();
    moved.dedup();
    for entity in moved {
        let Ok((player, _, _, seated)) = players.get(entity) else {
            continue;
        };
        let me = Occupant {
            entity,
            id: player.id,
            token: player.token,
        };
        free_seat(
            &mut commands,
            &mut seats,
            me,
            seated,
            Some((&stream, &index, &mut connections)),
            &mut changed,
        );
    }
}
