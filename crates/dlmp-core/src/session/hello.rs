//! Handling a decoded ClientHello (connection.md §2): the per-address hello limit, the
//! refusals, repeated hellos and the replacement of a session by a new hello from its
//! address. Decisions the spec left open: docs/decisions/0004-sessions.md.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use super::ratelimit::{RateLimit, TokenBucket, WindowLimit};
use super::registry::{Ended, InsertError, NewSession, Session, Sessions};
use dlmp_protocol::connection::handshake::{
    ClientHello, ConnectRefused, LeaveReason, Protocol, RefuseReason, ServerHello, check_name,
};
use dlmp_protocol::ids::PlayerId;

/// What the ServerHello tells about the world at connect; the caller reads it from the
/// world's state (world.md SetTime, SetWeather, GarageDoors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldInfo {
    /// 0..=23.
    pub hours: u8,
    /// 0..=59.
    pub minutes: u8,
    /// 0..=22.
    pub weather: u8,
    /// GarageDoors mask; bits 50..63 zero.
    pub garage_open: u64,
    /// The server's simulation rate.
    pub tick_hz: u16,
}

impl Default for WorldInfo {
    /// 12:00, weather 0, every garage closed, 50 Hz (connection.md §7).
    fn default() -> Self {
        WorldInfo {
            hours: 12,
            minutes: 0,
            weather: 0,
            garage_open: 0,
            tick_hz: 50,
        }
    }
}

/// The ServerHello for `session` on a server of `max_players` with `world`: the one way
/// to build it. [`Session::server_hello`] rebuilds it from the snapshot the session keeps,
/// so a repeated hello gets the same bytes.
#[must_use]
pub fn server_hello(session: &Session, max_players: u16, world: &WorldInfo) -> ServerHello {
    ServerHello {
        nonce: session.nonce(),
        session_token: session.session_token(),
        player_id: session.id(),
        player_token: session.token(),
        max_players,
        hours: world.hours,
        minutes: world.minutes,
        weather: world.weather,
        garage_open: world.garage_open,
        tick_hz: world.tick_hz,
    }
}

/// Hellos per source IP in any [`HELLO_WINDOW`] (connection.md §2: "at most 4 a second").
pub const HELLOS_PER_WINDOW: usize = 4;

/// The window of [`HELLOS_PER_WINDOW`].
pub const HELLO_WINDOW: Duration = Duration::from_secs(1);

/// Live sessions from one IP by default: a LAN party behind one address still fits
/// (ADR 0018).
pub const MAX_SESSIONS_PER_IP: usize = 16;

/// The hello limit of one IP.
type HelloWindow = WindowLimit<HELLOS_PER_WINDOW>;

/// The limits of the hello gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelloLimits {
    /// Live sessions per source IP; a hello past it is refused as server full (reason 0).
    /// Default [`MAX_SESSIONS_PER_IP`] (ADR 0018).
    pub max_sessions_per_ip: usize,
    /// Refused attempts per source IP before it is refused with reason 5 (too many
    /// attempts). Default: 8 at once, one more every 10 s (ADR 0004).
    pub failures_per_ip: RateLimit,
    /// Addresses (and IPs) the gate tracks at most; past it, after a prune, hellos from new
    /// addresses are ignored ([`Ignored::Busy`]). Default 4096.
    pub max_tracked: usize,
    /// Unproven sessions per source IP; a hello past it makes room by ending the IP's
    /// oldest unproven session. Default [`MAX_UNPROVEN_PER_IP`] (ADR 0087).
    pub max_unproven_per_ip: usize,
}

/// Unproven sessions one IP holds at most, as many as the hellos it may send in a second:
/// a real client proves its session within one round trip, so a household of players
/// joining at once stays below it (ADR 0087).
pub const MAX_UNPROVEN_PER_IP: usize = 4;

impl Default for HelloLimits {
    fn default() -> Self {
        HelloLimits {
            max_sessions_per_ip: MAX_SESSIONS_PER_IP,
            failures_per_ip: RateLimit::every(8, Duration::from_secs(10)),
            max_tracked: 4096,
            max_unproven_per_ip: MAX_UNPROVEN_PER_IP,
        }
    }
}

