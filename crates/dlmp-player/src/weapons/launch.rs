//! ProjectileCreate admission and RemoteProjectileCreate (weapons.md §2). A launch is
//! taken, in the order of the sender's stream, from a spawned, living, unfrozen, unpaused
//! player, within the weapon event limit, in its current scope (`seen_event` between the
//! last ScopeChanged and the last event sent), and on foot only with the launcher armed
//! (by the last frame or one of the last 500 ms) and loaded by the server's inventory, the
//! origin within 5 m of the body, the velocity within 1.0 (thrown) or 2.0 (rocket) of the
//! body's, a satchel only while the latch holds fewer than 8, and half the weapon's game
//! interval after the previous launch of that weapon. An accepted launch, in the page's
//! order: spends a round at admission; `player_projectile` runs (`ask_launches`, after
//! the vehicle feature cleared a target the sender is not shown or that is not in its
//! scope); unless a handler refused it, it joins the latch (a satchel), the action log,
//! and goes to the players the launcher is shown to, on their reliable lanes after this
//! tick's shows and hides (`relay_launches`). A refusal is a counted drop
//! ([`LaunchStats`]). ADR 0131, 0134.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::position::Position;
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_core::vehicle::VEHICLE_HANDLE;
use dlmp_core::vehicle::{Life as VehicleLife, Pose, Seated, Vehicles};
use dlmp_core::viewers::Viewers;
use dlmp_protocol::geometry::{Vec3, distance};
use dlmp_protocol::ids::{EventId, VehicleEpoch, VehicleId};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::weapons::projectile::{
    Launch, ProjectileCreate, ProjectileWeapon, RemoteProjectileCreate,
};
use dlmp_protocol::weapons::satchel::MAX_SATCHELS;
use dlmp_script::{Arg, Handle, ScriptEvent, ScriptHost};
use tracing::debug;

use super::stats::{DropReason, EventStats};
use crate::frame::FrameState;
use crate::frame::rules::STEPS_PER_SECOND;
use crate::script::LuaPlayer;
use crate::shots::ORIGIN_REACH;
use crate::{Body, Inventory, LastFrame, Life, SpawnState};
use dlmp_core::viewers::tell_viewers_once;

/// A frame of this long ago still shows which weapon the player armed: the reliable launch
/// may overtake the unreliable frame that shows the switch.
pub const ARMED_WINDOW: Duration = Duration::from_millis(500);
/// How far a thrown projectile's start velocity may differ from the body's, units per step.
pub const THROWN_SLACK: f32 = 1.0;
/// How far a rocket's start velocity may differ from the body's, units per step.
pub const ROCKET_SLACK: f32 = 2.0;
/// The game interval of an on-foot launch (weapons.md §1, Projectile weapons).
pub const ON_FOOT_INTERVAL: Duration = Duration::from_millis(1000);
/// The game interval of a vehicle's rocket (weapons.md §1).
pub const VEHICLE_INTERVAL: Duration = Duration::from_millis(500);
/// How far a vehicle's rocket may start from the vehicle (as VehicleShot's rays).
pub const VEHICLE_REACH: f32 = 25.0;
/// How far from the origin a heat-seeking rocket may lock on.
pub const TARGET_REACH: f32 = 200.0;

/// The weapon that launches `projectile` on foot (weapons.md §1): the rockets come from the
/// launchers 35 and 36, every other projectile is thrown as itself.
pub fn launcher_of(projectile: ProjectileWeapon) -> u8 {
    match projectile {
        ProjectileWeapon::Rocket => 35,
        ProjectileWeapon::HeatSeeker => 36,
        other => other.to_repr(),
    }
}

/// The rockets a vehicle's own weapon launches, by its model (the vehicle feature inserts
/// it on every vehicle: Hunter 425 rockets, Hydra 520 rockets and heat-seekers).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RocketPods {
    pub rocket: bool,
    pub heat_seeker: bool,
}

impl RocketPods {
    fn launches(self, weapon: ProjectileWeapon) -> bool {
        match weapon {
            ProjectileWeapon::Rocket => self.rocket,
            ProjectileWeapon::HeatSeeker => self.heat_seeker,
            _ => false,
        }
    }
}

