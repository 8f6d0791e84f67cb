//! The remote systems: the F keys (VehicleRemoteExit, VehicleRemoteEnter) in
//! [`GameplaySystems::Intake`], and in [`VehicleSystems::Seats`] after the seats every
//! automatic release, the gamemode's commands and the requests the scripts let through.
//! VehicleRemote goes, critical, to the driver only.
//!
//! [`GameplaySystems::Intake`]: dlmp_core::tick::GameplaySystems::Intake
//! [`VehicleSystems::Seats`]: crate::VehicleSystems::Seats

use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::rules::{self, Rc, Taker};
use super::{
    PendingRemoteEnter, RcSettings, Release, RemoteCommand, RemoteDriving, RemoteQueue,
    RemoteRefusal, RemoteStats,
};
use crate::event_limit::{Judged, VehicleLane};
use crate::models::{VehicleClass, VehicleModels};
use crate::seats::PlayerParts;
use crate::{
    Occupant, Params, Remote, ResetKind, Vehicle, VehicleReset, VehicleScope, VehicleStream,
};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player, Received};
use dlmp_core::vehicle::{Life, Pose, Seated, Vehicles};
use dlmp_net::lane::Delivery;
use dlmp_player::Life as PlayerLife;
use dlmp_player::frame::FrameState;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::vehicle::remote::VehicleRemote;
use dlmp_script::ScriptHost;

/// What they read of a vehicle.
type RcParts = (
    Entity,
    &'static Vehicle,
    &'static VehicleScope,
    &'static Pose,
    &'static Life,
    &'static Params,
    Option<&'static Remote>,
);

/// One driven RC as this pass sees it (the components change by command, so the pass
/// keeps its own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Drive {
    vehicle: Entity,
    id: VehicleId,
    remote: Remote,
}

/// The pass's table of driven RCs and what it changes.
struct Pass<'a, 'w, 's> {
    drives: Vec<Drive>,
    commands: Commands<'w, 's>,
    connections: Query<'w, 's, &'static mut Connection>,
    queue: &'a mut RemoteQueue,
    stats: &'a mut RemoteStats,
    /// RemoteTaken resets of this pass, written at its end.
    taken: Vec<VehicleReset>,
}

impl Pass<'_, '_, '_> {
    fn of_player(&self, player: Entity) -> Option<Drive> {
        self.drives
            .iter()
            .find(|d| d.remote.driver.entity == player)
            .copied()
    }

    fn of_vehicle(&self, vehicle: Entity) -> Option<Drive> {
        self.drives.iter().find(|d| d.vehicle == vehicle).copied()
    }

    fn tell(&mut self, to: Entity, id: VehicleId, detonation: bool) {
        let packet = VehicleRemote {
            event_id: EventId(0),
            vehicle_id: id,
            detonation,
        };
        if let Ok(mut c) = self.connections.get_mut(to)
            && let Err(e) = c.send_event(packet, Delivery::Critical)
        {
            dlmp_net::log_limited!(warn, vehicle = id.0, "VehicleRemote not queued: {e}");
        }
    }

    /// Ends `drive`: both components, VehicleRemote 0xFFFFFFFF to the driver (not to one
    /// who left), and `player_remote_exit` for an exit or the range.
    fn release(&mut self, drive: Drive, why: Release) {
        self.drives.retain(|d| d.vehicle != drive.vehicle);
        if let Ok(mut e) = self.commands.get_entity(drive.vehicle) {
            e.remove::<Remote>();
        }
        let driver = drive.remote.driver;
        if let Ok(mut e) = self.commands.get_entity(driver.entity) {
            e.remove::<RemoteDriving>();
        }
        if why != Release::Left {
            self.tell(driver.entity, VehicleId::NONE, false);
        }
        if let Some(word) = why.event_word() {
            self.queue.exits.push((driver, drive.id, word));
        }
        *self.stats.released.entry(why).or_default() += 1;
        debug!(
            vehicle = drive.id.0,
            player = driver.id.0,
            ?why,
            "RC released"
        );
    }

    /// Gives `vehicle` to `driver` (a grant that passed its checks): a driver of another
    /// RC lets go of it first; the same RC with a new detonation is told again; a new
    /// driver takes the RC (VehicleReset RemoteTaken).
    fn grant(&mut self, driver: Occupant, (vehicle, id): (Entity, VehicleId), detonation: bool) {
        if let Some(old) = self.of_player(driver.entity) {
            if old.vehicle == vehicle {
                if old.remote.detonation != detonation {
                    let remote = Remote { driver, detonation };
                    self.commands.entity(vehicle).insert(remote);
                    for d in &mut self.drives {
                        if d.vehicle == vehicle {
                            d.remote = remote;
                        }
                    }
                    self.tell(driver.entity, id, detonation);
                }
                return;
            }
            self.release(old, Release::Gamemode);
        }
        let remote = Remote { driver, detonation };
        self.commands.entity(vehicle).insert(remote);
        self.commands
            .entity(driver.entity)
            .insert(RemoteDriving { vehicle, id });
        self.drives.push(Drive {
            vehicle,
            id,
            remote,
        });
        self.taken.push(VehicleReset {
            vehicle,
            id,
            kind: ResetKind::RemoteTaken,
        });
        self.tell(driver.entity, id, detonation);
    }

    fn refuse(&mut self, why: RemoteRefusal, player: Occupant, id: VehicleId) {
        *self.stats.refused.entry(why).or_default() += 1;
        debug!(vehicle = id.0, player = player.id.0, ?why, "RC refused");
    }
}

