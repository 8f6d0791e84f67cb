//! Every change of a train's direction or derailment goes, critical, to everyone the train
//! is streamed to as TrainState (vehicles.md TrainState: "on every change: a derailment the
//! controlling player reported ..., and the gamemode commands"). Runs in
//! [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply) after the vehicles'
//! creates: first the derailments the frames of this tick made (VehicleFrame admission set
//! [`Train::derailed`] and said so in its outcome), then the gamemode's [`TrainCommand`]s
//! in order.
//!
//! A speed from `set_train_speed` stands in the train's [`ShowTail`] until the next frame
//! of the train is accepted, so a copy shown in between takes it too ("every copy of the
//! same generation, including one created later, takes the speed once"); after that the
//! frames carry the speed. A derailment, a return to the rails and a respawn end it.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::state::train_state;
use crate::frame::VehicleFrameAccepted;
use crate::frame::fields::{HeldFields, is_train};
use crate::{ResetKind, ShowTail, Train, Vehicle, VehicleReset, VehicleStream};
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_core::vehicle::Vehicles;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::vehicle::train::MAX_TRAIN_SPEED;

/// A gamemode command for a train (`dlmp.set_train_direction`, `set_train_derailed`,
/// `set_train_speed`), from a script or a Rust plugin.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct TrainCommand {
    /// The locomotive.
    pub train: VehicleId,
    pub change: TrainChange,
}

/// What a [`TrainCommand`] changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrainChange {
    /// Faces along the track (clockwise) or against it.
    Direction(bool),
    /// Derails the train, or puts it back on its rails.
    Derailed(bool),
    /// Speed along the track, units per step, |·| ≤ 4.
    Speed(f32),
}

/// Commands refused because they named no train or a bad speed (a Rust plugin's; the Lua
/// functions refuse those with an error first).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrainStats {
    pub refused: u64,
    /// TrainStates sent, one per change (not per recipient).
    pub changes: u64,
}

impl TrainStats {
    /// The console's `stats` row.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![("changes", self.changes), ("refused", self.refused)]
    }
}

/// What one command does to a train.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub train: Train,
    /// A TrainState goes to the train's viewers.
    pub tell: bool,
    /// The speed it carries (bit2).
    pub speed: Option<f32>,
    /// The train was put back on its rails ([`HeldFields::rerail`]).
    pub rerail: bool,
}

/// The command's effect on `train`. A direction or derailment the train already has changes
/// nothing and tells nothing; a return to the rails is always told (it also brings back a
/// driver's copy that derailed on its own when the server did not take it: "returns to the
/// rails only on the server's return"), and so is every speed (an impulse, not a state).
pub fn decide(train: Train, change: TrainChange) -> Outcome {
    let mut out = Outcome {
        train,
        tell: false,
        speed: None,
        rerail: false,
    };
    match change {
        TrainChange::Direction(along) => {
            out.train.along = along;
            out.tell = along != train.along;
        }
        TrainChange::Derailed(true) => {
            out.train.derailed = true;
            out.tell = !train.derailed;
        }
        TrainChange::Derailed(false) => {
            out.train.derailed = false;
            out.tell = true;
            out.rerail = true;
        }
        TrainChange::Speed(speed) => {
            out.tell = true;
            out.speed = Some(speed);
        }
    }
    out
}

/// Whether a command's speed is one the packet carries.
pub fn valid_speed(speed: f32) -> bool {
    speed.is_finite() && speed.abs() <= MAX_TRAIN_SPEED
}

/// What the pass reads and writes of a train.
type Parts = (
    &'static Vehicle,
    &'static mut Train,
    // A vehicle created this tick gets the frame rules' memory in the next.
    Option<&'static mut HeldFields>,
    &'static mut ShowTail,
);