/// Why a well-formed ProjectileCreate was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaunchDrop {
    /// Past the weapon event limit (weapons.md §7).
    Limit,
    /// Not spawned, dead, frozen or paused.
    NotInControl,
    /// Launched in a scope the player has left, or naming an event never sent.
    Scope,
    /// On foot by the packet, but the server holds the sender in a seat.
    Seated,
    /// The launcher is not the armed weapon (the last frame's, or one of the last 500 ms).
    NotArmed,
    /// The launcher is not in the inventory or holds no round.
    NoAmmo,
    /// The origin is more than 5 m from the sender.
    Origin,
    /// The start velocity is too far from the body's.
    Velocity,
    /// The satchel latch holds 8 satchels already.
    Latch,
    /// Less than half the weapon's game interval since the previous launch.
    Interval,
    /// From a vehicle: the sender is not the player in its seat 0.
    NotDriver,
    /// From a vehicle that is a wreck.
    Wrecked,
    /// From a vehicle whose model does not launch this weapon (Hunter 425: 19; Hydra 520:
    /// 19 and 20).
    NoLauncher,
    /// Accepted, but a handler of `player_projectile` refused its relay (the round stays
    /// spent: the sender's game launched it).
    Gamemode,
}

impl DropReason for LaunchDrop {
    const ALL: &'static [Self] = &LaunchDrop::ALL;
    fn name(self) -> &'static str {
        LaunchDrop::name(self)
    }
}

impl LaunchDrop {
    pub const ALL: [LaunchDrop; 14] = [
        LaunchDrop::Limit,
        LaunchDrop::NotInControl,
        LaunchDrop::Scope,
        LaunchDrop::Seated,
        LaunchDrop::NotArmed,
        LaunchDrop::NoAmmo,
        LaunchDrop::Origin,
        LaunchDrop::Velocity,
        LaunchDrop::Latch,
        LaunchDrop::Interval,
        LaunchDrop::NotDriver,
        LaunchDrop::Wrecked,
        LaunchDrop::NoLauncher,
        LaunchDrop::Gamemode,
    ];

    /// The reason's word (console `stats`, logs).
    pub fn name(self) -> &'static str {
        match self {
            LaunchDrop::Limit => "limit",
            LaunchDrop::NotInControl => "not_in_control",
            LaunchDrop::Scope => "scope",
            LaunchDrop::Seated => "seated",
            LaunchDrop::NotArmed => "not_armed",
            LaunchDrop::NoAmmo => "no_ammo",
            LaunchDrop::Origin => "origin",
            LaunchDrop::Velocity => "velocity",
            LaunchDrop::Latch => "latch",
            LaunchDrop::Interval => "interval",
            LaunchDrop::NotDriver => "not_driver",
            LaunchDrop::Wrecked => "wrecked",
            LaunchDrop::NoLauncher => "no_launcher",
            LaunchDrop::Gamemode => "gamemode",
        }
    }
}

/// ProjectileCreates accepted (by the admission) and dropped by reason (a launch the
/// gamemode refused counts as accepted and as dropped for `gamemode`), and relays a full
/// lane refused.
pub type LaunchStats = EventStats<LaunchDrop>;

/// A player's launch state: the weapons its frames armed lately, its last launch of each
/// weapon, and its satchel latch.
#[derive(Component, Debug, Clone, Default)]
pub struct Launcher {
    /// (weapon, when) of the frames accepted in the last [`ARMED_WINDOW`], oldest first;
    /// one entry per run of frames arming the same weapon.
    arms: VecDeque<(u8, Duration)>,
    /// When the last accepted launch of each projectile weapon on foot arrived (the
    /// interval is timed by arrival, as VehicleShot's, ADR 0120).
    last: HashMap<(ProjectileWeapon, VehicleId), Duration>,
    /// The satchels thrown and relayed that have not burst: origin and time of each.
    pub satchels: Vec<(Vec3, Duration)>,
    /// The scope barrier the latch belongs to: a newer ScopeChanged clears it.
    latch_barrier: Option<EventId>,
    /// The detonator (40) is in the inventory because of the latch, not the gamemode's
    /// GiveWeapon: it leaves with the latch (weapons.md §3).
    latch_detonator: bool,
}