/// Why a hello got no answer at all. Counted by the caller, like decoding drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ignored {
    /// Over the per-IP hello limit (connection.md §2).
    RateLimited,
    /// The gate tracks [`HelloLimits::max_tracked`] addresses already (a flood from many
    /// sources); the client resends and gets in once it calms down.
    Busy,
    /// No session token could be drawn; nothing changed, the client resends.
    NoToken(InsertError),
}

impl Ignored {
    /// A short name for counters and logs.
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            Ignored::RateLimited => "rate_limited",
            Ignored::Busy => "busy",
            Ignored::NoToken(_) => "no_token",
        }
    }
}

/// What became of a hello.
#[derive(Debug, Clone, PartialEq)]
pub enum HelloOutcome {
    /// A new session: send `hello`, then the player is "connected, not spawned" (PlayerJoin
    /// to everyone, `player_connect`). If `replaced`, that session ended first; if
    /// `evicted`, the oldest unproven session (of this IP, or of all) ended to make room
    /// (ADR 0087).
    Accepted {
        hello: ServerHello,
        replaced: Option<Ended>,
        /// Boxed: a rare case that would double every outcome's size.
        evicted: Option<Box<Ended>>,
    },
    /// The same address and nonce as a live session: send `hello` again, identical.
    Repeated { hello: ServerHello },
    /// Send `answer`. If `replaced`, the session at this address ended all the same.
    Refused {
        answer: ConnectRefused,
        replaced: Option<Ended>,
    },
    /// No answer, nothing changed.
    Ignored(Ignored),
}

impl HelloOutcome {
    /// The session this hello ended (reason [`LeaveReason::Timeout`]): the caller
    /// broadcasts PlayerLeave for it and raises `player_disconnect`. It sends no
    /// Disconnect: the address now belongs to the new client.
    #[must_use]
    pub fn replaced(&self) -> Option<&Ended> {
        match self {
            HelloOutcome::Accepted { replaced, .. } | HelloOutcome::Refused { replaced, .. } => {
                replaced.as_ref()
            }
            HelloOutcome::Repeated { .. } | HelloOutcome::Ignored(_) => None,
        }
    }

    /// The unproven session this hello's acceptance ended to make room (reason
    /// [`LeaveReason::Timeout`]); it was never sent anything but its ServerHello.
    #[must_use]
    pub fn evicted(&self) -> Option<&Ended> {
        match self {
            HelloOutcome::Accepted { evicted, .. } => evicted.as_deref(),
            _ => None,
        }
    }
}

/// Refused attempts of one IP.
#[derive(Debug, Clone, Copy)]
struct Failures {
    budget: TokenBucket,
    /// The last charged hello, so its resends are not charged again.
    last: Option<(SocketAddr, u32)>,
}

/// The hello gate: per-IP hello limits, session caps and refused-attempt budgets. The
/// sessions and the ban set live in [`Sessions`].
#[derive(Debug, Clone, Default)]
pub struct HelloGate {
    limits: HelloLimits,
    rate: HashMap<IpAddr, HelloWindow>,
    failures: HashMap<IpAddr, Failures>,
    last_prune: Option<Duration>,
    /// Unproven sessions ended to make room for a new hello (ADR 0087).
    evictions: u64,
}

impl HelloGate {
    #[must_use]
    pub fn new(limits: HelloLimits) -> Self {
        HelloGate {
            limits,
            ..HelloGate::default()
        }
    }

    #[must_use]
    pub fn limits(&self) -> HelloLimits {
        self.limits
    }

