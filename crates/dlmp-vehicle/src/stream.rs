//! Vehicle streaming on the one engine (vehicles.md VehicleSync, "Streaming"; player.md,
//! "Player streaming"; ADR 0027): a vehicle is shown to a player while it is within
//! [`STREAM_DISTANCE`] of the player's stream center in the player's scope, and the
//! vehicle a player sits in is always shown to it. Shows and hides are droppable and
//! repeated by the next pass while the lane is full.
//!
//! A show is one group: the shows of its other occupants the recipient does not see yet
//! (a seated player is shown exactly when its vehicle is), then the VehicleSync with every
//! field as the page defines it, then the seat snapshot as VehicleOccupancy warps
//! (critical: nothing repeats them). A hide is one group too: the occupants' hides, then
//! the vehicle's, waiting together for room; the bits go at once, so relays stop at once.
//! After the pass `keep_overrides` makes every seated player's audience its vehicle's.

use std::cell::RefCell;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::components::{
    Colors, Damage, Frozen, Health, Hitch, Params, Part, RelaySerial, Revisions, Seats, ShowTail,
    Train, Vehicle, VehicleScope,
};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Player, PlayerDisconnected};
use dlmp_core::streaming::engine::{Decision, Engine, Everyone, Item, Rules, Viewpoint, layer};
use dlmp_core::streaming::players::{Distances, stream_center};
use dlmp_core::streaming::shown::{Applied, Group, ShownSets, lookup};
use dlmp_core::streaming::stable::{Seen, Stability};
use dlmp_core::vehicle::{Life, Pose, Seated};
use dlmp_core::viewers::Viewers;
use dlmp_net::lane::Delivery;
use dlmp_player::Life as PlayerLife;
use dlmp_player::relay::Relayed;
use dlmp_player::shots::ShotOrder;
use dlmp_player::stream::{Look, snapshot};
use dlmp_player::stream::{StreamChange, StreamOverride};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken, Seq, VehicleId};
use dlmp_protocol::player::streaming::PlayerStreamOut;
use dlmp_protocol::vehicle::seats::{OccupancyKind, VehicleOccupancy};
use dlmp_protocol::vehicle::sync::{VehicleSync, flag};

/// A vehicle is shown within this distance of the player's stream center, m, and hidden
/// when it leaves it (vehicles.md VehicleSync, "Streaming": no hysteresis).
pub const STREAM_DISTANCE: f32 = 200.0;

/// The vehicles' engine and shown sets, kept between passes.
#[derive(Resource, Debug)]
pub struct VehicleStream {
    engine: Engine,
    shown: ShownSets,
    decision: Decision,
    applied: Applied,
    /// The recipients whose last answer still holds (ADR 0079).
    stability: Stability,
}

impl Default for VehicleStream {
    fn default() -> Self {
        VehicleStream {
            engine: Engine::new(STREAM_DISTANCE / 2.0).with_slack(),
            shown: ShownSets::default(),
            decision: Decision::default(),
            applied: Applied::default(),
            stability: Stability::default(),
        }
    }
}

impl VehicleStream {
    /// Who is shown which vehicle (keys are vehicle ids).
    pub fn shown(&self) -> &ShownSets {
        &self.shown
    }
}

/// The vehicles' streaming rules.
pub fn rules() -> Rules {
    Rules {
        distances: Some(Distances::new(STREAM_DISTANCE, 0.0, None)),
        cap: None,
    }
}

/// What a show reads of a vehicle.
pub type Shown = (
    &'static Vehicle,
    &'static Pose,
    &'static Health,
    &'static Life,
    &'static Damage,
    &'static Colors,
    &'static Params,
    &'static RelaySerial,
    &'static Revisions,
    &'static Hitch,
    &'static Train,
    &'static Part,
    &'static Frozen,
);

/// One vehicle's [`Shown`] parts.
pub type ShownItem<'a> = bevy_ecs::query::QueryItem<'a, 'a, Shown>;