impl Launcher {
    /// A frame accepted at `at` armed `weapon`.
    fn note_armed(&mut self, weapon: u8, at: Duration) {
        match self.arms.back_mut() {
            Some((w, when)) if *w == weapon => *when = at,
            _ => self.arms.push_back((weapon, at)),
        }
        while self
            .arms
            .front()
            .is_some_and(|&(_, when)| at.saturating_sub(when) > ARMED_WINDOW)
        {
            self.arms.pop_front();
        }
    }

    /// Whether a frame of the last [`ARMED_WINDOW`] before `now` armed `weapon`.
    fn armed_lately(&self, weapon: u8, now: Duration) -> bool {
        self.arms
            .iter()
            .any(|&(w, at)| w == weapon && now.saturating_sub(at) <= ARMED_WINDOW)
    }

    /// Empties the latch (a detonation, a scope change, a death, weapons.md §3); the
    /// detonator the latch brought leaves the inventory with it.
    pub fn clear_latch(&mut self, inv: &mut Inventory) {
        self.satchels.clear();
        if std::mem::take(&mut self.latch_detonator) {
            take_detonator(inv);
        }
    }

    /// A satchel thrown at `at` from `origin` joins the latch; the first brings the
    /// detonator into the inventory unless the player holds one already.
    pub(super) fn latch(&mut self, origin: Vec3, at: Duration, inv: &mut Inventory) {
        self.satchels.push((origin, at));
        if !inv.holds(DETONATOR) {
            inv.held.set(usize::from(DETONATOR), true);
            self.latch_detonator = true;
        }
    }

    /// Whether a frame of the last [`ARMED_WINDOW`] before `now`, or the last frame
    /// (`armed`), armed `weapon`.
    pub fn is_armed(&self, armed: u8, weapon: u8, now: Duration) -> bool {
        armed == weapon || self.armed_lately(weapon, now)
    }
}

/// The detonator: it launches nothing and bursts its holder's satchels.
pub const DETONATOR: u8 = 40;

/// The detonator leaves the inventory (unarmed if it was armed).
pub fn take_detonator(inv: &mut Inventory) {
    inv.held.set(usize::from(DETONATOR), false);
    if inv.armed == DETONATOR {
        inv.armed = 0;
        inv.clip = 0;
    }
}

/// A launch accepted this tick (weapons.md §2, "An accepted launch"), its round spent,
/// waiting for `player_projectile`, then for the latch, the action log and the relay
/// (after the reconcile, so it reaches exactly this tick's viewers).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingLaunch {
    pub launcher: Entity,
    /// As accepted, with the target the server kept.
    pub launch: Launch,
    /// When it arrived.
    pub at: Duration,
    /// A handler of `player_projectile` returned false: nothing after the event happens.
    pub refused: bool,
    /// A satchel a SatchelDetonate later in the sender's stream of this tick burst: it
    /// joins no latch.
    pub burst: bool,
}

/// This tick's accepted launches, in acceptance order (ADR 0134: the vehicle feature
/// clears the targets it does not let the sender keep before the event runs).
#[derive(Resource, Debug, Default)]
pub struct PendingLaunches(pub Vec<PendingLaunch>);

impl PendingLaunches {
    /// The satchels `player` threw this tick that no detonation burst yet.
    fn satchels_of(&self, player: Entity) -> impl Iterator<Item = &PendingLaunch> {
        self.0.iter().filter(move |l| {
            l.launcher == player && l.launch.weapon == ProjectileWeapon::Satchel && !l.burst
        })
    }
}

/// Notes the weapon each frame accepted this tick armed (after the frames' reconcile).
pub(super) fn note_armed(
    time: Res<Time>,
    mut players: Query<(&Inventory, &LastFrame, &mut Launcher), Changed<LastFrame>>,
) {
    let now = time.elapsed();
    for (inv, last, mut launcher) in &mut players {
        if last.frame.is_some() {
            launcher.note_armed(inv.armed, last.at.unwrap_or(now));
        }
    }
}

