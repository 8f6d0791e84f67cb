//! Control of a player's own body and camera (player.md, SetFrozen, SetCamera, SetOnFire):
//! the gamemode's freeze and camera combined into one SetFrozen, the camera's stream
//! center, spectating and its loss, and the fire command.
//! Decisions: docs/decisions/0016-freeze-and-camera.md.
//!
//! - Control is taken while the gamemode froze the player or its camera is not its own;
//!   SetFrozen goes only when that combined result changes, before a foreign camera and
//!   after the return of the own one. While it is taken, [`FrameState::frozen`] holds the
//!   anchor frame admission keeps the body near.
//! - Commands given before the first spawn are stored and go out at the spawn grant.
//! - Death keeps the freeze and the camera; a new respawn grant clears both, and puts out
//!   a fire commanded in the previous life.
//! - A gamemode command's packets are normal events (connection.md §3): on a lane without
//!   room for all of them the command is refused and nothing changes ("queue full" in
//!   Lua). What the server sends on its own (the spawn grant, the respawn grant's
//!   clearing, a lost spectate target) is critical.
//! - A map-editing session (editing.md §3, the crate above) holds the camera while it
//!   lasts ([`hold_for_session`], [`release_from_session`]): it gives the free camera or
//!   the own one, and the gamemode's camera commands are refused until it ends.

pub mod camera;

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use self::camera::{CameraSetting, Transition};
use super::frame::FrameState;
use super::teleport::MoveSystems;
use super::{Body, LastFrame, Life, RespawnGranted, SpawnGranted, SpawnState, SpawnSystems};
use dlmp_core::owner::{command_owner, reset_owner};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Player, PlayerConnected};
use dlmp_core::streaming::players::stream_center;
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerToken, Seq};
use dlmp_protocol::player::control::{SetFrozen, SetOnFire};

/// A camera transition's time runs only while the owner's last frame is at most this old:
/// two and a half heartbeats (player.md, PlayerSync: a frame at least every 100 ms).
pub const FRAME_GAP: Duration = Duration::from_millis(250);

/// A gamemode command of this feature (`player:set_frozen`, the camera setters,
/// `player:set_on_fire`); Rust plugins write the same. Applied in
/// [`GameplaySystems::Apply`] after the spawn grants, in the order written.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum ControlCommand {
    /// The gamemode's freeze.
    Freeze { player: Entity, frozen: bool },
    /// What the player's camera shows. A spectate target must be spawned, in the player's
    /// scope and not the player itself; a fixed camera within the page's bounds.
    Camera {
        player: Entity,
        camera: CameraSetting,
    },
    /// SetOnFire: to a living spawned player; setting fire only on foot with its life
    /// confirmed.
    Fire { player: Entity, on_fire: bool },
}

/// The spectate target of `player` changed scope or left: the server returned its own
/// camera (`spectate_lost(player, target)`).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpectateLost {
    pub player: Entity,
    pub target: Entity,
    pub target_token: PlayerToken,
}

/// One player's control state. Stored server state, never sent to observers.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Control {
    /// The gamemode's freeze (`player:set_frozen`).
    pub frozen: bool,
    /// The gamemode's camera.
    pub camera: CameraSetting,
    /// What the owner was last told by SetFrozen: control taken.
    told: bool,
    /// The stream center on its way to a fixed camera.
    transition: Option<Transition>,
    /// A SetOnFire went out in the current life.
    fire_sent: bool,
    /// An edit session holds the camera (editing.md §3: "The camera belongs to the
    /// session").
    held: bool,
    /// The owner's last frame seq seen, and when it was first seen.
    last_seq: Option<Seq>,
    last_frame_at: Option<Duration>,
}

impl Control {
    /// Whether control is taken: frozen by the gamemode or the camera not its own.
    pub fn control_taken(&self) -> bool {
        self.frozen || self.camera.is_foreign()
    }

    /// Whether the owner was told (SetFrozen(1)) that control is taken.
    pub fn told_frozen(&self) -> bool {
        self.told
    }

    /// Whether an edit session holds the camera: the gamemode cannot set another one.
    pub fn camera_held(&self) -> bool {
        self.held
    }

    /// The stream center's transition toward a fixed camera, while one runs.
    pub fn transition(&self) -> Option<&Transition> {
        self.transition.as_ref()
    }
}

/// Where the gamemode's freeze and camera change in [`GameplaySystems::Apply`]: a feature
/// that follows a player's control (a frozen driver's vehicle, vehicles.md) runs after it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControlSystems;

/// Adds the freeze, the camera and the fire command.
pub struct ControlPlugin;

