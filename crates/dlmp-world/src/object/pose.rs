//! An object's pose and movement (world.md ObjectState): rotation Rz(rz) Rx(rx) Ry(ry) in
//! degrees; the world pose of an attached object is the parent's pose multiplied by its own
//! (offset and rotation), and of a parent player only the heading counts; movement is
//! uniform and linear in position and angles.

use std::time::Duration;

use dlmp_protocol::geometry::Vec3;

/// A position and a rotation (degrees, applied as Rz Rx Ry).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose {
    pub position: Vec3,
    pub rotation: Vec3,
}

/// A row-major 3 × 3 rotation.
type Mat = [[f32; 3]; 3];

/// Rz(rz) · Rx(rx) · Ry(ry) of `r` (degrees).
fn matrix(r: Vec3) -> Mat {
    let (sx, cx) = r.x.to_radians().sin_cos();
    let (sy, cy) = r.y.to_radians().sin_cos();
    let (sz, cz) = r.z.to_radians().sin_cos();
    let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
    let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
    let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
    mul(&mul(&rz, &rx), &ry)
}

fn mul(a: &Mat, b: &Mat) -> Mat {
    let mut m = [[0.0; 3]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

fn transpose(m: &Mat) -> Mat {
    let mut t = [[0.0; 3]; 3];
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            t[j][i] = *v;
        }
    }
    t
}

fn apply(m: &Mat, v: Vec3) -> Vec3 {
    Vec3::new(
        m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
        m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
        m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z,
    )
}

/// The angles (degrees) of a Rz Rx Ry matrix: rx in −90..=90, ry and rz in −180..=180.
fn angles(m: &Mat) -> Vec3 {
    // Rz Rx Ry: m[2][1] = sin rx; m[2][0] = −cos rx sin ry; m[2][2] = cos rx cos ry;
    // m[0][1] = −sin rz cos rx; m[1][1] = cos rz cos rx.
    let sx = m[2][1].clamp(-1.0, 1.0);
    let rx = sx.asin();
    if sx.abs() < 0.999_999 {
        let ry = (-m[2][0]).atan2(m[2][2]);
        let rz = (-m[0][1]).atan2(m[1][1]);
        Vec3::new(rx.to_degrees(), ry.to_degrees(), rz.to_degrees())
    } else {
        // Gimbal lock: ry and rz turn about the same axis; put it all in rz.
        let rz = m[1][0].atan2(m[0][0]);
        Vec3::new(rx.to_degrees(), 0.0, rz.to_degrees())
    }
}

impl Pose {
    pub const fn at(position: Vec3) -> Self {
        Pose {
            position,
            rotation: Vec3::ZERO,
        }
    }

    /// The world pose of a child whose own pose (offset, rotation) is `own`, on `self`.
    pub fn compose(&self, own: &Pose) -> Pose {
        let m = matrix(self.rotation);
        let p = apply(&m, own.position);
        Pose {
            position: Vec3::new(
                self.position.x + p.x,
                self.position.y + p.y,
                self.position.z + p.z,
            ),
            rotation: angles(&mul(&m, &matrix(own.rotation))),
        }
    }

    /// The own pose (offset, rotation) on `self` of a child standing at `world`: the
    /// inverse of [`compose`](Self::compose), for attaching in place.
    pub fn relative(&self, world: &Pose) -> Pose {
        let m = matrix(self.rotation);
        let t = transpose(&m);
        let d = Vec3::new(
            world.position.x - self.position.x,
            world.position.y - self.position.y,
            world.position.z - self.position.z,
        );
        Pose {
            position: apply(&t, d),
            rotation: angles(&mul(&t, &matrix(world.rotation))),
        }
    }

    /// The pose of a vehicle as a parent: its position and its whole rotation (a unit
    /// quaternion x, y, z, w as VehicleState.rot), as Rz Rx Ry angles.
    pub fn of_vehicle(position: Vec3, [x, y, z, w]: [f32; 4]) -> Pose {
        let n = (x * x + y * y + z * z + w * w).sqrt();
        let (x, y, z, w) = if n.is_finite() && n > 0.0 {
            (x / n, y / n, z / n, w / n)
        } else {
            (0.0, 0.0, 0.0, 1.0)
        };
        let m = [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - z * w),
                2.0 * (x * z + y * w),
            ],
            [
                2.0 * (x * y + z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - x * w),
            ],
            [
                2.0 * (x * z - y * w),
                2.0 * (y * z + x * w),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ];
        Pose {
            position,
            rotation: angles(&m),
        }
    }

    /// The pose of a player's body as a parent: its position and only its heading.
    pub fn of_player(position: Vec3, heading_deg: f32) -> Pose {
        Pose {
            position,
            rotation: Vec3::new(0.0, 0.0, heading_deg),
        }
    }
}