/// Clears the latch of a player who died or whose scope changed (weapons.md §3: the
/// client removes its satchels on the same edges).
pub(super) fn clear_latches(
    mut players: Query<(&Life, &Connection, &mut Launcher, &mut Inventory)>,
) {
    for (life, conn, mut launcher, mut inv) in &mut players {
        let barrier = conn.scope_barrier();
        if launcher.latch_barrier != barrier || !life.alive {
            if !launcher.satchels.is_empty() || launcher.latch_detonator {
                launcher.clear_latch(&mut inv);
            }
            launcher.latch_barrier = barrier;
        }
    }
}

/// What admission reads of the sender.
type Sender = (
    &'static SpawnState,
    &'static Life,
    &'static Body,
    &'static FrameState,
    &'static Position,
    &'static LastFrame,
    &'static Connection,
    Option<&'static Seated>,
);

/// What the heat-seeker's target check and a vehicle's launch read of a vehicle.
type Target = (
    &'static VehicleLife,
    &'static Pose,
    Option<&'static RocketPods>,
);

/// The sender's state checks, in the page's order.
fn check(
    p: &ProjectileCreate,
    (spawn, life, body, frame, position, last, conn, seated): (
        &SpawnState,
        &Life,
        &Body,
        &FrameState,
        &Position,
        &LastFrame,
        &Connection,
        Option<&Seated>,
    ),
    (inv, launcher, latched): (&Inventory, &Launcher, usize),
    vehicle: Option<(&VehicleLife, &Pose, Option<&RocketPods>)>,
    (now, arrived): (Duration, Duration),
) -> Result<(), LaunchDrop> {
    if !super::in_control(spawn, life, body, frame) {
        return Err(LaunchDrop::NotInControl);
    }
    let too_old = conn
        .scope_barrier()
        .is_some_and(|barrier| barrier.is_newer_than(p.seen_event));
    if too_old || p.seen_event.is_newer_than(conn.last_queued()) {
        return Err(LaunchDrop::Scope);
    }
    let l = &p.launch;
    let (interval, from) = if l.vehicle_id == VehicleId::NONE {
        on_foot(l, (position, last, seated), inv, launcher, now)?;
        (ON_FOOT_INTERVAL, VehicleId::NONE)
    } else {
        from_vehicle(l, seated, vehicle)?;
        (VEHICLE_INTERVAL, l.vehicle_id)
    };
    if l.weapon == ProjectileWeapon::Satchel && latched >= usize::from(MAX_SATCHELS) {
        return Err(LaunchDrop::Latch);
    }
    if launcher
        .last
        .get(&(l.weapon, from))
        .is_some_and(|&at| arrived.saturating_sub(at) < interval / 2)
    {
        return Err(LaunchDrop::Interval);
    }
    Ok(())
}

/// The on-foot rules: no seat, the launcher armed and loaded, the origin near the body, the
/// velocity near the body's.
fn on_foot(
    l: &Launch,
    (position, last, seated): (&Position, &LastFrame, Option<&Seated>),
    inv: &Inventory,
    launcher: &Launcher,
    now: Duration,
) -> Result<(), LaunchDrop> {
    if seated.is_some() {
        return Err(LaunchDrop::Seated);
    }
    let weapon = launcher_of(l.weapon);
    if !launcher.is_armed(inv.armed, weapon, now) {
        return Err(LaunchDrop::NotArmed);
    }
    if !inv.holds(weapon) || inv.ammo[usize::from(weapon)] == 0 {
        return Err(LaunchDrop::NoAmmo);
    }
    if distance(position.0, l.origin) > ORIGIN_REACH {
        return Err(LaunchDrop::Origin);
    }
    let body_vel = last.frame.map_or(Vec3::ZERO, |f| f.vel);
    let slack = if l.weapon.is_rocket() {
        ROCKET_SLACK
    } else {
        THROWN_SLACK
    };
    if distance(l.velocity, body_vel) > slack {
        return Err(LaunchDrop::Velocity);
    }
    Ok(())
}

