//! One whole server tick with 1000 spawned players moving at 30 frames a second each, in
//! 20 clusters of 50 over the map (issue "Players on foot", Speed): ingest, frame
//! admission, streaming reconcile and relay encode of the ~600 frames of a 50 Hz tick.
//! Target: under 3 ms (issue 11). Only the tick is timed: the virtual clients' encoding of
//! their frames and the dropping of the sent datagrams (the network thread's work) are
//! outside the measurement.
//!
//! The second scenario adds vehicles (issue 14, Tests and speed): the same 1000 players,
//! half of them driving 500 vehicles at 30 VehicleFrames a second, and 1500 parked
//! vehicles, 500 of them in the clusters (each beside a player on foot, its syncer) and
//! 1000 over the rest of the map. One tick = ingest, validation, streaming, syncer
//! election and relay encode. Target: under 10 ms.
//!
//! `cargo bench --bench tick -- --warm-up-time 1 --measurement-time 5`
//! (`... vehicles` for the second scenario alone)

mod common;
#[path = "tick/traffic.rs"]
mod traffic;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::Seq;
use dlmp::protocol::player::sync::{Frame, Keys, MoveState, PlayerSync};
use dlmp::session::PlayerIndex;

const PLAYERS: u32 = common::CLUSTERS * common::PER_CLUSTER;

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

/// 1000 connected, spawned players at their cluster positions, every lane empty and every
/// cluster already shown to itself.
fn full_map() -> (Harness, Vec<ClientId>) {
    let (mut h, clients) = common::full_house(PLAYERS);
    for (i, &c) in clients.iter().enumerate() {
        h.spawn_at(c, home(i));
    }
    // The spawns are shown in the next tick; the shows drain with the clients' acks, so
    // no measured tick carries them and no lane stalls for want of an ack.
    h.step();
    common::drain(&mut h, 400);
    for &c in &clients {
        h.clear(c);
    }
    (h, clients)
}

fn home(i: usize) -> Vec3 {
    common::cluster_position(u32::try_from(i).expect("fits"))
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
                        let mut pos = home(i);
                        pos.x += moved;
                        let sync = PlayerSync {
                            session_token: h.token(client),
                            seq: Seq(seq),
                            frame: frame(pos),
                        };
                        h.send(client, sync);
                    }
                }
                let start = common::Stopwatch::start();
                h.step_server_only();
                total += start.elapsed();
                // Freeing the sent datagrams is the network thread's work, not the tick's.
                std::hint::black_box(h.discard_sent());
            }
            total
        });
    });
    group.finish();
    assert_eq!(
        h.world().resource::<PlayerIndex>().len(),
        PLAYERS as usize,
        "every session lasted the whole run"
    );
}

fn tick_vehicles(c: &mut Criterion) {
    let mut t = traffic::Traffic::new();
    let mut group = c.benchmark_group(
        "server tick, 1000 players with 500 vehicles driven at 30 frames a second and 1500 parked",
    );
    group.sample_size(20);
    group.bench_function(
        "vehicles: ingest + validation + streaming + election + relay",
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    t.send_tick();
                    let start = common::Stopwatch::start();
                    t.h.step_server_only();
                    total += start.elapsed();
                    std::hint::black_box(t.h.discard_sent());
                }
                total
            });
        },
    );
    group.finish();
    t.check_relays();
}

criterion_group!(benches, tick, tick_vehicles);
criterion_main!(benches);
