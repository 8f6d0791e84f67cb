//! The live sessions (connection.md §1, §2, §5): player slots, generations, session
//! tokens, the address check on inbound packets, silence timeouts and the ban set.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use bitvec::vec::BitVec;

use super::budget::{Admit, InboundBudget};
use super::hello::{WorldInfo, server_hello};
use dlmp_protocol::connection::handshake::{LeaveReason, ServerHello};
use dlmp_protocol::ids::{PlayerId, PlayerToken, SessionToken};
use dlmp_protocol::text::FixedText;

/// A session with no accepted packet for this long ends, PlayerLeave reason 1
/// (connection.md §2, Timeouts). Default of [`Sessions::timeout`].
pub const SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// How many draws [`Sessions::insert`] makes for a fresh session token before it gives up.
const TOKEN_DRAWS: usize = 8;

/// A player name as the hello carries it (`u8 name[24]`).
pub type PlayerName = FixedText<24>;

/// Where session tokens come from: a CSPRNG ([`os_tokens`] by default). Tests inject their
/// own to exercise the "never 0, unique among live sessions" rule.
pub type TokenSource = Box<dyn FnMut() -> Result<u64, getrandom::Error> + Send + Sync>;

/// The operating system's CSPRNG (`getrandom`).
#[must_use]
pub fn os_tokens() -> TokenSource {
    Box::new(getrandom::u64)
}

/// One live session: a connected player.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Session {
    id: PlayerId,
    token: PlayerToken,
    session_token: SessionToken,
    addr: SocketAddr,
    nonce: u32,
    name: PlayerName,
    world: WorldInfo,
    max_players: u16,
    connected_at: Duration,
    last_heard: Duration,
    /// The client has sent a packet carrying its session token: it got the ServerHello at
    /// this address (ADR 0018).
    proven: bool,
    budget: InboundBudget,
}

impl Session {
    /// The player slot.
    #[must_use]
    pub fn id(&self) -> PlayerId {
        self.id
    }

    /// The slot's generation for this session (player_token), never 0.
    #[must_use]
    pub fn token(&self) -> PlayerToken {
        self.token
    }

    /// The random token the client puts in every packet, never 0.
    #[must_use]
    pub fn session_token(&self) -> SessionToken {
        self.session_token
    }

    /// The client's address and port; packets from anywhere else are strangers.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The nonce of the hello that opened the session.
    #[must_use]
    pub fn nonce(&self) -> u32 {
        self.nonce
    }

    #[must_use]
    pub fn name(&self) -> &PlayerName {
        &self.name
    }

    /// The world as the ServerHello reported it when the session opened.
    #[must_use]
    pub fn world(&self) -> &WorldInfo {
        &self.world
    }

    #[must_use]
    pub fn connected_at(&self) -> Duration {
        self.connected_at
    }

    /// When the last accepted packet (or the opening hello) arrived.
    #[must_use]
    pub fn last_heard(&self) -> Duration {
        self.last_heard
    }

    /// Whether the client proved it received the ServerHello (its first packet carrying the
    /// session token). Until then the server sends it nothing but the ServerHello and its
    /// repeats (ADR 0018).
    #[must_use]
    pub fn is_proven(&self) -> bool {
        self.proven
    }

    /// The ServerHello that opened this session; the same bytes answer a repeated hello.
    #[must_use]
    pub fn server_hello(&self) -> ServerHello {
        server_hello(self, self.max_players, &self.world)
    }
}

/// A session that ended, and why: the caller broadcasts PlayerLeave with `reason` to the
/// others and raises `player_disconnect` (connection.md §2, §4).
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    pub session: Session,
    pub reason: LeaveReason,
}

/// What a new session needs from its hello.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewSession {
    pub addr: SocketAddr,
    pub nonce: u32,
    pub name: PlayerName,
}

/// A session [`Sessions::insert`] opened (a copy), and the session it replaced at the same
/// address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inserted {
    pub session: Session,
    pub replaced: Option<Session>,
}

