//! Pickups (world.md PickupSync, PickupTouch): the server shows them, the client only
//! reports touches; type, reward and respawn are server state.

use super::shared::{EntityRev, WORLD_Z_MAX, WORLD_Z_MIN};
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, SessionToken};
use crate::packet;
use crate::wire::Validate;
use crate::wire_newtype;

wire_newtype! {
    /// A server pickup id.
    pub struct PickupId(u32);
}

/// |x| and |y| of a pickup stop at 4095: the client places pickups at 1/8 m.
pub const PICKUP_XY: f32 = 4095.0;
/// The smallest pickup scale.
pub const SCALE_MIN: f32 = 0.1;
/// The largest pickup scale.
pub const SCALE_MAX: f32 = 10.0;

packet! {
    /// PickupSync (0x12), Server → Client, reliable: shows a pickup (a show of a shown one
    /// replaces it; a move is a show with a new rev) or removes it. The client drops the
    /// packet without an ack when it breaks a rule below.
    pub struct PickupSync = 0x12, ServerToClient {
        pub event_id: EventId,
        pub pickup_id: PickupId,
        /// 1 = show; 0 = remove, only `pickup_id` matters.
        pub active: bool,
        /// An object model of the server's model table or a weapon model (321..373); the
        /// server checks it, the decoder does not.
        pub model: u32,
        /// World position: |x|, |y| ≤ 4095, z −200..=4000.
        pub pos: Vec3,
        /// Uniform scale 0.1..=10; 1.0 = the model's own size.
        pub scale: f32,
        /// The pickup glows (the default).
        pub highlight: bool,
        /// Pose revision, grows with every move.
        pub rev: EntityRev,
    }
}

impl Validate for PickupSync {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.active {
            return Ok(());
        }
        let p = &self.pos;
        check::ensure(
            p.x.abs() <= PICKUP_XY
                && p.y.abs() <= PICKUP_XY
                && (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&p.z),
            "pos",
            Rule::OutOfRange,
        )?;
        check::range("scale", self.scale, SCALE_MIN..=SCALE_MAX)
    }
}

impl PickupSync {
    /// The removal of `pickup_id`: active = 0, the other fields zero.
    pub fn remove(event_id: EventId, pickup_id: PickupId) -> Self {
        PickupSync {
            event_id,
            pickup_id,
            active: false,
            model: 0,
            pos: Vec3::ZERO,
            scale: 0.0,
            highlight: false,
            rev: EntityRev(0),
        }
    }
}

packet! {
    /// PickupTouch (0x13), Client → Server, reliable (the ClientChat stream): the player
    /// entered a pickup's radius. The server checks the touch against its own state.
    pub struct PickupTouch = 0x13, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub pickup_id: PickupId,
    }
}

impl Validate for PickupTouch {}
