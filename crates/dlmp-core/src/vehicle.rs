//! What the player side reads of a vehicle (vehicles.md): its id index, its pose and
//! life, and the seat a player holds. The vehicle feature writes all of them; the player's
//! features (frames, shots, physics, control, animations) only read them, so they need not
//! know the vehicle feature, which is built above them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bevy_ecs::prelude::*;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{VehicleEpoch, VehicleId};

/// The kind of the scripts' vehicle handle (`Vehicle` in lua-api.md): a crate below the
/// vehicle feature names a vehicle to a handler by this kind and its id, and the vehicle
/// feature, which registers the handle, makes it (ADR 0134).
pub const VEHICLE_HANDLE: &str = "Vehicle";

/// The server's pose: the last accepted frame's, or the gamemode's (VehicleTransform).
/// It drives streaming, a show to a new recipient and the Lua reads.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub position: Vec3,
    /// Unit quaternion x, y, z, w (axes: x right, y forward, z up), as VehicleState.rot.
    pub rotation: [f32; 4],
    /// Game units per physics step.
    pub velocity: Vec3,
    /// Radians per physics step.
    pub turn_velocity: Vec3,
}

impl Pose {
    /// Standing level at `position`, facing `heading_deg` (0 = north, counter-clockwise,
    /// the game's heading), still.
    pub fn level(position: Vec3, heading_deg: f32) -> Self {
        let half = heading_deg.to_radians() / 2.0;
        Pose {
            position,
            rotation: [0.0, 0.0, half.sin(), half.cos()],
            velocity: Vec3::ZERO,
            turn_velocity: Vec3::ZERO,
        }
    }

    /// The heading, degrees 0..360 (a show's `heading`): where the vehicle's forward axis
    /// (y) points on the ground, so a car on its roof or its side faces where it faced.
    /// Nose up or down, its right axis (x) tells instead.
    pub fn heading(&self) -> f32 {
        let [x, y, z, w] = self.rotation;
        // The forward axis turned by the rotation, on the ground plane.
        let (fx, fy) = (2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z));
        let yaw = if fx * fx + fy * fy > 1e-6 {
            (-fx).atan2(fy)
        } else {
            let (rx, ry) = (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z));
            ry.atan2(rx)
        };
        let deg = yaw.to_degrees();
        if deg.is_finite() {
            deg.rem_euclid(360.0)
        } else {
            0.0
        }
    }
}

/// The vehicle's life: its generation and whether it is a wreck.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Life {
    /// Grows on every respawn.
    pub epoch: VehicleEpoch,
    pub wrecked: bool,
    /// Sunk (only with `wrecked`): looks intact, never explodes.
    pub drowned: bool,
}

/// On a player: the seat it holds (inserted on seating, removed when the seat is freed).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seated {
    pub vehicle: Entity,
    pub id: VehicleId,
    pub seat: u8,
}

/// The vehicle ids of this run and the entity of each.
#[derive(Resource, Debug, Default)]
pub struct Vehicles {
    /// The last id handed out; shared with the scripts' view, which takes ids from it too.
    last: Arc<AtomicU32>,
    by_id: HashMap<VehicleId, Entity>,
    /// Something changed that the scripts' view does not know yet.
    pub changed: bool,
}

impl Vehicles {
    /// A new id, never handed out before in this run; `None` once the ids ran out.
    pub fn reserve(&self) -> Option<VehicleId> {
        reserve(&self.last)
    }

    pub fn entity(&self, id: VehicleId) -> Option<Entity> {
        self.by_id.get(&id).copied()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Every vehicle id with its entity, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (VehicleId, Entity)> + '_ {
        self.by_id.iter().map(|(id, e)| (*id, *e))
    }

    pub fn counter(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.last)
    }

    pub fn adopt_counter(&mut self, counter: &Arc<AtomicU32>) {
        let taken = counter.load(Ordering::Relaxed);
        self.last.fetch_max(taken, Ordering::Relaxed);
    }

    pub fn insert(&mut self, id: VehicleId, entity: Entity) {
        self.by_id.insert(id, entity);
        self.changed = true;
    }

    pub fn remove(&mut self, id: VehicleId) -> Option<Entity> {
        self.changed = true;
        self.by_id.remove(&id)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(Entity) -> bool) {
        self.by_id.retain(|_, e| keep(*e));
        self.changed = true;
    }
}

/// Ids start at 1; [`VehicleId::NONE`] is never handed out.
pub fn reserve(last: &AtomicU32) -> Option<VehicleId> {
    last.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
        n.checked_add(1).filter(|&n| n < VehicleId::NONE.0)
    })
    .ok()
    .map(|n| VehicleId(n + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_pose_turns_back_into_its_heading() {
        for h in [0.0f32, 45.0, 90.0, 180.0, 270.0, 359.0] {
            let got = Pose::level(Vec3::ZERO, h).heading();
            assert!((got - h).abs() < 1e-3, "{h}: {got}");
        }
    }

    #[test]
    fn on_its_roof_or_nose_down_a_vehicle_keeps_its_heading() {
        for h in [0.0f32, 60.0, 135.0, 250.0] {
            let [_, _, z, w] = Pose::level(Vec3::ZERO, h).rotation;
            // Then half a turn about its forward axis (y), or a quarter about its right
            // axis (x): q_yaw · q.
            let s = core::f32::consts::FRAC_1_SQRT_2;
            for [qx, qy, qz, qw] in [[0.0, 1.0, 0.0, 0.0], [s, 0.0, 0.0, s]] {
                let pose = Pose {
                    rotation: [
                        w * qx - z * qy,
                        w * qy + z * qx,
                        w * qz + z * qw,
                        w * qw - z * qz,
                    ],
                    ..Pose::level(Vec3::ZERO, 0.0)
                };
                let got = pose.heading();
                let off = (got - h).rem_euclid(360.0);
                assert!(off.min(360.0 - off) < 1e-2, "{h}: {got}");
            }
        }
    }
}
