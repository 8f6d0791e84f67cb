//! The stored animation of a player (player.md, ApplyAnimation: "Stored state", "What
//! ends the stored state"; SetAnimationProgress / SetAnimationSpeed): the form the server
//! checks, the clock it keeps and what a show replays. Plain Rust: the ECS systems in the
//! parent module feed it the time and the keys. Decisions: docs/decisions/0013-animations.md.

use core::fmt;
use std::time::Duration;

use bevy_ecs::prelude::Component;

use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken};
use dlmp_protocol::player::animation::{
    AnimationFlags, ApplyAnimation, MAX_ANIMATION_SPEED, MAX_ANIMATION_TIME,
};
use dlmp_protocol::player::sync::Keys;
use dlmp_protocol::text::FixedText;

/// The longest library or animation name, in ASCII characters.
pub const MAX_ANIMATION_TEXT: usize = 31;

/// The keys whose press cancels an interruptable animation: the four directions, sprint
/// and jump (ADR 0013). Walk, fire and aim alone do not move the body.
pub const MOVEMENT_KEYS: Keys = Keys(
    Keys::FORWARD.0
        | Keys::BACKWARD.0
        | Keys::LEFT.0
        | Keys::RIGHT.0
        | Keys::SPRINT.0
        | Keys::JUMP.0,
);

/// An argument the server refuses by its form (player.md, ApplyAnimation fields).
#[derive(Debug, Clone, PartialEq)]
pub enum FormError {
    /// Not 1..=31 ASCII characters without NUL.
    Lib(String),
    Name(String),
    /// Not finite and > 0.
    Delta(f32),
    /// Above [`MAX_ANIMATION_TIME`].
    Time(u32),
    /// Not finite in 0..=[`MAX_ANIMATION_SPEED`].
    Speed(f32),
    /// Not finite in 0..=1.
    Progress(f32),
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormError::Lib(s) => write!(
                f,
                "lib {s:?} must be 1 to {MAX_ANIMATION_TEXT} ASCII characters"
            ),
            FormError::Name(s) => write!(
                f,
                "name {s:?} must be 1 to {MAX_ANIMATION_TEXT} ASCII characters"
            ),
            FormError::Delta(d) => write!(f, "delta {d} must be finite and greater than 0"),
            FormError::Time(t) => write!(f, "time {t} is outside 0..={MAX_ANIMATION_TIME}"),
            FormError::Speed(s) => write!(f, "speed {s} is outside 0..={MAX_ANIMATION_SPEED}"),
            FormError::Progress(p) => write!(f, "progress {p} is outside 0..=1"),
        }
    }
}

impl std::error::Error for FormError {}

/// An animation library or name: 1..=31 ASCII characters.
fn anim_text(text: &str) -> Option<FixedText<32>> {
    let ok = !text.is_empty()
        && text.len() <= MAX_ANIMATION_TEXT
        && text.is_ascii()
        && !text.contains('\0');
    ok.then(|| FixedText::new(text).ok()).flatten()
}

/// A playback rate: finite, 0..=10 (0 pauses).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speed(f32);

impl Speed {
    pub const NORMAL: Speed = Speed(1.0);

    pub fn new(speed: f32) -> Result<Self, FormError> {
        if speed.is_finite() && (0.0..=MAX_ANIMATION_SPEED).contains(&speed) {
            Ok(Speed(speed))
        } else {
            Err(FormError::Speed(speed))
        }
    }

    pub fn get(self) -> f32 {
        self.0
    }
}

/// A share of the animation's length: finite, 0..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress(f32);

impl Progress {
    pub const START: Progress = Progress(0.0);

    pub fn new(progress: f32) -> Result<Self, FormError> {
        if progress.is_finite() && (0.0..=1.0).contains(&progress) {
            Ok(Progress(progress))
        } else {
            Err(FormError::Progress(progress))
        }
    }

    pub fn get(self) -> f32 {
        self.0
    }
}

/// What ApplyAnimation plays, checked by its form; the only way to build one is
/// [`AnimationSpec::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimationSpec {
    lib: FixedText<32>,
    name: FixedText<32>,
    delta: f32,
    flags: AnimationFlags,
    time: u32,
    speed: Speed,
}

