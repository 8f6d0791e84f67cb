//! Fixture values for the appearance family.

use crate::ids::*;
use crate::player::appearance::*;
use crate::sample::{Sample, sample};

pub fn player_skills() -> PlayerSkills {
    PlayerSkills {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(118),
        skills: [999, 40, 1000, 200, 0, 650, 999, 720, 1000, 875, 300],
    }
}

pub fn set_skin() -> SetSkin {
    SetSkin {
        event_id: EventId(12),
        model: 105,
        variant: 3,
    }
}

pub fn set_walking_style() -> SetWalkingStyle {
    SetWalkingStyle {
        event_id: EventId(31),
        style: WalkingStyle(127),
    }
}

pub fn set_fighting_style() -> SetFightingStyle {
    SetFightingStyle {
        event_id: EventId(32),
        style: FightingStyle::KungFu,
    }
}

pub fn set_headless() -> SetHeadless {
    SetHeadless {
        event_id: EventId(33),
        headless: true,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("player_skills.bin", player_skills()),
        sample("set_skin.bin", set_skin()),
        sample("set_walking_style.bin", set_walking_style()),
        sample("set_fighting_style.bin", set_fighting_style()),
        sample("set_headless.bin", set_headless()),
    ]
}