/// Why [`Sessions::insert`] opened nothing. Nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertError {
    /// Every slot is taken.
    Full,
    /// The token source failed.
    NoEntropy(getrandom::Error),
    /// The token source gave only 0 or live tokens, 8 times in a row.
    NoFreshToken,
}

impl fmt::Display for InsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InsertError::Full => f.write_str("every player slot is taken"),
            InsertError::NoEntropy(e) => write!(f, "no session token: {e}"),
            InsertError::NoFreshToken => f.write_str("no fresh session token"),
        }
    }
}

impl std::error::Error for InsertError {}

/// Why an inbound packet was not taken (connection.md §1): dropped silently, counted per
/// reason by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stranger {
    /// No live session has this token.
    UnknownToken,
    /// The token is live, but the packet came from another address or port.
    WrongAddress,
}

impl Stranger {
    /// A short name for counters and logs.
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            Stranger::UnknownToken => "unknown_token",
            Stranger::WrongAddress => "wrong_address",
        }
    }
}

/// The server's sessions: slots `0..max_players`, the generation counter, the token and
/// address indexes and the ban set.
pub struct Sessions {
    max_players: u16,
    timeout: Duration,
    slots: Vec<Option<Session>>,
    /// Bit `i` set: slot `i` is free.
    free: BitVec,
    by_token: HashMap<SessionToken, PlayerId>,
    by_addr: HashMap<SocketAddr, PlayerId>,
    banned: HashSet<IpAddr>,
    /// Live sessions per canonical IP.
    per_ip: HashMap<IpAddr, usize>,
    /// Live sessions that have not proven their token yet.
    unproven: usize,
    /// Unproven sessions allowed at once (ADR 0018).
    max_unproven: usize,
    /// Unproven sessions per canonical IP (ADR 0087).
    unproven_per_ip: HashMap<IpAddr, usize>,
    /// Sessions opened and ended so far: a change the network thread's board has not seen
    /// yet when it differs from the last published count.
    changes: u64,
    /// Sessions in the order they opened, for the oldest unproven one; an entry whose
    /// session proved, ended or gave its slot to a later generation is skipped and pruned.
    opened: VecDeque<(PlayerId, PlayerToken)>,
    /// The generation the last session got; 0 before the first.
    generation: u32,
    tokens: TokenSource,
}

impl fmt::Debug for Sessions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sessions")
            .field("max_players", &self.max_players)
            .field("timeout", &self.timeout)
            .field("live", &self.len())
            .field("banned", &self.banned)
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

impl Sessions {
    /// No sessions, `max_players` slots, the OS CSPRNG, timeout [`SESSION_TIMEOUT`]; the
    /// first session gets generation 1.
    #[must_use]
    pub fn new(max_players: u16) -> Self {
        let slots = usize::from(max_players);
        Sessions {
            max_players,
            timeout: SESSION_TIMEOUT,
            slots: vec![None; slots],
            free: BitVec::repeat(true, slots),
            by_token: HashMap::new(),
            by_addr: HashMap::new(),
            banned: HashSet::new(),
            per_ip: HashMap::new(),
            unproven: 0,
            max_unproven: default_max_unproven(max_players),
            unproven_per_ip: HashMap::new(),
            changes: 0,
            opened: VecDeque::new(),
            generation: 0,
            tokens: os_tokens(),
        }
    }

    /// Continues the generation counter after `last`: the next session gets the generation
    /// after it (skipping 0). For tests of the wrap.
    #[must_use]
    pub fn with_last_generation(mut self, last: PlayerToken) -> Self {
        self.generation = last.0;
        self
    }

    /// Draws session tokens from `tokens` instead of the OS CSPRNG.
    #[must_use]
    pub fn with_token_source(mut self, tokens: TokenSource) -> Self {
        self.tokens = tokens;
        self
    }