impl AnimationSpec {
    /// `lib` and `name` 1..=31 ASCII characters, `delta` finite > 0 (4.1 is usual),
    /// `time` ms ≤ 600000 (0 = to the end, endless with loop), `speed` 0..=10.
    pub fn new(
        lib: &str,
        name: &str,
        delta: f32,
        flags: AnimationFlags,
        time: u32,
        speed: f32,
    ) -> Result<Self, FormError> {
        let lib = anim_text(lib).ok_or_else(|| FormError::Lib(lib.to_owned()))?;
        let name = anim_text(name).ok_or_else(|| FormError::Name(name.to_owned()))?;
        if !(delta.is_finite() && delta > 0.0) {
            return Err(FormError::Delta(delta));
        }
        if time > MAX_ANIMATION_TIME {
            return Err(FormError::Time(time));
        }
        let speed = Speed::new(speed)?;
        Ok(AnimationSpec {
            lib,
            name,
            delta,
            flags: AnimationFlags(flags.0 & AnimationFlags::ALL.0),
            time,
            speed,
        })
    }

    pub fn lib(&self) -> &str {
        self.lib.as_str()
    }

    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    pub fn delta(&self) -> f32 {
        self.delta
    }

    pub fn flags(&self) -> AnimationFlags {
        self.flags
    }

    pub fn time(&self) -> u32 {
        self.time
    }

    pub fn speed(&self) -> Speed {
        self.speed
    }
}

/// The animation a player plays, as the server keeps it: what was applied, when (server
/// time), and the speed and progress set since.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Animation {
    pub spec: AnimationSpec,
    /// Server time of the apply.
    pub started: Duration,
    /// The current playback rate (the apply's, or the last SetAnimationSpeed).
    pub speed: Speed,
    /// The last SetAnimationProgress (0 after the apply); read by the server API only.
    pub progress: Progress,
}

impl Animation {
    /// The animation `spec` applied at `now`.
    pub fn start(spec: AnimationSpec, now: Duration) -> Self {
        Animation {
            spec,
            started: now,
            speed: spec.speed,
            progress: Progress::START,
        }
    }

    fn freeze(&self) -> bool {
        self.spec.flags.contains(AnimationFlags::FREEZE)
    }

    /// Whether the animation still plays at `now`: a timed (time > 0) non-freeze one ends
    /// on clients at start + time; every other one until something ends it.
    pub fn live(&self, now: Duration) -> bool {
        self.freeze()
            || self.spec.time == 0
            || now < self.started + Duration::from_millis(u64::from(self.spec.time))
    }

    /// Whether movement cancels it: neither freeze nor dont_interrupt.
    pub fn interruptable(&self) -> bool {
        !self.freeze() && !self.spec.flags.contains(AnimationFlags::DONT_INTERRUPT)
    }

    /// Whether a frame with `keys` cancels it (the server's mirror of the movement cancel).
    pub fn cancelled_by(&self, keys: Keys) -> bool {
        self.interruptable() && keys.0 & MOVEMENT_KEYS.0 != 0
    }

    /// The ms already played for a replay: the server time since the apply, the clock that
    /// `time` runs on, at least 1 (0 means a fresh apply).
    pub fn elapsed_ms(&self, now: Duration) -> u32 {
        let ms = now.saturating_sub(self.started).as_millis();
        u32::try_from(ms).unwrap_or(u32::MAX).max(1)
    }

    /// The fresh ApplyAnimation of this animation (elapsed_ms = 0).
    pub fn apply(&self, id: PlayerId, player_token: PlayerToken) -> ApplyAnimation {
        self.packet(id, player_token, 0)
    }

    /// The replay for a show at `now`, or `None` when nothing plays any more (a timed
    /// animation whose last millisecond has gone).
    pub fn replay(
        &self,
        id: PlayerId,
        player_token: PlayerToken,
        now: Duration,
    ) -> Option<ApplyAnimation> {
        let elapsed = self.elapsed_ms(now);
        let expired = !self.freeze() && self.spec.time > 0 && elapsed >= self.spec.time;
        (self.live(now) && !expired).then(|| self.packet(id, player_token, elapsed))
    }

    fn packet(&self, id: PlayerId, player_token: PlayerToken, elapsed_ms: u32) -> ApplyAnimation {
        ApplyAnimation {
            id,
            player_token,
            event_id: EventId(0),
            lib: self.spec.lib,
            name: self.spec.name,
            delta: self.spec.delta,
            flags: self.spec.flags,
            time: self.spec.time,
            speed: self.speed.get(),
            elapsed_ms,
        }
    }
}

/// The player's current animation; `None` when nothing plays. Ended by ClearAnimations,
/// death, the movement mirror, expiry and a respawn grant; gone with the entity on
/// disconnect.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct CurrentAnimation(pub Option<Animation>);

