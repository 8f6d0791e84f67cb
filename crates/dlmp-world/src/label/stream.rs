//! Label streaming on the one engine (world.md Label3D; ADR 0027, ADR 0045): shown to a
//! spawned player in the label's scope within the label's own draw distance of the
//! player's stream center (hidden [`HIDE_MARGIN`] beyond it), at most the [`CAP`] nearest;
//! a single viewer only to that viewer; an attached label in its entity's scope, measured
//! from the entity, only while the entity is shown to the recipient (player streaming's
//! `Viewers`, decided earlier in the same set) and never to the attached player. Shows and
//! hides are droppable, repeated by the next pass while the lane is full; a hide precedes
//! the next show; a new connection receives its labels again.
//!
//! The page reconciles "on every change of a label and once a second": after a change of
//! the label set, the recipients it can affect (ADR 0077: within the largest hide distance
//! of a changed label's old or new place, or shown it now); those whose state changed (a
//! new connection, a spawn, a scope change, a player shown or hidden to them); and the
//! [`Cadence`]'s rotating share. The engine's items are kept while nothing changed and no
//! label is attached.

use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};

use super::{CAP, HIDE_MARGIN, Label};
use crate::attach::{Marker, ParentViewers, Parents, Recipient};
use crate::cadence::Cadence;
use crate::locality::{Changes, Places};
use dlmp_core::session::{Connection, PlayerDisconnected};
use dlmp_core::streaming::engine::{Audience, Decision, Engine, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::{Distances, stream_center};
use dlmp_core::streaming::shown::{Applied, ShownSets, lookup};
use dlmp_player::stream::StreamChange;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::label::Label3D;
use dlmp_protocol::world::shared::MarkerId;

/// The labels' engine, shown sets and cadence, kept between passes.
#[derive(Resource, Debug)]
pub struct LabelStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
    cadence: Cadence,
    /// The engine's items and the labels by id, kept while nothing changed and no label is
    /// attached (standing labels do not move): a quiet tick skips the rebuild.
    by_id: Vec<(MarkerId, Entity)>,
    farthest: f32,
    stale: bool,
    /// The items' places as last inserted, and the scratch of a rebuild's (ADR 0077).
    places: Places,
    rebuilt: Places,
    touched: Changes,
}

impl Default for LabelStream {
    fn default() -> Self {
        LabelStream {
            engine: Engine::new(cell(super::DEFAULT_DRAW_DISTANCE)),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
            cadence: Cadence::default(),
            by_id: Vec::new(),
            farthest: super::DEFAULT_DRAW_DISTANCE,
            stale: true,
            places: Places::default(),
            rebuilt: Places::default(),
            touched: Changes::default(),
        }
    }
}

impl LabelStream {
    /// Who is shown which label (keys are label ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }

    /// The shown sets, to tell a change coalesced ([`ShownSets::tell_change`]).
    pub(crate) fn shown_mut(&mut self) -> &mut ShownSets {
        &mut self.shown
    }

    /// The label set changed: the next pass rebuilds its items and reconciles the
    /// recipients the change can affect (ADR 0077).
    pub fn changed(&mut self) {
        self.stale = true;
    }

    /// The next pass reconciles every recipient (a full pass; the items are kept).
    pub fn reconcile_everyone(&mut self) {
        self.cadence.everyone();
    }
}

/// The grid cell for labels drawn up to `farthest`: the hide reach, so a query touches
/// 2 × 2 to 3 × 3 cells and a rebuild fills fewer (at the density a cell of 25 m
/// held a label in one of six, and the rebuild and the queries paid for the empty ones).
fn cell(farthest: f32) -> f32 {
    (farthest + HIDE_MARGIN).max(25.0)
}

/// A label's own distances.
fn distances(draw_distance: f32) -> Distances {
    Distances::new(draw_distance, HIDE_MARGIN, None)
}

/// The show of a label as it is now.
pub fn show_packet(l: &Label) -> Label3D {
    Label3D {
        event_id: EventId(0),
        label_id: l.id,
        active: true,
        color: l.spec.color,
        pos: l.spec.position,
        draw_distance: l.spec.draw_distance,
        attach_kind: l.attached.0,
        attach_id: l.attached.1,
        text: l.spec.text,
    }
}

/// The parents of this pass's attached labels, by
/// [`Item::parent`](dlmp_core::streaming::engine::Item::parent) index.
struct ShownParents<'a>(Vec<ParentViewers<'a>>);

