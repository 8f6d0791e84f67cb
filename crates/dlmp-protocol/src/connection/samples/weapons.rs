//! Fixture values for weapon grants and shots.

use crate::connection::rewind::{RewindTarget, ShotRewind};
use crate::connection::weapons::*;
use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};

pub fn give_weapon() -> GiveWeapon {
    GiveWeapon {
        event_id: EventId(1_292),
        // M4
        weapon: 31,
        ammo: 250,
        weapon_rev: Revision(4),
    }
}

pub fn give_health() -> GiveHealth {
    GiveHealth {
        event_id: EventId(1_293),
        health: 75.5,
        vital_rev: Revision(9),
    }
}

pub fn give_armor() -> GiveArmor {
    GiveArmor {
        event_id: EventId(1_294),
        armor: 100.0,
        vital_rev: Revision(10),
    }
}

pub fn weapon_shot() -> WeaponShot {
    WeaponShot {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        order: Seq(8_812),
        // Desert Eagle
        weapon: 24,
        origin: Vec3::new(2_495.3, -1_668.9, 13.9),
        hit: Vec3::new(2_512.7, -1_660.2, 13.4),
        hit_kind: HitKind::Player,
        hit_id: 12,
        props_rev: Revision(0),
    }
}

pub fn remote_weapon_shot() -> RemoteWeaponShot {
    RemoteWeaponShot {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        order: Seq(8_812),
        weapon: 24,
        origin: Vec3::new(2_495.3, -1_668.9, 13.9),
        hit: Vec3::new(2_512.7, -1_660.2, 13.4),
        hit_kind: HitKind::Player,
        hit_id: 12,
        relation_rev: 3,
        teammate: false,
        rewind: ShotRewind {
            rewound: true,
            target_kind: RewindTarget::Player,
            target_id: 12,
            target_token: 57,
            target_pos: Vec3::new(2_512.6, -1_660.3, 13.5),
            shooter_pos: Vec3::new(2_495.1, -1_669.0, 13.5),
        },
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("give_weapon.bin", give_weapon()),
        sample("give_health.bin", give_health()),
        sample("give_armor.bin", give_armor()),
        sample("weapon_shot.bin", weapon_shot()),
        sample("remote_weapon_shot.bin", remote_weapon_shot()),
    ]
}
