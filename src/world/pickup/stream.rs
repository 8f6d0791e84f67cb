//! Pickup streaming on the one engine (world.md PickupSync, "Streaming"; ADR 0027): a
//! pickup is shown to a player while it is active, in the player's scope and within the
//! draw distance of the player's stream center (hidden [`HIDE_MARGIN`] beyond it); no
//! cap. Shows and removals are droppable, repeated by the next pass while the lane is
//! full; a removal always precedes the next show; a new connection receives its pickups
//! again. The pass runs every tick in [`StreamingSystems::Reconcile`].
//!
//! [`StreamingSystems::Reconcile`]: crate::tick::StreamingSystems::Reconcile

use bevy_ecs::prelude::*;

use super::{HIDE_MARGIN, Pickup, PickupSettings};
use crate::player::{Life, Position, Scope, StreamCenter};
use crate::protocol::ServerPacket;
use crate::protocol::ids::EventId;
use crate::protocol::world::pickup::{PickupId, PickupSync};
use crate::session::{Connection, Player, PlayerDisconnected};
use crate::streaming::engine::{Decision, Engine, Everyone, Item, Rules, Viewpoint, layer};
use crate::streaming::players::{Distances, stream_center};
use crate::streaming::shown::{Applied, ShownSets, lookup};

/// The pickups' engine and shown sets, kept between passes.
#[derive(Resource, Debug)]
pub struct PickupStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
}

impl Default for PickupStream {
    fn default() -> Self {
        PickupStream {
            engine: Engine::new(PickupSettings::default().draw_distance),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
        }
    }
}

impl PickupStream {
    /// Who is shown which pickup (keys are pickup ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
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
pub fn reconcile(
    settings: Res<PickupSettings>,
    mut stream: ResMut<PickupStream>,
    mut left: MessageReader<PlayerDisconnected>,
    pickups: Query<&Pickup>,
    players: Query<Recipient>,
    mut connections: Query<&mut Connection>,
) {
    let stream = &mut *stream;
    for gone in left.read() {
        stream.shown.forget(gone.id);
    }
    let rules = rules(&settings);
    // About half the draw distance: a query touches 3 × 3 to 4 × 4 cells.
    let cell = (settings.draw_distance / 2.0).max(1.0);
    if stream.engine.cell_size() != cell {
        stream.engine = Engine::new(cell);
    }
    stream.engine.clear();
    let mut by_id: Vec<(PickupId, &Pickup)> = Vec::new();
    for p in &pickups {
        if p.active {
            stream
                .engine
                .insert(Item::at(p.id.0, layer(&p.spec.scope), p.spec.position));
            by_id.push((p.id, p));
        }
    }
    by_id.sort_unstable_by_key(|(id, _)| *id);
    let PickupStream {
        engine,
        shown,
        decision,
        applied,
    } = stream;
    for (entity, player, position, scope, life, center) in &players {
        let viewpoint = Viewpoint {
            active: life.spawned,
            ..Viewpoint::at(player.id, layer(scope), stream_center(position, center))
        };
        shown.reconcile(
            engine,
            &rules,
            &viewpoint,
            &Everyone,
            decision,
            || connections.get_mut(entity).ok(),
            |key| PickupSync::remove(EventId(0), PickupId(key)).into(),
            |key| lookup(&by_id, PickupId(key)).map(|p| ServerPacket::from(show_packet(p))),
            applied,
        );
    }
    applied.hidden.clear();
    applied.shown.clear();
}
