//! The objects before a landing (world.md ObjectState and "Ordering around spawns"; ADR
//! 0049). Before TeleportPlayer (0x15) the floor, the up to [`FLOOR`] nearest objects at
//! the landing point not shown yet, goes into the same queue, ahead of the pending hides
//! and into the places a droppable show leaves free, except the one kept for
//! TeleportPlayer (and one for ScopeChanged on an interior change). Without room for the
//! floor the teleport is refused and changes nothing ([`LandingRefusals`]). SpawnPlayer
//! and RespawnPlayer travel outside the queue: their grants wait in [`GrantFloor`] when
//! its probe (the free chains, built with the pass's index) would show something at the
//! point, until the streaming pass, looking from the point, has queued every object there
//! and the client acknowledged it (see [`super::stream`]).

use bevy_app::{App, FixedUpdate};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use bevy_time::Time;
use tracing::debug;

use super::stream::{ObjectStream, Recipient};
use super::vehicles::VehicleParents;
use super::{Object, Objects};
use dlmp_core::session::Connection;
use dlmp_core::streaming::engine::Viewpoint;
use dlmp_core::tick::GameplaySystems;
use dlmp_core::viewers::Viewers;
use dlmp_net::lane::Delivery;
use dlmp_player::SpawnSystems;
use dlmp_player::floor::GrantFloor;
use dlmp_player::teleport::{LandingRefusals, MoveSystems, Teleport};

/// The most objects the floor of a landing holds (world.md: "up to 31 objects").
pub const FLOOR: usize = 31;

use dlmp_player::teleport::landing_places;

pub(super) fn build(app: &mut App) {
    app.init_resource::<GrantFloor>().add_systems(
        FixedUpdate,
        (
            probe_before_grants
                .in_set(GameplaySystems::Apply)
                .after(super::commands::forget_gone)
                .before(SpawnSystems::Grant),
            floor_before_landing
                .in_set(MoveSystems::Apply)
                .before(dlmp_player::teleport::teleport)
                .after(super::commands::forget_gone),
        ),
    );
}

/// What a refresh of the chains reads and fills (see [`ObjectStream`]'s refresh), for the
/// systems that bring the chains up to date ahead of the streaming pass: the grants' probe
/// and a teleport's floor.
#[derive(SystemParam)]
pub struct Refreshing<'w, 's> {
    time: Res<'w, Time>,
    registry: ResMut<'w, Objects>,
    stream: ResMut<'w, ObjectStream>,
    floor: ResMut<'w, GrantFloor>,
    objects: Query<'w, 's, &'static Object>,
    players: Query<'w, 's, Recipient>,
    vehicles: VehicleParents<'w, 's>,
    viewers: Query<'w, 's, &'static Viewers>,
}

impl Refreshing<'_, '_> {
    /// Brings the chains, the engine's items and the grants' probe up to date.
    fn refresh(&mut self) {
        self.stream.refresh(
            self.time.elapsed(),
            &mut self.registry,
            &self.objects,
            &self.players,
            &self.vehicles,
            &self.viewers,
            &mut self.floor,
        );
    }
}

/// Builds the chains (and so the grants' probe, [`GrantFloor::probe`]) again before this
/// tick's spawn grants when the objects changed since the last pass, so an object the
/// gamemode made in the same tick as the grant holds it. Nothing is built on a tick
/// without changes: a moving object's probe reaches over the rest of its path instead.
fn probe_before_grants(mut r: Refreshing) {
    if r.stream.built_at(r.registry.generation()) {
        return;
    }
    r.refresh();
}

/// For each of this tick's teleports (public for the benchmark): the floor at the landing point, queued before the
/// TeleportPlayer, or the teleport refused when the floor does not fit.
pub fn floor_before_landing(
    mut r: Refreshing,
    mut moves: MessageReader<Teleport>,
    mut refusals: ResMut<LandingRefusals>,
    mut connections: Query<&mut Connection>,
) {
    let now = r.time.elapsed();
    let mut refreshed = false;
    for t in moves.read() {
        let Ok((_, player, _, scope, life, _)) = r.players.get(t.player) else {
            continue;
        };
        let (id, scope) = (player.id, *scope);
        if !life.spawned || !life.alive || t.check().is_err() {
            continue;
        }
        if !refreshed {
            r.refresh();
            refreshed = true;
        }
        let interior = t.interior.unwrap_or(scope.interior);
        let view = Viewpoint::at(id, (scope.virtual_world, interior), t.pos);
        let keys = r.stream.floor(&view, &r.viewers, r.vehicles.shown(), FLOOR);
        let Ok(mut conn) = connections.get_mut(t.player) else {
            continue;
        };
        let needed = keys.len() + landing_places(interior != scope.interior);
        if conn.room(Delivery::Normal) < needed {
            debug!(
                player = id.0,
                floor = keys.len(),
                room = conn.room(Delivery::Normal),
                "no room for the floor: the teleport is refused"
            );
            refusals.0.push((t.player, t.pos));
            continue;
        }
        r.stream.show_ahead(id, &keys, &mut conn, now);
    }
}
