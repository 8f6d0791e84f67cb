//! The damage status rules (vehicles.md VehicleDamage): which models have a status and of
//! what form, a report's checks, and how it merges into the stored status. I/O-free.

use crate::VehicleClass;
use dlmp_protocol::vehicle::damage::{
    DOOR_OPEN_BIT, LIGHTS_MASK, PANEL_COUNT, ReportedStatus, VehicleDamageStatus,
};

/// The wheeled RC models (RC Bandit, RC Tiger, RC Cam): automobiles in the game, with a
/// car's status (ADR 0061). The flying ones (464, 465, 501) have none.
pub const WHEELED_RC: [u16; 3] = [441, 564, 594];

/// A motorbike's wheel: 0 intact, 1 burst (no "fallen off").
pub const MAX_BIKE_WHEEL: u8 = 1;

/// The form of a model's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Panels, doors, lights and four wheels: cars, the quad bike, monster trucks, and the
    /// game's other automobiles (trailers, the wheeled RCs; ADR 0061).
    Full,
    /// A motorbike: `wheels[0]` front and `wheels[1]` rear, 0 or 1; the rest zero.
    Motorbike,
    /// Bicycles, boats, aircraft (the flying RCs too) and trains have no status.
    None,
}

impl Shape {
    pub fn of(model: u16, class: VehicleClass) -> Shape {
        match class {
            VehicleClass::Car
            | VehicleClass::MonsterTruck
            | VehicleClass::QuadBike
            | VehicleClass::Trailer => Shape::Full,
            VehicleClass::Rc if WHEELED_RC.contains(&model) => Shape::Full,
            VehicleClass::Motorbike => Shape::Motorbike,
            VehicleClass::Rc
            | VehicleClass::Bicycle
            | VehicleClass::Boat
            | VehicleClass::Helicopter
            | VehicleClass::Plane
            | VehicleClass::Train => Shape::None,
        }
    }

    /// Whether `status` has this form (a motorbike's: only its two wheels, each 0 or 1).
    pub fn fits(self, status: &VehicleDamageStatus) -> bool {
        match self {
            Shape::Full => true,
            Shape::Motorbike => {
                status.panels == 0
                    && status.doors == [0; 6]
                    && status.lights == 0
                    && status.wheels[2..] == [0, 0]
                    && status.wheels[..2].iter().all(|&w| w <= MAX_BIKE_WHEEL)
            }
            Shape::None => *status == VehicleDamageStatus::INTACT,
        }
    }
}

/// Why a report's status is not taken, before the server's state is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusRefusal {
    /// The model has no status (bicycles, boats, aircraft, trains).
    NoStatus,
    /// A panel above 3 or in the top nibble, a door above 4, a wheel above 2 (a light
    /// outside the mask is masked).
    Range,
    /// A motorbike's report with anything but its two wheels, or a wheel "fallen off".
    MotorbikeForm,
}

/// A report's status as the server takes it: in range, the open bit of every door
/// cleared, of the model's form. A motorbike report with other fields is dropped whole:
/// the client the page describes never sends one, so nothing in it is trusted (ADR 0061).
pub fn reported(
    shape: Shape,
    report: &ReportedStatus,
) -> Result<VehicleDamageStatus, StatusRefusal> {
    if shape == Shape::None {
        return Err(StatusRefusal::NoStatus);
    }
    let mut status = report.checked().map_err(|_| StatusRefusal::Range)?;
    for d in &mut status.doors {
        *d &= !DOOR_OPEN_BIT;
    }
    if !shape.fits(&status) {
        return Err(StatusRefusal::MotorbikeForm);
    }
    Ok(status)
}