    /// Unproven sessions ended so far to make room for a new hello.
    #[must_use]
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// Handles a decoded (so well-formed) `hello` from `from` at `now`. `world` is the
    /// world right now; an accepted session keeps it for its ServerHello.
    ///
    /// In order: over the IP's hello limit (every hello counts, accepted ones and repeats
    /// too) → ignored; same address and nonce as a live session → repeated; a session at
    /// this address with another nonce ends; then refusals: banned (4), too many attempts
    /// (5), wrong protocol (1), invalid name (2), name in use (3, ignoring ASCII case),
    /// server full (0: no free slot, the IP's session cap, or the unproven cap, ADR 0018);
    /// otherwise accepted.
    pub fn handle(
        &mut self,
        sessions: &mut Sessions,
        hello: &ClientHello,
        from: SocketAddr,
        now: Duration,
        world: &WorldInfo,
    ) -> HelloOutcome {
        if let Err(ignored) = self.take_hello(from, now) {
            return HelloOutcome::Ignored(ignored);
        }
        let old = sessions.by_addr(from).map(|s| (s.id(), s.nonce()));
        if let Some((id, nonce)) = old
            && nonce == hello.nonce
            && let Some(session) = sessions.get(id)
        {
            return HelloOutcome::Repeated {
                hello: session.server_hello(),
            };
        }
        let old = old.map(|(id, _)| id);
        let refusal = self.refusal(sessions, hello, from, now, old);
        let refused = |reason, replaced| HelloOutcome::Refused {
            answer: ConnectRefused {
                nonce: hello.nonce,
                reason,
            },
            replaced,
        };
        if let Some(reason) = refusal {
            let replaced = old.and_then(|id| sessions.remove(id)).map(timed_out);
            return refused(reason, replaced);
        }
        let Some(evict) = self.unproven_room(sessions, from.ip(), old, now) else {
            let replaced = old.and_then(|id| sessions.remove(id)).map(timed_out);
            return refused(RefuseReason::ServerFull, replaced);
        };
        let new = NewSession {
            addr: from,
            nonce: hello.nonce,
            name: hello.name,
        };
        match sessions.insert(new, *world, now) {
            Ok(inserted) => {
                let evicted = evict
                    .and_then(|id| sessions.remove(id))
                    .map(|s| Box::new(timed_out(s)));
                self.evictions += u64::from(evicted.is_some());
                HelloOutcome::Accepted {
                    hello: inserted.session.server_hello(),
                    replaced: inserted.replaced.map(timed_out),
                    evicted,
                }
            }
            Err(InsertError::Full) => refused(RefuseReason::ServerFull, None),
            Err(e) => HelloOutcome::Ignored(Ignored::NoToken(e)),
        }
    }

    /// Forgets addresses and IPs whose buckets are full again at `now`: they carry no
    /// memory. [`handle`](Self::handle) calls it when a table reaches its cap; the caller
    /// may also call it now and then (say once a second).
    pub fn prune(&mut self, now: Duration) {
        self.rate.retain(|_, w| !w.is_empty(now));
        self.failures.retain(|_, f| !f.budget.is_full(now));
        self.last_prune = Some(now);
    }

    /// Addresses and IPs tracked right now.
    #[must_use]
    pub fn tracked(&self) -> usize {
        self.rate.len() + self.failures.len()
    }

    fn take_hello(&mut self, from: SocketAddr, now: Duration) -> Result<(), Ignored> {
        let ip = from.ip().to_canonical();
        if !self.rate.contains_key(&ip) {
            if self.rate.len() >= self.limits.max_tracked {
                self.prune_lazily(now);
            }
            if self.rate.len() >= self.limits.max_tracked {
                return Err(Ignored::Busy);
            }
        }
        let window = self
            .rate
            .entry(ip)
            .or_insert_with(|| HelloWindow::new(HELLO_WINDOW));
        if window.try_take(now) {
            Ok(())
        } else {
            Err(Ignored::RateLimited)
        }
    }

    /// Prunes at most once a second: a table at its cap under a flood is not scanned on
    /// every hello.
    fn prune_lazily(&mut self, now: Duration) {
        let lately = self
            .last_prune
            .is_some_and(|t| now.saturating_sub(t) < Duration::from_secs(1));
        if !lately {
            self.prune(now);
        }
    }

