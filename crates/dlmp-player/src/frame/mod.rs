//! Frame admission (player.md, PlayerSync: "Admission", "Fields", "Server reads and
//! events"): each `Received` PlayerSync is checked against the server's state in
//! [`ServerSystems::Validation`]; an accepted frame updates [`LastFrame`], [`Position`],
//! [`Body`] and the [`Inventory`] and is announced with [`FrameAccepted`] for the relay.
//! The rules themselves are pure ([`rules`], [`keys`], [`movement`]).
//! Decisions: docs/decisions/0009-frame-admission.md.

pub mod keys;
pub mod movement;
pub mod rules;

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use self::keys::KeyTracker;
use self::movement::Movement;
use super::admission::{AdmissionRefused, RateLimit, RefusalReason};
use super::teleport::Landing;
use super::{Body, DeathEpoch, Inventory, LastFrame, Ledger, Life, SpawnState};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Player, PlayerConnected, PlayerIndex, Received, TokenBucket};
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_core::vehicle::Seated;
use dlmp_core::viewers::Viewers;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::Seq;
use dlmp_protocol::ids::{PlayerId, PlayerToken, Revision};
use dlmp_protocol::player::action::SpecialAction;
use dlmp_protocol::player::sync::{Frame, Keys, PlayerSync, WeaponState};
use dlmp_protocol::serial::Serial;

/// Why a well-formed PlayerSync was dropped whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameDrop {
    /// Before the connect spawn was granted.
    NotSpawned,
    /// A duplicate or overtaken seq.
    Stale,
    /// Past the sender's frame rate ([`FRAME_RATE`]): dropped, not relayed.
    RateLimited,
}

/// Accepted PlayerSync frames a second of one connection, on average: 70, above the
/// fastest an honest client sends (a change sampled every ~16 ms is 62.5 a second; player.md,
/// PlayerSync), with half a second of burst for frames a network hiccup bunches up (ADR
/// 0086). A frame past it is dropped and counted, never a reason to end the session.
pub const FRAME_RATE: dlmp_core::session::RateLimit =
    dlmp_core::session::RateLimit::per_second(35, 70);

/// Frames dropped whole, by reason (decoding failures are counted by the network layer).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameDrops {
    pub not_spawned: u64,
    pub stale: u64,
    pub rate_limited: u64,
}

impl FrameDrop {
    /// The reason's word for scripts (`player_frame_refused`).
    pub fn name(self) -> &'static str {
        match self {
            FrameDrop::NotSpawned => "not_spawned",
            FrameDrop::Stale => "stale",
            FrameDrop::RateLimited => "rate_limited",
        }
    }
}

impl FrameDrops {
    fn count(&mut self, reason: FrameDrop) {
        match reason {
            FrameDrop::NotSpawned => self.not_spawned += 1,
            FrameDrop::Stale => self.stale += 1,
            FrameDrop::RateLimited => self.rate_limited += 1,
        }
    }
}

/// A world-bounds rectangle (SetWorldBounds), in world units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min_x: f32,
    pub min_y: f32,
    pub max_x: f32,
    pub max_y: f32,
}

/// What admission keeps per player beyond the shared state: rate limits, the echoes it
/// compares, the movement check. The seams for commands not written yet (SetFrozen,
/// SetWorldBounds, SetSpecialAction, SetVelocity / SetGravity) are its public fields.
#[derive(Component, Debug, Clone, Default)]
pub struct FrameState {
    /// When paused last changed.
    pause_changed: Option<Duration>,
    /// When on_fire last changed.
    fire_changed: Option<Duration>,
    /// The server's SetSpecialAction revision; the owner ends an action only with it.
    pub special_rev: Revision,
    /// SetFrozen: the point the player was frozen, teleported or spawned at; `None` =
    /// not frozen.
    pub frozen: Option<Vec3>,
    /// SetWorldBounds; `None` = the whole world.
    pub bounds: Option<Bounds>,
    /// A ground-mode TeleportPlayer waiting for its landing (player/teleport.rs).
    pub landing: Option<Landing>,
    /// What scripts were told of the keys.
    pub keys: KeyTracker,
    /// The last `player_weapon_reload`.
    last_reload: Option<Duration>,
    /// The weapon state of the previous frame (a reload starts on 2 after another state).
    last_state: u8,
    /// The movement check and the physics echoes.
    pub movement: Movement,
    /// The accepted aim target (aim_target), with its generation.
    pub aim: Option<AimTarget>,
    /// A continuous weapon held firing since the last frame: the weapon and when its
    /// rounds were last spent.
    spray: Option<(u8, Duration)>,
    /// Rounds owed by a continuous weapon, fractions included.
    spray_owed: f32,
    /// The sender's frame budget ([`FRAME_RATE`]), from its first frame.
    rate: Option<TokenBucket>,
}

