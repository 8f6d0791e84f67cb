//! Object streaming on the one engine (world.md ObjectState; ADR 0027, ADR 0048). An
//! object is shown to a player while the player is in its scope, within its stream
//! distance of the player's stream center and among the 1000 nearest; a viewer limits it
//! to one player. Objects stream as chains: the engine decides on each chain's root (a
//! free object, or one attached to a player), weighing it with its whole chain against the
//! cap ("as a whole or not at all"); the decision is then spread over the chain's members,
//! the parent before the child, and the per-object shown sets ([`ShownSets`]) queue it. A
//! chain on a player is shown exactly while the player is (a player is always shown to
//! themselves) and is resent when the player's interior changes. Shows are droppable, so
//! they leave the 32 places of the lane a critical event may take; the nearest go first
//! and the rest in following passes.
//!
//! The chains are kept between passes and updated by change (`chains`, ADR
//! 0076). Nothing is decided again for a recipient whose viewpoint did not change since
//! its last settled pass, unless a change marks it: a free chain changed or moved within
//! its reach, a held chain's audience or layer changed, or (near its cap) a held chain
//! moved. A still world costs next to nothing, and a moving one what is near it.

use std::collections::HashSet;
use std::time::Duration;

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::chains::{Holder, Index, Sources};
use super::vehicles::VehicleParents;
use super::{HIDE_MARGIN, Object, ObjectId, ObjectSettings, Objects};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Player, PlayerDisconnected, PlayerIndex};
use dlmp_core::streaming::engine::{Audience, Decision, Engine, Layer, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::{Distances, stream_center};
use dlmp_core::streaming::shown::{Applied, ShownSets};
use dlmp_core::viewers::Viewers;
use dlmp_net::lane::Delivery;
use dlmp_player::Life;
use dlmp_player::floor::{GrantFloor, LandingPoint};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::object::{ObjectAttachKind, ObjectState};

/// At most this many objects are shown to one player (world.md ObjectState).
pub const CAP: usize = 1000;

/// One object as the pass sees it: the object, its chain's root and what its show says.
#[derive(Debug, Clone)]
pub struct Member {
    pub object: Object,
    /// The key of its chain's root (itself for a root).
    pub root: u32,
    /// 0 for a root, then 1 per link.
    pub depth: u8,
    /// The interior of its root's scope or of the parent player.
    pub interior: u8,
    pub attach_kind: ObjectAttachKind,
    pub attach_id: u32,
    /// Its viewer's player id.
    pub viewer: Option<PlayerId>,
}

impl Member {
    /// Its show as it is at `now`: the current pose, the time left of a movement and its
    /// target (world.md: "a repeated show carries the time left").
    pub fn show(&self, now: Duration) -> ObjectState {
        let o = &self.object;
        let pose = o.pose_at(now);
        let (move_ms, to) = match o.motion {
            Some(m) if !m.ended(now) => (m.ms_left(now), m.to),
            _ => (0, pose),
        };
        ObjectState {
            event_id: EventId(0),
            object_id: o.id,
            active: true,
            model: o.model,
            pos: pose.position,
            rot: pose.rotation,
            interior: i32::from(self.interior),
            attach_kind: self.attach_kind,
            attach_id: self.attach_id,
            move_ms,
            to: to.position,
            to_rot: to.rotation,
            rev: o.rev,
            bone: o.attachment.map_or_else(Default::default, |a| a.bone),
            broken: o.broken,
        }
    }

    fn admits(&self, recipient: PlayerId) -> bool {
        self.viewer.is_none_or(|v| v == recipient)
    }
}

/// What the pass reads of a player (a recipient, a parent, a viewer).
pub type Recipient = (
    Entity,
    &'static Player,
    &'static Position,
    &'static Scope,
    &'static Life,
    &'static StreamCenter,
);

/// The objects' engine, index and shown sets, kept between passes.
#[derive(Resource, Debug)]
pub struct ObjectStream {
    engine: Engine,
    index: Index,
    shown: ShownSets,
    decision: Decision,
    expanded: Decision,
    applied: Applied,
    roots: Vec<u32>,
    wanted: Vec<u32>,
    /// Per recipient slot: the viewpoint of its last settled pass and the epoch of the
    /// index then (it grows when the index is built whole).
    settled: Vec<Option<(Layer, Vec3, bool, u64)>>,
    /// Per recipient slot: whether its last decision may have been cut by the cap (the
    /// weights it was shown came within the heaviest chain of the cap): a held chain that
    /// only moves is decided again for such a recipient only (ADR 0076).
    near_cap: Vec<bool>,
    /// Grows each time the index is built whole: every recipient is decided again.
    epoch: u64,
    /// Per recipient slot: the last object event queued to it.
    last_event: Vec<Option<EventId>>,
    /// Per recipient slot, this pass: marked to be decided again (scratch).
    marked: Vec<bool>,
    /// Objects whose change a client sees: resent as critical to everyone they are shown to.
    pub(super) resend: HashSet<ObjectId>,
    /// Objects destroyed this tick (their chains go too).
    pub(super) gone: Vec<ObjectId>,
}

impl Default for ObjectStream {
    fn default() -> Self {
        ObjectStream {
            engine: Engine::new(ObjectSettings::default().stream_distance / 2.0),
            index: Index::default(),
            shown: ShownSets::default(),
            decision: Decision::default(),
            expanded: Decision::default(),
            applied: Applied::default(),
            roots: Vec::new(),
            wanted: Vec::new(),
            settled: Vec::new(),
            near_cap: Vec::new(),
            epoch: 0,
            last_event: Vec::new(),
            marked: Vec::new(),
            resend: HashSet::new(),
            gone: Vec::new(),
        }
    }
}

/// Who a held chain is shown to: a player's, the player and whoever the player is shown
/// to; a vehicle's, whoever the vehicle is shown to.
struct Held<'a, 'w, 's> {
    held: &'a super::chains::Map<u32, Holder>,
    viewers: &'a Query<'w, 's, &'static Viewers>,
    vehicles: Option<&'a ShownSets>,
}

