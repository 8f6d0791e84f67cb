//! The pick-up rules that do not depend on the player (vehicles.md VehicleWinch,
//! "Pick-up"): both intact and not frozen, a winch whose magnet takes the load's model,
//! nobody in the load nor driving it remotely, neither in a hitch, the helicopter carrying
//! nothing, the load on no other helicopter, within 30 m. A VehicleWinch checks the sender
//! first (tow/flow.rs).

use super::magnet;
use crate::VehicleModels;
use crate::tow::links::{LinkFacts, LinkKind, LinkRefusal, Links, within};

/// A load is picked up within this distance of the two server positions, m.
pub const WINCH_DISTANCE: f32 = 30.0;

/// Whether the helicopter `heli` may carry `load` now.
pub fn check_pickup(
    load: &LinkFacts,
    heli: &LinkFacts,
    links: &Links,
    models: &VehicleModels,
) -> Result<(), LinkRefusal> {
    if load.id == heli.id {
        return Err(LinkRefusal::Loop);
    }
    if load.scope != heli.scope {
        return Err(LinkRefusal::NotStreamed);
    }
    if load.wrecked || heli.wrecked {
        return Err(LinkRefusal::Wrecked);
    }
    if load.frozen || heli.frozen {
        return Err(LinkRefusal::Frozen);
    }
    if !magnet::takes(models, heli.winch, load.model) {
        return Err(LinkRefusal::Magnet);
    }
    if load.seated || load.remote {
        return Err(LinkRefusal::Occupied);
    }
    let in_hitch =
        |v: &LinkFacts| v.hitch.tractor.is_some() || links.child(LinkKind::Trailer, v.id).is_some();
    if in_hitch(load) || in_hitch(heli) {
        return Err(LinkRefusal::Entangled);
    }
    if links.child(LinkKind::Lift, heli.id).is_some() || heli.hitch.lifter.is_some() {
        return Err(LinkRefusal::Busy);
    }
    if load.hitch.lifter.is_some() {
        return Err(LinkRefusal::Hangs);
    }
    if !within(load.position, heli.position, WINCH_DISTANCE) {
        return Err(LinkRefusal::TooFar);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::ids::VehicleId;
    use dlmp_protocol::vehicle::params::param;

    #[rstest]
    #[case::passes(|_: &mut LinkFacts, _: &mut LinkFacts| {}, Ok(()))]
    #[case::no_winch(|_: &mut LinkFacts, h: &mut LinkFacts| h.winch = 0, Err(LinkRefusal::Magnet))]
    #[case::the_small_magnet(|_: &mut LinkFacts, h: &mut LinkFacts| h.winch = param::SMALL_MAGNET, Err(LinkRefusal::Magnet))]
    #[case::a_passenger(|l: &mut LinkFacts, _: &mut LinkFacts| l.seated = true, Err(LinkRefusal::Occupied))]
    #[case::remote(|l: &mut LinkFacts, _: &mut LinkFacts| l.remote = true, Err(LinkRefusal::Occupied))]
    #[case::a_hitched_load(|l: &mut LinkFacts, _: &mut LinkFacts| l.hitch.tractor = Some(VehicleId(7)), Err(LinkRefusal::Entangled))]
    #[case::on_another_heli(|l: &mut LinkFacts, _: &mut LinkFacts| l.hitch.lifter = Some(VehicleId(7)), Err(LinkRefusal::Hangs))]
    #[case::frozen_heli(|_: &mut LinkFacts, h: &mut LinkFacts| h.frozen = true, Err(LinkRefusal::Frozen))]
    #[case::wrecked_load(|l: &mut LinkFacts, _: &mut LinkFacts| l.wrecked = true, Err(LinkRefusal::Wrecked))]
    #[case::at_30_m(|l: &mut LinkFacts, _: &mut LinkFacts| l.position.x = 30.0, Ok(()))]
    #[case::beyond_30_m(|l: &mut LinkFacts, _: &mut LinkFacts| l.position.x = 30.1, Err(LinkRefusal::TooFar))]
    fn one_rule_at_a_time(
        #[case] change: fn(&mut LinkFacts, &mut LinkFacts),
        #[case] expected: Result<(), LinkRefusal>,
    ) {
        let (mut load, mut heli) = (LinkFacts::at(2, 411, 5.0), LinkFacts::at(1, 487, 0.0));
        heli.winch = param::MAGNET;
        change(&mut load, &mut heli);
        assert_eq!(
            check_pickup(&load, &heli, &Links::default(), &VehicleModels::load()),
            expected
        );
    }

    #[test]
    fn a_helicopter_carries_one() {
        let (load, mut heli) = (LinkFacts::at(2, 411, 5.0), LinkFacts::at(1, 487, 0.0));
        heli.winch = param::MAGNET;
        let mut links = Links::default();
        links.set(LinkKind::Lift, VehicleId(3), Some(VehicleId(1)));
        assert_eq!(
            check_pickup(&load, &heli, &links, &VehicleModels::load()),
            Err(LinkRefusal::Busy)
        );
    }
}
