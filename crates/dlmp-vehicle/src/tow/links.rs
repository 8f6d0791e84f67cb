//! What a hitch (VehicleTrailer) and a winch load (VehicleLift) are made of, shared by
//! the towing and the winch: the two kinds of link, a vehicle's facts as the admission
//! rules read them, the index of who hangs on whom, and why a link was refused. The
//! server's state of a link is the child's [`Hitch`]; [`Links`] is its reverse, built
//! from the hitches where a pass needs it.

use std::collections::HashMap;

use crate::{Frozen, Hitch, Params, Remote, Seats, Vehicle, VehicleScope};
use dlmp_core::position::Scope;
use dlmp_core::vehicle::{Life, Pose};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{VehicleEpoch, VehicleId};
use dlmp_protocol::vehicle::params::param;

/// A trailer on its tractor, or a load on a helicopter's winch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// VehicleTow / VehicleTrailer: the child is the trailer, the parent its tractor.
    Trailer,
    /// VehicleWinch / VehicleLift: the child is the load, the parent the helicopter.
    Lift,
}

impl LinkKind {
    /// The word of logs and errors.
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Trailer => "trailer",
            LinkKind::Lift => "lift",
        }
    }
}

/// The longest chain of hitches (vehicles.md VehicleTow: "at most 4 links").
pub const MAX_LINKS: usize = 4;

/// The winch bits of VehicleParams (bit3 magnet, bit4 small magnet).
pub const WINCH_BITS: u16 = param::MAGNET | param::SMALL_MAGNET;

/// One vehicle as the hitch and winch rules read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkFacts {
    pub id: VehicleId,
    pub model: u16,
    pub epoch: VehicleEpoch,
    pub wrecked: bool,
    /// VehicleTransform bit4: never hitched nor picked up.
    pub frozen: bool,
    pub scope: Scope,
    pub position: Vec3,
    /// Seat 0 is taken.
    pub driven: bool,
    /// Any seat is taken.
    pub seated: bool,
    /// A player drives it remotely (VehicleRemote).
    pub remote: bool,
    pub hitch: Hitch,
    /// Its winch bits ([`WINCH_BITS`] of VehicleParams).
    pub winch: u16,
}

#[cfg(test)]
impl LinkFacts {
    /// The rules' unit tests' vehicle: `model` alone at x on the ground, intact, in the
    /// default scope, epoch 0, nobody in it, hanging on nothing, no winch.
    pub(crate) fn at(id: u32, model: u16, x: f32) -> LinkFacts {
        LinkFacts {
            id: VehicleId(id),
            model,
            epoch: VehicleEpoch(0),
            wrecked: false,
            frozen: false,
            scope: Scope::default(),
            position: Vec3::new(x, 0.0, 0.0),
            driven: false,
            seated: false,
            remote: false,
            hitch: Hitch::default(),
            winch: 0,
        }
    }
}

/// What [`facts`] reads of a vehicle.
pub type FactParts = (
    &'static Vehicle,
    &'static Life,
    &'static Frozen,
    &'static VehicleScope,
    &'static Pose,
    &'static Seats,
    &'static Params,
    Option<&'static Remote>,
);

/// A vehicle's facts from its components and its hitch (written by the link flow, so read
/// apart).
pub fn facts(
    (vehicle, life, frozen, scope, pose, seats, params, remote): bevy_ecs::query::QueryItem<
        '_,
        '_,
        FactParts,
    >,
    hitch: Hitch,
) -> LinkFacts {
    LinkFacts {
        id: vehicle.id,
        model: vehicle.model,
        epoch: life.epoch,
        wrecked: life.wrecked,
        frozen: frozen.held(),
        scope: scope.0,
        position: pose.position,
        driven: seats.driver().is_some(),
        seated: !seats.is_empty(),
        remote: remote.is_some(),
        hitch,
        winch: params.bits & WINCH_BITS,
    }
}

/// Whether two positions are within `r` metres.
pub fn within(a: Vec3, b: Vec3, r: f32) -> bool {
    dlmp_protocol::geometry::distance(a, b) <= r
}

/// Who hangs on whom, both ways, for both kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    parent: HashMap<(LinkKind, VehicleId), VehicleId>,
    child: HashMap<(LinkKind, VehicleId), VehicleId>,
}

