//! The gamemode's health and damage commands (vehicles.md VehicleHealth,
//! RemoteVehicleDamage; lua-api.md `dlmp.set_vehicle_health`, `repair_vehicle`,
//! `set_vehicle_damage_status`): each takes a new revision and goes, critical, to everyone
//! the vehicle is streamed to, the controlling player included; never for a wreck. The
//! scripts check their arguments in the call (a Lua error); a Rust plugin writes a
//! [`DamageCommand`] itself, so the same checks run here again and a refusal is counted.

use bevy_ecs::prelude::*;

use super::DamageStats;
use super::status::{Shape, StatusParts};
use crate::components::FULL_HEALTH;
use crate::{Damage, Health, Revisions, Vehicle, VehicleModels, VehicleStream};
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_core::vehicle::{Life, Vehicles};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::vehicle::damage::{RemoteVehicleDamage, VehicleDamageStatus};
use dlmp_protocol::vehicle::life::{MAX_HEALTH, VehicleHealth};
use dlmp_protocol::wire::Validate;

/// The health a gamemode may set (VehicleHealth: 0..=100000; ADR 0061).
pub const HEALTH_RANGE: std::ops::RangeInclusive<f32> = 0.0..=MAX_HEALTH;

/// A gamemode command on a vehicle's health or damage, applied in
/// [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply) after the vehicles'
/// lifecycle (so a vehicle created in the same pass takes it).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum DamageCommand {
    /// `dlmp.set_vehicle_health`.
    Health { id: VehicleId, health: f32 },
    /// `dlmp.set_vehicle_damage_status`: the given parts replace the stored ones.
    Status { id: VehicleId, parts: StatusParts },
    /// `dlmp.repair_vehicle`: full health and an intact status.
    Repair { id: VehicleId },
}

impl DamageCommand {
    fn id(&self) -> VehicleId {
        match *self {
            DamageCommand::Health { id, .. }
            | DamageCommand::Status { id, .. }
            | DamageCommand::Repair { id } => id,
        }
    }
}

/// Why a command did not apply (the scripts' calls raise these before they queue one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Gone,
    Wrecked,
    NoStatus,
    Health,
    Status,
}

type Target = (
    &'static Vehicle,
    &'static Life,
    &'static mut Health,
    &'static mut Damage,
    &'static mut Revisions,
);

/// Applies the tick's [`DamageCommand`]s in order.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn apply(
    mut read: MessageReader<DamageCommand>,
    registry: Res<Vehicles>,
    models: Res<VehicleModels>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut vehicles: Query<Target>,
    mut connections: Query<&mut Connection>,
    mut stats: ResMut<DamageStats>,
) {
    for command in read.read() {
        let packets = match one(command, &registry, &models, &mut vehicles) {
            Ok(packets) => packets,
            Err(why) => {
                dlmp_net::log_limited!(
                    warn,
                    vehicle = command.id().0,
                    ?why,
                    "a vehicle damage command refused"
                );
                stats.commands_refused += 1;
                continue;
            }
        };
        for packet in packets.into_iter().flatten() {
            stream
                .shown()
                .tell_viewers(command.id().0, &packet, &index, &mut connections);
        }
    }
}

/// One command against the vehicle: its packets (VehicleHealth, then RemoteVehicleDamage).
fn one(
    command: &DamageCommand,
    registry: &Vehicles,
    models: &VehicleModels,
    vehicles: &mut Query<Target>,
) -> Result<[Option<ServerPacket>; 2], Refusal> {
    let entity = registry.entity(command.id()).ok_or(Refusal::Gone)?;
    let (vehicle, life, mut health, mut damage, mut revs) =
        vehicles.get_mut(entity).map_err(|_| Refusal::Gone)?;
    if life.wrecked {
        return Err(Refusal::Wrecked);
    }
    let shape = models
        .get(vehicle.model)
        .map_or(Shape::None, |m| Shape::of(vehicle.model, m.class));
    let (new_health, new_status) = match *command {
        DamageCommand::Health { health, .. } => (Some(health), None),
        DamageCommand::Status { .. } if shape == Shape::None => return Err(Refusal::NoStatus),
        DamageCommand::Status { parts, .. } => (None, Some(parts.over(&damage.0))),
        // A model without a status has only its health repaired (ADR 0061).
        DamageCommand::Repair { .. } => (
            Some(FULL_HEALTH),
            (shape != Shape::None).then_some(VehicleDamageStatus::INTACT),
        ),
    };
    if new_health.is_some_and(|h| !HEALTH_RANGE.contains(&h)) {
        return Err(Refusal::Health);
    }
    if let Some(s) = &new_status
        && (s.validate().is_err() || s.check_sent_doors().is_err() || !shape.fits(s))
    {
        return Err(Refusal::Status);
    }
    let mut out = [None, None];
    if let Some(h) = new_health {
        health.0 = h;
        revs.health.0 = revs.health.0.next();
        out[0] = Some(
            VehicleHealth {
                event_id: EventId(0),
                vehicle_id: vehicle.id,
                epoch: life.epoch,
                health: h,
                health_rev: revs.health.0,
            }
            .into(),
        );
    }
    if let Some(s) = new_status {
        damage.0 = s;
        revs.damage.0 = revs.damage.0.next();
        out[1] = Some(
            RemoteVehicleDamage {
                event_id: EventId(0),
                vehicle_id: vehicle.id,
                epoch: life.epoch,
                status: s,
                damage_rev: revs.damage.0,
            }
            .into(),
        );
    }
    Ok(out)
}
