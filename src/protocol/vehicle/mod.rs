//! vehicles.md: streaming, seats, frames, shots, towing, trains, RC, damage, parameters, tuning, handling, transform, colors.

pub mod samples;
