//! What an accepted VehicleFrame changes (vehicles.md, VehicleFrame "What an accepted frame
//! changes"), and the state its relay carries (RemoteVehicleFrame: "health, health_rev,
//! siren_rev, nitro, hydraulics and pose_rev are the server's"). I/O-free.

use dlmp_core::vehicle::Pose;
use dlmp_player::frame::Bounds;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::Revision;
use dlmp_protocol::vehicle::state::VehicleState;

/// The pose a frame gives the vehicle: the frame's position, rotation and velocities; a
/// frozen vehicle keeps its pose and stands still. Returns the new pose.
pub fn take_pose(state: &VehicleState, current: &Pose, frozen: bool) -> Pose {
    if frozen {
        return Pose {
            velocity: Vec3::ZERO,
            turn_velocity: Vec3::ZERO,
            ..*current
        };
    }
    Pose {
        position: state.pos,
        rotation: state.rot,
        velocity: state.move_speed,
        turn_velocity: state.turn_speed,
    }
}

/// The health after a frame: only lowered, only while the vehicle is not wrecked, and only
/// with the current health revision (a frame sent before a gamemode command does not undo
/// it; a frame cannot repair).
pub fn take_health(
    current: f32,
    wrecked: bool,
    rev: Revision,
    frame: f32,
    frame_rev: Revision,
) -> f32 {
    if !wrecked && frame_rev == rev && frame < current {
        frame
    } else {
        current
    }
}

/// A driver's vehicle held inside its world bounds (player.md, SetWorldBounds: "the server
/// holds ... its vehicle's VehicleFrame inside it while it drives"): a position beyond an
/// edge counts as on the edge, without velocity outward through it.
pub fn hold_to_bounds(state: &mut VehicleState, b: Bounds) {
    let held = b.clamp(state.pos);
    if held.x < state.pos.x {
        state.move_speed.x = state.move_speed.x.min(0.0);
    } else if held.x > state.pos.x {
        state.move_speed.x = state.move_speed.x.max(0.0);
    }
    if held.y < state.pos.y {
        state.move_speed.y = state.move_speed.y.min(0.0);
    } else if held.y > state.pos.y {
        state.move_speed.y = state.move_speed.y.max(0.0);
    }
    state.pos = held;
}

/// The server's values a relay carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerValues {
    pub pose: Pose,
    pub health: f32,
    pub health_rev: Revision,
    pub pose_rev: Revision,
}

/// The relayed state: the rewritten frame with the server's pose, health and revisions
/// (siren_rev, nitro and hydraulics are already the server's after the field rules).
pub fn relay_state(state: &VehicleState, server: &ServerValues) -> VehicleState {
    VehicleState {
        pos: server.pose.position,
        rot: server.pose.rotation,
        move_speed: server.pose.velocity,
        turn_speed: server.pose.turn_velocity,
        health: server.health,
        health_rev: server.health_rev,
        pose_rev: server.pose_rev,
        ..*state
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::frame::fields::tests::state;

    #[rstest]
    #[case::lowered(false, 3, 700.0, 700.0)]
    #[case::never_raised(false, 3, 1200.0, 1000.0)]
    #[case::not_on_a_wreck(true, 3, 100.0, 1000.0)]
    #[case::not_before_the_command(false, 2, 100.0, 1000.0)]
    fn health(#[case] wrecked: bool, #[case] rev: u16, #[case] frame: f32, #[case] after: f32) {
        assert_eq!(
            take_health(1000.0, wrecked, Revision(3), frame, Revision(rev)),
            after
        );
    }

    #[test]
    fn a_frozen_vehicle_keeps_its_pose_and_stands_still() {
        let current = Pose {
            velocity: Vec3::new(1.0, 0.0, 0.0),
            ..Pose::level(Vec3::new(5.0, 5.0, 5.0), 90.0)
        };
        let s = VehicleState {
            pos: Vec3::new(50.0, 0.0, 0.0),
            move_speed: Vec3::new(0.5, 0.0, 0.0),
            ..state()
        };
        let frozen = take_pose(&s, &current, true);
        assert_eq!(
            (frozen.position, frozen.rotation),
            (current.position, current.rotation)
        );
        assert_eq!(
            (frozen.velocity, frozen.turn_velocity),
            (Vec3::ZERO, Vec3::ZERO)
        );
        let free = take_pose(&s, &current, false);
        assert_eq!((free.position, free.velocity), (s.pos, s.move_speed));
    }

    #[test]
    fn bounds_hold_the_position_and_the_outward_velocity() {
        let mut s = VehicleState {
            pos: Vec3::new(120.0, -5.0, 3.0),
            move_speed: Vec3::new(0.4, -0.2, 0.0),
            ..state()
        };
        let b = Bounds {
            min_x: -100.0,
            min_y: -100.0,
            max_x: 100.0,
            max_y: 100.0,
        };
        hold_to_bounds(&mut s, b);
        assert_eq!(s.pos, Vec3::new(100.0, -5.0, 3.0));
        assert_eq!(s.move_speed, Vec3::new(0.0, -0.2, 0.0));
    }
}
