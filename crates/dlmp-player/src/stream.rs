//! Player streaming in the app (player.md, "Player streaming"): the reconcile system that
//! keeps every subject's [`Viewers`] and queues shows and hides, with retries when a
//! recipient's lane is full. Decisions: docs/decisions/0008-player-streaming.md.
//!
//! Each pass, in [`StreamingSystems::Reconcile`], every tick:
//!
//! 1. Players who left are forgotten: their bits in every `Viewers` and `Relayed` and
//!    their pending hides, silently (PlayerLeave covers it; no stream events).
//! 2. Decisions: the streaming engine (`engine.rs`, ADR 0027) answers for every recipient,
//!    against the subjects `Viewers` says it is shown, what to hide and what to show
//!    (players' rules: 420 / 460 m or the weapon range, no cap, never to itself, the
//!    spectate target at any distance, a [`StreamOverride`] deciding alone).
//! 3. Hides: a viewer that no longer sees its subject loses its bit at once (relays stop
//!    at once), and a PlayerStreamOut with the seq last relayed to it (`Relayed`) joins
//!    that recipient's pending hides. A viewer that asked for a fresh show ([`Reshows`])
//!    is hidden the same way.
//! 4. Pending hides are queued (Droppable), oldest first, as far as the lane takes them.
//! 5. Each show is queued as a whole snapshot (PlayerSkills, PlayerNametag, and the replay
//!    of the current animation with elapsed_ms) if the lane has room for all of it and no
//!    hide of that subject waits for that recipient; only then is the bit set. A show that
//!    does not fit is simply decided again next pass.

use std::collections::VecDeque;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use crate::animation::CurrentAnimation;
use crate::relay::Relayed;
use crate::shots::ShotOrder;
use crate::{Life, Skills};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Name, NametagColor, Player, PlayerDisconnected, SendError};
use dlmp_core::streaming::engine::{Audience, Decision, Engine, Item, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::{
    Distances, HIDE_MARGIN, Recipient, SHOW_DISTANCE, Subject, stream_center,
};
use dlmp_core::streaming::reshow::Reshows;
use dlmp_core::streaming::shown_by::{Bits, ShownBy};
use dlmp_core::streaming::stable::{Seen, Stability};
use dlmp_core::tick::StreamingSystems;
use dlmp_core::viewers::Viewers;
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken, Seq};
use dlmp_protocol::player::appearance::PlayerSkills;
use dlmp_protocol::player::streaming::PlayerStreamOut;

/// Streaming settings; the weapons feature sets [`weapon_range`](Self::weapon_range).
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct StreamingSettings {
    /// Subjects are shown within this distance of the recipient's stream center. Default
    /// 420 m.
    pub show_distance: f32,
    /// A shown subject is hidden this far beyond the show distance. Default 40 m.
    pub hide_margin: f32,
    /// The gamemode's weapon range, m: the show distance grows to `range × 3 + 20` when
    /// that is larger. Default `None` (no weapon range set).
    pub weapon_range: Option<f32>,
    /// The edge of a grid cell. Default 210 m (half the show distance: a query of 420 m
    /// touches 5 × 5 cells).
    pub cell_size: f32,
}

impl Default for StreamingSettings {
    fn default() -> Self {
        StreamingSettings {
            show_distance: SHOW_DISTANCE,
            hide_margin: HIDE_MARGIN,
            weapon_range: None,
            cell_size: SHOW_DISTANCE / 2.0,
        }
    }
}

impl StreamingSettings {
    /// The distances in force.
    pub fn distances(&self) -> Distances {
        Distances::new(self.show_distance, self.hide_margin, self.weapon_range)
    }
}

/// The seam for seated players (player.md: "A seated player is shown exactly when its
/// vehicle is shown"). While a subject carries this component, the recipients in it are
/// exactly those it is shown to, within its scope, whatever the distance or a spectate
/// camera: the vehicle feature inserts it on seating with its vehicle's viewers, keeps it
/// equal to them every tick before [`StreamingSystems::Reconcile`] and removes it on exit.
/// Nothing inserts it yet.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamOverride(pub Viewers);

