//! VehicleTransform (vehicles.md): the gamemode's position, rotation, velocities and freeze
//! of a vehicle, each with a new transform revision (`Revisions.pose`, the pose_rev frames
//! must echo) and the relay serial of the moment.
//!
//! A [`TransformCommand`] (from `dlmp.set_vehicle_*`, or a Rust plugin) is checked again
//! and applied in [`TransformSystems::Change`]: the server's [`Pose`] and [`Frozen`]
//! change, a new position, rotation or freeze writes [`VehicleReset`] `Transformed` (the
//! hitch and winch end), and a new position carries the occupants' server positions along.
//! The packets go out in [`TransformSystems::Send`], critical, to everyone the vehicle is
//! streamed to, the controlling player included: a feature that releases attached state
//! on the reset and runs between the two sets has its packets ahead of the transform
//! ("first releases the vehicle from any hitch and winch"). Both sets are in
//! [`GameplaySystems::Apply`], before streaming, so streaming follows the new position in
//! the same tick. What follows a show is [`show::after_show`].
//!
//! - [`change`]: the checks, the change of the pose, the packet.
//! - [`held`]: the driver's cause of the freeze (a frozen driver, player.md SetFrozen).
//! - [`show`]: the transform that follows a show (a frozen or tilted vehicle).
//! - [`script`]: the Lua functions.
//!
//! Decisions: docs/decisions/0065-vehicle-transform.md.

pub mod change;
pub mod held;
pub mod script;
pub mod show;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use self::change::{Change, Stamp, Target, TransformError};
use super::VehicleSystems;
use super::components::{Frozen, RelaySerial, Revisions, Seats, Vehicle};
use super::models::VehicleModels;
use super::reset::{ResetKind, VehicleReset};
use super::stream::VehicleStream;
use dlmp_core::position::Position;
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_core::tick::GameplaySystems;
use dlmp_core::vehicle::Vehicles;
use dlmp_core::vehicle::{Life, Pose};
use dlmp_player::control::ControlSystems;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::vehicle::transform::VehicleTransform;

/// A gamemode transform of one vehicle, applied in order in [`TransformSystems::Change`].
/// Velocities are per physics step (see [`Change`]).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct TransformCommand {
    pub vehicle: VehicleId,
    pub change: Change,
}

/// The two phases of a tick's transforms, in [`GameplaySystems::Apply`] after the seats.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformSystems {
    /// Checks and applies the commands; writes [`VehicleReset`].
    Change,
    /// Sends the VehicleTransforms.
    Send,
}

/// Transforms sent and refused (a refusal here is a command a Rust plugin wrote, or one a
/// script made before the vehicle changed in the same tick: scripts get a Lua error first).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransformStats {
    pub sent: u64,
    /// A freeze of a frozen vehicle, an unfreeze of one that is not: no packet.
    pub unchanged: u64,
    pub refused: u64,
}

impl TransformStats {
    /// The console's `stats` row.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("sent", self.sent),
            ("unchanged", self.unchanged),
            ("refused", self.refused),
        ]
    }
}

/// The packets of this tick's transforms, from [`TransformSystems::Change`] to
/// [`TransformSystems::Send`].
#[derive(Resource, Debug, Default)]
pub(crate) struct Outgoing(Vec<VehicleTransform>);

/// Adds the gamemode's vehicle transforms.
pub struct TransformPlugin;

impl Plugin for TransformPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TransformStats>()
            .init_resource::<Outgoing>()
            .add_message::<TransformCommand>()
            .configure_sets(
                FixedUpdate,
                (TransformSystems::Change, TransformSystems::Send)
                    .chain()
                    .in_set(GameplaySystems::Apply)
                    .after(VehicleSystems::Seats),
            )
            .add_systems(
                FixedUpdate,
                (
                    (apply, held::hold_for_drivers.after(ControlSystems))
                        .chain()
                        .in_set(TransformSystems::Change),
                    send.in_set(TransformSystems::Send),
                ),
            );
    }
}

/// What a transform reads and writes of a vehicle.
type Transformed = (
    &'static Vehicle,
    &'static Life,
    &'static RelaySerial,
    &'static Seats,
    &'static mut Pose,
    &'static mut Frozen,
    &'static mut Revisions,
);

#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn apply(
    mut commands: MessageReader<TransformCommand>,
    registry: Res<Vehicles>,
    models: Res<VehicleModels>,
    mut vehicles: Query<Transformed>,
    mut positions: Query<&mut Position>,
    mut resets: MessageWriter<VehicleReset>,
    mut outgoing: ResMut<Outgoing>,
    mut stats: ResMut<TransformStats>,
) {
    for command in commands.read() {
        let result = registry
            .entity(command.vehicle)
            .and_then(|e| vehicles.get_mut(e).ok().map(|v| (e, v)))
            .ok_or(TransformError::Gone(command.vehicle))
            .and_then(|(entity, v)| {
                let (vehicle, life, serial, seats, mut pose, mut frozen, mut revs) = v;
                let target = Target {
                    id: vehicle.id,
                    model: vehicle.model,
                    is_train: models.get(vehicle.model).is_some_and(|m| m.is_train()),
                    wrecked: life.wrecked,
                    frozen: frozen.held(),
                };
                change::check(&command.change, &target)?;
                let Some(flags) = change::apply(&command.change, &mut pose, &mut frozen) else {
                    return Ok(None);
                };
                revs.pose.0 = revs.pose.0.next();
                if command.change.releases() {
                    resets.write(VehicleReset {
                        vehicle: entity,
                        id: vehicle.id,
                        kind: ResetKind::Transformed,
                    });
                }
                if let Change::Position(p) = command.change {
                    for (_, o) in seats.occupied() {
                        if let Ok(mut position) = positions.get_mut(o.entity) {
                            position.0 = p;
                        }
                    }
                }
                let stamp = Stamp {
                    vehicle: vehicle.id,
                    epoch: life.epoch,
                    relay_seq: serial.0,
                    pose_rev: revs.pose.0,
                };
                Ok(Some(change::packet(stamp, flags, &pose)))
            });
        match result {
            Ok(Some(packet)) => outgoing.0.push(packet),
            Ok(None) => stats.unchanged += 1,
            Err(why) => {
                debug!(vehicle = command.vehicle.0, %why, "a vehicle transform refused");
                stats.refused += 1;
            }
        }
    }
}

fn send(
    mut outgoing: ResMut<Outgoing>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut stats: ResMut<TransformStats>,
) {
    for packet in outgoing.0.drain(..) {
        let key = packet.vehicle_id.0;
        stream
            .shown()
            .tell_viewers(key, &packet.into(), &index, &mut connections);
        stats.sent += 1;
    }
}