impl Audience for ShownParents<'_> {
    fn parent_shown(&self, parent: u32, recipient: PlayerId) -> bool {
        self.0
            .get(parent as usize)
            .is_some_and(|v| v.contains(recipient))
    }
}

/// One reconcile pass. Public for the benchmark.
#[allow(clippy::too_many_arguments, reason = "a system's parameters")]
pub fn reconcile(
    time: Res<Time<Fixed>>,
    mut stream: ResMut<LabelStream>,
    mut left: MessageReader<PlayerDisconnected>,
    mut changes: MessageReader<StreamChange>,
    labels: Query<(Entity, Ref<Label>)>,
    parents: Parents,
    players: Query<Recipient>,
    mut connections: Query<&mut Connection>,
) {
    let LabelStream {
        engine,
        shown,
        decision,
        applied,
        cadence,
        by_id,
        farthest,
        stale,
        places,
        rebuilt,
        touched,
    } = &mut *stream;
    cadence.begin(time.timestep());
    for gone in left.read() {
        shown.forget(gone.id);
    }
    for change in changes.read() {
        if let Ok((_, p, ..)) = players.get(change.recipient) {
            cadence.mark(p.id);
        }
    }
    let mut audience = ShownParents(Vec::new());
    if *stale || by_id.len() != labels.iter().len() || by_id.is_empty() {
        *stale = true;
    }
    touched.clear();
    if *stale {
        let before = *farthest;
        *farthest = labels
            .iter()
            .map(|(_, l)| l.spec.draw_distance)
            .fold(super::DEFAULT_DRAW_DISTANCE, f32::max);
        if engine.cell_size() != cell(*farthest) {
            *engine = Engine::new(cell(*farthest));
        }
        if *farthest != before {
            // The reach of every mark grew or shrank: everyone, once.
            cadence.everyone();
        }
        engine.clear();
        by_id.clear();
        rebuilt.clear();
        let mut attached = false;
        for (entity, l) in &labels {
            attached |= l.spec.attach.is_some();
            let marker = Marker {
                key: l.id.0,
                scope: l.spec.scope,
                position: l.spec.position,
                distances: Some(distances(l.spec.draw_distance)),
                viewer: l.spec.viewer,
                attach: l.spec.attach,
            };
            // Measured from the entity, at the label's offset from it.
            let item = parents.marker_item(&marker, &players, |parent| {
                let slot = u32::try_from(audience.0.len()).ok()?;
                audience.0.push(parent.viewers);
                let (p, o) = (parent.position, l.spec.position);
                Some((Vec3::new(p.x + o.x, p.y + o.y, p.z + o.z), slot))
            });
            let Some(item) = item else {
                continue;
            };
            engine.insert(item);
            by_id.push((l.id, entity));
            rebuilt.push_item(&item, l.spec.attach.is_some() && !l.is_changed());
        }
        by_id.sort_unstable_by_key(|(id, _)| *id);
        places.replace(rebuilt, touched);
        // Attached labels follow their players: rebuilt every pass.
        *stale = attached;
    }
    let show = |key: u32| {
        let entity = lookup(by_id, MarkerId(key))?;
        let (_, l) = labels.get(entity).ok()?;
        Some(ServerPacket::from(show_packet(&l)))
    };
    let rules = Rules {
        distances: Some(distances(*farthest)),
        cap: Some(CAP),
    };
    let reach = rules
        .distances
        .map_or(f32::INFINITY, |d| d.hide.max(d.show));
    if shown.idle(engine) {
        cadence.end();
        return;
    }
    for (entity, player, position, scope, life, center) in &players {
        if scope.is_changed() || life.is_changed() {
            cadence.mark(player.id);
        }
        let viewpoint = Viewpoint {
            active: life.spawned,
            ..Viewpoint::at(player.id, layer(&scope), stream_center(position, center))
        };
        if !cadence.due(player.id)
            && shown.pending_empty(player.id)
            && !touched.affect(&viewpoint, shown.of(player.id), reach)
        {
            continue;
        }
        shown.reconcile(
            engine,
            &rules,
            &viewpoint,
            &audience,
            decision,
            || connections.get_mut(entity).ok(),
            |key| Label3D::hide(EventId(0), MarkerId(key)).into(),
            show,
            applied,
        );
    }
    cadence.end();
    applied.hidden.clear();
    applied.shown.clear();
}
