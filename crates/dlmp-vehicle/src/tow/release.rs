//! What ends a hitch or a winch load without a request and without resource events
//! (vehicles.md VehicleTow: "when a driver gets into it, when the trailer or the tractor
//! is wrecked, and on their respawn and removal"; VehicleWinch: "when a player gets into
//! it (any seat) or someone takes it remotely, when the load or the helicopter is wrecked,
//! on their respawn and removal"; VehicleTransform: "a new position, rotation or freeze
//! first releases the vehicle from any hitch and winch (both ends)"). Runs twice a tick:
//! between a transform's change and its VehicleTransform, so the release goes first on the
//! wire, and in the streaming phase, after every feature of the tick wrote its
//! [`VehicleReset`] and seat changes, so the shows of this pass carry the state after the
//! release. The second run finds nothing to free of what the first freed. The winch's own
//! release (a winch removed or changed) follows in the winch plugin.

use bevy_ecs::prelude::*;

use super::flow::LinkWorld;
use super::links::{LinkKind, Links};
use crate::{SeatChanged, VehicleReset};
use dlmp_protocol::ids::VehicleId;

const KINDS: [LinkKind; 2] = [LinkKind::Trailer, LinkKind::Lift];

/// Frees `child` of its `kind` link, if it has one: VehicleTrailer / VehicleLift to
/// everyone it is streamed to.
pub fn free(w: &mut LinkWorld, links: &mut Links, kind: LinkKind, child: VehicleId) {
    if links.parent(kind, child).is_some() {
        w.set(links, kind, child, None);
        w.announce(kind, child, None, false, None);
    }
}

/// The tick's automatic releases.
pub fn release(
    mut w: LinkWorld,
    mut seats: MessageReader<SeatChanged>,
    mut resets: MessageReader<VehicleReset>,
) {
    let entered: Vec<(VehicleId, u8)> = seats
        .read()
        .filter(|c| c.entered)
        .map(|c| (c.vehicle, c.seat))
        .collect();
    let reset: Vec<VehicleId> = resets.read().map(|r| r.id).collect();
    let mut links = w.links();
    let mut go: Vec<(LinkKind, VehicleId)> = Vec::new();
    for (vehicle, seat) in entered {
        if seat == 0 {
            go.push((LinkKind::Trailer, vehicle));
        }
        go.push((LinkKind::Lift, vehicle));
    }
    for id in reset {
        for kind in KINDS {
            go.push((kind, id));
            if let Some(child) = links.child(kind, id) {
                go.push((kind, child));
            }
        }
    }
    go.extend(
        links
            .iter()
            .filter(|(_, _, parent)| w.registry.entity(*parent).is_none())
            .map(|(kind, child, _)| (kind, child)),
    );
    for (kind, child) in go {
        free(&mut w, &mut links, kind, child);
    }
}