/// A player as [`PlayerParts`] reads it.
type PlayerItem<'a> = (
    Entity,
    &'a Player,
    &'a PlayerLife,
    &'a Position,
    &'a Scope,
    Option<&'a FrameState>,
    Option<&'a Seated>,
);

/// A vehicle as [`RcParts`] reads it.
type RcItem<'a> = (
    Entity,
    &'a Vehicle,
    &'a VehicleScope,
    &'a Pose,
    &'a Life,
    &'a Params,
    Option<&'a Remote>,
);

fn occupant((entity, player, ..): &PlayerItem) -> Occupant {
    Occupant {
        entity: *entity,
        id: player.id,
        token: player.token,
    }
}

/// The checks' view of `player` and the RC, by the pass's table.
fn facts(
    pass: &Pass,
    player: &PlayerItem,
    rc: &RcItem,
    models: &VehicleModels,
    stream: &VehicleStream,
) -> (Taker, Rc) {
    let (entity, p, life, position, scope, frame, seated) = player;
    let (v_entity, vehicle, v_scope, pose, v_life, params, _) = rc;
    let mine = pass.of_player(*entity);
    let taker = Taker {
        alive: life.alive && life.spawned,
        seated: seated.is_some(),
        scope: **scope,
        position: position.0,
        frozen: frame.is_some_and(|f| f.frozen.is_some()),
        drives_rc: mine.is_some(),
    };
    let rc = Rc {
        is_rc: models
            .get(vehicle.model)
            .is_some_and(|m| m.class == VehicleClass::Rc),
        scope: v_scope.0,
        position: pose.position,
        wrecked: v_life.wrecked,
        streamed: stream.shown().contains(p.id, vehicle.id.0),
        driven_by_other: pass
            .of_vehicle(*v_entity)
            .is_some_and(|d| d.remote.driver.entity != *entity),
        locked: params.locked_for(p.id, p.token),
    };
    (taker, rc)
}

fn table(vehicles: &Query<RcParts>) -> Vec<Drive> {
    vehicles
        .iter()
        .filter_map(|(vehicle, v, .., remote)| {
            remote.map(|r| Drive {
                vehicle,
                id: v.id,
                remote: *r,
            })
        })
        .collect()
}

/// Before the scripts: their view of who drives which RC and the range.
pub(super) fn refresh_view(
    host: Option<NonSend<ScriptHost>>,
    settings: Res<RcSettings>,
    vehicles: Query<(&Vehicle, &Remote)>,
) {
    let Some(host) = host else { return };
    super::script::refresh(
        host.lua(),
        settings.range,
        vehicles.iter().map(|(v, r)| (v.id, r.driver.entity)),
    );
}

