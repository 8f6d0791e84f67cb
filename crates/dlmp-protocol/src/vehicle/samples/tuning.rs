//! Fixture values for the tuning family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::text::FixedText;
use crate::vehicle::tuning::*;

/// A Sultan with a spoiler, side skirts, 10x nitro, hydraulics, Offroad wheels and an
/// exhaust, paintjob 1 and a custom plate.
pub fn vehicle_tuning() -> VehicleTuning {
    let mut components = [0; kind::COUNT];
    components[kind::SPOILER] = 1029;
    components[kind::SIDE_SKIRTS] = 1031;
    components[kind::NITRO] = 1010;
    components[kind::HYDRAULICS] = 1087;
    components[kind::WHEELS] = 1025;
    components[kind::EXHAUST] = 1028;
    VehicleTuning {
        event_id: EventId(5121),
        vehicle_id: VehicleId(1042),
        components,
        paintjob: 1,
        plate: FixedText::new("GROVE 92").expect("an 8-character plate"),
        dirt: 3,
        flags: 0,
        nitro: 7,
    }
}

/// A heavier, grippier car with a fifth gear and ABS.
pub fn vehicle_handling() -> VehicleHandling {
    let mut values = [0.0; 21];
    let mut mask = 0;
    for (i, v) in [
        (0, 1850.0),
        (5, -0.15),
        (6, 0.82),
        (11, 1.0),
        (17, 230.0),
        (18, 14.5),
        (20, 5.0),
    ] {
        values[i] = v;
        mask |= 1 << i;
    }
    VehicleHandling {
        event_id: EventId(5122),
        vehicle_id: VehicleId(1042),
        mask,
        values,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("vehicle_tuning.bin", vehicle_tuning()),
        sample("vehicle_handling.bin", vehicle_handling()),
    ]
}
