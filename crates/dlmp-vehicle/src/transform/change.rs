//! One gamemode transform of a vehicle (vehicles.md VehicleTransform): the server checks,
//! what it changes of the server's pose and freeze, and the packet that says it. I/O-free:
//! the plugin fetches the vehicle, calls [`check`] and [`apply`], and sends [`packet`].
//! Decisions: docs/decisions/0065-vehicle-transform.md.

use crate::Frozen;
use dlmp_core::vehicle::Pose;
use dlmp_player::frame::rules::STEPS_PER_SECOND;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, Revision, Seq, VehicleEpoch, VehicleId};
use dlmp_protocol::vehicle::state::{WORLD_XY, WORLD_Z, check_rotation, check_world_pos};
use dlmp_protocol::vehicle::transform::{VehicleTransform, transform_flag};

/// The fastest velocity a gamemode gives a vehicle, m/s ("the velocity ≤ 200 m/s").
pub const MAX_SPEED: f64 = 200.0;
/// The fastest angular velocity, rad/s ("the angular velocity ≤ 25 rad/s").
pub const MAX_TURN: f64 = 25.0;

/// What the gamemode changes. Velocities are in the wire's units (per physics step, as
/// [`Pose`] keeps them); the Lua API takes m/s and rad/s and divides by 50.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    Position(Vec3),
    /// A quaternion x, y, z, w within 0.1 of unit length; the server keeps it normalized.
    Rotation([f32; 4]),
    Velocity(Vec3),
    TurnVelocity(Vec3),
    Freeze(bool),
}

impl Change {
    /// A new position, rotation or freeze: the vehicle's hitch and winch end first
    /// ([`ResetKind::Transformed`](crate::ResetKind::Transformed)).
    pub fn releases(&self) -> bool {
        matches!(
            self,
            Change::Position(_) | Change::Rotation(_) | Change::Freeze(true)
        )
    }
}

/// Why a transform is refused. The message is what a scripter reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TransformError {
    Gone(VehicleId),
    Train(u16),
    Wreck(VehicleId),
    /// A velocity for a frozen vehicle (it stands still until unfrozen).
    Frozen(VehicleId),
    OutsideWorld(Vec3),
    NotFinite,
    /// Not within 0.1 of a unit quaternion; its norm.
    Rotation(f32),
    /// m/s.
    Speed(f64),
    /// rad/s.
    Turn(f64),
}

impl std::fmt::Display for TransformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransformError::Gone(id) => write!(f, "vehicle {} no longer exists", id.0),
            TransformError::Train(m) => write!(
                f,
                "model {m} is a train: it stays on its track (set_train_derailed, set_train_speed)"
            ),
            TransformError::Wreck(id) => write!(f, "vehicle {} is a wreck", id.0),
            TransformError::Frozen(id) => write!(
                f,
                "vehicle {} is frozen: it has no velocity until set_vehicle_frozen(vehicle, false)",
                id.0
            ),
            TransformError::OutsideWorld(p) => write!(
                f,
                "position {} {} {} is outside the world (|x|, |y| <= {WORLD_XY}, z {}..={})",
                p.x,
                p.y,
                p.z,
                WORLD_Z.start(),
                WORLD_Z.end()
            ),
            TransformError::NotFinite => f.write_str("every value must be a finite number"),
            TransformError::Rotation(n) => write!(
                f,
                "the rotation is not a unit quaternion x, y, z, w (its length is {n}, at most 0.1 off 1)"
            ),
            TransformError::Speed(v) => {
                write!(f, "velocity {} m/s is above {MAX_SPEED} m/s", rounded(*v))
            }
            TransformError::Turn(v) => {
                write!(
                    f,
                    "angular velocity {} rad/s is above {MAX_TURN} rad/s",
                    rounded(*v)
                )
            }
        }
    }
}

impl std::error::Error for TransformError {}

/// A length as a scripter reads it: 200.01, not 200.01000000000002.
fn rounded(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The vehicle a transform is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub id: VehicleId,
    pub model: u16,
    pub is_train: bool,
    pub wrecked: bool,
    pub frozen: bool,
}

fn finite(v: &[f32]) -> bool {
    v.iter().all(|c| c.is_finite())
}

/// A per-step vector's length in the page's per-second unit, when within `max` (one f32
/// rounding step of slack, so a vector scaled to the bound passes).
fn per_second_within(v: &Vec3, max: f64) -> Result<(), f64> {
    let steps = f64::from(STEPS_PER_SECOND);
    let len = [v.x, v.y, v.z]
        .iter()
        .map(|c| f64::from(*c) * f64::from(*c))
        .sum::<f64>()
        .sqrt()
        * steps;
    if len <= max * (1.0 + f64::from(f32::EPSILON)) {
        Ok(())
    } else {
        Err(len)
    }
}

