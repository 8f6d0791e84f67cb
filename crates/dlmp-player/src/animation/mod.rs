//! Named animations and special actions of a player (player.md: ApplyAnimation,
//! ClearAnimations, SetAnimationProgress / SetAnimationSpeed, SetSpecialAction; the show
//! snapshot of "Player streaming" replays the current animation). The gamemode's commands
//! are one message type, [`AnimationCommand`], applied in order in
//! [`GameplaySystems::Apply`] (ADR 0011), so a call's apply, clear and special action keep
//! their order on the lane. Decisions: docs/decisions/0013-animations.md.
//!
//! What ends the stored animation: ClearAnimations, a special action, death, the movement
//! mirror and expiry (`end_animations`, before the scripts run), a respawn grant, and the
//! despawn of the entity on disconnect.

pub mod current;

use core::fmt;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

pub use self::current::{
    Animation, AnimationSpec, CurrentAnimation, FormError, MOVEMENT_KEYS, Progress, Speed,
};
use super::frame::{FrameAccepted, FrameState};
use super::ledger::LedgerEvent;
use super::{Body, Life, RespawnGranted, SpawnState, SpawnSystems};
use dlmp_core::owner::{command_owner, reset_owner};
use dlmp_core::session::{Connection, Player, PlayerConnected, PlayerIndex};
use dlmp_core::streaming::Reshows;
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_core::viewers::{Viewers, tell_viewers};
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::player::action::SpecialAction;
use dlmp_protocol::player::animation::{ClearAnimations, SetAnimationProgress, SetAnimationSpeed};
use dlmp_protocol::player::control::SetSpecialAction;
use dlmp_protocol::serial::Serial;

/// A gamemode command to a player's animation or special action. Lua's `player:...`
/// functions queue it after their checks; a Rust plugin writes it directly and learns of
/// a refusal only through [`AnimationDrops`].
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct AnimationCommand {
    pub player: Entity,
    pub order: AnimationOrder,
}

/// What an [`AnimationCommand`] does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AnimationOrder {
    /// ApplyAnimation to the subject and its viewers; the new stored animation.
    Apply(AnimationSpec),
    /// ClearAnimations to the subject and its viewers; nothing plays afterwards.
    Clear,
    /// SetAnimationProgress of the current animation.
    Progress(Progress),
    /// SetAnimationSpeed of the current animation; the replay carries it.
    Speed(Speed),
    /// SetSpecialAction to the subject; a non-zero action first clears a playing
    /// animation.
    SpecialAction(SpecialAction),
}

/// Why the server refused a command (player.md: PlayerNotSpawned, PlayerNotAlive,
/// PlayerNotAnimating; SetSpecialAction's conditions; "queue full").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not spawned, dead, the new life not confirmed, or the subject's lane has no room
    /// for the command's events.
    Common(super::Refusal),
    NotAnimating,
    /// A non-zero special action to a seated player.
    NotOnFoot,
}

impl From<super::Refusal> for Refusal {
    fn from(common: super::Refusal) -> Self {
        Refusal::Common(common)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Common(common) => common.fmt(f),
            Refusal::NotAnimating => f.write_str("no animation is playing (PlayerNotAnimating)"),
            Refusal::NotOnFoot => f.write_str("the player is not on foot"),
        }
    }
}

impl std::error::Error for Refusal {}

/// What a command's checks read of its subject. The apply system builds it from the
/// components, the Lua API from the script view, so both refuse alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subject {
    pub spawned: bool,
    pub alive: bool,
    pub life_confirmed: bool,
    pub on_foot: bool,
    /// An animation plays now.
    pub animating: bool,
    /// Normal events the subject's lane still takes.
    pub room: usize,
}

impl AnimationOrder {
    /// Events the command puts on the subject's own lane: a special action that replaces
    /// a playing animation sends ClearAnimations first.
    pub fn subject_events(&self, animating: bool) -> usize {
        match self {
            AnimationOrder::SpecialAction(action)
                if *action != SpecialAction::None && animating =>
            {
                2
            }
            _ => 1,
        }
    }

    /// The command against its subject's state; the lane's room is checked in advance for
    /// every event the subject gets.
    pub fn check(&self, s: &Subject) -> Result<(), Refusal> {
        let living = || {
            super::Refusal::living(Life {
                spawned: s.spawned,
                alive: s.alive,
            })
        };
        match self {
            AnimationOrder::Apply(_) | AnimationOrder::Clear => living()?,
            AnimationOrder::Progress(_) | AnimationOrder::Speed(_) => {
                if !s.animating {
                    return Err(Refusal::NotAnimating);
                }
            }
            AnimationOrder::SpecialAction(action) => {
                living()?;
                if !s.life_confirmed {
                    return Err(super::Refusal::LifeNotConfirmed.into());
                }
                if *action != SpecialAction::None && !s.on_foot {
                    return Err(Refusal::NotOnFoot);
                }
            }
        }
        if s.room < self.subject_events(s.animating) {
            return Err(super::Refusal::QueueFull.into());
        }
        Ok(())
    }
}

