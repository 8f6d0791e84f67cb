//! Fixture values for player.md, one file per packet family.

use crate::sample::Sample;

pub mod animation;
pub mod appearance;
pub mod control;
pub mod hud;
pub mod life;
pub mod physics;
pub mod streaming;
pub mod sync;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [
        sync::all(),
        streaming::all(),
        life::all(),
        appearance::all(),
        hud::all(),
        animation::all(),
        control::all(),
        physics::all(),
    ];
    families.into_iter().flatten().collect()
}
