//! The hitch rules that do not depend on the player (vehicles.md VehicleTow, "Hitch"):
//! both intact and not frozen, the trailer without a driver and hanging on nothing, the
//! tractor towing nothing, neither in a winch, no loop, at most 4 links, the game's pair,
//! within 25 m. A VehicleTow checks the sender first (flow.rs); `dlmp.attach_trailer`
//! checks only these.

use super::links::{LinkFacts, LinkKind, LinkRefusal, Links, MAX_LINKS, within};
use super::pairs;
use crate::VehicleModels;

/// A hitch is made within this distance of the two server positions, m.
pub const HITCH_DISTANCE: f32 = 25.0;

/// Whether `trailer` may be hitched to `tractor` now.
pub fn check_hitch(
    trailer: &LinkFacts,
    tractor: &LinkFacts,
    links: &Links,
    models: &VehicleModels,
) -> Result<(), LinkRefusal> {
    if trailer.id == tractor.id {
        return Err(LinkRefusal::Loop);
    }
    if trailer.scope != tractor.scope {
        return Err(LinkRefusal::NotStreamed);
    }
    if trailer.wrecked || tractor.wrecked {
        return Err(LinkRefusal::Wrecked);
    }
    if trailer.frozen || tractor.frozen {
        return Err(LinkRefusal::Frozen);
    }
    if trailer.driven || trailer.remote {
        return Err(LinkRefusal::Driven);
    }
    if trailer.hitch.tractor.is_some() || trailer.hitch.lifter.is_some() {
        return Err(LinkRefusal::Hangs);
    }
    if links.child(LinkKind::Trailer, tractor.id).is_some() {
        return Err(LinkRefusal::Busy);
    }
    if tractor.hitch.lifter.is_some()
        || links.child(LinkKind::Lift, tractor.id).is_some()
        || links.child(LinkKind::Lift, trailer.id).is_some()
    {
        return Err(LinkRefusal::Entangled);
    }
    if links.tows_through(trailer.id, tractor.id) {
        return Err(LinkRefusal::Loop);
    }
    if links.links_above(tractor.id) + 1 + links.links_below(trailer.id) > MAX_LINKS {
        return Err(LinkRefusal::TooLong);
    }
    if !pairs::tows(models, tractor.model, trailer.model) {
        return Err(LinkRefusal::Pair);
    }
    if !within(trailer.position, tractor.position, HITCH_DISTANCE) {
        return Err(LinkRefusal::TooFar);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::ids::VehicleId;

    fn check(trailer: LinkFacts, tractor: LinkFacts, links: &Links) -> Result<(), LinkRefusal> {
        check_hitch(&trailer, &tractor, links, &VehicleModels::load())
    }

    #[rstest]
    #[case::passes(|_: &mut LinkFacts, _: &mut LinkFacts| {}, Ok(()))]
    #[case::wrecked_trailer(|t: &mut LinkFacts, _: &mut LinkFacts| t.wrecked = true, Err(LinkRefusal::Wrecked))]
    #[case::wrecked_tractor(|_: &mut LinkFacts, r: &mut LinkFacts| r.wrecked = true, Err(LinkRefusal::Wrecked))]
    #[case::frozen_tractor(|_: &mut LinkFacts, r: &mut LinkFacts| r.frozen = true, Err(LinkRefusal::Frozen))]
    #[case::driven_trailer(|t: &mut LinkFacts, _: &mut LinkFacts| t.driven = true, Err(LinkRefusal::Driven))]
    #[case::a_passenger_is_no_driver(|t: &mut LinkFacts, _: &mut LinkFacts| t.seated = true, Ok(()))]
    #[case::remote_trailer(|t: &mut LinkFacts, _: &mut LinkFacts| t.remote = true, Err(LinkRefusal::Driven))]
    #[case::lifted_trailer(|t: &mut LinkFacts, _: &mut LinkFacts| t.hitch.lifter = Some(VehicleId(9)), Err(LinkRefusal::Hangs))]
    #[case::lifted_tractor(|_: &mut LinkFacts, r: &mut LinkFacts| r.hitch.lifter = Some(VehicleId(9)), Err(LinkRefusal::Entangled))]
    #[case::another_world(|t: &mut LinkFacts, _: &mut LinkFacts| t.scope.virtual_world = 2, Err(LinkRefusal::NotStreamed))]
    #[case::at_25_m(|t: &mut LinkFacts, _: &mut LinkFacts| t.position.x = 25.0, Ok(()))]
    #[case::beyond_25_m(|t: &mut LinkFacts, _: &mut LinkFacts| t.position.x = 25.1, Err(LinkRefusal::TooFar))]
    #[case::not_a_pair(|t: &mut LinkFacts, _: &mut LinkFacts| t.model = 522, Err(LinkRefusal::Pair))]
    fn one_rule_at_a_time(
        #[case] change: fn(&mut LinkFacts, &mut LinkFacts),
        #[case] expected: Result<(), LinkRefusal>,
    ) {
        let (mut trailer, mut tractor) = (LinkFacts::at(2, 411, 5.0), LinkFacts::at(1, 525, 0.0));
        change(&mut trailer, &mut tractor);
        assert_eq!(check(trailer, tractor, &Links::default()), expected);
    }

    #[test]
    fn a_tractor_tows_one_and_a_loop_is_refused() {
        let mut links = Links::default();
        links.set(LinkKind::Trailer, VehicleId(3), Some(VehicleId(1)));
        assert_eq!(
            check(
                LinkFacts::at(2, 411, 5.0),
                LinkFacts::at(1, 525, 0.0),
                &links
            ),
            Err(LinkRefusal::Busy)
        );
        // 1 tows 3; 3 (a tow truck) hitching 1 closes the loop.
        assert_eq!(
            check(
                LinkFacts::at(1, 525, 0.0),
                LinkFacts::at(3, 525, 5.0),
                &links
            ),
            Err(LinkRefusal::Loop)
        );
    }
}
