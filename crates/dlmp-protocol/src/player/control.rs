//! Commands that move or hold the recipient's own player (player.md): teleport, freeze,
//! camera, fire, special action and world bounds.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken, Revision};
use crate::player::action::SpecialAction;
use crate::wire::Validate;
use crate::{packet, wire_enum};

/// The highest interior (area) code (player.md, TeleportPlayer).
pub const MAX_AREA: i32 = 255;
/// The bound on each coordinate of a fixed camera (player.md, SetCamera).
pub const MAX_CAMERA_COORD: f32 = 100_000.0;
/// The least distance between a fixed camera and its look-at point (player.md, SetCamera).
pub const MIN_CAMERA_LOOK: f32 = 0.01;
/// The longest camera transition, ms (player.md, SetCamera).
pub const MAX_CAMERA_TRANSITION_MS: u32 = 60_000;
/// The bound on each world bounds coordinate (player.md, SetWorldBounds).
pub const MAX_WORLD_COORD: f32 = 6000.0;

/// Whether every component is +0.0: a zeroed placeholder, bit for bit.
fn is_zero(v: &Vec3) -> bool {
    [v.x, v.y, v.z].iter().all(|f| f.to_bits() == 0)
}

packet! {
    /// TeleportPlayer (0x15), Server → Client, reliable: teleports the recipient's own
    /// player; also moves its interior scope to `area`.
    pub struct TeleportPlayer = 0x15, ServerToClient {
        pub event_id: EventId,
        /// World landing point.
        pub pos: Vec3,
        /// Degrees.
        pub heading: f32,
        /// Interior of the destination, 0..=[`MAX_AREA`] (0 = outside).
        pub area: i32,
        /// true: `pos.z` is a guess, the client puts the player on the ground under x, y.
        pub ground: bool,
    }
}

impl Validate for TeleportPlayer {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("area", self.area, 0..=MAX_AREA)
    }
}

packet! {
    /// SetFrozen (0x72), Server → Client, reliable: takes away or returns control of the
    /// recipient's own player (gamemode freeze or a foreign camera, combined).
    pub struct SetFrozen = 0x72, ServerToClient {
        pub event_id: EventId,
        /// true: control taken.
        pub frozen: bool,
    }
}

impl Validate for SetFrozen {}

wire_enum! {
    /// What the recipient's camera shows (player.md, SetCamera).
    #[derive(Default)]
    pub enum CameraMode: u8 {
        /// The player's own camera.
        #[default]
        Own = 0,
        /// At `pos`, looking at `look_at`.
        Fixed = 1,
        /// Follows the target player.
        Spectate = 2,
        /// Flown by the client; only in a map editing session.
        Free = 3,
    }
}

packet! {
    /// SetCamera (0x73), Server → Client, reliable: what the recipient's own camera shows.
    /// A camera not its own takes control away (SetFrozen) and moves the stream center.
    pub struct SetCamera = 0x73, ServerToClient {
        pub event_id: EventId,
        pub mode: CameraMode,
        /// Fixed: camera position, each axis within ±[`MAX_CAMERA_COORD`]; otherwise zeros.
        pub pos: Vec3,
        /// Fixed: look-at point, as `pos` and at least [`MIN_CAMERA_LOOK`] from it;
        /// otherwise zeros.
        pub look_at: Vec3,
        /// Fixed: ms from the current view, 0 = at once, at most
        /// [`MAX_CAMERA_TRANSITION_MS`]; otherwise 0.
        pub transition_ms: u32,
        /// true exactly in Spectate.
        pub target_present: bool,
        pub target_id: PlayerId,
        /// Spectate: the target's generation, never 0.
        pub target_token: PlayerToken,
        /// Spectate: the ActionDeclare action_id shown on the panel, 0 = none.
        pub prev_action: u32,
        /// As `prev_action`.
        pub next_action: u32,
    }
}

impl Validate for SetCamera {
    fn validate(&self) -> Result<(), FieldError> {
        if self.mode == CameraMode::Fixed {
            let within = |v: &Vec3| [v.x, v.y, v.z].iter().all(|c| c.abs() <= MAX_CAMERA_COORD);
            check::ensure(within(&self.pos), "pos", Rule::OutOfRange)?;
            check::ensure(within(&self.look_at), "look_at", Rule::OutOfRange)?;
            let apart = Vec3::new(
                self.look_at.x - self.pos.x,
                self.look_at.y - self.pos.y,
                self.look_at.z - self.pos.z,
            );
            check::ensure(
                apart.length() >= MIN_CAMERA_LOOK,
                "look_at",
                Rule::Combination,
            )?;
            check::range(
                "transition_ms",
                self.transition_ms,
                0..=MAX_CAMERA_TRANSITION_MS,
            )?;
        } else {
            check::ensure(is_zero(&self.pos), "pos", Rule::Reserved)?;
            check::ensure(is_zero(&self.look_at), "look_at", Rule::Reserved)?;
            check::ensure(self.transition_ms == 0, "transition_ms", Rule::Reserved)?;
        }
        let spectate = self.mode == CameraMode::Spectate;
        check::ensure(
            self.target_present == spectate,
            "target_present",
            Rule::Combination,
        )?;
        if spectate {
            check::ensure(self.target_token.0 != 0, "target_token", Rule::OutOfRange)?;
        }
        Ok(())
    }
}

packet! {
    /// SetOnFire (0x58), Server → Client, reliable: a command, not a state; sets the
    /// recipient's own player on fire (no author, no spreading) or puts it out.
    pub struct SetOnFire = 0x58, ServerToClient {
        pub event_id: EventId,
        /// true: set on fire; false: put out.
        pub on_fire: bool,
    }
}

impl Validate for SetOnFire {}

packet! {
    /// SetSpecialAction (0x59), Server → Client, reliable: the special action of the
    /// recipient's own player; observers see it in the relayed Frame.special_action.
    pub struct SetSpecialAction = 0x59, ServerToClient {
        pub event_id: EventId,
        pub action: SpecialAction,
        /// Incremented on every SetSpecialAction; echoed in Frame.special_rev.
        pub rev: Revision,
    }
}

impl Validate for SetSpecialAction {}

packet! {
    /// SetWorldBounds (0x94), Server → Client, reliable: a rectangle that holds the
    /// recipient's own player and the vehicle it drives, or the whole world.
    pub struct SetWorldBounds = 0x94, ServerToClient {
        pub event_id: EventId,
        /// true: the rectangle below; false: the whole world, every bound +0.0.
        pub enabled: bool,
        /// With `enabled`: each bound within ±[`MAX_WORLD_COORD`], min < max.
        pub min_x: f32,
        pub min_y: f32,
        pub max_x: f32,
        pub max_y: f32,
    }
}

impl Validate for SetWorldBounds {
    fn validate(&self) -> Result<(), FieldError> {
        let bounds = [
            ("min_x", self.min_x),
            ("min_y", self.min_y),
            ("max_x", self.max_x),
            ("max_y", self.max_y),
        ];
        for (field, v) in bounds {
            if self.enabled {
                check::range(field, v, -MAX_WORLD_COORD..=MAX_WORLD_COORD)?;
            } else {
                check::ensure(v.to_bits() == 0, field, Rule::Reserved)?;
            }
        }
        if self.enabled {
            check::ensure(self.min_x < self.max_x, "max_x", Rule::Combination)?;
            check::ensure(self.min_y < self.max_y, "max_y", Rule::Combination)?;
        }
        Ok(())
    }
}
