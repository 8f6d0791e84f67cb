//! WeaponShot admission and RemoteWeaponShot (connection.md §6): a shot is accepted from a
//! spawned, living, unfrozen, unpaused shooter holding the weapon with ammo, with a newer
//! order, an origin within [`ORIGIN_REACH`] of its position and a ray within the weapon's
//! range; it spends one round, is remembered for attribution ([`RecentShots`]) and goes to
//! the shooter's viewers. A refusal is a drop, counted in [`ShotDrops`]. Admission runs in
//! [`ServerSystems::Validation`], the relay in [`StreamingSystems::Relay`].
//! Decisions: docs/decisions/0010-ledger-and-shots.md, 0017-shot-history.md.

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::admission::{AdmissionRefused, RefusalReason};
use super::frame::{FrameState, admit_frames};
use super::history::PositionHistory;
use super::ledger::{RecentShot, RecentShots, WeaponRanges};
use super::{Body, Inventory, LastFrame, Life, SpawnState, Team};
use dlmp_core::position::Position;
use dlmp_core::session::{Connection, Player, PlayerConnected, PlayerIndex, Received};
use dlmp_core::tick::{ServerSystems, StreamingSystems};
use dlmp_core::viewers::Viewers;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::connection::rewind::{RewindTarget, ShotRewind};
use dlmp_protocol::connection::weapons::{HitKind, RemoteWeaponShot, WeaponShot};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, Seq};
use dlmp_protocol::serial::Serial;

/// A shot's origin may be this far from the shooter's position, m.
pub const ORIGIN_REACH: f32 = 5.0;

/// The last accepted shot order of a shooter.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShotOrder(pub Option<Seq>);

/// Why a well-formed WeaponShot was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShotDrop {
    /// Not spawned, dead, frozen or paused.
    NotInControl,
    /// A weapon that fires no rays: the rocket launchers (35, 36) and the flamethrower (37)
    /// (weapons.md §1: rockets travel as ProjectileCreate, the flame is read from frames).
    NoRay,
    /// The weapon is not held, or holds no ammo, by the server's inventory.
    NoAmmo,
    /// A duplicate or overtaken order.
    Stale,
    /// The origin is too far from the shooter.
    Origin,
    /// The ray is longer than the weapon's range.
    Range,
}

/// Shots dropped, by reason, and accepted.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShotDrops {
    pub accepted: u64,
    pub not_in_control: u64,
    pub no_ray: u64,
    pub no_ammo: u64,
    pub stale: u64,
    pub origin: u64,
    pub range: u64,
}

impl ShotDrop {
    /// The reason's word for scripts (`player_shot_refused`).
    pub fn name(self) -> &'static str {
        match self {
            ShotDrop::NotInControl => "not_in_control",
            ShotDrop::NoRay => "no_ray",
            ShotDrop::NoAmmo => "no_ammo",
            ShotDrop::Stale => "stale",
            ShotDrop::Origin => "origin",
            ShotDrop::Range => "range",
        }
    }
}

impl ShotDrops {
    fn count(&mut self, reason: ShotDrop) {
        match reason {
            ShotDrop::NotInControl => self.not_in_control += 1,
            ShotDrop::NoRay => self.no_ray += 1,
            ShotDrop::NoAmmo => self.no_ammo += 1,
            ShotDrop::Stale => self.stale += 1,
            ShotDrop::Origin => self.origin += 1,
            ShotDrop::Range => self.range += 1,
        }
    }
}

/// Admits WeaponShots and relays the accepted ones.
pub struct ShotsPlugin;

impl Plugin for ShotsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ShotDrops>()
            .add_message::<ShotAccepted>()
            .add_message::<AdmissionRefused>()
            .add_systems(FixedUpdate, give_order.in_set(ServerSystems::Validation))
            .add_systems(
                FixedUpdate,
                admit_shots
                    .after(give_order)
                    .after(admit_frames)
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(FixedUpdate, relay_shots.in_set(StreamingSystems::Relay));
    }
}

/// A shot admitted this tick, waiting for the relay (which goes after the reconcile, so
/// it reaches exactly this tick's viewers). Written in arrival order, so each shooter's
/// orders grow.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ShotAccepted {
    pub shooter: Entity,
    pub shot: WeaponShot,
    /// The shooter's position by its last accepted frame, at the admission.
    pub shooter_pos: Vec3,
    /// When the shooter's last frame was accepted: the moment the target is rewound to.
    pub frame_at: Option<Duration>,
}

