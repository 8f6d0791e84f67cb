//! A player's look and styles (player.md): weapon skills, skin, walking and fighting
//! styles, the hidden head.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, PlayerId, PlayerToken};
use crate::wire::Validate;
use crate::{packet, wire_enum, wire_newtype};

/// The highest weapon skill (player.md, PlayerSkills).
pub const MAX_SKILL: u16 = 1000;

packet! {
    /// PlayerSkills (0x10), Server → Client, reliable: a full snapshot of a player's weapon
    /// skills, to the subject and the players it is shown to.
    pub struct PlayerSkills = 0x10, ServerToClient {
        pub id: PlayerId,
        /// Never 0 (connection.md §5).
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// 0..=[`MAX_SKILL`] each; slot 0 pistol .. 10 country and sniper rifle (player.md,
        /// the slot table).
        pub skills: [u16; 11],
    }
}

impl Validate for PlayerSkills {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)?;
        self.skills
            .iter()
            .try_for_each(|&s| check::range("skills", s, 0..=MAX_SKILL))
    }
}

packet! {
    /// SetSkin (0x20), Server → Client, reliable: the model and look of the recipient's own
    /// player. The model is checked against the server's catalog, not here.
    pub struct SetSkin = 0x20, ServerToClient {
        pub event_id: EventId,
        /// Player model id; 0 is the default character (its variant is ignored).
        pub model: u32,
        /// Appearance variation, opaque, >= 1: 0 would let every client pick its own.
        pub variant: u16,
    }
}

impl Validate for SetSkin {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("variant", self.variant, 1..=u16::MAX)
    }
}

wire_newtype! {
    /// A walking style id (player.md, SetWalkingStyle): 0 default, 54..=70 player and
    /// weapon gaits, 118..=138 walking styles; see [`WalkingStyle::is_known`].
    pub struct WalkingStyle(u8);
}

impl WalkingStyle {
    pub const DEFAULT: WalkingStyle = WalkingStyle(0);

    /// Whether the id is on the page's allowlist.
    pub fn is_known(self) -> bool {
        matches!(self.0, 0 | 54..=70 | 118..=138)
    }
}

packet! {
    /// SetWalkingStyle (0x2D), Server → Client, reliable: the walk, run and sprint
    /// animations of the recipient's own player. Stored; stamped into
    /// RemotePlayerSync.walk_style.
    pub struct SetWalkingStyle = 0x2D, ServerToClient {
        pub event_id: EventId,
        /// An id on the allowlist ([`WalkingStyle::is_known`]); others fail decoding.
        pub style: WalkingStyle,
    }
}

impl Validate for SetWalkingStyle {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(
            self.style.is_known(),
            "style",
            Rule::UnknownValue(u64::from(self.style.0)),
        )
    }
}

wire_enum! {
    /// The combo set of unarmed and brass-knuckle attacks (player.md, SetFightingStyle);
    /// 8..=14 are melee weapons' sets, not styles.
    #[derive(Default)]
    pub enum FightingStyle: u8 {
        Normal = 4,
        Boxing = 5,
        KungFu = 6,
        KneeHead = 7,
        /// A new connection's style.
        #[default]
        GrabKick = 15,
        Elbow = 16,
    }
}

packet! {
    /// SetFightingStyle (0x56), Server → Client, reliable: the fighting style of the
    /// recipient's own player, from its next combo. Stored; stamped into
    /// RemotePlayerSync.fight_style.
    pub struct SetFightingStyle = 0x56, ServerToClient {
        pub event_id: EventId,
        pub style: FightingStyle,
    }
}

impl Validate for SetFightingStyle {}

packet! {
    /// SetHeadless (0x57), Server → Client, reliable: hides or shows the head of the
    /// recipient's own player. Stored; stamped into RemotePlayerSync.headless; a respawn
    /// grant clears it.
    pub struct SetHeadless = 0x57, ServerToClient {
        pub event_id: EventId,
        /// true: head hidden.
        pub headless: bool,
    }
}

impl Validate for SetHeadless {}
