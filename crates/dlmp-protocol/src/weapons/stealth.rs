//! StealthKillRequest and RemoteStealthKill (weapons.md §4): a knife kill from behind, the
//! server's decision.

use crate::check;
use crate::connection::roster::check_token;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken, SessionToken};
use crate::packet;
use crate::wire::Validate;
use crate::world::shared::in_world;

packet! {
    /// StealthKillRequest (0x30), Client → Server, reliable: the sender's player aims with
    /// the knife at another player's copy from behind and fires; the client plays the kill
    /// only when RemoteStealthKill names it.
    pub struct StealthKillRequest = 0x30, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub victim_id: PlayerId,
        /// The victim's generation, never 0.
        pub victim_token: PlayerToken,
    }
}

impl Validate for StealthKillRequest {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("victim_token", self.victim_token)
    }
}

packet! {
    /// RemoteStealthKill (0x31), Server → Client, reliable: an accepted stealth kill, to
    /// both participants (critical for them) and to the players the killer is shown to.
    pub struct RemoteStealthKill = 0x31, ServerToClient {
        /// The killer.
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub event_id: EventId,
        pub victim_id: PlayerId,
        /// The victim's generation.
        pub victim_token: PlayerToken,
        /// The victim's death_epoch: the life the kill ends.
        pub victim_life: u16,
        /// The victim's position by the server, within world bounds.
        pub pos: Vec3,
        /// The victim's heading, degrees (its frame's yaw).
        pub heading: f32,
    }
}

impl Validate for RemoteStealthKill {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)?;
        check_token("victim_token", self.victim_token)?;
        check::ensure(self.id != self.victim_id, "victim_id", Rule::Combination)?;
        in_world("pos", &self.pos)
    }
}
