//! Blip streaming on the one engine (world.md Blip; ADR 0027, ADR 0045): shown to a player
//! in the blip's scope (an attached blip: its entity's, measured from the entity), within
//! the blip's draw distance when it has one (hidden [`HIDE_MARGIN`] past it), at most the
//! [`CAP`] nearest; a single viewer only to that viewer; an attached blip never to the
//! attached player, and only once both it and the recipient have spawned. Shows and hides
//! are droppable, repeated by the next pass while the lane is full; a hide precedes the
//! next show; a new connection receives its blips again.
//!
//! An attached blip's position is refreshed from its entity at most once a second after a
//! move of more than [`REFRESH_DISTANCE`] (never outside world bounds), as a show to
//! everyone it is shown to, critical. Reconciled like labels (ADR 0045, ADR 0077): after
//! a change of the blip set, the recipients it can affect (shown a changed blip, or whose
//! cap radius, the farthest blip shown to them, reaches its old or new place); the
//! recipients whose state changed; and the [`Cadence`]'s rotating share, each at least
//! once a second.

use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};

use super::{Blip, CAP, HIDE_MARGIN, REFRESH_DISTANCE, REFRESH_INTERVAL};
use crate::attach::{Attach, Marker, Parents, Recipient};
use crate::cadence::Cadence;
use crate::locality::{Changes, Places, Radii};
use dlmp_core::session::{Connection, PlayerDisconnected, PlayerIndex};
use dlmp_core::streaming::engine::{Audience, Decision, Engine, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::{Distances, stream_center};
use dlmp_core::streaming::shown::{Applied, ShownSets, lookup};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::markers::Blip as BlipPacket;
use dlmp_protocol::world::shared::{self, MarkerId};

/// The grid cell of blips, m: most blips have no distance limit, so the 100 nearest are
/// found ring by ring (ADR 0074); at the density (2000 blips over 8 km × 8 km, the
/// 100th about 1 km away) cells of 250 m stop the rings at a few hundred blips.
const CELL: f32 = 250.0;

/// The blips' engine, shown sets and cadence, kept between passes.
#[derive(Resource, Debug)]
pub struct BlipStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
    cadence: Cadence,
    /// The engine's items, the blips by id and the rules, kept while nothing changed and
    /// no blip is attached (ADR 0077): a quiet tick skips the rebuild and keeps the shared
    /// nearest lists (ADR 0074).
    by_id: Vec<(MarkerId, Entity)>,
    rules: Rules,
    stale: bool,
    places: Places,
    rebuilt: Places,
    touched: Changes,
    radii: Radii,
}

impl Default for BlipStream {
    fn default() -> Self {
        BlipStream {
            engine: Engine::new(CELL),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
            cadence: Cadence::default(),
            by_id: Vec::new(),
            rules: Rules {
                distances: None,
                cap: Some(CAP),
            },
            stale: true,
            places: Places::default(),
            rebuilt: Places::default(),
            touched: Changes::default(),
            radii: Radii::default(),
        }
    }
}

impl BlipStream {
    /// Who is shown which blip (keys are blip ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }

    /// The blip set changed: the next pass rebuilds its items and reconciles the
    /// recipients the change can affect (ADR 0077).
    pub fn changed(&mut self) {
        self.stale = true;
    }

    /// The next pass reconciles every recipient (a full pass; the items are kept).
    pub fn reconcile_everyone(&mut self) {
        self.cadence.everyone();
    }
}

/// The show of a blip as it is now.
pub fn show_packet(b: &Blip) -> BlipPacket {
    BlipPacket {
        event_id: EventId(0),
        blip_id: b.id,
        active: true,
        sprite: b.spec.sprite,
        color: b.spec.color,
        pos: b.at,
        attach_kind: b.attached.0,
        attach_id: b.attached.1,
        size: b.spec.size,
        flags: b.spec.flags,
    }
}

/// Attached blips wait for the recipient's first spawn
/// ([`Item::parent`](dlmp_core::streaming::engine::Item::parent) is always 0).
struct SpawnedRecipients(Vec<bool>);

impl Audience for SpawnedRecipients {
    fn parent_shown(&self, _parent: u32, recipient: PlayerId) -> bool {
        self.0.get(recipient.0 as usize).copied().unwrap_or(false)
    }
}