impl Plugin for ControlPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<ControlCommand>()
            .add_message::<SpectateLost>()
            .add_systems(FixedUpdate, give_control.in_set(ServerSystems::Validation))
            .add_systems(
                FixedUpdate,
                (tell_at_spawn, clear_at_respawn, apply_commands)
                    .chain()
                    .in_set(ControlSystems)
                    .in_set(GameplaySystems::Apply)
                    .after(SpawnSystems::Grant)
                    // A spectate target is checked in the scope the player's and the
                    // target's moves of the same tick left (ADR 0016).
                    .after(MoveSystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                follow_cameras
                    .in_set(ServerSystems::Streaming)
                    .before(StreamingSystems::Reconcile),
            );
    }
}

fn give_control(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands.entity(c.player).insert(Control::default());
    }
}

/// What the feature changes on its player.
type Owned = (
    &'static mut Control,
    &'static mut Connection,
    &'static mut FrameState,
    &'static mut StreamCenter,
    &'static Position,
    &'static Life,
);

/// Who a packet of [`Owner`] goes out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sender {
    /// A gamemode command: a normal event, its room checked before anything changed.
    Gamemode,
    /// The server on its own (grants, a lost target): critical, no caller to refuse.
    Server,
}

/// One player's [`Owned`] parts, fetched.
struct Owner<'a> {
    sender: Sender,
    control: Mut<'a, Control>,
    conn: Mut<'a, Connection>,
    frame: Mut<'a, FrameState>,
    center: Mut<'a, StreamCenter>,
    body: Vec3,
}

impl<'a> Owner<'a> {
    fn new(item: bevy_ecs::query::QueryItem<'a, 'a, Owned>, sender: Sender) -> (Self, Life) {
        let (control, conn, frame, center, position, life) = item;
        (
            Owner {
                sender,
                control,
                conn,
                frame,
                center,
                body: position.0,
            },
            *life,
        )
    }

    /// Queues `packet` as its sender's delivery; the event id, if the lane took it.
    fn send(&mut self, packet: impl Into<ServerPacket>) -> Option<EventId> {
        match self.sender {
            Sender::Server => reset_owner(&mut self.conn, packet),
            Sender::Gamemode => command_owner(&mut self.conn, packet).ok(),
        }
    }

    /// SetFrozen(1) if control is taken and the owner does not know yet; the body is held
    /// where it is now.
    fn take_control(&mut self) {
        if self.control.control_taken() && !self.control.told {
            self.send(SetFrozen {
                event_id: EventId(0),
                frozen: true,
            });
            self.control.told = true;
            self.frame.frozen = Some(self.body);
        }
    }

    /// SetFrozen(0) if control is no longer taken and the owner was told it was.
    fn return_control(&mut self) {
        if !self.control.control_taken() && self.control.told {
            self.send(SetFrozen {
                event_id: EventId(0),
                frozen: false,
            });
            self.control.told = false;
            self.frame.frozen = None;
        }
    }

    /// SetCamera with the current setting; a fixed camera with a transition starts the
    /// center's transition from where the center is now.
    fn show_camera(&mut self, target: Option<Vec3>) {
        let event = self.send(self.control.camera.packet());
        let from = stream_center(&Position(self.body), &self.center);
        self.control.transition = match (self.control.camera, event) {
            (
                CameraSetting::Fixed {
                    pos, transition_ms, ..
                },
                Some(event),
            ) if transition_ms > 0 => Some(Transition {
                from,
                to: pos,
                duration: Duration::from_millis(u64::from(transition_ms)),
                run: Duration::ZERO,
                event,
            }),
            _ => None,
        };
        place_center(&self.control, &mut self.center, target, self.body);
    }

    /// Control first for a foreign camera, the own camera before control returns
    /// (player.md, SetCamera: "Order on the lane").
    fn change_camera(&mut self, camera: CameraSetting, target: Option<Vec3>) {
        self.control.camera = camera;
        self.take_control();
        self.show_camera(target);
        self.return_control();
    }
}

/// The stream center for the current setting: the body for the own camera, the camera's
/// way along its transition for a fixed one, the target for spectating (`target`: its
/// position now; `None` keeps the last one), and for the free camera the session's camera
/// point, which starts where the center was (editing.md §2: "the body, or the previous
/// camera's point") and which the session moves.
fn place_center(control: &Control, center: &mut StreamCenter, target: Option<Vec3>, body: Vec3) {
    let new = match control.camera {
        CameraSetting::Own => StreamCenter::default(),
        CameraSetting::Fixed { pos, .. } => StreamCenter {
            camera: Some(control.transition.map_or(pos, |t| t.center())),
            spectating: None,
        },
        CameraSetting::Spectate { id, .. } => StreamCenter {
            camera: target.or(center.camera),
            spectating: Some(id),
        },
        CameraSetting::Free => StreamCenter {
            camera: Some(center.camera.unwrap_or(body)),
            spectating: None,
        },
    };
    if *center != new {
        *center = new;
    }
}

