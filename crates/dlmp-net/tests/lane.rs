//! connection.md §3, the reliable event lanes, as scenarios: an `OutboundLane` (server)
//! and a client-side `InboundLane` joined by a simulated link that loses, delays, reorders
//! and duplicates datagrams on a seeded schedule.

use std::time::Duration;

use dlmp_net::lane::{
    AckOutcome, DROPPABLE_LIMIT, Delivery, InboundLane, LaneHealth, NEW_PER_TICK, OutboundLane,
    PushError, QUEUE_LIMIT, SendKind, Verdict,
};
use dlmp_protocol::ids::EventId;
use rstest::rstest;

const TICK: Duration = Duration::from_millis(20);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// splitmix64: a tiny deterministic generator, so every schedule is reproducible by seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// Uniform in `0..=max`.
    fn upto(&mut self, max: u64) -> u64 {
        self.next() % (max + 1)
    }
}

/// How the simulated link treats datagrams (the same in both directions).
#[derive(Debug, Clone, Copy)]
struct LinkProfile {
    loss_percent: u64,
    dup_percent: u64,
    delay_ms: u64,
    /// Extra delay, uniform in 0..=jitter_ms, that keeps datagrams in order (a queue).
    jitter_ms: u64,
    /// These datagrams are held back 1..=reorder_ms more, and others overtake them.
    reorder_percent: u64,
    reorder_ms: u64,
}

/// One direction of the link: datagrams in transit with their arrival time.
struct Link<M> {
    profile: LinkProfile,
    in_transit: Vec<(Duration, u64, M)>,
    /// Arrival time of the latest in-order datagram: the next one does not overtake it.
    fifo_tail: Duration,
    sent: u64,
}

impl<M: Clone> Link<M> {
    fn new(profile: LinkProfile) -> Self {
        Self {
            profile,
            in_transit: Vec::new(),
            fifo_tail: Duration::ZERO,
            sent: 0,
        }
    }

    fn send(&mut self, rng: &mut Rng, now: Duration, msg: M) {
        let p = self.profile;
        let copies = if rng.chance(p.dup_percent) { 2 } else { 1 };
        for _ in 0..copies {
            self.sent += 1;
            if rng.chance(p.loss_percent) {
                continue;
            }
            let mut at = (now + ms(p.delay_ms + rng.upto(p.jitter_ms))).max(self.fifo_tail);
            if rng.chance(p.reorder_percent) {
                at += ms(1 + rng.upto(p.reorder_ms.saturating_sub(1)));
            } else {
                self.fifo_tail = at;
            }
            self.in_transit.push((at, self.sent, msg.clone()));
        }
    }

    /// Every datagram due by `now`, in arrival order.
    fn arrive(&mut self, now: Duration) -> Vec<M> {
        let (mut due, rest): (Vec<_>, Vec<_>) =
            self.in_transit.drain(..).partition(|(at, _, _)| *at <= now);
        self.in_transit = rest;
        due.sort_by_key(|&(at, order, _)| (at, order));
        due.into_iter().map(|(_, _, m)| m).collect()
    }
}

/// A server lane, a client receiver and the link between them, stepped tick by tick.
struct Sim {
    rng: Rng,
    now: Duration,
    server: OutboundLane<u64>,
    client: InboundLane,
    down: Link<(EventId, u64)>,
    up: Link<EventId>,
    /// Payloads the client applied, in order.
    applied: Vec<u64>,
    /// Ids of the server's first transmissions, in order.
    first_sends: Vec<EventId>,
}

impl Sim {
    fn new(seed: u64, profile: LinkProfile, first: EventId) -> Self {
        Self {
            rng: Rng(seed),
            now: Duration::ZERO,
            server: OutboundLane::starting_at(first),
            client: InboundLane::starting_at(first),
            down: Link::new(profile),
            up: Link::new(profile),
            applied: Vec::new(),
            first_sends: Vec::new(),
        }
    }

    /// One server tick: take acks, transmit, let the client answer what arrived.
    fn tick(&mut self) {
        for ack in self.up.arrive(self.now) {
            self.server.on_ack(ack, self.now);
        }
        let mut out = Vec::new();
        self.server
            .poll(self.now, |t| out.push((t.id, *t.event, t.kind)));
        for (id, payload, kind) in out {
            if kind == SendKind::New {
                self.first_sends.push(id);
            }
            self.down.send(&mut self.rng, self.now, (id, payload));
        }
        for (id, payload) in self.down.arrive(self.now) {
            let (verdict, ack) = self.client.receive(id);
            if verdict == Verdict::Apply {
                self.applied.push(payload);
            }
            self.up.send(&mut self.rng, self.now, ack);
        }
        self.now += TICK;
    }
}