/// The page's server checks: a finite value, a position inside the world (the VehicleFrame
/// bound), a rotation within the frame bound of unit length, at most 200 m/s and 25 rad/s;
/// the vehicle is not a train and not a wreck, and a frozen vehicle takes no velocity.
pub fn check(change: &Change, target: &Target) -> Result<(), TransformError> {
    if target.is_train {
        return Err(TransformError::Train(target.model));
    }
    if target.wrecked {
        return Err(TransformError::Wreck(target.id));
    }
    match change {
        Change::Position(p) => {
            if !finite(&[p.x, p.y, p.z]) {
                return Err(TransformError::NotFinite);
            }
            check_world_pos("pos", p).map_err(|_| TransformError::OutsideWorld(*p))
        }
        Change::Rotation(q) => {
            if !finite(q) {
                return Err(TransformError::NotFinite);
            }
            check_rotation("rot", q)
                .map_err(|_| TransformError::Rotation(q.iter().map(|c| c * c).sum::<f32>().sqrt()))
        }
        Change::Velocity(v) | Change::TurnVelocity(v) => {
            if !finite(&[v.x, v.y, v.z]) {
                return Err(TransformError::NotFinite);
            }
            if target.frozen {
                return Err(TransformError::Frozen(target.id));
            }
            if matches!(change, Change::Velocity(_)) {
                per_second_within(v, MAX_SPEED).map_err(TransformError::Speed)
            } else {
                per_second_within(v, MAX_TURN).map_err(TransformError::Turn)
            }
        }
        Change::Freeze(_) => Ok(()),
    }
}

fn normalized(q: [f32; 4]) -> [f32; 4] {
    let n = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if n > 0.0 { q.map(|c| c / n) } else { q }
}

/// Applies a checked change to the server's pose and the gamemode's freeze; the packet's
/// flags, or `None` when the copies see no change (a freeze of a frozen vehicle, an
/// unfreeze of one that is not, or a freeze or unfreeze while its driver's cause holds it:
/// player.md SetFrozen, "neither clears the other"). A position stops the vehicle there; a
/// rotation keeps its velocities; a freeze stops it and always carries the position and
/// rotation, and so does a position or rotation of a held vehicle (bit4); unfreezing is a
/// packet without bit4 and fields.
pub fn apply(change: &Change, pose: &mut Pose, frozen: &mut Frozen) -> Option<u8> {
    use transform_flag::*;
    let held = |bit: u8, held: bool| {
        if held {
            POSITION | ROTATION | FROZEN
        } else {
            bit
        }
    };
    match *change {
        Change::Position(p) => {
            pose.position = p;
            pose.velocity = Vec3::ZERO;
            pose.turn_velocity = Vec3::ZERO;
            Some(held(POSITION, frozen.held()))
        }
        Change::Rotation(q) => {
            pose.rotation = normalized(q);
            Some(held(ROTATION, frozen.held()))
        }
        Change::Velocity(v) => {
            pose.velocity = v;
            Some(VELOCITY)
        }
        Change::TurnVelocity(v) => {
            pose.turn_velocity = v;
            Some(ANGULAR_VELOCITY)
        }
        Change::Freeze(on) => {
            let was = frozen.held();
            frozen.gamemode = on;
            (frozen.held() != was).then(|| hold(pose, frozen.held()))
        }
    }
}

/// The flags of a packet that starts (`true`) or ends holding the vehicle: a freeze stops
/// it and carries its position and rotation; an unfreeze carries nothing.
pub fn hold(pose: &mut Pose, on: bool) -> u8 {
    use transform_flag::*;
    if on {
        pose.velocity = Vec3::ZERO;
        pose.turn_velocity = Vec3::ZERO;
        POSITION | ROTATION | FROZEN
    } else {
        0
    }
}

/// The vehicle's identity and serials a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub vehicle: VehicleId,
    pub epoch: VehicleEpoch,
    /// The vehicle's relay serial now: recipients raise their mark to it.
    pub relay_seq: Seq,
    pub pose_rev: Revision,
}