/// The connect spawn grant: what the gamemode set before it goes out now, after
/// SpawnPlayer (player.md: "Set before the first spawn, it holds the player from the
/// spawn"; "it takes effect from the spawn").
fn tell_at_spawn(
    mut granted: MessageReader<SpawnGranted>,
    mut players: Query<Owned>,
    targets: Query<&Position>,
) {
    for g in granted.read() {
        let Ok(item) = players.get_mut(g.player) else {
            continue;
        };
        let (mut owner, _) = Owner::new(item, Sender::Server);
        let camera = owner.control.camera;
        owner.take_control();
        if camera.is_foreign() {
            owner.show_camera(spectate_target(&camera, &targets));
        }
    }
}

/// A new respawn grant clears the freeze and the camera (SetCamera 0 before SetFrozen 0)
/// and puts out a fire commanded in the previous life (SetOnFire 0), all after the grant.
/// The server's on_fire is cleared too: the grant clears it (player.md, PlayerSync
/// on_fire).
fn clear_at_respawn(
    mut granted: MessageReader<RespawnGranted>,
    mut players: Query<Owned>,
    mut bodies: Query<&mut Body>,
) {
    for g in granted.read() {
        if let Ok(mut body) = bodies.get_mut(g.player) {
            body.on_fire = false;
        }
        let Ok(item) = players.get_mut(g.player) else {
            continue;
        };
        let (mut owner, _) = Owner::new(item, Sender::Server);
        owner.control.frozen = false;
        if owner.control.camera.is_foreign() {
            owner.change_camera(CameraSetting::Own, None);
        }
        owner.return_control();
        if std::mem::take(&mut owner.control.fire_sent) {
            owner.send(SetOnFire {
                event_id: EventId(0),
                on_fire: false,
            });
        }
    }
}

fn spectate_target(camera: &CameraSetting, positions: &Query<&Position>) -> Option<Vec3> {
    match camera {
        CameraSetting::Spectate { target, .. } => positions.get(*target).ok().map(|p| p.0),
        _ => None,
    }
}

/// Why a command was not applied (the Lua functions refuse these in the call already).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Refusal {
    Camera(camera::CameraError),
    /// An edit session holds the camera.
    CameraHeld,
    /// The free camera is an edit session's, never a command's.
    FreeCamera,
    PlayerGone,
    TargetGone,
    TargetNotSpawned,
    TargetOutOfScope,
    TargetSelf,
    /// Not spawned, dead, the new life not confirmed, or the lane has no room for the
    /// command's packets (connection.md §3).
    Common(super::Refusal),
}

/// What a spectate target is checked by.
type TargetParts = (
    &'static Player,
    &'static Life,
    &'static Scope,
    &'static Position,
);

/// The SetFrozen and SetCamera packets that take a spawned owner from the gamemode's
/// freeze and camera `from` to `to`: SetFrozen when "control taken" changes, SetCamera
/// when the camera does (player.md, SetFrozen, SetCamera). The Lua setters take these
/// places on the lane in the call; the apply system checks them again.
pub fn control_packets(from: (bool, CameraSetting), to: (bool, CameraSetting)) -> usize {
    let taken = |(frozen, camera): (bool, CameraSetting)| frozen || camera.is_foreign();
    usize::from(from.1 != to.1) + usize::from(taken(from) != taken(to))
}

impl From<super::Refusal> for Refusal {
    fn from(common: super::Refusal) -> Self {
        Refusal::Common(common)
    }
}

