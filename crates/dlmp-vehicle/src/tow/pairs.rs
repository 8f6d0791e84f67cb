//! The pairs the game hitches (vehicles.md VehicleTow): tow truck 525: any vehicle except
//! a trailer, a motorbike and a boat; tractor 531: the same and trailer 610; semis 403,
//! 514, 515 and the baggage trailers 606, 607: trailers; 552: 611; 485, 583: 606..=608.
//! A train is never a trailer: it stays on its rails (ADR 0066).

use crate::{VehicleClass, VehicleModels};

pub const TOW_TRUCK: u16 = 525;
pub const TRACTOR: u16 = 531;
/// The farm trailer, the one trailer the tractor takes.
pub const FARM_TRAILER: u16 = 610;
/// Semis and the two baggage trailers that pull trailers.
pub const TRAILER_PULLERS: [u16; 5] = [403, 514, 515, 606, 607];
pub const UTILITY_VAN: u16 = 552;
pub const UTILITY_TRAILER: u16 = 611;
/// Baggage 485 and Tug 583 pull the airport trailers 606..=608.
pub const BAGGAGE_TUGS: [u16; 2] = [485, 583];
pub const AIRPORT_TRAILERS: std::ops::RangeInclusive<u16> = 606..=608;

/// Whether the game hitches `trailer` to `tractor`.
pub fn tows(models: &VehicleModels, tractor: u16, trailer: u16) -> bool {
    let Some(class) = models.get(trailer).map(|m| m.class) else {
        return false;
    };
    let towable = !matches!(
        class,
        VehicleClass::Motorbike | VehicleClass::Boat | VehicleClass::Train
    );
    match tractor {
        TOW_TRUCK => towable && class != VehicleClass::Trailer,
        TRACTOR => towable && (class != VehicleClass::Trailer || trailer == FARM_TRAILER),
        UTILITY_VAN => trailer == UTILITY_TRAILER,
        m if TRAILER_PULLERS.contains(&m) => class == VehicleClass::Trailer,
        m if BAGGAGE_TUGS.contains(&m) => AIRPORT_TRAILERS.contains(&trailer),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::tow_truck_a_car(525, 411, true)]
    #[case::tow_truck_a_monster_truck(525, 444, true)]
    #[case::tow_truck_not_a_trailer(525, 610, false)]
    #[case::tow_truck_not_a_motorbike(525, 522, false)]
    #[case::tow_truck_not_a_boat(525, 473, false)]
    #[case::tow_truck_not_a_train(525, 449, false)]
    #[case::tractor_a_car(531, 411, true)]
    #[case::tractor_the_farm_trailer(531, 610, true)]
    #[case::tractor_no_other_trailer(531, 435, false)]
    #[case::semi_a_trailer(403, 435, true)]
    #[case::semi_not_a_car(514, 411, false)]
    #[case::baggage_trailer_a_trailer(606, 607, true)]
    #[case::utility_van_its_trailer(552, 611, true)]
    #[case::utility_van_no_other(552, 610, false)]
    #[case::tug_the_stairs(583, 608, true)]
    #[case::baggage_not_the_farm_trailer(485, 610, false)]
    #[case::a_car_tows_nothing(411, 610, false)]
    fn the_games_pairs(#[case] tractor: u16, #[case] trailer: u16, #[case] hitches: bool) {
        assert_eq!(tows(&VehicleModels::load(), tractor, trailer), hitches);
    }
}
