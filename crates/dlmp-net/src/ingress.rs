//! The one decode-and-count step every inbound datagram takes (connection.md §1): the
//! network thread runs it on what the socket reads, the test harness on what its virtual
//! clients send, so both paths drop and count exactly the same bytes.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::{DropReason, Inbound, NetStats};
use dlmp_protocol::{ClientPacket, ErrorKind, MAX_DATAGRAM};

/// The window of the debug-log rate limit.
const LOG_WINDOW: Duration = Duration::from_secs(1);

/// Log lines of one kind per [`LOG_WINDOW`]; the rest are counted and reported on the next.
const LOG_BURST: u32 = 5;

/// Decodes datagrams strictly, counting each failure by its [`DropReason`] in a
/// [`NetStats`] and logging it at debug level, rate-limited.
#[derive(Debug, Default)]
pub struct Decoder {
    log: LogLimit,
}

impl Decoder {
    /// The packet in `bytes` from `from`, read at `at`, or `None` when it fails decoding
    /// (oversized, wrong length, unknown id, a broken rule): that drop is counted in `stats`.
    pub fn decode(
        &mut self,
        bytes: &[u8],
        from: SocketAddr,
        at: Instant,
        stats: &NetStats,
    ) -> Option<Inbound> {
        if bytes.len() > MAX_DATAGRAM {
            stats.count_drop(DropReason::Decode(ErrorKind::Length));
            if tracing::enabled!(tracing::Level::DEBUG)
                && let Some(suppressed) = self.log.allow(Instant::now())
            {
                tracing::debug!(%from, max = MAX_DATAGRAM, suppressed, "dropped oversized datagram");
            }
            return None;
        }
        match ClientPacket::decode(bytes) {
            Ok(packet) => Some(Inbound { from, packet, at }),
            Err(err) => {
                stats.count_drop(DropReason::Decode(err.kind()));
                if tracing::enabled!(tracing::Level::DEBUG)
                    && let Some(suppressed) = self.log.allow(Instant::now())
                {
                    tracing::debug!(%from, error = %err, suppressed, "dropped datagram");
                }
                None
            }
        }
    }
}

/// At most [`LOG_BURST`] lines per [`LOG_WINDOW`] for one kind of event.
#[derive(Debug, Default)]
pub(crate) struct LogLimit {
    window_start: Option<Instant>,
    logged: u32,
    suppressed: u64,
}

impl LogLimit {
    /// `Some(n)` if a line may be logged at `now`, `n` being how many were suppressed since
    /// the last one; `None` if this one is suppressed.
    pub(crate) fn allow(&mut self, now: Instant) -> Option<u64> {
        let new_window = self
            .window_start
            .is_none_or(|start| now.saturating_duration_since(start) >= LOG_WINDOW);
        if new_window {
            self.window_start = Some(now);
            self.logged = 0;
        }
        if self.logged < LOG_BURST {
            self.logged += 1;
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_limit_allows_a_burst_a_window_and_reports_the_rest() {
        let t0 = Instant::now();
        let mut limit = LogLimit::default();
        for _ in 0..LOG_BURST {
            assert_eq!(limit.allow(t0), Some(0));
        }
        for i in 0..10 {
            assert_eq!(limit.allow(t0 + Duration::from_millis(i * 50)), None);
        }
        assert_eq!(limit.allow(t0 + LOG_WINDOW), Some(10));
        assert_eq!(limit.allow(t0 + LOG_WINDOW), Some(0));
    }

    #[test]
    fn failures_are_counted_by_kind_and_never_reach_the_app() {
        let stats = NetStats::default();
        let mut decoder = Decoder::default();
        let from = SocketAddr::from(([127, 0, 0, 1], 1));
        assert!(
            decoder
                .decode(&[0xEE], from, Instant::now(), &stats)
                .is_none()
        );
        assert!(
            decoder
                .decode(&[0u8; MAX_DATAGRAM + 1], from, Instant::now(), &stats)
                .is_none()
        );
        assert_eq!(stats.drops(DropReason::Decode(ErrorKind::Length)), 1);
        assert_eq!(stats.total_drops(), 2);
    }
}