/// One pass: the position refresh, then the reconcile. Public for the benchmark.
#[allow(clippy::too_many_arguments, reason = "a system's parameters")]
pub fn reconcile(
    time: Res<Time<Fixed>>,
    mut stream: ResMut<BlipStream>,
    mut left: MessageReader<PlayerDisconnected>,
    mut blips: Query<(Entity, &mut Blip)>,
    parents: Parents,
    players: Query<Recipient>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
) {
    let BlipStream {
        engine,
        shown,
        decision,
        applied,
        cadence,
        by_id,
        rules,
        stale,
        places,
        rebuilt,
        touched,
        radii,
    } = &mut *stream;
    cadence.begin(time.timestep());
    for gone in left.read() {
        shown.forget(gone.id);
        radii.forget(gone.id);
    }
    let now = time.elapsed();
    let mut parent_entities = Vec::new();
    // Attached blips refreshed this pass: their move is their own (a mark), not only
    // their parent's.
    let mut refreshed = Vec::new();
    for (_, mut b) in &mut blips {
        let Some(attach) = b.spec.attach else {
            continue;
        };
        if let Attach::Player(e) = attach {
            parent_entities.push(e);
        }
        let Some(parent) = parents.get(attach) else {
            continue;
        };
        let (p, at) = (parent.position, b.at);
        let (dx, dy, dz) = (p.x - at.x, p.y - at.y, p.z - at.z);
        let moved = dx * dx + dy * dy + dz * dz > REFRESH_DISTANCE * REFRESH_DISTANCE;
        if moved
            && now.saturating_sub(b.refreshed) >= REFRESH_INTERVAL
            && shared::in_world("pos", &p).is_ok()
        {
            b.at = p;
            b.refreshed = now;
            refreshed.push(b.id);
            let packet = show_packet(&b).into();
            shown.tell_change(b.id.0, &packet, &index, &mut connections);
        }
    }
    // Refreshes that waited for a viewer's ack go as the blip is now (ADR 0092).
    shown.flush_changes(&index, &mut connections, |key| {
        let (_, blip) = blips.iter().find(|(_, b)| b.id.0 == key)?;
        Some(show_packet(blip).into())
    });
    parent_entities.sort_unstable();
    let mut audience = SpawnedRecipients(Vec::new());
    for (entity, player, _, scope, life, _) in &players {
        let i = player.id.0 as usize;
        if audience.0.len() <= i {
            audience.0.resize(i + 1, false);
        }
        audience.0[i] = life.spawned;
        if scope.is_changed() || life.is_changed() {
            cadence.mark(player.id);
            if parent_entities.binary_search(&entity).is_ok() {
                cadence.everyone();
            }
        }
    }
    touched.clear();
    if *stale || by_id.len() != blips.iter().len() || by_id.is_empty() {
        let before = *rules;
        engine.clear();
        by_id.clear();
        rebuilt.clear();
        let mut unlimited = false;
        let mut farthest: f32 = 0.0;
        let mut attached = false;
        for (entity, b) in &blips {
            attached |= b.spec.attach.is_some();
            let marker = Marker {
                key: b.id.0,
                scope: b.spec.scope,
                position: b.spec.position,
                distances: b
                    .spec
                    .draw_distance
                    .map(|d| Distances::new(d, HIDE_MARGIN, None)),
                viewer: b.spec.viewer,
                attach: b.spec.attach,
            };
            // At the entity itself, once it has spawned (the audience's one parent, 0).
            let item = parents.marker_item(&marker, &players, |parent| {
                parent.spawned.then_some((parent.position, 0))
            });
            let Some(item) = item else {
                continue;
            };
            match b.spec.draw_distance {
                Some(d) => farthest = farthest.max(d),
                None => unlimited = true,
            }
            engine.insert(item);
            by_id.push((b.id, entity));
            let follows = b.spec.attach.is_some() && !refreshed.contains(&b.id);
            rebuilt.push_item(&item, follows);
        }
        by_id.sort_unstable_by_key(|(id, _)| *id);
        places.replace(rebuilt, touched);
        *rules = Rules {
            distances: (!unlimited).then(|| Distances::new(farthest, HIDE_MARGIN, None)),
            cap: Some(CAP),
        };
        if *rules != before {
            // Every recipient's reach changed: everyone, once.
            cadence.everyone();
        }
        // Attached blips follow their players: rebuilt every pass.
        *stale = attached;
    }
    let reach = rules.distances.map(|d| d.hide.max(d.show));
    if shown.idle(engine) {
        cadence.end();
        return;
    }
    for (entity, player, position, scope, _, center) in &players {
        let viewpoint = Viewpoint::at(player.id, layer(&scope), stream_center(position, center));
        if !cadence.due(player.id) && shown.pending_empty(player.id) {
            let set = shown.of(player.id);
            let affected = match reach {
                Some(reach) => touched.affect(&viewpoint, set, reach),
                None => touched.affect_capped(&viewpoint, set, || {
                    radii.bound(engine, &viewpoint, set, CAP)
                }),
            };
            if !affected {
                continue;
            }
        }
        radii.forget(player.id);
        shown.reconcile(
            engine,
            rules,
            &viewpoint,
            &audience,
            decision,
            || connections.get_mut(entity).ok(),
            |key| BlipPacket::hide(EventId(0), MarkerId(key)).into(),
            |key| {
                let entity = lookup(by_id, MarkerId(key))?;
                let (_, b) = blips.get(entity).ok()?;
                Some(ServerPacket::from(show_packet(b)))
            },
            applied,
        );
    }
    cadence.end();
    applied.hidden.clear();
    applied.shown.clear();
}
