//! The gamemode's handling of a vehicle (vehicles.md VehicleHandling): the properties it
//! set on top of the model's HANDLING.CFG values. The state is the vehicle's
//! [`ShowTail::handling`](crate::ShowTail) itself, the whole packet, `None` when
//! nothing is set: it has no other part. Decisions: docs/decisions/0064-vehicle-handling.md.

use bevy_ecs::prelude::*;

use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::vehicle::tuning::{HANDLING_PROPERTIES, HandlingProperty, VehicleHandling};

/// The properties the gamemode sets, by index of [`HANDLING_PROPERTIES`]; `None` = the
/// model's value.
pub type HandlingValues = [Option<f32>; HANDLING_PROPERTIES.len()];

/// `dlmp.set_vehicle_handling`: the vehicle's whole gamemode handling becomes `values`.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct HandlingCommand {
    pub id: VehicleId,
    pub values: HandlingValues,
}

/// Why a value is refused (the page's range, or a fraction of a whole-number property).
pub fn check(p: &HandlingProperty, v: f32) -> Result<f32, String> {
    if !(p.min..=p.max).contains(&v) {
        return Err(format!("{} {v} is outside {}..={}", p.name, p.min, p.max));
    }
    if p.integer && v.fract() != 0.0 {
        return Err(format!("{} {v} must be a whole number", p.name));
    }
    Ok(v)
}

/// The index of the property named `name` (the page's table, snake_case).
pub fn index(name: &str) -> Option<usize> {
    HANDLING_PROPERTIES.iter().position(|p| p.name == name)
}

/// The whole state on the wire; `None` when nothing is set. Values out of their range are
/// left out (the command checked them).
pub fn packet(id: VehicleId, values: &HandlingValues) -> Option<VehicleHandling> {
    let mut mask = 0;
    let mut out = [0.0; HANDLING_PROPERTIES.len()];
    for (i, (p, v)) in HANDLING_PROPERTIES.iter().zip(values).enumerate() {
        if let Some(v) = v.and_then(|v| check(p, v).ok()) {
            mask |= 1 << i;
            out[i] = v;
        }
    }
    (mask != 0).then_some(VehicleHandling {
        event_id: EventId(0),
        vehicle_id: id,
        mask,
        values: out,
    })
}

/// The empty state a vehicle's copies go back to when the gamemode clears the last
/// property (the packet is the whole state).
pub fn cleared(id: VehicleId) -> VehicleHandling {
    VehicleHandling {
        event_id: EventId(0),
        vehicle_id: id,
        mask: 0,
        values: [0.0; HANDLING_PROPERTIES.len()],
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::wire::Validate;

    #[rstest]
    #[case::mass_low("mass", 0.0, false)]
    #[case::mass_edge("mass", 1.0, true)]
    #[case::mass_high("mass", 100_001.0, false)]
    #[case::center_negative("center_of_mass_z", -10.0, true)]
    #[case::traction_negative("traction_multiplier", -100.0, true)]
    #[case::abs_one("abs", 1.0, true)]
    #[case::abs_half("abs", 0.5, false)]
    #[case::gears_fraction("number_of_gears", 2.5, false)]
    #[case::gears_zero("number_of_gears", 0.0, false)]
    #[case::velocity_floor("max_velocity", 0.1, true)]
    #[case::inertia_below("engine_inertia", 0.0, false)]
    fn ranges(#[case] name: &str, #[case] v: f32, #[case] ok: bool) {
        let i = index(name).expect("a property");
        assert_eq!(check(&HANDLING_PROPERTIES[i], v).is_ok(), ok);
    }

    #[test]
    fn the_packet_carries_the_set_properties_and_passes_the_decoder() {
        let mut values: HandlingValues = [None; 21];
        assert_eq!(packet(VehicleId(3), &values), None);
        values[0] = Some(1500.0);
        values[20] = Some(4.0);
        let p = packet(VehicleId(3), &values).expect("a packet");
        assert_eq!(p.mask, 1 | 1 << 20);
        assert_eq!((p.values[0], p.values[1], p.values[20]), (1500.0, 0.0, 4.0));
        assert!(p.validate().is_ok());
        assert!(cleared(VehicleId(3)).validate().is_ok());
    }
}
