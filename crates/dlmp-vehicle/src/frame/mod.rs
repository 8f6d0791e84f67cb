//! VehicleFrame (vehicles.md): each `Received` VehicleFrame is checked in
//! [`ServerSystems::Validation`] ([`accept`]: controller, epoch, pose_rev, the seq mark,
//! the rate limits); an accepted one moves the vehicle's relay serial, changes its pose and
//! health ([`apply`]), is rewritten by the field rules ([`fields`]) and announced with
//! [`VehicleFrameAccepted`]; [`relay`] sends it as RemoteVehicleFrame in
//! [`StreamingSystems::Relay`]. Refusals are counted in [`VehicleFrameDrops`].
//! Decisions: docs/decisions/0056-vehicle-frames.md.
//!
//! [`StreamingSystems::Relay`]: dlmp_core::tick::StreamingSystems::Relay

pub mod accept;
pub mod apply;
pub mod fields;
pub mod motion;
pub mod relay;

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use self::accept::{Control, Role, SenderMarks, VehicleFrameDrop, VehicleFrameDrops};
use self::fields::{FieldInputs, FieldOutcome, HeldFields, SIREN_SWITCHES, ServerFields};
use self::motion::MotionBudget;
use super::{Frozen, Health, Params, Part, RelaySerial, Revisions, Seats, Syncer};
use super::{Hitch, Train, Vehicle, VehicleModels};
use dlmp_core::session::{Player, PlayerConnected, Received, TokenBucket};
use dlmp_core::tick::{ServerSystems, StreamingSystems};
use dlmp_core::vehicle::Vehicles;
use dlmp_core::vehicle::{Life, Pose};
use dlmp_player::frame::{FrameState, admit_frames};
use dlmp_player::history::PositionHistory;
use dlmp_player::relay::Relayed;
use dlmp_player::{Body, Life as PlayerLife};
use dlmp_protocol::ClientPacket;
use dlmp_protocol::ids::{PlayerId, PlayerToken, Seq, VehicleId};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::vehicle::frame::VehicleFrame;
use dlmp_protocol::vehicle::params::param;
use dlmp_protocol::vehicle::state::VehicleState;

/// A pilot's siren switch budget over all its vehicles (2 at once, 4 a second).
#[derive(Component, Debug, Clone, Copy)]
pub struct SirenBudget(pub TokenBucket);

/// A frame accepted this tick, ready for the relay: the vehicle's serial it took and the
/// state as the relay carries it. Written in arrival order, so serials grow.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct VehicleFrameAccepted {
    pub vehicle: Entity,
    pub vehicle_id: VehicleId,
    pub sender: Entity,
    pub source_id: PlayerId,
    pub source_token: PlayerToken,
    pub serial: Seq,
    pub state: VehicleState,
    pub outcome: FieldOutcome,
}

/// A VehicleFrame refused whole, for the scripts (`vehicle_frame_refused`) and anti-cheats.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct VehicleFrameRefused {
    pub player: Entity,
    pub vehicle: VehicleId,
    pub reason: VehicleFrameDrop,
}

/// Admits VehicleFrames and relays the accepted ones.
pub struct VehicleFramePlugin;

impl Plugin for VehicleFramePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<VehicleFrameDrops>()
            .init_resource::<relay::VehicleRelayStats>()
            .add_message::<VehicleFrameAccepted>()
            .add_message::<VehicleFrameRefused>()
            .add_systems(
                FixedUpdate,
                (
                    give_sender_state,
                    give_vehicle_state,
                    admit_vehicle_frames,
                    carry_occupants,
                )
                    .chain()
                    .after(admit_frames)
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                record_vehicle_positions
                    .in_set(ServerSystems::Streaming)
                    .before(StreamingSystems::Relay),
            )
            .add_systems(
                FixedUpdate,
                relay::relay_vehicle_frames.in_set(StreamingSystems::Relay),
            );
    }
}

fn give_sender_state(
    time: Res<Time>,
    mut commands: Commands,
    mut connected: MessageReader<PlayerConnected>,
) {
    let now = time.elapsed();
    for c in connected.read() {
        commands.entity(c.player).insert((
            SenderMarks::new(now),
            SirenBudget(TokenBucket::new(SIREN_SWITCHES, now)),
        ));
    }
}

/// Every new vehicle gets a position history (the rewind of a shot that ends on it) and
/// the record of its shows the relay waits for. The rules' memory ([`HeldFields`]) comes
/// with its bundle: the gamemode's tuning writes it in the tick the vehicle is made.
fn give_vehicle_state(
    mut commands: Commands,
    vehicles: Query<Entity, (With<Vehicle>, Without<Relayed>)>,
) {
    for entity in &vehicles {
        commands
            .entity(entity)
            .insert((PositionHistory::default(), Relayed::default()));
    }
}