/// Pushes `total` events over time in random bursts and classes (a refused one is tried
/// again next tick, as a producer does), runs until all are acknowledged, and checks that
/// the client applied each exactly once, in order.
#[track_caller]
fn run_transfer(seed: u64, profile: LinkProfile, first: EventId, total: u64) -> Sim {
    let mut sim = Sim::new(seed, profile, first);
    let mut next_payload = 0;
    let deadline = ms(600_000);
    while next_payload < total || sim.server.waiting() > 0 {
        assert!(
            sim.now < deadline,
            "seed {seed}: no completion by {deadline:?}"
        );
        let burst = sim.rng.upto(12);
        for _ in 0..burst {
            if next_payload == total {
                break;
            }
            let delivery = match sim.rng.upto(9) {
                0 => Delivery::Critical,
                1..=3 => Delivery::Droppable,
                _ => Delivery::Normal,
            };
            match sim.server.push(next_payload, delivery) {
                Ok(id) => {
                    assert_eq!(id.0, first.0.wrapping_add(next_payload as u32));
                    next_payload += 1;
                }
                Err(PushError::QueueFull) => break,
                Err(e) => panic!("seed {seed}: {e}"),
            }
        }
        sim.tick();
        assert_eq!(
            sim.server.health(sim.now),
            LaneHealth::Healthy,
            "seed {seed}"
        );
    }
    assert_eq!(
        sim.applied,
        (0..total).collect::<Vec<_>>(),
        "seed {seed}: every event exactly once, in order"
    );
    assert_eq!(
        sim.client.last_applied().0,
        first.0.wrapping_add(total as u32).wrapping_sub(1)
    );
    let expected_first_sends: Vec<_> = (0..total)
        .map(|i| EventId(first.0.wrapping_add(i as u32)))
        .collect();
    assert_eq!(
        sim.first_sends, expected_first_sends,
        "seed {seed}: first sends in order"
    );
    sim
}

const CLEAN: LinkProfile = LinkProfile {
    loss_percent: 0,
    dup_percent: 0,
    delay_ms: 30,
    jitter_ms: 0,
    reorder_percent: 0,
    reorder_ms: 0,
};
const LOSSY: LinkProfile = LinkProfile {
    loss_percent: 5,
    dup_percent: 1,
    delay_ms: 20,
    jitter_ms: 40,
    reorder_percent: 1,
    reorder_ms: 60,
};
const REORDERING: LinkProfile = LinkProfile {
    loss_percent: 1,
    dup_percent: 5,
    delay_ms: 10,
    jitter_ms: 20,
    reorder_percent: 10,
    reorder_ms: 200,
};
const HOSTILE: LinkProfile = LinkProfile {
    loss_percent: 25,
    dup_percent: 5,
    delay_ms: 80,
    jitter_ms: 150,
    reorder_percent: 5,
    reorder_ms: 300,
};

#[rstest]
#[case::clean(CLEAN, 5)]
#[case::lossy(LOSSY, 60)]
#[case::reordering(REORDERING, 60)]
#[case::hostile(HOSTILE, 30)]
fn every_event_arrives_exactly_once_and_in_order(#[case] profile: LinkProfile, #[case] seeds: u64) {
    for seed in 0..seeds {
        run_transfer(seed, profile, EventId(1), 400);
    }
}

#[test]
fn a_clean_link_needs_no_resend() {
    let sim = run_transfer(7, CLEAN, EventId(1), 400);
    assert_eq!(sim.down.sent, 400);
    // 30 ms each way, seen at 20 ms ticks: 40 + 40.
    assert_eq!(sim.server.rtt().srtt(), Some(ms(80)));
}

#[rstest]
#[case::lossy(LOSSY)]
#[case::hostile(HOSTILE)]
fn event_ids_wrap_across_u32_max_on_the_link(#[case] profile: LinkProfile) {
    for seed in 0..10 {
        run_transfer(seed, profile, EventId(u32::MAX - 150), 300);
    }
}

#[test]
fn a_lost_event_holds_back_the_ones_after_it_until_resent() {
    let mut server = OutboundLane::new();
    let mut client = InboundLane::new();
    for i in 0..3 {
        server.push(i, Delivery::Normal).unwrap();
    }
    let mut sent = Vec::new();
    server.poll(ms(0), |t| sent.push(t.id));
    // Event 1 is lost; 2 and 3 arrive and are not applied; the acks say 0.
    assert_eq!(client.receive(sent[1]), (Verdict::Future, EventId(0)));
    assert_eq!(client.receive(sent[2]), (Verdict::Future, EventId(0)));
    assert_eq!(server.on_ack(EventId(0), ms(40)), AckOutcome::Stale);
    // The timeout passes: all three go again, oldest first.
    let mut resent = Vec::new();
    server.poll(ms(500), |t| resent.push(t.id));
    assert_eq!(resent, sent);
    let acks: Vec<_> = resent.iter().map(|&id| client.receive(id)).collect();
    assert_eq!(
        acks,
        [
            (Verdict::Apply, EventId(1)),
            (Verdict::Apply, EventId(2)),
            (Verdict::Apply, EventId(3))
        ]
    );
    assert_eq!(server.on_ack(EventId(3), ms(540)), AckOutcome::Advanced(3));
    // Karn: every acked event had been sent twice, so no RTT sample.
    assert_eq!(server.rtt().srtt(), None);
}

