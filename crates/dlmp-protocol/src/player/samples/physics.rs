//! Fixture values for the physics family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::player::physics::*;
use crate::sample::{Sample, sample};

pub fn set_velocity() -> SetVelocity {
    SetVelocity {
        event_id: EventId(140),
        vel: Vec3::new(0.35, -0.6, 0.4),
        life: 3,
        rev: Revision(17),
    }
}

pub fn set_gravity() -> SetGravity {
    SetGravity {
        event_id: EventId(141),
        gravity: 0.004,
        rev: Revision(18),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("set_velocity.bin", set_velocity()),
        sample("set_gravity.bin", set_gravity()),
    ]
}