impl Audience for Held<'_, '_, '_> {
    fn forced(&self, key: u32, recipient: PlayerId) -> bool {
        match self.held.get(&key) {
            Some(&Holder::Player(entity, id)) => {
                id == recipient
                    || self
                        .viewers
                        .get(entity)
                        .is_ok_and(|v| v.contains(recipient))
            }
            Some(&Holder::Vehicle(v)) => self
                .vehicles
                .is_some_and(|shown| shown.contains(recipient, v.0)),
            None => false,
        }
    }
}

fn slot(id: PlayerId) -> usize {
    id.0 as usize
}

/// The rules for a pass whose largest stream distance is `reach`.
fn rules(reach: f32) -> Rules {
    Rules {
        distances: Some(Distances::new(reach.max(1.0), HIDE_MARGIN, None)),
        cap: Some(CAP),
    }
}

impl ObjectStream {
    /// Who is shown which object (keys are object ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }

    /// Forgets what `recipient` is shown, as when it leaves (a new connection on its slot
    /// gets its objects again).
    pub fn forget(&mut self, recipient: PlayerId) {
        self.shown.forget(recipient);
        if let Some(s) = self.settled.get_mut(slot(recipient)) {
            *s = None;
        }
    }

    /// The member of `key` this pass.
    pub fn member(&self, key: u32) -> Option<&Member> {
        self.index.members.get(&key)
    }

    /// Whether the chains were last built from the objects of `generation`.
    pub(super) fn built_at(&self, generation: u64) -> bool {
        self.index.built == Some(generation)
    }

