//! The syncer of a vehicle without a driver (vehicles.md, VehicleSyncer), elected once a
//! tick in [`ServerSystems::SyncerElection`], after this tick's seat changes and streaming
//! (the page's "every streaming update and any change of seats"). The order is
//! [`elect`]'s; the players near a vehicle come from a grid of the players who may sync,
//! so a pass costs the vehicles near players, not vehicles × players. A change sends
//! VehicleSyncer active = 0 to the previous syncer and 1 to the new one (critical), and
//! raises `vehicle_syncer(vehicle, syncer, previous)` once per vehicle per pass.
//! Decisions: docs/decisions/0057-syncer-election.md.
//!
//! [`ServerSystems::SyncerElection`]: dlmp_core::tick::ServerSystems::SyncerElection

pub mod elect;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use self::elect::{Ballot, Candidate, SYNC_RANGE};
use super::{Hitch, Occupant, Remote, Seats, Syncer, Vehicle, VehicleScope, VehicleStream};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player};
use dlmp_core::streaming::engine::{Layer, layer};
use dlmp_core::streaming::grid::Grid;
use dlmp_core::tick::ServerSystems;
use dlmp_core::vehicle::Pose;
use dlmp_net::lane::Delivery;
use dlmp_player::frame::FrameState;
use dlmp_player::{Body, Life};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::vehicle::life::VehicleSyncer;

/// A vehicle's syncer changed in this pass (the previous and the new one, either may be
/// none): `vehicle_syncer(vehicle, syncer, previous)`.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncerChanged {
    pub vehicle: Entity,
    pub vehicle_id: VehicleId,
    pub syncer: Option<Occupant>,
    pub previous: Option<Occupant>,
}

/// An occupant ordered by slot, generation and entity (ties of the nearest go to the
/// lower slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Who(Occupant);

impl PartialOrd for Who {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Who {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.0.id, self.0.token.0, self.0.entity).cmp(&(
            other.0.id,
            other.0.token.0,
            other.0.entity,
        ))
    }
}

/// The election's grid of the players who may sync, kept between passes.
#[derive(Resource, Debug)]
pub struct SyncerGrid {
    grid: Grid<Layer, u32>,
    players: Vec<(Occupant, Vec3Pos)>,
}

type Vec3Pos = dlmp_protocol::geometry::Vec3;

impl Default for SyncerGrid {
    fn default() -> Self {
        SyncerGrid {
            grid: Grid::new(SYNC_RANGE),
            players: Vec::new(),
        }
    }
}

impl SyncerGrid {
    /// This pass's players who may sync, by place.
    fn rebuild(&mut self, voters: &Query<Voter>) {
        self.grid.clear();
        self.players.clear();
        for (entity, player, life, body, frame, position, scope) in voters {
            if !may_sync(life, body, frame) {
                continue;
            }
            let Ok(slot) = u32::try_from(self.players.len()) else {
                break;
            };
            let o = Occupant {
                entity,
                id: player.id,
                token: player.token,
            };
            if self
                .grid
                .insert(layer(scope), position.0.x, position.0.y, slot)
            {
                self.players.push((o, position.0));
            }
        }
    }
}

/// Elects the syncers.
pub struct SyncerPlugin;

impl Plugin for SyncerPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SyncerGrid>()
            .add_message::<SyncerChanged>()
            .add_systems(
                FixedUpdate,
                elect_syncers.in_set(ServerSystems::SyncerElection),
            );
    }
}

/// What the election reads of a player.
type Voter = (
    Entity,
    &'static Player,
    &'static Life,
    &'static Body,
    Option<&'static FrameState>,
    &'static Position,
    &'static Scope,
);

/// What the election reads and writes of a vehicle.
type Ballots = (
    Entity,
    &'static Vehicle,
    &'static VehicleScope,
    &'static Pose,
    &'static Seats,
    &'static Hitch,
    &'static mut Syncer,
    Option<&'static Remote>,
);

/// Spawned, alive, not paused, not frozen: the players who may sync (and drivers who
/// count).
fn may_sync(life: &Life, body: &Body, frame: Option<&FrameState>) -> bool {
    life.spawned && life.alive && !body.paused && frame.is_none_or(|f| f.frozen.is_none())
}

