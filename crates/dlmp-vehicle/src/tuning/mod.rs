//! Tuning and handling (vehicles.md VehicleTuning, VehicleHandling, and VehicleFrame's
//! "Nitro and hydraulics"): the gamemode's parts, paintjob, plate, dirt, taxi light, nitro
//! charges and handling properties; each change goes, critical, to everyone the vehicle is
//! streamed to, and the vehicle's [`ShowTail`] stays equal to the state so every show of
//! it (a respawn's included) is followed by the same packets.
//!
//! - [`data`]: the game's tables (`assets/carmods.tsv`, `components.tsv`, `paintjobs.tsv`).
//! - [`state`]: the [`Tuning`] component and the rules of each change.
//! - [`handling`]: the 21 properties; the state is `ShowTail::handling` itself.
//! - [`script`]: the Lua functions.
//!
//! The nitro charges are the frame rules' ([`HeldFields`]): a charge a pilot's burning
//! frame spent, and the removal when the last one burns out (with a frame or, after 25 s,
//! without one), reach the viewers here; a respawn refills them.
//! Decisions: docs/decisions/0063-vehicle-tuning.md, 0064-vehicle-handling.md.

pub mod data;
pub mod handling;
pub mod script;
pub mod state;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use bevy_time::Time;
use tracing::debug;

pub use self::data::TuningData;
pub use self::handling::{HandlingCommand, HandlingValues};
pub use self::state::{Plate, Tuning, TuningChange, TuningError, full_charges};
use super::frame::VehicleFrameAccepted;
use super::frame::fields::HeldFields;
use super::{ResetKind, ShowTail, Vehicle, VehicleReset, VehicleStream, VehicleSystems};
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_core::vehicle::Vehicles;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::vehicle::tuning::kind;

/// `dlmp.add_vehicle_component` and the other tuning calls: one checked change.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct TuningCommand {
    pub id: VehicleId,
    pub change: TuningChange,
}

/// Adds tuning and handling.
pub struct TuningPlugin;

impl Plugin for TuningPlugin {
    fn build(&self, app: &mut App) {
        // A bad table stops the start here, not at the first call.
        TuningData::get();
        app.add_message::<TuningCommand>()
            .add_message::<HandlingCommand>()
            .add_systems(
                FixedUpdate,
                (
                    (follow_nitro, script::refresh_book)
                        .chain()
                        .in_set(GameplaySystems::Intake),
                    apply_commands
                        .in_set(GameplaySystems::Apply)
                        .after(VehicleSystems::Lifecycle),
                    refill_on_respawn
                        .in_set(ServerSystems::Streaming)
                        .before(StreamingSystems::Reconcile),
                ),
            );
    }
}

/// Everyone a vehicle is streamed to, for its critical changes.
#[derive(SystemParam)]
pub struct Audience<'w, 's> {
    stream: Res<'w, VehicleStream>,
    index: Res<'w, PlayerIndex>,
    connections: Query<'w, 's, &'static mut Connection>,
}

impl Audience<'_, '_> {
    fn tell(&mut self, id: VehicleId, packet: ServerPacket) {
        self.stream
            .shown()
            .tell_viewers(id.0, &packet, &self.index, &mut self.connections);
    }
}

/// The vehicle's tuning as a show's tail carries it: `None` when nothing is set.
pub fn tail_tuning(
    id: VehicleId,
    tuning: &Tuning,
    held: &HeldFields,
) -> Option<dlmp_protocol::vehicle::tuning::VehicleTuning> {
    (!tuning.is_empty()).then(|| tuning.packet(id, held.nitro_charges))
}

/// The whole tuning to everyone the vehicle is streamed to, and the tail kept equal.
fn publish(
    id: VehicleId,
    tuning: &Tuning,
    held: &HeldFields,
    tail: &mut ShowTail,
    out: &mut Audience,
) {
    let packet = tuning.packet(id, held.nitro_charges);
    tail.tuning = tail_tuning(id, tuning, held);
    out.tell(id, packet.into());
}

type Tuned = (
    Entity,
    &'static Vehicle,
    &'static mut Tuning,
    &'static mut HeldFields,
    &'static mut ShowTail,
);