/// The pass: the frames' derailments, resets, then the commands.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn apply(
    registry: Res<Vehicles>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut stats: ResMut<TrainStats>,
    mut frames: MessageReader<VehicleFrameAccepted>,
    mut resets: MessageReader<VehicleReset>,
    mut commands: MessageReader<TrainCommand>,
    mut trains: Query<Parts>,
    mut connections: Query<&mut Connection>,
) {
    let mut tell = |id: VehicleId, train: Train, speed: Option<f32>, stats: &mut TrainStats| {
        let packet = ServerPacket::from(train_state(id, train, speed));
        stats.changes += 1;
        stream
            .shown()
            .tell_viewers(id.0, &packet, &index, &mut connections);
    };
    for frame in frames.read() {
        let Ok((vehicle, train, _, mut tail)) = trains.get_mut(frame.vehicle) else {
            continue;
        };
        if !is_train(vehicle.model) {
            continue;
        }
        // The frames carry the speed from now on.
        if tail.train.is_some() {
            tail.train = None;
        }
        if frame.outcome.derailed {
            debug!(train = vehicle.id.0, "the driver derailed the train");
            tell(vehicle.id, *train, None, &mut stats);
        }
    }
    for reset in resets.read() {
        if reset.kind == ResetKind::Respawned
            && let Ok((.., mut tail)) = trains.get_mut(reset.vehicle)
            && tail.train.is_some()
        {
            tail.train = None;
        }
    }
    for command in commands.read() {
        let Some((vehicle, mut train, mut held, mut tail)) = registry
            .entity(command.train)
            .and_then(|e| trains.get_mut(e).ok())
        else {
            stats.refused += 1;
            debug!(train = command.train.0, "a train command for no vehicle");
            continue;
        };
        let bad_speed = matches!(command.change, TrainChange::Speed(s) if !valid_speed(s));
        if !is_train(vehicle.model) || bad_speed {
            stats.refused += 1;
            debug!(train = command.train.0, ?command.change, "a train command refused");
            continue;
        }
        let out = decide(*train, command.change);
        if *train != out.train {
            *train = out.train;
        }
        if out.rerail
            && let Some(held) = held.as_mut()
        {
            held.rerail();
        }
        let standing = out.speed.or(tail.train.as_ref().map(|t| t.speed));
        let next = standing
            .filter(|_| !out.train.derailed && !out.rerail)
            .map(|speed| train_state(vehicle.id, out.train, Some(speed)));
        if tail.train != next {
            tail.train = next;
        }
        if out.tell {
            tell(vehicle.id, out.train, out.speed, &mut stats);
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const ON_RAILS: Train = Train {
        along: true,
        derailed: false,
    };
    const DERAILED: Train = Train {
        along: true,
        derailed: true,
    };

    #[rstest]
    #[case::reverse(ON_RAILS, TrainChange::Direction(false), false, false, true, false)]
    #[case::same_direction(ON_RAILS, TrainChange::Direction(true), true, false, false, false)]
    #[case::derail(ON_RAILS, TrainChange::Derailed(true), true, true, true, false)]
    #[case::derail_again(DERAILED, TrainChange::Derailed(true), true, true, false, false)]
    #[case::rerail(DERAILED, TrainChange::Derailed(false), true, false, true, true)]
    #[case::rerail_on_rails(ON_RAILS, TrainChange::Derailed(false), true, false, true, true)]
    #[case::speed(ON_RAILS, TrainChange::Speed(1.5), true, false, true, false)]
    fn a_command_changes_and_tells(
        #[case] before: Train,
        #[case] change: TrainChange,
        #[case] along: bool,
        #[case] derailed: bool,
        #[case] tell: bool,
        #[case] rerail: bool,
    ) {
        let out = decide(before, change);
        assert_eq!(out.train, Train { along, derailed });
        assert_eq!((out.tell, out.rerail), (tell, rerail));
        assert_eq!(
            out.speed,
            match change {
                TrainChange::Speed(s) => Some(s),
                _ => None,
            }
        );
    }

    #[rstest]
    #[case(4.0, true)]
    #[case(-4.0, true)]
    #[case(0.0, true)]
    #[case(4.001, false)]
    #[case(f32::NAN, false)]
    #[case(f32::NEG_INFINITY, false)]
    fn speeds(#[case] speed: f32, #[case] valid: bool) {
        assert_eq!(valid_speed(speed), valid);
    }
}