/// A movement: uniform and linear in position and angles from `from` to `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    pub from: Pose,
    pub to: Pose,
    pub start: Duration,
    pub duration: Duration,
}

fn lerp(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    Vec3::new(
        a.x + (b.x - a.x) * t,
        a.y + (b.y - a.y) * t,
        a.z + (b.z - a.z) * t,
    )
}

impl Motion {
    pub fn end(&self) -> Duration {
        self.start + self.duration
    }

    /// Whether the movement has reached its target at `now`.
    pub fn ended(&self, now: Duration) -> bool {
        now >= self.end()
    }

    /// The pose at `now` (the target once it ended).
    pub fn pose_at(&self, now: Duration) -> Pose {
        if self.duration.is_zero() || self.ended(now) {
            return self.to;
        }
        let t = (now.saturating_sub(self.start).as_secs_f64() / self.duration.as_secs_f64()) as f32;
        Pose {
            position: lerp(self.from.position, self.to.position, t),
            rotation: lerp(self.from.rotation, self.to.rotation, t),
        }
    }

    /// The time left at `now`, in whole ms (what a repeated show carries), at least 1
    /// while it has not ended.
    pub fn ms_left(&self, now: Duration) -> u32 {
        let left = self.end().saturating_sub(now);
        if left.is_zero() {
            return 0;
        }
        u32::try_from(left.as_millis().max(1)).unwrap_or(u32::MAX)
    }
}

/// How long a move of `distance` m at `speed` m/s takes, in whole ms (rounded up). When
/// the position does not change, `turn` (the largest angle change, degrees) at `speed`
/// degrees a second (docs/decisions/0047-objects.md). `None`: not finite.
pub fn move_duration(distance: f32, turn: f32, speed: f32) -> Option<u64> {
    let span = if distance > 0.0 { distance } else { turn };
    let ms = (f64::from(span) / f64::from(speed) * 1000.0).ceil();
    (ms.is_finite() && ms >= 0.0).then_some(ms as u64)
}

/// The largest angle change between two rotations, degrees.
pub fn turn(a: Vec3, b: Vec3) -> f32 {
    (a.x - b.x)
        .abs()
        .max((a.y - b.y).abs())
        .max((a.z - b.z).abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::geometry::distance;

    fn close(a: Vec3, b: Vec3) -> bool {
        distance(a, b) < 1e-3
    }

    #[test]
    fn compose_turns_the_offset_by_the_parent_and_adds_the_angles_about_one_axis() {
        let parent = Pose {
            position: Vec3::new(10.0, 0.0, 0.0),
            rotation: Vec3::new(0.0, 0.0, 90.0),
        };
        let child = Pose {
            position: Vec3::new(1.0, 0.0, 0.0),
            rotation: Vec3::new(0.0, 0.0, 30.0),
        };
        let w = parent.compose(&child);
        assert!(close(w.position, Vec3::new(10.0, 1.0, 0.0)), "{w:?}");
        assert!(close(w.rotation, Vec3::new(0.0, 0.0, 120.0)), "{w:?}");
        let back = parent.relative(&w);
        assert!(close(back.position, child.position) && close(back.rotation, child.rotation));
    }

    #[test]
    fn angles_recover_a_rotation_of_every_axis() {
        for r in [
            Vec3::new(20.0, -35.0, 170.0),
            Vec3::new(-60.0, 10.0, -45.0),
            Vec3::new(0.0, 90.0, 0.0),
        ] {
            let m = matrix(r);
            let back = matrix(angles(&m));
            for (a, b) in m.iter().flatten().zip(back.iter().flatten()) {
                assert!((a - b).abs() < 1e-4, "{r:?}");
            }
        }
    }

    #[test]
    fn a_motion_is_linear_and_ends_at_its_target() {
        let m = Motion {
            from: Pose::at(Vec3::ZERO),
            to: Pose {
                position: Vec3::new(10.0, 0.0, 0.0),
                rotation: Vec3::new(0.0, 0.0, 90.0),
            },
            start: Duration::from_secs(1),
            duration: Duration::from_secs(2),
        };
        let half = m.pose_at(Duration::from_secs(2));
        assert!(close(half.position, Vec3::new(5.0, 0.0, 0.0)));
        assert!(close(half.rotation, Vec3::new(0.0, 0.0, 45.0)));
        assert_eq!(m.ms_left(Duration::from_millis(2500)), 500);
        assert_eq!(m.ms_left(Duration::from_secs(3)), 0);
        assert_eq!(m.pose_at(Duration::from_secs(9)), m.to);
        assert_eq!(move_duration(10.0, 0.0, 4.0), Some(2500));
        assert_eq!(move_duration(0.0, 90.0, 45.0), Some(2000));
    }
}