/// A charge a pilot lit (spent) or the last one burning out (the nitro removed) reaches
/// everyone, the driver included (VehicleFrame, "Every spent charge and the removal go to
/// everyone the vehicle is streamed to as VehicleTuning"). A charge counts as burnt out
/// 25 s after it was lit even when no frame comes.
fn follow_nitro(
    time: Res<Time>,
    mut accepted: MessageReader<VehicleFrameAccepted>,
    mut vehicles: Query<Tuned>,
    mut out: Audience,
) {
    let now = time.elapsed();
    let mut changed: Vec<Entity> = accepted
        .read()
        .filter(|a| a.outcome.nitro_spent || a.outcome.nitro_removed)
        .map(|a| a.vehicle)
        .collect();
    for (entity, .., mut held, _) in &mut vehicles {
        if held.nitro_burning() && held.expire_nitro(now).nitro_removed {
            changed.push(entity);
        }
    }
    changed.sort_unstable();
    changed.dedup();
    for entity in changed {
        let Ok((_, vehicle, mut tuning, held, mut tail)) = vehicles.get_mut(entity) else {
            continue;
        };
        if !held.nitro_part && tuning.parts[kind::NITRO] != 0 {
            tuning.parts[kind::NITRO] = 0;
        }
        publish(vehicle.id, &tuning, &held, &mut tail, &mut out);
    }
}

/// The scripts' tuning and handling changes, in order; a change that no longer applies
/// (the nitro burnt out since the call) is logged and skipped.
fn apply_commands(
    registry: Res<Vehicles>,
    mut tunings: MessageReader<TuningCommand>,
    mut handlings: MessageReader<HandlingCommand>,
    mut vehicles: Query<Tuned>,
    mut out: Audience,
) {
    for cmd in tunings.read() {
        let Some(Ok((_, vehicle, mut tuning, mut held, mut tail))) =
            registry.entity(cmd.id).map(|e| vehicles.get_mut(e))
        else {
            continue;
        };
        let mut next = *tuning;
        let applied = match next.apply(cmd.change, vehicle.model, TuningData::get()) {
            Ok(a) => a,
            Err(e) => {
                debug!(vehicle = cmd.id.0, "a tuning change refused: {e}");
                continue;
            }
        };
        let nitro_before = (held.nitro_part, held.nitro_charges);
        match applied.nitro {
            state::Nitro::Unchanged => {}
            state::Nitro::Installed(n) => held.set_nitro(Some(n)),
            state::Nitro::Removed => held.set_nitro(None),
            state::Nitro::Charges(n) => held.nitro_charges = n,
        }
        held.hydraulics_part = next.parts[kind::HYDRAULICS] != 0;
        if applied.changed {
            *tuning = next;
        }
        if applied.changed || (held.nitro_part, held.nitro_charges) != nitro_before {
            publish(vehicle.id, &tuning, &held, &mut tail, &mut out);
        }
    }
    for cmd in handlings.read() {
        let Some(Ok((.., mut tail))) = registry.entity(cmd.id).map(|e| vehicles.get_mut(e)) else {
            continue;
        };
        let next = handling::packet(cmd.id, &cmd.values);
        if tail.handling == next {
            continue;
        }
        let packet = next.clone().unwrap_or_else(|| handling::cleared(cmd.id));
        tail.handling = next;
        out.tell(cmd.id, packet.into());
    }
}

/// A respawn's refill (VehicleTuning: "a respawn refills them"): the installed nitro
/// part's charges again, a full tank, and the show tail following; whether the tail
/// changed. The respawn feature may call it before it builds the respawn's show, so the
/// show carries the refill; `refill_on_respawn` calls it after every gameplay change of
/// the tick and sends the state if the tail changed then.
pub fn refill(id: VehicleId, tuning: &Tuning, held: &mut HeldFields, tail: &mut ShowTail) -> bool {
    let part = tuning.parts[kind::NITRO];
    if part != 0 {
        held.set_nitro(Some(full_charges(part)));
    }
    let next = tail_tuning(id, tuning, held);
    let changed = tail.tuning != next;
    tail.tuning = next;
    changed
}

/// Every respawn of the tick ([`VehicleReset`] `Respawned`) refills; the rest of the
/// tuning is kept. When the respawn's show went out with the old life's charges, the
/// refilled state follows it.
fn refill_on_respawn(
    mut resets: MessageReader<VehicleReset>,
    mut vehicles: Query<Tuned>,
    mut out: Audience,
) {
    for reset in resets.read() {
        if reset.kind != ResetKind::Respawned {
            continue;
        }
        let Ok((_, vehicle, tuning, mut held, mut tail)) = vehicles.get_mut(reset.vehicle) else {
            continue;
        };
        if refill(vehicle.id, &tuning, &mut held, &mut tail) {
            out.tell(
                vehicle.id,
                tuning.packet(vehicle.id, held.nitro_charges).into(),
            );
        }
    }
}