/// The tick's VehicleRemoteExit and VehicleRemoteEnter, in lane order, within the shared
/// vehicle event limit: an exit of exactly the driven RC releases it at once (anything
/// else is a no-op; the lane acknowledged it); an enter that passes the checks waits for
/// `player_remote_enter`.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn intake(
    models: Res<VehicleModels>,
    registry: Res<Vehicles>,
    stream: Res<VehicleStream>,
    mut received: MessageReader<Received>,
    players: Query<PlayerParts>,
    vehicles: Query<RcParts>,
    lane: Res<VehicleLane>,
    (commands, connections): (Commands, Query<&'static mut Connection>),
    (mut queue, mut stats): (ResMut<RemoteQueue>, ResMut<RemoteStats>),
) {
    queue.enters.clear();
    let mut pass = Pass {
        drives: table(&vehicles),
        commands,
        connections,
        queue: &mut queue,
        stats: &mut stats,
        taken: Vec::new(),
    };
    for Received { player, packet, .. } in received.read() {
        let id = match packet {
            ClientPacket::VehicleRemoteExit(p) => p.vehicle_id,
            ClientPacket::VehicleRemoteEnter(p) => p.vehicle_id,
            _ => continue,
        };
        let Ok(mut parts) = players.get(*player) else {
            continue;
        };
        let judged = lane.judged(*player, packet);
        if judged == Judged::Limited {
            debug!(
                player = parts.1.id.0,
                "a vehicle event past the rate limit dropped"
            );
            continue;
        }
        // The seat as the lane found it: an exit earlier in the tick left it (ADR 0120).
        parts.6 = judged.seat(parts.6);
        let me = occupant(&parts);
        if matches!(packet, ClientPacket::VehicleRemoteExit(_)) {
            match pass.of_player(*player).filter(|d| d.id == id) {
                Some(drive) => pass.release(drive, Release::Exit),
                None => pass.stats.stray_exits += 1,
            }
            continue;
        }
        let Some(rc) = registry.entity(id).and_then(|e| vehicles.get(e).ok()) else {
            pass.refuse(RemoteRefusal::NoVehicle, me, id);
            continue;
        };
        let (taker, facts_rc) = facts(&pass, &parts, &rc, &models, &stream);
        if let Err(why) = rules::enter(&taker, &facts_rc) {
            pass.refuse(why, me, id);
            continue;
        }
        if pass
            .queue
            .enters
            .iter()
            .any(|p| p.player.entity == me.entity)
        {
            pass.refuse(RemoteRefusal::DrivesRc, me, id);
            continue;
        }
        pass.queue.enters.push(PendingRemoteEnter {
            player: me,
            vehicle: rc.0,
            id,
            epoch: rc.4.epoch,
            refused: false,
        });
    }
}

