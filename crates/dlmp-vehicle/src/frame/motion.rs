//! The vehicle movement check (beyond vehicles.md; docs/decisions/0089): a VehicleFrame
//! whose position cannot follow from the server's pose at the model's top speed is refused
//! whole, whoever sends it (a driver, a remote driver, a syncer), as player.md refuses an on-foot
//! frame that jumps. What a vehicle may cover is a budget, topped up with the server's clock
//! at its speed and holding half a second of it plus a margin: frames that the network
//! bunched up spend what the wait saved, a jump spends more than any wait saves. A fall is
//! paid from a budget of its own, at a terminal speed no model's top speed bounds. A
//! gamemode transform or a respawn (a new pose revision or epoch) starts both budgets full.

use std::time::Duration;

use bevy_ecs::prelude::*;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{Revision, VehicleEpoch};

use crate::models::{ModelInfo, VehicleClass};

/// A land model's top speed times this: nitro, a downhill run, the game's own overshoot of
/// its handling's `max_velocity`.
pub const SPEED_FACTOR: f32 = 1.6;
/// An aircraft's, and an RC model's (three of the six fly): planes and helicopters fly
/// faster than their handling's line says.
pub const FLYING_FACTOR: f32 = 2.5;
/// A train's: trains run at the track's speed, not their handling's.
pub const TRAIN_FACTOR: f32 = 2.5;
/// What a towed or winched vehicle may cover, km/h before the factor: as fast as the
/// fastest car or helicopter that pulls it.
pub const TOWED_KMH: f32 = 240.0;
/// The fastest fall, m/s: a free fall's terminal speed in the game, with room.
pub const FALL_SPEED: f32 = 90.0;
/// Seconds of travel a full budget holds: the frames of half a second may arrive at once
/// (the frame rate's own burst, vehicles.md "Rate limits").
pub const BURST: f32 = 0.5;
/// Metres every budget holds beyond its burst: an explosion's or a collision's kick, a
/// ramp's rise.
pub const MARGIN: f32 = 25.0;

/// Why the movement check refused a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MotionDrop {
    /// Farther along the ground or up than the model could go since the last frame.
    Travel,
    /// Lower than a fall could have taken it since the last frame.
    Fall,
}

impl MotionDrop {
    pub fn name(self) -> &'static str {
        match self {
            MotionDrop::Travel => "travel",
            MotionDrop::Fall => "fall",
        }
    }
}

/// A vehicle's movement budgets, in metres.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct MotionBudget {
    travel: f32,
    fall: f32,
    /// When the budgets were last topped up; `None` before the first frame.
    at: Option<Duration>,
    /// The life and the transform they belong to.
    epoch: VehicleEpoch,
    pose_rev: Revision,
}

/// The speed a vehicle of `info` may reach, m/s; `towed` when it hangs on a tractor or a
/// helicopter.
pub fn top_speed(info: Option<&ModelInfo>, towed: bool) -> f32 {
    let (kmh, factor) = match info {
        Some(i) => (
            i.top_speed_kmh,
            match i.class {
                VehicleClass::Plane | VehicleClass::Helicopter | VehicleClass::Rc => FLYING_FACTOR,
                VehicleClass::Train => TRAIN_FACTOR,
                _ => SPEED_FACTOR,
            },
        ),
        None => (TOWED_KMH, FLYING_FACTOR),
    };
    let kmh = if towed { kmh.max(TOWED_KMH) } else { kmh };
    kmh * factor / 3.6
}

