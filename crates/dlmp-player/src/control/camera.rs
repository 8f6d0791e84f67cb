//! What a player's camera shows (player.md, SetCamera), as the gamemode set it, and the
//! stream center's transition toward a fixed camera. I/O-free: the control systems
//! (`mod.rs`) feed it and send the packets.

use std::f32::consts::PI;
use std::fmt;
use std::time::Duration;

use bevy_ecs::entity::Entity;

use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken};
use dlmp_protocol::player::control::{
    CameraMode, MAX_CAMERA_COORD, MAX_CAMERA_TRANSITION_MS, MIN_CAMERA_LOOK, SetCamera,
};

/// The camera the gamemode gave a player, or the free camera of its map-editing session.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum CameraSetting {
    /// The player's own camera: control returns, the stream center is the body.
    #[default]
    Own,
    /// At `pos`, looking at `look_at`, reached from the current view in `transition_ms`.
    Fixed {
        pos: Vec3,
        look_at: Vec3,
        transition_ms: u32,
    },
    /// Follows `target` (entity and generation); `prev_action` / `next_action` are the
    /// ActionDeclare ids of the spectator panel, 0 = none.
    Spectate {
        target: Entity,
        id: PlayerId,
        token: PlayerToken,
        prev_action: u32,
        next_action: u32,
    },
    /// Flown by the client inside a map-editing session (editing.md §2, SetCamera mode
    /// 3): given and taken back only by the session ([`super::hold_for_session`]); the
    /// stream center is the session's camera point.
    Free,
}

/// Why a camera setting is refused (player.md, SetCamera: "The server allows ...").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CameraError {
    /// A coordinate of `pos` or `look_at` is not finite or beyond ±100000.
    OutOfBounds { field: &'static str, value: f32 },
    /// `pos` and `look_at` closer than 0.01.
    TooClose,
    /// A transition longer than 60000 ms.
    TransitionTooLong(u32),
}

impl fmt::Display for CameraError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CameraError::OutOfBounds { field, value } => write!(
                f,
                "{field} coordinate {value} is outside -{MAX_CAMERA_COORD}..={MAX_CAMERA_COORD}"
            ),
            CameraError::TooClose => write!(
                f,
                "the camera and its look-at point are closer than {MIN_CAMERA_LOOK}"
            ),
            CameraError::TransitionTooLong(ms) => write!(
                f,
                "transition_ms {ms} is outside 0..={MAX_CAMERA_TRANSITION_MS}"
            ),
        }
    }
}

impl std::error::Error for CameraError {}

impl CameraSetting {
    /// A fixed camera, checked against the page's bounds.
    pub fn fixed(pos: Vec3, look_at: Vec3, transition_ms: u32) -> Result<Self, CameraError> {
        for (field, v) in [("pos", pos), ("look_at", look_at)] {
            for value in [v.x, v.y, v.z] {
                if !value.is_finite() || value.abs() > MAX_CAMERA_COORD {
                    return Err(CameraError::OutOfBounds { field, value });
                }
            }
        }
        let apart = Vec3::new(look_at.x - pos.x, look_at.y - pos.y, look_at.z - pos.z);
        if apart.length() < MIN_CAMERA_LOOK {
            return Err(CameraError::TooClose);
        }
        if transition_ms > MAX_CAMERA_TRANSITION_MS {
            return Err(CameraError::TransitionTooLong(transition_ms));
        }
        Ok(CameraSetting::Fixed {
            pos,
            look_at,
            transition_ms,
        })
    }

    /// Checks a setting built by hand (a Rust plugin's message) as [`fixed`](Self::fixed)
    /// does.
    pub fn check(&self) -> Result<(), CameraError> {
        match *self {
            CameraSetting::Fixed {
                pos,
                look_at,
                transition_ms,
            } => CameraSetting::fixed(pos, look_at, transition_ms).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// Whether the camera is not the player's own: control is taken while it is.
    pub fn is_foreign(&self) -> bool {
        !matches!(self, CameraSetting::Own)
    }

    /// The Lua name of the mode.
    pub fn mode_name(&self) -> &'static str {
        match self {
            CameraSetting::Own => "own",
            CameraSetting::Fixed { .. } => "fixed",
            CameraSetting::Spectate { .. } => "spectate",
            CameraSetting::Free => "free",
        }
    }

    /// The SetCamera that tells the owner; the fields a mode does not use are zeros.
    pub fn packet(&self) -> SetCamera {
        let mut p = SetCamera {
            event_id: EventId(0),
            mode: CameraMode::Own,
            pos: Vec3::ZERO,
            look_at: Vec3::ZERO,
            transition_ms: 0,
            target_present: false,
            target_id: PlayerId(0),
            target_token: PlayerToken(0),
            prev_action: 0,
            next_action: 0,
        };
        match *self {
            CameraSetting::Own => {}
            CameraSetting::Fixed {
                pos,
                look_at,
                transition_ms,
            } => {
                p.mode = CameraMode::Fixed;
                p.pos = pos;
                p.look_at = look_at;
                p.transition_ms = transition_ms;
            }
            CameraSetting::Spectate {
                id,
                token,
                prev_action,
                next_action,
                ..
            } => {
                p.mode = CameraMode::Spectate;
                p.target_present = true;
                p.target_id = id;
                p.target_token = token;
                p.prev_action = prev_action;
                p.next_action = next_action;
            }
            CameraSetting::Free => p.mode = CameraMode::Free,
        }
        p
    }
}

/// The share of a transition done at progress `t` (0..=1): (1 - cos(π·t)) / 2, the curve
/// the client moves its camera along (player.md, SetCamera).
///
/// ```
/// use dlmp_player::control::camera::ease;
/// assert_eq!(ease(0.0), 0.0);
/// assert!((ease(0.5) - 0.5).abs() < 1e-6);
/// assert_eq!(ease(1.0), 1.0);
/// ```
pub fn ease(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    (1.0 - (PI * t).cos()) / 2.0
}

/// The stream center on its way to a fixed camera. Its time runs only while the
/// SetCamera is acknowledged and the owner sends frames (player.md, SetCamera): the
/// client moves its camera only once it has the packet, and a client that sends nothing
/// may be paused or gone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    /// The center when the camera was set.
    pub from: Vec3,
    /// The camera position.
    pub to: Vec3,
    pub duration: Duration,
    /// Time run so far.
    pub run: Duration,
    /// The SetCamera that started it.
    pub event: EventId,
}