    fn refusal(
        &mut self,
        sessions: &Sessions,
        hello: &ClientHello,
        from: SocketAddr,
        now: Duration,
        replacing: Option<PlayerId>,
    ) -> Option<RefuseReason> {
        let ip = from.ip().to_canonical();
        if sessions.is_banned(ip) {
            return Some(RefuseReason::Banned);
        }
        if self
            .failures
            .get(&ip)
            .is_some_and(|f| f.budget.available(now) == 0)
        {
            return Some(RefuseReason::TooManyAttempts);
        }
        let charged = if Protocol::of(hello.protocol).is_none() {
            RefuseReason::WrongProtocol
        } else if check_name("name", &hello.name).is_err() {
            RefuseReason::InvalidName
        } else if sessions
            .find_name(hello.name.as_str())
            .is_some_and(|s| Some(s.id()) != replacing)
        {
            RefuseReason::NameInUse
        } else if self.no_room(sessions, ip, replacing) {
            return Some(RefuseReason::ServerFull);
        } else {
            return None;
        };
        self.charge(ip, from, hello.nonce, now);
        Some(charged)
    }

    /// No room for a new session from `ip` (the one being replaced does not count): every
    /// slot taken, or the IP at its session cap.
    fn no_room(&self, sessions: &Sessions, ip: IpAddr, replacing: Option<PlayerId>) -> bool {
        let replaced = replacing.and_then(|id| sessions.get(id));
        let freed = usize::from(replaced.is_some());
        (sessions.is_full() && replaced.is_none())
            || sessions.count_at_ip(ip) - freed >= self.limits.max_sessions_per_ip
    }

    /// Room among the unproven sessions for one more from `ip` (the one being replaced
    /// does not count): `Some(None)` when there is room, `Some(Some(id))` when the oldest
    /// unproven session `id` (the IP's own when the IP is at its cap, otherwise anyone's)
    /// must end first, `None` when every unproven session opened in this very tick
    /// (ADR 0087). A hello that replaces a proven session at its own address (a client that
    /// restarted) counts against neither cap: it takes the slot it frees, from an address
    /// that proved it receives, so a reconnect of every player at once gets everyone in.
    fn unproven_room(
        &self,
        sessions: &mut Sessions,
        ip: IpAddr,
        replacing: Option<PlayerId>,
        now: Duration,
    ) -> Option<Option<PlayerId>> {
        let replaced = replacing.and_then(|id| sessions.get(id));
        if replaced.is_some_and(|s| s.is_proven()) {
            return Some(None);
        }
        let freed = usize::from(replaced.is_some());
        if sessions.unproven_at(ip) - freed >= self.limits.max_unproven_per_ip {
            return sessions.oldest_unproven(Some(ip), now, replacing).map(Some);
        }
        if sessions.unproven() - freed >= sessions.max_unproven() {
            return sessions.oldest_unproven(None, now, replacing).map(Some);
        }
        Some(None)
    }

    /// Charges a refused attempt to `ip`, once per (address, nonce).
    fn charge(&mut self, ip: IpAddr, from: SocketAddr, nonce: u32, now: Duration) {
        if !self.failures.contains_key(&ip) {
            if self.failures.len() >= self.limits.max_tracked {
                self.prune_lazily(now);
            }
            if self.failures.len() >= self.limits.max_tracked {
                return;
            }
        }
        let limit = self.limits.failures_per_ip;
        let failures = self.failures.entry(ip).or_insert_with(|| Failures {
            budget: TokenBucket::new(limit, now),
            last: None,
        });
        if failures.last != Some((from, nonce)) {
            failures.last = Some((from, nonce));
            failures.budget.try_take(now);
        }
    }
}

