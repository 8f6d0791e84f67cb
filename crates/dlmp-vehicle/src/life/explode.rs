//! VehicleExplode intake and the wreck (vehicles.md VehicleExplode, VehicleDeath). The
//! server accepts the first explosion of the current epoch from a live player who
//! controls the vehicle now (the driver, or without a live driver the syncer; a paused or
//! frozen driver does not count), if the server's health allows it: burning for
//! [`BURN_TIME`], or for a plane or helicopter burning and either faster than
//! [`AIRCRAFT_SPEED`] in its last frame or with a credited killer. A train is refused. An
//! RC's remote driver with detonation on blows it up at once and is its killer. A drowning
//! (cause 1) needs no health. Everything else is dropped silently and counted in
//! [`ExplodeStats`]. Decisions: docs/decisions/0059-vehicle-explosion-and-credit.md.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::burning::{BURN_TIME, BURNING_BELOW, Burning};
use super::credit::{self, Exploded, PassingShots, Who};
use crate::{
    Health, Remote, ResetKind, Seats, Syncer, Vehicle, VehicleClass, VehicleModels, VehicleReset,
    VehicleScope, VehicleStream,
};
use dlmp_core::position::Scope;
use dlmp_core::session::{Connection, Player, PlayerIndex, Received};
use dlmp_core::vehicle::{Life, Pose, Vehicles};
use dlmp_player::credit::ExplosionKiller;
use dlmp_player::frame::FrameState;
use dlmp_player::weapons::actions::{Action, ActionKind, ActionLog};
use dlmp_player::weapons::explains::ExplodedVehicle;
use dlmp_player::{Body, Life as PlayerLife};
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken};
use dlmp_protocol::vehicle::life::{VehicleDeath, VehicleDeathCause, VehicleExplode};
use dlmp_protocol::{ClientPacket, ServerPacket};

/// A burning plane or helicopter faster than this in its last frame may blow up at once,
/// game units per step.
pub const AIRCRAFT_SPEED: f32 = 0.2;

/// Why a well-formed VehicleExplode was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplodeDrop {
    /// No such vehicle.
    UnknownVehicle,
    /// Another epoch than the vehicle's current one.
    Stale,
    /// The vehicle is a wreck already (a repeat, or a second report).
    Repeated,
    /// The sender does not control the vehicle now (or is not alive, or paused, or
    /// frozen).
    NotController,
    /// A train neither explodes nor drowns.
    Train,
    /// The server's health does not allow an explosion (yet).
    NotBurning,
}

/// VehicleExplodes accepted and dropped, by reason.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExplodeStats {
    pub accepted: u64,
    pub unknown_vehicle: u64,
    pub stale: u64,
    pub repeated: u64,
    pub not_controller: u64,
    pub train: u64,
    pub not_burning: u64,
}

impl ExplodeStats {
    fn count(&mut self, reason: ExplodeDrop) {
        *match reason {
            ExplodeDrop::UnknownVehicle => &mut self.unknown_vehicle,
            ExplodeDrop::Stale => &mut self.stale,
            ExplodeDrop::Repeated => &mut self.repeated,
            ExplodeDrop::NotController => &mut self.not_controller,
            ExplodeDrop::Train => &mut self.train,
            ExplodeDrop::NotBurning => &mut self.not_burning,
        } += 1;
    }
}

/// An accepted explosion or drowning: the vehicle is a wreck (`vehicle_death`).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct VehicleDied {
    pub vehicle: Entity,
    pub vehicle_id: dlmp_protocol::ids::VehicleId,
    pub cause: VehicleDeathCause,
    pub killer: Option<Who>,
}

/// Whether the server's health allows an explosion (not a drowning) at `now`.
pub fn health_allows(
    class: Option<VehicleClass>,
    health: f32,
    burning: &Burning,
    speed: f32,
    credited: bool,
    now: Duration,
) -> bool {
    if burning.has_burnt(health, now, BURN_TIME) {
        return true;
    }
    let aircraft = matches!(class, Some(VehicleClass::Plane | VehicleClass::Helicopter));
    aircraft && health < BURNING_BELOW && (speed > AIRCRAFT_SPEED || credited)
}

/// What the intake reads of a player.
type PlayerParts = (
    &'static Player,
    &'static PlayerLife,
    &'static Body,
    Option<&'static FrameState>,
    &'static Scope,
);

/// What the intake reads and writes of a vehicle.
type VehicleParts = (
    &'static Vehicle,
    &'static VehicleScope,
    &'static Pose,
    &'static Seats,
    &'static Syncer,
    Option<&'static Remote>,
    &'static mut Life,
    &'static mut Health,
    &'static Burning,
    &'static PassingShots,
);

