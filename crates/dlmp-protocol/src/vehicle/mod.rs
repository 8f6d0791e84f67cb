//! vehicles.md: streaming, seats, frames, shots, towing, trains, RC, damage, parameters,
//! tuning, handling, transform, colors.

pub mod damage;
pub mod frame;
pub mod life;
pub mod params;
pub mod remote;
pub mod samples;
pub mod seats;
pub mod shot;
pub mod state;
pub mod sync;
pub mod towing;
pub mod train;
pub mod transform;
pub mod tuning;