/// Commands refused by the apply system (a Rust plugin's, or a script's whose subject
/// changed after the call), and events a viewer's full lane did not take.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnimationDrops {
    pub refused: u64,
    pub viewer_queue_full: u64,
}

/// Whether a non-zero SetSpecialAction went out in the current life: the next respawn
/// grant then sends SetSpecialAction(0) after it (player.md, SetSpecialAction).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpecialActionLife {
    pub sent: bool,
}

/// Adds animations and special actions.
pub struct AnimationPlugin;

impl Plugin for AnimationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<AnimationDrops>()
            .add_message::<AnimationCommand>()
            .add_systems(
                FixedUpdate,
                give_animation_state.in_set(ServerSystems::Validation),
            )
            .add_systems(FixedUpdate, end_animations.in_set(GameplaySystems::Intake))
            .add_systems(
                FixedUpdate,
                (reset_on_respawn, apply_commands)
                    .chain()
                    .in_set(GameplaySystems::Apply)
                    .after(SpawnSystems::Grant),
            )
            .add_systems(
                FixedUpdate,
                end_on_death
                    .in_set(ServerSystems::Gameplay)
                    .after(GameplaySystems::Apply),
            );
    }
}

fn give_animation_state(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands
            .entity(c.player)
            .insert((CurrentAnimation::default(), SpecialActionLife::default()));
    }
}

/// The movement mirror and expiry, before the scripts read the state: an accepted frame
/// whose kept keys (zero while paused or frozen) hold a movement key ends an interruptable
/// animation, and a timed one ends at start + time.
fn end_animations(
    time: Res<Time>,
    mut accepted: MessageReader<FrameAccepted>,
    mut players: Query<(&Body, &mut CurrentAnimation)>,
) {
    let now = time.elapsed();
    for &FrameAccepted { player, .. } in accepted.read() {
        if let Ok((body, mut current)) = players.get_mut(player)
            && current.0.is_some_and(|a| a.cancelled_by(body.keys))
        {
            current.0 = None;
        }
    }
    for (_, mut current) in &mut players {
        if current.0.is_some_and(|a| !a.live(now)) {
            current.0 = None;
        }
    }
}

/// Death ends the animation (the death animation replaces it on every client) and the
/// special action; no packet. Runs after every death commit of the tick.
fn end_on_death(
    mut events: MessageReader<LedgerEvent>,
    mut players: Query<(&mut CurrentAnimation, &mut Body)>,
) {
    for event in events.read() {
        if let LedgerEvent::Death { player, .. } = *event
            && let Ok((mut current, mut body)) = players.get_mut(player)
        {
            current.0 = None;
            body.special_action = SpecialAction::None;
        }
    }
}

/// A respawn grant starts a life without the animation or the action; if an action went
/// out in the previous life, SetSpecialAction(0) follows the grant (critical: a late or
/// resent action must not reach the new life).
fn reset_on_respawn(
    mut grants: MessageReader<RespawnGranted>,
    mut players: Query<(
        &mut CurrentAnimation,
        &mut Body,
        &mut FrameState,
        &mut SpecialActionLife,
        &mut Connection,
    )>,
) {
    for &RespawnGranted { player } in grants.read() {
        let Ok((mut current, mut body, mut state, mut life, mut conn)) = players.get_mut(player)
        else {
            continue;
        };
        current.0 = None;
        body.special_action = SpecialAction::None;
        if std::mem::take(&mut life.sent) {
            let rev = state.special_rev.next();
            state.special_rev = rev;
            reset_owner(
                &mut conn,
                SetSpecialAction {
                    event_id: EventId(0),
                    action: SpecialAction::None,
                    rev,
                },
            );
        }
    }
}

/// What a command reads and writes of its subject.
type Subjects = (
    &'static Player,
    &'static Life,
    &'static SpawnState,
    &'static Viewers,
    &'static mut CurrentAnimation,
    &'static mut Body,
    &'static mut FrameState,
    &'static mut SpecialActionLife,
);

