//! Colshape outlines on the one engine (world.md ColshapeShape; ADR 0027, ADR 0045): a
//! colshape's form is shown to the players a resource showed it to (`colshape:show`, to
//! nobody by default) while they are in its scope, with no distance limit, at most the
//! [`CAP`] nearest by the form's center. Shows and hides are droppable, repeated by the
//! next pass while the lane is full; a hide precedes the next show; destroy, `hide`, a
//! resource stop and a scope change hide it; a show set for a player is discarded when the
//! player leaves, so a new connection starts with none. Every tick, like gang zones: the
//! audience is explicit and small (forced items of the engine).

use bevy_ecs::prelude::*;

use super::Colshape;
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Player, PlayerDisconnected};
use dlmp_core::streaming::engine::{Audience, Decision, Engine, Item, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::stream_center;
use dlmp_core::streaming::shown::{Applied, ShownSets, lookup};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::markers::{ColshapeId, ColshapeShape, Shape};

/// At most this many outlines are shown to one player, the nearest by center first.
pub const CAP: usize = 256;

/// No distance limit, the 256 nearest.
pub const RULES: Rules = Rules {
    distances: None,
    cap: Some(CAP),
};

/// The outlines' engine and shown sets, kept between passes.
#[derive(Resource, Debug)]
pub struct OutlineStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
}

impl Default for OutlineStream {
    fn default() -> Self {
        OutlineStream {
            engine: Engine::new(1000.0),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
        }
    }
}

impl OutlineStream {
    /// Who is shown which outline (keys are colshape ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }
}

/// The form's center, where "nearest" measures from: a sphere's center, the middle of a
/// cylinder's axis, the middle of a box.
pub fn center(shape: &Shape) -> Vec3 {
    match *shape {
        Shape::Sphere { center, .. } => center,
        Shape::Cylinder { base, height, .. } => Vec3::new(base.x, base.y, base.z + height / 2.0),
        Shape::Box { min, max } => Vec3::new(
            (min.x + max.x) / 2.0,
            (min.y + max.y) / 2.0,
            (min.z + max.z) / 2.0,
        ),
    }
}

/// Who each colshape of this pass is shown to, by key, ascending.
struct ShownTo(Vec<(u32, Vec<PlayerId>)>);

impl Audience for ShownTo {
    fn forced(&self, key: u32, recipient: PlayerId) -> bool {
        self.0
            .binary_search_by_key(&key, |(k, _)| *k)
            .is_ok_and(|i| self.0[i].1.contains(&recipient))
    }
}

/// What the pass reads of a recipient.
type Recipient = (
    Entity,
    &'static Player,
    &'static Position,
    &'static Scope,
    &'static StreamCenter,
);

/// One reconcile pass.
pub fn reconcile(
    mut stream: ResMut<OutlineStream>,
    mut left: MessageReader<PlayerDisconnected>,
    colshapes: Query<&Colshape>,
    players: Query<Recipient>,
    mut connections: Query<&mut Connection>,
) {
    let OutlineStream {
        engine,
        shown,
        decision,
        applied,
    } = &mut *stream;
    for gone in left.read() {
        shown.forget(gone.id);
    }
    engine.clear();
    let mut audience = ShownTo(Vec::new());
    let mut by_id: Vec<(ColshapeId, &Colshape)> = Vec::new();
    for c in &colshapes {
        let to: Vec<PlayerId> = c
            .shown_to
            .iter()
            .filter_map(|e| players.get(*e).ok().map(|(_, p, ..)| p.id))
            .collect();
        if to.is_empty() {
            continue;
        }
        engine.insert(Item {
            forced: true,
            ..Item::at(c.id.0, layer(&c.scope), center(&c.shape))
        });
        audience.0.push((c.id.0, to));
        by_id.push((c.id, c));
    }
    audience.0.sort_unstable_by_key(|(k, _)| *k);
    by_id.sort_unstable_by_key(|(id, _)| *id);
    if shown.idle(engine) {
        return;
    }
    for (entity, player, position, scope, center) in &players {
        let viewpoint = Viewpoint::at(player.id, layer(scope), stream_center(position, center));
        shown.reconcile(
            engine,
            &RULES,
            &viewpoint,
            &audience,
            decision,
            || connections.get_mut(entity).ok(),
            |key| ColshapeShape::hide(EventId(0), ColshapeId(key)).into(),
            |key| {
                lookup(&by_id, ColshapeId(key)).map(|c| {
                    ServerPacket::from(ColshapeShape::show(EventId(0), c.id, c.shape, c.rev))
                })
            },
            applied,
        );
    }
    applied.hidden.clear();
    applied.shown.clear();
}