impl Transition {
    /// Where the center is now.
    pub fn center(&self) -> Vec3 {
        let t = if self.duration.is_zero() {
            1.0
        } else {
            self.run.as_secs_f32() / self.duration.as_secs_f32()
        };
        let k = ease(t);
        Vec3::new(
            self.from.x + (self.to.x - self.from.x) * k,
            self.from.y + (self.to.y - self.from.y) * k,
            self.from.z + (self.to.z - self.from.z) * k,
        )
    }

    /// Runs the time by `dt`; true once the center has arrived.
    pub fn advance(&mut self, dt: Duration) -> bool {
        self.run = (self.run + dt).min(self.duration);
        self.run >= self.duration
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_starts_slow_and_meets_the_midpoint_at_half_time() {
        assert_eq!(ease(-1.0), 0.0);
        assert!(ease(0.1) < 0.1);
        assert!((ease(0.5) - 0.5).abs() < 1e-6);
        assert!(ease(0.9) > 0.9);
        assert_eq!(ease(2.0), 1.0);
    }

    #[test]
    fn a_transition_moves_along_the_curve_and_stops_at_the_camera() {
        let mut t = Transition {
            from: Vec3::new(0.0, 0.0, 0.0),
            to: Vec3::new(100.0, -50.0, 10.0),
            duration: Duration::from_millis(1000),
            run: Duration::ZERO,
            event: EventId(1),
        };
        assert_eq!(t.center(), t.from);
        assert!(!t.advance(Duration::from_millis(500)));
        let mid = t.center();
        assert!((mid.x - 50.0).abs() < 1e-3 && (mid.y + 25.0).abs() < 1e-3);
        assert!(t.advance(Duration::from_millis(900)));
        assert_eq!(t.center(), t.to);
    }

    #[test]
    fn a_fixed_camera_keeps_to_the_bounds() {
        let p = Vec3::new(1.0, 2.0, 3.0);
        let ok = CameraSetting::fixed(p, Vec3::new(1.0, 2.0, 3.5), 60_000);
        assert!(ok.is_ok());
        assert_eq!(
            CameraSetting::fixed(p, p, 0),
            Err(CameraError::TooClose),
            "pos equal to look_at"
        );
        assert_eq!(
            CameraSetting::fixed(p, Vec3::new(1.0, 2.0, 3.005), 0),
            Err(CameraError::TooClose)
        );
        assert!(matches!(
            CameraSetting::fixed(Vec3::new(100_000.5, 0.0, 0.0), p, 0),
            Err(CameraError::OutOfBounds { field: "pos", .. })
        ));
        assert!(matches!(
            CameraSetting::fixed(p, Vec3::new(0.0, f32::NAN, 0.0), 0),
            Err(CameraError::OutOfBounds {
                field: "look_at",
                ..
            })
        ));
        assert_eq!(
            CameraSetting::fixed(p, Vec3::ZERO, 60_001),
            Err(CameraError::TransitionTooLong(60_001))
        );
    }

    #[test]
    fn every_setting_makes_a_packet_clients_take() {
        use dlmp_protocol::wire::Validate;
        let settings = [
            CameraSetting::Own,
            CameraSetting::fixed(Vec3::new(1.0, 1.0, 1.0), Vec3::ZERO, 250).expect("valid"),
            CameraSetting::Spectate {
                target: Entity::PLACEHOLDER,
                id: PlayerId(4),
                token: PlayerToken(9),
                prev_action: 1,
                next_action: 2,
            },
            CameraSetting::Free,
        ];
        for s in settings {
            assert_eq!(s.packet().validate(), Ok(()), "{s:?}");
        }
    }
}
