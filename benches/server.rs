//! The server at full house: one tick of the app with 1000 connected idle clients, and the
//! reliable lanes of 1000 recipients under 64 new events each per tick (the most a lane
//! sends per tick, connection.md §3).
//!
//! `cargo bench --bench server -- --warm-up-time 1 --measurement-time 5`

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::lane::{Delivery, NEW_PER_TICK, OutboundLane};
use dlmp::protocol::connection::chat::{ChatMessage, ChatText, Color};
use dlmp::protocol::ids::EventId;
use dlmp::protocol::{MAX_DATAGRAM, Packet};

const CLIENTS: u32 = 1000;

fn server_tick(c: &mut Criterion) {
    let (mut h, _) = common::full_house(CLIENTS);
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