/// Applies this tick's commands in order: checks, packets, stored state.
fn apply_commands(
    time: Res<Time>,
    mut commands: MessageReader<AnimationCommand>,
    mut subjects: Query<Subjects>,
    mut connections: Query<&'static mut Connection>,
    index: Res<PlayerIndex>,
    mut drops: ResMut<AnimationDrops>,
    mut reshows: ResMut<Reshows>,
    seated: Query<(), With<dlmp_core::vehicle::Seated>>,
) {
    let now = time.elapsed();
    for &AnimationCommand { player, order } in commands.read() {
        let Ok((me, life, spawn, viewers, mut current, mut body, mut state, mut action_life)) =
            subjects.get_mut(player)
        else {
            continue;
        };
        let animating = current.playing(now).is_some();
        let subject = Subject {
            spawned: life.spawned,
            alive: life.alive,
            life_confirmed: spawn.life_confirmed,
            on_foot: !seated.contains(player),
            animating,
            room: connections
                .get(player)
                .map_or(0, |c| c.room(Delivery::Normal)),
        };
        if let Err(refusal) = order.check(&subject) {
            debug!(?player, ?order, "animation command refused: {refusal}");
            drops.refused += 1;
            continue;
        }
        let mut out = Outbox {
            subject: player,
            viewers,
            index: &index,
            connections: &mut connections,
            drops: &mut drops,
            reshows: &mut reshows,
        };
        match order {
            AnimationOrder::Apply(spec) => {
                let animation = Animation::start(spec, now);
                if out.send(animation.apply(me.id, me.token)) {
                    current.0 = Some(animation);
                }
            }
            AnimationOrder::Clear => {
                clear(&mut out, me, &mut current);
            }
            AnimationOrder::Progress(progress) => {
                set_progress(&mut out, me, &mut current, progress)
            }
            AnimationOrder::Speed(speed) => set_speed(&mut out, me, &mut current, speed),
            AnimationOrder::SpecialAction(action) => {
                let clears_first = order.subject_events(animating) == 2;
                if clears_first && !clear(&mut out, me, &mut current) {
                    continue;
                }
                set_special_action(&mut out, &mut state, &mut body, &mut action_life, action);
            }
        }
    }
}

/// ClearAnimations to the subject and its viewers; no animation plays once it went.
/// False if the subject's lane refused it.
fn clear(out: &mut Outbox, me: &Player, current: &mut Mut<CurrentAnimation>) -> bool {
    let packet = ClearAnimations {
        id: me.id,
        player_token: me.token,
        event_id: EventId(0),
    };
    let sent = out.send(packet);
    if sent {
        current.0 = None;
    }
    sent
}

/// SetAnimationProgress to the subject and its viewers; the playing animation's progress
/// follows once it went.
fn set_progress(
    out: &mut Outbox,
    me: &Player,
    current: &mut Mut<CurrentAnimation>,
    progress: Progress,
) {
    let packet = SetAnimationProgress {
        id: me.id,
        player_token: me.token,
        event_id: EventId(0),
        progress: progress.get(),
    };
    if out.send(packet)
        && let Some(a) = current.0.as_mut()
    {
        a.progress = progress;
    }
}

/// SetAnimationSpeed to the subject and its viewers; the playing animation's speed
/// follows once it went (the replay carries it).
fn set_speed(out: &mut Outbox, me: &Player, current: &mut Mut<CurrentAnimation>, speed: Speed) {
    let packet = SetAnimationSpeed {
        id: me.id,
        player_token: me.token,
        event_id: EventId(0),
        speed: speed.get(),
    };
    if out.send(packet)
        && let Some(a) = current.0.as_mut()
    {
        a.speed = speed;
    }
}

/// SetSpecialAction to the subject alone, with the next special_rev; once it went the
/// revision and the body's action are stored, and a non-zero action marks this life.
fn set_special_action(
    out: &mut Outbox,
    state: &mut Mut<FrameState>,
    body: &mut Mut<Body>,
    action_life: &mut Mut<SpecialActionLife>,
    action: SpecialAction,
) {
    let rev = state.special_rev.next();
    let packet = SetSpecialAction {
        event_id: EventId(0),
        action,
        rev,
    };
    if out.send_to_subject(packet) {
        state.special_rev = rev;
        body.special_action = action;
        action_life.sent |= action != SpecialAction::None;
    }
}

/// Where a command's packets go: the subject (its room checked in advance), then every
/// recipient it is shown to.
struct Outbox<'a, 'w, 's> {
    subject: Entity,
    viewers: &'a Viewers,
    index: &'a PlayerIndex,
    connections: &'a mut Query<'w, 's, &'static mut Connection>,
    drops: &'a mut AnimationDrops,
    reshows: &'a mut Reshows,
}

impl Outbox<'_, '_, '_> {
    /// Queues `packet` for the subject alone; false if its lane refused it.
    fn send_to_subject(&mut self, packet: impl Into<ServerPacket>) -> bool {
        let Ok(mut conn) = self.connections.get_mut(self.subject) else {
            return false;
        };
        let queued = command_owner(&mut conn, packet).is_ok();
        if !queued {
            self.drops.refused += 1;
        }
        queued
    }

    /// Queues `packet` for the subject and, once it took it, for every viewer; a viewer
    /// whose lane is full misses it (counted). False if the subject's lane refused it.
    fn send(&mut self, packet: impl Into<ServerPacket>) -> bool {
        let packet = packet.into();
        if !self.send_to_subject(packet.clone()) {
            return false;
        }
        self.drops.viewer_queue_full += tell_viewers(
            self.subject,
            self.viewers,
            self.index,
            self.connections,
            self.reshows,
            packet,
        );
        true
    }
}