/// The show of a vehicle as it is now, for `recipient` (its own lock and objective).
pub fn show_packet(
    (vehicle, pose, health, life, damage, colors, params, serial, revs, hitch, train, part, _): ShownItem<'_>,
    recipient: (PlayerId, PlayerToken),
    is_train: bool,
) -> VehicleSync {
    let mut flags = 0;
    if life.wrecked {
        flags |= flag::WRECKED;
        if life.drowned {
            flags |= flag::DROWNED;
        }
    }
    if is_train {
        if train.along {
            flags |= flag::ALONG_TRACK;
        }
        if train.derailed {
            flags |= flag::DERAILED;
        }
    }
    VehicleSync {
        event_id: EventId(0),
        vehicle_id: vehicle.id,
        active: true,
        model: vehicle.model,
        pos: pose.position,
        heading: pose.heading(),
        color1: colors.color1,
        color2: colors.color2,
        health: if life.wrecked && !life.drowned {
            0.0
        } else {
            health.0
        },
        flags,
        epoch: life.epoch,
        damage: damage.0,
        params: params.for_recipient(recipient.0, recipient.1),
        doors: params.doors,
        relay_seq: serial.0,
        health_rev: revs.health.0,
        damage_rev: revs.damage.0,
        tractor_id: hitch.tractor.unwrap_or(VehicleId::NONE),
        lifter_id: hitch.lifter.unwrap_or(VehicleId::NONE),
        part: part.0,
        siren_rev: revs.siren.0,
        pose_rev: revs.pose.0,
    }
}

/// The vehicle's own part of a show for `recipient`: the VehicleSync (`show` says how:
/// droppable in the reconcile, critical where nothing repeats it, as a respawn), the seat
/// snapshot as warps, then the [`ShowTail`] (critical), then the pose the show cannot
/// carry (critical, [`after_show`](super::transform::show::after_show): a frozen
/// vehicle's freezing transform, a tilted one's rotation). A seated occupant's own shows
/// are not in it: the reconcile puts them first.
pub fn vehicle_show(
    parts: ShownItem<'_>,
    seats: &Seats,
    tail: Option<&ShowTail>,
    recipient: (PlayerId, PlayerToken),
    is_train: bool,
    show: Delivery,
) -> Group {
    let id = parts.0.id;
    let mut group: Group = vec![(show_packet(parts, recipient, is_train).into(), show)];
    for (seat, o) in seats.occupied() {
        group.push((
            occupancy(id, o.id, o.token, seat, OccupancyKind::Warp).into(),
            Delivery::Critical,
        ));
    }
    if let Some(tail) = tail {
        if let Some(t) = &tail.tuning {
            group.push((t.clone().into(), Delivery::Critical));
        }
        if let Some(h) = &tail.handling {
            group.push((h.clone().into(), Delivery::Critical));
        }
        if let Some(t) = &tail.train {
            group.push((t.clone().into(), Delivery::Critical));
        }
    }
    if let Some(t) = super::transform::show::after_show(parts, is_train) {
        group.push((t.into(), Delivery::Critical));
    }
    group
}

/// A seat change as the wire says it.
pub fn occupancy(
    vehicle: VehicleId,
    player: PlayerId,
    token: PlayerToken,
    seat: u8,
    kind: OccupancyKind,
) -> VehicleOccupancy {
    VehicleOccupancy {
        event_id: EventId(0),
        vehicle_id: vehicle,
        player_id: player,
        player_token: token,
        seat,
        kind,
    }
}

/// What the pass reads of a recipient.
type Recipient = (
    Entity,
    &'static Player,
    &'static Position,
    &'static Scope,
    &'static PlayerLife,
    &'static StreamCenter,
    Option<&'static Seated>,
);

/// The player side of a vehicle's transition, written by the pass.
#[derive(bevy_ecs::system::SystemParam)]
pub struct Occupants<'w, 's> {
    looks: Query<'w, 's, Look>,
    viewers: Query<'w, 's, &'static mut Viewers>,
    relayed: Query<'w, 's, (&'static mut Relayed, Option<&'static ShotOrder>)>,
    changes: MessageWriter<'w, StreamChange>,
}