/// Rounds a continuous weapon (flamethrower, spray can, extinguisher) spends at least per
/// second of fire held.
pub const SPRAY_ROUNDS_PER_SECOND: f32 = 10.0;

/// The continuous weapons: flamethrower, spray can, fire extinguisher.
pub fn is_continuous(weapon: u8) -> bool {
    matches!(weapon, 37 | 41 | 42)
}

/// A player under the sender's aim, as the server accepted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AimTarget {
    pub entity: Entity,
    pub id: PlayerId,
    pub token: PlayerToken,
}

/// The aim target may be this far from the sender's camera ray, m, plus the target's
/// speed over [`AIM_LEAD`].
pub const AIM_REACH: f32 = 10.0;
/// See [`AIM_REACH`], seconds.
pub const AIM_LEAD: f32 = 0.5;

/// A frame was accepted this tick; the relay sends it to the subject's viewers. It carries
/// the frame as accepted (and the position it gave), so that two frames of one player in
/// one tick are each relayed, in order (issue 11: a jump or a shot latched in the older
/// one must reach the viewers).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct FrameAccepted {
    pub player: Entity,
    pub seq: Seq,
    /// The frame after world bounds, freeze and the movement check.
    pub frame: Frame,
    /// The server's position of the player right after this frame.
    pub position: Vec3,
}

/// What the server reads from frames and its own state, for the scripts.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameEvent {
    /// `player_key_change(player, key, pressed)`; `key` is the bit, 0..8.
    KeyChange {
        player: Entity,
        key: u8,
        pressed: bool,
    },
    /// `player_pause(player, paused)`.
    Pause { player: Entity, paused: bool },
    /// `player_weapon_reload(player, weapon)`.
    WeaponReload { player: Entity, weapon: u8 },
    /// `player_state_change(player, state, previous)`.
    StateChange {
        player: Entity,
        state: PlayerState,
        previous: PlayerState,
    },
    /// `player_interior_change(player, interior, previous)`.
    InteriorChange {
        player: Entity,
        interior: u8,
        previous: u8,
    },
}

/// The player's state as the server sees it (player_state_change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlayerState {
    /// Connected, not spawned yet.
    #[default]
    None,
    OnFoot,
    /// Alive in seat 0 of a vehicle.
    Driver,
    /// Alive in another seat.
    Passenger,
    Dead,
}

impl PlayerState {
    /// The Lua word.
    pub fn name(self) -> &'static str {
        match self {
            PlayerState::None => "none",
            PlayerState::OnFoot => "on_foot",
            PlayerState::Driver => "driver",
            PlayerState::Passenger => "passenger",
            PlayerState::Dead => "dead",
        }
    }

    /// The state of a player by its life and the seat the server holds it in.
    pub fn of(life: &Life, seated: Option<&Seated>) -> PlayerState {
        match (life.spawned, life.alive, seated.map(|s| s.seat)) {
            (false, ..) => PlayerState::None,
            (true, false, _) => PlayerState::Dead,
            (true, true, None) => PlayerState::OnFoot,
            (true, true, Some(0)) => PlayerState::Driver,
            (true, true, Some(_)) => PlayerState::Passenger,
        }
    }
}

/// State and interior changes are computed at most this often (20 passes a second).
pub const STATE_PASS: Duration = Duration::from_millis(50);
/// `player_weapon_reload` fires at most once per this long.
pub const RELOAD_INTERVAL: Duration = Duration::from_millis(250);

/// What the last state pass saw of a player.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Watched {
    state: PlayerState,
    interior: u8,
}

/// Admits PlayerSync frames.
pub struct FramePlugin;

