//! Ingest per fixed step (issue 11): a step takes only the datagrams that arrived before its
//! deadline; the rest wait for the next step. Arrivals are stamped on the harness's manual
//! clock (`Harness::send_at`), so nothing here sleeps or depends on the machine's speed.

use std::time::Duration;

use dlmp::harness::Harness;
use dlmp::protocol::connection::chat::{ChatText, ClientChat};
use dlmp::protocol::connection::handshake::ServerHello;
use dlmp::protocol::ids::EventId;

fn chat(h: &Harness, client: dlmp::harness::ClientId, text: &str) -> ClientChat {
    ClientChat {
        session_token: h.token(client),
        event_id: EventId(1),
        text: ChatText::new(text).expect("short"),
    }
}

#[test]
fn a_datagram_that_arrives_after_the_deadline_waits_for_the_next_step() {
    let mut h = Harness::new();
    let alice = h.connect("alice");
    let bob = h.connect("bob");
    h.steps(2);
    let tick = h.tick();
    // Half a tick after the coming step's deadline.
    let at = h.now() + tick + tick / 2;
    let line = chat(&h, alice, "late");
    h.send_at(alice, line, at);
    h.step();
    assert!(h.chat_lines(bob).is_empty(), "taken before it arrived");
    h.step();
    assert_eq!(h.chat_lines(bob), ["alice: late"]);
}

#[test]
fn a_datagram_that_arrives_exactly_at_the_deadline_is_taken_by_that_step() {
    let mut h = Harness::new();
    let alice = h.connect("alice");
    let bob = h.connect("bob");
    let at = h.now() + h.tick();
    let line = chat(&h, alice, "on time");
    h.send_at(alice, line, at);
    h.step();
    assert_eq!(h.chat_lines(bob), ["alice: on time"]);
}

#[test]
fn a_late_backlog_is_shared_out_step_by_step_in_arrival_order() {
    // What a runner that woke 3 ticks late sees: three ticks' worth queued at once. Each
    // step takes only its own tick's datagrams (a hello each here), in arrival order.
    let mut h = Harness::new();
    let tick = h.tick();
    let clients: Vec<_> = (0..3).map(|_| h.add_client()).collect();
    let t0 = h.now();
    for (i, &c) in clients.iter().enumerate() {
        let hello = h.client_hello(c, &format!("late{i}"));
        let arrives = t0 + tick * (i as u32) + Duration::from_millis(1);
        h.send_at(c, hello, arrives);
    }
    for (step, &c) in clients.iter().enumerate() {
        h.step();
        for (i, &other) in clients.iter().enumerate() {
            let answered = !h.packets::<ServerHello>(other).is_empty();
            assert_eq!(answered, i <= step, "step {step}: hello {i}");
        }
        assert_eq!(h.packets::<ServerHello>(c).len(), 1);
    }
}
