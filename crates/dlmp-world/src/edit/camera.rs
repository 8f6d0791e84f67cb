//! EditCamera (editing.md §2): the free camera's reports move the session's camera point,
//! held within range of the anchor and within world bounds, by at most 60 m/s over the
//! time since the previous accepted report with half a second of margin. The point is the
//! player's stream center while SetCamera mode 3 applies (players, vehicles and the world
//! kinds stream from it); the session's end gives the body back (ADR 0111).

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::{EditDrops, EditSession, LastEditCamera};
use dlmp_core::position::StreamCenter;
use dlmp_core::session::{RateLimit, Received};
use dlmp_player::control::SessionCamera;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::world::shared::{WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};

/// EditCamera of one connection: 20 a second with half a second of burst.
pub const CAMERA_LIMIT: RateLimit = RateLimit::per_second(10, 20);
/// The fastest the camera point follows, m/s (editing.md §2).
pub const CAMERA_SPEED: f32 = 60.0;
/// The margin on the time since the previous report.
pub const CAMERA_MARGIN: Duration = Duration::from_millis(500);

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(a.x - b.x, a.y - b.y, a.z - b.z)
}

/// `from` moved toward `to` by at most `max` m.
fn toward(from: Vec3, to: Vec3, max: f32) -> Vec3 {
    let d = sub(to, from);
    let len = d.length();
    if len <= max {
        return to;
    }
    let k = max / len;
    Vec3::new(from.x + d.x * k, from.y + d.y * k, from.z + d.z * k)
}

/// `p` held within `range` of `anchor` and within world bounds.
pub fn clamp(p: Vec3, anchor: Vec3, range: f32) -> Vec3 {
    let d = sub(p, anchor);
    let len = d.length();
    let p = if len > range {
        let k = range / len;
        Vec3::new(anchor.x + d.x * k, anchor.y + d.y * k, anchor.z + d.z * k)
    } else {
        p
    };
    Vec3::new(
        p.x.clamp(-WORLD_XY, WORLD_XY),
        p.y.clamp(-WORLD_XY, WORLD_XY),
        p.z.clamp(WORLD_Z_MIN, WORLD_Z_MAX),
    )
}

/// Admits the tick's EditCamera reports and moves the stream center with the point.
pub(super) fn admit_camera(
    time: Res<Time>,
    mut received: MessageReader<Received>,
    mut players: Query<(&mut EditSession, &mut LastEditCamera, &mut StreamCenter)>,
    mut drops: ResMut<EditDrops>,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::EditCamera(report) = packet else {
            continue;
        };
        let Ok((mut session, mut last, mut center)) = players.get_mut(*player) else {
            drops.camera += 1;
            continue;
        };
        let admitted = report.session == session.id
            && session.camera == SessionCamera::Free
            && session.camera_point.is_some()
            && last.0.is_none_or(|last| report.seq.is_newer_than(last))
            && session.camera_packets.try_take(now);
        if !admitted {
            drops.camera += 1;
            continue;
        }
        let from = session.camera_point.expect("checked");
        let dt = now.saturating_sub(session.camera_at) + CAMERA_MARGIN;
        let to = clamp(report.pos, session.anchor, session.range);
        let point = toward(from, to, CAMERA_SPEED * dt.as_secs_f32());
        session.camera_point = Some(point);
        last.0 = Some(report.seq);
        session.camera_at = now;
        if center.camera != Some(point) {
            center.camera = Some(point);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_point_stays_within_range_and_world_and_moves_at_most_the_allowed_step() {
        let anchor = Vec3::new(5990.0, 0.0, 0.0);
        assert_eq!(
            clamp(Vec3::new(6000.0, 0.0, 0.0), anchor, 100.0),
            Vec3::new(6000.0, 0.0, 0.0)
        );
        assert_eq!(
            clamp(Vec3::new(5990.0, 500.0, 0.0), anchor, 100.0),
            Vec3::new(5990.0, 100.0, 0.0)
        );
        assert_eq!(
            toward(Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), 36.0),
            Vec3::new(36.0, 0.0, 0.0)
        );
        assert_eq!(
            toward(Vec3::ZERO, Vec3::new(3.0, 4.0, 0.0), 36.0),
            Vec3::new(3.0, 4.0, 0.0)
        );
    }
}
