//! Fixture values for world, one file per packet family.

use crate::sample::Sample;

pub mod environment;
pub mod label;
pub mod markers;
pub mod object;
pub mod pickup;
pub mod waypoint;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [
        pickup::all(),
        environment::all(),
        label::all(),
        markers::all(),
        object::all(),
        waypoint::all(),
    ];
    families.into_iter().flatten().collect()
}
