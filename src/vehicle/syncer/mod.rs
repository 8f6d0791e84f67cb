//! The syncer of a vehicle without a driver (vehicles.md, VehicleSyncer).

pub mod elect;
