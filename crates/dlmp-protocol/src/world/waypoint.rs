//! The player's map waypoint (world.md PlayerWaypoint, SetWaypoint).

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, SessionToken};
use crate::packet;
use crate::wire::{Reader, Validate, Wire, Writer};

/// The largest |x| or |y| of a waypoint, in meters.
pub const WAYPOINT_MAX: f32 = 3000.0;

/// An `f32` read as it is, NaN and infinity included: PlayerWaypoint drops a bad point
/// after acknowledging it, so reading must not fail on it. Equal by bits.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnyF32(pub f32);

impl PartialEq for AnyF32 {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Wire for AnyF32 {
    const SIZE: usize = 4;
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        Ok(AnyF32(f32::from_le_bytes(r.array()?)))
    }
    fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.0.to_le_bytes());
    }
}

fn coordinate(field: &'static str, v: f32) -> Result<(), FieldError> {
    check::ensure(v.is_finite(), field, Rule::NonFinite)?;
    check::ensure(v.abs() <= WAYPOINT_MAX, field, Rule::OutOfRange)
}

/// A waypoint on the map, in meters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapPoint {
    pub x: f32,
    pub y: f32,
}

packet! {
    /// PlayerWaypoint (0x9D), Client → Server, reliable: the waypoint on the player's map,
    /// sent on every change.
    ///
    /// Decoding takes any `active`, `x` and `y`: the page drops a bad one silently *but
    /// acknowledged*, which a decoding failure would not be (the lane would stall). The
    /// receiver acknowledges the event, then asks [`PlayerWaypoint::waypoint`].
    pub struct PlayerWaypoint = 0x9D, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// 1 = a waypoint at x, y; 0 = no waypoint; anything else is dropped.
        pub active: u8,
        /// Meters, ±3000.
        pub x: AnyF32,
        pub y: AnyF32,
    }
}

impl Validate for PlayerWaypoint {}

impl PlayerWaypoint {
    /// The waypoint the client reports (`None`: no waypoint), or the rule that makes the
    /// server drop the event: `active` not 0 / 1, a coordinate not a number or outside
    /// ±3000. Whether it repeats the held one and whether the player is spawned are
    /// server state.
    pub fn waypoint(&self) -> Result<Option<MapPoint>, FieldError> {
        let active = match self.active {
            0 => false,
            1 => true,
            v => return Err(FieldError::new("active", Rule::UnknownValue(u64::from(v)))),
        };
        coordinate("x", self.x.0)?;
        coordinate("y", self.y.0)?;
        Ok(active.then_some(MapPoint {
            x: self.x.0,
            y: self.y.0,
        }))
    }
}

packet! {
    /// SetWaypoint (0x9E), Server → Client, reliable: replaces the player's waypoint
    /// (active = 1) or removes it (active = 0). The client sets it once the player is
    /// spawned and answers with PlayerWaypoint.
    pub struct SetWaypoint = 0x9E, ServerToClient {
        pub event_id: EventId,
        pub active: bool,
        /// Meters, ±3000; checked on a removal too.
        pub x: f32,
        pub y: f32,
    }
}

impl Validate for SetWaypoint {
    fn validate(&self) -> Result<(), FieldError> {
        coordinate("x", self.x)?;
        coordinate("y", self.y)
    }
}
