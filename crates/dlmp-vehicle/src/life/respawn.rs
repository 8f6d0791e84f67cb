//! `dlmp.respawn_vehicle` (vehicles.md VehicleSync, "Life"; VehicleParams, "Defaults";
//! VehicleTuning): a new life of the vehicle. Everyone seated gets out first
//! (VehicleOccupancy exit to everyone it is streamed to), then everyone it is streamed to
//! gets the show of the new epoch, critical (nothing repeats it: the reconcile sees a
//! vehicle already shown), with its tail (tuning, handling). The new life stands at the
//! spawn point with full health, no damage, the part at rest, the frame rules' memory
//! reset and the default parameters (the siren's presence kept); tuning, handling,
//! colors and the freeze stay. Features holding attached state let go on
//! [`VehicleReset`] `Respawned`. Decisions: docs/decisions/0060-vehicle-respawn.md.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::burning::Burning;
use super::credit::PassingShots;
use crate::components::FULL_HEALTH;
use crate::frame::fields::HeldFields;
use crate::seats::free_seat;
use crate::stream::{Shown, vehicle_show};
use crate::tuning::full_charges;
use crate::{
    Damage, Health, Params, Part, ResetKind, SeatChanged, Seats, ShowTail, SpawnPoint, Train,
    VehicleError, VehicleModels, VehicleReset, VehicleStream,
};
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_core::vehicle::{Life, Pose, Seated, Vehicles};
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::vehicle::params::param;
use dlmp_protocol::vehicle::tuning::kind;

/// A respawn, from a script or a Rust plugin, applied in
/// [`VehicleSystems::Lifecycle`](crate::VehicleSystems::Lifecycle) after the
/// creates and destroys.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RespawnVehicle {
    pub id: VehicleId,
}

/// Respawns the vehicle `id` (a Rust plugin's call): applied in the next tick's
/// gameplay, as `dlmp.respawn_vehicle`.
pub fn respawn_vehicle(world: &mut World, id: VehicleId) -> Result<(), VehicleError> {
    world.init_resource::<Vehicles>();
    if world.resource::<Vehicles>().entity(id).is_none() {
        return Err(VehicleError::Gone(id.0));
    }
    world.write_message(RespawnVehicle { id });
    Ok(())
}

/// The parameters of a new life: everything off, doors closed, no lock, no winch, no
/// per-player parameters; the siren's presence (bit8) stays.
pub fn default_params(params: &Params) -> Params {
    Params {
        bits: params.bits & param::HAS_SIREN,
        doors: 0,
        per_player: Vec::new(),
    }
}

/// What a respawn rewrites of a vehicle.
type Renewed = (
    &'static SpawnPoint,
    &'static mut Pose,
    &'static mut Life,
    &'static mut Health,
    &'static mut Damage,
    &'static mut Part,
    &'static mut Params,
    &'static mut Burning,
    &'static mut PassingShots,
    Option<&'static mut HeldFields>,
    &'static mut Train,
);

/// Where a respawn's packets go.
#[derive(bevy_ecs::system::SystemParam)]
pub struct Audience<'w, 's> {
    stream: Res<'w, VehicleStream>,
    index: Res<'w, PlayerIndex>,
    players: Query<'w, 's, &'static Player>,
    connections: Query<'w, 's, &'static mut Connection>,
}

/// Applies the tick's [`RespawnVehicle`]s, in order.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn apply(
    mut commands: Commands,
    mut read: MessageReader<RespawnVehicle>,
    registry: Res<Vehicles>,
    models: Res<VehicleModels>,
    mut audience: Audience,
    mut changed: MessageWriter<SeatChanged>,
    mut resets: MessageWriter<VehicleReset>,
    mut seats: Query<&mut Seats>,
    seated: Query<&Seated>,
    mut vehicles: ParamSet<(Query<Renewed>, Query<Shown>)>,
    mut tails: Query<&mut ShowTail>,
) {
    for &RespawnVehicle { id } in read.read() {
        let Some(entity) = registry.entity(id) else {
            debug!(vehicle = id.0, "respawn of a vehicle that is gone");
            continue;
        };
        let occupants: Vec<_> = seats
            .get(entity)
            .map(|s| s.occupied().map(|(_, o)| o).collect())
            .unwrap_or_default();
        for o in occupants {
            match seated.get(o.entity) {
                Ok(at) if at.vehicle == entity => free_seat(
                    &mut commands,
                    &mut seats,
                    o,
                    at,
                    Some((&audience.stream, &audience.index, &mut audience.connections)),
                    &mut changed,
                ),
                _ => {
                    if let Ok(mut s) = seats.get_mut(entity) {
                        s.0.iter_mut()
                            .filter(|slot| slot.is_some_and(|x| x.entity == o.entity))
                            .for_each(|slot| *slot = None);
                    }
                }
            }
        }
        let tail = tails.get_mut(entity).ok();
        renew(&mut vehicles.p0(), entity, tail);
        resets.write(VehicleReset {
            vehicle: entity,
            id,
            kind: ResetKind::Respawned,
        });
        show_to_viewers(
            entity,
            id,
            &models,
            &vehicles.p1(),
            &seats,
            &tails,
            &mut audience,
        );
    }
}

