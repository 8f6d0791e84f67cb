//! Fixture values for the pickup family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::world::pickup::*;
use crate::world::shared::EntityRev;

/// A health pickup on Grove Street.
pub fn pickup_sync() -> PickupSync {
    PickupSync {
        event_id: EventId(118),
        pickup_id: PickupId(42),
        active: true,
        model: 1240,
        pos: Vec3::new(2495.25, -1687.5, 13.5),
        scale: 1.0,
        highlight: true,
        rev: EntityRev(3),
    }
}

pub fn pickup_touch() -> PickupTouch {
    PickupTouch {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(27),
        pickup_id: PickupId(42),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("pickup_sync.bin", pickup_sync()),
        sample("pickup_touch.bin", pickup_touch()),
    ]
}