/// A change of a shown set, for the scripts (`player_stream_in` / `player_stream_out`):
/// `subject` became shown (or hidden) to `recipient`. Not raised when either leaves.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamChange {
    pub subject: Entity,
    pub subject_token: PlayerToken,
    pub recipient: Entity,
    pub recipient_token: PlayerToken,
    /// True: shown; false: hidden.
    pub shown: bool,
}

/// The least a show's snapshot holds: PlayerSkills, PlayerNametag. The replay of the
/// current animation (ApplyAnimation with elapsed_ms) joins them while one plays.
pub const SNAPSHOT_EVENTS: usize = 2;

/// The reconcile's state between passes: pending hides per recipient, and the grid and
/// scratch lists kept for their allocations.
#[derive(Resource, Debug)]
pub struct StreamState {
    /// Hides decided but not yet queued, by recipient slot, oldest first.
    pending: Vec<VecDeque<PlayerStreamOut>>,
    engine: Engine,
    entries: Vec<Option<Entry>>,
    hides: Vec<Hide>,
    shows: Vec<(u32, u32)>,
    /// The subjects each recipient slot is shown (from `Viewers`), ascending, kept in step
    /// with the bits (ADR 0081).
    shown_by: ShownBy,
    decision: Decision,
    /// The recipients whose last answer still holds (ADR 0079).
    stability: Stability,
    /// The rules of the last pass: a change lets no answer hold.
    rules: Option<Rules>,
}

impl Default for StreamState {
    fn default() -> Self {
        StreamState {
            pending: Vec::new(),
            engine: Engine::new(StreamingSettings::default().cell_size).with_slack(),
            entries: Vec::new(),
            hides: Vec::new(),
            shows: Vec::new(),
            shown_by: ShownBy::default(),
            decision: Decision::default(),
            stability: Stability::default(),
            rules: None,
        }
    }
}

impl StreamState {
    /// Hides decided for `recipient` that its lane has not taken yet, oldest first.
    pub fn pending_hides(&self, recipient: PlayerId) -> impl Iterator<Item = &PlayerStreamOut> {
        slot(recipient)
            .and_then(|i| self.pending.get(i))
            .into_iter()
            .flatten()
    }

    fn pending_mut(&mut self, recipient: u32) -> &mut VecDeque<PlayerStreamOut> {
        let i = recipient as usize;
        if self.pending.len() <= i {
            self.pending.resize_with(i + 1, VecDeque::new);
        }
        &mut self.pending[i]
    }
}

/// One player as this pass sees it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    entity: Entity,
    token: PlayerToken,
    recipient: Recipient,
    subject: Subject,
}

/// A hide decided this pass: subject slot, recipient slot, and whether it is a decision
/// (a PlayerStreamOut and an event) or only a stale bit to clear.
#[derive(Debug, Clone, Copy)]
struct Hide {
    subject: u32,
    recipient: u32,
    announce: bool,
}

/// Adds player streaming.
pub struct StreamingPlugin;

impl Plugin for StreamingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<StreamingSettings>()
            .init_resource::<StreamState>()
            .init_resource::<Reshows>()
            .add_message::<StreamChange>()
            .add_systems(FixedUpdate, reconcile.in_set(StreamingSystems::Reconcile));
    }
}

fn slot(id: PlayerId) -> Option<usize> {
    usize::try_from(id.0).ok()
}

/// What the pass reads of every player.
type PlayerParts = (
    Entity,
    &'static Player,
    &'static Position,
    &'static Scope,
    &'static Life,
    &'static StreamCenter,
    Has<StreamOverride>,
);