/// Applies this tick's gamemode commands in order; a refused one changes nothing.
fn apply_commands(
    mut commands: MessageReader<ControlCommand>,
    mut players: Query<Owned>,
    others: Query<TargetParts>,
    spawns: Query<&SpawnState>,
    seated: Query<(), With<dlmp_core::vehicle::Seated>>,
) {
    for &command in commands.read() {
        let (ControlCommand::Freeze { player, .. }
        | ControlCommand::Camera { player, .. }
        | ControlCommand::Fire { player, .. }) = command;
        let Ok(item) = players.get_mut(player) else {
            continue;
        };
        let (mut owner, life) = Owner::new(item, Sender::Gamemode);
        let result = match command {
            ControlCommand::Freeze { frozen, .. } => freeze(&mut owner, life, frozen),
            ControlCommand::Camera { .. } if owner.control.held => Err(Refusal::CameraHeld),
            ControlCommand::Camera {
                camera: CameraSetting::Free,
                ..
            } => Err(Refusal::FreeCamera),
            ControlCommand::Camera { camera, .. } => check_camera(player, &camera, &others)
                .and_then(|target| set_camera(&mut owner, life, camera, target)),
            // player.md, SetOnFire: "sets fire only to a player on foot".
            ControlCommand::Fire { on_fire: true, .. } if seated.contains(player) => {
                debug!(?player, "set_on_fire refused: seated");
                continue;
            }
            ControlCommand::Fire { on_fire, .. } => {
                let confirmed = spawns.get(player).is_ok_and(|s| s.life_confirmed);
                set_fire(&mut owner, life, confirmed, on_fire)
            }
        };
        if let Err(refusal) = result {
            debug!(?player, ?refusal, "control command refused");
        }
    }
}

/// The gamemode's freeze; a spawned owner is told at once if "control taken" changes.
fn freeze(owner: &mut Owner, life: Life, frozen: bool) -> Result<(), Refusal> {
    let now = (owner.control.frozen, owner.control.camera);
    let packets = if life.spawned {
        control_packets(now, (frozen, now.1))
    } else {
        0
    };
    super::Refusal::room(&owner.conn, packets)?;
    owner.control.frozen = frozen;
    if life.spawned {
        owner.take_control();
        owner.return_control();
    }
    Ok(())
}

/// The gamemode's camera (checked, `target`: a spectate target's position); a spawned
/// owner is told at once, one not spawned yet at its spawn. The same camera changes
/// nothing.
fn set_camera(
    owner: &mut Owner,
    life: Life,
    camera: CameraSetting,
    target: Option<Vec3>,
) -> Result<(), Refusal> {
    if camera == owner.control.camera {
        return Ok(());
    }
    if !life.spawned {
        owner.control.camera = camera;
        return Ok(());
    }
    let now = (owner.control.frozen, owner.control.camera);
    super::Refusal::room(&owner.conn, control_packets(now, (now.0, camera)))?;
    owner.change_camera(camera, target);
    Ok(())
}

/// SetOnFire to a living owner (setting a fire waits for the new life's confirmation);
/// a fire sent is put out at the next respawn.
fn set_fire(owner: &mut Owner, life: Life, confirmed: bool, on_fire: bool) -> Result<(), Refusal> {
    if let Some(refusal) = fire_refusal(life, confirmed, on_fire) {
        return Err(refusal);
    }
    super::Refusal::room(&owner.conn, 1)?;
    let packet = SetOnFire {
        event_id: EventId(0),
        on_fire,
    };
    if owner.send(packet).is_some() {
        owner.control.fire_sent = true;
    }
    Ok(())
}

fn fire_refusal(life: Life, confirmed: bool, on_fire: bool) -> Option<Refusal> {
    let checked = if on_fire {
        super::Refusal::confirmed(life, confirmed)
    } else {
        super::Refusal::living(life)
    };
    checked.err().map(Refusal::Common)
}

/// A camera the server takes: a fixed one within bounds; a spectate target spawned, in
/// the player's scope, not the player. The target's position, for spectating.
fn check_camera(
    player: Entity,
    camera: &CameraSetting,
    others: &Query<TargetParts>,
) -> Result<Option<Vec3>, Refusal> {
    camera.check().map_err(Refusal::Camera)?;
    let CameraSetting::Spectate { target, token, .. } = *camera else {
        return Ok(None);
    };
    if target == player {
        return Err(Refusal::TargetSelf);
    }
    let (_, _, scope, _) = others.get(player).map_err(|_| Refusal::PlayerGone)?;
    let (_, life, target_scope, position) = others
        .get(target)
        .ok()
        .filter(|(p, ..)| p.token == token)
        .ok_or(Refusal::TargetGone)?;
    if !life.spawned {
        return Err(Refusal::TargetNotSpawned);
    }
    if scope != target_scope {
        return Err(Refusal::TargetOutOfScope);
    }
    Ok(Some(position.0))
}

/// What [`follow_cameras`] reads of the spectator beyond [`Owned`].
type Follower = (Entity, &'static Scope, Option<&'static LastFrame>);

