//! EditState (editing.md §2): the recipient's own edit session, its selection and its end.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::EventId;
use crate::wire::Validate;
use crate::world::shared::{EntityRev, in_world};
use crate::{packet, wire_enum, wire_newtype};

wire_newtype! {
    /// An edit session's id: a server-wide counter from 1, never reused; 0 = no session.
    pub struct EditSessionId(u32);
    /// EditState `flags`: bit 0 the free camera, bit 1 the player may pick entities.
    pub struct EditFlags(u8);
    /// EditState `kinds`: bit k set = kind k ([`EditKind`]) may be edited.
    pub struct EditKinds(u8);
}

impl EditSessionId {
    /// No session: an EditState carrying it ends the current one.
    pub const NONE: EditSessionId = EditSessionId(0);
}

impl EditFlags {
    /// The free camera (SetCamera mode 3 follows).
    pub const FREE_CAMERA: u8 = 1;
    /// The player may pick entities (EntityEdit select).
    pub const PICK: u8 = 1 << 1;
    /// Every bit the page defines.
    pub const ALL: u8 = Self::FREE_CAMERA | Self::PICK;

    pub fn free_camera(self) -> bool {
        self.0 & Self::FREE_CAMERA != 0
    }

    pub fn pick(self) -> bool {
        self.0 & Self::PICK != 0
    }
}

impl EditKinds {
    /// Every kind (bits 1..=5).
    pub const ALL: EditKinds = EditKinds(0b0011_1110);

    /// Whether `kind` may be edited; never [`EditKind::None`].
    pub fn contains(self, kind: EditKind) -> bool {
        kind != EditKind::None && self.0 & kind.bit() != 0
    }

    /// `self` with `kind` added.
    #[must_use]
    pub fn with(self, kind: EditKind) -> Self {
        EditKinds(self.0 | kind.bit())
    }
}

wire_enum! {
    /// The editable kinds (editing.md §1, "Editable kinds"); `None` = nothing selected, or
    /// a leave.
    #[derive(Default, PartialOrd, Ord)]
    pub enum EditKind: u8 {
        #[default]
        None = 0,
        Object = 1,
        Pickup = 2,
        Label = 3,
        GangZone = 4,
        Colshape = 5,
    }
}

impl EditKind {
    /// The kind's bit in [`EditKinds`]; 0 for `None`.
    pub fn bit(self) -> u8 {
        match self {
            EditKind::None => 0,
            k => 1 << k.to_repr(),
        }
    }

    /// The name scripts use ("object", "pickup", "label", "zone", "colshape").
    pub fn name(self) -> &'static str {
        match self {
            EditKind::None => "none",
            EditKind::Object => "object",
            EditKind::Pickup => "pickup",
            EditKind::Label => "label",
            EditKind::GangZone => "zone",
            EditKind::Colshape => "colshape",
        }
    }

    /// The kind a script names.
    pub fn from_name(name: &str) -> Option<Self> {
        EditKind::ALL
            .iter()
            .copied()
            .find(|k| *k != EditKind::None && k.name() == name)
    }
}

wire_enum! {
    /// Why a session ended (EditState `reason` with session = 0).
    #[derive(Default)]
    pub enum EditEndReason: u8 {
        /// `dlmp.stop_edit`; also the value of every EditState that does not end a session.
        #[default]
        Gamemode = 0,
        /// EntityEdit leave.
        Player = 1,
        /// The server committed the player's death.
        Death = 2,
        /// A change of the player's virtual world or interior.
        Scope = 3,
        /// The resource that started the session stopped.
        Resource = 4,
    }
}

impl EditEndReason {
    /// The name `edit_end` hands to scripts.
    pub fn name(self) -> &'static str {
        match self {
            EditEndReason::Gamemode => "gamemode",
            EditEndReason::Player => "player",
            EditEndReason::Death => "death",
            EditEndReason::Scope => "scope",
            EditEndReason::Resource => "resource",
        }
    }
}

/// The smallest range of a session, m.
pub const RANGE_MIN: f32 = 1.0;
/// The largest range of a session, m.
pub const RANGE_MAX: f32 = 12_000.0;
/// `selected_id` with nothing selected (and EntityEdit `entity_id` with leave).
pub const NO_ENTITY: u32 = u32::MAX;

