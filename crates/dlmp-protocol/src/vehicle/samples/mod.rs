//! Fixture values for vehicles.md, one file per packet family.

use crate::sample::Sample;

pub mod damage;
pub mod frame;
pub mod life;
pub mod params;
pub mod remote;
pub mod seats;
pub mod shot;
pub mod sync;
pub mod towing;
pub mod train;
pub mod transform;
pub mod tuning;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [
        sync::all(),
        seats::all(),
        frame::all(),
        shot::all(),
        towing::all(),
        train::all(),
        remote::all(),
        life::all(),
        damage::all(),
        params::all(),
        tuning::all(),
        transform::all(),
    ];
    families.into_iter().flatten().collect()
}