impl Plugin for FramePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FrameDrops>()
            .add_message::<FrameAccepted>()
            .add_message::<FrameEvent>()
            .add_message::<AdmissionRefused>()
            .add_systems(
                FixedUpdate,
                (
                    give_frame_state,
                    admit_frames,
                    note_reported,
                    take_aim_targets,
                )
                    .chain()
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(FixedUpdate, watch_state.in_set(GameplaySystems::Intake));
    }
}

/// An accepted frame is where the player's game put it ([`crate::ReportedPosition`]).
fn note_reported(
    mut accepted: MessageReader<FrameAccepted>,
    mut players: Query<&mut crate::ReportedPosition>,
) {
    for a in accepted.read() {
        if let Ok(mut reported) = players.get_mut(a.player) {
            reported.0 = Some(a.position);
        }
    }
}

fn give_frame_state(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands
            .entity(c.player)
            .insert((FrameState::default(), Watched::default()));
    }
}

type FrameParts = (
    &'static mut SpawnState,
    &'static Life,
    &'static DeathEpoch,
    &'static mut LastFrame,
    &'static mut Position,
    &'static mut Body,
    &'static mut Inventory,
    &'static mut FrameState,
    &'static mut Ledger,
);

/// One player's [`FrameParts`], fetched.
type FrameItem<'w> = bevy_ecs::query::QueryItem<'w, 'w, FrameParts>;

/// Takes this tick's PlayerSync frames, in arrival order.
pub fn admit_frames(
    time: Res<Time>,
    mut received: MessageReader<Received>,
    mut players: Query<FrameParts>,
    mut drops: ResMut<FrameDrops>,
    mut accepted: MessageWriter<FrameAccepted>,
    mut events: MessageWriter<FrameEvent>,
    mut refused: MessageWriter<AdmissionRefused>,
    seated: Query<&dlmp_core::vehicle::Seated>,
    vehicles: Query<&dlmp_core::vehicle::Pose>,
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::PlayerSync(sync) = packet else {
            continue;
        };
        let seated_at = seated
            .get(*player)
            .ok()
            .and_then(|s| vehicles.get(s.vehicle).ok())
            .map(|p| p.position);
        let Ok(parts) = players.get_mut(*player) else {
            continue;
        };
        let mut refuse = |reason| {
            refused.write(AdmissionRefused {
                player: *player,
                reason,
            });
        };
        match admit(
            *player,
            sync,
            parts,
            seated_at,
            now,
            &mut |e| {
                events.write(e);
            },
            &mut refuse,
        ) {
            Ok(()) => {
                if let Ok((_, _, _, last, position, ..)) = players.get(*player)
                    && let (Some(seq), Some(frame)) = (last.seq, last.frame)
                {
                    accepted.write(FrameAccepted {
                        player: *player,
                        seq,
                        frame,
                        position: position.0,
                    });
                }
            }
            Err(reason) => {
                debug!(?player, ?reason, "PlayerSync dropped");
                drops.count(reason);
                refuse(RefusalReason::Frame(reason));
            }
        }
    }
}