/// Measures the RTT over a clean link with a fixed one-way delay by `warmup_events`
/// events, then cuts the link and returns the times one more event was transmitted during
/// the next 5 s.
fn send_times(one_way_ms: u64, warmup_events: u64) -> Vec<Duration> {
    let profile = LinkProfile {
        delay_ms: one_way_ms,
        ..CLEAN
    };
    let mut sim = Sim::new(0, profile, EventId(1));
    for i in 0..warmup_events {
        sim.server
            .push(i, Delivery::Normal)
            .expect("an empty queue has room");
        for _ in 0..20 {
            sim.tick();
        }
    }
    assert_eq!(sim.server.waiting(), 0);
    let watched = sim
        .server
        .push(999, Delivery::Normal)
        .expect("an empty queue has room");
    let mut times = Vec::new();
    for _ in 0..250 {
        let now = sim.now;
        sim.server.poll(now, |t| {
            assert_eq!(t.id, watched);
            times.push(now);
        });
        sim.now += TICK;
    }
    times
}

fn gaps(times: &[Duration]) -> Vec<u64> {
    times
        .windows(2)
        .map(|w| (w[1] - w[0]).as_millis() as u64)
        .collect()
}

#[test]
fn before_any_sample_resends_wait_500_ms_then_1_s() {
    assert_eq!(gaps(&send_times(60, 0))[..4], [500, 1000, 1000, 1000]);
}

#[test]
fn timeout_adapts_to_the_measured_rtt_and_doubles_up_to_1_s() {
    // RTT 120 ms (60 each way, tick-aligned): timeout 240, then 480, 960, 1000, 1000.
    assert_eq!(gaps(&send_times(60, 3))[..4], [240, 480, 960, 1000]);
}

#[test]
fn timeout_never_drops_below_100_ms() {
    // 20 ms RTT: 2 × SRTT = 40 ms, raised to 100.
    assert_eq!(gaps(&send_times(0, 3))[..5], [100, 200, 400, 800, 1000]);
}

#[test]
fn a_burst_goes_out_64_new_events_a_tick() {
    let mut sim = Sim::new(1, CLEAN, EventId(1));
    for i in 0..QUEUE_LIMIT as u64 {
        sim.server.push(i, Delivery::Normal).unwrap();
    }
    let mut per_tick = Vec::new();
    while sim.server.unsent() > 0 {
        let now = sim.now;
        per_tick.push(sim.server.poll(now, |_| {}).new);
        sim.now += TICK;
    }
    assert_eq!(per_tick, vec![NEW_PER_TICK; QUEUE_LIMIT / NEW_PER_TICK]);
}

#[test]
fn a_silent_client_stalls_the_lane_15_s_after_the_first_send() {
    let dead = LinkProfile {
        loss_percent: 100,
        ..CLEAN
    };
    let mut sim = Sim::new(2, dead, EventId(1));
    for _ in 0..10 {
        sim.tick(); // idle: nothing outstanding, no stall clock
    }
    let start = sim.now;
    sim.server.push(0, Delivery::Critical).unwrap();
    while sim.now < start + ms(15_000) {
        assert_eq!(sim.server.health(sim.now), LaneHealth::Healthy);
        sim.tick();
    }
    assert_eq!(sim.server.health(start + ms(15_000)), LaneHealth::Stalled);
}

#[test]
fn queue_limits_count_sent_and_unsent_events_alike() {
    let mut sim = Sim::new(
        3,
        LinkProfile {
            loss_percent: 100,
            ..CLEAN
        },
        EventId(1),
    );
    for i in 0..DROPPABLE_LIMIT as u64 - 1 {
        sim.server.push(i, Delivery::Normal).unwrap();
    }
    sim.tick(); // 64 in flight, the rest unsent
    assert!(sim.server.push(0, Delivery::Droppable).is_ok()); // the 480th
    assert_eq!(
        sim.server.push(0, Delivery::Droppable),
        Err(PushError::QueueFull)
    );
    for _ in DROPPABLE_LIMIT..QUEUE_LIMIT {
        sim.server.push(0, Delivery::Normal).unwrap();
    }
    assert_eq!(
        sim.server.push(0, Delivery::Normal),
        Err(PushError::QueueFull)
    );
    assert_eq!(
        sim.server.push(0, Delivery::Critical),
        Err(PushError::Overflowed(EventId(513)))
    );
    assert_eq!(sim.server.health(sim.now), LaneHealth::Overflowed);
}
