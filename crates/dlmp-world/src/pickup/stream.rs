//! Pickup streaming on the one engine (world.md PickupSync, "Streaming"; ADR 0027): a
//! pickup is shown to a player while it is active, in the player's scope and within the
//! draw distance of the player's stream center (hidden [`HIDE_MARGIN`] beyond it); no
//! cap. Shows and removals are droppable, repeated by the next pass while the lane is
//! full; a removal always precedes the next show; a new connection receives its pickups
//! again. The pass runs every tick in [`StreamingSystems::Reconcile`] and decides only
//! the recipients that can have something to change (ADR 0077; see [`reconcile`]).
//!
//! [`StreamingSystems::Reconcile`]: dlmp_core::tick::StreamingSystems::Reconcile

use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};

use super::{HIDE_MARGIN, Pickup, PickupSettings};
use crate::cadence::Cadence;
use crate::locality::{Changes, Places};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Player, PlayerDisconnected};
use dlmp_core::streaming::engine::{Decision, Engine, Everyone, Item, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::{Distances, stream_center};
use dlmp_core::streaming::shown::{Applied, ShownSets, lookup};
use dlmp_player::Life;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::pickup::{PickupId, PickupSync};

/// The pickups' engine and shown sets, kept between passes.
#[derive(Resource, Debug)]
pub struct PickupStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
    /// The rotation (each recipient at least once a second), the marks of a recipient
    /// whose lane refused a show, and a full pass on demand (ADR 0077).
    cadence: Cadence,
    /// The engine's items and the pickups by id, kept while no pickup changed (a pass
    /// sees a changed or despawned pickup by itself).
    by_id: Vec<(PickupId, Entity)>,
    stale: bool,
    places: Places,
    rebuilt: Places,
    touched: Changes,
    /// Each recipient's viewpoint when it was last decided, by slot: one that has not
    /// moved is decided again only for a reason (ADR 0077).
    seen: Vec<Option<Viewpoint>>,
}

impl Default for PickupStream {
    fn default() -> Self {
        PickupStream {
            engine: Engine::new(PickupSettings::default().draw_distance),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
            cadence: Cadence::default(),
            by_id: Vec::new(),
            stale: true,
            places: Places::default(),
            rebuilt: Places::default(),
            touched: Changes::default(),
            seen: Vec::new(),
        }
    }
}

impl PickupStream {
    /// Who is shown which pickup (keys are pickup ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }

    /// The shown sets, to tell a change coalesced ([`ShownSets::tell_change`]).
    pub(crate) fn shown_mut(&mut self) -> &mut ShownSets {
        &mut self.shown
    }

    /// The next pass decides every recipient (a full pass; the items are kept).
    pub fn reconcile_everyone(&mut self) {
        self.cadence.everyone();
    }
}

/// The pickups' streaming rules for `settings`.
pub fn rules(settings: &PickupSettings) -> Rules {
    Rules {
        distances: Some(Distances::new(settings.draw_distance, HIDE_MARGIN, None)),
        cap: None,
    }
}

/// The show of a pickup as it is now.
pub fn show_packet(p: &Pickup) -> PickupSync {
    PickupSync {
        event_id: EventId(0),
        pickup_id: p.id,
        active: true,
        model: p.spec.model,
        pos: p.spec.position,
        scale: p.spec.scale,
        highlight: p.spec.highlight,
        rev: p.rev,
    }
}

/// What the pass reads of a recipient.
type Recipient = (
    Entity,
    &'static Player,
    &'static Position,
    &'static Scope,
    &'static Life,
    &'static StreamCenter,
);

/// One reconcile pass. Public for the benchmark.
///
/// World.md says what is shown, not when it is decided: a recipient is decided when its
/// viewpoint (center, scope, spawned) differs from the last time it was, when a changed
/// pickup stood or stands within the hide distance of it or is shown to it, when hides
/// wait for its lane or its lane refused a show, and once a second by the rotation
/// (ADR 0077). Any other recipient's decision would be empty.
#[allow(clippy::too_many_arguments, reason = "a system's parameters")]
pub fn reconcile(
    time: Res<Time<Fixed>>,
    settings: Res<PickupSettings>,
    mut stream: ResMut<PickupStream>,
    mut left: MessageReader<PlayerDisconnected>,
    pickups: Query<(Entity, Ref<Pickup>)>,
    mut removed: RemovedComponents<Pickup>,
    players: Query<Recipient>,
    mut connections: Query<&mut Connection>,
) {
    let PickupStream {
        engine,
        shown,
        decision,
        applied,
        cadence,
        by_id,
        stale,
        places,
        rebuilt,
        touched,
        seen,
    } = &mut *stream;
    cadence.begin(time.timestep());
    for gone in left.read() {
        shown.forget(gone.id);
        if let Some(s) = seen.get_mut(gone.id.0 as usize) {
            *s = None;
        }
    }
    let rules = rules(&settings);
    // About half the draw distance: a query touches 3 × 3 to 4 × 4 cells.
    let cell = (settings.draw_distance / 2.0).max(1.0);
    if engine.cell_size() != cell || settings.is_changed() {
        *engine = Engine::new(cell);
        cadence.everyone();
        *stale = true;
    }
    touched.clear();
    // Whatever changed a pickup (a command, a plugin), or despawned one.
    *stale |= removed.read().count() > 0 || pickups.iter().any(|(_, p)| p.is_changed());
    if *stale {
        engine.clear();
        by_id.clear();
        rebuilt.clear();
        for (entity, p) in &pickups {
            if p.active {
                let item = Item::at(p.id.0, layer(&p.spec.scope), p.spec.position);
                engine.insert(item);
                by_id.push((p.id, entity));
                rebuilt.push_item(&item, false);
            }
        }
        by_id.sort_unstable_by_key(|(id, _)| *id);
        places.replace(rebuilt, touched);
        *stale = false;
    }
    let reach = rules
        .distances
        .map_or(f32::INFINITY, |d| d.hide.max(d.show));
    if shown.idle(engine) {
        cadence.end();
        return;
    }
    for (entity, player, position, scope, life, center) in &players {
        let viewpoint = Viewpoint {
            active: life.spawned,
            ..Viewpoint::at(player.id, layer(scope), stream_center(position, center))
        };
        let slot = player.id.0 as usize;
        if seen.len() <= slot {
            seen.resize(slot + 1, None);
        }
        if seen[slot] == Some(viewpoint)
            && !cadence.due(player.id)
            && shown.pending_empty(player.id)
            && !touched.affect(&viewpoint, shown.of(player.id), reach)
        {
            continue;
        }
        seen[slot] = Some(viewpoint);
        shown.reconcile(
            engine,
            &rules,
            &viewpoint,
            &Everyone,
            decision,
            || connections.get_mut(entity).ok(),
            |key| PickupSync::remove(EventId(0), PickupId(key)).into(),
            |key| {
                let entity = lookup(by_id, PickupId(key))?;
                let (_, p) = pickups.get(entity).ok()?;
                Some(ServerPacket::from(show_packet(&p)))
            },
            applied,
        );
        if !settled(shown, player.id, decision) {
            cadence.mark_next(player.id);
        }
    }
    cadence.end();
    applied.hidden.clear();
    applied.shown.clear();
}

/// Whether `recipient`'s set is what `decision` asked for: no show refused by a full
/// lane (or a missing connection), no hide left in the set.
fn settled(shown: &ShownSets, recipient: PlayerId, decision: &Decision) -> bool {
    decision.shows.iter().all(|&k| shown.contains(recipient, k))
        && !decision.hides.iter().any(|&k| shown.contains(recipient, k))
}