impl Links {
    /// The index of these vehicles' hitches.
    pub fn from_hitches(hitches: impl IntoIterator<Item = (VehicleId, Hitch)>) -> Self {
        let mut links = Links::default();
        // Most vehicles hang on nothing: a fresh index has nothing of theirs to undo.
        for (id, hitch) in hitches {
            for (kind, parent) in [
                (LinkKind::Trailer, hitch.tractor),
                (LinkKind::Lift, hitch.lifter),
            ] {
                if parent.is_some() {
                    links.set(kind, id, parent);
                }
            }
        }
        links
    }

    /// `child` now hangs on `parent` (or on nothing) by `kind`.
    pub fn set(&mut self, kind: LinkKind, child: VehicleId, parent: Option<VehicleId>) {
        if let Some(old) = self.parent.remove(&(kind, child)) {
            self.child.remove(&(kind, old));
        }
        if let Some(p) = parent {
            self.parent.insert((kind, child), p);
            self.child.insert((kind, p), child);
        }
    }

    /// What `child` hangs on by `kind`.
    pub fn parent(&self, kind: LinkKind, child: VehicleId) -> Option<VehicleId> {
        self.parent.get(&(kind, child)).copied()
    }

    /// What hangs on `parent` by `kind` (its trailer, its load).
    pub fn child(&self, kind: LinkKind, parent: VehicleId) -> Option<VehicleId> {
        self.child.get(&(kind, parent)).copied()
    }

    /// Every link: (kind, child, parent), in no order.
    pub fn iter(&self) -> impl Iterator<Item = (LinkKind, VehicleId, VehicleId)> + '_ {
        self.parent.iter().map(|(&(k, c), &p)| (k, c, p))
    }

    /// The vehicle's place in its chain of hitches: `up` follows the tractors, otherwise
    /// the trailers. Bounded, so a broken index cannot loop.
    fn walk(&self, from: VehicleId, up: bool) -> impl Iterator<Item = VehicleId> + '_ {
        let map = if up { &self.parent } else { &self.child };
        std::iter::successors(Some(from), move |v| {
            map.get(&(LinkKind::Trailer, *v)).copied()
        })
        .skip(1)
        .take(MAX_LINKS * 4)
    }

    /// Hitches above `tractor` up to its chain's head.
    pub fn links_above(&self, tractor: VehicleId) -> usize {
        self.walk(tractor, true).count()
    }

    /// Hitches below `trailer` down to its chain's tail.
    pub fn links_below(&self, trailer: VehicleId) -> usize {
        self.walk(trailer, false).count()
    }

    /// Whether `ancestor` tows `vehicle`, directly or through the chain.
    pub fn tows_through(&self, ancestor: VehicleId, vehicle: VehicleId) -> bool {
        self.walk(vehicle, true).any(|v| v == ancestor)
    }
}

/// Why a VehicleTow, a VehicleWinch or a gamemode hitch was refused (counted by kind;
/// the tests and the Lua errors name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkRefusal {
    /// Past the vehicle event rate limit.
    RateLimited,
    /// No such vehicle (any more).
    UnknownVehicle,
    /// An epoch that is not the vehicle's current one.
    Epoch,
    /// The sender is not alive and spawned, or does not control the tractor / helicopter.
    NotController,
    /// Not streamed to the sender or not in its world scope (or the two vehicles are in
    /// different scopes).
    NotStreamed,
    Wrecked,
    Frozen,
    /// The trailer has a driver (or a remote driver).
    Driven,
    /// Somebody sits in the load or drives it remotely.
    Occupied,
    /// The trailer or load already hangs on something.
    Hangs,
    /// The tractor already tows, or the helicopter already carries, something.
    Busy,
    /// A hitch with a vehicle in a winch, or a pick-up of a vehicle in a hitch.
    Entangled,
    /// The hitch would close a loop.
    Loop,
    /// The chain would have more than [`MAX_LINKS`] links.
    TooLong,
    /// The game does not hitch this pair.
    Pair,
    /// The helicopter has no winch whose magnet takes this model.
    Magnet,
    /// Farther apart than 25 m (hitch) or 30 m (winch).
    TooFar,
    /// A handler of `trailer_attach` / `winch_attach` returned false.
    Refused,
}

impl LinkRefusal {
    pub const ALL: [LinkRefusal; 18] = [
        LinkRefusal::RateLimited,
        LinkRefusal::UnknownVehicle,
        LinkRefusal::Epoch,
        LinkRefusal::NotController,
        LinkRefusal::NotStreamed,
        LinkRefusal::Wrecked,
        LinkRefusal::Frozen,
        LinkRefusal::Driven,
        LinkRefusal::Occupied,
        LinkRefusal::Hangs,
        LinkRefusal::Busy,
        LinkRefusal::Entangled,
        LinkRefusal::Loop,
        LinkRefusal::TooLong,
        LinkRefusal::Pair,
        LinkRefusal::Magnet,
        LinkRefusal::TooFar,
        LinkRefusal::Refused,
    ];