/// Alive, spawned, neither paused nor frozen: a player who may control a vehicle.
fn is_live(parts: &(&Player, &PlayerLife, &Body, Option<&FrameState>, &Scope)) -> bool {
    let (_, life, body, frame, _) = parts;
    life.alive && life.spawned && !body.paused && frame.is_none_or(|f| f.frozen.is_none())
}

/// What the wreck changes outside the vehicle.
#[derive(bevy_ecs::system::SystemParam)]
pub struct Effects<'w, 's> {
    commands: Commands<'w, 's>,
    stream: Res<'w, VehicleStream>,
    index: Res<'w, PlayerIndex>,
    logs: Query<'w, 's, &'static mut ActionLog>,
    connections: Query<'w, 's, &'static mut Connection>,
    resets: MessageWriter<'w, VehicleReset>,
    died: MessageWriter<'w, VehicleDied>,
}

/// Takes this tick's VehicleExplodes, in lane order.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn intake(
    time: Res<Time>,
    registry: Res<Vehicles>,
    models: Res<VehicleModels>,
    mut stats: ResMut<ExplodeStats>,
    mut received: MessageReader<Received>,
    players: Query<PlayerParts>,
    mut vehicles: Query<VehicleParts>,
    mut effects: Effects,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::VehicleExplode(report) = packet else {
            continue;
        };
        match judge(
            *player, report, now, &registry, &models, &players, &vehicles, &effects,
        ) {
            Ok((entity, killer)) => {
                stats.accepted += 1;
                wreck(
                    entity,
                    report.cause,
                    killer,
                    now,
                    &players,
                    &mut vehicles,
                    &mut effects,
                );
            }
            Err(reason) => {
                debug!(
                    ?player,
                    vehicle = report.vehicle_id.0,
                    ?reason,
                    "VehicleExplode dropped"
                );
                stats.count(reason);
            }
        }
    }
}

/// The page's checks, in its order; the vehicle and its killer on success.
#[allow(
    clippy::too_many_arguments,
    reason = "the report, the clock and what it is checked against"
)]
fn judge(
    sender: Entity,
    report: &VehicleExplode,
    now: Duration,
    registry: &Vehicles,
    models: &VehicleModels,
    players: &Query<PlayerParts>,
    vehicles: &Query<VehicleParts>,
    effects: &Effects,
) -> Result<(Entity, Option<Who>), ExplodeDrop> {
    let entity = registry
        .entity(report.vehicle_id)
        .ok_or(ExplodeDrop::UnknownVehicle)?;
    let (vehicle, scope, pose, seats, syncer, remote, life, health, burning, passes) = vehicles
        .get(entity)
        .map_err(|_| ExplodeDrop::UnknownVehicle)?;
    if report.epoch != life.epoch {
        return Err(ExplodeDrop::Stale);
    }
    if life.wrecked {
        return Err(ExplodeDrop::Repeated);
    }
    let me = players
        .get(sender)
        .map_err(|_| ExplodeDrop::NotController)?;
    let who = Who {
        entity: sender,
        id: me.0.id,
        token: me.0.token,
    };
    if let Some(r) = remote
        && r.detonation
        && r.driver.entity == sender
        && r.driver.token == who.token
        && report.cause == VehicleDeathCause::Exploded
        && me.1.alive
    {
        return Ok((entity, Some(who)));
    }
    if !is_live(&me) {
        return Err(ExplodeDrop::NotController);
    }
    let live_driver = seats
        .driver()
        .filter(|d| players.get(d.entity).is_ok_and(|p| is_live(&p)));
    let controls = match live_driver {
        Some(d) => d.entity == sender,
        None => syncer.0.is_some_and(|s| s.entity == sender),
    };
    if !controls {
        return Err(ExplodeDrop::NotController);
    }
    let info = models.get(vehicle.model);
    if info.is_some_and(|i| i.is_train()) {
        return Err(ExplodeDrop::Train);
    }
    if report.cause == VehicleDeathCause::Drowned {
        return Ok((entity, None));
    }
    let killer = report
        .has_attacker
        .then(|| attacker(report.attacker_id, report.attacker_token, players, effects))
        .flatten()
        .filter(|(a, a_scope)| {
            credit::credited(
                (*a, *a_scope, effects.logs.get(a.entity).ok()),
                sender,
                &Exploded {
                    entity,
                    vehicle: ExplodedVehicle {
                        id: vehicle.id,
                        epoch: life.epoch,
                        position: pose.position,
                        scope: scope.0,
                    },
                    passes,
                },
                now,
            )
        })
        .map(|(a, _)| a);
    let speed = pose.velocity.length();
    if !health_allows(
        info.map(|i| i.class),
        health.0,
        burning,
        speed,
        killer.is_some(),
        now,
    ) {
        return Err(ExplodeDrop::NotBurning);
    }
    Ok((entity, killer))
}