fn give_order(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands.entity(c.player).insert(ShotOrder::default());
    }
}

/// What admission reads of the shooter.
type Shooter = (
    &'static SpawnState,
    &'static Life,
    &'static Body,
    &'static FrameState,
    &'static Position,
    &'static LastFrame,
);

fn length(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(b.x - a.x, b.y - a.y, b.z - a.z).length()
}

/// The weapons a WeaponShot may not name though it decodes (connection.md allows 22..=38):
/// the rocket launcher, the heat-seeking launcher and the flamethrower (weapons.md §1).
pub const NO_RAYS: [u8; 3] = [35, 36, 37];

/// Whether the shot may be taken, by the shooter's state.
fn check(
    shot: &WeaponShot,
    (spawn, life, body, frame, position, _): (
        &SpawnState,
        &Life,
        &Body,
        &FrameState,
        &Position,
        &LastFrame,
    ),
    inv: &Inventory,
    order: ShotOrder,
    range: f32,
) -> Result<(), ShotDrop> {
    if !crate::weapons::in_control(spawn, life, body, frame) {
        return Err(ShotDrop::NotInControl);
    }
    if NO_RAYS.contains(&shot.weapon) {
        return Err(ShotDrop::NoRay);
    }
    if !inv.holds(shot.weapon) || inv.ammo[usize::from(shot.weapon)] == 0 {
        return Err(ShotDrop::NoAmmo);
    }
    if order.0.is_some_and(|last| !shot.order.is_newer_than(last)) {
        return Err(ShotDrop::Stale);
    }
    if length(position.0, shot.origin) > ORIGIN_REACH {
        return Err(ShotDrop::Origin);
    }
    if length(shot.origin, shot.hit) > range {
        return Err(ShotDrop::Range);
    }
    Ok(())
}

/// Takes this tick's WeaponShots in arrival order, after the tick's frames; the accepted
/// ones spend their round now and are relayed in [`StreamingSystems::Relay`].
pub fn admit_shots(
    time: Res<Time>,
    ranges: Res<WeaponRanges>,
    mut received: MessageReader<Received>,
    shooters: Query<Shooter>,
    mut own: Query<(&mut Inventory, &mut RecentShots, &mut ShotOrder)>,
    mut drops: ResMut<ShotDrops>,
    mut accepted: MessageWriter<ShotAccepted>,
    mut refused: MessageWriter<AdmissionRefused>,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::WeaponShot(shot) = packet else {
            continue;
        };
        let (Ok(parts), Ok((mut inv, mut recent, mut order))) =
            (shooters.get(*player), own.get_mut(*player))
        else {
            continue;
        };
        if let Err(reason) = check(shot, parts, &inv, *order, ranges.range(shot.weapon)) {
            debug!(?player, ?reason, "WeaponShot dropped");
            drops.count(reason);
            refused.write(AdmissionRefused {
                player: *player,
                reason: RefusalReason::Shot(reason),
            });
            continue;
        }
        drops.accepted += 1;
        order.0 = Some(shot.order);
        let w = usize::from(shot.weapon);
        inv.ammo[w] -= 1;
        if inv.armed == shot.weapon {
            inv.clip = inv.clip.min(inv.ammo[w]);
        }
        recent.push(RecentShot {
            at: now,
            weapon: shot.weapon,
            origin: shot.origin,
            hit: shot.hit,
        });
        let (.., position, last) = parts;
        accepted.write(ShotAccepted {
            shooter: *player,
            shot: shot.clone(),
            shooter_pos: position.0,
            frame_at: last.at,
        });
    }
}

/// What the relay reads of a shooter and of a target.
pub type Party = (
    &'static Player,
    &'static Team,
    &'static Viewers,
    &'static Position,
    Option<&'static PositionHistory>,
);

