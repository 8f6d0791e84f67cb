//! The sending half of a reliable event lane (connection.md §3): the server's queue of
//! events for one recipient, their event ids, Go-Back-N resends, the queue limits and the
//! stall.
//!
//! The rules this file settles where the page is silent are in
//! docs/decisions/0003-reliable-lane.md.

use std::collections::VecDeque;
use std::time::Duration;

use super::rtt::RttEstimator;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::serial::Serial;

/// At most this many events wait per recipient; a critical event past it overflows the lane.
pub const QUEUE_LIMIT: usize = 512;
/// A droppable event is refused once this many events wait (32 places stay for critical).
pub const DROPPABLE_LIMIT: usize = 480;
/// At most this many new events go out per recipient per tick (resends not counted).
pub const NEW_PER_TICK: usize = 64;
/// A drained queue with more capacity than this gives it back, keeping [`SHRINK_BELOW`].
const SHRINK_ABOVE: usize = 128;
/// See [`SHRINK_ABOVE`].
const SHRINK_BELOW: usize = 32;
/// Events outstanding and no ack progress for this long: the lane has stalled.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(15);

/// How hard the lane tries to take an event (connection.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Always queued; the pages say "critical" or "delivery is critical".
    Critical,
    /// Queued while fewer than [`QUEUE_LIMIT`] wait.
    Normal,
    /// A show or hide of a streamed thing, a periodic resync: queued while fewer than
    /// [`DROPPABLE_LIMIT`] wait.
    Droppable,
}

/// Why [`OutboundLane::push`] did not simply queue an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PushError {
    /// A normal or droppable event found no room and was not queued ("queue full"); the
    /// producer may try again on its next pass.
    QueueFull,
    /// A critical event was queued under this id, and the lane now holds more than
    /// [`QUEUE_LIMIT`] events: the session must end (Disconnect reason 2).
    Overflowed(EventId),
}

impl std::fmt::Display for PushError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PushError::QueueFull => f.write_str("queue full"),
            PushError::Overflowed(id) => write!(f, "reliable lane overflowed at event {}", id.0),
        }
    }
}

impl std::error::Error for PushError {}

/// What an ack did (connection.md §3: "an ack of an event not yet sent, or lower than the
/// previous ack, changes nothing").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AckOutcome {
    /// The ack released this many events (at least 1).
    Advanced(usize),
    /// The ack is not newer than the previous one: nothing changed.
    Stale,
    /// The ack names an event not yet sent: nothing changed.
    NotSent,
}

/// Whether the session may go on (connection.md §2 "Timeouts", §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneHealth {
    /// Nothing wrong.
    Healthy,
    /// A critical event pushed the queue past [`QUEUE_LIMIT`]; permanent.
    Overflowed,
    /// Events are in flight and no ack has advanced for [`STALL_TIMEOUT`].
    Stalled,
}

/// Whether a transmission is an event's first or a resend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendKind {
    /// The event's first transmission.
    New,
    /// A Go-Back-N resend.
    Resend,
}

/// One event to put on the wire this tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transmission<'a, T> {
    /// The event's id, to write into its packet.
    pub id: EventId,
    /// The event.
    pub event: &'a T,
    /// First transmission or resend.
    pub kind: SendKind,
}

/// How many transmissions one [`OutboundLane::poll`] produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Polled {
    /// Resends (Go-Back-N).
    pub resent: usize,
    /// First transmissions, at most [`NEW_PER_TICK`].
    pub new: usize,
}

#[derive(Debug)]
struct Entry<T> {
    id: EventId,
    event: T,
    /// Transmissions so far (Karn's rule samples only 1); 0 = not yet sent.
    sends: u32,
    /// Time of the latest transmission (meaningless while `sends == 0`).
    last_sent: Duration,
}

