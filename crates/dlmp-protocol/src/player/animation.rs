//! Named animations on a player (player.md): ApplyAnimation, ClearAnimations,
//! SetAnimationProgress and SetAnimationSpeed. Each goes to the subject and to the players
//! it is shown to.

use core::ops::BitOr;

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, PlayerId, PlayerToken};
use crate::text::FixedText;
use crate::wire::Validate;
use crate::{packet, wire_newtype};

/// The longest timed animation, ms (player.md, ApplyAnimation.time).
pub const MAX_ANIMATION_TIME: u32 = 600_000;
/// The fastest playback rate (player.md, ApplyAnimation.speed, SetAnimationSpeed).
pub const MAX_ANIMATION_SPEED: f32 = 10.0;

wire_newtype! {
    /// ApplyAnimation.flags; bits 6 and 7 are zero.
    pub struct AnimationFlags(u8);
}

impl AnimationFlags {
    pub const NONE: Self = Self(0);
    pub const LOOP: Self = Self(1 << 0);
    pub const LOCK_X: Self = Self(1 << 1);
    pub const LOCK_Y: Self = Self(1 << 2);
    /// Holds the pose until a clear or death; `time` is ignored.
    pub const FREEZE: Self = Self(1 << 3);
    /// Movement does not cancel it.
    pub const DONT_INTERRUPT: Self = Self(1 << 4);
    /// Crouch again at the end if crouched at apply.
    pub const RETAIN_STATE: Self = Self(1 << 5);
    /// Every defined bit.
    pub const ALL: Self = Self(0x3F);

    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for AnimationFlags {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

/// An animation library or name: NUL-padded ASCII of at most 31 characters.
fn check_anim_text(field: &'static str, text: &FixedText<32>) -> Result<(), FieldError> {
    check::ensure(
        text.len() < 32 && text.as_str().is_ascii(),
        field,
        Rule::BadText,
    )
}

packet! {
    /// ApplyAnimation (0x2B), Server → Client, reliable: plays a named animation on a
    /// player; the subject applies it to its own player, the others to its copy. Also the
    /// replay of the current animation when the subject is shown.
    pub struct ApplyAnimation = 0x2B, ServerToClient {
        pub id: PlayerId,
        /// Never 0 (connection.md §5).
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// Library name, ASCII, at most 31 characters; case-insensitive on the client.
        pub lib: FixedText<32>,
        /// Animation name, ASCII, at most 31 characters.
        pub name: FixedText<32>,
        /// Blend-in rate, > 0 (usually 4.1).
        pub delta: f32,
        pub flags: AnimationFlags,
        /// ms, 0..=[`MAX_ANIMATION_TIME`]; 0 = to the end (endless with loop).
        pub time: u32,
        /// Playback rate, 0..=[`MAX_ANIMATION_SPEED`]; 1 = the authored pace.
        pub speed: f32,
        /// 0 = fresh apply; > 0 = replay on show, the ms already played.
        pub elapsed_ms: u32,
    }
}

impl Validate for ApplyAnimation {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)?;
        check_anim_text("lib", &self.lib)?;
        check_anim_text("name", &self.name)?;
        check::ensure(self.delta > 0.0, "delta", Rule::OutOfRange)?;
        check::bits_within("flags", self.flags.0, AnimationFlags::ALL.0)?;
        check::range("time", self.time, 0..=MAX_ANIMATION_TIME)?;
        check::range("speed", self.speed, 0.0..=MAX_ANIMATION_SPEED)?;
        // A timed non-freeze replay that has already run out is dropped by the receiver.
        let expired = !self.flags.contains(AnimationFlags::FREEZE)
            && self.time > 0
            && self.elapsed_ms >= self.time;
        check::ensure(!expired, "elapsed_ms", Rule::Combination)
    }
}

packet! {
    /// ClearAnimations (0x2C), Server → Client, reliable: stops a player's named animation
    /// (also one still waiting to load); addressed like [`ApplyAnimation`].
    pub struct ClearAnimations = 0x2C, ServerToClient {
        pub id: PlayerId,
        /// Never 0 (connection.md §5).
        pub player_token: PlayerToken,
        pub event_id: EventId,
    }
}

impl Validate for ClearAnimations {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)
    }
}

packet! {
    /// SetAnimationProgress (0x2E), Server → Client, reliable: seeks the player's current
    /// animation, which is implicit (the server refuses the call when none plays).
    pub struct SetAnimationProgress = 0x2E, ServerToClient {
        pub id: PlayerId,
        /// Never 0 (connection.md §5).
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// Share of the animation's length, 0..=1; wraps for a looped one.
        pub progress: f32,
    }
}

impl Validate for SetAnimationProgress {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)?;
        check::range("progress", self.progress, 0.0..=1.0)
    }
}

packet! {
    /// SetAnimationSpeed (0x2F), Server → Client, reliable: the playback rate of the
    /// player's current animation; enters the stored state and the replay on show.
    pub struct SetAnimationSpeed = 0x2F, ServerToClient {
        pub id: PlayerId,
        /// Never 0 (connection.md §5).
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// 0..=[`MAX_ANIMATION_SPEED`]; 0 pauses.
        pub speed: f32,
    }
}

impl Validate for SetAnimationSpeed {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)?;
        check::range("speed", self.speed, 0.0..=MAX_ANIMATION_SPEED)
    }
}
