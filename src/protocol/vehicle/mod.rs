//! vehicles.md: streaming, seats, frames, shots, towing, trains, RC, damage, parameters, tuning, handling, transform, colors.

pub mod frame;
pub mod remote;
pub mod samples;
pub mod seats;
pub mod shot;
pub mod state;
pub mod towing;
pub mod train;
