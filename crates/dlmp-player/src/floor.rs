//! The hold on spawn and respawn grants (world.md ObjectState, "Ordering around spawns"):
//! SpawnPlayer (0x2A) and RespawnPlayer (0x0D) travel outside the reliable queue, so the
//! server holds a grant until everything at the point that travels in the queue (the
//! objects there) is queued and acknowledged, then sends it on its own. The grant asks
//! [`GrantFloor::hold`]; the feature that delivers the floor (the world's
//! objects) fills [`GrantFloor::probe`] with what it would stream at a
//! point, and marks the players whose floor is ready. Without that feature the probe is
//! empty and no grant waits.

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;

use dlmp_core::streaming::engine::{Decision, Engine, Everyone, Rules, Viewpoint};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::PlayerId;

/// Where a grant lands: the point and its scope (virtual world, interior).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LandingPoint {
    pub position: Vec3,
    pub virtual_world: u32,
    pub interior: u8,
}

/// The grants held for their floor, and what the floor's feature reports.
#[derive(Resource, Debug, Clone)]
pub struct GrantFloor {
    /// What the floor's kind streams from a point (for objects: the free chains with
    /// their stream distances, viewers and weights), decided by the same engine and
    /// [`rules`](Self::rules) as its own pass, so a point is held exactly when something
    /// would be shown there. Rebuilt by the kind whenever its own index is.
    pub probe: Engine,
    pub rules: Rules,
    /// Grants held now, by player, and where they land.
    pub waiting: EntityHashMap<LandingPoint>,
    /// Players whose floor at this point is queued and acknowledged.
    pub ready: EntityHashMap<LandingPoint>,
    decision: Decision,
}

impl Default for GrantFloor {
    fn default() -> Self {
        GrantFloor {
            probe: Engine::new(1.0),
            rules: Rules {
                distances: None,
                cap: None,
            },
            waiting: EntityHashMap::default(),
            ready: EntityHashMap::default(),
            decision: Decision::default(),
        }
    }
}

impl GrantFloor {
    /// Whether something of the floor's kind would be shown to `player` at `point`.
    pub fn occupied_near(&mut self, player: PlayerId, point: &LandingPoint) -> bool {
        if self.probe.is_empty() {
            return false;
        }
        let view = Viewpoint::at(
            player,
            (point.virtual_world, point.interior),
            point.position,
        );
        self.probe
            .decide(&self.rules, &view, &[], &Everyone, &mut self.decision);
        !self.decision.shows.is_empty()
    }

    /// Whether the grant of `player` (entity `entity`) at `point` must wait now. A ready
    /// floor at that point lets it go (once); a point where nothing would be shown never
    /// holds it.
    pub fn hold(&mut self, entity: Entity, player: PlayerId, point: LandingPoint) -> bool {
        if self.ready.get(&entity) == Some(&point) || !self.occupied_near(player, &point) {
            self.ready.remove(&entity);
            self.waiting.remove(&entity);
            return false;
        }
        self.waiting.insert(entity, point);
        true
    }
}
