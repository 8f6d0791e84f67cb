//! The vehicle scenario of the tick benchmark (issue 14): 1000 players in 20 clusters of
//! 50, 500 of them driving, 1500 parked vehicles. Built through the real paths: vehicles
//! made as a Rust plugin makes them, drivers seated by `SeatCommand::Put` (what
//! `dlmp.put_player_in_vehicle` queues), frames sent as bytes through the decoder.
//!
//! The scenario stays the same however long criterion runs it, so that every timed tick
//! does the same work: each driver circles its cluster's center at its home's distance
//! (so its vehicle stays within 100 m of the center, within 200 m of every player of its
//! cluster), walkers circle 1 m around their homes, and each parked vehicle of a cluster
//! stands 2 m from a walker (toward the center), its syncer for the whole run (the previous syncer keeps a
//! vehicle within 130 m). No show, hide or syncer change happens after the set-up, so no
//! timed tick waits for an acknowledgement the discarded datagrams never get.

use std::f32::consts::TAU;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Seq, VehicleId};
use dlmp::protocol::player::sync::{Frame, Keys, MoveState, PlayerSync};
use dlmp::protocol::vehicle::frame::{RemoteVehicleFrame, VehicleFrame};
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::session::PlayerIndex;
use dlmp::vehicle::{SeatCommand, Seats, Syncer, Vehicle, VehicleSpec, VehicleStream};

use crate::common::{self, CLUSTERS, PER_CLUSTER};

/// Parked vehicles in the clusters (one beside each walker) and over the rest of the map.
const PARKED_IN_CLUSTERS: u32 = CLUSTERS * PER_CLUSTER / 2;
const PARKED_ELSEWHERE: u32 = 1000;
/// A parked vehicle of a cluster stands this far from its walker, m.
const PARK_GAP: f32 = 2.0;
/// A driver's speed around its circle, m/s.
const DRIVE_SPEED: f32 = 12.0;
/// A walker's circle around its home, m, and its speed, m/s.
const WALK_RADIUS: f32 = 1.0;
const WALK_SPEED: f32 = 1.5;
/// The server's tick and the game's physics step, s.
const TICK: f32 = 0.02;
const STEP: f32 = 0.02;
/// Parked vehicles elsewhere stand at least this far from every cluster's center, m: out
/// of the 200 m stream distance of anyone a cluster holds (its players within 100 m).
const CLEAR_OF_CLUSTERS: f32 = 350.0;

/// Ordinary cars: four seats or two, no siren, no turret.
const CARS: [u16; 12] = [400, 401, 402, 404, 405, 410, 411, 412, 415, 419, 421, 426];

/// A driver: its client, its vehicle, the circle it drives.
struct Driver {
    client: ClientId,
    vehicle: VehicleId,
    center: Vec3,
    radius: f32,
    angle0: f32,
}

/// A walker: its client and its home.
struct Walker {
    client: ClientId,
    home: Vec3,
}

/// The whole map, set up and drained, with its clock of ticks sent.
pub(crate) struct Traffic {
    pub(crate) h: Harness,
    drivers: Vec<Driver>,
    walkers: Vec<Walker>,
    /// Ticks whose frames were sent; the next one's frames use `tick + 1`.
    tick: u32,
    /// The parked vehicles of the clusters and the walker beside each.
    parked: Vec<(VehicleId, ClientId)>,
    /// Which drivers sent a VehicleFrame in the last tick sent.
    sent_last: Vec<bool>,
}

fn is_driver(i: u32) -> bool {
    i % 2 == 1
}

fn center_of(i: u32) -> Vec3 {
    common::cluster_position(i / PER_CLUSTER * PER_CLUSTER)
}

fn horizontal(a: Vec3, b: Vec3) -> f32 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// Where the parked vehicles outside the clusters stand: a lattice over the map, every
/// point far from the clusters.
fn elsewhere() -> Vec<Vec3> {
    let centers: Vec<Vec3> = (0..CLUSTERS).map(|c| center_of(c * PER_CLUSTER)).collect();
    let mut out = Vec::new();
    for k in 0..4000u32 {
        let p = Vec3::new(
            -5800.0 + (k % 50) as f32 * 236.0,
            -5800.0 + (k / 50) as f32 * 147.0,
            10.0,
        );
        if centers
            .iter()
            .all(|&c| horizontal(c, p) > CLEAR_OF_CLUSTERS)
        {
            out.push(p);
        }
        if out.len() == PARKED_ELSEWHERE as usize {
            return out;
        }
    }
    panic!("the lattice holds {PARKED_ELSEWHERE} places clear of the clusters");
}

