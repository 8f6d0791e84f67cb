//! What a helicopter's magnet takes (vehicles.md VehicleWinch): the magnet: cars, monster
//! trucks, motorbikes, Dinghy 473 and Vortex 539, but not the quad bike, bicycles,
//! trailers, trains, other boats or aircraft; the small magnet: only RC Tiger 564.

use crate::{VehicleClass, VehicleModels};
use dlmp_protocol::vehicle::params::param;

pub const DINGHY: u16 = 473;
pub const VORTEX: u16 = 539;
pub const RC_TIGER: u16 = 564;

/// Whether a winch with these VehicleParams bits takes `model`.
pub fn takes(models: &VehicleModels, winch: u16, model: u16) -> bool {
    if winch & param::SMALL_MAGNET != 0 {
        return model == RC_TIGER;
    }
    if winch & param::MAGNET == 0 {
        return false;
    }
    model == DINGHY
        || model == VORTEX
        || models.get(model).is_some_and(|m| {
            matches!(
                m.class,
                VehicleClass::Car | VehicleClass::MonsterTruck | VehicleClass::Motorbike
            )
        })
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const M: u16 = param::MAGNET;
    const S: u16 = param::SMALL_MAGNET;

    #[rstest]
    #[case::a_car(M, 411, true)]
    #[case::a_monster_truck(M, 444, true)]
    #[case::a_motorbike(M, 522, true)]
    #[case::the_dinghy(M, 473, true)]
    #[case::the_vortex(M, 539, true)]
    #[case::not_the_quad(M, 471, false)]
    #[case::not_a_bicycle(M, 509, false)]
    #[case::not_a_trailer(M, 610, false)]
    #[case::not_a_train(M, 449, false)]
    #[case::not_another_boat(M, 430, false)]
    #[case::not_a_plane(M, 520, false)]
    #[case::not_a_helicopter(M, 487, false)]
    #[case::not_rc_tiger(M, 564, false)]
    #[case::small_rc_tiger(S, 564, true)]
    #[case::small_not_a_car(S, 411, false)]
    #[case::no_winch(0, 411, false)]
    fn the_magnets(#[case] winch: u16, #[case] model: u16, #[case] taken: bool) {
        assert_eq!(takes(&VehicleModels::load(), winch, model), taken);
    }
}
