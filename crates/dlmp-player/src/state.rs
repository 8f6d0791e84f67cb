//! Per-player state that the on-foot features share (player.md, connection.md §5-§6):
//! what the relay stamps into RemotePlayerSync, what streaming reads, what the ledger and
//! the inventory keep. Each component has one owner feature that writes it; others read.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bitvec::vec::BitVec;

use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{Revision, Seq};
use dlmp_protocol::player::action::SpecialAction;
use dlmp_protocol::player::sync::{Frame, Keys, MoveState};

/// The last frame accepted from the owner (frame admission writes it).
#[derive(Component, Debug, Clone, PartialEq, Default)]
pub struct LastFrame {
    /// The seq of the last accepted PlayerSync; `None` before the first.
    pub seq: Option<Seq>,
    /// The accepted frame, after world bounds, freeze and the movement check.
    pub frame: Option<Frame>,
    /// The server time it was accepted at (a shot's rewind reads it).
    pub at: Option<Duration>,
}

/// Where the player's own game last put it, as the server accepted it: the position after
/// its last accepted PlayerSync or, while seated, after its vehicle's last accepted frame
/// (the vehicles write it). Checkpoints and colshapes judge entries and exits from it
/// (world.md Checkpoint: "from the last accepted PlayerSync position of a living, spawned
/// player"), never from a point a teleport or a spawn grant wrote before the client got
/// there. `None` before the first.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct ReportedPosition(pub Option<Vec3>);

/// The health ledger (connection.md §6). Health and armor 0..=200; 100 and 0 at a spawn.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Ledger {
    pub health: f32,
    pub armor: f32,
    /// Raised by every gamemode health or armor command.
    pub vital_rev: Revision,
    /// The highest DamageReport seq received.
    pub damage_seq: Seq,
    /// The means of damage of the last DamageReport (0 before one).
    pub last_weapon: u8,
    /// The attacker the last DamageReport was credited to.
    pub last_attacker: Option<Entity>,
    /// When the last DamageReport of this life was applied (`None`: none yet); a death
    /// the victim reports names its attacker only within `ledger::KILL_CREDIT` of it.
    pub last_report_at: Option<Duration>,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger {
            health: 100.0,
            armor: 0.0,
            vital_rev: Revision(0),
            damage_seq: Seq(0),
            last_weapon: 0,
            last_attacker: None,
            last_report_at: None,
        }
    }
}

impl Ledger {
    /// A spawn or a respawn starts a life at 100 health and 0 armor (connection.md §6);
    /// the revisions and the damage_seq carry on.
    pub fn start_life(&mut self) {
        self.health = 100.0;
        self.armor = 0.0;
        self.forget_last_report();
    }
}

/// The server's weapon inventory (player.md, weapon_rev; connection.md §6 GiveWeapon).
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Inventory {
    /// Rounds held per weapon id 0..=46; a weapon is held when it is in `held`.
    pub ammo: [u16; 47],
    /// Weapons in the inventory, by id.
    pub held: BitVec,
    /// The weapon the player last confirmably armed (0 = unarmed).
    pub armed: u8,
    /// The clip of the armed weapon by the last reconciled frame.
    pub clip: u16,
    /// Raised by every gamemode weapon change.
    pub weapon_rev: Revision,
}

impl Default for Inventory {
    fn default() -> Self {
        let mut held = BitVec::repeat(false, 47);
        held.set(0, true);
        Inventory {
            ammo: [0; 47],
            held,
            armed: 0,
            clip: 0,
            weapon_rev: Revision(0),
        }
    }
}

impl Inventory {
    pub fn holds(&self, weapon: u8) -> bool {
        self.held.get(usize::from(weapon)).is_some_and(|b| *b)
    }
}

/// What the player looks like to others; stamped into every relay (player.md,
/// RemotePlayerSync tail). The setters are the gamemode's commands (SetSkin, ...).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appearance {
    pub skin: u32,
    /// ≥ 1.
    pub variant: u16,
    pub walk_style: u8,
    /// 15 grab-kick is the game's default.
    pub fight_style: u8,
    pub headless: bool,
}

impl Default for Appearance {
    fn default() -> Self {
        Appearance {
            skin: 0,
            variant: 1,
            walk_style: 0,
            fight_style: 15,
            headless: false,
        }
    }
}

/// Damage group and its relation revision (connection.md §6, "Damage groups and
/// relations"). Group 0 = none.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Team {
    pub group: u32,
    /// Grows on every change of the group.
    pub relation_rev: u32,
}

impl Team {
    /// Whether `self` and `other` are teammates: equal groups, not 0.
    pub fn is_teammate_of(&self, other: &Team) -> bool {
        self.group != 0 && self.group == other.group
    }
}

/// Server-owned body state the relay carries (player.md, "paused", "on_fire",
/// "special_action", SetGravity).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Body {
    pub paused: bool,
    pub on_fire: bool,
    pub special_action: SpecialAction,
    /// The body's gravity; the game's own is 0.008 units per step².
    pub gravity: f32,
    /// Keys held by the last accepted frame (bits 0..8), zero while paused or frozen.
    pub keys: Keys,
    /// Velocity by the last living frame, m/s.
    pub velocity: Vec3,
    /// Normalised camera direction by the last living frame.
    pub camera_front: Vec3,
    /// The pose, taken only from the frame of a living player and relayed while the
    /// player is dead (player.md, Admission: "the position and the pose (heading,
    /// move_state, crouch) only from the frame of a living player"): the heading in
    /// degrees, the speed band, the crouch.
    pub yaw: f32,
    pub move_state: MoveState,
    pub ducked: bool,
    pub on_ground: bool,
}

/// The game's own gravity (player.md, SetGravity).
pub const DEFAULT_GRAVITY: f32 = 0.008;

impl Default for Body {
    fn default() -> Self {
        Body {
            paused: false,
            on_fire: false,
            special_action: SpecialAction::None,
            gravity: DEFAULT_GRAVITY,
            keys: Keys::NONE,
            velocity: Vec3::ZERO,
            camera_front: Vec3::ZERO,
            yaw: 0.0,
            move_state: MoveState::Unset,
            ducked: false,
            on_ground: true,
        }
    }
}

/// The life generation within the connection, raised on every respawn (player.md,
/// death_epoch).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeathEpoch(pub u16);

/// The player's 11 weapon skills (player.md, PlayerSkills): slot 0 pistol .. 10 country and
/// sniper rifle, each 0..=1000. Default 999 each (the "pro" tier). Server state, not in the
/// Frame: a show of the player carries it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skills(pub [u16; 11]);

/// The default value of every skill slot.
pub const DEFAULT_SKILL: u16 = 999;

impl Default for Skills {
    fn default() -> Self {
        Skills([DEFAULT_SKILL; 11])
    }
}

/// A player's score as the server query's PlayerList shows it (query.md; `player:set_score`),
/// default 0. The query feature writes it; the scripts' view reads it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Score(pub i32);