/// The rules of a vehicle's rocket: the sender drives it, it is no wreck, its model
/// launches the weapon, the origin is within 25 of it and the velocity within 2.0 of its
/// move speed, by its last accepted frame.
fn from_vehicle(
    l: &Launch,
    seated: Option<&Seated>,
    vehicle: Option<(&VehicleLife, &Pose, Option<&RocketPods>)>,
) -> Result<(), LaunchDrop> {
    if !seated.is_some_and(|s| s.id == l.vehicle_id && s.seat == 0) {
        return Err(LaunchDrop::NotDriver);
    }
    let Some((life, pose, pods)) = vehicle else {
        return Err(LaunchDrop::NotDriver);
    };
    if life.wrecked {
        return Err(LaunchDrop::Wrecked);
    }
    if !pods.is_some_and(|p| p.launches(l.weapon)) {
        return Err(LaunchDrop::NoLauncher);
    }
    if distance(pose.position, l.origin) > VEHICLE_REACH {
        return Err(LaunchDrop::Origin);
    }
    if distance(l.velocity, pose.velocity) > ROCKET_SLACK {
        return Err(LaunchDrop::Velocity);
    }
    Ok(())
}

/// The target a heat-seeking rocket keeps by what the player side knows: a vehicle of that
/// epoch, not wrecked, not its own seat's, within 200 m of the origin. Any other target is
/// cleared; the launch stands (weapons.md §2). "Streamed to the sender, in its scope" is
/// the vehicle feature's, which clears such a target of [`PendingLaunches`] before the
/// event runs (ADR 0131, 0134).
fn kept_target(
    l: &Launch,
    sender: (&Player, Option<&Seated>),
    vehicles: &Vehicles,
    targets: &Query<Target>,
) -> (VehicleId, VehicleEpoch) {
    let none = (VehicleId::NONE, VehicleEpoch(0));
    if l.target_id == VehicleId::NONE {
        return none;
    }
    let (_, seated) = sender;
    let keep = vehicles
        .entity(l.target_id)
        .and_then(|e| targets.get(e).ok())
        .is_some_and(|(life, pose, _)| {
            life.epoch == l.target_epoch
                && !life.wrecked
                && seated.is_none_or(|s| s.id != l.target_id)
                && distance(pose.position, l.origin) <= TARGET_REACH
        });
    if keep {
        (l.target_id, l.target_epoch)
    } else {
        none
    }
}

/// What a launch's admission reads and writes besides the sender's own state.
#[derive(bevy_ecs::system::SystemParam)]
pub(super) struct LaunchIntake<'w, 's> {
    vehicles: Res<'w, Vehicles>,
    senders: Query<'w, 's, (&'static Player, Sender)>,
    targets: Query<'w, 's, Target>,
    stats: ResMut<'w, LaunchStats>,
    pending: ResMut<'w, PendingLaunches>,
}

impl LaunchIntake<'_, '_> {
    /// Forgets the launches of the previous tick (each went through its event, the log and
    /// the relay then).
    pub(super) fn begin_tick(&mut self) {
        self.pending.0.clear();
    }

    /// The origins of the satchels `player` threw this tick that no detonation burst yet.
    pub(super) fn thrown_this_tick(&self, player: Entity) -> Vec<Vec3> {
        self.pending
            .satchels_of(player)
            .map(|l| l.launch.origin)
            .collect()
    }

    /// A detonation of `player` burst the satchels it threw this tick.
    pub(super) fn burst_this_tick(&mut self, player: Entity) {
        for l in &mut self.pending.0 {
            if l.launcher == player && l.launch.weapon == ProjectileWeapon::Satchel {
                l.burst = true;
            }
        }
    }