/// One reconcile pass (see the module doc). Public for the benchmark.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub fn reconcile(
    time: Res<Time>,
    settings: Res<StreamingSettings>,
    mut state: ResMut<StreamState>,
    mut reshows: ResMut<Reshows>,
    mut left: MessageReader<PlayerDisconnected>,
    mut changes: MessageWriter<StreamChange>,
    players: Query<PlayerParts>,
    looks: Query<Look>,
    mut relayed: Query<(&mut Relayed, Option<&ShotOrder>)>,
    overrides: Query<(Entity, Ref<StreamOverride>)>,
    mut unseated: RemovedComponents<StreamOverride>,
    mut viewers: Query<&mut Viewers>,
    mut connections: Query<&mut Connection>,
) {
    let state = &mut *state;
    forget_leavers(state, left.read(), &mut viewers, &mut relayed);
    let rules = Rules {
        distances: Some(settings.distances()),
        cap: None,
    };
    if state.engine.cell_size() != settings.cell_size {
        state.engine = Engine::new(settings.cell_size).with_slack();
    }
    gather(state, &players);
    // A seat taken or left is a change of its subject (`Seen::forced`); so is the end of
    // an audience.
    let unseated = unseated.read().count() > 0;
    let rules_changed = state.rules.replace(rules) != Some(rules);
    state.stability.settle(unseated || rules_changed);
    // A seated player's audience decides alone: whoever joined or left it, against whom
    // it is shown now, is decided again.
    for (entity, audience) in &overrides {
        if !audience.is_changed() {
            continue;
        }
        let Ok(shown_to) = viewers.get(entity) else {
            continue;
        };
        let joined = audience.0.iter().filter(|&r| !shown_to.contains(r));
        let left = shown_to.iter().filter(|&r| !audience.0.contains(r));
        for r in joined.chain(left) {
            state.stability.forget(r.0 as usize);
        }
    }
    turn_around(state, &mut viewers);
    decide(state, &rules, &overrides);
    decide_reshows(state, &mut reshows, &players);

    // Hides: the bit goes at once, the packet when the lane takes it.
    let hides = std::mem::take(&mut state.hides);
    for hide in &hides {
        let Some(s) = state.entry(hide.subject) else {
            continue;
        };
        if let Ok(mut v) = viewers.get_mut(s.entity) {
            v.remove(PlayerId(hide.recipient));
            state.shown_by.hidden(hide.subject, hide.recipient);
        }
        let Some(r) = state.entry(hide.recipient).filter(|_| hide.announce) else {
            if let Ok((mut sent, _)) = relayed.get_mut(s.entity) {
                sent.forget(PlayerId(hide.recipient));
            }
            continue;
        };
        changes.write(StreamChange {
            subject: s.entity,
            subject_token: s.token,
            recipient: r.entity,
            recipient_token: r.token,
            shown: false,
        });
        let (last_seq, last_shot_order) =
            relayed
                .get_mut(s.entity)
                .map_or((Seq(0), Seq(0)), |(mut sent, o)| {
                    (
                        sent.end_show(PlayerId(hide.recipient)),
                        o.and_then(|o| o.0).unwrap_or(Seq(0)),
                    )
                });
        state
            .pending_mut(hide.recipient)
            .push_back(PlayerStreamOut {
                player_id: s.subject.id,
                player_token: s.token,
                event_id: EventId(0),
                last_seq,
                last_shot_order,
            });
    }
    state.hides = hides;
    state.hides.clear();
    flush_hides(state, &mut connections);

    // Shows: whole snapshots only, after any hide of the same subject.
    let shows = std::mem::take(&mut state.shows);
    for &(subject, recipient) in &shows {
        let (Some(s), Some(r)) = (state.entry(subject), state.entry(recipient)) else {
            continue;
        };
        if state
            .pending_hides(r.recipient.id)
            .any(|h| h.player_id == s.subject.id)
        {
            continue;
        }
        let (Ok(look), Ok(mut conn), Ok(mut v)) = (
            looks.get(s.entity),
            connections.get_mut(r.entity),
            viewers.get_mut(s.entity),
        ) else {
            continue;
        };
        // A show never precedes the subject's PlayerJoin on the recipient's lane (ADR 0020).
        if conn.room(Delivery::Droppable) < SNAPSHOT_EVENTS
            || conn.awaits_join(s.subject.id, s.token)
        {
            continue;
        }
        let snapshot = snapshot(look, time.elapsed());
        if conn.room(Delivery::Droppable) < snapshot.len() {
            continue;
        }
        let mut queued = None;
        for packet in snapshot {
            match conn.send_event(packet, Delivery::Droppable) {
                Ok(id) => queued = Some(id),
                Err(e) => {
                    debug!(
                        subject = s.subject.id.0,
                        recipient = r.recipient.id.0,
                        "show: {e}"
                    );
                    queued = None;
                    break;
                }
            }
        }
        let Some(last) = queued else {
            continue;
        };
        if let Ok((mut relayed, _)) = relayed.get_mut(s.entity) {
            relayed.shown(r.recipient.id, last);
        }
        v.insert(r.recipient.id);
        state.shown_by.shown(subject, recipient);
        changes.write(StreamChange {
            subject: s.entity,
            subject_token: s.token,
            recipient: r.entity,
            recipient_token: r.token,
            shown: true,
        });
    }
    state.shows = shows;
    state.shows.clear();
}

