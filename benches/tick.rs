//! One whole server tick with 1000 spawned players moving at 30 frames a second each, in
//! 20 clusters of 50 over the map (issue "Players on foot", Speed): ingest, frame
//! admission, streaming reconcile and relay encode of the ~600 frames of a 50 Hz tick.
//! Target: under 10 ms.
//!
//! `cargo bench --bench tick -- --warm-up-time 1 --measurement-time 5`

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness};
use dlmp::player::{Life, Position, SpawnState};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::Seq;
use dlmp::protocol::player::sync::{Frame, Keys, MoveState, PlayerSync};
use dlmp::session::{Connection, PlayerIndex};

const PLAYERS: u32 = 1000;
const PER_CLUSTER: u32 = 50;

/// Cluster `i / 50` on a 5 × 4 lattice, 1.2-1.5 km apart, spread within 100 m.
fn home(i: u32) -> Vec3 {
    let (cluster, j) = (i / PER_CLUSTER, i % PER_CLUSTER);
    let cx = -2400.0 + (cluster % 5) as f32 * 1200.0;
    let cy = -2250.0 + (cluster / 5) as f32 * 1500.0;
    let r = 100.0 * (j as f32 / PER_CLUSTER as f32).sqrt();
    let angle = j as f32 * 2.399_963;
    Vec3::new(cx + r * angle.cos(), cy + r * angle.sin(), 10.0)
}

/// Walking along +x.
fn frame(pos: Vec3) -> Frame {
    Frame {
        keys: Keys::FORWARD,
        vel: Vec3::new(0.02, 0.0, 0.0),
        shift_y: 0.02,
        move_state: MoveState::Walk,
        ..Frame::standing(pos)
    }
}

/// 1000 connected, spawned players at their homes, every lane empty and every cluster
/// already shown to itself.
fn full_map() -> (Harness, Vec<ClientId>) {
    let mut h = Harness::with_config(Config {
        max_players: 1000,
        session_timeout_ms: 24 * 3600 * 1000,
        ..Harness::config()
    });
    let clients: Vec<ClientId> = (0..PLAYERS)
        .map(|i| {
            let c = h.add_client();
            let hello = h.client_hello(c, &format!("player{i:04}"));
            h.send(c, hello);
            c
        })
        .collect();
    h.step();
    for (i, &c) in clients.iter().enumerate() {
        let entity = h
            .world()
            .resource::<PlayerIndex>()
            .get(h.player_id(c))
            .expect("connected");
        let mut e = h.world_mut().entity_mut(entity);
        e.get_mut::<SpawnState>().expect("spawn state").granted = true;
        *e.get_mut::<Life>().expect("life") = Life {
            spawned: true,
            alive: true,
        };
        e.get_mut::<Position>().expect("position").0 = home(u32::try_from(i).expect("fits"));
    }
    // Roster and shows drain with the clients' acks.
    for _ in 0..400 {
        h.step();
        let world = h.world_mut();
        let waiting: usize = world
            .query::<&Connection>()
            .iter(world)
            .map(|c| c.waiting() + c.roster_backlog())
            .sum();
        if waiting == 0 {
            break;
        }
    }
    for &c in &clients {
        h.clear(c);
    }
    (h, clients)
}

fn tick(c: &mut Criterion) {
    let (mut h, clients) = full_map();
    let mut seq = 0u32;
    let mut moved = 0.0f32;
    let mut group = c.benchmark_group("server tick, 1000 players moving at 30 frames a second");
    group.sample_size(20);
    group.bench_function("ingest + admission + streaming + relay", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                seq += 1;
                moved += 0.02;
                // 30 of every 50 players send a frame this tick.
                for (i, &client) in clients.iter().enumerate() {
                    if (i as u32 + seq) % 5 < 3 {
                        let mut pos = home(i as u32);
                        pos.x += moved;
                        let sync = PlayerSync {
                            session_token: h.token(client),
                            seq: Seq(seq),
                            frame: frame(pos),
                        };
                        h.send(client, sync);
                    }
                }
                let start = Instant::now();
                let datagrams = h.step_server_only();
                total += start.elapsed();
                std::hint::black_box(datagrams);
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, tick);
criterion_main!(benches);
