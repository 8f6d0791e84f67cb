//! EntityEdit (editing.md §2): the editor's select, drag update, commit, cancel and leave.
//! The decoder holds each pose to the ranges its kind allows; the server checks the rest
//! (the selection, the revision, the gamemode's own rules for the kind, the range).

use super::state::{EditKind, EditSessionId, NO_ENTITY, zero, zero3};
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, SessionToken};
use crate::wire::Validate;
use crate::world::object::ROTATION_MAX;
use crate::world::pickup::PICKUP_XY;
use crate::world::shared::{EntityRev, WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN, in_world};
use crate::{packet, wire_enum};

/// The largest |value| of a colshape's `b` (radius, height or a box corner), m.
pub const COLSHAPE_B_MAX: f32 = 12_000.0;

wire_enum! {
    /// What an EntityEdit asks.
    #[derive(Default)]
    pub enum EditAction: u8 {
        /// Pick the entity: answered with EditState.
        #[default]
        Select = 0,
        /// The pose while dragging: nothing is applied; the gamemode hears it.
        Update = 1,
        /// Apply the pose at the revision the edit starts from.
        Commit = 2,
        /// Release the selection; the client returned its copy itself.
        Cancel = 3,
        /// End the session.
        Leave = 4,
    }
}

impl EditAction {
    /// The name scripts see in `entity_edit`.
    pub fn name(self) -> &'static str {
        match self {
            EditAction::Select => "select",
            EditAction::Update => "update",
            EditAction::Commit => "commit",
            EditAction::Cancel => "cancel",
            EditAction::Leave => "leave",
        }
    }
}

packet! {
    /// EntityEdit (0x75), Client → Server, reliable (the ClientChat stream): a request of
    /// the edit session's player. The pose is by kind: object a = x, y, z, b = rx, ry, rz,
    /// 0; pickup and label a = x, y, z, b = 0; gang zone a = min_x, min_y, 0, b = max_x,
    /// max_y, 0, 0; colshape a and b as ColshapeShape, `b[3]` = 0. Zeros with select,
    /// cancel and leave.
    pub struct EntityEdit = 0x75, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The session id from EditState.
        pub session: EditSessionId,
        pub action: EditAction,
        /// 1 object, 2 pickup, 3 label, 4 gang zone, 5 colshape; 0 with leave.
        pub kind: EditKind,
        /// The entity; 0xFFFFFFFF with leave.
        pub entity_id: u32,
        /// The revision the edit starts from; 0 with leave.
        pub rev: EntityRev,
        /// The pose's first part, by kind.
        pub a: Vec3,
        /// The pose's second part, by kind.
        pub b: [f32; 4],
    }
}

fn zero_b(b: &[f32; 4], from: usize) -> Result<(), FieldError> {
    check::ensure(b[from..].iter().all(|v| zero(*v)), "b", Rule::Reserved)
}

/// Both parts of the pose are zeros (select, cancel, leave).
fn no_pose(a: &Vec3, b: &[f32; 4]) -> Result<(), FieldError> {
    check::ensure(zero3(a), "a", Rule::Reserved)?;
    zero_b(b, 0)
}

impl Validate for EntityEdit {
    fn validate(&self) -> Result<(), FieldError> {
        match self.action {
            EditAction::Leave => {
                check::ensure(self.kind == EditKind::None, "kind", Rule::Reserved)?;
                check::ensure(self.entity_id == NO_ENTITY, "entity_id", Rule::Reserved)?;
                check::ensure(self.rev.0 == 0, "rev", Rule::Reserved)?;
                return no_pose(&self.a, &self.b);
            }
            _ if self.kind == EditKind::None => {
                return Err(FieldError::new("kind", Rule::Combination));
            }
            EditAction::Select | EditAction::Cancel => return no_pose(&self.a, &self.b),
            EditAction::Update | EditAction::Commit => {}
        }
        let (a, b) = (&self.a, &self.b);
        match self.kind {
            EditKind::Object => {
                in_world("a", a)?;
                check::ensure(
                    b[..3].iter().all(|r| r.abs() <= ROTATION_MAX),
                    "b",
                    Rule::OutOfRange,
                )?;
                zero_b(b, 3)
            }
            EditKind::Pickup => {
                check::ensure(
                    a.x.abs() <= PICKUP_XY
                        && a.y.abs() <= PICKUP_XY
                        && (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&a.z),
                    "a",
                    Rule::OutOfRange,
                )?;
                zero_b(b, 0)
            }
            EditKind::Label => {
                in_world("a", a)?;
                zero_b(b, 0)
            }
            EditKind::GangZone => {
                check::ensure(zero(a.z), "a", Rule::Reserved)?;
                zero_b(b, 2)?;
                let corners = [a.x, a.y, b[0], b[1]];
                check::ensure(
                    corners.iter().all(|c| c.abs() <= WORLD_XY),
                    "b",
                    Rule::OutOfRange,
                )?;
                check::ensure(a.x < b[0] && a.y < b[1], "b", Rule::Combination)
            }
            EditKind::Colshape => {
                in_world("a", a)?;
                check::ensure(
                    b[..3].iter().all(|v| v.abs() <= COLSHAPE_B_MAX),
                    "b",
                    Rule::OutOfRange,
                )?;
                zero_b(b, 3)
            }
            EditKind::None => Ok(()),
        }
    }
}

impl EntityEdit {
    /// The pose as a request without one carries it (select, cancel): zeros.
    pub const NO_POSE: (Vec3, [f32; 4]) = (Vec3::ZERO, [0.0; 4]);

    /// The leave of session `session`, with everything else as the page fixes it.
    pub fn leave(session_token: SessionToken, session: EditSessionId) -> Self {
        EntityEdit {
            session_token,
            event_id: EventId(0),
            session,
            action: EditAction::Leave,
            kind: EditKind::None,
            entity_id: NO_ENTITY,
            rev: EntityRev(0),
            a: Vec3::ZERO,
            b: [0.0; 4],
        }
    }
}