impl CurrentAnimation {
    /// The animation playing at `now`, if any.
    pub fn playing(&self, now: Duration) -> Option<&Animation> {
        self.0.as_ref().filter(|a| a.live(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(flags: AnimationFlags, time: u32) -> AnimationSpec {
        AnimationSpec::new("DANCING", "dnce_M_a", 4.1, flags, time, 1.0).expect("valid")
    }

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn the_form_is_checked() {
        let ok = |lib: &str, name: &str, delta: f32, time: u32, speed: f32| {
            AnimationSpec::new(lib, name, delta, AnimationFlags::NONE, time, speed)
        };
        assert!(ok("PED", "WALK_old", 4.1, 600_000, 10.0).is_ok());
        assert!(ok(&"x".repeat(31), "a", 0.1, 0, 0.0).is_ok());
        assert_eq!(
            ok(&"x".repeat(32), "a", 4.1, 0, 1.0),
            Err(FormError::Lib("x".repeat(32)))
        );
        assert_eq!(ok("", "a", 4.1, 0, 1.0), Err(FormError::Lib(String::new())));
        assert_eq!(
            ok("PED", "é", 4.1, 0, 1.0),
            Err(FormError::Name("é".into()))
        );
        assert_eq!(ok("PED", "a", 0.0, 0, 1.0), Err(FormError::Delta(0.0)));
        assert!(matches!(
            ok("PED", "a", f32::NAN, 0, 1.0),
            Err(FormError::Delta(_))
        ));
        assert_eq!(
            ok("PED", "a", 4.1, 600_001, 1.0),
            Err(FormError::Time(600_001))
        );
        assert_eq!(ok("PED", "a", 4.1, 0, 10.5), Err(FormError::Speed(10.5)));
        assert_eq!(ok("PED", "a", 4.1, 0, -0.5), Err(FormError::Speed(-0.5)));
        assert_eq!(Progress::new(1.5), Err(FormError::Progress(1.5)));
        assert!(Progress::new(1.0).is_ok() && Progress::new(f32::INFINITY).is_err());
    }

    #[test]
    fn a_timed_animation_ends_at_start_plus_time_and_freeze_never() {
        let a = Animation::start(spec(AnimationFlags::NONE, 1000), ms(500));
        assert!(a.live(ms(1499)));
        assert!(!a.live(ms(1500)));
        let looped = Animation::start(spec(AnimationFlags::LOOP, 0), ms(500));
        assert!(looped.live(ms(10_000_000)));
        let frozen = Animation::start(spec(AnimationFlags::FREEZE, 1000), ms(500));
        assert!(frozen.live(ms(10_000_000)));
    }

    #[test]
    fn a_replay_carries_the_time_played_and_not_an_expired_one() {
        let a = Animation::start(spec(AnimationFlags::NONE, 1000), ms(500));
        let id = PlayerId(3);
        let token = PlayerToken(9);
        assert_eq!(a.replay(id, token, ms(500)).map(|p| p.elapsed_ms), Some(1));
        assert_eq!(
            a.replay(id, token, ms(1250)).map(|p| p.elapsed_ms),
            Some(750)
        );
        assert_eq!(a.replay(id, token, ms(1500)), None);
        let frozen = Animation::start(spec(AnimationFlags::FREEZE, 1000), ms(0));
        assert_eq!(
            frozen.replay(id, token, ms(5000)).map(|p| p.elapsed_ms),
            Some(5000)
        );
        let short = Animation::start(spec(AnimationFlags::NONE, 1), ms(0));
        assert_eq!(short.replay(id, token, ms(0)), None);
    }

    #[test]
    fn movement_cancels_only_an_interruptable_animation() {
        let plain = Animation::start(spec(AnimationFlags::LOOP, 0), ms(0));
        assert!(plain.cancelled_by(Keys::FORWARD));
        assert!(plain.cancelled_by(Keys::JUMP | Keys::AIM));
        assert!(!plain.cancelled_by(Keys::FIRE | Keys::AIM | Keys::SNEAK));
        let held = Animation::start(spec(AnimationFlags::DONT_INTERRUPT, 0), ms(0));
        assert!(!held.cancelled_by(Keys::FORWARD));
        let frozen = Animation::start(spec(AnimationFlags::FREEZE, 0), ms(0));
        assert!(!frozen.cancelled_by(Keys::SPRINT));
    }
}