impl StreamState {
    fn entry(&self, slot: u32) -> Option<Entry> {
        self.entries.get(slot as usize).copied().flatten()
    }
}

/// What a show's snapshot reads of its subject.
pub type Look = (
    &'static Player,
    &'static Name,
    &'static NametagColor,
    &'static Skills,
    Option<&'static CurrentAnimation>,
);

/// The events of a show of the subject at `now`, in lane order.
pub fn snapshot(
    (player, name, color, skills, animation): (
        &Player,
        &Name,
        &NametagColor,
        &Skills,
        Option<&CurrentAnimation>,
    ),
    now: Duration,
) -> Vec<ServerPacket> {
    let mut events: Vec<ServerPacket> = vec![
        PlayerSkills {
            id: player.id,
            player_token: player.token,
            event_id: EventId(0),
            skills: skills.0,
        }
        .into(),
        color.packet(player, name).into(),
    ];
    if let Some(replay) = animation
        .and_then(|a| a.playing(now))
        .and_then(|a| a.replay(player.id, player.token, now))
    {
        events.push(replay.into());
    }
    events
}

/// Step 1: who left no longer sees anyone, nor is seen, nor waits for a hide.
fn forget_leavers<'a>(
    state: &mut StreamState,
    left: impl Iterator<Item = &'a PlayerDisconnected>,
    viewers: &mut Query<&mut Viewers>,
    relayed: &mut Query<(&mut Relayed, Option<&ShotOrder>)>,
) {
    for gone in left {
        for mut v in viewers.iter_mut() {
            if v.contains(gone.id) {
                v.remove(gone.id);
            }
        }
        for (mut sent, _) in relayed.iter_mut() {
            sent.forget(gone.id);
        }
        state.shown_by.left(gone.id);
        if let Some(q) = slot(gone.id).and_then(|i| state.pending.get_mut(i)) {
            q.clear();
        }
        for q in &mut state.pending {
            q.retain(|h| !(h.player_id == gone.id && h.player_token == gone.token));
        }
    }
}

/// Step 0: this pass's view of every player, by slot, and the grid of subjects.
fn gather(state: &mut StreamState, players: &Query<PlayerParts>) {
    state.entries.iter_mut().for_each(|e| *e = None);
    state.engine.clear();
    state.stability.begin();
    for (entity, player, position, scope, life, center, forced) in players {
        let Some(i) = slot(player.id) else { continue };
        if state.entries.len() <= i {
            state.entries.resize(i + 1, None);
        }
        let entry = Entry {
            entity,
            token: player.token,
            recipient: Recipient {
                id: player.id,
                scope: *scope,
                center: stream_center(position, center),
                spectating: center.spectating,
                spawned: life.spawned,
            },
            subject: Subject {
                id: player.id,
                scope: *scope,
                position: position.0,
                spawned: life.spawned,
            },
        };
        state.entries[i] = Some(entry);
        state.stability.see(
            i,
            Seen {
                entity,
                layer: layer(scope),
                position: position.0,
                spawned: life.spawned,
                forced,
            },
        );
        if life.spawned {
            state.engine.insert(Item {
                not_to: Some(player.id),
                forced,
                ..Item::at(player.id.0, layer(scope), position.0)
            });
        }
    }
}

/// What the engine asks about players: a seated player's audience is its
/// [`StreamOverride`], looked up once a pass by key and listed for the engine's index of
/// forced subjects (a recipient weighs only the seated players it is an audience of).
struct PlayerAudience<'a> {
    overrides: Vec<Option<&'a Viewers>>,
}

impl Audience for PlayerAudience<'_> {
    fn forced(&self, key: u32, recipient: PlayerId) -> bool {
        self.overrides
            .get(key as usize)
            .copied()
            .flatten()
            .is_some_and(|v| v.contains(recipient))
    }

    fn forced_audience(&self, key: u32, out: &mut Vec<PlayerId>) -> bool {
        if let Some(v) = self.overrides.get(key as usize).copied().flatten() {
            out.extend(v.iter());
        }
        true
    }
}