    /// Brings the chains, the engine's items and the grants' probe up to date: the chains
    /// of the objects changed since the last refresh are put in again (all of them after
    /// a change no id names), the moving roots and the held chains are placed where they
    /// are now (ADR 0076).
    #[allow(
        clippy::too_many_arguments,
        reason = "what the chains are built from, and the probe they fill"
    )]
    pub(super) fn refresh(
        &mut self,
        now: Duration,
        registry: &mut Objects,
        objects: &Query<&'static Object>,
        players: &Query<Recipient>,
        vehicles: &VehicleParents,
        viewers: &Query<&'static Viewers>,
        floor: &mut GrantFloor,
    ) {
        let changes = registry.take_changes();
        let src = Sources {
            now,
            registry,
            objects,
            players,
            vehicles,
            viewers,
        };
        let ObjectStream {
            engine,
            index,
            resend,
            ..
        } = self;
        let probe = &mut floor.probe;
        if changes.everything || index.built.is_none() {
            index.departed.clear();
            index.rebuild(&src, engine, probe, resend);
        } else if !changes.objects.is_empty() || index.has_unresolved() {
            if !changes.objects.is_empty() {
                index.departed.clear();
            }
            index.update(&changes.objects, &src, engine, probe, resend);
        }
        // The grids' cells are about half the largest stream distance.
        index.settle_reach();
        let cell = (index.reach / 2.0).max(1.0);
        if engine.cell_size() != cell || probe.cell_size() != cell {
            *engine = Engine::new(cell);
            *probe = Engine::new(cell);
            index.rebuild(&src, engine, probe, resend);
        }
        let probe_reach = index.follow(&src, engine, probe, resend);
        floor.rules = rules(probe_reach);
        index.built = Some(registry.generation());
    }

    /// The chain roots shown to `recipient` now, ascending, into `self.roots`.
    fn shown_roots(&mut self, recipient: PlayerId) {
        self.roots.clear();
        for &key in self.shown.of(recipient) {
            if let Some(m) = self.index.members.get(&key) {
                self.roots.push(m.root);
            }
        }
        self.roots.sort_unstable();
        self.roots.dedup();
    }

    /// The weight of the chains the last [`decide`](Self::decide) wants shown.
    fn shown_weight(&self) -> usize {
        let weight = |root: &u32| self.engine.item(*root).map_or(1, |i| i.weight as usize);
        let hides = &self.decision.hides;
        self.roots
            .iter()
            .filter(|r| hides.binary_search(r).is_err())
            .map(weight)
            .chain(self.decision.shows.iter().map(weight))
            .sum()
    }

    /// Decides `viewpoint` on the roots and spreads it over the chains into
    /// `self.expanded`: the hides children first, the shows nearest chain first, each
    /// parent before its child.
    fn decide(
        &mut self,
        viewpoint: &Viewpoint,
        viewers: &Query<&'static Viewers>,
        vehicles: Option<&ShownSets>,
    ) {
        self.shown_roots(viewpoint.id);
        let audience = Held {
            held: &self.index.held,
            viewers,
            vehicles,
        };
        let rules = rules(self.index.reach);
        self.engine.decide(
            &rules,
            viewpoint,
            &self.roots,
            &audience,
            &mut self.decision,
        );
        let me = viewpoint.id;
        let index = &self.index;
        let chain_members = |root: u32| {
            index
                .chains
                .get(&root)
                .into_iter()
                .flatten()
                .copied()
                .filter(move |&k| index.members.get(&k).is_some_and(|m| m.admits(me)))
        };
        self.wanted.clear();
        let hidden_roots = &self.decision.hides;
        for &root in self.roots.iter().chain(&self.decision.shows) {
            if hidden_roots.binary_search(&root).is_err() {
                self.wanted.extend(chain_members(root));
            }
        }
        self.wanted.sort_unstable();
        self.wanted.dedup();
        let shown = self.shown.of(me);
        let out = &mut self.expanded;
        out.clear();
        out.hides.extend(
            shown
                .iter()
                .copied()
                .filter(|k| self.wanted.binary_search(k).is_err()),
        );
        out.hides.sort_by_key(|&k| {
            let depth = index
                .members
                .get(&k)
                .map(|m| m.depth)
                .or_else(|| index.departed.get(&k).copied())
                .unwrap_or(u8::MAX);
            std::cmp::Reverse(depth)
        });
        let is_shown = |k: u32| shown.binary_search(&k).is_ok();
        for &root in &self.decision.shows {
            out.shows
                .extend(chain_members(root).filter(|&k| !is_shown(k)));
        }
        for &root in &self.roots {
            if hidden_roots.binary_search(&root).is_err() {
                out.shows
                    .extend(chain_members(root).filter(|&k| !is_shown(k)));
            }
        }
    }

    /// Up to `limit` objects to show before a landing at `viewpoint`: the nearest chains
    /// not shown yet, whole or not at all (world.md ObjectState, the floor).
    pub(super) fn floor(
        &mut self,
        viewpoint: &Viewpoint,
        viewers: &Query<&'static Viewers>,
        vehicles: Option<&ShownSets>,
        limit: usize,
    ) -> Vec<u32> {
        self.decide(viewpoint, viewers, vehicles);
        let mut floor = Vec::new();
        let mut chain = Vec::new();
        let shows = std::mem::take(&mut self.expanded.shows);
        let mut current = None;
        for key in shows {
            let root = self.member(key).map_or(key, |m| m.root);
            // Objects on players and vehicles are not at the landing point: they follow
            // their parent.
            if self.index.held.contains_key(&root) {
                continue;
            }
            if current != Some(root) {
                if floor.len() + chain.len() > limit {
                    chain.clear();
                    break;
                }
                floor.append(&mut chain);
                current = Some(root);
            }
            chain.push(key);
        }
        if floor.len() + chain.len() <= limit {
            floor.append(&mut chain);
        }
        floor
    }

    /// Queues `keys` to `recipient` ahead of its pending hides (the floor before a
    /// landing), as normal events.
    pub(super) fn show_ahead(
        &mut self,
        recipient: PlayerId,
        keys: &[u32],
        conn: &mut Connection,
        now: Duration,
    ) -> usize {
        let ObjectStream {
            index,
            shown,
            applied,
            last_event,
            settled,
            ..
        } = self;
        let n = shown.show_ahead(
            recipient,
            keys,
            conn,
            Delivery::Normal,
            |k| {
                index
                    .members
                    .get(&k)
                    .map(|m| ServerPacket::from(m.show(now)))
            },
            applied,
        );
        applied.shown.clear();
        if n > 0 {
            note_event(last_event, recipient, conn.last_queued());
            if let Some(s) = settled.get_mut(slot(recipient)) {
                *s = None;
            }
        }
        n
    }
}