fn create(h: &mut Harness, model: u16, at: Vec3) -> VehicleId {
    let spec = VehicleSpec {
        color1: 1,
        color2: 1,
        ..VehicleSpec::new(model, at, 0.0)
    };
    let e = dlmp::vehicle::create_vehicle(h.world_mut(), spec, None).expect("a valid vehicle");
    h.world().get::<Vehicle>(e).expect("a vehicle").id
}

impl Traffic {
    /// 1000 players spawned at their homes, the vehicles made and the drivers seated,
    /// every show and seat snapshot delivered and acknowledged, every syncer elected.
    pub(crate) fn new() -> Self {
        let players = CLUSTERS * PER_CLUSTER;
        let (mut h, clients) = common::full_house(players);
        for (i, &c) in (0..).zip(&clients) {
            h.spawn_at(c, common::cluster_position(i));
        }
        h.step();
        common::drain(&mut h, 400);

        let mut drivers = Vec::new();
        let mut walkers = Vec::new();
        let mut parked = Vec::new();
        for (i, &client) in (0..).zip(&clients) {
            let home = common::cluster_position(i);
            let model = CARS[(i as usize / 2) % CARS.len()];
            if is_driver(i) {
                let center = center_of(i);
                let vehicle = create(&mut h, model, home);
                drivers.push(Driver {
                    client,
                    vehicle,
                    center,
                    radius: horizontal(home, center),
                    angle0: (home.y - center.y).atan2(home.x - center.x),
                });
            } else {
                // 2 m from the walker toward its cluster's center: within 200 m of everyone
                // there, as the walker's own circle is.
                let center = center_of(i);
                let r = horizontal(home, center);
                let beside = if r > PARK_GAP {
                    let k = (r - PARK_GAP) / r;
                    Vec3::new(
                        center.x + (home.x - center.x) * k,
                        center.y + (home.y - center.y) * k,
                        home.z,
                    )
                } else {
                    Vec3::new(home.x + PARK_GAP, home.y, home.z)
                };
                parked.push((create(&mut h, model, beside), client));
                walkers.push(Walker { client, home });
            }
        }
        assert_eq!(parked.len(), PARKED_IN_CLUSTERS as usize);
        for (k, at) in (0..).zip(elsewhere()) {
            create(&mut h, CARS[k % CARS.len()], at);
        }
        // The vehicles are shown and their syncers elected (each walker's beside it) before
        // anyone sits in them.
        h.step();
        for d in &drivers {
            let player = h.entity(d.client);
            let token = h.get::<dlmp::session::Player>(d.client).token;
            h.world_mut().write_message(SeatCommand::Put {
                player,
                token,
                vehicle: d.vehicle,
                seat: 0,
            });
        }
        h.step();
        // Shows wait for room in a lane; the reconcile queues the rest as the acks make it.
        let expected = (CLUSTERS * PER_CLUSTER * PER_CLUSTER) as usize;
        for _ in 0..20 {
            common::drain(&mut h, 2000);
            if h.world().resource::<VehicleStream>().shown().total() == expected {
                break;
            }
            h.steps(60);
        }
        common::drain(&mut h, 2000);
        for &c in &clients {
            h.clear(c);
        }
        let sent_last = vec![false; drivers.len()];
        let t = Traffic {
            h,
            drivers,
            walkers,
            tick: 0,
            parked,
            sent_last,
        };
        t.check_setup();
        t
    }

    /// What the scenario claims, checked once outside the timing: every driver seated,
    /// every player shown its cluster's 50 vehicles and no other, each parked vehicle of a
    /// cluster synced by the walker beside it.
    fn check_setup(&self) {
        let w = self.h.world();
        for d in &self.drivers {
            let e = w
                .resource::<dlmp_core::vehicle::Vehicles>()
                .entity(d.vehicle);
            let seats = e.and_then(|e| w.get::<Seats>(e)).expect("the vehicle");
            assert_eq!(
                seats.driver().map(|o| o.entity),
                Some(self.h.entity(d.client)),
                "every driver is seated"
            );
        }
        let shown = w.resource::<VehicleStream>().shown().total();
        let players = (CLUSTERS * PER_CLUSTER) as usize;
        assert_eq!(
            shown,
            players * PER_CLUSTER as usize,
            "each player is shown its cluster's 25 driven and 25 parked vehicles"
        );
        for &(v, walker) in &self.parked {
            let e = w.resource::<dlmp_core::vehicle::Vehicles>().entity(v);
            let syncer = e.and_then(|e| w.get::<Syncer>(e)).expect("the vehicle");
            assert_eq!(
                syncer.0.map(|o| o.entity),
                Some(self.h.entity(walker)),
                "the walker beside a parked vehicle syncs it"
            );
        }
    }

