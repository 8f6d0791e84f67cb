//! world.md: pickups, clock and weather, garages, labels, markers, objects, waypoints.

pub mod samples;
