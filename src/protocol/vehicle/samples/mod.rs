//! Fixture values for vehicle, one file per packet family.

use crate::protocol::sample::Sample;

pub mod damage;
pub mod life;
pub mod params;
pub mod sync;
pub mod transform;
pub mod tuning;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families: [Vec<Box<dyn Sample>>; 6] = [
        sync::all(),
        life::all(),
        damage::all(),
        params::all(),
        tuning::all(),
        transform::all(),
    ];
    families.into_iter().flatten().collect()
}