    /// Queues the next tick's frames (the clients' work, outside the timing): 30 of every
    /// 50 drivers send a VehicleFrame (30 a second each) and 10 a PlayerSync heartbeat at
    /// their vehicle; 30 of every 50 walkers send a PlayerSync.
    pub(crate) fn send_tick(&mut self) {
        self.tick += 1;
        let seq = self.tick;
        let t = seq as f32 * TICK;
        for (k, d) in (0..).zip(&self.drivers) {
            let due = (k + seq) % 5 < 3;
            self.sent_last[k as usize] = due;
            let omega = DRIVE_SPEED / d.radius.max(5.0);
            let a = d.angle0 + omega * t;
            let pos = Vec3::new(
                d.center.x + d.radius * a.cos(),
                d.center.y + d.radius * a.sin(),
                d.center.z,
            );
            if due {
                let speed = omega * d.radius * STEP;
                let (half_s, half_c) = (a / 2.0).sin_cos();
                let state = VehicleState {
                    rot: [0.0, 0.0, half_s, half_c],
                    move_speed: Vec3::new(-speed * a.sin(), speed * a.cos(), 0.0),
                    gas: 0.6,
                    raw_steer: 0.3,
                    ..VehicleState::at_rest(pos)
                };
                let frame = VehicleFrame {
                    session_token: self.h.token(d.client),
                    seq: Seq(seq),
                    vehicle_id: d.vehicle,
                    state,
                };
                self.h.send(d.client, frame);
            }
            if (k + seq).is_multiple_of(5) {
                let sync = PlayerSync {
                    session_token: self.h.token(d.client),
                    seq: Seq(seq),
                    frame: Frame::standing(pos),
                };
                self.h.send(d.client, sync);
            }
        }
        for (k, w) in (0..).zip(&self.walkers) {
            if (k + seq) % 5 >= 3 {
                continue;
            }
            let a = (k as f32 / PER_CLUSTER as f32) * TAU + WALK_SPEED / WALK_RADIUS * t;
            let pos = Vec3::new(
                w.home.x + WALK_RADIUS * a.cos(),
                w.home.y + WALK_RADIUS * a.sin(),
                w.home.z,
            );
            let step = WALK_SPEED * STEP;
            let frame = Frame {
                keys: Keys::FORWARD,
                vel: Vec3::new(-step * a.sin(), step * a.cos(), 0.0),
                move_state: MoveState::Walk,
                ..Frame::standing(pos)
            };
            let sync = PlayerSync {
                session_token: self.h.token(w.client),
                seq: Seq(seq),
                frame,
            };
            self.h.send(w.client, sync);
        }
    }

    /// One more tick delivered to the clients (outside the timing): every walker got a
    /// RemoteVehicleFrame of each vehicle of its cluster whose driver sent a frame, and
    /// nobody else's; every session lasted the whole run; the syncers stayed.
    pub(crate) fn check_relays(&mut self) {
        self.h.discard_sent();
        for w in &self.walkers {
            self.h.clear(w.client);
        }
        self.send_tick();
        self.h.step();
        for w in &self.walkers {
            let home_center = center_of_home(w.home);
            let mut expected: Vec<u32> = self
                .drivers
                .iter()
                .zip(&self.sent_last)
                .filter(|(d, sent)| **sent && horizontal(d.center, home_center) < 1.0)
                .map(|(d, _)| d.vehicle.0)
                .collect();
            expected.sort_unstable();
            let mut got: Vec<u32> = self
                .h
                .packets::<RemoteVehicleFrame>(w.client)
                .iter()
                .map(|r| r.vehicle_id.0)
                .collect();
            got.sort_unstable();
            assert_eq!(
                got, expected,
                "the walker gets its cluster's driven vehicles' frames"
            );
        }
        assert_eq!(
            self.h.world().resource::<PlayerIndex>().len(),
            (CLUSTERS * PER_CLUSTER) as usize,
            "every session lasted the whole run"
        );
        self.check_setup();
    }
}

/// The center of the cluster whose player stands at `home`.
fn center_of_home(home: Vec3) -> Vec3 {
    (0..CLUSTERS)
        .map(|c| center_of(c * PER_CLUSTER))
        .min_by(|a, b| horizontal(*a, home).total_cmp(&horizontal(*b, home)))
        .expect("clusters")
}