impl MotionBudget {
    /// Whether a move from `from` to `to` at `now` fits a vehicle of `speed` (m/s) in
    /// this life and transform; it is spent when it does, nothing when it does not.
    pub fn admit(
        &mut self,
        (from, to): (Vec3, Vec3),
        now: Duration,
        speed: f32,
        (epoch, pose_rev): (VehicleEpoch, Revision),
    ) -> Result<(), MotionDrop> {
        let travel_cap = speed * BURST + MARGIN;
        let fall_cap = FALL_SPEED * BURST + MARGIN;
        match self.at {
            Some(at) if self.epoch == epoch && self.pose_rev == pose_rev => {
                let dt = now.saturating_sub(at).as_secs_f32();
                self.travel = (self.travel + speed * dt).min(travel_cap);
                self.fall = (self.fall + FALL_SPEED * dt).min(fall_cap);
            }
            _ => {
                self.travel = travel_cap;
                self.fall = fall_cap;
                self.epoch = epoch;
                self.pose_rev = pose_rev;
            }
        }
        self.at = Some(now);
        let (dx, dy, dz) = (to.x - from.x, to.y - from.y, to.z - from.z);
        let along = (dx * dx + dy * dy).sqrt() + dz.max(0.0);
        let down = (-dz).max(0.0);
        // A NaN never reaches here (the decoder refuses it); an infinity fails both.
        if !along.is_finite() || along > self.travel {
            return Err(MotionDrop::Travel);
        }
        if !down.is_finite() || down > self.fall {
            return Err(MotionDrop::Fall);
        }
        self.travel -= along;
        self.fall -= down;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_millis;

    fn budget() -> MotionBudget {
        MotionBudget::default()
    }

    #[test]
    fn a_vehicle_at_its_top_speed_is_taken_and_a_jump_is_not() {
        let speed = 100.0;
        let mut b = budget();
        let key = (VehicleEpoch(0), Revision(0));
        let mut x = 0.0;
        // 10 s at 31 frames a second, at the top speed.
        for i in 0..310u64 {
            let next = x + speed / 31.0;
            let at = S(i * 1000 / 31);
            assert_eq!(
                b.admit(
                    (Vec3::new(x, 0.0, 0.0), Vec3::new(next, 0.0, 0.0)),
                    at,
                    speed,
                    key
                ),
                Ok(()),
                "frame {i}"
            );
            x = next;
        }
        let at = S(10_100);
        let jump = Vec3::new(x + 83.0 + speed * 0.1, 0.0, 0.0);
        assert_eq!(
            b.admit((Vec3::new(x, 0.0, 0.0), jump), at, speed, key),
            Err(MotionDrop::Travel)
        );
    }

    #[test]
    fn half_a_second_of_frames_at_once_is_taken() {
        let speed = 60.0;
        let mut b = budget();
        let key = (VehicleEpoch(0), Revision(0));
        b.admit((Vec3::ZERO, Vec3::ZERO), S(0), speed, key)
            .expect("still");
        // Nothing for 500 ms, then the 15 frames of that time in one tick.
        let mut x = 0.0;
        for _ in 0..15 {
            let next = x + speed / 31.0;
            assert!(
                b.admit(
                    (Vec3::new(x, 0.0, 0.0), Vec3::new(next, 0.0, 0.0)),
                    S(500),
                    speed,
                    key
                )
                .is_ok()
            );
            x = next;
        }
    }

    #[test]
    fn a_fall_is_paid_apart_and_a_transform_starts_full() {
        let speed = 20.0;
        let mut b = budget();
        let key = (VehicleEpoch(0), Revision(0));
        b.admit((Vec3::ZERO, Vec3::ZERO), S(0), speed, key)
            .expect("still");
        // 2 s of a free fall, faster than the model drives.
        let mut z = 500.0;
        for i in 1..=62u64 {
            let next = z - 80.0 / 31.0;
            let at = S(i * 1000 / 31);
            assert!(
                b.admit(
                    (Vec3::new(0.0, 0.0, z), Vec3::new(0.0, 0.0, next)),
                    at,
                    speed,
                    key
                )
                .is_ok()
            );
            z = next;
        }
        let far = Vec3::new(8000.0, 0.0, 0.0);
        assert_eq!(
            b.admit((Vec3::ZERO, far), S(2100), speed, key),
            Err(MotionDrop::Travel)
        );
        assert!(
            b.admit(
                (far, Vec3::new(8001.0, 0.0, 0.0)),
                S(2100),
                speed,
                (VehicleEpoch(0), Revision(1))
            )
            .is_ok(),
            "after a transform the budget starts again"
        );
    }
}