fn timed_out(session: Session) -> Ended {
    Ended {
        session,
        reason: LeaveReason::Timeout,
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::connection::handshake::{MAGIC, PROTOCOL_VERSION};
    use dlmp_protocol::text::FixedText;

    fn addr(ip: u8, port: u16) -> SocketAddr {
        SocketAddr::from(([192, 168, 0, ip], port))
    }

    fn hello(nonce: u32, name: &str) -> ClientHello {
        ClientHello {
            magic: MAGIC,
            protocol: PROTOCOL_VERSION,
            nonce,
            name: FixedText::new(name).unwrap(),
            pad: [0; 29],
        }
    }

    fn at(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn server_hello_takes_the_session_and_the_world() {
        let mut sessions = Sessions::new(8);
        let world = WorldInfo {
            hours: 7,
            minutes: 30,
            weather: 9,
            garage_open: 0b101,
            tick_hz: 30,
        };
        let mut gate = HelloGate::default();
        let HelloOutcome::Accepted { hello: sh, .. } = gate.handle(
            &mut sessions,
            &hello(42, "Ryder"),
            addr(1, 1),
            at(0),
            &world,
        ) else {
            panic!("not accepted");
        };
        let session = sessions.get(sh.player_id).unwrap();
        assert_eq!(sh, server_hello(session, 8, &world));
        assert_eq!(
            (sh.nonce, sh.max_players, sh.hours, sh.minutes, sh.weather),
            (42, 8, 7, 30, 9)
        );
        assert_eq!((sh.garage_open, sh.tick_hz), (0b101, 30));
        let mut buf = [0; 64];
        assert_eq!(dlmp_protocol::packet::Packet::encode(&sh, &mut buf), Ok(36));
    }

    #[rstest]
    #[case::wrong_protocol(RefuseReason::WrongProtocol)]
    #[case::invalid_name(RefuseReason::InvalidName)]
    #[case::name_in_use(RefuseReason::NameInUse)]
    fn refusals_that_are_charged(#[case] reason: RefuseReason) {
        let mut sessions = Sessions::new(8);
        let mut gate = HelloGate::new(HelloLimits {
            failures_per_ip: RateLimit::every(2, Duration::from_secs(10)),
            ..HelloLimits::default()
        });
        gate.handle(
            &mut sessions,
            &hello(1, "Sweet"),
            addr(9, 9),
            at(0),
            &WorldInfo::default(),
        );
        let bad = |nonce| {
            let mut h = hello(nonce, "Smoke");
            match reason {
                RefuseReason::WrongProtocol => h.protocol = 3,
                RefuseReason::InvalidName => h.name = FixedText::new("Sm").unwrap(),
                _ => h.name = FixedText::new("SWEET").unwrap(),
            }
            h
        };
        let mut outcome = |nonce, port| match gate.handle(
            &mut sessions,
            &bad(nonce),
            addr(1, port),
            at(0),
            &WorldInfo::default(),
        ) {
            HelloOutcome::Refused { answer, .. } => answer.reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(outcome(1, 1), reason);
        // A resend of the same hello is not charged again.
        assert_eq!(outcome(1, 1), reason);
        assert_eq!(outcome(2, 2), reason);
        assert_eq!(outcome(3, 3), RefuseReason::TooManyAttempts);
    }

    #[test]
    fn prune_forgets_what_has_refilled() {
        let mut sessions = Sessions::new(8);
        let mut gate = HelloGate::default();
        let world = WorldInfo::default();
        gate.handle(&mut sessions, &hello(1, "x"), addr(1, 1), at(0), &world);
        gate.handle(&mut sessions, &hello(2, "Okay"), addr(2, 1), at(0), &world);
        // Two IPs' hello windows and one charged IP.
        assert_eq!(gate.tracked(), 3);
        gate.prune(at(999));
        assert_eq!(gate.tracked(), 3);
        gate.prune(at(1000));
        assert_eq!(gate.tracked(), 1);
        gate.prune(at(10_000));
        assert_eq!(gate.tracked(), 0);
    }

    #[test]
    fn ignored_kinds_for_counters() {
        assert_eq!(Ignored::RateLimited.kind(), "rate_limited");
        assert_eq!(Ignored::Busy.kind(), "busy");
        assert_eq!(
            Ignored::NoToken(InsertError::NoFreshToken).kind(),
            "no_token"
        );
    }
}
