//! The life cycle (player.md): connect spawn, death and respawn.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken, Seq, SessionToken};
use crate::packet;
use crate::wire::Validate;

/// The highest area (interior) code of a spawn point; 0 is outside.
pub const MAX_AREA: i32 = 255;

/// A death and its pose as DeathReport and PlayerWasted carry them. Any bytes decode: the
/// server and a receiver of PlayerWasted replace a pose the game does not produce with
/// [`DeathPose::DEFAULT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeathPose {
    /// Means of death, 0..=54.
    pub weapon: u8,
    pub anim_group: u16,
    pub anim: u16,
}

impl DeathPose {
    /// (0, 0, 15).
    pub const DEFAULT: DeathPose = DeathPose {
        weapon: 0,
        anim_group: 0,
        anim: 15,
    };

    /// Whether the game produces this pose (DeathReport).
    pub fn is_game_pose(self) -> bool {
        let anim_ok = match self.anim_group {
            0 => matches!(self.anim, 15..=20 | 22..=27 | 36 | 39 | 140 | 191),
            33..=43 => (219..=221).contains(&self.anim),
            87 => self.anim == 352,
            _ => false,
        };
        self.weapon <= 54 && anim_ok
    }

    /// This pose, or [`DeathPose::DEFAULT`] if the game does not produce it.
    #[must_use]
    pub fn or_default(self) -> DeathPose {
        if self.is_game_pose() {
            self
        } else {
            Self::DEFAULT
        }
    }
}

packet! {
    /// RespawnRequest (0x0C, player.md), unreliable: a dead player asks to be respawned,
    /// repeating on a timer while dead.
    pub struct RespawnRequest = 0x0C, ClientToServer {
        pub session_token: SessionToken,
    }
}

impl Validate for RespawnRequest {}

packet! {
    /// RespawnPlayer (0x0D, player.md), unreliable: the respawn grant to the respawning
    /// player.
    pub struct RespawnPlayer = 0x0D, ServerToClient {
        /// Spawn position (`spawn_x..z`).
        pub spawn: Vec3,
        /// Facing, radians.
        pub heading: f32,
        /// Interior of the point, 0..=255 (0 outside).
        pub area: i32,
    }
}

impl Validate for RespawnPlayer {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("area", self.area, 0..=MAX_AREA)
    }
}

packet! {
    /// DeathReport (0x1B, player.md), the client's reliable event lane: the victim reports
    /// its own death and its pose (page name of the token: `token`).
    pub struct DeathReport = 0x1B, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// Means of death; see [`DeathPose`].
        pub weapon: u8,
        pub anim_group: u16,
        pub anim: u16,
    }
}

impl DeathReport {
    pub fn pose(&self) -> DeathPose {
        DeathPose {
            weapon: self.weapon,
            anim_group: self.anim_group,
            anim: self.anim,
        }
    }
}

impl Validate for DeathReport {}

packet! {
    /// PlayerWasted (0x1C, player.md), reliable event lane: broadcast of a death and its
    /// pose to the players the victim is shown to.
    pub struct PlayerWasted = 0x1C, ServerToClient {
        pub id: PlayerId,
        /// Subject generation.
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// Means of death; see [`DeathPose`].
        pub weapon: u8,
        pub anim_group: u16,
        pub anim: u16,
    }
}

impl PlayerWasted {
    pub fn pose(&self) -> DeathPose {
        DeathPose {
            weapon: self.weapon,
            anim_group: self.anim_group,
            anim: self.anim,
        }
    }
}

impl Validate for PlayerWasted {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)
    }
}

packet! {
    /// PlayerSpawned (0x1D, player.md), reliable event lane: broadcast of a respawn; the
    /// receiver rebuilds the subject's copy.
    pub struct PlayerSpawned = 0x1D, ServerToClient {
        pub id: PlayerId,
        /// Subject generation.
        pub player_token: PlayerToken,
        pub event_id: EventId,
        /// Spawn position.
        pub spawn: Vec3,
        /// Heading, radians.
        pub heading: f32,
        /// The subject's last accepted PlayerSync seq at the grant: the previous life's
        /// barrier.
        pub sync_seq: Seq,
    }
}

impl Validate for PlayerSpawned {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)
    }
}

packet! {
    /// RequestSpawn (0x29, player.md), unreliable: a connected player asks for its connect
    /// spawn, repeating until SpawnPlayer arrives.
    pub struct RequestSpawn = 0x29, ClientToServer {
        pub session_token: SessionToken,
    }
}

impl Validate for RequestSpawn {}

packet! {
    /// SpawnPlayer (0x2A, player.md), unreliable: the connect spawn grant with the spawn
    /// info the gamemode set.
    pub struct SpawnPlayer = 0x2A, ServerToClient {
        /// Spawn position (`spawn_x..z`).
        pub spawn: Vec3,
        /// Facing, radians.
        pub heading: f32,
        /// Interior of the point, 0..=255 (0 outside).
        pub area: i32,
        /// The player's model id.
        pub skin: u32,
        /// Appearance variation, >= 1 (SetSkin: 0 is never sent).
        pub variant: u16,
    }
}

impl Validate for SpawnPlayer {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("area", self.area, 0..=MAX_AREA)?;
        check::ensure(self.variant >= 1, "variant", Rule::OutOfRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_poses_pass_and_others_become_the_default() {
        for pose in [
            (0, 0, 15),
            (54, 0, 191),
            (31, 33, 219),
            (22, 43, 221),
            (4, 87, 352),
        ] {
            let p = DeathPose {
                weapon: pose.0,
                anim_group: pose.1,
                anim: pose.2,
            };
            assert_eq!(p.or_default(), p, "{pose:?}");
        }
        for pose in [
            (55, 0, 15),
            (0, 0, 21),
            (0, 33, 15),
            (0, 44, 219),
            (0, 87, 351),
        ] {
            let p = DeathPose {
                weapon: pose.0,
                anim_group: pose.1,
                anim: pose.2,
            };
            assert_eq!(p.or_default(), DeathPose::DEFAULT, "{pose:?}");
        }
    }
}
