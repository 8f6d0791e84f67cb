//! The syncer election for one vehicle (vehicles.md, VehicleSyncer): I/O-free. The plugin
//! gathers the vehicle's facts into a [`Ballot`] and [`elect`] answers who syncs. The
//! players near the vehicle are asked for last, and only when no rule before the nearest
//! decided (they come from a grid query): a vehicle that keeps its syncer costs no search.
//! Decisions: docs/decisions/0057-syncer-election.md.

use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;

/// The previous syncer keeps the vehicle while closer than this, m; the nearest player is
/// chosen within it.
pub const SYNC_RANGE: f32 = 130.0;

/// A player as the election sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate<P> {
    pub player: P,
    pub position: Vec3,
    /// Spawned and alive, not paused, not frozen: the only players who may sync.
    pub eligible: bool,
    /// The vehicle is streamed to this player.
    pub streamed: bool,
}

impl<P> Candidate<P> {
    fn may_sync(&self) -> bool {
        self.eligible && self.streamed
    }
}

/// One vehicle's facts for the election.
#[derive(Debug, Clone, PartialEq)]
pub struct Ballot<'a, P> {
    pub position: Vec3,
    /// Seat 0 holds a player who is neither paused nor frozen: the vehicle has no syncer.
    pub driven: bool,
    /// An RC's remote driver (vehicles.md VehicleRemote: "the server makes the player the
    /// RC's syncer"): it syncs the RC whenever it may sync at all; a paused or frozen
    /// driver leaves the RC to the rules below without losing it.
    pub remote: Option<Candidate<P>>,
    /// A hitched vehicle's tractor's controller, or a winch load's helicopter's: it alone
    /// may sync the vehicle, and the passengers do not. `Some(None)`: hitched or lifted,
    /// but the other end has no controller.
    pub towed_by: Option<Option<Candidate<P>>>,
    /// The passengers, in seat order.
    pub passengers: &'a [Candidate<P>],
    /// The previous syncer, if it is still connected.
    pub previous: Option<Candidate<P>>,
}

