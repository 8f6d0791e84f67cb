//! Who is connected (connection.md §4): the nametag of a shown player, joins and leaves.
//! PlayerJoin and PlayerLeave go to everyone and are critical.

use super::chat::Color;
use super::handshake::{LeaveReason, check_name};
use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, PlayerId, PlayerToken};
use crate::packet;
use crate::text::FixedText;
use crate::wire::Validate;

/// A player's generation is never 0 (connection.md §5).
pub(crate) fn check_token(field: &'static str, token: PlayerToken) -> Result<(), FieldError> {
    check::ensure(token.0 != 0, field, Rule::OutOfRange)
}

packet! {
    /// PlayerNametag (0x09), Server → Client, reliable: the subject's name and color; part
    /// of every show, sent again on a rename or a color change.
    pub struct PlayerNametag = 0x09, ServerToClient {
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub event_id: EventId,
        pub color: Color,
        /// A valid player name, NUL-padded.
        pub name: FixedText<24>,
    }
}

impl Validate for PlayerNametag {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)?;
        check_name("name", &self.name)
    }
}

packet! {
    /// PlayerJoin (0x0B), Server → Client, reliable, critical: a player connected (or, to
    /// a newcomer, is already connected).
    pub struct PlayerJoin = 0x0B, ServerToClient {
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// A valid player name, NUL-padded.
        pub name: FixedText<24>,
    }
}

impl Validate for PlayerJoin {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)?;
        check_name("name", &self.name)
    }
}

packet! {
    /// PlayerLeave (0x0A), Server → Client, reliable, critical: the player's session ended.
    pub struct PlayerLeave = 0x0A, ServerToClient {
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub event_id: EventId,
        pub reason: LeaveReason,
    }
}

impl Validate for PlayerLeave {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)
    }
}
