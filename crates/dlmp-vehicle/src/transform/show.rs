//! What follows a vehicle's show (vehicles.md VehicleSync: "A show places the vehicle level
//! at heading; any other rotation (on its roof, on a slope) and the pose of a frozen vehicle
//! come in the VehicleTransform that follows"; VehicleTransform, "Freezing"). The packet
//! carries the current revision and serial, not a new command: the copy the show created
//! already counts as having taken them. `stream::vehicle_show` appends it to every show.

use super::change::{Stamp, packet};
use crate::stream::ShownItem;
use dlmp_core::vehicle::Pose;
use dlmp_protocol::vehicle::transform::{VehicleTransform, transform_flag};

/// The largest angle between the server's rotation and the level one at its heading that
/// still counts as level, degrees: below what a player can see, above rounding.
pub const LEVEL_TOLERANCE_DEG: f32 = 0.5;

/// Whether `pose` stands level at its own heading (what a show places).
pub fn is_level(pose: &Pose) -> bool {
    let level = Pose::level(pose.position, pose.heading()).rotation;
    let n = pose.rotation.iter().map(|c| c * c).sum::<f32>().sqrt();
    if !n.is_finite() || n == 0.0 {
        return true;
    }
    // The angle between two unit quaternions is 2·acos(|q1·q2|); either sign is one turn.
    let dot = pose
        .rotation
        .iter()
        .zip(level)
        .map(|(a, b)| a * b)
        .sum::<f32>()
        .abs()
        / n;
    let half = (LEVEL_TOLERANCE_DEG.to_radians() / 2.0).cos();
    dot >= half
}

/// The transform that follows the show of this vehicle, if any: a frozen vehicle's
/// freezing transform (position, rotation, bit4), or the rotation of one that is not
/// level at its heading. A train's pose comes from its track: nothing follows its show.
pub fn after_show(parts: ShownItem<'_>, is_train: bool) -> Option<VehicleTransform> {
    use transform_flag::*;
    let (vehicle, pose, _, life, _, _, _, serial, revs, _, _, _, frozen) = parts;
    if is_train {
        return None;
    }
    let flags = if frozen.held() {
        POSITION | ROTATION | FROZEN
    } else if !is_level(pose) {
        ROTATION
    } else {
        return None;
    };
    let stamp = Stamp {
        vehicle: vehicle.id,
        epoch: life.epoch,
        relay_seq: serial.0,
        pose_rev: revs.pose.0,
    };
    Some(packet(stamp, flags, pose))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::geometry::Vec3;

    #[test]
    fn level_at_any_heading_and_tilted() {
        for h in [0.0f32, 33.0, 90.0, 181.0, 359.5] {
            assert!(is_level(&Pose::level(Vec3::ZERO, h)), "{h}");
        }
        let mut pose = Pose::level(Vec3::ZERO, 0.0);
        // A quarter turn about y: on its side.
        let s = core::f32::consts::FRAC_1_SQRT_2;
        pose.rotation = [0.0, s, 0.0, s];
        assert!(!is_level(&pose));
        // On its roof, heading 90.
        pose.rotation = [s, s, 0.0, 0.0];
        assert!(!is_level(&pose));
        // One degree of pitch is seen; a quarter of one is not.
        for (deg, level) in [(1.0f32, false), (0.25, true)] {
            let half = deg.to_radians() / 2.0;
            pose.rotation = [half.sin(), 0.0, 0.0, half.cos()];
            assert_eq!(is_level(&pose), level, "{deg}");
        }
        // The negated quaternion is the same rotation.
        pose.rotation = [0.0, 0.0, 0.0, -1.0];
        assert!(is_level(&pose));
    }
}