    /// Judges one ProjectileCreate of `player` that arrived `at`, at `now`, past its
    /// `gate`; an accepted one spends its round now and waits in [`PendingLaunches`].
    pub(super) fn take(
        &mut self,
        (player, p, at): (Entity, &ProjectileCreate, Duration),
        gate: super::Gate,
        (launcher, inv): (&mut Launcher, &mut Inventory),
        now: Duration,
    ) {
        let Ok((me, parts)) = self.senders.get(player) else {
            return;
        };
        let verdict = match gate {
            super::Gate::Limit => Err(LaunchDrop::Limit),
            super::Gate::Died => Err(LaunchDrop::NotInControl),
            super::Gate::Open => {
                let vehicle = self
                    .vehicles
                    .entity(p.launch.vehicle_id)
                    .and_then(|e| self.targets.get(e).ok());
                let latched = launcher.satchels.len() + self.pending.satchels_of(player).count();
                check(p, parts, (inv, launcher, latched), vehicle, (now, at))
            }
        };
        if let Err(why) = verdict {
            debug!(?player, reason = why.name(), "ProjectileCreate dropped");
            self.stats.drop(why);
            return;
        }
        self.stats.accepted += 1;
        let mut launch = p.launch;
        (launch.target_id, launch.target_epoch) =
            kept_target(&launch, (me, parts.7), &self.vehicles, &self.targets);
        if launch.vehicle_id == VehicleId::NONE {
            let weapon = usize::from(launcher_of(launch.weapon));
            inv.ammo[weapon] -= 1;
            if usize::from(inv.armed) == weapon {
                inv.clip = inv.clip.min(inv.ammo[weapon]);
            }
        }
        launcher.last.insert((launch.weapon, launch.vehicle_id), at);
        self.pending.0.push(PendingLaunch {
            launcher: player,
            launch,
            at: now,
            refused: false,
            burst: false,
        });
    }
}

/// Raises `player_projectile(player, projectile)` for each launch of this tick (weapons.md
/// §8): `projectile` is `{weapon, x, y, z, vx, vy, vz, vehicle, target}`, the origin in
/// metres, the velocity in m/s, the vehicles as the vehicle feature's handles (ADR 0134).
/// A handler returning false refuses everything after the event; the round stays spent.
pub(super) fn ask_launches(
    mut host: NonSendMut<ScriptHost>,
    mut pending: ResMut<PendingLaunches>,
    players: Query<&Player>,
    mut stats: ResMut<LaunchStats>,
) {
    for l in &mut pending.0 {
        let Ok(p) = players.get(l.launcher) else {
            continue;
        };
        let player = LuaPlayer {
            entity: l.launcher,
            token: p.token,
        };
        let event = ScriptEvent::new("player_projectile", [player.into(), projectile(&l.launch)]);
        if host.emit(&event).refused {
            l.refused = true;
            stats.drop(LaunchDrop::Gamemode);
        }
    }
}

/// The `projectile` table of `player_projectile`.
fn projectile(l: &Launch) -> Arg {
    let per_second = f64::from(STEPS_PER_SECOND);
    let vehicle =
        |id: VehicleId| (id != VehicleId::NONE).then(|| Handle::by_id(VEHICLE_HANDLE, id.0));
    Arg::Record(vec![
        ("weapon", l.weapon.to_repr().into()),
        ("x", f64::from(l.origin.x).into()),
        ("y", f64::from(l.origin.y).into()),
        ("z", f64::from(l.origin.z).into()),
        ("vx", (f64::from(l.velocity.x) * per_second).into()),
        ("vy", (f64::from(l.velocity.y) * per_second).into()),
        ("vz", (f64::from(l.velocity.z) * per_second).into()),
        ("vehicle", vehicle(l.vehicle_id).into()),
        ("target", vehicle(l.target_id).into()),
    ])
}

/// Latches this tick's accepted satchels and sends this tick's accepted launches, in
/// acceptance order, on the reliable lanes of the players their launchers are shown to as
/// reconciled this tick (a normal event: a full lane refuses it and that viewer never sees
/// the projectile); a launch a handler refused does neither (weapons.md §2, §3).
pub(super) fn relay_launches(
    index: Res<PlayerIndex>,
    pending: Res<PendingLaunches>,
    mut launchers: Query<(&Player, &Viewers, &mut Launcher, &mut Inventory)>,
    mut connections: Query<&mut Connection>,
    mut stats: ResMut<LaunchStats>,
) {
    for a in pending.0.iter().filter(|a| !a.refused) {
        let Ok((me, viewers, mut launcher, mut inv)) = launchers.get_mut(a.launcher) else {
            continue;
        };
        if a.launch.weapon == ProjectileWeapon::Satchel && !a.burst {
            launcher.latch(a.launch.origin, a.at, &mut inv);
        }
        let packet = RemoteProjectileCreate {
            id: me.id,
            player_token: me.token,
            event_id: EventId(0),
            launch: a.launch,
        };
        stats.relay_refused +=
            tell_viewers_once(a.launcher, viewers, &index, &mut connections, packet);
    }
}