    /// Ends sessions after `timeout` of silence instead of [`SESSION_TIMEOUT`].
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Allows `max` unproven sessions at once instead of [`default_max_unproven`].
    #[must_use]
    pub fn with_max_unproven(mut self, max: usize) -> Self {
        self.max_unproven = max;
        self
    }

    #[must_use]
    pub fn max_players(&self) -> u16 {
        self.max_players
    }

    /// Silence after which a session ends; default [`SESSION_TIMEOUT`] (10 s).
    #[must_use]
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Live sessions.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_token.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_token.is_empty()
    }

    /// Live sessions that have not proven their token yet.
    #[must_use]
    pub fn unproven(&self) -> usize {
        self.unproven
    }

    /// Unproven sessions allowed at once; a hello past it is refused as server full.
    #[must_use]
    pub fn max_unproven(&self) -> usize {
        self.max_unproven
    }

    /// Live sessions whose address is `ip` (any port).
    #[must_use]
    pub fn count_at_ip(&self, ip: IpAddr) -> usize {
        self.per_ip.get(&ip.to_canonical()).copied().unwrap_or(0)
    }

    /// True when no slot is free.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.free.not_any()
    }

    /// The generation the last session got (0 before the first).
    #[must_use]
    pub fn last_generation(&self) -> PlayerToken {
        PlayerToken(self.generation)
    }

    /// Opens a session in the smallest free slot, with the next generation and a fresh
    /// random token. A session already at `new.addr` ends first (connection.md §2) and is
    /// returned in [`Inserted::replaced`]; its slot is free for the new one. On error
    /// nothing changed.
    pub fn insert(
        &mut self,
        new: NewSession,
        world: WorldInfo,
        now: Duration,
    ) -> Result<Inserted, InsertError> {
        let old = self.by_addr.get(&new.addr).copied();
        if old.is_none() && self.is_full() {
            return Err(InsertError::Full);
        }
        let session_token = self.fresh_token()?;
        let replaced = old.and_then(|id| self.remove(id));
        let Some(slot) = self.free.first_one() else {
            return Err(InsertError::Full);
        };
        let id = PlayerId(u32::try_from(slot).unwrap_or(u32::MAX));
        self.generation = next_generation(self.generation);
        let session = Session {
            id,
            token: PlayerToken(self.generation),
            session_token,
            addr: new.addr,
            nonce: new.nonce,
            name: new.name,
            world,
            max_players: self.max_players,
            connected_at: now,
            last_heard: now,
            proven: false,
            budget: InboundBudget::new(now),
        };
        self.free.set(slot, false);
        let ip = new.addr.ip().to_canonical();
        *self.per_ip.entry(ip).or_insert(0) += 1;
        self.unproven += 1;
        *self.unproven_per_ip.entry(ip).or_insert(0) += 1;
        self.prune_opened();
        self.opened.push_back((id, session.token));
        self.changes += 1;
        self.by_token.insert(session_token, id);
        self.by_addr.insert(new.addr, id);
        self.slots[slot] = Some(session);
        Ok(Inserted { session, replaced })
    }

    /// Drops the entries of sessions that proved or ended from the front of the opening
    /// order: it then holds no more than the sessions opened since the oldest one still
    /// unproven (at most a session timeout's worth).
    fn prune_opened(&mut self) {
        while let Some(&(id, token)) = self.opened.front() {
            if self.get(id).is_some_and(|s| s.token == token && !s.proven) {
                break;
            }
            self.opened.pop_front();
        }
    }

    /// One unproven session of `ip` proved or ended.
    fn forget_unproven(&mut self, ip: IpAddr) {
        if let Some(n) = self.unproven_per_ip.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                self.unproven_per_ip.remove(&ip);
            }
        }
    }

    /// Sessions opened and ended so far.
    #[must_use]
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Every live session's token and address, for the network thread's board.
    pub fn live(&self) -> impl Iterator<Item = (SessionToken, SocketAddr)> + '_ {
        self.slots
            .iter()
            .flatten()
            .map(|s| (s.session_token, s.addr))
    }

    /// Live unproven sessions of `ip` (canonical).
    #[must_use]
    pub fn unproven_at(&self, ip: IpAddr) -> usize {
        self.unproven_per_ip
            .get(&ip.to_canonical())
            .copied()
            .unwrap_or(0)
    }

    /// The live unproven session that opened first, of `ip` only when given, among those
    /// opened before `before` (a session of this tick is never the oldest), `skip` aside.
    pub fn oldest_unproven(
        &mut self,
        ip: Option<IpAddr>,
        before: Duration,
        skip: Option<PlayerId>,
    ) -> Option<PlayerId> {
        self.prune_opened();
        let ip = ip.map(|ip| ip.to_canonical());
        self.opened.iter().find_map(|&(id, token)| {
            let s = self.get(id)?;
            let candidate = s.token == token
                && !s.proven
                && s.connected_at < before
                && Some(id) != skip
                && ip.is_none_or(|ip| s.addr.ip().to_canonical() == ip);
            candidate.then_some(id)
        })
    }

    /// Ends a session and frees its slot for the next hello. None if `id` is not live.
    pub fn remove(&mut self, id: PlayerId) -> Option<Session> {
        let slot = self.slot_index(id)?;
        let session = self.slots[slot].take()?;
        self.free.set(slot, true);
        self.by_token.remove(&session.session_token);
        self.by_addr.remove(&session.addr);
        let ip = session.addr.ip().to_canonical();
        if let Some(n) = self.per_ip.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&ip);
            }
        }
        if !session.proven {
            self.unproven -= 1;
            self.forget_unproven(ip);
        }
        self.changes += 1;
        Some(session)
    }

    /// Takes an inbound packet carrying `token` from `from` at `now` (connection.md §1):
    /// only if the token is live and `from` is that session's exact address and port.
    /// Marks the session heard at `now` and proven (ADR 0018).
    pub fn accept(
        &mut self,
        token: SessionToken,
        from: SocketAddr,
        now: Duration,
    ) -> Result<PlayerId, Stranger> {
        let id = self.lookup(token, from)?.id;
        let mut proven_now = false;
        if let Some(session) = self.get_mut(id) {
            session.last_heard = session.last_heard.max(now);
            proven_now = !std::mem::replace(&mut session.proven, true);
        }
        if proven_now {
            self.unproven -= 1;
            self.forget_unproven(from.ip().to_canonical());
        }
        Ok(id)
    }

    /// Charges one accepted datagram of session `id` at `now` to its inbound budget
    /// (ADR 0019). [`Admit::Take`] for an id that is not live.
    pub fn admit(&mut self, id: PlayerId, now: Duration) -> Admit {
        self.get_mut(id)
            .map_or(Admit::Take, |s| s.budget.admit(now))
    }

    /// The server sent session `id` this many datagrams; its client may answer each.
    pub fn earn(&mut self, id: PlayerId, datagrams: usize) {
        if let Some(s) = self.get_mut(id) {
            s.budget.earn(datagrams);
        }
    }

    /// The session a packet with `token` from `from` belongs to, without marking it heard.
    pub fn lookup(&self, token: SessionToken, from: SocketAddr) -> Result<&Session, Stranger> {
        let id = self.by_token.get(&token).ok_or(Stranger::UnknownToken)?;
        let session = self.get(*id).ok_or(Stranger::UnknownToken)?;
        if session.addr == from {
            Ok(session)
        } else {
            Err(Stranger::WrongAddress)
        }
    }

    /// The sessions silent for [`timeout`](Self::timeout) or longer at `now`, by id. The
    /// caller removes them and broadcasts PlayerLeave reason 1.
    #[must_use]
    pub fn expired(&self, now: Duration) -> Vec<PlayerId> {
        self.iter()
            .filter(|s| now.saturating_sub(s.last_heard) >= self.timeout)
            .map(Session::id)
            .collect()
    }

    #[must_use]
    pub fn get(&self, id: PlayerId) -> Option<&Session> {
        self.slots.get(self.slot_index(id)?)?.as_ref()
    }

    /// The session opened from `addr` (address and port), if any.
    #[must_use]
    pub fn by_addr(&self, addr: SocketAddr) -> Option<&Session> {
        self.get(*self.by_addr.get(&addr)?)
    }

    /// The live session whose name equals `name`, ignoring ASCII case (names are ASCII,
    /// connection.md §2), if any.
    #[must_use]
    pub fn find_name(&self, name: &str) -> Option<&Session> {
        self.iter()
            .find(|s| s.name.as_str().eq_ignore_ascii_case(name))
    }

    /// Gives session `id` a new name (a gamemode rename), unless another live session has
    /// it (names are unique ignoring ASCII case, as at the hello). Whether it was renamed.
    pub fn rename(&mut self, id: PlayerId, name: PlayerName) -> bool {
        if self
            .find_name(name.as_str())
            .is_some_and(|other| other.id != id)
        {
            return false;
        }
        match self.get_mut(id) {
            Some(session) => {
                session.name = name;
                true
            }
            None => false,
        }
    }

    /// Live sessions in slot order.
    pub fn iter(&self) -> impl Iterator<Item = &Session> + '_ {
        self.slots.iter().flatten()
    }

    /// Live sessions whose address is `ip` (any port).
    pub fn at_ip(&self, ip: IpAddr) -> impl Iterator<Item = &Session> + '_ {
        let ip = ip.to_canonical();
        self.iter()
            .filter(move |s| s.addr.ip().to_canonical() == ip)
    }

    /// Bans `ip`: its hellos are refused with reason 4. Live sessions from it stay; kick
    /// them with [`at_ip`](Self::at_ip). True if it was not banned yet.
    pub fn ban(&mut self, ip: IpAddr) -> bool {
        self.banned.insert(ip.to_canonical())
    }

    /// Lifts a ban. True if `ip` was banned.
    pub fn unban(&mut self, ip: IpAddr) -> bool {
        self.banned.remove(&ip.to_canonical())
    }

    #[must_use]
    pub fn is_banned(&self, ip: IpAddr) -> bool {
        self.banned.contains(&ip.to_canonical())
    }

    fn get_mut(&mut self, id: PlayerId) -> Option<&mut Session> {
        let slot = self.slot_index(id)?;
        self.slots.get_mut(slot)?.as_mut()
    }

    fn slot_index(&self, id: PlayerId) -> Option<usize> {
        usize::try_from(id.0).ok().filter(|&i| i < self.slots.len())
    }

    /// A token that is not 0 and not live.
    fn fresh_token(&mut self) -> Result<SessionToken, InsertError> {
        for _ in 0..TOKEN_DRAWS {
            let token = SessionToken((self.tokens)().map_err(InsertError::NoEntropy)?);
            if token.0 != 0 && !self.by_token.contains_key(&token) {
                return Ok(token);
            }
        }
        Err(InsertError::NoFreshToken)
    }
}