/// The syncer, in the page's order: none while driven; an RC's remote driver; a hitched vehicle's or winch
/// load's other end's controller if the vehicle is streamed to it; the first passenger
/// who may sync; the previous syncer while streamed to and closer than 130 m; the nearest
/// player the vehicle is streamed to within 130 m (ties: the lower player); else none. A
/// paused or frozen player never syncs. `nearby` gives the players within [`SYNC_RANGE`]
/// of the vehicle, in any order (a superset will do); it is called only if the nearest
/// decides.
pub fn elect<P: Copy + Ord, I: IntoIterator<Item = Candidate<P>>>(
    b: &Ballot<'_, P>,
    nearby: impl FnOnce() -> I,
) -> Option<P> {
    if b.driven {
        return None;
    }
    if let Some(c) = b.remote.filter(Candidate::may_sync) {
        return Some(c.player);
    }
    if let Some(tractor) = &b.towed_by
        && let Some(c) = tractor.filter(Candidate::may_sync)
    {
        return Some(c.player);
    }
    if b.towed_by.is_none()
        && let Some(c) = b.passengers.iter().find(|c| c.eligible)
    {
        return Some(c.player);
    }
    if let Some(c) = b.previous.filter(Candidate::may_sync)
        && distance(c.position, b.position) < SYNC_RANGE
    {
        return Some(c.player);
    }
    nearby()
        .into_iter()
        .filter(Candidate::may_sync)
        .map(|c| (distance(c.position, b.position), c.player))
        .filter(|&(d, _)| d <= SYNC_RANGE)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn at(player: u32, x: f32) -> Candidate<u32> {
        Candidate {
            player,
            position: Vec3::new(x, 0.0, 0.0),
            eligible: true,
            streamed: true,
        }
    }

    fn paused(c: Candidate<u32>) -> Candidate<u32> {
        Candidate {
            eligible: false,
            ..c
        }
    }

    fn unstreamed(c: Candidate<u32>) -> Candidate<u32> {
        Candidate {
            streamed: false,
            ..c
        }
    }

    fn ballot(passengers: &[Candidate<u32>], previous: Option<Candidate<u32>>) -> Ballot<'_, u32> {
        Ballot {
            position: Vec3::ZERO,
            driven: false,
            remote: None,
            towed_by: None,
            passengers,
            previous,
        }
    }

    /// The election, with `nearby` as the players near.
    fn elect_among(b: &Ballot<'_, u32>, nearby: &[Candidate<u32>]) -> Option<u32> {
        elect(b, || nearby.iter().copied())
    }

    #[rstest]
    #[case::nobody(&[], None, &[], None)]
    #[case::the_nearest(&[], None, &[at(1, 50.0), at(2, 20.0), at(3, 90.0)], Some(2))]
    #[case::the_nearest_at_130(&[], None, &[at(1, 130.0)], Some(1))]
    #[case::nobody_beyond_130(&[], None, &[at(1, 130.5)], None)]
    #[case::the_nearest_streamed(&[], None, &[unstreamed(at(1, 5.0)), at(2, 100.0)], Some(2))]
    #[case::never_a_paused_player(&[], None, &[paused(at(1, 5.0)), at(2, 100.0)], Some(2))]
    #[case::the_previous_within_130(&[], Some(at(7, 129.0)), &[at(1, 5.0), at(7, 129.0)], Some(7))]
    #[case::the_previous_at_131(&[], Some(at(7, 131.0)), &[at(1, 5.0)], Some(1))]
    #[case::the_previous_unstreamed(&[], Some(unstreamed(at(7, 10.0))), &[at(1, 50.0)], Some(1))]
    #[case::the_previous_paused(&[], Some(paused(at(7, 10.0))), &[at(1, 50.0)], Some(1))]
    #[case::the_first_passenger(&[at(4, 0.0), at(5, 0.0)], Some(at(7, 10.0)), &[at(1, 1.0)], Some(4))]
    #[case::the_first_passenger_who_may(&[paused(at(4, 0.0)), at(5, 0.0)], None, &[], Some(5))]
    #[case::a_passenger_of_an_unstreamed_vehicle(&[unstreamed(at(4, 0.0))], None, &[], Some(4))]
    fn order(
        #[case] passengers: &[Candidate<u32>],
        #[case] previous: Option<Candidate<u32>>,
        #[case] nearby: &[Candidate<u32>],
        #[case] expected: Option<u32>,
    ) {
        assert_eq!(elect_among(&ballot(passengers, previous), nearby), expected);
    }

    #[test]
    fn a_driven_vehicle_has_no_syncer() {
        let b = Ballot {
            driven: true,
            ..ballot(&[], None)
        };
        assert_eq!(elect_among(&b, &[at(1, 1.0)]), None);
    }

    #[rstest]
    #[case::the_tractors_controller(Some(Some(at(9, 60.0))), Some(9))]
    #[case::not_if_unstreamed(Some(Some(unstreamed(at(9, 60.0)))), Some(1))]
    #[case::a_tractor_without_controller(Some(None), Some(1))]
    fn a_hitched_vehicle(
        #[case] towed_by: Option<Option<Candidate<u32>>>,
        #[case] expected: Option<u32>,
    ) {
        let passengers = [at(4, 0.0)];
        let b = Ballot {
            towed_by,
            ..ballot(&passengers, None)
        };
        assert_eq!(
            elect_among(&b, &[at(1, 1.0)]),
            expected,
            "its passengers do not sync it"
        );
    }

    #[rstest]
    #[case::the_remote_driver_first(Some(at(8, 120.0)), Some(8))]
    #[case::a_paused_remote_driver_leaves_it_to_the_rest(Some(paused(at(8, 120.0))), Some(4))]
    #[case::an_unstreamed_remote_driver(Some(unstreamed(at(8, 120.0))), Some(4))]
    fn an_rc_driven_remotely(
        #[case] remote: Option<Candidate<u32>>,
        #[case] expected: Option<u32>,
    ) {
        let passengers = [at(4, 0.0)];
        let b = Ballot {
            remote,
            ..ballot(&passengers, Some(at(7, 1.0)))
        };
        assert_eq!(elect_among(&b, &[at(1, 1.0)]), expected);
    }

    #[test]
    fn ties_go_to_the_lower_player() {
        assert_eq!(
            elect_among(&ballot(&[], None), &[at(3, 10.0), at(2, -10.0)]),
            Some(2)
        );
    }

    #[rstest]
    #[case::driven(true, None, None)]
    #[case::a_passenger(false, Some(at(4, 0.0)), Some(4))]
    #[case::the_previous_within_130(false, None, Some(7))]
    fn the_players_near_are_not_searched_when_a_rule_before_decides(
        #[case] driven: bool,
        #[case] passenger: Option<Candidate<u32>>,
        #[case] expected: Option<u32>,
    ) {
        let passengers: Vec<_> = passenger.into_iter().collect();
        let b = Ballot {
            driven,
            ..ballot(&passengers, Some(at(7, 100.0)))
        };
        let searched = std::cell::Cell::new(false);
        let got = elect(&b, || {
            searched.set(true);
            [at(1, 1.0)]
        });
        assert_eq!(got, expected);
        assert!(!searched.get(), "no grid search for a decided vehicle");
    }
}
