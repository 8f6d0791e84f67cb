//! Fixture values for editing.md.

use super::*;
use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::world::shared::EntityRev;

/// A session with the free camera and the pick flag, objects and pickups editable, an
/// object selected.
pub fn edit_state() -> EditState {
    EditState {
        event_id: EventId(412),
        session: EditSessionId(7),
        flags: EditFlags(EditFlags::FREE_CAMERA | EditFlags::PICK),
        kinds: EditKinds(0).with(EditKind::Object).with(EditKind::Pickup),
        anchor: Vec3::new(1544.0, -1675.5, 13.5),
        range: 300.0,
        selected_kind: EditKind::Object,
        selected_id: 88_123,
        selected_rev: EntityRev(8),
        reason: EditEndReason::Gamemode,
    }
}

/// The end of a session by the player's death.
pub fn edit_state_end() -> EditState {
    EditState::end(EventId(431), EditEndReason::Death)
}

/// A commit of an object: moved by half a meter and turned a quarter.
pub fn entity_edit() -> EntityEdit {
    EntityEdit {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(64),
        session: EditSessionId(7),
        action: EditAction::Commit,
        kind: EditKind::Object,
        entity_id: 88_123,
        rev: EntityRev(8),
        a: Vec3::new(1588.5, -1638.75, 15.0),
        b: [0.0, 0.0, 180.0, 0.0],
    }
}

/// The player ends its session.
pub fn entity_edit_leave() -> EntityEdit {
    EntityEdit {
        event_id: EventId(65),
        ..EntityEdit::leave(SessionToken(0x8F3A_11C0_7D2E_9B45), EditSessionId(7))
    }
}

/// The free camera above the anchor, looking north.
pub fn edit_camera() -> EditCamera {
    EditCamera {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        session: EditSessionId(7),
        seq: Seq(33),
        pos: Vec3::new(1544.0, -1690.0, 40.25),
        front: Vec3::new(0.0, 0.8, -0.6),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("edit_state.bin", edit_state()),
        sample("edit_state_end.bin", edit_state_end()),
        sample("entity_edit.bin", entity_edit()),
        sample("entity_edit_leave.bin", entity_edit_leave()),
        sample("edit_camera.bin", edit_camera()),
    ]
}