/// The server → client half of a reliable event lane, for one recipient.
///
/// The queue holds every unacknowledged event, oldest first: first the `in_flight` ones
/// (sent at least once), then the ones not yet sent. Ids are assigned by
/// [`push`](Self::push), from 1, wrapping u32.
///
/// ```
/// # use std::time::Duration;
/// # use dlmp_net::lane::{Delivery, OutboundLane};
/// # use dlmp_protocol::ids::EventId;
/// let mut lane = OutboundLane::new();
/// assert_eq!(lane.push("hello", Delivery::Normal), Ok(EventId(1)));
/// let mut sent = Vec::new();
/// lane.poll(Duration::ZERO, |t| sent.push((t.id, *t.event)));
/// assert_eq!(sent, [(EventId(1), "hello")]);
/// lane.on_ack(EventId(1), Duration::from_millis(40));
/// assert_eq!(lane.waiting(), 0);
/// ```
#[derive(Debug)]
pub struct OutboundLane<T> {
    queue: VecDeque<Entry<T>>,
    /// The front entries that have been sent at least once.
    in_flight: usize,
    /// The latest acknowledged id (one before the first id while nothing is acked).
    acked: EventId,
    /// The id the next pushed event gets.
    next_id: EventId,
    rtt: RttEstimator,
    /// Times the oldest event has been resent because its own timeout passed: the
    /// doublings of its timeout. Back to 0 whenever an ack advances.
    head_resends: u32,
    /// Start of the stall clock: the latest ack advance, or the first send into an empty
    /// flight window, whichever came later.
    progress_at: Duration,
    overflowed: bool,
}

impl<T> Default for OutboundLane<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> OutboundLane<T> {
    /// An empty lane whose first event gets id 1.
    pub fn new() -> Self {
        Self::starting_at(EventId(1))
    }

    /// An empty lane whose first event gets `first`. The protocol always starts at 1
    /// ([`new`](Self::new)); other starts exist to test the wrap of ids.
    pub fn starting_at(first: EventId) -> Self {
        Self {
            queue: VecDeque::new(),
            in_flight: 0,
            acked: EventId(first.0.wrapping_sub(1)),
            next_id: first,
            rtt: RttEstimator::new(),
            head_resends: 0,
            progress_at: Duration::ZERO,
            overflowed: false,
        }
    }

    /// Queues `event` under the rules of its delivery class and returns its id at once.
    ///
    /// - Critical: always queued; `Err(Overflowed(id))` when more than [`QUEUE_LIMIT`] now
    ///   wait.
    /// - Normal: `Err(QueueFull)` when [`QUEUE_LIMIT`] or more wait.
    /// - Droppable: `Err(QueueFull)` when [`DROPPABLE_LIMIT`] or more wait.
    pub fn push(&mut self, event: T, delivery: Delivery) -> Result<EventId, PushError> {
        let limit = match delivery {
            Delivery::Critical => usize::MAX,
            Delivery::Normal => QUEUE_LIMIT,
            Delivery::Droppable => DROPPABLE_LIMIT,
        };
        if self.queue.len() >= limit {
            return Err(PushError::QueueFull);
        }
        let id = self.next_id;
        self.next_id = id.next();
        self.queue.push_back(Entry {
            id,
            event,
            sends: 0,
            last_sent: Duration::ZERO,
        });
        if self.queue.len() > QUEUE_LIMIT {
            self.overflowed = true;
            return Err(PushError::Overflowed(id));
        }
        Ok(id)
    }

    /// How many events of class `delivery` [`push`](Self::push) would take now without
    /// refusing them or overflowing (to check in advance that a group of events fits).
    pub fn room(&self, delivery: Delivery) -> usize {
        let limit = match delivery {
            Delivery::Critical | Delivery::Normal => QUEUE_LIMIT,
            Delivery::Droppable => DROPPABLE_LIMIT,
        };
        limit.saturating_sub(self.queue.len())
    }

    /// Takes a cumulative ack (ClientAck): every event up to `ack` was applied.
    ///
    /// An ack not newer than the previous one, or of an event not yet sent, changes
    /// nothing. An advance restarts the stall clock, gives the new oldest event the
    /// undoubled timeout and, if the newest acknowledged event was sent only once, gives
    /// an RTT sample (Karn's rule).
    pub fn on_ack(&mut self, ack: EventId, now: Duration) -> AckOutcome {
        if !ack.is_newer_than(self.acked) {
            return AckOutcome::Stale;
        }
        let Some(newest_sent) = self.in_flight.checked_sub(1).map(|i| self.queue[i].id) else {
            return AckOutcome::NotSent;
        };
        if ack.is_newer_than(newest_sent) {
            return AckOutcome::NotSent;
        }
        let mut released = 0;
        while let Some(entry) = self.queue.pop_front() {
            released += 1;
            if entry.id == ack {
                if entry.sends == 1 {
                    self.rtt.sample(now.saturating_sub(entry.last_sent));
                }
                break;
            }
        }
        self.in_flight -= released;
        // A burst (a newcomer's roster) grows the queue to hundreds of entries; its
        // capacity is given back once it drained, so a thousand idle lanes do not keep a
        // burst's memory each (issue 11: memory linear in players).
        if self.queue.len() <= SHRINK_BELOW && self.queue.capacity() > SHRINK_ABOVE {
            self.queue.shrink_to(SHRINK_BELOW);
        }
        self.acked = ack;
        self.head_resends = 0;
        self.progress_at = now;
        AckOutcome::Advanced(released)
    }

