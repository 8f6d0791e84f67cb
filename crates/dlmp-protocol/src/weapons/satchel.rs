//! SatchelDetonate and its relay RemoteSatchelDetonate (weapons.md §3): the detonator
//! bursts every satchel its holder threw.

use crate::check;
use crate::connection::roster::check_token;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken, SessionToken};
use crate::packet;
use crate::wire::Validate;
use crate::world::shared::in_world;

/// Satchels a latch, and so a detonation, holds at most.
pub const MAX_SATCHELS: u8 = 8;

/// Where the satchels are: `count` used slots within world bounds, the rest bit-exact
/// zeros. NaN/Inf already fail reading.
fn check_positions(count: u8, pos: &[Vec3; MAX_SATCHELS as usize]) -> Result<(), FieldError> {
    let (used, unused) = pos.split_at(usize::from(count.min(MAX_SATCHELS)));
    used.iter().try_for_each(|p| in_world("pos", p))?;
    check::ensure(
        unused
            .iter()
            .flat_map(|v| [v.x, v.y, v.z])
            .all(|f| f.to_bits() == 0),
        "pos",
        Rule::Reserved,
    )
}

packet! {
    /// SatchelDetonate (0x26), Client → Server, reliable: the sender fired the detonator
    /// and its game has burst all its satchels.
    pub struct SatchelDetonate = 0x26, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The satchels the sender's game holds now, 1..=8.
        pub count: u8,
        /// Where each of them is now; unused slots are zeros.
        pub pos: [Vec3; 8],
    }
}

impl Validate for SatchelDetonate {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("count", self.count, 1..=MAX_SATCHELS)?;
        check_positions(self.count, &self.pos)
    }
}

packet! {
    /// RemoteSatchelDetonate (0x27), Server → Client, reliable: an accepted detonation, to
    /// the players the thrower is shown to, never to the thrower; neither critical nor
    /// droppable.
    pub struct RemoteSatchelDetonate = 0x27, ServerToClient {
        /// The thrower.
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// The positions the server kept, 0..=8.
        pub count: u8,
        /// Unused slots are zeros.
        pub pos: [Vec3; 8],
    }
}

impl Validate for RemoteSatchelDetonate {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)?;
        check::range("count", self.count, 0..=MAX_SATCHELS)?;
        check_positions(self.count, &self.pos)
    }
}
