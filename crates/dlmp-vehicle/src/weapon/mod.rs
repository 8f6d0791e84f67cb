//! Vehicle weapons (vehicles.md VehicleShot, RemoteVehicleShot): each `Received`
//! VehicleShot is checked in [`ServerSystems::Validation`], after the tick's WeaponShots
//! and vehicle frames ([`admit`]); an accepted salvo moves the shooter's order in the
//! counter shared with WeaponShot ([`ShotOrder`]), puts its machine-gun rays into the
//! shooter's [`RecentShots`] with the table's hit weapon, and is announced with
//! [`SalvoAccepted`]; [`relay`] sends it as RemoteVehicleShot to those the shooter is
//! shown to in [`StreamingSystems::Relay`]. A refusal is a drop plus a warning, counted
//! in [`VehicleShotDrops`]. Decisions: docs/decisions/0070-vehicle-weapons.md.
//!
//! - [`table`]: the model table (`assets/vehicle_weapons.tsv`).
//! - [`target`]: the heat-seeker's target kept only if shown to the sender, in its scope.

pub mod admit;
pub mod relay;
pub mod table;
pub mod target;

use std::collections::HashMap;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;

use self::admit::{Facts, Holder, SalvoDrop};
use self::table::{VehicleWeapon, VehicleWeapons};
use super::frame::{VehicleFrameAccepted, admit_vehicle_frames};
use super::{Remote, Seats, Vehicle};
use dlmp_core::session::Received;
use dlmp_core::tick::{ServerSystems, StreamingSystems};
use dlmp_core::vehicle::{Life, Pose, Vehicles};
use dlmp_player::frame::FrameState;
use dlmp_player::ledger::{RecentShot, RecentShots, WeaponRanges};
use dlmp_player::shots::{ShotOrder, admit_shots};
use dlmp_player::{Body, Life as PlayerLife};
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::vehicle::shot::VehicleShot;

/// A salvo admitted this tick, for the relay and for the features that attribute its
/// damage (the vehicle kill credit, the cannon's explosion as a cause). Written in
/// arrival order.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct SalvoAccepted {
    pub shooter: Entity,
    pub vehicle: Entity,
    pub vehicle_id: VehicleId,
    pub weapon: VehicleWeapon,
    pub shot: VehicleShot,
    /// When it was accepted.
    pub at: Duration,
    /// The vehicle's position by its last accepted frame (the rewind's shooter_pos).
    pub vehicle_pos: Vec3,
    /// When the vehicle's last frame was accepted: the moment a target is rewound to.
    pub frame_at: Option<Duration>,
}

/// The Hunter: its weapon launches rockets (19) too (weapons.md §1, Projectile weapons).
pub const HUNTER: u16 = 425;
/// The Hydra: its weapon launches rockets (19) and heat-seeking rockets (20).
pub const HYDRA: u16 = 520;

/// The rockets a model's own weapon launches, for ProjectileCreate's admission (the player
/// crate's weapons feature reads it off every vehicle).
pub fn rocket_pods(model: u16) -> dlmp_player::weapons::launch::RocketPods {
    dlmp_player::weapons::launch::RocketPods {
        rocket: matches!(model, HUNTER | HYDRA),
        heat_seeker: model == HYDRA,
    }
}

/// VehicleShots dropped, by reason, and accepted.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct VehicleShotDrops {
    pub accepted: u64,
    pub dropped: HashMap<SalvoDrop, u64>,
}

impl VehicleShotDrops {
    /// Accepted, then each reason's drops (console `stats`).
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        use SalvoDrop::*;
        let mut out = vec![("accepted", self.accepted)];
        for why in [
            NotInControl,
            NoWeapon,
            Count,
            Origin,
            Length,
            Stale,
            Interval,
        ] {
            out.push((why.name(), self.dropped.get(&why).copied().unwrap_or(0)));
        }
        out
    }
}

/// Per vehicle: when its last frame and its last salvo were accepted.
#[derive(Resource, Debug, Default)]
pub struct SalvoClock {
    frame_at: HashMap<VehicleId, Duration>,
    salvo_at: HashMap<VehicleId, Duration>,
}

/// Admits VehicleShots and relays the accepted ones.
pub struct VehicleWeaponPlugin;

