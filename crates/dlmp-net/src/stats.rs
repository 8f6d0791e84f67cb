//! Drop and traffic counters shared by the network thread and the app, readable at any
//! time (the periodic stats log line, the console `stats` command).

use std::sync::atomic::{AtomicU64, Ordering};

use super::ShedReason;
use dlmp_protocol::ErrorKind;

/// Why an inbound datagram was dropped before reaching the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// Strict decoding failed (connection.md §1), by kind.
    Decode(ErrorKind),
    /// The session token belongs to no live session.
    UnknownToken,
    /// The token is live but the datagram came from another address or port.
    WrongAddress,
    /// A hello past the per-address limit.
    RateLimited,
    /// The app's inbound queue was full.
    Overloaded,
    /// A live session's datagram past its inbound budget (docs/decisions/0019-inbound-budget.md).
    OverBudget,
    /// A server query past the per-IP limit (query.md).
    QueryLimited,
}

impl DropReason {
    /// Every reason, in counter order.
    pub fn all() -> impl Iterator<Item = DropReason> {
        ErrorKind::ALL.into_iter().map(DropReason::Decode).chain([
            DropReason::UnknownToken,
            DropReason::WrongAddress,
            DropReason::RateLimited,
            DropReason::Overloaded,
            DropReason::OverBudget,
            DropReason::QueryLimited,
        ])
    }

    fn index(self) -> usize {
        let decode = ErrorKind::ALL.len();
        match self {
            DropReason::Decode(kind) => kind.index(),
            DropReason::UnknownToken => decode,
            DropReason::WrongAddress => decode + 1,
            DropReason::RateLimited => decode + 2,
            DropReason::Overloaded => decode + 3,
            DropReason::OverBudget => decode + 4,
            DropReason::QueryLimited => decode + 5,
        }
    }

    /// A short stable name for logs.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Decode(kind) => kind.as_str(),
            DropReason::UnknownToken => "unknown_token",
            DropReason::WrongAddress => "wrong_address",
            DropReason::RateLimited => "rate_limited",
            DropReason::Overloaded => "overloaded",
            DropReason::OverBudget => "over_budget",
            DropReason::QueryLimited => "query_limited",
        }
    }
}

const REASONS: usize = ErrorKind::ALL.len() + 6;

/// Counters; cheap relaxed atomics, shared behind an `Arc`.
#[derive(Debug, Default)]
pub struct NetStats {
    drops: [AtomicU64; REASONS],
    received: AtomicU64,
    sent: AtomicU64,
    send_errors: AtomicU64,
    unproven_in: AtomicU64,
    unproven_out: AtomicU64,
    /// Outbound datagrams the app's queue shed, by [`ShedReason`] (relay, full, closed).
    shed: [AtomicU64; 3],
    queries: AtomicU64,
    /// Reliable-lane events resent (Go-Back-N), every session together.
    lane_resends: AtomicU64,
    /// Sessions ended because a critical event overflowed their lane (connection.md §3).
    lane_overflows: AtomicU64,
    /// Ticks in which the global send budget made lane traffic wait (ADR 0043).
    send_deferred: AtomicU64,
}

impl NetStats {
    pub fn count_drop(&self, reason: DropReason) {
        self.drops[reason.index()].fetch_add(1, Ordering::Relaxed);
    }

    pub fn drops(&self, reason: DropReason) -> u64 {
        self.drops[reason.index()].load(Ordering::Relaxed)
    }

