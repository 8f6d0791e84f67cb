//! Fixture values for player streaming.

use crate::ids::*;
use crate::player::streaming::*;
use crate::sample::{Sample, sample};

pub fn player_stream_out() -> PlayerStreamOut {
    PlayerStreamOut {
        player_id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(1_204),
        last_seq: Seq(77_118),
        last_shot_order: Seq(356),
    }
}

pub fn scope_changed() -> ScopeChanged {
    ScopeChanged {
        event_id: EventId(1_311),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("player_stream_out.bin", player_stream_out()),
        sample("scope_changed.bin", scope_changed()),
    ]
}