/// The stored status after a report (both in range): only more damage (vehicles.md: "the per-component
/// maximum with the stored status (lights: the union within the mask)").
pub fn merge(stored: &VehicleDamageStatus, report: &VehicleDamageStatus) -> VehicleDamageStatus {
    let mut panels = 0;
    for i in 0..PANEL_COUNT {
        let p = stored.panel(i).max(report.panel(i));
        panels |= u32::from(p) << (4 * i);
    }
    let mut doors = stored.doors;
    for (d, r) in doors.iter_mut().zip(report.doors) {
        *d = (*d).max(r) & !DOOR_OPEN_BIT;
    }
    let mut wheels = stored.wheels;
    for (w, r) in wheels.iter_mut().zip(report.wheels) {
        *w = (*w).max(r);
    }
    VehicleDamageStatus {
        panels,
        doors,
        lights: (stored.lights | report.lights) & LIGHTS_MASK,
        wheels,
    }
}

/// The parts of a status a gamemode command sets; a part left out keeps the stored one
/// (ADR 0061).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatusParts {
    pub panels: Option<u32>,
    pub doors: Option<[u8; 6]>,
    pub lights: Option<u32>,
    pub wheels: Option<[u8; 4]>,
}

impl StatusParts {
    /// Every part given: the whole status.
    pub fn all(s: VehicleDamageStatus) -> Self {
        StatusParts {
            panels: Some(s.panels),
            doors: Some(s.doors),
            lights: Some(s.lights),
            wheels: Some(s.wheels),
        }
    }

