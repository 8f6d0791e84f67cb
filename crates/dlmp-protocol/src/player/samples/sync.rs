//! Fixture values for on-foot sync.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::player::action::SpecialAction;
use crate::player::sync::*;
use crate::sample::{Sample, sample};

/// Sprinting down Grove Street with an M4, aiming at player 12.
pub fn player_sync() -> PlayerSync {
    PlayerSync {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        seq: Seq(18_342),
        frame: Frame {
            pos: Vec3::new(2495.25, -1687.5, 13.34),
            yaw: 143.0,
            keys: Keys::FORWARD | Keys::SPRINT | Keys::AIM,
            ducked: false,
            cam: Vec3::new(0.6, -0.8, 0.0),
            vel: Vec3::new(0.15, -0.2, 0.0),
            shift_x: 0.01,
            shift_y: 0.24,
            move_state: MoveState::Sprint,
            on_ground: true,
            hp: 87.5,
            armor: 25.0,
            alive: true,
            death_epoch: 2,
            weapon: 31,
            state: WeaponState::Firing.to_repr(),
            clip: 42,
            total: 342,
            cam_yaw: 2.21,
            weapon_rev: Revision(5),
            parachute_stage: ParachuteStage::None.to_repr(),
            paused: false,
            on_fire: false,
            special_action: SpecialAction::None,
            special_rev: Revision(1),
            jet_thrust: 0,
            jet_stop: false,
            jet_strafe: 0.0,
            jet_angle: 0.0,
            aim_target: 12,
            physics_rev: Revision(3),
            vital_rev: Revision(4),
            damage_seq: Seq(9),
        },
    }
}

/// Player 7 climbing on a jetpack over Ganton, a teammate of the recipient.
pub fn remote_player_sync() -> RemotePlayerSync {
    RemotePlayerSync {
        player_id: PlayerId(7),
        player_token: PlayerToken(42),
        seq: Seq(77_120),
        frame: Frame {
            pos: Vec3::new(2412.75, -1650.0, 48.5),
            yaw: 270.5,
            keys: Keys::FORWARD | Keys::LEFT,
            ducked: false,
            cam: Vec3::new(-0.8, 0.0, 0.6),
            vel: Vec3::new(-0.24, 0.05, 0.12),
            shift_x: 0.0,
            shift_y: 0.0,
            move_state: MoveState::Still,
            on_ground: false,
            hp: 64.0,
            armor: 0.0,
            alive: true,
            death_epoch: 3,
            weapon: 24,
            state: WeaponState::Reloading.to_repr(),
            clip: 0,
            total: 21,
            cam_yaw: -1.57,
            weapon_rev: Revision(11),
            parachute_stage: ParachuteStage::None.to_repr(),
            paused: false,
            on_fire: false,
            special_action: SpecialAction::Jetpack,
            special_rev: Revision(6),
            jet_thrust: 1,
            jet_stop: false,
            jet_strafe: -1.25,
            jet_angle: 0.35,
            aim_target: NO_AIM_TARGET,
            physics_rev: Revision(0),
            vital_rev: Revision(0),
            damage_seq: Seq(0),
        },
        skin: 105,
        variant: 3,
        walk_style: 121,
        fight_style: 6,
        headless: false,
        damage_group: 2,
        relation_rev: 7,
        teammate: true,
        gravity: 0.008,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("player_sync.bin", player_sync()),
        sample("remote_player_sync.bin", remote_player_sync()),
    ]
}