/// Sends this tick's accepted shots, in admission order, unreliable, to their shooters'
/// viewers as reconciled this tick (a viewer hidden this tick is not sent the shot; its
/// PlayerStreamOut carries the order already), with the relation per recipient.
fn relay_shots(
    index: Res<PlayerIndex>,
    mut accepted: MessageReader<ShotAccepted>,
    parties: Query<Party>,
    vehicles: VehicleTargets,
    mut connections: Query<&mut Connection>,
) {
    for a in accepted.read() {
        let shot = &a.shot;
        let rewind = match shot.hit_kind {
            HitKind::Vehicle => vehicle_rewind(
                dlmp_protocol::ids::VehicleId(shot.hit_id),
                a.frame_at,
                a.shooter_pos,
                &vehicles,
            ),
            HitKind::Player => player_rewind(
                PlayerId(shot.hit_id),
                a.frame_at,
                a.shooter_pos,
                &index,
                &parties,
            ),
            _ => ShotRewind::NONE,
        };
        relay_to_viewers(
            a.shooter,
            &index,
            &parties,
            &mut connections,
            |me, team, teammate| RemoteWeaponShot {
                id: me.id,
                player_token: me.token,
                order: shot.order,
                weapon: shot.weapon,
                origin: shot.origin,
                hit: shot.hit,
                hit_kind: shot.hit_kind,
                hit_id: shot.hit_id,
                relation_rev: team.relation_rev,
                teammate,
                rewind,
            },
        );
    }
}

/// Sends `make(shooter, its team, teammate of the recipient)`, unreliable, to everyone
/// the shooter is shown to (its [`Viewers`]): the relay of WeaponShot and VehicleShot.
pub fn relay_to_viewers<P: Into<dlmp_protocol::ServerPacket>>(
    shooter: Entity,
    index: &PlayerIndex,
    parties: &Query<Party>,
    connections: &mut Query<&mut Connection>,
    mut make: impl FnMut(&Player, &Team, bool) -> P,
) {
    let Ok((me, team, viewers, ..)) = parties.get(shooter) else {
        return;
    };
    for recipient in viewers.iter() {
        if recipient == me.id {
            continue;
        }
        let Some(target) = index.get(recipient) else {
            continue;
        };
        let teammate = parties
            .get(target)
            .is_ok_and(|(_, t, ..)| team.is_teammate_of(t));
        if let Ok(mut conn) = connections.get_mut(target)
            && let Err(e) = conn.send(make(me, team, teammate))
        {
            debug!(?target, ?e, "a shot relay refused");
        }
    }
}

/// The rewind of a shot that ended on player `target`: its server position at
/// `frame_at`, the time of the shooter's last accepted frame (its [`PositionHistory`];
/// without one, or before the shooter's first frame, its position now), and the shooter's
/// position. A player who is not here: no rewind.
pub fn player_rewind(
    target: PlayerId,
    frame_at: Option<Duration>,
    shooter_pos: Vec3,
    index: &PlayerIndex,
    parties: &Query<Party>,
) -> ShotRewind {
    let Some((target, _, _, now_pos, history)) =
        index.get(target).and_then(|t| parties.get(t).ok())
    else {
        return ShotRewind::NONE;
    };
    let target_pos = frame_at
        .and_then(|t| history.and_then(|h| h.at(t)))
        .unwrap_or(now_pos.0);
    ShotRewind {
        rewound: true,
        target_kind: RewindTarget::Player,
        target_id: target.id.0,
        target_token: target.token.0,
        target_pos,
        shooter_pos,
    }
}

/// What the rewind reads of the vehicles: the registry and each vehicle's epoch, pose and
/// position history.
#[derive(bevy_ecs::system::SystemParam)]
pub struct VehicleTargets<'w, 's> {
    registry: Option<Res<'w, dlmp_core::vehicle::Vehicles>>,
    vehicles: Query<
        'w,
        's,
        (
            &'static dlmp_core::vehicle::Life,
            &'static dlmp_core::vehicle::Pose,
            Option<&'static PositionHistory>,
        ),
    >,
}

/// The rewind of a shot that ended on a vehicle (connection.md §6, ShotRewind target_kind
/// 2): the vehicle's server position at `frame_at`, the time of the shooter's last
/// accepted frame (its [`PositionHistory`]; without one, its position now), its epoch in
/// the low byte of target_token, and the shooter's position. A vehicle that does not
/// exist: no rewind.
pub fn vehicle_rewind(
    id: dlmp_protocol::ids::VehicleId,
    frame_at: Option<Duration>,
    shooter_pos: Vec3,
    targets: &VehicleTargets,
) -> ShotRewind {
    let Some((life, pose, history)) = targets
        .registry
        .as_ref()
        .and_then(|r| r.entity(id))
        .and_then(|e| targets.vehicles.get(e).ok())
    else {
        return ShotRewind::NONE;
    };
    let target_pos = frame_at
        .and_then(|t| history.and_then(|h| h.at(t)))
        .unwrap_or(pose.position);
    ShotRewind {
        rewound: true,
        target_kind: RewindTarget::Vehicle,
        target_id: id.0,
        target_token: u32::from(life.epoch.0),
        target_pos,
        shooter_pos,
    }
}