/// Unproven sessions a server of `max_players` allows at once: a quarter of the slots,
/// at least 1 (ADR 0018). Spoofed hellos can never hold more than that; a real client
/// proves within one round trip, so a mass reconnect stays far below it.
#[must_use]
pub fn default_max_unproven(max_players: u16) -> usize {
    usize::from(max_players).div_ceil(4).max(1)
}

/// The generation after `g`: +1, wrapping past `u32::MAX` to 1 (never 0).
fn next_generation(g: u32) -> u32 {
    match g.wrapping_add(1) {
        0 => 1,
        n => n,
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};
    use std::sync::{Arc, Mutex};

    use rstest::rstest;

    use super::*;

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([10, 0, 0, 1], port))
    }

    fn new(port: u16, name: &str) -> NewSession {
        NewSession {
            addr: addr(port),
            nonce: u32::from(port),
            name: PlayerName::new(name).unwrap(),
        }
    }

    fn world() -> WorldInfo {
        WorldInfo::default()
    }

    /// A token source that yields `values` in order, then counts up from 1000.
    fn scripted(values: &[u64]) -> TokenSource {
        let queue = Arc::new(Mutex::new(values.to_vec()));
        let mut next = 1000;
        Box::new(move || {
            let mut q = queue.lock().unwrap();
            if q.is_empty() {
                next += 1;
                Ok(next)
            } else {
                Ok(q.remove(0))
            }
        })
    }

    #[rstest]
    #[case(0, 1)]
    #[case(1, 2)]
    #[case(u32::MAX - 1, u32::MAX)]
    #[case(u32::MAX, 1)]
    fn generation_steps_and_skips_zero(#[case] g: u32, #[case] next: u32) {
        assert_eq!(next_generation(g), next);
    }

    #[test]
    fn smallest_free_slot_then_reuse() {
        let mut s = Sessions::new(3);
        let ids: Vec<_> = (1..=3)
            .map(|p| {
                s.insert(new(p, &format!("p{p}xx")), world(), Duration::ZERO)
                    .unwrap()
                    .session
                    .id()
            })
            .collect();
        assert_eq!(ids, [PlayerId(0), PlayerId(1), PlayerId(2)]);
        assert!(s.is_full());
        assert_eq!(
            s.insert(new(9, "late"), world(), Duration::ZERO),
            Err(InsertError::Full)
        );
        s.remove(PlayerId(1)).unwrap();
        assert!(s.by_addr(addr(2)).is_none());
        let again = s.insert(new(4, "again"), world(), Duration::ZERO).unwrap();
        assert_eq!(again.session.id(), PlayerId(1));
        assert_eq!(s.get(PlayerId(1)).unwrap().token(), PlayerToken(4));
    }

    #[test]
    fn tokens_skip_zero_and_live_duplicates() {
        let mut s = Sessions::new(4).with_token_source(scripted(&[0, 7, 7, 0, 9]));
        let a = s
            .insert(new(1, "aaa"), world(), Duration::ZERO)
            .unwrap()
            .session
            .id();
        let b = s
            .insert(new(2, "bbb"), world(), Duration::ZERO)
            .unwrap()
            .session
            .id();
        assert_eq!(s.get(a).unwrap().session_token(), SessionToken(7));
        assert_eq!(s.get(b).unwrap().session_token(), SessionToken(9));
    }

    #[test]
    fn a_source_of_only_duplicates_opens_nothing() {
        let mut s = Sessions::new(4).with_token_source(Box::new(|| Ok(0)));
        assert_eq!(
            s.insert(new(1, "aaa"), world(), Duration::ZERO),
            Err(InsertError::NoFreshToken)
        );
        assert!(s.is_empty());
        assert_eq!(s.last_generation(), PlayerToken(0));
    }

    #[test]
    fn os_tokens_are_never_zero_and_distinct() {
        let mut s = Sessions::new(64);
        for p in 0..64 {
            s.insert(new(p + 1, "someone"), world(), Duration::ZERO)
                .unwrap();
        }
        let tokens: HashSet<_> = s.iter().map(Session::session_token).collect();
        assert_eq!(tokens.len(), 64);
        assert!(!tokens.contains(&SessionToken(0)));
    }

    #[test]
    fn insert_at_a_taken_address_replaces_the_session() {
        let mut s = Sessions::new(1);
        s.insert(new(1, "old"), world(), Duration::ZERO).unwrap();
        let inserted = s
            .insert(
                NewSession {
                    nonce: 99,
                    ..new(1, "new")
                },
                world(),
                Duration::ZERO,
            )
            .unwrap();
        assert_eq!(inserted.session.id(), PlayerId(0));
        assert_eq!(inserted.replaced.unwrap().name().as_str(), "old");
        assert_eq!(s.len(), 1);
        assert_eq!(s.by_addr(addr(1)).unwrap().nonce(), 99);
    }

    #[test]
    fn accept_checks_token_and_exact_address() {
        let mut s = Sessions::new(2);
        let id = s
            .insert(new(1, "aaa"), world(), Duration::ZERO)
            .unwrap()
            .session
            .id();
        let token = s.get(id).unwrap().session_token();
        assert_eq!(s.accept(token, addr(1), Duration::from_secs(3)), Ok(id));
        assert_eq!(s.get(id).unwrap().last_heard(), Duration::from_secs(3));
        assert_eq!(
            s.accept(token, addr(2), Duration::from_secs(4)),
            Err(Stranger::WrongAddress)
        );
        assert_eq!(
            s.accept(SessionToken(token.0 ^ 1), addr(1), Duration::from_secs(4)),
            Err(Stranger::UnknownToken)
        );
        assert_eq!(
            s.accept(SessionToken(0), addr(1), Duration::from_secs(4)),
            Err(Stranger::UnknownToken)
        );
        // Strangers do not keep the session alive.
        assert_eq!(s.get(id).unwrap().last_heard(), Duration::from_secs(3));
        s.remove(id);
        assert_eq!(
            s.accept(token, addr(1), Duration::from_secs(5)),
            Err(Stranger::UnknownToken)
        );
    }

    #[test]
    fn expired_at_the_timeout_not_before() {
        let mut s = Sessions::new(2);
        let id = s
            .insert(new(1, "aaa"), world(), Duration::from_secs(1))
            .unwrap()
            .session
            .id();
        let limit = Duration::from_secs(11);
        assert!(s.expired(limit - Duration::from_millis(1)).is_empty());
        assert_eq!(s.expired(limit), [id]);
    }

    #[test]
    fn bans_are_by_canonical_ip() {
        let mut s = Sessions::new(1);
        let v4 = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        assert!(s.ban(v4));
        assert!(!s.ban(v4));
        assert!(s.is_banned(IpAddr::V6(Ipv4Addr::new(10, 0, 0, 1).to_ipv6_mapped())));
        assert!(!s.is_banned(IpAddr::V6(Ipv6Addr::LOCALHOST)));
        assert!(s.unban(v4));
        assert!(!s.is_banned(v4));
    }

    #[test]
    fn a_rename_keeps_names_unique_and_frees_the_old_one() {
        let mut s = Sessions::new(2);
        s.insert(new(1, "Carl_J"), world(), Duration::ZERO).unwrap();
        s.insert(new(2, "Big_Smoke"), world(), Duration::ZERO)
            .unwrap();
        let ids: Vec<PlayerId> = s.iter().map(Session::id).collect();
        let name = |n: &str| PlayerName::new(n).unwrap();
        assert!(!s.rename(ids[0], name("big_smoke")), "taken, ignoring case");
        assert!(
            s.rename(ids[0], name("CARL_J")),
            "its own name in another case"
        );
        assert!(s.rename(ids[0], name("Sweet")));
        assert!(s.find_name("carl_j").is_none());
        assert!(s.find_name("sweet").is_some());
        assert!(!s.rename(PlayerId(99), name("Ryder")), "no such session");
    }

    #[test]
    fn find_name_ignores_ascii_case() {
        let mut s = Sessions::new(2);
        s.insert(new(1, "Carl_J"), world(), Duration::ZERO).unwrap();
        assert!(s.find_name("carl_j").is_some());
        assert!(s.find_name("CARL_J").is_some());
        assert!(s.find_name("Carl").is_none());
    }

    #[test]
    fn out_of_range_ids_are_not_live() {
        let mut s = Sessions::new(2);
        assert!(s.get(PlayerId(2)).is_none());
        assert!(s.get(PlayerId::NONE).is_none());
        assert!(s.remove(PlayerId::NONE).is_none());
    }
}
