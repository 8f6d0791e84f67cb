//! The heat-seeker's target, the vehicle feature's part (weapons.md §2, "The target of a
//! heat-seeking rocket"): the target is kept only if it "is streamed to the sender, is in
//! the sender's scope". Who is shown which vehicle is this feature's ([`VehicleStream`]),
//! so after the weapons' admission, before `player_projectile` runs, it clears each
//! pending launch's target that fails either (ADR 0131, 0134). The launch stands: the
//! relay carries 0xFFFFFFFF and 0, and every recipient flies the rocket straight.

use bevy_ecs::prelude::*;
use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_core::vehicle::Vehicles;
use dlmp_player::weapons::launch::PendingLaunches;
use dlmp_protocol::ids::{VehicleEpoch, VehicleId};

use crate::components::VehicleScope;
use crate::stream::VehicleStream;

/// Clears the target of each launch of this tick whose vehicle is not shown to the sender
/// (by the shown sets of the last pass, what the sender's client holds) or not in the
/// sender's scope.
pub(super) fn keep_shown_targets(
    mut pending: ResMut<PendingLaunches>,
    stream: Res<VehicleStream>,
    vehicles: Res<Vehicles>,
    senders: Query<(&Player, &Scope)>,
    scopes: Query<&VehicleScope>,
) {
    for l in &mut pending.0 {
        let target = l.launch.target_id;
        if target == VehicleId::NONE {
            continue;
        }
        let kept = senders.get(l.launcher).is_ok_and(|(me, scope)| {
            stream.shown().contains(me.id, target.0)
                && vehicles
                    .entity(target)
                    .and_then(|e| scopes.get(e).ok())
                    .is_some_and(|v| v.0 == *scope)
        });
        if !kept {
            l.launch.target_id = VehicleId::NONE;
            l.launch.target_epoch = VehicleEpoch(0);
        }
    }
}