fn note_event(last: &mut Vec<Option<EventId>>, recipient: PlayerId, event: EventId) {
    let i = slot(recipient);
    if last.len() <= i {
        last.resize(i + 1, None);
    }
    last[i] = Some(event);
}

/// The viewpoint of a recipient: where its stream center is, or the point its held grant
/// lands at (the objects there go first: world.md, "Ordering around spawns").
pub(super) fn viewpoint(
    player: &Player,
    position: &Position,
    scope: &Scope,
    life: &Life,
    center: &StreamCenter,
    wait: Option<&LandingPoint>,
) -> Viewpoint {
    match wait {
        Some(w) => Viewpoint::at(player.id, (w.virtual_world, w.interior), w.position),
        None => Viewpoint {
            active: life.spawned,
            ..Viewpoint::at(player.id, layer(scope), stream_center(position, center))
        },
    }
}

/// What the pass reads besides the players.
#[derive(bevy_ecs::system::SystemParam)]
pub struct Reconciling<'w, 's> {
    time: Res<'w, Time>,
    registry: ResMut<'w, Objects>,
    stream: ResMut<'w, ObjectStream>,
    floor: ResMut<'w, GrantFloor>,
    left: MessageReader<'w, 's, PlayerDisconnected>,
    index: Res<'w, PlayerIndex>,
    objects: Query<'w, 's, &'static Object>,
    viewers: Query<'w, 's, &'static Viewers>,
    vehicles: VehicleParents<'w, 's>,
}