/// One frame against one player's state. `seated_at`: the server position of the vehicle
/// the player sits in.
fn admit(
    player: Entity,
    sync: &PlayerSync,
    (mut spawn, life, epoch, mut last, mut position, mut body, mut inv, mut state, mut ledger): FrameItem<'_>,
    seated_at: Option<Vec3>,
    now: Duration,
    emit: &mut impl FnMut(FrameEvent),
    refuse: &mut impl FnMut(RefusalReason),
) -> Result<(), FrameDrop> {
    if !spawn.granted {
        return Err(FrameDrop::NotSpawned);
    }
    if last.seq.is_some_and(|s| !sync.seq.is_newer_than(s)) {
        return Err(FrameDrop::Stale);
    }
    if !state
        .rate
        .get_or_insert_with(|| TokenBucket::new(FRAME_RATE, now))
        .try_take(now)
    {
        return Err(FrameDrop::RateLimited);
    }
    last.seq = Some(sync.seq);
    last.at = Some(now);
    let mut f: Frame = sync.frame;
    // In the respawn window a living frame of the previous life (its death_epoch, delayed
    // past the death) is not the new life's: only the revived client's frames confirm it
    // (player.md, RespawnPlayer: "the new generation commits with the grant and the
    // client's first confirming alive = 1 frame"; ADR 0012).
    let previous_life = spawn.in_respawn_window() && f.death_epoch != epoch.0;
    let living = life.alive && f.alive && !previous_life;
    let state = &mut *state;

    // World bounds, then the freeze, before every other reader.
    if living && let Some(b) = state.bounds {
        hold_to_bounds(&mut f, b);
    }
    if living
        && state.frozen.is_some()
        && let Some(vehicle) = seated_at
    {
        hold_seated(&mut f, vehicle);
    } else if living && let Some(mut anchor) = state.frozen {
        if state.landing.is_some() {
            // Teleported in ground mode: the hold point's height is a guess until the
            // landing; only the horizontal hold applies.
            anchor.z = f32::INFINITY;
        }
        hold_frozen(&mut f, anchor);
    }

    // paused: one change a second.
    if f.paused != body.paused && !rules::may_toggle(state.pause_changed, now) {
        refuse(RefusalReason::RateLimit(RateLimit::Pause));
    } else if f.paused != body.paused {
        body.paused = f.paused;
        state.pause_changed = Some(now);
        emit(FrameEvent::Pause {
            player,
            paused: body.paused,
        });
    }
    let frozen = state.frozen.is_some();
    f.keys = rules::kept_keys(&f, body.paused, frozen);

    // on_fire: a living body only, one change a second.
    if !living {
        body.on_fire = false;
    } else if f.on_fire != body.on_fire && !rules::may_toggle(state.fire_changed, now) {
        refuse(RefusalReason::RateLimit(RateLimit::OnFire));
    } else if f.on_fire != body.on_fire {
        body.on_fire = f.on_fire;
        state.fire_changed = Some(now);
    }

    // special_action: the owner can only end it, with the current echo.
    if living && f.special_action == SpecialAction::None && f.special_rev == state.special_rev {
        body.special_action = SpecialAction::None;
    }

    // physics_rev: the echo first, then the movement check with what it applied.
    let mut gravity = state.movement.echo(f.physics_rev, now);
    gravity |= state.movement.expire(now);
    if gravity {
        body.gravity = state.movement.gravity;
    }

    if living {
        spawn.confirmed = true;
        spawn.life_confirmed = true;
        // A teleport or new bounds that leave the body outside start the check from the
        // edge.
        let from = state.bounds.map_or(position.0, |b| b.clamp(position.0));
        if from != position.0 {
            state.movement.shift_start(position.0, from);
        }
        let jetpack = body.special_action == SpecialAction::Jetpack;
        state.movement.airborne(f.on_ground, jetpack, now);
        position.0 = state.movement.check(from, f.pos, now);
        if position.0 != f.pos {
            refuse(RefusalReason::Movement);
        }
        super::teleport::observe_landing(state, &f, position.0);
        body.velocity = rules::velocity_mps(f.vel);
        if let Some(front) = rules::normalized(f.cam) {
            body.camera_front = front;
        }
        body.keys = f.keys;
        body.yaw = f.yaw;
        body.move_state = f.move_state;
        body.ducked = f.ducked;
        body.on_ground = f.on_ground;
        // hp and armor: in the client's order only, and only downward (ledger rule 2).
        super::ledger::take_frame_vitals(&mut ledger, &f);
    } else {
        body.keys = Keys::NONE;
    }
    f.pos = position.0;

    state.keys.observe(body.keys, now, |c| {
        emit(FrameEvent::KeyChange {
            player,
            key: c.key,
            pressed: c.pressed,
        });
    });

    // weapon_rev: reconcile only with the current echo.
    let current = living && f.weapon_rev == inv.weapon_rev && f.death_epoch == epoch.0;
    if current {
        rules::reconcile(&mut inv, &f);
    }
    // Continuous weapons spend from the inventory while fire is held, whatever the frame.
    let held = rules::relay_weapon(&f, &inv);
    let firing = living && is_continuous(held) && f.keys.contains(Keys::FIRE);
    if firing
        && let Some((w, since)) = state.spray
        && w == held
    {
        state.spray_owed += SPRAY_ROUNDS_PER_SECOND * now.saturating_sub(since).as_secs_f32();
        let whole = state.spray_owed.floor();
        state.spray_owed -= whole;
        // Whole rounds: `whole` is small and non-negative.
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "floor of a small non-negative value"
        )]
        let spend = whole.min(f32::from(u16::MAX)) as u16;
        let left = inv.ammo[usize::from(held)].saturating_sub(spend);
        inv.ammo[usize::from(held)] = left;
        if held == inv.armed {
            inv.clip = inv.clip.min(left);
        }
    }
    if firing {
        state.spray = Some((held, now));
    } else {
        state.spray = None;
        state.spray_owed = 0.0;
    }

    let reload_start = f.weapon_state() == WeaponState::Reloading && state.last_state != f.state;
    state.last_state = f.state;
    // In control: neither the server's pause state nor this frame's menu (a paused frame
    // whose change waits for the rate limit is still the menu; ADR 0041), not frozen.
    if reload_start
        && current
        && !body.paused
        && !f.paused
        && !frozen
        && rules::uses_ammo(f.weapon)
        && inv.holds(f.weapon)
        && inv.ammo[usize::from(f.weapon)] > 0
        && state
            .last_reload
            .is_none_or(|t| now.saturating_sub(t) >= RELOAD_INTERVAL)
    {
        state.last_reload = Some(now);
        emit(FrameEvent::WeaponReload {
            player,
            weapon: f.weapon,
        });
    }

    last.frame = Some(f);
    Ok(())
}

