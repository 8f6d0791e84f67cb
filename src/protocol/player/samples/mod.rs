//! Fixture values for player, one file per packet family.

use crate::protocol::sample::Sample;

pub mod animation;
pub mod appearance;
pub mod control;
pub mod hud;
pub mod physics;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [
        appearance::all(),
        hud::all(),
        animation::all(),
        control::all(),
        physics::all(),
    ];
    families.into_iter().flatten().collect()
}