/// The player the report names, by id and generation, with its scope now.
fn attacker(
    id: PlayerId,
    token: PlayerToken,
    players: &Query<PlayerParts>,
    effects: &Effects,
) -> Option<(Who, Scope)> {
    let entity = effects.index.get(id)?;
    let (player, .., scope) = players.get(entity).ok()?;
    (player.token == token).then_some((Who { entity, id, token }, *scope))
}

/// The vehicle becomes a wreck: its life, VehicleDeath to everyone it is streamed to, the
/// reset of attached state, the occupants' window, the blast that may explain others.
fn wreck(
    entity: Entity,
    cause: VehicleDeathCause,
    killer: Option<Who>,
    now: Duration,
    players: &Query<PlayerParts>,
    vehicles: &mut Query<VehicleParts>,
    effects: &mut Effects,
) {
    let Ok((vehicle, scope, pose, seats, _, _, mut life, mut health, ..)) =
        vehicles.get_mut(entity)
    else {
        return;
    };
    life.wrecked = true;
    life.drowned = cause == VehicleDeathCause::Drowned;
    if !life.drowned {
        health.0 = 0.0;
    }
    effects.resets.write(VehicleReset {
        vehicle: entity,
        id: vehicle.id,
        kind: ResetKind::Wrecked,
    });
    let death = VehicleDeath {
        event_id: EventId(0),
        vehicle_id: vehicle.id,
        epoch: life.epoch,
        cause,
        has_killer: killer.is_some(),
        killer_id: killer.map_or(PlayerId(0), |k| k.id),
        killer_token: killer.map_or(PlayerToken(0), |k| k.token),
    };
    effects.stream.shown().tell_viewers(
        vehicle.id.0,
        &ServerPacket::from(death),
        &effects.index,
        &mut effects.connections,
    );
    if let Some(k) = killer {
        if let Ok(mut log) = effects.logs.get_mut(k.entity) {
            let kind = ActionKind::VehicleExplosion {
                vehicle: vehicle.id,
            };
            log.push(Action::new(
                kind,
                now,
                Some(pose.position),
                (k.token, scope.0),
            ));
        }
        for (_, o) in seats.occupied() {
            if players
                .get(o.entity)
                .is_ok_and(|p| p.1.alive && p.0.token == o.token)
            {
                effects
                    .commands
                    .entity(o.entity)
                    .insert(ExplosionKiller::new(k, vehicle.id, now));
            }
        }
    }
    effects.died.write(VehicleDied {
        vehicle: entity,
        vehicle_id: vehicle.id,
        cause,
        killer,
    });
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    fn burning_since(ms: u64) -> Burning {
        Burning {
            since: Some(MS(ms)),
        }
    }

    #[rstest]
    #[case::car_burnt_4s(Some(VehicleClass::Car), 249.0, 0.0, false, 4000, true)]
    #[case::car_burnt_3_9s(Some(VehicleClass::Car), 249.0, 0.0, false, 3999, false)]
    #[case::car_at_250(Some(VehicleClass::Car), 250.0, 0.0, false, 9000, false)]
    #[case::fast_car(Some(VehicleClass::Car), 100.0, 3.0, true, 100, false)]
    #[case::fast_plane(Some(VehicleClass::Plane), 249.0, 0.21, false, 100, true)]
    #[case::plane_at_0_2(Some(VehicleClass::Plane), 249.0, 0.2, false, 100, false)]
    #[case::credited_heli(Some(VehicleClass::Helicopter), 249.0, 0.0, true, 100, true)]
    #[case::heli_not_burning(Some(VehicleClass::Helicopter), 250.0, 1.0, true, 9000, false)]
    fn the_health_rule(
        #[case] class: Option<VehicleClass>,
        #[case] health: f32,
        #[case] speed: f32,
        #[case] credited: bool,
        #[case] now_ms: u64,
        #[case] allowed: bool,
    ) {
        let burning = if health < BURNING_BELOW {
            burning_since(0)
        } else {
            Burning::default()
        };
        assert_eq!(
            health_allows(class, health, &burning, speed, credited, MS(now_ms)),
            allowed
        );
    }
}
