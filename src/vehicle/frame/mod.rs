//! VehicleFrame (vehicles.md): acceptance, the field rules, the server's state an accepted
//! frame changes, and the relay RemoteVehicleFrame.

pub mod accept;
pub mod fields;
