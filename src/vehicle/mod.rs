//! Vehicles (vehicles.md).

pub mod frame;
pub mod syncer;