/// One reconcile pass. Public for the benchmark.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub fn reconcile(
    time: Res<Time>,
    models: Res<super::VehicleModels>,
    mut stream: ResMut<VehicleStream>,
    mut left: MessageReader<PlayerDisconnected>,
    vehicles: Query<(Entity, &Vehicle, &VehicleScope, &Pose, &Seats)>,
    shown_parts: Query<Shown>,
    tails: Query<&ShowTail>,
    players: Query<Recipient>,
    mut occupants: Occupants,
    mut connections: Query<&mut Connection>,
) {
    let stream = &mut *stream;
    for gone in left.read() {
        stream.shown.forget(gone.id);
    }
    stream.engine.clear();
    stream.stability.begin();
    let mut by_id: Vec<(VehicleId, (Entity, &Seats))> = Vec::new();
    for (entity, v, scope, pose, seats) in &vehicles {
        stream
            .engine
            .insert(Item::at(v.id.0, layer(&scope.0), pose.position));
        stream.stability.see(
            v.id.0 as usize,
            Seen {
                entity,
                layer: layer(&scope.0),
                position: pose.position,
                spawned: true,
                forced: false,
            },
        );
        by_id.push((v.id, (entity, seats)));
    }
    stream.stability.settle(false);
    by_id.sort_unstable_by_key(|(id, _)| *id);
    let rules = rules();
    let now = time.elapsed();
    let VehicleStream {
        engine,
        shown,
        decision,
        applied,
        stability,
    } = stream;
    for (entity, player, position, scope, life, center, seated) in &players {
        let me = (player.id, player.token);
        let viewpoint = Viewpoint {
            active: life.spawned,
            always: seated.map(|s| s.id.0),
            ..Viewpoint::at(player.id, layer(scope), stream_center(position, center))
        };
        let slot = player.id.0 as usize;
        if stability.holds(slot, &viewpoint, shown.revision(player.id)) {
            decision.clear();
        } else {
            engine.decide(&rules, &viewpoint, shown.of(player.id), &Everyone, decision);
            stability.decided(slot, &viewpoint, shown.revision(player.id), decision);
        }
        if decision.hides.is_empty() && decision.shows.is_empty() && shown.pending_empty(player.id)
        {
            continue;
        }
        let Ok(mut conn) = connections.get_mut(entity) else {
            continue;
        };
        // Nothing about a player reaches the recipient before its PlayerJoin (ADR 0020):
        // a vehicle whose occupant still waits for it is shown by a later pass.
        let waiting: Vec<u32> = decision
            .shows
            .iter()
            .copied()
            .filter(|&key| {
                lookup(&by_id, VehicleId(key)).is_some_and(|(_, seats)| {
                    seats
                        .occupied()
                        .any(|(_, o)| o.entity != entity && conn.awaits_join(o.id, o.token))
                })
            })
            .collect();
        // The three builders run one after another; they share the occupants' state.
        let included: RefCell<Vec<(u32, Vec<Entity>)>> = RefCell::new(Vec::new());
        let occ = RefCell::new(&mut occupants);
        shown.apply_groups(
            player.id,
            decision,
            &mut conn,
            |key| hide_group(key, &by_id, entity, me, &mut occ.borrow_mut()),
            |key| {
                if waiting.contains(&key) {
                    return None;
                }
                let (v_entity, seats) = lookup(&by_id, VehicleId(key))?;
                let occ = occ.borrow();
                let parts = shown_parts.get(v_entity).ok()?;
                let is_train = models.get(parts.0.model).is_some_and(|m| m.is_train());
                let mut group: Group = Vec::new();
                let mut players_in = Vec::new();
                for (_, o) in seats.occupied() {
                    if o.entity == entity
                        || occ.viewers.get(o.entity).is_ok_and(|v| v.contains(me.0))
                    {
                        continue;
                    }
                    let look = occ.looks.get(o.entity).ok()?;
                    group.extend(
                        snapshot(look, now)
                            .into_iter()
                            .map(|p| (p, Delivery::Droppable)),
                    );
                    players_in.push(o.entity);
                }
                group.extend(vehicle_show(
                    parts,
                    seats,
                    tails.get(v_entity).ok(),
                    me,
                    is_train,
                    Delivery::Droppable,
                ));
                included.borrow_mut().push((key, players_in));
                Some(group)
            },
            |key, last| {
                // The vehicle's relays to this recipient wait for its show (frame/relay.rs).
                if let Some((v_entity, _)) = lookup(&by_id, VehicleId(key))
                    && let Ok((mut relayed, _)) = occ.borrow_mut().relayed.get_mut(v_entity)
                {
                    relayed.shown(me.0, last);
                }
                let mut included = included.borrow_mut();
                let Some(at) = included.iter().position(|(k, _)| *k == key) else {
                    return;
                };
                for subject in std::mem::take(&mut included[at].1) {
                    show_occupant(subject, entity, me, last, &mut occ.borrow_mut());
                }
            },
            applied,
        );
    }
    applied.hidden.clear();
    applied.shown.clear();
}

