//! Fixture values for vehicle, one file per packet family.

use crate::protocol::sample::Sample;

pub mod frame;
pub mod remote;
pub mod seats;
pub mod shot;
pub mod towing;
pub mod train;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families: [Vec<Box<dyn Sample>>; 6] = [
        seats::all(),
        frame::all(),
        shot::all(),
        towing::all(),
        train::all(),
        remote::all(),
    ];
    families.into_iter().flatten().collect()
}
