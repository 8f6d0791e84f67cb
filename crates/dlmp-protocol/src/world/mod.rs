//! world.md: pickups, clock and weather, garages, labels, markers, objects, waypoints.

pub mod environment;
pub mod label;
pub mod markers;
pub mod object;
pub mod pickup;
pub mod samples;
pub mod shared;
pub mod waypoint;