/// After the seats: the automatic releases (the RC removed, wrecked or respawned; the
/// driver gone, dead, in another scope, seated, or out of range), then the gamemode's
/// commands in order, then the F-key requests the scripts let through, checked again.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn settle(
    models: Res<VehicleModels>,
    registry: Res<Vehicles>,
    stream: Res<VehicleStream>,
    mut settings: ResMut<RcSettings>,
    mut resets: ParamSet<(MessageReader<VehicleReset>, MessageWriter<VehicleReset>)>,
    mut commands_in: MessageReader<RemoteCommand>,
    players: Query<PlayerParts>,
    vehicles: Query<RcParts>,
    orphans: Query<(Entity, &Player, &RemoteDriving)>,
    (commands, connections): (Commands, Query<&'static mut Connection>),
    (mut queue, mut stats): (ResMut<RemoteQueue>, ResMut<RemoteStats>),
    clock: Res<Time>,
) {
    let now = clock.elapsed();
    // Grants still waiting for their RC's show go first, in their order; a later command
    // for the same player replaces them.
    let waiting = std::mem::take(&mut queue.waiting);
    let fresh: Vec<RemoteCommand> = commands_in.read().copied().collect();
    let replaced = |player: Entity| {
        fresh.iter().any(|c| {
            matches!(c, RemoteCommand::Set { player: p, .. } | RemoteCommand::Remove { player: p, .. } if *p == player)
        })
    };
    let all: Vec<(RemoteCommand, Option<std::time::Duration>)> = waiting
        .into_iter()
        .filter(|(c, _)| !matches!(c, RemoteCommand::Set { player, .. } if replaced(*player)))
        .map(|(c, until)| (c, Some(until)))
        .chain(fresh.iter().map(|c| (*c, None)))
        .collect();
    let read: Vec<VehicleReset> = resets.p0().read().copied().collect();
    // Exits the scripts did not take (no script host) are not kept.
    queue.exits.clear();
    let mut pass = Pass {
        drives: table(&vehicles),
        commands,
        connections,
        queue: &mut queue,
        stats: &mut stats,
        taken: Vec::new(),
    };

    // A driver whose RC is gone with its components.
    for (entity, player, driving) in &orphans {
        if pass.of_player(entity).is_none() && !vehicles.contains(driving.vehicle) {
            let drive = Drive {
                vehicle: driving.vehicle,
                id: driving.id,
                remote: Remote {
                    driver: Occupant {
                        entity,
                        id: player.id,
                        token: player.token,
                    },
                    detonation: false,
                },
            };
            pass.release(drive, Release::Removed);
        }
    }
    for drive in pass.drives.clone() {
        let why = release_reason(drive, &read, &players, &vehicles, settings.range);
        if let Some(why) = why {
            pass.release(drive, why);
        }
    }

    for (command, waited_until) in all {
        match command {
            RemoteCommand::Range(meters) => settings.range = meters,
            RemoteCommand::Remove { player, token } => {
                if let Some(drive) = pass
                    .of_player(player)
                    .filter(|d| d.remote.driver.token == token)
                {
                    pass.release(drive, Release::Gamemode);
                }
            }
            RemoteCommand::Set {
                player,
                token,
                vehicle,
                detonation,
            } => {
                let Some(parts) = players.get(player).ok().filter(|p| p.1.token == token) else {
                    continue;
                };
                let me = occupant(&parts);
                let Some(rc) = registry.entity(vehicle).and_then(|e| vehicles.get(e).ok()) else {
                    pass.refuse(RemoteRefusal::NoVehicle, me, vehicle);
                    continue;
                };
                let (taker, facts_rc) = facts(&pass, &parts, &rc, &models, &stream);
                match rules::grant(&taker, &facts_rc) {
                    Ok(()) => pass.grant(me, (rc.0, vehicle), detonation),
                    Err(RemoteRefusal::NotStreamed)
                        if waited_until.is_none_or(|until| now < until) =>
                    {
                        let until = waited_until.unwrap_or(now + super::STREAM_WAIT);
                        pass.queue.waiting.push((command, until));
                    }
                    Err(why) => {
                        dlmp_net::log_limited!(
                            warn,
                            vehicle = vehicle.0,
                            player = me.id.0,
                            "set_remote_vehicle refused: {}",
                            why.name()
                        );
                        pass.refuse(why, me, vehicle);
                    }
                }
            }
        }
    }

    for request in std::mem::take(&mut pass.queue.enters) {
        let me = request.player;
        if request.refused {
            pass.refuse(RemoteRefusal::Refused, me, request.id);
            continue;
        }
        let Some(parts) = players
            .get(me.entity)
            .ok()
            .filter(|p| p.1.token == me.token)
        else {
            continue;
        };
        let Some(rc) = vehicles
            .get(request.vehicle)
            .ok()
            .filter(|rc| rc.4.epoch == request.epoch)
        else {
            pass.refuse(RemoteRefusal::NoVehicle, me, request.id);
            continue;
        };
        let (taker, facts_rc) = facts(&pass, &parts, &rc, &models, &stream);
        match rules::enter(&taker, &facts_rc) {
            Ok(()) => pass.grant(me, (request.vehicle, request.id), false),
            Err(why) => pass.refuse(why, me, request.id),
        }
    }
    resets.p1().write_batch(pass.taken);
}

/// Why `drive` ends now, if it does, in the page's order of causes.
fn release_reason(
    drive: Drive,
    resets: &[VehicleReset],
    players: &Query<PlayerParts>,
    vehicles: &Query<RcParts>,
    range: f32,
) -> Option<Release> {
    let Ok((.., v_scope, pose, v_life, _, _)) = vehicles.get(drive.vehicle) else {
        return Some(Release::Removed);
    };
    let driver = drive.remote.driver;
    let Some((_, _, life, position, scope, _, seated)) = players
        .get(driver.entity)
        .ok()
        .filter(|p| p.1.token == driver.token)
    else {
        return Some(Release::Left);
    };
    for r in resets.iter().filter(|r| r.vehicle == drive.vehicle) {
        match r.kind {
            ResetKind::Wrecked => return Some(Release::Wrecked),
            ResetKind::Respawned => return Some(Release::Respawned),
            ResetKind::Transformed | ResetKind::RemoteTaken => {}
        }
    }
    if v_life.wrecked {
        return Some(Release::Wrecked);
    }
    if !(life.alive && life.spawned) {
        return Some(Release::Death);
    }
    if *scope != v_scope.0 {
        return Some(Release::Scope);
    }
    if seated.is_some() {
        return Some(Release::Seated);
    }
    if rules::out_of_range(position.0, pose.position, range) {
        return Some(Release::Range);
    }
    None
}