/// An on-foot position beyond an edge counts as on the edge, without velocity outward
/// through that edge and without shift.
fn hold_to_bounds(f: &mut Frame, b: Bounds) {
    let mut outside = false;
    if f.pos.x < b.min_x {
        f.pos.x = b.min_x;
        f.vel.x = f.vel.x.max(0.0);
        outside = true;
    } else if f.pos.x > b.max_x {
        f.pos.x = b.max_x;
        f.vel.x = f.vel.x.min(0.0);
        outside = true;
    }
    if f.pos.y < b.min_y {
        f.pos.y = b.min_y;
        f.vel.y = f.vel.y.max(0.0);
        outside = true;
    } else if f.pos.y > b.max_y {
        f.pos.y = b.max_y;
        f.vel.y = f.vel.y.min(0.0);
        outside = true;
    }
    if outside {
        f.shift_x = 0.0;
        f.shift_y = 0.0;
    }
}

/// Frozen and seated: within [`SEATED_HOLD`] of the vehicle's server position; beyond that
/// on the boundary with zero velocity (player.md, SetFrozen: "seated: 25 m from the
/// vehicle").
fn hold_seated(f: &mut Frame, vehicle: Vec3) {
    let d = Vec3::new(
        f.pos.x - vehicle.x,
        f.pos.y - vehicle.y,
        f.pos.z - vehicle.z,
    );
    let len = d.length();
    if len > SEATED_HOLD {
        let k = SEATED_HOLD / len;
        f.pos = Vec3::new(
            vehicle.x + d.x * k,
            vehicle.y + d.y * k,
            vehicle.z + d.z * k,
        );
        f.vel = Vec3::ZERO;
    }
}

/// How far a frozen seated player's frame may lie from its vehicle, m.
pub const SEATED_HOLD: f32 = 25.0;

/// Frozen: within 8 m horizontally and 3 m upward of the anchor, falling free; beyond that
/// on the boundary with zero velocity.
fn hold_frozen(f: &mut Frame, anchor: Vec3) {
    const RADIUS: f32 = 8.0;
    const RISE: f32 = 3.0;
    let (dx, dy) = (f.pos.x - anchor.x, f.pos.y - anchor.y);
    let h = dx.hypot(dy);
    let mut held = false;
    if h > RADIUS {
        let k = RADIUS / h;
        f.pos.x = anchor.x + dx * k;
        f.pos.y = anchor.y + dy * k;
        held = true;
    }
    if f.pos.z > anchor.z + RISE {
        f.pos.z = anchor.z + RISE;
        held = true;
    }
    if held {
        f.vel = Vec3::ZERO;
    }
}

/// What [`watch_state`] reads and updates of a player.
type WatchedPlayer = (
    Entity,
    &'static Life,
    &'static Scope,
    &'static mut Watched,
    &'static mut Body,
    &'static mut FrameState,
    Option<&'static Seated>,
);

