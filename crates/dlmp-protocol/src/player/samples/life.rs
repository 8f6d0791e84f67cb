//! Fixture values for the life cycle: spawn, death, respawn.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::player::life::*;
use crate::sample::{Sample, sample};

pub fn respawn_request() -> RespawnRequest {
    RespawnRequest {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
    }
}

/// The County General hospital.
pub fn respawn_player() -> RespawnPlayer {
    RespawnPlayer {
        spawn: Vec3::new(2027.5, -1420.25, 16.99),
        heading: 2.35,
        area: 0,
    }
}

/// Shot dead with an M4, falling back.
pub fn death_report() -> DeathReport {
    DeathReport {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(58),
        weapon: 31,
        anim_group: 0,
        anim: 19,
    }
}

pub fn player_wasted() -> PlayerWasted {
    PlayerWasted {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(1_187),
        weapon: 31,
        anim_group: 0,
        anim: 19,
    }
}

pub fn player_spawned() -> PlayerSpawned {
    PlayerSpawned {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(1_240),
        spawn: Vec3::new(2027.5, -1420.25, 16.99),
        heading: 2.35,
        sync_seq: Seq(77_131),
    }
}

pub fn request_spawn() -> RequestSpawn {
    RequestSpawn {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
    }
}

/// Inside the house on Grove Street (interior 3).
pub fn spawn_player() -> SpawnPlayer {
    SpawnPlayer {
        spawn: Vec3::new(2496.05, -1693.9, 1014.74),
        heading: 3.05,
        area: 3,
        skin: 105,
        variant: 3,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("respawn_request.bin", respawn_request()),
        sample("respawn_player.bin", respawn_player()),
        sample("death_report.bin", death_report()),
        sample("player_wasted.bin", player_wasted()),
        sample("player_spawned.bin", player_spawned()),
        sample("request_spawn.bin", request_spawn()),
        sample("spawn_player.bin", spawn_player()),
    ]
}
