//! Fixture values for the explosion family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::weapons::explosion::*;

/// The gamemode blows up a barrel player 12 shot at the Ocean Docks.
pub fn create_explosion() -> CreateExplosion {
    CreateExplosion {
        event_id: EventId(6_040),
        center: Vec3::new(2762.25, -2436.5, 13.75),
        kind: ExplosionType::Object,
        radius: 6.0,
        flags: 0,
        has_creator: true,
        creator_id: PlayerId(12),
        creator_token: PlayerToken(57),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![sample("create_explosion.bin", create_explosion())]
}