/// Every tick before streaming: a spectate target that left or changed scope ends the
/// spectating (SetCamera 0, control back, `spectate_lost`); the target's death and
/// respawn do not. The stream center follows the target, or runs its transition while
/// the SetCamera is acknowledged and the owner sends frames.
fn follow_cameras(
    time: Res<Time>,
    mut lost: MessageWriter<SpectateLost>,
    mut players: Query<(Follower, Owned)>,
    targets: Query<(&Player, &Position, &Scope)>,
) {
    let now = time.elapsed();
    for ((entity, scope, last), item) in &mut players {
        let (mut owner, life) = Owner::new(item, Sender::Server);
        note_frame(&mut owner, last, now);
        let target_at = match spectated(entity, &owner.control, scope, &targets) {
            Ok(at) => at,
            Err(lost_target) => {
                end_spectating(&mut owner, life);
                lost.write(lost_target);
                None
            }
        };
        if life.spawned {
            move_center(&mut owner, now, time.delta(), target_at);
        }
    }
}

/// Notes when the owner's last new frame arrived: the transition runs only while frames
/// come.
fn note_frame(owner: &mut Owner, last: Option<&LastFrame>, now: Duration) {
    let seq = last.and_then(|l| l.seq);
    if seq != owner.control.last_seq {
        owner.control.last_seq = seq;
        owner.control.last_frame_at = Some(now);
    }
}

/// The spectate target's position (`None` for another camera), or the target lost: it
/// left, or it is no longer in the spectator's scope. Its death and respawn do not count.
fn spectated(
    player: Entity,
    control: &Control,
    scope: &Scope,
    targets: &Query<(&Player, &Position, &Scope)>,
) -> Result<Option<Vec3>, SpectateLost> {
    let CameraSetting::Spectate { target, token, .. } = control.camera else {
        return Ok(None);
    };
    targets
        .get(target)
        .ok()
        .filter(|(p, _, s)| p.token == token && *s == scope)
        .map(|(_, position, _)| Some(position.0))
        .ok_or(SpectateLost {
            player,
            target,
            target_token: token,
        })
}

/// The own camera again: told at once to a spawned owner, with control back.
fn end_spectating(owner: &mut Owner, life: Life) {
    if life.spawned {
        owner.change_camera(CameraSetting::Own, None);
    } else {
        owner.control.camera = CameraSetting::Own;
    }
}

/// Runs a fixed camera's transition while its SetCamera is acknowledged and the owner
/// sends frames, then places the stream center.
fn move_center(owner: &mut Owner, now: Duration, dt: Duration, target_at: Option<Vec3>) {
    let sending = owner
        .control
        .last_frame_at
        .is_some_and(|t| now.saturating_sub(t) <= FRAME_GAP);
    let Owner {
        control,
        conn,
        center,
        body,
        ..
    } = owner;
    if let Some(t) = control.transition.as_mut()
        && sending
        && conn.is_acked(t.event)
        && t.advance(dt)
    {
        control.transition = None;
    }
    place_center(control, center, target_at, *body);
}

/// What an edit session reads and changes of its player's control: the parts
/// [`hold_for_session`] and [`release_from_session`] take, as one query's item.
pub type ControlParts = Owned;

/// The camera a map-editing session gives its player (editing.md §3, "Start").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionCamera {
    /// The player keeps control and its own camera.
    Own,
    /// SetCamera mode 3: the client flies the camera; the player has no control.
    Free,
}

/// An edit session takes the camera (editing.md §3, "Start"), after its EditState: with
/// the free camera, SetFrozen(1) unless control is taken already, then SetCamera mode 3
/// with zero fields, the stream center starting where it was; with the own camera,
/// SetCamera mode 0 if the camera was not its own, then SetFrozen(0) if that returns
/// control. A spectated target is let go without `spectate_lost`: the gamemode chose to
/// edit. The packets are critical, as everything the server sends on its own here.
pub fn hold_for_session(
    item: bevy_ecs::query::QueryItem<'_, '_, ControlParts>,
    camera: SessionCamera,
) {
    let (mut owner, _) = Owner::new(item, Sender::Server);
    owner.control.held = true;
    let to = match camera {
        SessionCamera::Own => CameraSetting::Own,
        SessionCamera::Free => CameraSetting::Free,
    };
    if owner.control.camera != to {
        owner.change_camera(to, None);
    }
}

/// The session's end gives the camera back (editing.md §3, "End"): SetCamera mode 0 if it
/// was the free camera, then SetFrozen(0) if that returns control, before the session's
/// last EditState. The gamemode may set a camera again.
pub fn release_from_session(item: bevy_ecs::query::QueryItem<'_, '_, ControlParts>) {
    let (mut owner, _) = Owner::new(item, Sender::Server);
    owner.control.held = false;
    if owner.control.camera == CameraSetting::Free {
        owner.change_camera(CameraSetting::Own, None);
    }
}
