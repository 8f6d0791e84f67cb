//! Fixture values for the animation family.

use crate::ids::*;
use crate::player::animation::*;
use crate::sample::{Sample, sample};
use crate::text::FixedText;

pub fn apply_animation() -> ApplyAnimation {
    ApplyAnimation {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(204),
        lib: FixedText::new("DANCING").expect("a valid library"),
        name: FixedText::new("dnce_M_b").expect("a valid name"),
        delta: 4.1,
        flags: AnimationFlags::LOOP | AnimationFlags::DONT_INTERRUPT,
        time: 15_000,
        speed: 1.25,
        elapsed_ms: 3_200,
    }
}

pub fn clear_animations() -> ClearAnimations {
    ClearAnimations {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(207),
    }
}

pub fn set_animation_progress() -> SetAnimationProgress {
    SetAnimationProgress {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(205),
        progress: 0.375,
    }
}

pub fn set_animation_speed() -> SetAnimationSpeed {
    SetAnimationSpeed {
        id: PlayerId(7),
        player_token: PlayerToken(42),
        event_id: EventId(206),
        speed: 0.5,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("apply_animation.bin", apply_animation()),
        sample("clear_animations.bin", clear_animations()),
        sample("set_animation_progress.bin", set_animation_progress()),
        sample("set_animation_speed.bin", set_animation_speed()),
    ]
}
