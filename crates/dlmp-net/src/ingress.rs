//! The one decode-and-count step every inbound datagram takes (connection.md §1): the
//! network thread runs it on what the socket reads, the test harness on what its virtual
//! clients send, so both paths drop and count exactly the same bytes.

use std::net::SocketAddr;
use std::time::Instant;

use super::log_limit::LogLimit;
use super::{DropReason, Inbound, NetStats};
use dlmp_protocol::{ClientPacket, ErrorKind, MAX_DATAGRAM};

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

#[cfg(test)]
mod tests {
    use super::*;

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