    /// Every reason with a non-zero count.
    pub fn nonzero_drops(&self) -> Vec<(DropReason, u64)> {
        DropReason::all()
            .map(|r| (r, self.drops(r)))
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    pub fn total_drops(&self) -> u64 {
        DropReason::all().map(|r| self.drops(r)).sum()
    }

    /// A datagram decoded and handed to the app.
    pub fn received(&self) {
        self.received.fetch_add(1, Ordering::Relaxed);
    }

    pub fn received_count(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }

    pub fn sent(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    pub fn sent_count(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    pub fn send_error(&self) {
        self.send_errors.fetch_add(1, Ordering::Relaxed);
    }

    pub fn send_error_count(&self) -> u64 {
        self.send_errors.load(Ordering::Relaxed)
    }

    /// A server query answered (query.md).
    pub fn query_answered(&self) {
        self.queries.fetch_add(1, Ordering::Relaxed);
    }

    pub fn queries_answered(&self) -> u64 {
        self.queries.load(Ordering::Relaxed)
    }

    /// Bytes received from addresses that have not proven their session (hellos and
    /// anything else from an address without a proven session; ADR 0018).
    pub fn unproven_received(&self, bytes: usize) {
        self.unproven_in
            .fetch_add(u64::try_from(bytes).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    pub fn unproven_received_bytes(&self) -> u64 {
        self.unproven_in.load(Ordering::Relaxed)
    }

    /// Bytes sent to addresses that have not proven their session: ServerHellos and
    /// ConnectRefused. Never more than [`unproven_received_bytes`](Self::unproven_received_bytes).
    pub fn unproven_sent(&self, bytes: usize) {
        self.unproven_out
            .fetch_add(u64::try_from(bytes).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    pub fn unproven_sent_bytes(&self) -> u64 {
        self.unproven_out.load(Ordering::Relaxed)
    }

    /// An outbound datagram shed before the sending thread (net/outbound.rs).
    pub fn count_shed(&self, reason: ShedReason) {
        self.shed[shed_index(reason)].fetch_add(1, Ordering::Relaxed);
    }

    pub fn shed_count(&self, reason: ShedReason) -> u64 {
        self.shed[shed_index(reason)].load(Ordering::Relaxed)
    }

    /// `n` lane events resent this tick.
    pub fn lane_resent(&self, n: usize) {
        self.lane_resends
            .fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    pub fn lane_resend_count(&self) -> u64 {
        self.lane_resends.load(Ordering::Relaxed)
    }

    /// A session's lane overflowed.
    pub fn lane_overflowed(&self) {
        self.lane_overflows.fetch_add(1, Ordering::Relaxed);
    }

    pub fn lane_overflow_count(&self) -> u64 {
        self.lane_overflows.load(Ordering::Relaxed)
    }

    /// A tick's lane traffic waited for the send budget.
    pub fn send_deferred(&self) {
        self.send_deferred.fetch_add(1, Ordering::Relaxed);
    }

    pub fn send_deferred_count(&self) -> u64 {
        self.send_deferred.load(Ordering::Relaxed)
    }

    /// One line for the periodic stats log.
    pub fn summary(&self) -> String {
        let drops: Vec<String> = self
            .nonzero_drops()
            .iter()
            .map(|(r, n)| format!("{}={n}", r.as_str()))
            .collect();
        format!(
            "received={} sent={} send_errors={} unproven_bytes_in={} unproven_bytes_out={} shed[relay={} full={}] queries={} drops[{}]",
            self.received_count(),
            self.sent_count(),
            self.send_error_count(),
            self.unproven_received_bytes(),
            self.unproven_sent_bytes(),
            self.shed_count(ShedReason::Relay),
            self.shed_count(ShedReason::Full),
            self.queries_answered(),
            drops.join(" ")
        )
    }
}

fn shed_index(reason: ShedReason) -> usize {
    match reason {
        ShedReason::Relay => 0,
        ShedReason::Full => 1,
        ShedReason::Closed => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_its_own_counter() {
        let stats = NetStats::default();
        for (i, r) in DropReason::all().enumerate() {
            for _ in 0..=i {
                stats.count_drop(r);
            }
        }
        for (i, r) in DropReason::all().enumerate() {
            assert_eq!(stats.drops(r), i as u64 + 1, "{}", r.as_str());
        }
        assert_eq!(DropReason::all().count(), REASONS);
    }
}