#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn elect_syncers(
    mut grid: ResMut<SyncerGrid>,
    stream: Res<VehicleStream>,
    voters: Query<Voter>,
    mut vehicles: Query<Ballots>,
    mut connections: Query<&mut Connection>,
    players: Query<&Player>,
    mut changed: MessageWriter<SyncerChanged>,
) {
    let grid = &mut *grid;
    // Built on the first vehicle that needs the nearest player: a pass in which every
    // vehicle is driven or keeps its syncer builds none.
    let mut built = false;
    // Whether a player may sync (a driver: whether it counts), and where it is.
    let standing = |o: Occupant| {
        voters.get(o.entity).map_or(
            (false, Vec3Pos::ZERO),
            |(_, p, life, body, frame, position, _)| {
                (
                    p.token == o.token && may_sync(life, body, frame),
                    position.0,
                )
            },
        )
    };
    let counts = |o: Occupant| standing(o).0;
    let candidate = |o: Occupant, key: u32| -> Candidate<Who> {
        let (eligible, position) = standing(o);
        Candidate {
            player: Who(o),
            position,
            eligible,
            streamed: stream.shown().contains(o.id, key),
        }
    };

    // The controller of every vehicle (its live driver, else its syncer), for the other
    // end of a hitch or winch. The vehicles are elected heads of chains first, then by
    // their place in the chain, and each election updates its entry: a trailer's
    // tractor's controller is the one of this pass, however long the chain.
    let mut controllers: Vec<(VehicleId, Option<Occupant>)> = Vec::new();
    let mut parent_of: Vec<(VehicleId, VehicleId)> = Vec::new();
    for (_, v, _, _, seats, hitch, syncer, _) in &vehicles {
        let live_driver = seats.driver().filter(|d| counts(*d));
        controllers.push((v.id, live_driver.or(syncer.0)));
        if let Some(other) = hitch.tractor.or(hitch.lifter) {
            parent_of.push((v.id, other));
        }
    }
    controllers.sort_unstable_by_key(|(id, _)| *id);
    parent_of.sort_unstable_by_key(|(id, _)| *id);
    let parent = |id: VehicleId| {
        parent_of
            .binary_search_by_key(&id, |(k, _)| *k)
            .ok()
            .map(|i| parent_of[i].1)
    };
    let mut order: Vec<(usize, Entity)> = vehicles
        .iter()
        .map(|(entity, v, ..)| {
            let depth = std::iter::successors(Some(v.id), |id| parent(*id))
                .skip(1)
                .take(16)
                .count();
            (depth, entity)
        })
        .collect();
    order.sort_by_key(|(depth, _)| *depth);

    let mut passengers: Vec<Candidate<Who>> = Vec::new();
    let mut nearby: Vec<Candidate<Who>> = Vec::new();
    for (_, entity) in order {
        let Ok((entity, v, scope, pose, seats, hitch, mut syncer, remote)) =
            vehicles.get_mut(entity)
        else {
            continue;
        };
        let controller = |id: VehicleId| {
            controllers
                .binary_search_by_key(&id, |(k, _)| *k)
                .ok()
                .and_then(|i| controllers[i].1)
        };
        let key = v.id.0;
        let driven = seats.driver().is_some_and(counts);
        passengers.clear();
        let mut towed_by = None;
        if !driven {
            if let Some(other) = hitch.tractor.or(hitch.lifter) {
                towed_by = Some(controller(other).map(|o| candidate(o, key)));
            }
            passengers.extend(
                seats
                    .occupied()
                    .filter(|(s, _)| *s > 0)
                    .map(|(_, o)| candidate(o, key)),
            );
        }
        let ballot = Ballot {
            position: pose.position,
            driven,
            remote: remote.map(|r| candidate(r.driver, key)),
            towed_by,
            passengers: &passengers,
            previous: syncer.0.map(|o| candidate(o, key)),
        };
        let new = elect::elect(&ballot, || {
            if !built {
                grid.rebuild(&voters);
                built = true;
            }
            nearby.clear();
            let viewers = stream.shown().viewers_of(key);
            let p = pose.position;
            grid.grid
                .query(layer(&scope.0), p.x, p.y, SYNC_RANGE, |slot| {
                    let (o, position) = grid.players[slot as usize];
                    nearby.push(Candidate {
                        player: Who(o),
                        position,
                        eligible: true,
                        streamed: viewers.is_some_and(|v| v.contains(o.id)),
                    });
                });
            nearby.iter().copied()
        })
        .map(|w| w.0);
        if !driven && let Ok(i) = controllers.binary_search_by_key(&v.id, |(k, _)| *k) {
            controllers[i].1 = new;
        }
        let previous = syncer.0;
        if new == previous {
            continue;
        }
        syncer.0 = new;
        for (o, active) in [(previous, false), (new, true)] {
            let Some(o) = o else { continue };
            let Ok(mut conn) = connections.get_mut(o.entity) else {
                continue;
            };
            let packet = VehicleSyncer {
                event_id: EventId(0),
                vehicle_id: v.id,
                active,
            };
            if let Err(e) = conn.send_event(ServerPacket::from(packet), Delivery::Critical) {
                dlmp_net::log_limited!(warn, vehicle = key, "VehicleSyncer not queued: {e}");
            }
        }
        changed.write(SyncerChanged {
            vehicle: entity,
            vehicle_id: v.id,
            syncer: new,
            // vehicles.md: "nil = ... the previous one left".
            previous: previous.filter(|o| still_here(&players, *o)),
        });
    }
}

/// Whether `o` is still the connected player it was (a slot of a player who left may hold
/// another player since: the token tells them apart).
pub(crate) fn still_here(players: &Query<&Player>, o: Occupant) -> bool {
    players.get(o.entity).is_ok_and(|p| p.token == o.token)
}

/// The script event of a syncer change.
pub(crate) fn syncer_event(c: &SyncerChanged) -> dlmp_script::ScriptEvent {
    use dlmp_player::script::LuaPlayer;
    let lua = |o: Occupant| LuaPlayer {
        entity: o.entity,
        token: o.token,
    };
    dlmp_script::ScriptEvent::new(
        "vehicle_syncer",
        [
            super::script::LuaVehicle { id: c.vehicle_id }.into(),
            c.syncer.map(lua).into(),
            c.previous.map(lua).into(),
        ],
    )
}
