//! vehicles.md: streaming, seats, frames, shots, towing, trains, RC, damage, parameters, tuning, handling, transform, colors.

pub mod damage;
pub mod life;
pub mod params;
pub mod samples;
pub mod sync;
pub mod transform;
pub mod tuning;