packet! {
    /// EditState (0x74), Server → Client, reliable, critical: the recipient's own edit
    /// session (no subject id): sent at its start, on every change of the selection (and
    /// as the answer to every select), after each change of a selected label, and at its
    /// end (session = 0).
    pub struct EditState = 0x74, ServerToClient {
        pub event_id: EventId,
        /// The session id; 0 = no session: this packet ends it.
        pub session: EditSessionId,
        /// Bit 0 free camera (SetCamera mode 3 follows), bit 1 the player may pick.
        pub flags: EditFlags,
        /// Bit k set = kind k may be edited (1 object, 2 pickup, 3 label, 4 gang zone,
        /// 5 colshape); never 0 in a session.
        pub kinds: EditKinds,
        /// Center of the session's range, within world bounds.
        pub anchor: Vec3,
        /// Meters, 1..=12000: edited poses and the free camera stay within it of anchor.
        pub range: f32,
        /// 0 = nothing selected, else a kind in `kinds`.
        pub selected_kind: EditKind,
        /// The selected entity's id; 0xFFFFFFFF = none.
        pub selected_id: u32,
        /// The selected entity's revision now; 0 with nothing selected.
        pub selected_rev: EntityRev,
        /// With session = 0: why it ended; otherwise 0.
        pub reason: EditEndReason,
    }
}

/// Bit-exact zero: the page's "zero" fields are zero bytes.
pub(crate) fn zero(v: f32) -> bool {
    v.to_bits() == 0
}

pub(crate) fn zero3(v: &Vec3) -> bool {
    zero(v.x) && zero(v.y) && zero(v.z)
}

impl Validate for EditState {
    fn validate(&self) -> Result<(), FieldError> {
        check::bits_within("flags", self.flags.0, EditFlags::ALL)?;
        check::bits_within("kinds", self.kinds.0, EditKinds::ALL.0)?;
        if self.session == EditSessionId::NONE {
            check::ensure(self.flags.0 == 0, "flags", Rule::Reserved)?;
            check::ensure(self.kinds.0 == 0, "kinds", Rule::Reserved)?;
            check::ensure(zero3(&self.anchor), "anchor", Rule::Reserved)?;
            check::ensure(zero(self.range), "range", Rule::Reserved)?;
            check::ensure(
                self.selected_kind == EditKind::None,
                "selected_kind",
                Rule::Reserved,
            )?;
            check::ensure(self.selected_id == NO_ENTITY, "selected_id", Rule::Reserved)?;
            return check::ensure(self.selected_rev.0 == 0, "selected_rev", Rule::Reserved);
        }
        check::ensure(self.kinds.0 != 0, "kinds", Rule::Combination)?;
        in_world("anchor", &self.anchor)?;
        check::range("range", self.range, RANGE_MIN..=RANGE_MAX)?;
        if self.selected_kind == EditKind::None {
            check::ensure(
                self.selected_id == NO_ENTITY,
                "selected_id",
                Rule::Combination,
            )?;
            check::ensure(self.selected_rev.0 == 0, "selected_rev", Rule::Combination)?;
        } else {
            check::ensure(
                self.kinds.contains(self.selected_kind),
                "selected_kind",
                Rule::Combination,
            )?;
            check::ensure(
                self.selected_id != NO_ENTITY,
                "selected_id",
                Rule::Combination,
            )?;
        }
        check::ensure(
            self.reason == EditEndReason::Gamemode,
            "reason",
            Rule::Reserved,
        )
    }
}

impl EditState {
    /// The end of the recipient's session: session 0 and `reason`, every other field as
    /// the page fixes it.
    pub fn end(event_id: EventId, reason: EditEndReason) -> Self {
        EditState {
            event_id,
            session: EditSessionId::NONE,
            flags: EditFlags(0),
            kinds: EditKinds(0),
            anchor: Vec3::ZERO,
            range: 0.0,
            selected_kind: EditKind::None,
            selected_id: NO_ENTITY,
            selected_rev: EntityRev(0),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_names_match_the_page() {
        assert_eq!(EditKind::Object.bit(), 0b10);
        assert_eq!(EditKind::Colshape.bit(), 0b10_0000);
        assert!(EditKinds::ALL.contains(EditKind::GangZone));
        assert!(!EditKinds::ALL.contains(EditKind::None));
        assert_eq!(EditKind::from_name("zone"), Some(EditKind::GangZone));
        assert_eq!(EditKind::from_name("none"), None);
        assert_eq!(EditEndReason::Scope.name(), "scope");
    }
}
