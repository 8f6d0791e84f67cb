//! Gang zone streaming on the one engine (world.md GangZone; ADR 0027): shown to every
//! player in the zone's scope (or to its single viewer alone), with no distance limit, at
//! most the [`CAP`] nearest by center (2D: a zone is a map rectangle). Shows and hides are
//! droppable, repeated by the next pass while the lane is full; a hide precedes the next
//! show; a new connection receives its zones again. Runs every tick in
//! [`StreamingSystems::Reconcile`].
//!
//! [`StreamingSystems::Reconcile`]: dlmp_core::tick::StreamingSystems::Reconcile

use bevy_ecs::prelude::*;

use super::{CAP, GangZone};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Player, PlayerDisconnected};
use dlmp_core::streaming::engine::{Decision, Engine, Everyone, Item, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::stream_center;
use dlmp_core::streaming::shown::{Applied, ShownSets, lookup};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::world::markers::GangZone as GangZonePacket;
use dlmp_protocol::world::shared::MarkerId;

/// The grid cell of zones, m: without a distance limit a pass reads every occupied cell of
/// the recipient's scope, so fewer larger cells cost less.
const CELL: f32 = 1000.0;

/// The zones' engine and shown sets, kept between passes.
#[derive(Resource, Debug)]
pub struct GangZoneStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
}

impl Default for GangZoneStream {
    fn default() -> Self {
        GangZoneStream {
            engine: Engine::new(CELL),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
        }
    }
}

impl GangZoneStream {
    /// Who is shown which zone (keys are zone ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }

    /// The shown sets, to tell a change coalesced ([`ShownSets::tell_change`]).
    pub(crate) fn shown_mut(&mut self) -> &mut ShownSets {
        &mut self.shown
    }
}

/// No distance limit, the 1024 nearest.
pub const RULES: Rules = Rules {
    distances: None,
    cap: Some(CAP),
};

/// The show of a zone as it is now.
pub fn show_packet(z: &GangZone) -> GangZonePacket {
    GangZonePacket {
        event_id: EventId(0),
        zone_id: z.id,
        active: true,
        flashing: z.spec.flash.is_some(),
        color: z.spec.color,
        alpha: z.spec.alpha,
        flash_color: z.spec.flash.unwrap_or(0),
        min_x: z.spec.min[0],
        min_y: z.spec.min[1],
        max_x: z.spec.max[0],
        max_y: z.spec.max[1],
        rev: z.rev,
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
    mut stream: ResMut<GangZoneStream>,
    mut left: MessageReader<PlayerDisconnected>,
    zones: Query<&GangZone>,
    players: Query<Recipient>,
    mut connections: Query<&mut Connection>,
) {
    let GangZoneStream {
        engine,
        shown,
        decision,
        applied,
    } = &mut *stream;
    for gone in left.read() {
        shown.forget(gone.id);
    }
    engine.clear();
    let mut by_id: Vec<(MarkerId, &GangZone)> = Vec::new();
    for z in &zones {
        let viewer = match z.spec.viewer {
            None => None,
            Some(e) => match players.get(e) {
                Ok((_, p, ..)) => Some(p.id),
                Err(_) => continue,
            },
        };
        let [x, y] = z.spec.center();
        engine.insert(Item {
            viewer,
            ..Item::at(z.id.0, layer(&z.spec.scope), Vec3::new(x, y, 0.0))
        });
        by_id.push((z.id, z));
    }
    by_id.sort_unstable_by_key(|(id, _)| *id);
    if shown.idle(engine) {
        return;
    }
    for (entity, player, position, scope, center) in &players {
        let c = stream_center(position, center);
        let viewpoint = Viewpoint::at(player.id, layer(scope), Vec3::new(c.x, c.y, 0.0));
        shown.reconcile(
            engine,
            &RULES,
            &viewpoint,
            &Everyone,
            decision,
            || connections.get_mut(entity).ok(),
            |key| GangZonePacket::hide(EventId(0), MarkerId(key)).into(),
            |key| lookup(&by_id, MarkerId(key)).map(|z| ServerPacket::from(show_packet(z))),
            applied,
        );
    }
    applied.hidden.clear();
    applied.shown.clear();
}
