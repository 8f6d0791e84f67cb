//! Fixture values for player, one file per packet family.

use crate::protocol::sample::Sample;

pub mod life;
pub mod streaming;
pub mod sync;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [sync::all(), streaming::all(), life::all()];
    families.into_iter().flatten().collect()
}