    /// `stored` with the given parts replaced.
    pub fn over(&self, stored: &VehicleDamageStatus) -> VehicleDamageStatus {
        VehicleDamageStatus {
            panels: self.panels.unwrap_or(stored.panels),
            doors: self.doors.unwrap_or(stored.doors),
            lights: self.lights.unwrap_or(stored.lights),
            wheels: self.wheels.unwrap_or(stored.wheels),
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn status(panels: u32, doors: [u8; 6], lights: u32, wheels: [u8; 4]) -> VehicleDamageStatus {
        VehicleDamageStatus {
            panels,
            doors,
            lights,
            wheels,
        }
    }

    #[rstest]
    #[case::car(411, VehicleClass::Car, Shape::Full)]
    #[case::quad_bike(471, VehicleClass::QuadBike, Shape::Full)]
    #[case::monster_truck(444, VehicleClass::MonsterTruck, Shape::Full)]
    #[case::trailer(435, VehicleClass::Trailer, Shape::Full)]
    #[case::rc_bandit(441, VehicleClass::Rc, Shape::Full)]
    #[case::rc_baron(464, VehicleClass::Rc, Shape::None)]
    #[case::motorbike(522, VehicleClass::Motorbike, Shape::Motorbike)]
    #[case::bicycle(510, VehicleClass::Bicycle, Shape::None)]
    #[case::boat(452, VehicleClass::Boat, Shape::None)]
    #[case::helicopter(487, VehicleClass::Helicopter, Shape::None)]
    #[case::plane(513, VehicleClass::Plane, Shape::None)]
    #[case::train(538, VehicleClass::Train, Shape::None)]
    fn shapes(#[case] model: u16, #[case] class: VehicleClass, #[case] shape: Shape) {
        assert_eq!(Shape::of(model, class), shape);
    }

    #[test]
    fn the_shapes_follow_the_model_table() {
        let models = crate::VehicleModels::load();
        let shape = |m| Shape::of(m, models.get(m).expect("a model").class);
        assert_eq!(shape(411), Shape::Full);
        assert_eq!(shape(522), Shape::Motorbike);
        assert_eq!(shape(481), Shape::None, "BMX");
        assert_eq!(shape(594), Shape::Full, "RC Cam");
        assert_eq!(shape(501), Shape::None, "RC Goblin");
    }

    #[test]
    fn a_merge_keeps_the_worst_of_each_part_and_the_union_of_the_lights() {
        let stored = status(0x0000_0312, [2, 0, 4, 0, 0, 2], 0x01, [1, 0, 0, 2]);
        let report = status(0x0030_0103, [0, 2, 2, 4, 0, 0], 0x44, [0, 2, 1, 0]);
        assert_eq!(
            merge(&stored, &report),
            status(0x0030_0313, [2, 2, 4, 4, 0, 2], 0x45, [1, 2, 1, 2])
        );
        assert_eq!(merge(&report, &stored), merge(&stored, &report));
        assert_eq!(merge(&stored, &VehicleDamageStatus::INTACT), stored);
    }

    #[rstest]
    #[case::open_intact(1, 0)]
    #[case::open_damaged(3, 2)]
    #[case::missing(4, 4)]
    #[case::damaged(2, 2)]
    fn the_open_bit_is_cleared(#[case] door: u8, #[case] taken: u8) {
        let r = ReportedStatus(status(0, [door; 6], 0, [0; 4]));
        assert_eq!(reported(Shape::Full, &r).map(|s| s.doors), Ok([taken; 6]));
    }

    #[rstest]
    #[case::panel_4(status(0x4, [0; 6], 0, [0; 4]))]
    #[case::top_nibble(status(0x1000_0000, [0; 6], 0, [0; 4]))]
    #[case::door_5(status(0, [0, 0, 0, 0, 0, 5], 0, [0; 4]))]
    #[case::wheel_3(status(0, [0; 6], 0, [0, 0, 0, 3]))]
    fn out_of_range_is_refused(#[case] s: VehicleDamageStatus) {
        assert_eq!(
            reported(Shape::Full, &ReportedStatus(s)),
            Err(StatusRefusal::Range)
        );
    }

    #[test]
    fn lights_outside_the_mask_are_masked() {
        let r = ReportedStatus(status(0x1, [0; 6], 0xFF, [0; 4]));
        assert_eq!(
            reported(Shape::Full, &r),
            Ok(status(0x1, [0; 6], 0x55, [0; 4]))
        );
    }

    #[rstest]
    #[case::both_wheels_burst(status(0, [0; 6], 0, [1, 1, 0, 0]), Ok(()))]
    #[case::intact(VehicleDamageStatus::INTACT, Ok(()))]
    #[case::a_door_open_only(status(0, [1, 0, 0, 0, 0, 0], 0, [1, 0, 0, 0]), Ok(()))]
    #[case::a_panel(status(0x1, [0; 6], 0, [1, 0, 0, 0]), Err(StatusRefusal::MotorbikeForm))]
    #[case::a_door(status(0, [2, 0, 0, 0, 0, 0], 0, [0; 4]), Err(StatusRefusal::MotorbikeForm))]
    #[case::a_light(status(0, [0; 6], 0x01, [0; 4]), Err(StatusRefusal::MotorbikeForm))]
    #[case::a_third_wheel(status(0, [0; 6], 0, [0, 0, 1, 0]), Err(StatusRefusal::MotorbikeForm))]
    #[case::a_wheel_off(status(0, [0; 6], 0, [2, 0, 0, 0]), Err(StatusRefusal::MotorbikeForm))]
    fn a_motorbike_reports_its_two_wheels_only(
        #[case] s: VehicleDamageStatus,
        #[case] expected: Result<(), StatusRefusal>,
    ) {
        let got = reported(Shape::Motorbike, &ReportedStatus(s)).map(|_| ());
        assert_eq!(got, expected);
    }

    #[test]
    fn a_model_without_a_status_takes_no_report() {
        let r = ReportedStatus(VehicleDamageStatus::INTACT);
        assert_eq!(reported(Shape::None, &r), Err(StatusRefusal::NoStatus));
    }

    #[test]
    fn parts_left_out_keep_the_stored_ones() {
        let stored = status(0x0000_0312, [2, 0, 4, 0, 0, 2], 0x01, [1, 0, 0, 2]);
        let parts = StatusParts {
            wheels: Some([0; 4]),
            ..StatusParts::default()
        };
        assert_eq!(
            parts.over(&stored),
            status(0x0000_0312, [2, 0, 4, 0, 0, 2], 0x01, [0; 4])
        );
        assert_eq!(
            StatusParts::all(VehicleDamageStatus::INTACT).over(&stored),
            VehicleDamageStatus::INTACT
        );
    }
}
