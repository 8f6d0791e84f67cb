//! Fixture values for the HUD family.

use crate::ids::*;
use crate::player::hud::*;
use crate::sample::{Sample, sample};

pub fn set_wanted() -> SetWanted {
    SetWanted {
        event_id: EventId(57),
        level: 4,
    }
}

pub fn set_money() -> SetMoney {
    SetMoney {
        event_id: EventId(58),
        amount: 152_300,
    }
}

pub fn set_drunk_level() -> SetDrunkLevel {
    SetDrunkLevel {
        event_id: EventId(59),
        level: 180,
    }
}

pub fn set_player_stats() -> SetPlayerStats {
    SetPlayerStats {
        event_id: EventId(60),
        stamina: 650,
        lung_capacity: 820,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("set_wanted.bin", set_wanted()),
        sample("set_money.bin", set_money()),
        sample("set_drunk_level.bin", set_drunk_level()),
        sample("set_player_stats.bin", set_player_stats()),
    ]
}
