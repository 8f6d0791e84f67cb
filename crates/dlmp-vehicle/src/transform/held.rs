//! The driver's cause of a vehicle's freeze (player.md SetFrozen: the server "holds the
//! vehicle it drives with a VehicleTransform freeze (except a train) while it drives and is
//! frozen; the gamemode's own vehicle freeze is a separate cause, and neither clears the
//! other"). Control is taken while the gamemode froze the player or its camera is not its
//! own, so a driver under a foreign camera holds the vehicle too. The freeze goes when the
//! first cause appears, the unfreeze when the last one is gone, each with a new transform
//! revision; a freeze releases the hitch and winch like the gamemode's.

use bevy_ecs::prelude::*;

use super::Outgoing;
use super::change::{self, Stamp};
use crate::components::{Frozen, RelaySerial, Revisions, Seats, Vehicle};
use crate::models::VehicleModels;
use crate::reset::{ResetKind, VehicleReset};
use dlmp_core::vehicle::{Life, Pose};
use dlmp_player::control::Control;
use dlmp_protocol::serial::Serial;

/// What the driver's cause reads and writes of a vehicle.
type Driven = (
    Entity,
    &'static Vehicle,
    &'static Life,
    &'static RelaySerial,
    &'static Seats,
    &'static mut Pose,
    &'static mut Frozen,
    &'static mut Revisions,
);

/// Every tick after the gamemode's control and transform commands: the driver's cause
/// follows the control of whoever sits in seat 0. A wreck drops the cause without a packet
/// (nobody drives it; a respawn's show carries whatever holds then).
pub(crate) fn hold_for_drivers(
    models: Res<VehicleModels>,
    controls: Query<&Control>,
    mut vehicles: Query<Driven>,
    mut resets: MessageWriter<VehicleReset>,
    mut outgoing: ResMut<Outgoing>,
) {
    for (entity, vehicle, life, serial, seats, mut pose, mut frozen, mut revs) in &mut vehicles {
        let may_hold = !life.wrecked && !models.get(vehicle.model).is_some_and(|m| m.is_train());
        let taken = may_hold
            && seats
                .driver()
                .and_then(|d| controls.get(d.entity).ok())
                .is_some_and(Control::control_taken);
        if taken == frozen.driver {
            continue;
        }
        if !may_hold {
            frozen.driver = false;
            continue;
        }
        let was = frozen.held();
        frozen.driver = taken;
        if frozen.held() == was {
            continue;
        }
        let flags = change::hold(&mut pose, taken);
        revs.pose.0 = revs.pose.0.next();
        if taken {
            resets.write(VehicleReset {
                vehicle: entity,
                id: vehicle.id,
                kind: ResetKind::Transformed,
            });
        }
        let stamp = Stamp {
            vehicle: vehicle.id,
            epoch: life.epoch,
            relay_seq: serial.0,
            pose_rev: revs.pose.0,
        };
        outgoing.0.push(change::packet(stamp, flags, &pose));
    }
}
