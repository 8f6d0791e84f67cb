//! VehicleDamage from the controlling player (vehicles.md VehicleDamage, "The vehicle's
//! damage"): the shared vehicle event rate limit, then the sender (the live player who
//! controls the vehicle now, as for its frames), the epoch, the wreck, the model's status
//! form and the ranges, the damage revision. An accepted report only adds damage to the
//! stored status; a change goes to everyone the vehicle is streamed to but the sender as
//! RemoteVehicleDamage (critical), with the server's revision. Every drop is counted in
//! [`DamageStats`] by reason.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::DamageStats;
use super::status::{Shape, StatusRefusal, merge, reported};
use crate::event_limit::{Judged, VehicleLane};
use crate::frame::accept::controller;
use crate::frame::control_of;
use crate::{Damage, Revisions, Seats, Syncer, Vehicle, VehicleModels, VehicleStream};
use dlmp_core::session::{Connection, Player, PlayerIndex, Received};
use dlmp_core::vehicle::{Life, Vehicles};
use dlmp_player::frame::FrameState;
use dlmp_player::{Body, Life as PlayerLife};
use dlmp_protocol::ClientPacket;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::vehicle::damage::{RemoteVehicleDamage, VehicleDamage};

/// Why a VehicleDamage was dropped (it is acknowledged all the same: the lane did).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamageDrop {
    /// Past the shared vehicle event rate limit.
    RateLimit,
    UnknownVehicle,
    /// The sender neither drives the vehicle live nor syncs it, or is dead or frozen.
    NotController,
    /// A report of another life of the vehicle.
    Epoch,
    Wrecked,
    /// A model without a status (bicycles, boats, aircraft, trains).
    NoStatus,
    /// A value outside the page's ranges.
    Range,
    /// A motorbike's report with more than its two wheels (ADR 0061).
    MotorbikeForm,
    /// Sent before the last gamemode damage command.
    DamageRev,
}

impl From<StatusRefusal> for DamageDrop {
    fn from(r: StatusRefusal) -> Self {
        match r {
            StatusRefusal::NoStatus => DamageDrop::NoStatus,
            StatusRefusal::Range => DamageDrop::Range,
            StatusRefusal::MotorbikeForm => DamageDrop::MotorbikeForm,
        }
    }
}

type Sender = (
    &'static Player,
    &'static PlayerLife,
    &'static Body,
    Option<&'static FrameState>,
);

type Target = (
    &'static Vehicle,
    &'static Seats,
    &'static Syncer,
    &'static Life,
    &'static Revisions,
    &'static mut Damage,
    Option<&'static crate::Remote>,
);

/// Takes this tick's VehicleDamage reports, in arrival order.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn intake(
    registry: Res<Vehicles>,
    models: Res<VehicleModels>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut received: MessageReader<Received>,
    lane: Res<VehicleLane>,
    senders: Query<Sender>,
    drivers: Query<(&Body, Option<&FrameState>)>,
    mut vehicles: Query<Target>,
    mut connections: Query<&mut Connection>,
    mut stats: ResMut<DamageStats>,
) {
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::VehicleDamage(report) = packet else {
            continue;
        };
        let Ok(sender) = senders.get(*player) else {
            continue;
        };
        let judged = lane.judged(*player, packet);
        if judged == Judged::Limited {
            stats.count(DamageDrop::RateLimit);
            continue;
        }
        let taken = take(
            *player,
            judged,
            sender,
            report,
            &registry,
            &models,
            &drivers,
            &mut vehicles,
        );
        match taken {
            Ok(Some(relay)) => {
                stats.accepted += 1;
                stream.shown().tell_viewers_except(
                    relay.vehicle_id.0,
                    &relay.into(),
                    Some(sender.0.id),
                    &index,
                    &mut connections,
                );
            }
            Ok(None) => stats.unchanged += 1,
            Err(why) => {
                debug!(
                    player = sender.0.id.0,
                    vehicle = report.vehicle_id.0,
                    ?why,
                    "VehicleDamage dropped"
                );
                stats.count(why);
            }
        }
    }
}

/// One report against the server's state: the relay of the stored status it changed, or
/// `None` when it added nothing.
fn take(
    player: Entity,
    judged: Judged,
    (_, life, body, frame): (&Player, &PlayerLife, &Body, Option<&FrameState>),
    report: &VehicleDamage,
    registry: &Vehicles,
    models: &VehicleModels,
    drivers: &Query<(&Body, Option<&FrameState>)>,
    vehicles: &mut Query<Target>,
) -> Result<Option<RemoteVehicleDamage>, DamageDrop> {
    let entity = registry
        .entity(report.vehicle_id)
        .ok_or(DamageDrop::UnknownVehicle)?;
    let (vehicle, seats, syncer, v_life, revs, mut damage, remote) = vehicles
        .get_mut(entity)
        .map_err(|_| DamageDrop::UnknownVehicle)?;
    let mut control = control_of(
        player,
        (life, body, frame),
        (seats, syncer, remote),
        drivers,
    );
    // After the sender's exit in the lane it reports as a player outside (ADR 0120).
    if judged
        == (Judged::Taken {
            exited: Some(report.vehicle_id),
        })
        && control.sender_drives
    {
        control.sender_drives = false;
        control.seat0_empty_or_paused = true;
    }
    // A paused driver reports nothing, as with its explosion (vehicles.md VehicleDamage:
    // "a live player who controls the vehicle now"): its syncer does while it is away.
    if !control.sender_alive || control.sender_paused {
        return Err(DamageDrop::NotController);
    }
    controller(&control).map_err(|_| DamageDrop::NotController)?;
    if report.epoch != v_life.epoch {
        return Err(DamageDrop::Epoch);
    }
    if v_life.wrecked {
        return Err(DamageDrop::Wrecked);
    }
    let shape = models
        .get(vehicle.model)
        .map_or(Shape::None, |m| Shape::of(vehicle.model, m.class));
    let status = reported(shape, &report.status)?;
    if report.damage_rev != revs.damage.0 {
        return Err(DamageDrop::DamageRev);
    }
    let merged = merge(&damage.0, &status);
    if merged == damage.0 {
        return Ok(None);
    }
    damage.0 = merged;
    Ok(Some(RemoteVehicleDamage {
        event_id: EventId(0),
        vehicle_id: vehicle.id,
        epoch: v_life.epoch,
        status: merged,
        damage_rev: revs.damage.0,
    }))
}
