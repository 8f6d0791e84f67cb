//! Player streaming (player.md, "Player streaming"): the hide of a player and the
//! recipient's own scope change.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, PlayerId, PlayerToken, Seq};
use crate::packet;
use crate::wire::Validate;

packet! {
    /// PlayerStreamOut (0x45, player.md), reliable event lane, droppable: the player is no
    /// longer shown to the recipient; its session goes on.
    pub struct PlayerStreamOut = 0x45, ServerToClient {
        pub player_id: PlayerId,
        /// The subject's generation.
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// Seq of the subject's last RemotePlayerSync sent to the recipient, 0 none.
        pub last_seq: Seq,
        /// Order of the subject's last accepted shot or ray before the hide, 0 none.
        pub last_shot_order: Seq,
    }
}

impl Validate for PlayerStreamOut {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)
    }
}

packet! {
    /// ScopeChanged (0x5D, player.md), reliable event lane, critical: the recipient's own
    /// virtual_world or interior changed. `event_id` is also the barrier for throws.
    pub struct ScopeChanged = 0x5D, ServerToClient {
        pub event_id: EventId,
    }
}

impl Validate for ScopeChanged {}
