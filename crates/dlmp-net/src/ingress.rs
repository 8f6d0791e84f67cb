//! The one decode-and-count step every inbound datagram takes (connection.md §1): the
//! network thread runs it on what the socket reads, the test harness on what its virtual
//! clients send, so both paths drop and count exactly the same bytes.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::log_limit::LogLimit;
use super::ratelimit::WindowLimit;
use super::sessions::SessionBoard;
use super::{DropReason, Inbound, NetStats};
use dlmp_protocol::connection::handshake::ClientHello;
use dlmp_protocol::{ClientPacket, ErrorKind, MAX_DATAGRAM, Packet};

/// Hellos one IP may send in any second (connection.md §2): past it they are dropped here,
/// before decoding, as the app's hello gate would drop them.
const HELLOS_PER_SECOND: usize = 4;
/// IPs whose hello windows are kept at most; past it, full windows are forgotten.
const MAX_HELLO_IPS: usize = 4096;

/// Decodes datagrams strictly, counting each failure by its [`DropReason`] in a
/// [`NetStats`] and logging it at debug level, rate-limited. With the app's
/// [`SessionBoard`] it first drops, without decoding, what no session takes: a token that
/// is not live or not from its session's address, a hello past its IP's limit (ADR 0088).
#[derive(Debug, Default)]
pub struct Decoder {
    log: LogLimit,
    sessions: Option<Arc<SessionBoard>>,
    hellos: HashMap<IpAddr, WindowLimit<HELLOS_PER_SECOND>>,
    started: Option<Instant>,
}

/// Whether `id` is a client packet that carries its session token right after its id
/// (every one but ClientHello), from the packets' own declarations.
fn carries_token(id: u8) -> bool {
    static TABLE: OnceLock<[bool; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [false; 256];
        for doc in ClientPacket::DOCS {
            if doc
                .fields
                .first()
                .is_some_and(|f| f.name == "session_token")
            {
                table[usize::from(doc.id)] = true;
            }
        }
        table
    })[usize::from(id)]
}

/// Whether a datagram passed the early checks, and why not.
enum Early {
    Pass,
    Drop(DropReason),
}

impl Decoder {
    /// A decoder that drops what no live session of `sessions` takes before decoding it.
    #[must_use]
    pub fn with_sessions(sessions: Arc<SessionBoard>) -> Self {
        Decoder {
            sessions: Some(sessions),
            ..Decoder::default()
        }
    }

    /// The early checks, with the board's live sessions as of this batch: a hello is
    /// limited per IP; every other client packet carries its session token right after its
    /// id, which must be live and from its session's address.
    fn early(
        &mut self,
        bytes: &[u8],
        from: SocketAddr,
        at: Instant,
        live: Option<&HashMap<u64, SocketAddr>>,
    ) -> Early {
        let Some(live) = live else {
            return Early::Pass;
        };
        if bytes.first() == Some(&ClientHello::ID) {
            let started = *self.started.get_or_insert(at);
            let now = at.saturating_duration_since(started);
            let ip = from.ip().to_canonical();
            if !self.hellos.contains_key(&ip) && self.hellos.len() >= MAX_HELLO_IPS {
                self.hellos.retain(|_, w| !w.is_empty(now));
            }
            let window = self
                .hellos
                .entry(ip)
                .or_insert_with(|| WindowLimit::new(Duration::from_secs(1)));
            return if window.try_take(now) {
                Early::Pass
            } else {
                Early::Drop(DropReason::RateLimited)
            };
        }
        // An id no client packet has, or one too short to carry its token: decoding
        // refuses it at once, by its kind.
        if !bytes.first().is_some_and(|&id| carries_token(id)) {
            return Early::Pass;
        }
        let Some(token) = bytes.get(1..9).and_then(|t| <[u8; 8]>::try_from(t).ok()) else {
            return Early::Pass;
        };
        match live.get(&u64::from_le_bytes(token)) {
            Some(addr) if *addr == from => Early::Pass,
            Some(_) => Early::Drop(DropReason::WrongAddress),
            None => Early::Drop(DropReason::UnknownToken),
        }
    }

    /// The live sessions of the board, if this decoder has one: taken once a batch.
    pub fn live_sessions(&self) -> Option<Arc<HashMap<u64, SocketAddr>>> {
        self.sessions.as_ref().map(|b| b.load())
    }

    /// As [`decode`](Self::decode), after the early checks against `live` (the board's
    /// sessions of this batch, [`live_sessions`](Self::live_sessions)).
    pub fn take(
        &mut self,
        bytes: &[u8],
        from: SocketAddr,
        at: Instant,
        stats: &NetStats,
        live: Option<&HashMap<u64, SocketAddr>>,
    ) -> Option<Inbound> {
        if bytes.len() <= MAX_DATAGRAM
            && let Early::Drop(reason) = self.early(bytes, from, at, live)
        {
            stats.count_drop(reason);
            return None;
        }
        self.decode(bytes, from, at, stats)
    }

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

    #[test]
    fn every_client_packet_but_the_hello_carries_its_token_right_after_its_id() {
        for doc in ClientPacket::DOCS {
            let first = doc.fields.first().map(|f| (f.name, f.size));
            if doc.id == ClientHello::ID {
                assert!(!carries_token(doc.id), "{}", doc.name);
            } else {
                assert_eq!(first, Some(("session_token", 8)), "{}", doc.name);
                assert!(carries_token(doc.id), "{}", doc.name);
            }
        }
    }

    #[test]
    fn with_the_sessions_a_stranger_is_dropped_before_decoding_and_a_member_decoded() {
        use dlmp_protocol::connection::lane::ClientAck;
        use dlmp_protocol::ids::{EventId, SessionToken};
        let board = Arc::new(SessionBoard::default());
        let member = SocketAddr::from(([127, 0, 0, 1], 2000));
        board.publish(HashMap::from([(7, member)]));
        let mut decoder = Decoder::with_sessions(Arc::clone(&board));
        let stats = NetStats::default();
        let live = decoder.live_sessions();
        let ack = |token| {
            ClientAck {
                session_token: SessionToken(token),
                event_id: EventId(0),
            }
            .to_bytes()
            .expect("valid")
        };
        let now = Instant::now();
        assert!(
            decoder
                .take(&ack(7), member, now, &stats, live.as_deref())
                .is_some()
        );
        let other = SocketAddr::from(([127, 0, 0, 1], 2001));
        assert!(
            decoder
                .take(&ack(7), other, now, &stats, live.as_deref())
                .is_none()
        );
        assert!(
            decoder
                .take(&ack(8), member, now, &stats, live.as_deref())
                .is_none()
        );
        assert_eq!(stats.drops(DropReason::WrongAddress), 1);
        assert_eq!(stats.drops(DropReason::UnknownToken), 1);
        assert_eq!(stats.total_drops(), 2, "neither reached the decoder");
    }
}
