//! 3D text labels (world.md Label3D).

use super::shared::{self, AttachKind, MarkerId};
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::EventId;
use crate::packet;
use crate::text::FixedText;
use crate::wire::Validate;

/// The farthest a label is drawn, in meters.
pub const LABEL_DRAW_MAX: f32 = 300.0;
/// Bytes of a label's text field; the text itself is at most one less (NUL-terminated).
pub const LABEL_TEXT: usize = 256;

packet! {
    /// Label3D (0x66), Server → Client, reliable, per player: shows or replaces a 3D text
    /// label (active = 1), or hides it (active = 0, only `label_id` matters).
    pub struct Label3D = 0x66, ServerToClient {
        pub event_id: EventId,
        /// Shared counter with Checkpoint, Blip and GangZone.
        pub label_id: MarkerId,
        pub active: bool,
        /// 0xRRGGBB.
        pub color: u32,
        /// Position within world bounds; when attached, the offset from the entity.
        pub pos: Vec3,
        /// Meters, (0, 300]; the client hides the label farther away.
        pub draw_distance: f32,
        pub attach_kind: AttachKind,
        /// A player id or vehicle id, by `attach_kind`.
        pub attach_id: u32,
        /// UTF-8, NUL-terminated (at most 255 bytes); `\n` breaks the line.
        pub text: FixedText<LABEL_TEXT>,
    }
}

impl Validate for Label3D {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.text.len() < LABEL_TEXT, "text", Rule::BadText)?;
        if !self.active {
            return Ok(());
        }
        shared::rgb("color", self.color)?;
        shared::in_world("pos", &self.pos)?;
        check::ensure(
            self.draw_distance > 0.0 && self.draw_distance <= LABEL_DRAW_MAX,
            "draw_distance",
            Rule::OutOfRange,
        )
    }
}

impl Label3D {
    /// The hide of `label_id`: active = 0, the other fields zero and the text empty.
    pub fn hide(event_id: EventId, label_id: MarkerId) -> Self {
        Label3D {
            event_id,
            label_id,
            active: false,
            color: 0,
            pos: Vec3::ZERO,
            draw_distance: 0.0,
            attach_kind: AttachKind::None,
            attach_id: 0,
            text: FixedText::EMPTY,
        }
    }
}
