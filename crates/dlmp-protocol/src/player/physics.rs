//! Body physics commands to the recipient's own player (player.md): a throw and the body
//! gravity. Both share the physics revision the client echoes in Frame.physics_rev.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, Revision};
use crate::packet;
use crate::wire::Validate;

/// The fastest throw, units per step (100 m/s) (player.md, SetVelocity).
pub const MAX_THROW: f32 = 2.0;
/// The game's own body gravity, units per step², a new connection's value.
pub const GAME_GRAVITY: f32 = 0.008;
/// The bound on |gravity| (player.md, SetGravity).
pub const MAX_GRAVITY: f32 = 0.1;

packet! {
    /// SetVelocity (0x90), Server → Client, reliable: throws the recipient's own player
    /// once; a command, not a state.
    pub struct SetVelocity = 0x90, ServerToClient {
        pub event_id: EventId,
        /// Units per step (m/s / 50), length at most [`MAX_THROW`]; z > 0 lifts off.
        pub vel: Vec3,
        /// The life (Frame.death_epoch) the throw is for; another life drops it.
        pub life: u16,
        /// Physics revision, echoed in Frame.physics_rev.
        pub rev: Revision,
    }
}

impl Validate for SetVelocity {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.vel.length() <= MAX_THROW, "vel", Rule::OutOfRange)
    }
}

packet! {
    /// SetGravity (0x91), Server → Client, reliable: the body gravity of the recipient's own
    /// player. Stored; stamped into RemotePlayerSync.gravity.
    pub struct SetGravity = 0x91, ServerToClient {
        pub event_id: EventId,
        /// Units per step², -[`MAX_GRAVITY`]..=[`MAX_GRAVITY`]; < 0 pulls up;
        /// [`GAME_GRAVITY`] is the game's.
        pub gravity: f32,
        /// Physics revision shared with SetVelocity, echoed in Frame.physics_rev.
        pub rev: Revision,
    }
}

impl Validate for SetGravity {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("gravity", self.gravity, -MAX_GRAVITY..=MAX_GRAVITY)
    }
}