    /// What a scripter reads.
    pub fn describe(self) -> &'static str {
        match self {
            LinkRefusal::RateLimited => "past the vehicle event rate limit",
            LinkRefusal::UnknownVehicle => "the vehicle does not exist",
            LinkRefusal::Epoch => "not the vehicle's current epoch",
            LinkRefusal::NotController => "the player does not control the vehicle",
            LinkRefusal::NotStreamed => "the vehicles are not in the same world scope",
            LinkRefusal::Wrecked => "a vehicle is a wreck",
            LinkRefusal::Frozen => "a vehicle is frozen",
            LinkRefusal::Driven => "the trailer has a driver",
            LinkRefusal::Occupied => "somebody sits in the vehicle or drives it remotely",
            LinkRefusal::Hangs => "the vehicle already hangs on another",
            LinkRefusal::Busy => "the tractor already tows a vehicle",
            LinkRefusal::Entangled => "a vehicle hangs in a winch or a hitch",
            LinkRefusal::Loop => "the hitch would close a loop",
            LinkRefusal::TooLong => "the chain would have more than 4 links",
            LinkRefusal::Pair => "the game does not hitch these models",
            LinkRefusal::Magnet => "the winch's magnet does not take this model",
            LinkRefusal::TooFar => "the vehicles are too far apart",
            LinkRefusal::Refused => "a handler refused it",
        }
    }
}

/// Links made and refused, by kind and reason.
#[derive(bevy_ecs::resource::Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub made: HashMap<LinkKind, u64>,
    pub refused: HashMap<(LinkKind, LinkRefusal), u64>,
}

impl LinkStats {
    pub fn refuse(&mut self, kind: LinkKind, why: LinkRefusal) {
        *self.refused.entry((kind, why)).or_default() += 1;
    }

    /// Refusals of `kind` for `why` so far.
    pub fn refused(&self, kind: LinkKind, why: LinkRefusal) -> u64 {
        self.refused.get(&(kind, why)).copied().unwrap_or(0)
    }

    /// Links of `kind` made, then its refusals by reason (the console's `stats` row).
    pub fn counts(&self, kind: LinkKind) -> Vec<(&'static str, u64)> {
        let mut out = vec![("made", self.made.get(&kind).copied().unwrap_or(0))];
        for why in LinkRefusal::ALL {
            out.push((why.describe(), self.refused(kind, why)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(ids: &[u32]) -> Links {
        let mut l = Links::default();
        for w in ids.windows(2) {
            l.set(LinkKind::Trailer, VehicleId(w[1]), Some(VehicleId(w[0])));
        }
        l
    }

    #[test]
    fn a_chain_counts_its_links_both_ways() {
        let l = chain(&[1, 2, 3, 4]);
        assert_eq!(l.links_above(VehicleId(4)), 3);
        assert_eq!(l.links_below(VehicleId(1)), 3);
        assert_eq!(l.links_above(VehicleId(2)), 1);
        assert_eq!(l.links_below(VehicleId(3)), 1);
        assert!(l.tows_through(VehicleId(1), VehicleId(4)));
        assert!(!l.tows_through(VehicleId(4), VehicleId(1)));
    }

    #[test]
    fn a_new_parent_replaces_the_old_both_ways() {
        let mut l = chain(&[1, 2]);
        l.set(LinkKind::Trailer, VehicleId(2), Some(VehicleId(3)));
        assert_eq!(l.child(LinkKind::Trailer, VehicleId(1)), None);
        assert_eq!(l.child(LinkKind::Trailer, VehicleId(3)), Some(VehicleId(2)));
        l.set(LinkKind::Trailer, VehicleId(2), None);
        assert_eq!(l.iter().count(), 0);
    }

    #[test]
    fn lifts_do_not_count_as_hitches() {
        let mut l = chain(&[1, 2]);
        l.set(LinkKind::Lift, VehicleId(1), Some(VehicleId(9)));
        assert_eq!(l.links_above(VehicleId(1)), 0);
        assert_eq!(l.parent(LinkKind::Lift, VehicleId(1)), Some(VehicleId(9)));
    }
}
