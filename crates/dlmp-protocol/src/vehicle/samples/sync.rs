//! Fixture values for the sync family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::vehicle::params::param;
use crate::vehicle::sync::*;

use super::damage::crashed_status;

/// A dented Sultan (560) parked on Grove Street with its engine and lights on.
pub fn vehicle_sync() -> VehicleSync {
    VehicleSync {
        event_id: EventId(5120),
        vehicle_id: VehicleId(1042),
        active: true,
        model: 560,
        pos: Vec3::new(2495.33, -1684.61, 13.12),
        heading: 87.5,
        color1: 1,
        color2: 86,
        health: 742.5,
        flags: 0,
        epoch: VehicleEpoch(3),
        damage: crashed_status(),
        params: param::ENGINE | param::LIGHTS,
        doors: 0,
        relay_seq: Seq(18_234),
        health_rev: Revision(4),
        damage_rev: Revision(2),
        tractor_id: VehicleId::NONE,
        lifter_id: VehicleId::NONE,
        part: 0,
        siren_rev: Revision(0),
        pose_rev: Revision(1),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![sample("vehicle_sync.bin", vehicle_sync())]
}