/// The sender as admission reads it.
type Sender = (
    &'static Player,
    &'static PlayerLife,
    &'static Body,
    Option<&'static FrameState>,
    &'static mut SenderMarks,
    &'static mut SirenBudget,
    Option<&'static crate::tow::flow::CopyLinks>,
);

/// The vehicle as admission reads and writes it.
type Target = (
    &'static Vehicle,
    &'static Seats,
    &'static Syncer,
    &'static Life,
    &'static Revisions,
    &'static Frozen,
    &'static mut Pose,
    &'static mut Health,
    &'static mut Part,
    &'static mut Params,
    &'static mut Train,
    &'static mut RelaySerial,
    &'static mut HeldFields,
    Option<&'static super::Remote>,
);

/// Whether a driver counts as controlling: neither paused nor frozen.
fn drives_live(body: &Body, frame: Option<&FrameState>) -> bool {
    !body.paused && frame.is_none_or(|f| f.frozen.is_none())
}

/// How `sender` (its life, body and frame state) stands to a vehicle with these seats and
/// syncer, for [`accept::controller`]: what only the controlling player reports (a frame,
/// a damage status) asks the same.
pub(crate) fn control_of(
    sender: Entity,
    (life, body, frame_state): (&PlayerLife, &Body, Option<&FrameState>),
    (seats, syncer, remote): (&Seats, &Syncer, Option<&super::Remote>),
    drivers: &Query<(&Body, Option<&FrameState>)>,
) -> Control {
    let driver = seats.driver();
    let seat0_live = driver.is_some_and(|d| {
        drivers
            .get(d.entity)
            .is_ok_and(|(body, fs)| drives_live(body, fs))
    });
    Control {
        sender_drives: driver.is_some_and(|d| d.entity == sender),
        sender_syncs: syncer.0.is_some_and(|s| s.entity == sender),
        sender_remote: remote.is_some_and(|r| r.driver.entity == sender),
        sender_alive: life.alive && life.spawned,
        sender_paused: body.paused,
        sender_frozen: frame_state.is_some_and(|f| f.frozen.is_some()),
        seat0_empty_or_paused: !seat0_live,
    }
}

/// Takes this tick's VehicleFrames, in arrival order.
pub(crate) fn admit_vehicle_frames(
    time: Res<Time>,
    registry: Res<Vehicles>,
    mut received: MessageReader<Received>,
    mut senders: Query<Sender>,
    drivers: Query<(&Body, Option<&FrameState>)>,
    mut vehicles: Query<Target>,
    mut motion: Query<(&mut MotionBudget, &Hitch)>,
    models: Res<VehicleModels>,
    mut drops: ResMut<VehicleFrameDrops>,
    mut accepted: MessageWriter<VehicleFrameAccepted>,
    mut refused: MessageWriter<VehicleFrameRefused>,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::VehicleFrame(frame) = packet else {
            continue;
        };
        let result = admit(
            *player,
            frame,
            now,
            &registry,
            &mut senders,
            &drivers,
            (&mut vehicles, &mut motion, &models),
        );
        match result {
            Ok(Some(a)) => {
                drops.accepted += 1;
                accepted.write(a);
            }
            Ok(None) => {}
            Err(reason) => {
                debug!(?player, ?reason, "VehicleFrame dropped");
                drops.count(reason);
                refused.write(VehicleFrameRefused {
                    player: *player,
                    vehicle: frame.vehicle_id,
                    reason,
                });
            }
        }
    }
}