impl Plugin for VehicleWeaponPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(VehicleWeapons::load())
            .init_resource::<VehicleShotDrops>()
            .init_resource::<SalvoClock>()
            .add_message::<SalvoAccepted>()
            .add_systems(
                FixedUpdate,
                admit_salvos
                    .after(admit_shots)
                    .after(admit_vehicle_frames)
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                target::keep_shown_targets
                    .after(dlmp_player::weapons::AdmitWeapons)
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                relay::relay_salvos.in_set(StreamingSystems::Relay),
            );
    }
}

/// What admission reads of the shooter.
type Shooter = (
    &'static PlayerLife,
    &'static Body,
    Option<&'static FrameState>,
    &'static mut ShotOrder,
    &'static mut RecentShots,
);

/// Takes this tick's VehicleShots in arrival order (after the tick's WeaponShots: within
/// one tick those take their numbers first, ADR 0070).
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn admit_salvos(
    time: Res<Time>,
    weapons: Res<VehicleWeapons>,
    ranges: Res<WeaponRanges>,
    registry: Res<Vehicles>,
    mut clock: ResMut<SalvoClock>,
    mut frames: MessageReader<VehicleFrameAccepted>,
    mut received: MessageReader<Received>,
    mut shooters: Query<Shooter>,
    vehicles: Query<(&Vehicle, &Seats, &Life, &Pose, Option<&Remote>)>,
    mut drops: ResMut<VehicleShotDrops>,
    mut accepted: MessageWriter<SalvoAccepted>,
) {
    let now = time.elapsed();
    for f in frames.read() {
        clock.frame_at.insert(f.vehicle_id, now);
    }
    let clock = &mut *clock;
    for Received { player, packet, at } in received.read() {
        let ClientPacket::VehicleShot(shot) = packet else {
            continue;
        };
        let Ok((life, body, frame, mut order, mut recent)) = shooters.get_mut(*player) else {
            continue;
        };
        let found = registry
            .entity(shot.vehicle_id)
            .and_then(|e| vehicles.get(e).ok().map(|v| (e, v)));
        let Some((entity, (vehicle, seats, v_life, pose, remote))) = found else {
            refuse(&mut drops, *player, shot, SalvoDrop::NotInControl);
            continue;
        };
        let holder = if seats.driver().is_some_and(|d| d.entity == *player) {
            Holder::Driver
        } else if let Some(r) = remote.filter(|r| r.driver.entity == *player) {
            Holder::Remote {
                detonation: r.detonation,
            }
        } else {
            Holder::Nobody
        };
        let weapon = weapons.get(vehicle.model).copied();
        let facts = Facts {
            holder,
            live: life.spawned
                && life.alive
                && !body.paused
                && frame.is_none_or(|f| f.frozen.is_none()),
            wrecked: v_life.wrecked,
            weapon,
            position: pose.position,
            firearm_range: weapon.map_or(0.0, |w| ranges.range(w.hit_weapon)),
            last_order: order.0,
            last_salvo: clock.salvo_at.get(&shot.vehicle_id).copied(),
            arrived: *at,
        };
        let weapon = match admit::check(shot, vehicle.model, &facts) {
            Ok(w) => w,
            Err(why) => {
                refuse(&mut drops, *player, shot, why);
                continue;
            }
        };
        drops.accepted += 1;
        order.0 = Some(admit::last_ray(shot));
        clock.salvo_at.insert(shot.vehicle_id, *at);
        if weapon.kind.fires_bullets() {
            for ray in &shot.rays[..usize::from(shot.count)] {
                recent.push(RecentShot {
                    at: now,
                    weapon: weapon.hit_weapon,
                    origin: ray.start,
                    hit: ray.end,
                });
            }
        }
        accepted.write(SalvoAccepted {
            shooter: *player,
            vehicle: entity,
            vehicle_id: shot.vehicle_id,
            weapon,
            shot: shot.clone(),
            at: now,
            vehicle_pos: pose.position,
            frame_at: clock.frame_at.get(&shot.vehicle_id).copied(),
        });
    }
    if clock.salvo_at.len() + clock.frame_at.len() > 2 * registry.len() + 64 {
        clock
            .salvo_at
            .retain(|id, _| registry.entity(*id).is_some());
        clock
            .frame_at
            .retain(|id, _| registry.entity(*id).is_some());
    }
}

fn refuse(drops: &mut VehicleShotDrops, player: Entity, shot: &VehicleShot, why: SalvoDrop) {
    *drops.dropped.entry(why).or_default() += 1;
    dlmp_net::log_limited!(
        reason = why.name(),
        warn,
        ?player,
        vehicle = shot.vehicle_id.0,
        order = shot.order.0,
        "VehicleShot dropped: {}",
        why.name()
    );
}