/// Step 2a: each recipient's shown subjects in step with the subjects' `Viewers`; a bit
/// of a recipient this pass does not see (its state is not given yet, or it is gone) is
/// a stale bit, cleared without a word.
fn turn_around(state: &mut StreamState, viewers: &mut Query<&mut Viewers>) {
    let StreamState {
        entries,
        hides,
        shown_by,
        ..
    } = state;
    let mut stale = |subject, recipient| {
        hides.push(Hide {
            subject,
            recipient,
            announce: false,
        })
    };
    shown_by.begin(entries.iter().map(|e| e.map(|e| e.entity)), &mut stale);
    for (slot, entry) in entries.iter().enumerate() {
        let now = entry.and_then(|e| Some((e.entity, viewers.get_mut(e.entity).ok()?)));
        let now = now.as_ref().map(|(entity, v)| {
            (
                *entity,
                Bits {
                    viewers: v,
                    changed: v.is_changed(),
                },
            )
        });
        shown_by.subject(slot, now, &mut stale);
    }
    shown_by.end(entries.len());
}

/// Steps 2 and 3: the engine's decision for every recipient, against what `Viewers` says
/// it is shown.
fn decide(
    state: &mut StreamState,
    rules: &Rules,
    overrides: &Query<(Entity, Ref<StreamOverride>)>,
) {
    let StreamState {
        entries,
        engine,
        hides,
        shows,
        shown_by,
        decision,
        stability,
        ..
    } = state;
    let audience = PlayerAudience {
        overrides: entries
            .iter()
            .map(|e| {
                e.and_then(|s| overrides.get(s.entity).ok())
                    .map(|(_, o)| &o.into_inner().0)
            })
            .collect(),
    };
    engine.index_forced(&audience);
    for r in entries.iter().flatten() {
        let rec = &r.recipient;
        let viewpoint = Viewpoint {
            id: rec.id,
            layer: layer(&rec.scope),
            center: rec.center,
            active: rec.spawned,
            always: rec.spectating.map(|p| p.0),
        };
        let slot = rec.id.0 as usize;
        let (shown, revision) = (shown_by.of(slot), shown_by.revision(slot));
        if stability.holds(slot, &viewpoint, revision) {
            continue;
        }
        engine.decide(rules, &viewpoint, shown, &audience, decision);
        stability.decided(slot, &viewpoint, revision, decision);
        hides.extend(decision.hides.iter().map(|&subject| Hide {
            subject,
            recipient: rec.id.0,
            announce: true,
        }));
        shows.extend(decision.shows.iter().map(|&subject| (subject, rec.id.0)));
    }
}

/// Step 2b: a reshow request of a subject still shown is a hide like the others
/// (announced, so the stream events follow every change of the set); the next pass shows
/// the subject again with a whole snapshot, after the hide (ADR 0020).
fn decide_reshows(state: &mut StreamState, reshows: &mut Reshows, players: &Query<PlayerParts>) {
    for request in reshows.take() {
        let Ok((_, subject, ..)) = players.get(request.subject) else {
            continue;
        };
        let (s, r) = (subject.id.0, request.recipient.0);
        if state.shown_by.contains(s, request.recipient)
            && !state
                .hides
                .iter()
                .any(|h| (h.subject, h.recipient) == (s, r))
        {
            state.hides.push(Hide {
                subject: s,
                recipient: r,
                announce: true,
            });
        }
    }
}

/// Step 4: pending hides go into their lanes, oldest first, while the lanes take them.
fn flush_hides(state: &mut StreamState, connections: &mut Query<&mut Connection>) {
    for (i, queue) in state.pending.iter_mut().enumerate() {
        if queue.is_empty() {
            continue;
        }
        let Some(r) = state.entries.get(i).copied().flatten() else {
            continue;
        };
        let Ok(mut conn) = connections.get_mut(r.entity) else {
            continue;
        };
        while let Some(hide) = queue.front() {
            match conn.send_event(hide.clone(), Delivery::Droppable) {
                Ok(_) => {}
                Err(SendError::QueueFull) => break,
                Err(e) => dlmp_net::log_limited!(
                    warn,
                    subject = hide.player_id.0,
                    "PlayerStreamOut not sent: {e}"
                ),
            }
            queue.pop_front();
        }
    }
}
