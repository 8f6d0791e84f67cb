//! Applying parameter changes (vehicles.md VehicleParams): the scripts' [`ParamsCommand`]s
//! in their order, then the drivers' VehicleControl the gamemode let through. Each change is
//! stored at once; after the tick's last one, each vehicle they touched is told once, with
//! its full state, to whoever's view changed over the tick ([`notify::tell_changed`]; a
//! door command always, `doors_set` holding every door commanded in the tick). So two calls
//! of one handler (a vehicle lock and its owner's own unlock) never show a state in
//! between. A player leaving takes its own parameters with it.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::notify;
use super::rules::{self, ParamChange};
use crate::components::{Params, Revisions, SirenRev};
use crate::stream::VehicleStream;
use dlmp_core::session::{Connection, Player, PlayerDisconnected, PlayerIndex};
use dlmp_core::vehicle::Life;
use dlmp_core::vehicle::Vehicles;
use dlmp_protocol::ids::{VehicleEpoch, VehicleId};

/// A gamemode change of one vehicle's parameters (`dlmp.set_vehicle_*`, a Rust plugin),
/// applied in order in [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply).
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

impl ParamStats {
    /// The console's `stats` row.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("applied", self.applied),
            ("sent", self.sent),
            ("dropped", self.dropped),
        ]
    }
}

/// The vehicles changed this tick, each with its parameters and siren revision before the
/// first change and the doors commanded since.
#[derive(Resource, Debug, Default)]
pub struct Touched(Vec<(VehicleId, Params, SirenRev, u8)>);

/// What a parameter change reads and writes.
#[derive(bevy_ecs::system::SystemParam)]
pub struct ParamWriter<'w, 's> {
    registry: Res<'w, Vehicles>,
    index: Res<'w, PlayerIndex>,
    vehicles: Query<'w, 's, (&'static mut Params, &'static mut Revisions, &'static Life)>,
    players: Query<'w, 's, &'static Player>,
    touched: ResMut<'w, Touched>,
    stats: ResMut<'w, ParamStats>,
}

impl ParamWriter<'_, '_> {
    /// Applies `change` to `vehicle` (of life `epoch`, if the change belongs to one); the
    /// viewers are told after the tick's last change. False when it was dropped.
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
                .and_then(|e| self.players.get(e).ok())
                .is_some_and(|p| p.token == who.1);
            if !here {
                return self.drop(vehicle, "the player left");
            }
        }
        let at = match self.touched.0.iter().position(|(id, ..)| *id == vehicle) {
            Some(at) => at,
            None => {
                self.touched
                    .0
                    .push((vehicle, params.clone(), revs.siren, 0));
                self.touched.0.len() - 1
            }
        };
        let effect = rules::apply(&mut params, &mut revs.siren, change);
        self.touched.0[at].3 |= effect.doors_set;
        self.stats.applied += 1;
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

/// After the tick's changes: each vehicle they touched, told once; a siren command (a new
/// siren revision) goes to every viewer even if the bits did not change.
pub(super) fn tell(
    mut touched: ResMut<Touched>,
    registry: Res<Vehicles>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    vehicles: Query<(&Params, &Revisions)>,
    mut recipients: Query<(&Player, &mut Connection)>,
    mut stats: ResMut<ParamStats>,
) {
    for (vehicle, before, rev_before, doors_set) in touched.0.drain(..) {
        let Some(Ok((after, revs))) = registry.entity(vehicle).map(|e| vehicles.get(e)) else {
            continue;
        };
        let siren_command = revs.siren != rev_before;
        if *after == before && doors_set == 0 && !siren_command {
            continue;
        }
        let told = notify::tell_changed(
            &stream,
            &index,
            &mut recipients,
            vehicle,
            (&before, after),
            revs.siren,
            doors_set,
            siren_command,
        );
        stats.sent += told as u64;
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