/// Computes state and interior changes from the server's own state, at most 20 times a
/// second: a change and its reversal between two passes raise nothing. The same pass
/// releases the keys of a dead or frozen player.
#[allow(
    clippy::type_complexity,
    reason = "the player parts the state watch reads, in one query"
)]
fn watch_state(
    time: Res<Time>,
    mut last_pass: Local<Option<Duration>>,
    mut players: Query<WatchedPlayer>,
    mut events: MessageWriter<FrameEvent>,
) {
    let now = time.elapsed();
    if last_pass.is_some_and(|t| now.saturating_sub(t) < STATE_PASS) {
        return;
    }
    *last_pass = Some(now);
    for (player, life, scope, mut watched, mut body, mut frame_state, seated) in &mut players {
        // Freezing and death release the keys and the aim target without waiting for a
        // frame.
        if !life.alive || frame_state.frozen.is_some() {
            if frame_state.aim.is_some() {
                frame_state.aim = None;
            }
            if body.keys != Keys::NONE {
                body.keys = Keys::NONE;
            }
            if frame_state.keys.reported() != Keys::NONE {
                frame_state.keys.observe(Keys::NONE, now, |c| {
                    events.write(FrameEvent::KeyChange {
                        player,
                        key: c.key,
                        pressed: c.pressed,
                    });
                });
            }
        }
        let state = PlayerState::of(life, seated);
        if state != watched.state {
            events.write(FrameEvent::StateChange {
                player,
                state,
                previous: watched.state,
            });
            watched.state = state;
        }
        if scope.interior != watched.interior {
            events.write(FrameEvent::InteriorChange {
                player,
                interior: scope.interior,
                previous: watched.interior,
            });
            watched.interior = scope.interior;
        }
    }
}

/// Distance from `point` to the ray from `origin` along the unit `dir` (behind the origin:
/// to the origin).
pub fn ray_distance(origin: Vec3, dir: Vec3, point: Vec3) -> f32 {
    let d = Vec3::new(point.x - origin.x, point.y - origin.y, point.z - origin.z);
    let along = (d.x * dir.x + d.y * dir.y + d.z * dir.z).max(0.0);
    let closest = Vec3::new(
        d.x - dir.x * along,
        d.y - dir.y * along,
        d.z - dir.z * along,
    );
    closest.length()
}

/// What the aim check reads of a player.
type AimParts = (
    &'static Player,
    &'static LastFrame,
    &'static Life,
    &'static Body,
    &'static Position,
    &'static Viewers,
);

/// Whether `target` may stand under the aim of `sender`: the target alive and shown to
/// the sender; the sender alive, not paused, not frozen. Checked on the frame and again
/// on reading.
pub fn aim_holds(sender: (&Player, &Life, &Body), frozen: bool, target: (&Life, &Viewers)) -> bool {
    let (player, life, body) = sender;
    life.alive && !body.paused && !frozen && target.0.alive && target.1.contains(player.id)
}

/// The claim of each accepted frame: accepted only within reach of the sender's camera
/// ray (from its position: the camera's own position is not on the wire); otherwise there
/// is no target and the frame still stands.
fn take_aim_targets(
    mut accepted: MessageReader<FrameAccepted>,
    players: Query<AimParts>,
    mut states: Query<&mut FrameState>,
    index: Res<PlayerIndex>,
) {
    for &FrameAccepted { player: sender, .. } in accepted.read() {
        let Ok((player, last, life, body, position, _)) = players.get(sender) else {
            continue;
        };
        let Ok(mut state) = states.get_mut(sender) else {
            continue;
        };
        let claim = last
            .frame
            .map_or(dlmp_protocol::player::sync::NO_AIM_TARGET, |f| f.aim_target);
        let frozen = state.frozen.is_some();
        let aim = index
            .get(PlayerId(u32::from(claim)))
            .filter(|&t| t != sender && claim != dlmp_protocol::player::sync::NO_AIM_TARGET)
            .and_then(|t| players.get(t).ok().map(|parts| (t, parts)))
            .filter(|(_, (_, _, t_life, t_body, t_pos, t_viewers))| {
                aim_holds((player, life, body), frozen, (t_life, t_viewers))
                    && ray_distance(position.0, body.camera_front, t_pos.0)
                        <= AIM_REACH + t_body.velocity.length() * AIM_LEAD
            })
            .map(|(t, (tp, ..))| AimTarget {
                entity: t,
                id: tp.id,
                token: tp.token,
            });
        if state.aim != aim {
            state.aim = aim;
        }
    }
}
