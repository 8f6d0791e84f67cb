//! The hold on spawn and respawn grants (world.md ObjectState, "Ordering around spawns"):
//! SpawnPlayer (0x2A) and RespawnPlayer (0x0D) travel outside the reliable queue, so the
//! server holds a grant until everything at the point that travels in the queue (the
//! objects there) is queued and acknowledged, then sends it on its own. The grant asks
//! [`GrantFloor::hold`]; the feature that delivers the floor (objects, in
//! `crate::world::object`) marks the occupied area and the players whose floor is ready.
//! Without that feature nothing is occupied and no grant waits.

use std::collections::HashSet;

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;

use crate::protocol::geometry::Vec3;

/// Where a grant lands: the point and its scope (virtual world, interior).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LandingPoint {
    pub position: Vec3,
    pub virtual_world: u32,
    pub interior: u8,
}

/// The grants held for their floor, and what the floor's feature reports.
#[derive(Resource, Debug, Clone, Default)]
pub struct GrantFloor {
    /// The edge of the occupied cells, m (the largest stream distance of the floor's
    /// kind); 0 = nothing occupied.
    pub cell: f32,
    /// (virtual world, interior, cell x, cell y) holding something that could be shown at
    /// a point within one cell.
    pub occupied: HashSet<(u32, u8, i32, i32)>,
    /// Grants held now, by player, and where they land.
    pub waiting: EntityHashMap<LandingPoint>,
    /// Players whose floor at this point is queued and acknowledged.
    pub ready: EntityHashMap<LandingPoint>,
}

impl GrantFloor {
    /// The cell of `x, y`.
    pub fn cell_of(&self, x: f32, y: f32) -> (i32, i32) {
        (
            (x / self.cell).floor() as i32,
            (y / self.cell).floor() as i32,
        )
    }

    /// Whether something of the floor's kind may be shown at `point`.
    pub fn occupied_near(&self, point: &LandingPoint) -> bool {
        if self.cell <= 0.0 || self.occupied.is_empty() {
            return false;
        }
        let (cx, cy) = self.cell_of(point.position.x, point.position.y);
        (-1..=1).any(|dx| {
            (-1..=1).any(|dy| {
                self.occupied
                    .contains(&(point.virtual_world, point.interior, cx + dx, cy + dy))
            })
        })
    }

    /// Whether the grant of `player` at `point` must wait now. A ready floor at that point
    /// lets it go (once); an area with nothing to deliver never holds it.
    pub fn hold(&mut self, player: Entity, point: LandingPoint) -> bool {
        if self.ready.get(&player) == Some(&point) || !self.occupied_near(&point) {
            self.ready.remove(&player);
            self.waiting.remove(&player);
            return false;
        }
        self.waiting.insert(player, point);
        true
    }
}