/// One frame against the server's state. `Ok(None)`: the sender is gone.
fn admit(
    sender: Entity,
    frame: &VehicleFrame,
    now: Duration,
    registry: &Vehicles,
    senders: &mut Query<Sender>,
    drivers: &Query<(&Body, Option<&FrameState>)>,
    (vehicles, motion, models): (
        &mut Query<Target>,
        &mut Query<(&mut MotionBudget, &Hitch)>,
        &VehicleModels,
    ),
) -> Result<Option<VehicleFrameAccepted>, VehicleFrameDrop> {
    let Ok((player, life, body, frame_state, mut marks, mut siren, copies)) =
        senders.get_mut(sender)
    else {
        return Ok(None);
    };
    let entity = registry
        .entity(frame.vehicle_id)
        .ok_or(VehicleFrameDrop::UnknownVehicle)?;
    let Ok((
        vehicle,
        seats,
        syncer,
        v_life,
        revs,
        frozen,
        mut pose,
        mut health,
        mut part,
        mut params,
        mut train,
        mut serial,
        mut held,
        remote,
    )) = vehicles.get_mut(entity)
    else {
        return Err(VehicleFrameDrop::UnknownVehicle);
    };
    let driver = seats.driver();
    let role = accept::controller(&control_of(
        sender,
        (life, body, frame_state),
        (seats, syncer, remote),
        drivers,
    ))?;
    accept::revisions(
        (frame.state.epoch, frame.state.pose_rev),
        (v_life.epoch, revs.pose.0),
    )?;
    if copies.is_some_and(|c| c.disputes(frame.vehicle_id)) {
        return Err(VehicleFrameDrop::Hitch);
    }
    marks.admit(frame.vehicle_id, frame.seq, role, now)?;
    // The movement check, on a frame the rate took (so a frame the rate dropped spends
    // no distance): a frozen vehicle keeps the server's pose whatever the frame says.
    if !frozen.held()
        && let Ok((mut budget, hitch)) = motion.get_mut(entity)
    {
        let towed = hitch.tractor.is_some() || hitch.lifter.is_some();
        let speed = motion::top_speed(models.get(vehicle.model), towed);
        budget
            .admit(
                (pose.position, frame.state.pos),
                now,
                speed,
                (v_life.epoch, revs.pose.0),
            )
            .map_err(VehicleFrameDrop::Motion)?;
    }

    let mut state = frame.state;
    if matches!(role, Role::Driver { .. })
        && let Some(b) = frame_state.and_then(|f| f.bounds)
    {
        apply::hold_to_bounds(&mut state, b);
    }
    *pose = apply::take_pose(&state, &pose, frozen.held());
    health.0 = apply::take_health(
        health.0,
        v_life.wrecked,
        revs.health.0,
        state.health,
        state.health_rev,
    );
    let mut server = ServerFields {
        part: part.0,
        siren: params.bits & param::SIREN != 0,
        has_siren: params.bits & param::HAS_SIREN != 0,
        winch: params.bits & (param::MAGNET | param::SMALL_MAGNET) != 0,
        derailed: train.derailed,
    };
    let outcome = fields::rewrite(
        &mut state,
        &FieldInputs {
            model: vehicle.model,
            role,
            has_driver: driver.is_some(),
            wrecked: v_life.wrecked,
            siren_rev: revs.siren.0,
            now,
        },
        &mut server,
        &mut held,
        &mut siren.0,
    );
    if part.0 != server.part {
        part.0 = server.part;
    }
    if train.derailed != server.derailed {
        train.derailed = server.derailed;
    }
    if outcome.siren_switched {
        if server.siren {
            params.bits |= param::SIREN;
        } else {
            params.bits &= !param::SIREN;
        }
    }
    serial.0 = serial.0.next();
    let state = apply::relay_state(
        &state,
        &apply::ServerValues {
            pose: *pose,
            health: health.0,
            health_rev: revs.health.0,
            pose_rev: revs.pose.0,
        },
    );
    Ok(Some(VehicleFrameAccepted {
        vehicle: entity,
        vehicle_id: vehicle.id,
        sender,
        source_id: player.id,
        source_token: player.token,
        serial: serial.0,
        state,
        outcome,
    }))
}

/// The bodies in a vehicle go where an accepted frame takes it: a seated player's body is
/// its stream center (player.md, Player streaming: "its body"), so a driver that sends only
/// VehicleFrames sees players, vehicles and world kinds from where it drives, and its
/// movement check starts there when it gets out. A passenger's own PlayerSync, later, is
/// checked from there. It is also where the occupants' games put them
/// ([`dlmp_player::ReportedPosition`]: checkpoints and colshapes cross from it).
fn carry_occupants(
    mut accepted: MessageReader<VehicleFrameAccepted>,
    vehicles: Query<(&Pose, &Seats)>,
    mut bodies: Query<(
        &mut dlmp_core::position::Position,
        &mut dlmp_player::ReportedPosition,
    )>,
) {
    for a in accepted.read() {
        let Ok((pose, seats)) = vehicles.get(a.vehicle) else {
            continue;
        };
        for (_, o) in seats.occupied() {
            if let Ok((mut body, mut reported)) = bodies.get_mut(o.entity) {
                if body.0 != pose.position {
                    body.0 = pose.position;
                }
                reported.0 = Some(pose.position);
            }
        }
    }
}

/// Every tick in which a vehicle's pose moved adds an entry to its position history (the
/// rewind of a shot that ends on it; connection.md §6, ShotRewind).
fn record_vehicle_positions(
    time: Res<Time>,
    mut vehicles: Query<(&Pose, &mut PositionHistory), Changed<Pose>>,
) {
    let now = time.elapsed();
    for (pose, mut history) in &mut vehicles {
        history.record(now, pose.position);
    }
}