    /// Produces this tick's transmissions, in the order they must go out, through `out`.
    ///
    /// First the resends: when the oldest in-flight event's timeout has passed (its latest
    /// send + [`RttEstimator::rto_after`] the times it was resent for its own timeout), it
    /// and every in-flight event after it are resent, oldest first (Go-Back-N). Then up to
    /// [`NEW_PER_TICK`] events not yet sent, in id order.
    pub fn poll(&mut self, now: Duration, mut out: impl FnMut(Transmission<'_, T>)) -> Polled {
        self.poll_paced(now, |t| {
            out(t);
            true
        })
    }

    /// [`poll`](Self::poll) under a pace: `send` puts each transmission on the wire and
    /// says whether it did; the first refusal ends the poll (ADR 0043, the global send
    /// budget). A refused transmission is not counted as sent. A refused resend leaves the
    /// rest of the window for the next timeout; a Go-Back-N round whose first resend is
    /// refused is no round (its timeout does not double) and is tried again next tick;
    /// refused new events wait in order.
    pub fn poll_paced(
        &mut self,
        now: Duration,
        mut send: impl FnMut(Transmission<'_, T>) -> bool,
    ) -> Polled {
        let mut polled = Polled::default();
        if let Some(oldest) = self.queue.front()
            && self.in_flight > 0
            && now >= oldest.last_sent + self.rtt.rto_after(self.head_resends)
        {
            for entry in self.queue.iter_mut().take(self.in_flight) {
                let sent = send(Transmission {
                    id: entry.id,
                    event: &entry.event,
                    kind: SendKind::Resend,
                });
                if !sent {
                    break;
                }
                entry.sends = entry.sends.saturating_add(1);
                entry.last_sent = now;
                polled.resent += 1;
            }
            if polled.resent == 0 {
                return polled;
            }
            self.head_resends = self.head_resends.saturating_add(1);
            if polled.resent < self.in_flight {
                return polled;
            }
        }
        if self.in_flight == 0 && !self.queue.is_empty() {
            self.progress_at = now;
        }
        for entry in self
            .queue
            .iter_mut()
            .skip(self.in_flight)
            .take(NEW_PER_TICK)
        {
            let sent = send(Transmission {
                id: entry.id,
                event: &entry.event,
                kind: SendKind::New,
            });
            if !sent {
                break;
            }
            entry.sends = 1;
            entry.last_sent = now;
            polled.new += 1;
        }
        self.in_flight += polled.new;
        polled
    }

    /// Whether the session may go on, read at `now`. Overflow is permanent; a stall holds
    /// while events are in flight and `now` is [`STALL_TIMEOUT`] or more past the latest
    /// ack advance (or the first send into an empty window, if later).
    pub fn health(&self, now: Duration) -> LaneHealth {
        if self.overflowed {
            LaneHealth::Overflowed
        } else if self.in_flight > 0 && now.saturating_sub(self.progress_at) >= STALL_TIMEOUT {
            LaneHealth::Stalled
        } else {
            LaneHealth::Healthy
        }
    }

    /// Every unacknowledged event, sent or not: what the queue limits count.
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Events sent at least once and not yet acknowledged.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Events queued and never sent.
    pub fn unsent(&self) -> usize {
        self.queue.len() - self.in_flight
    }

    /// The latest acknowledged id (one before the first id while nothing is acknowledged).
    pub fn last_acked(&self) -> EventId {
        self.acked
    }

    /// The id the next pushed event will get.
    pub fn next_id(&self) -> EventId {
        self.next_id
    }

    /// Whether event `id` (pushed earlier, or acknowledged already) has been sent at
    /// least once: ids are consecutive, so every id up to the last acked one plus the
    /// in-flight ones has.
    pub fn is_sent(&self, id: EventId) -> bool {
        let newest_sent = EventId(self.acked.0.wrapping_add(self.in_flight as u32));
        !id.is_newer_than(newest_sent)
    }

    /// The round-trip estimator (SRTT, current timeout).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Polls and returns the ids sent, with their kinds.
    fn poll(lane: &mut OutboundLane<u32>, now: Duration) -> Vec<(u32, SendKind)> {
        let mut sent = Vec::new();
        lane.poll(now, |t| sent.push((t.id.0, t.kind)));
        sent
    }

    fn ids(sent: &[(u32, SendKind)]) -> Vec<u32> {
        sent.iter().map(|&(id, _)| id).collect()
    }

    fn filled(n: usize, delivery: Delivery) -> OutboundLane<u32> {
        let mut lane = OutboundLane::new();
        for i in 0..n {
            assert_ne!(lane.push(i as u32, delivery), Err(PushError::QueueFull));
        }
        lane
    }

    #[test]
    fn ids_start_at_one_and_count_up() {
        let mut lane = OutboundLane::new();
        assert_eq!(lane.push(10, Delivery::Normal), Ok(EventId(1)));
        assert_eq!(lane.push(11, Delivery::Critical), Ok(EventId(2)));
        assert_eq!(lane.push(12, Delivery::Droppable), Ok(EventId(3)));
        assert_eq!(lane.next_id(), EventId(4));
        assert_eq!(lane.last_acked(), EventId(0));
    }

    #[test]
    fn refused_events_take_no_id() {
        let mut lane = filled(DROPPABLE_LIMIT, Delivery::Normal);
        assert_eq!(lane.push(0, Delivery::Droppable), Err(PushError::QueueFull));
        assert_eq!(
            lane.push(0, Delivery::Normal),
            Ok(EventId(DROPPABLE_LIMIT as u32 + 1))
        );
    }

    #[rstest]
    #[case::droppable_479(Delivery::Droppable, 479, true)]
    #[case::droppable_480(Delivery::Droppable, 480, false)]
    #[case::normal_479(Delivery::Normal, 479, true)]
    #[case::normal_511(Delivery::Normal, 511, true)]
    #[case::normal_512(Delivery::Normal, 512, false)]
    fn refusal_thresholds(#[case] delivery: Delivery, #[case] waiting: usize, #[case] ok: bool) {
        let mut lane = filled(waiting, Delivery::Normal);
        assert_eq!(lane.push(7, delivery).is_ok(), ok);
        assert_eq!(lane.waiting(), waiting + usize::from(ok));
        assert_eq!(lane.health(Duration::ZERO), LaneHealth::Healthy);
    }

    #[test]
    fn sent_but_unacked_events_count_as_waiting() {
        let mut lane = filled(DROPPABLE_LIMIT, Delivery::Normal);
        let mut now = Duration::ZERO;
        while lane.unsent() > 0 {
            poll(&mut lane, now);
            now += ms(20);
        }
        assert_eq!(lane.in_flight(), DROPPABLE_LIMIT);
        assert_eq!(lane.push(0, Delivery::Droppable), Err(PushError::QueueFull));
        lane.on_ack(EventId(1), now);
        assert!(lane.push(0, Delivery::Droppable).is_ok());
    }

    #[test]
    fn critical_is_always_queued_and_overflows_past_512() {
        let mut lane = filled(QUEUE_LIMIT - 1, Delivery::Normal);
        assert_eq!(lane.push(0, Delivery::Critical), Ok(EventId(512)));
        assert_eq!(lane.health(Duration::ZERO), LaneHealth::Healthy);
        assert_eq!(lane.push(0, Delivery::Normal), Err(PushError::QueueFull));
        assert_eq!(
            lane.push(0, Delivery::Critical),
            Err(PushError::Overflowed(EventId(513)))
        );
        assert_eq!(lane.waiting(), 513);
        assert_eq!(lane.health(Duration::ZERO), LaneHealth::Overflowed);
        assert_eq!(
            lane.push(0, Delivery::Critical),
            Err(PushError::Overflowed(EventId(514)))
        );
        assert_eq!(lane.waiting(), 514);
    }

    #[test]
    fn overflow_is_permanent() {
        let mut lane = filled(QUEUE_LIMIT + 1, Delivery::Critical);
        let mut now = Duration::ZERO;
        while lane.unsent() > 0 {
            poll(&mut lane, now);
            now += ms(20);
        }
        lane.on_ack(EventId(513), now);
        assert_eq!(lane.waiting(), 0);
        assert_eq!(lane.health(now), LaneHealth::Overflowed);
    }

    #[rstest]
    #[case::empty(0, Delivery::Critical, 512)]
    #[case::empty_droppable(0, Delivery::Droppable, 480)]
    #[case::some(100, Delivery::Normal, 412)]
    #[case::droppable_full(490, Delivery::Droppable, 0)]
    #[case::normal_full(512, Delivery::Normal, 0)]
    #[case::overflowed(520, Delivery::Critical, 0)]
    fn room_left(#[case] waiting: usize, #[case] delivery: Delivery, #[case] room: usize) {
        let lane = filled(waiting, Delivery::Critical);
        assert_eq!(lane.room(delivery), room);
    }

    #[test]
    fn at_most_64_new_events_per_tick_in_order() {
        let mut lane = filled(150, Delivery::Normal);
        let first = poll(&mut lane, ms(0));
        assert_eq!(ids(&first), (1..=64).collect::<Vec<_>>());
        assert!(first.iter().all(|&(_, k)| k == SendKind::New));
        assert_eq!(
            ids(&poll(&mut lane, ms(20))),
            (65..=128).collect::<Vec<_>>()
        );
        assert_eq!(
            ids(&poll(&mut lane, ms(40))),
            (129..=150).collect::<Vec<_>>()
        );
        assert_eq!(poll(&mut lane, ms(60)), []);
        assert_eq!((lane.in_flight(), lane.unsent()), (150, 0));
    }

    #[test]
    fn a_new_event_waits_behind_older_unsent_ones() {
        let mut lane = filled(100, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.push(1000, Delivery::Critical).unwrap();
        assert_eq!(
            ids(&poll(&mut lane, ms(20))),
            (65..=101).collect::<Vec<_>>()
        );
    }

    #[test]
    fn cumulative_ack_releases_every_event_up_to_it() {
        let mut lane = filled(10, Delivery::Normal);
        poll(&mut lane, ms(0));
        assert_eq!(lane.on_ack(EventId(4), ms(50)), AckOutcome::Advanced(4));
        assert_eq!((lane.waiting(), lane.in_flight()), (6, 6));
        assert_eq!(lane.last_acked(), EventId(4));
        assert_eq!(lane.on_ack(EventId(10), ms(60)), AckOutcome::Advanced(6));
        assert_eq!(lane.waiting(), 0);
    }

    #[rstest]
    #[case::zero(0, AckOutcome::Stale)]
    #[case::lower(3, AckOutcome::Stale)]
    #[case::same(5, AckOutcome::Stale)]
    #[case::unsent(9, AckOutcome::NotSent)]
    #[case::beyond_queue(500, AckOutcome::NotSent)]
    #[case::far_past(u32::MAX - 5, AckOutcome::Stale)]
    fn acks_that_change_nothing(#[case] ack: u32, #[case] outcome: AckOutcome) {
        // 1..=8 sent, 9 queued but not sent, acked up to 5.
        let mut lane = filled(8, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.push(0, Delivery::Normal).unwrap();
        lane.on_ack(EventId(5), ms(10));
        let before = (
            lane.waiting(),
            lane.in_flight(),
            lane.last_acked(),
            *lane.rtt(),
        );
        assert_eq!(lane.on_ack(EventId(ack), ms(30)), outcome);
        assert_eq!(
            (
                lane.waiting(),
                lane.in_flight(),
                lane.last_acked(),
                *lane.rtt()
            ),
            before
        );
    }

    #[test]
    fn ack_before_anything_is_sent_changes_nothing() {
        let mut lane = filled(3, Delivery::Normal);
        assert_eq!(lane.on_ack(EventId(1), ms(0)), AckOutcome::NotSent);
        assert_eq!(lane.waiting(), 3);
    }

    #[test]
    fn first_resend_after_the_initial_timeout_then_doubling_capped() {
        let mut lane = filled(3, Delivery::Normal);
        poll(&mut lane, ms(0));
        assert_eq!(poll(&mut lane, ms(499)), []);
        let resent = poll(&mut lane, ms(500));
        assert_eq!(ids(&resent), [1, 2, 3]);
        assert!(resent.iter().all(|&(_, k)| k == SendKind::Resend));
        // Second resend: 1 s after the first (500 ms doubled), then 1 s each (the cap).
        assert_eq!(poll(&mut lane, ms(1499)), []);
        assert_eq!(ids(&poll(&mut lane, ms(1500))), [1, 2, 3]);
        assert_eq!(poll(&mut lane, ms(2499)), []);
        assert_eq!(ids(&poll(&mut lane, ms(2500))), [1, 2, 3]);
    }

    #[test]
    fn karn_samples_only_events_sent_once() {
        let mut lane = filled(2, Delivery::Normal);
        poll(&mut lane, ms(0));
        poll(&mut lane, ms(500)); // both resent
        lane.on_ack(EventId(1), ms(520));
        assert_eq!(lane.rtt().srtt(), None);
        lane.push(0, Delivery::Normal).unwrap();
        poll(&mut lane, ms(600)); // 3 sent once
        lane.on_ack(EventId(3), ms(660));
        assert_eq!(lane.rtt().srtt(), Some(ms(60)));
    }

    #[test]
    fn timeout_follows_the_measured_rtt() {
        let mut lane = filled(1, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.on_ack(EventId(1), ms(80));
        lane.push(0, Delivery::Normal).unwrap();
        poll(&mut lane, ms(100));
        assert_eq!(poll(&mut lane, ms(259)), []);
        assert_eq!(ids(&poll(&mut lane, ms(260))), [2]);
        assert_eq!(ids(&poll(&mut lane, ms(580))), [2]);
    }

    #[test]
    fn resends_go_before_new_events() {
        let mut lane = filled(2, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.push(0, Delivery::Normal).unwrap();
        let sent = poll(&mut lane, ms(500));
        assert_eq!(
            sent,
            [
                (1, SendKind::Resend),
                (2, SendKind::Resend),
                (3, SendKind::New)
            ]
        );
    }

    #[test]
    fn only_the_oldest_timer_triggers_go_back_n() {
        let mut lane = filled(1, Delivery::Normal);
        poll(&mut lane, ms(0));
        poll(&mut lane, ms(500)); // 1 resent once: next timeout 1 s
        lane.push(0, Delivery::Normal).unwrap();
        poll(&mut lane, ms(520)); // 2 sent: its own timeout would pass at 1020
        assert_eq!(poll(&mut lane, ms(1020)), []);
        assert_eq!(ids(&poll(&mut lane, ms(1500))), [1, 2]);
    }

    #[test]
    fn ack_progress_restarts_the_doubling_for_the_new_oldest_event() {
        let mut lane = filled(2, Delivery::Normal);
        poll(&mut lane, ms(0));
        poll(&mut lane, ms(500)); // 1 and 2 resent: 1's timer doubled to 1 s
        assert_eq!(ids(&poll(&mut lane, ms(1500))), [1, 2]);
        // 1 is acked: 2 heads the window with the undoubled timeout (no sample yet: 500 ms),
        // though it went out behind 1 twice; it doubles again if it keeps failing.
        lane.on_ack(EventId(1), ms(1510));
        assert_eq!(poll(&mut lane, ms(1999)), []);
        assert_eq!(ids(&poll(&mut lane, ms(2000))), [2]);
        assert_eq!(poll(&mut lane, ms(2999)), []);
        assert_eq!(ids(&poll(&mut lane, ms(3000))), [2]);
    }

    /// Polls under a pace that allows `n` transmissions.
    fn poll_n(lane: &mut OutboundLane<u32>, now: Duration, n: usize) -> Vec<(u32, SendKind)> {
        let mut sent = Vec::new();
        lane.poll_paced(now, |t| {
            let ok = sent.len() < n;
            if ok {
                sent.push((t.id.0, t.kind));
            }
            ok
        });
        sent
    }

    #[test]
    fn a_paced_poll_sends_new_events_in_order_up_to_the_pace() {
        let mut lane = filled(10, Delivery::Critical);
        assert_eq!(ids(&poll_n(&mut lane, ms(0), 4)), [1, 2, 3, 4]);
        assert_eq!(ids(&poll_n(&mut lane, ms(20), 0)), Vec::<u32>::new());
        assert_eq!(ids(&poll_n(&mut lane, ms(40), 100)), [5, 6, 7, 8, 9, 10]);
        assert_eq!((lane.in_flight(), lane.unsent()), (10, 0));
    }

    #[test]
    fn a_refused_resend_round_is_tried_again_next_tick_without_doubling() {
        let mut lane = filled(3, Delivery::Normal);
        poll(&mut lane, ms(0));
        assert_eq!(poll_n(&mut lane, ms(500), 0), []);
        // Not a round: the next tick resends the window on the undoubled timeout.
        assert_eq!(ids(&poll_n(&mut lane, ms(520), 10)), [1, 2, 3]);
        assert_eq!(poll(&mut lane, ms(1519)), []);
        assert_eq!(ids(&poll(&mut lane, ms(1520))), [1, 2, 3]);
    }

    #[test]
    fn a_partly_refused_resend_leaves_the_rest_and_sends_nothing_new() {
        let mut lane = filled(3, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.push(9, Delivery::Normal).unwrap();
        let sent = poll_n(&mut lane, ms(500), 2);
        assert_eq!(sent, [(1, SendKind::Resend), (2, SendKind::Resend)]);
        assert_eq!((lane.in_flight(), lane.unsent()), (3, 1));
        // The client acks what it got; the rest of the window heads it and is resent.
        lane.on_ack(EventId(2), ms(540));
        assert_eq!(
            poll(&mut lane, ms(560)),
            [(3, SendKind::Resend), (4, SendKind::New)]
        );
    }

    #[test]
    fn stall_after_exactly_15_s_without_ack_progress() {
        let mut lane = filled(2, Delivery::Normal);
        poll(&mut lane, ms(1000));
        assert_eq!(lane.health(ms(15_999)), LaneHealth::Healthy);
        assert_eq!(lane.health(ms(16_000)), LaneHealth::Stalled);
    }

    #[test]
    fn ack_progress_restarts_the_stall_clock() {
        let mut lane = filled(2, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.on_ack(EventId(1), ms(10_000));
        assert_eq!(lane.health(ms(24_999)), LaneHealth::Healthy);
        lane.on_ack(EventId(1), ms(12_000)); // stale: no progress
        assert_eq!(lane.health(ms(25_000)), LaneHealth::Stalled);
    }

    #[test]
    fn no_stall_without_events_in_flight() {
        let mut lane = filled(1, Delivery::Normal);
        poll(&mut lane, ms(0));
        lane.on_ack(EventId(1), ms(50));
        assert_eq!(lane.health(ms(100_000)), LaneHealth::Healthy);
        // The clock restarts at the first send into the empty window, not at the last ack.
        lane.push(0, Delivery::Normal).unwrap();
        poll(&mut lane, ms(100_000));
        assert_eq!(lane.health(ms(114_999)), LaneHealth::Healthy);
        assert_eq!(lane.health(ms(115_000)), LaneHealth::Stalled);
    }

    #[test]
    fn ids_wrap_across_u32_max() {
        let mut lane = OutboundLane::starting_at(EventId(u32::MAX - 1));
        let pushed: Vec<_> = (0..4)
            .map(|i| lane.push(i, Delivery::Normal).unwrap().0)
            .collect();
        assert_eq!(pushed, [u32::MAX - 1, u32::MAX, 0, 1]);
        assert_eq!(lane.last_acked(), EventId(u32::MAX - 2));
        assert_eq!(lane.on_ack(EventId(u32::MAX), ms(0)), AckOutcome::NotSent);
        poll(&mut lane, ms(0));
        assert_eq!(lane.on_ack(EventId(0), ms(10)), AckOutcome::Advanced(3));
        assert_eq!(lane.on_ack(EventId(u32::MAX), ms(20)), AckOutcome::Stale);
        assert_eq!(lane.on_ack(EventId(1), ms(30)), AckOutcome::Advanced(1));
        assert_eq!(lane.waiting(), 0);
    }
}
