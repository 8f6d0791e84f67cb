//! The server at full house: one tick of the app with 1000 connected idle clients, and the
//! reliable lanes of 1000 recipients under 64 new events each per tick (the most a lane
//! sends per tick, connection.md §3).
//!
//! `cargo bench --bench server -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness};
use dlmp::lane::{Delivery, NEW_PER_TICK, OutboundLane};
use dlmp::protocol::connection::chat::{ChatMessage, ChatText, Color};
use dlmp::protocol::ids::EventId;
use dlmp::protocol::{MAX_DATAGRAM, Packet};
use dlmp::session::{Connection, PlayerIndex};

const CLIENTS: usize = 1000;

/// Ticks the setup may take to drain the lanes (the roster) before giving up.
const DRAIN_TICKS: usize = 2000;

/// A harness with [`CLIENTS`] connected clients and every lane empty.
///
/// All hellos go in before one tick (connecting one client per tick costs O(n²) in the
/// harness, as each step delivers to every client). Each newcomer then gets the other
/// 999 PlayerJoins, paced through its lane; the setup steps (clients auto-ack) until every
/// lane and roster backlog is empty, and checks that all 1000 are connected.
fn full_house() -> Harness {
    let mut h = Harness::with_config(Config {
        max_players: u16::try_from(CLIENTS).expect("fits u16"),
        // Idle clients send nothing: keep their sessions alive for the whole run.
        session_timeout_ms: 24 * 3600 * 1000,
        ..Harness::config()
    });
    let clients: Vec<ClientId> = (0..CLIENTS)
        .map(|i| {
            let c = h.add_client();
            let hello = h.client_hello(c, &format!("player{i:04}"));
            h.send(c, hello);
            c
        })
        .collect();
    h.step();
    let waiting = |h: &mut Harness| -> usize {
        let world = h.world_mut();
        world
            .query::<&Connection>()
            .iter(world)
            .map(|c| c.waiting() + c.roster_backlog())
            .sum()
    };
    for _ in 0..DRAIN_TICKS {
        if waiting(&mut h) == 0 {
            break;
        }
        h.step();
    }
    assert_eq!(waiting(&mut h), 0, "the lanes did not drain");
    assert_eq!(
        h.world().resource::<PlayerIndex>().len(),
        CLIENTS,
        "not every client is connected"
    );
    for c in clients {
        h.clear(c);
    }
    h
}

fn server_tick(c: &mut Criterion) {
    let mut h = full_house();
    c.bench_function("server tick, 1000 idle clients", |b| b.iter(|| h.step()));
}

/// An encoded ChatMessage: what a lane holds (Connection queues encoded bytes).
fn chat_event() -> Vec<u8> {
    let packet = ChatMessage {
        event_id: EventId(1),
        color: Color(0x00FF_FFFF),
        text: ChatText::new("alice: a line of chat of an ordinary length").expect("text"),
    };
    let mut buf = [0u8; MAX_DATAGRAM];
    let n = packet.encode(&mut buf).expect("a valid packet");
    buf[..n].to_vec()
}

/// One tick of 1000 lanes as the session plugin drives them: push 64 encoded events
/// each, poll (each transmission copied out, as `Connection::drain` does), then the
/// client's ack of all of them arrives. Every lane is empty again afterwards.
fn lane_tick(c: &mut Criterion) {
    let event = chat_event();
    let mut lanes: Vec<OutboundLane<Vec<u8>>> = (0..CLIENTS).map(|_| OutboundLane::new()).collect();
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(NEW_PER_TICK);
    let mut now = Duration::ZERO;
    let tick = Duration::from_millis(20);
    let mut group = c.benchmark_group("lane");
    group.sample_size(20);
    group.bench_function("1000 lanes x 64 events, push + poll + ack", |b| {
        b.iter(|| {
            now += tick;
            for lane in &mut lanes {
                let mut last = EventId(0);
                for _ in 0..NEW_PER_TICK {
                    last = lane
                        .push(event.clone(), Delivery::Normal)
                        .expect("room in the lane");
                }
                lane.poll(now, |t| out.push(t.event.clone()));
                black_box(&out);
                out.clear();
                lane.on_ack(last, now + tick / 2);
            }
        });
    });
    group.finish();
    assert!(lanes.iter().all(|l| l.waiting() == 0));
}

criterion_group!(benches, server_tick, lane_tick);
criterion_main!(benches);
