//! The inbound budget of one session (docs/decisions/0019-inbound-budget.md): how many
//! datagrams a live session may send before the rest are dropped, and when a session that
//! keeps sending past it is ended.
//!
//! The pages bound what a client sends: PlayerSync at most 50 a second (player.md), vehicle
//! frames 115 a second together (vehicles.md), chat 1 a second (connection.md §4), shots
//! and reports a few a second, and one ClientAck per reliable packet received (§3). The
//! budget is [`BUDGET`] on top of one datagram for every datagram the server sent the
//! session ([`InboundBudget::earn`]), so acks of a busy lane never count against a client.
//! Each datagram past it costs a strike; a session whose strikes run out ([`STRIKES`]) is
//! kicked.

use std::time::Duration;

use super::ratelimit::{RateLimit, TokenBucket};

/// Datagrams a session may send, besides its earned acks: 400 a second, 800 at once —
/// twice what the pages allow a player in a vehicle who shoots and chats.
pub const BUDGET: RateLimit = RateLimit::per_second(800, 400);

/// Datagrams past the budget a session may send before it is kicked: 1000, and 100 more
/// each second. A burst over the budget is dropped; only a sustained flood ends the session
/// (1000 frames a second are kicked within 3 s, 150 000 acks a second at once).
pub const STRIKES: RateLimit = RateLimit::per_second(1000, 100);

/// What became of one inbound datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Within the budget: take it.
    Take,
    /// Past the budget: drop it, counted.
    Drop,
    /// Past the budget and out of strikes: drop it and end the session.
    Kick,
}

/// One session's inbound budget and strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InboundBudget {
    budget: TokenBucket,
    strikes: TokenBucket,
}

impl InboundBudget {
    /// A full budget at `now`.
    #[must_use]
    pub const fn new(now: Duration) -> Self {
        InboundBudget {
            budget: TokenBucket::new(BUDGET, now),
            strikes: TokenBucket::new(STRIKES, now),
        }
    }

    /// Charges one datagram arriving at `now`.
    pub fn admit(&mut self, now: Duration) -> Admit {
        if self.budget.try_take(now) {
            Admit::Take
        } else if self.strikes.try_take(now) {
            Admit::Drop
        } else {
            Admit::Kick
        }
    }

    /// The server sent the session `datagrams`: the client may answer each one (an ack).
    pub fn earn(&mut self, datagrams: usize) {
        self.budget
            .give(u32::try_from(datagrams).unwrap_or(u32::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_client_at_the_pages_rates_is_never_dropped() {
        let mut b = InboundBudget::new(Duration::ZERO);
        // 50 frames + 115 vehicle frames + 50 acks + 10 more a second, for a minute.
        let per_second = 50 + 115 + 50 + 10;
        for i in 0..60 * per_second {
            let at = Duration::from_micros(i * 1_000_000 / per_second);
            assert_eq!(b.admit(at), Admit::Take, "datagram {i}");
        }
    }

    #[test]
    fn a_burst_past_the_budget_is_dropped_not_kicked() {
        let mut b = InboundBudget::new(Duration::ZERO);
        let admits: Vec<_> = (0..1500).map(|_| b.admit(ms(0))).collect();
        assert!(admits[..800].iter().all(|&a| a == Admit::Take));
        assert!(admits[800..].iter().all(|&a| a == Admit::Drop));
    }

    #[test]
    fn a_sustained_flood_is_kicked() {
        let mut b = InboundBudget::new(Duration::ZERO);
        // 1000 datagrams a second: 600 a second past the budget, 100 strikes back.
        let first_kick = (0..10_000u64).find(|i| b.admit(ms(*i)) == Admit::Kick);
        let at = first_kick.expect("kicked");
        assert!((2_000..3_500).contains(&at), "kicked at {at} ms");
    }

    #[test]
    fn earned_acks_keep_a_busy_lane_within_the_budget() {
        let mut b = InboundBudget::new(Duration::ZERO);
        // The server sends 64 events a tick for 10 s and the client acks every one.
        for tick in 0..500u64 {
            b.earn(64);
            for _ in 0..64 {
                assert_eq!(b.admit(ms(tick * 20)), Admit::Take, "tick {tick}");
            }
        }
    }
}
