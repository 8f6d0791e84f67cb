//! Fixture values for player, one file per packet family.

use crate::protocol::sample::Sample;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families: [Vec<Box<dyn Sample>>; 0] = [];
    families.into_iter().flatten().collect()
}