/// One reconcile pass, then the critical resends of changed objects. Public for the
/// benchmark.
pub fn reconcile(
    mut r: Reconciling,
    players: Query<Recipient>,
    mut connections: Query<&mut Connection>,
) {
    let now = r.time.elapsed();
    let stream = &mut *r.stream;
    for gone in r.left.read() {
        stream.shown.forget(gone.id);
        if let Some(s) = stream.settled.get_mut(slot(gone.id)) {
            *s = None;
        }
        if let Some(e) = stream.last_event.get_mut(slot(gone.id)) {
            *e = None;
        }
        r.floor.waiting.remove(&gone.player);
        r.floor.ready.remove(&gone.player);
    }
    stream.refresh(
        now,
        &mut r.registry,
        &r.objects,
        &players,
        &r.vehicles,
        &r.viewers,
        &mut r.floor,
    );
    if stream.index.marks.everyone {
        stream.epoch = stream.epoch.wrapping_add(1);
    }
    let epoch = stream.epoch;
    let mut marked = std::mem::take(&mut stream.marked);
    marked.clear();
    {
        let marks = &stream.index.marks;
        let near_cap = &stream.near_cap;
        let mut mark = |i: usize| {
            if marked.len() <= i {
                marked.resize(i + 1, false);
            }
            marked[i] = true;
        };
        for &s in &marks.recipients {
            mark(s as usize);
        }
        for &s in &marks.near_cap {
            if near_cap.get(s as usize).copied().unwrap_or(true) {
                mark(s as usize);
            }
        }
    }
    let mut ready: EntityHashMap<LandingPoint> = EntityHashMap::default();
    // Changed objects shown for the first time this pass already carry the change.
    let mut fresh: HashSet<(PlayerId, u32)> = HashSet::new();
    for (entity, player, position, scope, life, center) in &players {
        let wait = r.floor.waiting.get(&entity).copied();
        let view = viewpoint(player, position, scope, life, center, wait.as_ref());
        let key = (view.layer, view.center, view.active, epoch);
        let id = player.id;
        let i = slot(id);
        if stream.settled.len() <= i {
            stream.settled.resize(i + 1, None);
        }
        if stream.near_cap.len() <= i {
            stream.near_cap.resize(i + 1, true);
        }
        // A world without objects has nothing to decide for a recipient shown none: it is
        // settled as its decision would settle it (a crowd's moving players, each tick).
        let nothing = stream.index.members.is_empty()
            && stream.shown.of(id).is_empty()
            && stream.shown.pending_empty(id);
        if nothing {
            stream.settled[i] = Some(key);
            stream.near_cap[i] = false;
        }
        // Decided again only when something it can be affected by changed (ADR 0076).
        let quiet = nothing
            || stream.settled[i] == Some(key)
                && stream.shown.pending_empty(id)
                && !marked.get(i).copied().unwrap_or(false)
                && !stream
                    .index
                    .marks
                    .regions
                    .iter()
                    .any(|g| g.touches(view.layer, view.center));
        if !quiet {
            stream.decide(&view, &r.viewers, r.vehicles.shown());
            stream.near_cap[i] = stream.shown_weight() + stream.index.heaviest() as usize > CAP;
            let work = !stream.expanded.hides.is_empty()
                || !stream.expanded.shows.is_empty()
                || !stream.shown.pending_empty(id);
            if work && let Ok(mut conn) = connections.get_mut(entity) {
                let ObjectStream {
                    index,
                    shown,
                    expanded,
                    applied,
                    ..
                } = stream;
                shown.apply(
                    id,
                    expanded,
                    &mut conn,
                    |k| ObjectState::hide(EventId(0), ObjectId(k)).into(),
                    |k| {
                        index
                            .members
                            .get(&k)
                            .map(|m| ServerPacket::from(m.show(now)))
                    },
                    applied,
                );
                if !stream.applied.shown.is_empty() {
                    note_event(&mut stream.last_event, id, conn.last_queued());
                }
                fresh.extend(
                    stream
                        .applied
                        .shown
                        .iter()
                        .filter(|&&k| stream.resend.contains(&ObjectId(k)))
                        .map(|&k| (id, k)),
                );
                stream.applied.shown.clear();
                stream.applied.hidden.clear();
            }
            let all_shown = stream
                .expanded
                .shows
                .iter()
                .all(|&k| stream.shown.contains(id, k));
            stream.settled[i] = (all_shown && stream.shown.pending_empty(id)).then_some(key);
        }
        if let Some(point) = wait
            && stream.settled[i].is_some()
        {
            let acked = match stream.last_event.get(i).copied().flatten() {
                None => true,
                Some(event) => connections.get(entity).is_ok_and(|c| c.is_acked(event)),
            };
            if acked {
                ready.insert(entity, point);
            }
        }
    }
    stream.index.marks.clear();
    stream.marked = marked;
    r.floor.ready.extend(ready);
    // Changes of shown objects, as critical shows to everyone they are shown to.
    let mut resend: Vec<ObjectId> = stream.resend.drain().collect();
    resend.sort_unstable();
    for id in resend {
        let Some(m) = stream.member(id.0) else {
            continue;
        };
        let packet = ServerPacket::from(m.show(now));
        let viewer = m.viewer;
        for recipient in stream.shown.viewers(id.0).collect::<Vec<_>>() {
            if viewer.is_some_and(|v| v != recipient) || fresh.contains(&(recipient, id.0)) {
                continue;
            }
            let Some(mut conn) = r
                .index
                .get(recipient)
                .and_then(|e| connections.get_mut(e).ok())
            else {
                continue;
            };
            if let Err(e) = conn.send_event(packet.clone(), Delivery::Critical) {
                dlmp_net::log_limited!(
                    warn,
                    object = id.0,
                    recipient = recipient.0,
                    "an object change not queued: {e}"
                );
            }
        }
    }
}