/// The hide of vehicle `key` for the recipient: its other occupants' hides first (their
/// bits go now), then the vehicle's.
fn hide_group(
    key: u32,
    by_id: &[(VehicleId, (Entity, &Seats))],
    recipient: Entity,
    (id, token): (PlayerId, PlayerToken),
    occ: &mut Occupants,
) -> Vec<ServerPacket> {
    let mut packets = Vec::new();
    if let Some((_, seats)) = lookup(by_id, VehicleId(key)) {
        for (_, o) in seats.occupied() {
            if o.entity == recipient {
                continue;
            }
            let Ok(mut v) = occ.viewers.get_mut(o.entity) else {
                continue;
            };
            if !v.contains(id) {
                continue;
            }
            v.remove(id);
            let (last_seq, last_shot_order) = occ
                .relayed
                .get_mut(o.entity)
                .map_or((Seq(0), Seq(0)), |(mut sent, order)| {
                    (sent.end_show(id), order.and_then(|o| o.0).unwrap_or(Seq(0)))
                });
            packets.push(
                PlayerStreamOut {
                    player_id: o.id,
                    player_token: o.token,
                    event_id: EventId(0),
                    last_seq,
                    last_shot_order,
                }
                .into(),
            );
            occ.changes.write(StreamChange {
                subject: o.entity,
                subject_token: o.token,
                recipient,
                recipient_token: token,
                shown: false,
            });
        }
    }
    packets.push(VehicleSync::hide(EventId(0), VehicleId(key)).into());
    packets
}

/// An occupant's show went out with its vehicle's: the recipient sees it now.
fn show_occupant(
    subject: Entity,
    recipient: Entity,
    (id, token): (PlayerId, PlayerToken),
    last: EventId,
    occ: &mut Occupants,
) {
    let Ok(mut v) = occ.viewers.get_mut(subject) else {
        return;
    };
    v.insert(id);
    if let Ok((mut relayed, _)) = occ.relayed.get_mut(subject) {
        relayed.shown(id, last);
    }
    let subject_token = occ
        .looks
        .get(subject)
        .map_or(PlayerToken(0), |(p, ..)| p.token);
    occ.changes.write(StreamChange {
        subject,
        subject_token,
        recipient,
        recipient_token: token,
        shown: true,
    });
}

/// Every seated player's audience is its vehicle's viewers (player.md: "A seated player is
/// shown exactly when its vehicle is shown"); a player on foot has none. The shown sets
/// keep each vehicle's viewers: the cost is the seated players, not vehicles × players.
pub(super) fn keep_overrides(
    mut commands: Commands,
    stream: Res<VehicleStream>,
    seated: Query<(Entity, &Seated, Option<&StreamOverride>)>,
    unseated: Query<Entity, (With<StreamOverride>, Without<Seated>)>,
) {
    for entity in &unseated {
        commands.entity(entity).remove::<StreamOverride>();
    }
    let nobody = Viewers::default();
    for (entity, seat, current) in &seated {
        let audience = stream.shown.viewers_of(seat.id.0).unwrap_or(&nobody);
        if current.is_none_or(|c| !c.0.same_set(audience)) {
            commands
                .entity(entity)
                .insert(StreamOverride(audience.clone()));
        }
    }
}
