//! The server's admission refusals of a player's own packets, as a message for whoever
//! watches them (the scripts' `player_frame_refused` / `player_shot_refused`, an
//! anti-cheat): the frame and shot admissions write one per refusal, beside their counts.

use bevy_ecs::prelude::*;

/// Which admission refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// A PlayerSync frame (`FrameDrop`).
    Frame,
    /// A WeaponShot (`ShotDrop`).
    Shot,
}

/// A packet of `player` was refused for `reason` (a snake_case word of the drop).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionRefused {
    pub player: Entity,
    pub admission: Admission,
    pub reason: &'static str,
}
