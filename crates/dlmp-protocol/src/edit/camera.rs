//! EditCamera (editing.md §2): where the editor's free camera (SetCamera mode 3) is.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{Seq, SessionToken};
use crate::packet;
use crate::wire::Validate;
use crate::world::shared::in_world;

use super::state::EditSessionId;

/// The shortest `front` the decoder takes.
pub const FRONT_MIN: f32 = 0.9;
/// The longest `front` the decoder takes.
pub const FRONT_MAX: f32 = 1.1;

packet! {
    /// EditCamera (0x76), Client → Server, unreliable: the free camera's position while
    /// SetCamera mode 3 applies, every 100 ms while it moves or turns, else once a second.
    /// Never relayed.
    pub struct EditCamera = 0x76, ClientToServer {
        pub session_token: SessionToken,
        /// The session id from EditState.
        pub session: EditSessionId,
        /// The sender's own EditCamera counter, monotonic per connection.
        pub seq: Seq,
        /// The camera's position, within world bounds.
        pub pos: Vec3,
        /// Its look direction, a unit vector (length 0.9..=1.1).
        pub front: Vec3,
    }
}

impl Validate for EditCamera {
    fn validate(&self) -> Result<(), FieldError> {
        in_world("pos", &self.pos)?;
        check::ensure(
            (FRONT_MIN..=FRONT_MAX).contains(&self.front.length()),
            "front",
            Rule::OutOfRange,
        )
    }
}