/// The VehicleTransform of `flags` with the server's pose; a field not in `flags` is zero.
pub fn packet(stamp: Stamp, flags: u8, pose: &Pose) -> VehicleTransform {
    use transform_flag::*;
    let set = |bit: u8| flags & bit != 0;
    VehicleTransform {
        event_id: EventId(0),
        vehicle_id: stamp.vehicle,
        epoch: stamp.epoch,
        relay_seq: stamp.relay_seq,
        pose_rev: stamp.pose_rev,
        flags,
        pos: if set(POSITION) {
            pose.position
        } else {
            Vec3::ZERO
        },
        rot: if set(ROTATION) {
            pose.rotation
        } else {
            [0.0; 4]
        },
        move_speed: if set(VELOCITY) {
            pose.velocity
        } else {
            Vec3::ZERO
        },
        turn_speed: if set(ANGULAR_VELOCITY) {
            pose.turn_velocity
        } else {
            Vec3::ZERO
        },
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::transform_flag::*;
    use super::*;
    use dlmp_protocol::wire::Validate;

    const CAR: Target = Target {
        id: VehicleId(1),
        model: 411,
        is_train: false,
        wrecked: false,
        frozen: false,
    };

    fn per_step(m_s: f32) -> Vec3 {
        Vec3::new(m_s / STEPS_PER_SECOND, 0.0, 0.0)
    }

    #[rstest]
    #[case::inside(Change::Position(Vec3::new(6000.0, -6000.0, 4000.0)), Ok(()))]
    #[case::lowest(Change::Position(Vec3::new(0.0, 0.0, -200.0)), Ok(()))]
    #[case::beyond_x(
        Change::Position(Vec3::new(6000.5, 0.0, 0.0)),
        Err(TransformError::OutsideWorld(Vec3::new(6000.5, 0.0, 0.0)))
    )]
    #[case::below(Change::Position(Vec3::new(0.0, 0.0, -200.5)), Err(TransformError::OutsideWorld(Vec3::new(0.0, 0.0, -200.5))))]
    #[case::nan(
        Change::Position(Vec3::new(f32::NAN, 0.0, 0.0)),
        Err(TransformError::NotFinite)
    )]
    #[case::speed_at_200(Change::Velocity(per_step(200.0)), Ok(()))]
    #[case::turn_at_25(Change::TurnVelocity(per_step(25.0)), Ok(()))]
    #[case::nearly_unit(Change::Rotation([0.0, 0.0, 0.0, 1.09]), Ok(()))]
    #[case::inf_rotation(Change::Rotation([0.0, 0.0, f32::INFINITY, 1.0]), Err(TransformError::NotFinite))]
    #[case::inf_velocity(
        Change::Velocity(Vec3::new(0.0, f32::INFINITY, 0.0)),
        Err(TransformError::NotFinite)
    )]
    fn values(#[case] change: Change, #[case] expected: Result<(), TransformError>) {
        assert_eq!(check(&change, &CAR), expected);
    }

    #[test]
    fn speeds_just_above_the_bounds_are_refused() {
        assert!(matches!(
            check(&Change::Velocity(per_step(200.1)), &CAR),
            Err(TransformError::Speed(v)) if (v - 200.1).abs() < 1e-3
        ));
        assert!(matches!(
            check(&Change::TurnVelocity(per_step(25.01)), &CAR),
            Err(TransformError::Turn(_))
        ));
        assert!(matches!(
            check(&Change::Rotation([0.0, 0.0, 0.0, 1.11]), &CAR),
            Err(TransformError::Rotation(_))
        ));
    }

    #[rstest]
    #[case::train(Target { is_train: true, model: 537, ..CAR }, Change::Freeze(true), Err(TransformError::Train(537)))]
    #[case::wreck(Target { wrecked: true, ..CAR }, Change::Position(Vec3::ZERO), Err(TransformError::Wreck(VehicleId(1))))]
    #[case::velocity_when_frozen(Target { frozen: true, ..CAR }, Change::Velocity(Vec3::ZERO), Err(TransformError::Frozen(VehicleId(1))))]
    #[case::turn_when_frozen(Target { frozen: true, ..CAR }, Change::TurnVelocity(Vec3::ZERO), Err(TransformError::Frozen(VehicleId(1))))]
    #[case::position_when_frozen(Target { frozen: true, ..CAR }, Change::Position(Vec3::ZERO), Ok(()))]
    fn vehicles(
        #[case] target: Target,
        #[case] change: Change,
        #[case] expected: Result<(), TransformError>,
    ) {
        assert_eq!(check(&change, &target), expected);
    }

    const FREE: Frozen = Frozen {
        gamemode: false,
        driver: false,
    };
    const GAMEMODE: Frozen = Frozen {
        gamemode: true,
        driver: false,
    };
    const DRIVER: Frozen = Frozen {
        gamemode: false,
        driver: true,
    };
    const BOTH: Frozen = Frozen {
        gamemode: true,
        driver: true,
    };

    fn moving() -> Pose {
        Pose {
            velocity: Vec3::new(1.0, 0.0, 0.0),
            turn_velocity: Vec3::new(0.0, 0.0, 0.2),
            ..Pose::level(Vec3::new(5.0, 6.0, 7.0), 90.0)
        }
    }

    #[rstest]
    #[case::position(Change::Position(Vec3::new(1.0, 2.0, 3.0)), FREE, Some(POSITION))]
    #[case::position_frozen(Change::Position(Vec3::new(1.0, 2.0, 3.0)), GAMEMODE, Some(POSITION | ROTATION | FROZEN))]
    #[case::position_driver_held(Change::Position(Vec3::new(1.0, 2.0, 3.0)), DRIVER, Some(POSITION | ROTATION | FROZEN))]
    #[case::rotation(Change::Rotation([0.0, 0.0, 0.0, 1.0]), FREE, Some(ROTATION))]
    #[case::rotation_frozen(Change::Rotation([0.0, 0.0, 0.0, 1.0]), GAMEMODE, Some(POSITION | ROTATION | FROZEN))]
    #[case::velocity(Change::Velocity(Vec3::new(0.0, 1.0, 0.0)), FREE, Some(VELOCITY))]
    #[case::turn(
        Change::TurnVelocity(Vec3::new(0.0, 0.0, 0.1)),
        FREE,
        Some(ANGULAR_VELOCITY)
    )]
    #[case::freeze(Change::Freeze(true), FREE, Some(POSITION | ROTATION | FROZEN))]
    #[case::freeze_again(Change::Freeze(true), GAMEMODE, None)]
    #[case::freeze_driver_held(Change::Freeze(true), DRIVER, None)]
    #[case::unfreeze(Change::Freeze(false), GAMEMODE, Some(0))]
    #[case::unfreeze_unfrozen(Change::Freeze(false), FREE, None)]
    #[case::unfreeze_driver_still_holds(Change::Freeze(false), BOTH, None)]
    fn flags(#[case] change: Change, #[case] frozen: Frozen, #[case] expected: Option<u8>) {
        let mut pose = moving();
        let mut f = frozen;
        assert_eq!(apply(&change, &mut pose, &mut f), expected);
        if let Change::Freeze(on) = change {
            assert_eq!(
                f,
                Frozen {
                    gamemode: on,
                    ..frozen
                },
                "only the gamemode's cause"
            );
        }
        if let Some(flags) = expected {
            let stamp = Stamp {
                vehicle: VehicleId(1),
                epoch: VehicleEpoch(0),
                relay_seq: Seq(3),
                pose_rev: Revision(1),
            };
            assert_eq!(packet(stamp, flags, &pose).validate(), Ok(()));
        }
    }

    #[test]
    fn a_position_stops_the_vehicle_a_rotation_keeps_its_velocities() {
        let mut pose = moving();
        let mut frozen = FREE;
        apply(
            &Change::Rotation([0.0, 0.0, 0.0, 1.05]),
            &mut pose,
            &mut frozen,
        );
        assert_eq!(pose.velocity, moving().velocity);
        assert_eq!(pose.rotation, [0.0, 0.0, 0.0, 1.0], "normalized");
        apply(
            &Change::Position(Vec3::new(1.0, 2.0, 3.0)),
            &mut pose,
            &mut frozen,
        );
        assert_eq!(
            (pose.position, pose.velocity, pose.turn_velocity),
            (Vec3::new(1.0, 2.0, 3.0), Vec3::ZERO, Vec3::ZERO)
        );
        pose = moving();
        apply(&Change::Freeze(true), &mut pose, &mut frozen);
        assert!(frozen.gamemode);
        assert_eq!(
            (pose.velocity, pose.turn_velocity),
            (Vec3::ZERO, Vec3::ZERO)
        );
    }

    #[test]
    fn a_field_not_in_the_flags_is_zero() {
        let stamp = Stamp {
            vehicle: VehicleId(4),
            epoch: VehicleEpoch(2),
            relay_seq: Seq(77),
            pose_rev: Revision(9),
        };
        let p = packet(stamp, VELOCITY, &moving());
        assert_eq!(
            (p.pos, p.rot, p.move_speed, p.turn_speed),
            (Vec3::ZERO, [0.0; 4], moving().velocity, Vec3::ZERO)
        );
        assert_eq!(
            (p.vehicle_id, p.epoch, p.relay_seq, p.pose_rev, p.flags),
            (
                VehicleId(4),
                VehicleEpoch(2),
                Seq(77),
                Revision(9),
                VELOCITY
            )
        );
    }

    #[test]
    fn what_releases_the_hitch() {
        assert!(Change::Position(Vec3::ZERO).releases());
        assert!(Change::Rotation([0.0, 0.0, 0.0, 1.0]).releases());
        assert!(Change::Freeze(true).releases());
        assert!(!Change::Freeze(false).releases());
        assert!(!Change::Velocity(Vec3::ZERO).releases());
        assert!(!Change::TurnVelocity(Vec3::ZERO).releases());
    }
}