/// The new life's state.
fn renew(vehicles: &mut Query<Renewed>, entity: Entity, tail: Option<Mut<ShowTail>>) {
    let Ok((
        spawn,
        mut pose,
        mut life,
        mut health,
        mut damage,
        mut part,
        mut params,
        mut burning,
        mut passes,
        held,
        mut train,
    )) = vehicles.get_mut(entity)
    else {
        return;
    };
    *pose = Pose::level(spawn.position, spawn.heading);
    *life = Life {
        epoch: life.epoch.next(),
        wrecked: false,
        drowned: false,
    };
    health.0 = FULL_HEALTH;
    *damage = Damage::default();
    part.0 = 0;
    // A new life stands on its rails; the direction stays (VehicleSync, "Trains").
    train.derailed = false;
    *params = default_params(&params);
    *burning = Burning::default();
    passes.clear();
    let mut charges = 0;
    if let Some(mut tail) = tail
        && let Some(tuning) = tail.tuning.as_mut()
    {
        charges = full_charges(tuning.components[kind::NITRO]);
        if tuning.nitro != charges {
            tuning.nitro = charges;
        }
    }
    if let Some(mut held) = held {
        held.respawn(charges);
    }
}

/// The show of the new epoch, critical, to everyone the vehicle is streamed to.
fn show_to_viewers(
    entity: Entity,
    id: VehicleId,
    models: &VehicleModels,
    shown: &Query<Shown>,
    seats: &Query<&mut Seats>,
    tails: &Query<&mut ShowTail>,
    audience: &mut Audience,
) {
    let (Ok(seats), Ok(_)) = (seats.get(entity), shown.get(entity)) else {
        return;
    };
    let tail = tails.get(entity).ok();
    let viewers: Vec<Entity> = audience
        .stream
        .shown()
        .viewers(id.0)
        .filter_map(|p| audience.index.get(p))
        .collect();
    for recipient in viewers {
        let (Ok(player), Ok(parts)) = (audience.players.get(recipient), shown.get(entity)) else {
            continue;
        };
        let is_train = models.get(parts.0.model).is_some_and(|m| m.is_train());
        let mut group = vehicle_show(
            parts,
            seats,
            tail,
            (player.id, player.token),
            is_train,
            Delivery::Critical,
        );
        // The new life hangs on nothing (vehicles.md VehicleTow, VehicleWinch: a respawn
        // ends the hitch and the load); the release that frees the old links and tells
        // everyone follows in this tick's streaming phase (tow::release).
        if let Some((ServerPacket::VehicleSync(sync), _)) = group.first_mut() {
            sync.tractor_id = VehicleId::NONE;
            sync.lifter_id = VehicleId::NONE;
        }
        let Ok(mut conn) = audience.connections.get_mut(recipient) else {
            continue;
        };
        for (packet, delivery) in group {
            if let Err(e) = conn.send_event(packet, delivery) {
                dlmp_net::log_limited!(warn, vehicle = id.0, "a respawn's show not queued: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlayerParams;
    use dlmp_protocol::ids::{PlayerId, PlayerToken};

    #[test]
    fn a_new_life_keeps_only_the_sirens_presence() {
        let p = Params {
            bits: param::ALL,
            doors: 0b11_1111,
            per_player: vec![(PlayerId(1), PlayerToken(2), PlayerParams::default())],
        };
        assert_eq!(
            default_params(&p),
            Params {
                bits: param::HAS_SIREN,
                ..Params::default()
            }
        );
        let removed = Params {
            bits: param::ENGINE | param::LOCKED,
            ..Params::default()
        };
        assert_eq!(
            default_params(&removed).bits,
            0,
            "a removed siren stays removed"
        );
    }

    #[test]
    fn the_nitro_parts_charges() {
        assert_eq!(
            [1008, 1009, 1010, 1011, 0].map(full_charges),
            [5, 2, 10, 0, 0]
        );
    }
}
