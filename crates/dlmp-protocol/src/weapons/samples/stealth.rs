//! Fixture values for the stealth kill family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::weapons::stealth::*;

pub fn stealth_kill_request() -> StealthKillRequest {
    StealthKillRequest {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(430),
        victim_id: PlayerId(31),
        victim_token: PlayerToken(88),
    }
}

/// Player 12 knifes player 31 from behind in an alley of Idlewood.
pub fn remote_stealth_kill() -> RemoteStealthKill {
    RemoteStealthKill {
        id: PlayerId(12),
        player_token: PlayerToken(57),
        event_id: EventId(6_031),
        victim_id: PlayerId(31),
        victim_token: PlayerToken(88),
        victim_life: 4,
        pos: Vec3::new(2066.5, -1697.25, 13.5),
        heading: 91.5,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("stealth_kill_request.bin", stealth_kill_request()),
        sample("remote_stealth_kill.bin", remote_stealth_kill()),
    ]
}
