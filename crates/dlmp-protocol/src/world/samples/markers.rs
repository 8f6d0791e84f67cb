//! Fixture values for the marker family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::world::markers::*;
use crate::world::shared::{AttachKind, EntityRev, MarkerId};

/// A race checkpoint pointing at the next one.
pub fn checkpoint() -> Checkpoint {
    Checkpoint {
        event_id: EventId(202),
        checkpoint_id: MarkerId(1008),
        active: true,
        kind: CheckpointKind::Race,
        pos: Vec3::new(2060.5, -1920.0, 13.25),
        next: Vec3::new(2124.0, -1890.5, 13.25),
        radius: 8.0,
        color: 0xFF_3030,
    }
}

/// A pulsing dot on a vehicle.
pub fn blip() -> Blip {
    Blip {
        event_id: EventId(203),
        blip_id: MarkerId(1009),
        active: true,
        sprite: 0,
        color: 0x00_A0FF,
        pos: Vec3::new(-2033.75, 156.25, 28.75),
        attach_kind: AttachKind::Vehicle,
        attach_id: 512,
        size: 1.5,
        flags: BlipFlags::PULSE,
    }
}

/// A flashing turf around Grove Street.
pub fn gang_zone() -> GangZone {
    GangZone {
        event_id: EventId(204),
        zone_id: MarkerId(1010),
        active: true,
        flashing: true,
        color: 0x80_00FF,
        alpha: 160,
        flash_color: 0xFF_0000,
        min_x: 2390.0,
        min_y: -1760.0,
        max_x: 2540.0,
        max_y: -1620.0,
        rev: EntityRev(5),
    }
}

/// A cylinder at the hospital entrance.
pub fn colshape_shape() -> ColshapeShape {
    ColshapeShape::show(
        EventId(205),
        ColshapeId(17),
        Shape::Cylinder {
            base: Vec3::new(1544.0, -1675.5, 13.0),
            radius: 6.5,
            height: 4.0,
        },
        EntityRev(2),
    )
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("checkpoint.bin", checkpoint()),
        sample("blip.bin", blip()),
        sample("gang_zone.bin", gang_zone()),
        sample("colshape_shape.bin", colshape_shape()),
    ]
}
