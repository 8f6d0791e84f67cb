//! The global send budget of one tick (docs/decisions/0043-join-storm-send-budget.md):
//! how many datagrams all sessions together may be sent in a tick before lane traffic
//! waits for the next one.
//!
//! Issue 11 measured what a restart of a popular server does without it: 1000-2000
//! clients joining at 200 hellos a second, the roster fan-out (every newcomer's PlayerJoin
//! to everyone, everyone's to the newcomer) and its resends saturate the network thread,
//! the server's own receive buffer overflows, acks are lost, more is resent, and about
//! 1000 sessions time out at once. Lane traffic (resends, new events; the roster reaches a
//! lane through [`crate::session::connection::ROSTER_WINDOW`]) can wait a tick without breaking a rule
//! of connection.md §3, and its critical events are delayed, never dropped. Everything
//! else that leaves in a tick (the ServerAck, relays and other unreliable packets, hello
//! answers) is bound to its tick and is never held, but it counts against the budget.

/// The tick's budget and what has been spent of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendPace {
    budget: usize,
    /// Datagrams begun this tick, every kind.
    used: usize,
    /// Of those, the ones begun for lane traffic.
    lane_used: usize,
    /// A lane transmission was refused this tick.
    deferred: bool,
}

impl SendPace {
    /// A tick's pace of `budget` datagrams.
    pub const fn new(budget: usize) -> Self {
        SendPace {
            budget,
            used: 0,
            lane_used: 0,
            deferred: false,
        }
    }

    /// No limit: every lane transmission goes (a session's last datagrams as it ends).
    pub const fn unlimited() -> Self {
        Self::new(usize::MAX)
    }

    /// The share of the budget that stays for lane traffic however much else the tick
    /// sent (relays of a crowded server must not starve the lanes: a show, a chat line, a
    /// PlayerJoin still go, at this pace).
    fn reserve(&self) -> usize {
        self.budget / 4
    }

    /// Counts `datagrams` begun for what is never held (acks, unreliable packets, hello
    /// answers).
    pub fn charge(&mut self, datagrams: usize) {
        self.used = self.used.saturating_add(datagrams);
    }

    /// Whether a lane transmission that begins `datagrams` more (0 when it joins a bundle
    /// already begun, else 1) may go now; if so it is counted. A refusal is remembered
    /// ([`deferred`](Self::deferred)).
    pub fn allow_lane(&mut self, datagrams: usize) -> bool {
        let ok = datagrams == 0 || self.used < self.budget || self.lane_used < self.reserve();
        if ok {
            self.used = self.used.saturating_add(datagrams);
            self.lane_used = self.lane_used.saturating_add(datagrams);
        } else {
            self.deferred = true;
        }
        ok
    }

    /// Datagrams begun this tick.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Whether some lane transmission had to wait this tick.
    pub fn deferred(&self) -> bool {
        self.deferred
    }

    /// Forgets that a refusal happened (the flush asks per connection).
    pub fn take_deferred(&mut self) -> bool {
        std::mem::take(&mut self.deferred)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_traffic_goes_until_the_budget_is_spent() {
        let mut pace = SendPace::new(8);
        assert!((0..8).all(|_| pace.allow_lane(1)));
        assert!(!pace.allow_lane(1));
        assert!(pace.deferred());
        // Joining a bundle already begun costs nothing and always goes.
        assert!(pace.allow_lane(0));
        assert_eq!(pace.used(), 8);
    }

    #[test]
    fn a_quarter_of_the_budget_stays_for_lanes_whatever_else_was_sent() {
        let mut pace = SendPace::new(100);
        pace.charge(1000);
        assert!((0..25).all(|_| pace.allow_lane(1)));
        assert!(!pace.allow_lane(1));
    }

    #[test]
    fn unlimited_never_refuses() {
        let mut pace = SendPace::unlimited();
        pace.charge(usize::MAX);
        assert!((0..10_000).all(|_| pace.allow_lane(1)));
        assert!(!pace.deferred());
    }
}
