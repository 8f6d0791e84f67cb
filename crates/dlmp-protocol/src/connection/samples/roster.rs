//! Fixture values for nametags, joins and leaves.

use crate::connection::chat::Color;
use crate::connection::handshake::LeaveReason;
use crate::connection::roster::*;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::text::FixedText;

pub fn player_nametag() -> PlayerNametag {
    PlayerNametag {
        id: PlayerId(12),
        player_token: PlayerToken(57),
        event_id: EventId(1_290),
        color: Color::rgb(0x2E, 0x8B, 0x57),
        name: FixedText::new("[GSF]Sweet").expect("a valid name"),
    }
}

pub fn player_join() -> PlayerJoin {
    PlayerJoin {
        id: PlayerId(12),
        player_token: PlayerToken(57),
        event_id: EventId(1_289),
        name: FixedText::new("[GSF]Sweet").expect("a valid name"),
    }
}

pub fn player_leave() -> PlayerLeave {
    PlayerLeave {
        id: PlayerId(3),
        player_token: PlayerToken(19),
        event_id: EventId(1_291),
        reason: LeaveReason::Timeout,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("player_nametag.bin", player_nametag()),
        sample("player_join.bin", player_join()),
        sample("player_leave.bin", player_leave()),
    ]
}
