//! Fixture values for the label family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::text::FixedText;
use crate::world::label::*;
use crate::world::shared::{AttachKind, MarkerId};

/// A two-line label at the city hall's door.
pub fn label_3d() -> Label3D {
    Label3D {
        event_id: EventId(201),
        label_id: MarkerId(1007),
        active: true,
        color: 0xFF_D700,
        pos: Vec3::new(1481.25, -1771.5, 18.75),
        draw_distance: 25.0,
        attach_kind: AttachKind::None,
        attach_id: 0,
        text: FixedText::new("City Hall\nPress Y to enter").expect("a valid label"),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![sample("label_3d.bin", label_3d())]
}
