//! Applying parameter changes (vehicles.md VehicleParams): the scripts' [`ParamsCommand`]s
//! in their order, then the drivers' VehicleControl the gamemode let through; each change
//! is stored and told to whoever's view it changed ([`notify::tell_changed`]). A player
//! leaving takes its own parameters with it.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::notify;
use super::rules::{self, ParamChange};
use crate::protocol::ids::{VehicleEpoch, VehicleId};
use crate::session::{Connection, Player, PlayerDisconnected, PlayerIndex};
use crate::vehicle::components::{Life, Params, Revisions};
use crate::vehicle::lifecycle::Vehicles;
use crate::vehicle::stream::VehicleStream;

/// A gamemode change of one vehicle's parameters (`dlmp.set_vehicle_*`, a Rust plugin),
/// applied in order in [`GameplaySystems::Apply`](crate::tick::GameplaySystems::Apply).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamsCommand {
    pub vehicle: VehicleId,
    pub change: ParamChange,
}

/// Parameter changes applied and dropped, for the console and the tests.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParamStats {
    /// Changes stored (with or without a packet).
    pub applied: u64,
    /// VehicleParams packets queued.
    pub sent: u64,
    /// Changes for a vehicle gone, a player gone or a life ended in the meantime.
    pub dropped: u64,
}

/// What a parameter change reads and writes.
#[derive(bevy_ecs::system::SystemParam)]
pub struct ParamWriter<'w, 's> {
    registry: Res<'w, Vehicles>,
    stream: Res<'w, VehicleStream>,
    index: Res<'w, PlayerIndex>,
    vehicles: Query<'w, 's, (&'static mut Params, &'static mut Revisions, &'static Life)>,
    recipients: Query<'w, 's, (&'static Player, &'static mut Connection)>,
    stats: ResMut<'w, ParamStats>,
}

impl ParamWriter<'_, '_> {
    /// Applies `change` to `vehicle` (of life `epoch`, if the change belongs to one) and
    /// tells the viewers; false when it was dropped.
    pub fn change(
        &mut self,
        vehicle: VehicleId,
        epoch: Option<VehicleEpoch>,
        change: ParamChange,
    ) -> bool {
        let Some(Ok((mut params, mut revs, life))) = self
            .registry
            .entity(vehicle)
            .map(|e| self.vehicles.get_mut(e))
        else {
            return self.drop(vehicle, "the vehicle is gone");
        };
        if epoch.is_some_and(|e| e != life.epoch) {
            return self.drop(vehicle, "the vehicle respawned");
        }
        if let ParamChange::LockedFor(who, _) | ParamChange::Objective(who, _) = change {
            let here = self
                .index
                .get(who.0)
                .and_then(|e| self.recipients.get(e).ok())
                .is_some_and(|(p, _)| p.token == who.1);
            if !here {
                return self.drop(vehicle, "the player left");
            }
        }
        let before = params.clone();
        let effect = rules::apply(&mut params, &mut revs.siren, change);
        self.stats.applied += 1;
        if *params == before && effect.doors_set == 0 {
            return true;
        }
        let told = notify::tell_changed(
            &self.stream,
            &self.index,
            &mut self.recipients,
            vehicle,
            (&before, &params),
            revs.siren,
            effect.doors_set,
        );
        self.stats.sent += told as u64;
        true
    }

    fn drop(&mut self, vehicle: VehicleId, why: &str) -> bool {
        self.stats.dropped += 1;
        debug!(vehicle = vehicle.0, why, "a parameter change dropped");
        false
    }
}

/// Applies the tick's [`ParamsCommand`]s in order.
pub(super) fn apply(mut read: MessageReader<ParamsCommand>, mut writer: ParamWriter) {
    for c in read.read() {
        writer.change(c.vehicle, None, c.change);
    }
}

/// The players who left this tick lose their own parameters on every vehicle.
pub(super) fn forget_leavers(
    mut left: MessageReader<PlayerDisconnected>,
    mut vehicles: Query<&mut Params>,
) {
    let left: Vec<_> = left.read().map(|d| (d.id, d.token)).collect();
    if left.is_empty() {
        return;
    }
    for mut params in &mut vehicles {
        if params.per_player.is_empty() {
            continue;
        }
        for who in &left {
            rules::forget(&mut params, *who);
        }
    }
}
