//! connection.md §2 and §5 as scenarios: hellos, refusals, repeats, replacement, strangers,
//! timeouts, slot reuse and generations, on the I/O-free session core.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use dlmp::protocol::connection::handshake::{
    ClientHello, LeaveReason, MAGIC, PROTOCOL_VERSION, RefuseReason, ServerHello,
};
use dlmp::protocol::ids::{PlayerId, PlayerToken, SessionToken};
use dlmp::protocol::text::FixedText;
use dlmp::session::{
    HelloGate, HelloLimits, HelloOutcome, Ignored, RateLimit, Sessions, Stranger, WorldInfo,
};
use rstest::rstest;

/// The session core with a clock.
struct Server {
    sessions: Sessions,
    gate: HelloGate,
    world: WorldInfo,
    now: Duration,
}

impl Server {
    fn new(max_players: u16) -> Self {
        // The unproven cap has tests of its own; here every slot may be unproven.
        let sessions = Sessions::new(max_players).with_max_unproven(usize::from(max_players));
        Server::with(sessions, HelloLimits::default())
    }

    fn with(sessions: Sessions, limits: HelloLimits) -> Self {
        Server {
            sessions,
            gate: HelloGate::new(limits),
            world: WorldInfo::default(),
            now: Duration::ZERO,
        }
    }

    fn advance_ms(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
    }

    fn send(&mut self, from: SocketAddr, hello: &ClientHello) -> HelloOutcome {
        self.gate
            .handle(&mut self.sessions, hello, from, self.now, &self.world)
    }

    fn hello(&mut self, from: SocketAddr, nonce: u32, name: &str) -> HelloOutcome {
        self.send(from, &hello(nonce, name))
    }

    #[track_caller]
    fn connect(&mut self, from: SocketAddr, nonce: u32, name: &str) -> ServerHello {
        accepted(self.hello(from, nonce, name))
    }

    /// An inbound packet after the handshake.
    fn packet(&mut self, token: SessionToken, from: SocketAddr) -> Result<PlayerId, Stranger> {
        self.sessions.accept(token, from, self.now)
    }
}

fn addr(host: u8, port: u16) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, host], port))
}

fn hello(nonce: u32, name: &str) -> ClientHello {
    ClientHello {
        magic: MAGIC,
        protocol: PROTOCOL_VERSION,
        nonce,
        name: FixedText::new(name).expect("fits 24 bytes"),
        pad: [0; 29],
    }
}

#[track_caller]
fn accepted(outcome: HelloOutcome) -> ServerHello {
    match outcome {
        HelloOutcome::Accepted {
            hello,
            replaced: None,
            evicted: None,
        } => hello,
        other => panic!("expected a plain accept, got {other:?}"),
    }
}

#[track_caller]
fn refused(outcome: HelloOutcome) -> RefuseReason {
    match outcome {
        HelloOutcome::Refused { answer, .. } => answer.reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn hellos_get_the_smallest_free_id_a_token_and_a_growing_generation() {
    let mut server = Server::new(4);
    let hellos: Vec<_> = (1..=3)
        .map(|i| server.connect(addr(i, 5000), 100 + u32::from(i), &format!("player{i}")))
        .collect();
    for (i, sh) in hellos.iter().enumerate() {
        assert_eq!(sh.player_id, PlayerId(i as u32));
        assert_eq!(sh.player_token, PlayerToken(i as u32 + 1));
        assert_ne!(sh.session_token, SessionToken(0));
        assert_eq!(sh.nonce, 101 + i as u32);
        assert_eq!(sh.max_players, 4);
    }
    assert_ne!(hellos[0].session_token, hellos[1].session_token);
    assert_eq!(server.sessions.len(), 3);
}

#[rstest]
#[case::too_short("ab")]
#[case::space("Big Smoke")]
#[case::dash("big-smoke")]
#[case::not_ascii("Césars")]
#[case::empty("")]
fn an_invalid_name_is_refused(#[case] name: &str) {
    let mut server = Server::new(4);
    assert_eq!(
        refused(server.hello(addr(1, 1), 1, name)),
        RefuseReason::InvalidName
    );
    assert!(server.sessions.is_empty());
}

#[rstest]
#[case::three("abc")]
#[case::twenty_four("abcdefghijklmnopqrstuvwx")]
#[case::punctuation("[GSF]Sweet_(1).$@=")]
fn a_valid_name_is_accepted(#[case] name: &str) {
    let mut server = Server::new(4);
    server.connect(addr(1, 1), 1, name);
}

/// Each refusal reason, from a server set up for it.
#[rstest]
#[case::server_full(RefuseReason::ServerFull)]
#[case::wrong_protocol(RefuseReason::WrongProtocol)]
#[case::invalid_name(RefuseReason::InvalidName)]
#[case::name_in_use(RefuseReason::NameInUse)]
#[case::banned(RefuseReason::Banned)]
#[case::too_many_attempts(RefuseReason::TooManyAttempts)]
fn refused_for_each_reason(#[case] reason: RefuseReason) {
    let mut server = Server::new(1);
    let newcomer = addr(2, 2);
    let mut h = hello(7, "Newcomer");
    match reason {
        RefuseReason::ServerFull => {
            server.connect(addr(1, 1), 1, "Sweet");
        }
        RefuseReason::WrongProtocol => h.protocol = PROTOCOL_VERSION + 2,
        RefuseReason::InvalidName => h.name = FixedText::new("N!").unwrap(),
        RefuseReason::NameInUse => {
            server.sessions = Sessions::new(2);
            server.connect(addr(1, 1), 1, "newcomer");
        }
        RefuseReason::Banned => {
            server.sessions.ban(newcomer.ip());
        }
        RefuseReason::TooManyAttempts => {
            // 8 refused attempts from other ports of the same IP use up its budget (4 a
            // second: the IP's hello limit).
            for port in 100..108 {
                let bad = server.hello(SocketAddr::new(newcomer.ip(), port), 1, "x");
                assert_eq!(refused(bad), RefuseReason::InvalidName);
                if port % 4 == 3 {
                    server.advance_ms(1000);
                }
            }
        }
    }
    let outcome = server.send(newcomer, &h);
    let HelloOutcome::Refused { answer, replaced } = outcome else {
        panic!("expected a refusal, got {outcome:?}");
    };
    assert_eq!((answer.nonce, answer.reason), (7, reason));
    assert!(replaced.is_none());
    assert!(server.sessions.by_addr(newcomer).is_none());
}

#[test]
fn name_in_use_ignores_case_and_frees_with_the_session() {
    let mut server = Server::new(4);
    let sh = server.connect(addr(1, 1), 1, "CJ_Johnson");
    assert_eq!(
        refused(server.hello(addr(2, 2), 2, "cj_johnson")),
        RefuseReason::NameInUse
    );
    assert_eq!(
        refused(server.hello(addr(3, 3), 3, "CJ_JOHNSON")),
        RefuseReason::NameInUse
    );
    server.sessions.remove(sh.player_id);
    server.connect(addr(2, 2), 4, "cj_johnson");
}

#[test]
fn too_many_attempts_lasts_until_the_budget_refills() {
    let mut server = Server::new(4);
    let ip = addr(9, 0).ip();
    let from = |port| SocketAddr::new(ip, port);
    // 4 at 0 s and 4 at 1 s (the IP's hello limit): the budget runs out at 1 s.
    for port in 1..=8 {
        assert_eq!(
            refused(server.hello(from(port), 1, "no")),
            RefuseReason::InvalidName
        );
        if port % 4 == 0 {
            server.advance_ms(1000);
        }
    }
    // Even a good hello is refused now, from any port of that IP; other IPs are not.
    assert_eq!(
        refused(server.hello(from(20), 2, "Good_Name")),
        RefuseReason::TooManyAttempts
    );
    server.connect(addr(8, 20), 2, "Other_Name");
    // One attempt comes back 10 s after the budget ran out.
    server.advance_ms(7_999);
    assert_eq!(
        refused(server.hello(from(21), 3, "Good_Name")),
        RefuseReason::TooManyAttempts
    );
    server.advance_ms(1);
    server.connect(from(22), 4, "Good_Name");
}

#[test]
fn resends_of_a_refused_hello_are_charged_once() {
    let mut server = Server::new(4);
    for _ in 0..4 {
        for _ in 0..3 {
            // The same address and nonce: the client lost the refusal and resends.
            assert_eq!(
                refused(server.hello(addr(1, 1), 1, "x")),
                RefuseReason::InvalidName
            );
        }
        server.advance_ms(1000);
    }
    server.connect(addr(1, 2), 2, "Patient");
}

#[test]
fn a_full_server_is_not_charged_as_an_attempt() {
    let mut server = Server::new(1);
    let sh = server.connect(addr(1, 1), 1, "Sitting");
    for port in 1..=20 {
        assert_eq!(
            refused(server.hello(addr(2, port), u32::from(port), "Waiting")),
            RefuseReason::ServerFull
        );
        if port % 4 == 0 {
            server.advance_ms(1000);
        }
    }
    server.sessions.remove(sh.player_id);
    server.connect(addr(2, 99), 99, "Waiting");
}

#[test]
fn the_fifth_hello_within_a_second_from_one_ip_is_ignored_until_a_second_has_passed() {
    let mut server = Server::new(8);
    let spammer = addr(1, 1);
    let sh = server.connect(spammer, 1, "Spammer");
    for _ in 0..3 {
        server.advance_ms(50);
        assert_eq!(
            server.hello(spammer, 1, "Spammer"),
            HelloOutcome::Repeated { hello: sh.clone() }
        );
    }
    // The limit is the IP's, not the port's: another port of it is over the limit too.
    for from in [spammer, addr(1, 2)] {
        assert_eq!(
            server.hello(from, 2, "Neighbour"),
            HelloOutcome::Ignored(Ignored::RateLimited)
        );
    }
    // Another IP is not affected.
    server.connect(addr(2, 1), 2, "Bystander");
    // No more in the first second (a bucket of 4 refilled at 4 a second would let 3 more
    // through at 250, 500 and 750 ms); the first hello's place comes back at 1000 ms.
    for at in [250, 500, 750, 999] {
        server.advance_ms(at - server.now.as_millis() as u64);
        assert_eq!(
            server.hello(addr(1, 3), 3, "Neighbour"),
            HelloOutcome::Ignored(Ignored::RateLimited),
            "at {at} ms"
        );
    }
    server.advance_ms(1);
    server.connect(addr(1, 3), 3, "Neighbour");
    assert_eq!(
        server.hello(spammer, 1, "Spammer"),
        HelloOutcome::Ignored(Ignored::RateLimited)
    );
    server.advance_ms(50);
    assert_eq!(
        server.hello(spammer, 1, "Spammer"),
        HelloOutcome::Repeated { hello: sh.clone() }
    );
}

#[test]
fn sessions_per_ip_are_capped_and_refused_as_server_full() {
    let limits = HelloLimits {
        max_sessions_per_ip: 3,
        ..HelloLimits::default()
    };
    let mut server = Server::with(Sessions::new(16).with_max_unproven(16), limits);
    let mut ids = Vec::new();
    for port in 1..=3 {
        ids.push(
            server
                .connect(addr(1, port), u32::from(port), &format!("lan{port}"))
                .player_id,
        );
    }
    let outcome = server.hello(addr(1, 4), 4, "lan4");
    assert_eq!(refused(outcome), RefuseReason::ServerFull);
    // Another IP still gets in, and the IP gets its place back when a session ends.
    server.connect(addr(2, 1), 9, "elsewhere");
    server.sessions.remove(ids[0]);
    server.advance_ms(1000);
    server.connect(addr(1, 4), 4, "lan4");
    // Not charged as an attempt: waiting for a place is legitimate.
    assert_eq!(server.sessions.count_at_ip(addr(1, 0).ip()), 3);
}

#[test]
fn unproven_sessions_are_capped_and_a_proof_frees_a_place() {
    let mut server = Server::with(Sessions::new(8), HelloLimits::default());
    assert_eq!(server.sessions.max_unproven(), 2, "a quarter of the slots");
    let a = server.connect(addr(1, 1), 1, "first");
    let b = server.connect(addr(2, 1), 2, "second");
    assert_eq!(server.sessions.unproven(), 2);
    assert_eq!(
        refused(server.hello(addr(3, 1), 3, "third")),
        RefuseReason::ServerFull
    );
    // The first packet carrying its token proves a session.
    assert_eq!(server.packet(a.session_token, addr(1, 1)), Ok(a.player_id));
    assert!(
        server
            .sessions
            .get(a.player_id)
            .is_some_and(|s| s.is_proven())
    );
    assert_eq!(server.sessions.unproven(), 1);
    server.advance_ms(1000);
    server.connect(addr(3, 1), 3, "third");
    // An unproven session that ends frees its place too.
    server.sessions.remove(b.player_id);
    assert_eq!(server.sessions.unproven(), 1);
}

#[test]
fn an_ignored_hello_changes_nothing() {
    let mut server = Server::new(4);
    let from = addr(1, 1);
    let sh = server.connect(from, 1, "Ryder");
    for _ in 0..3 {
        server.hello(from, 1, "Ryder");
    }
    // A new nonce past the limit does not replace the session.
    assert_eq!(
        server.hello(from, 2, "Ryder"),
        HelloOutcome::Ignored(Ignored::RateLimited)
    );
    assert_eq!(server.packet(sh.session_token, from), Ok(sh.player_id));
}

#[test]
fn a_repeated_hello_gets_the_identical_server_hello() {
    let mut server = Server::new(4);
    let from = addr(1, 1);
    let first = server.connect(from, 77, "Repeater");
    // The world moved on, but the answer is the one already sent.
    server.world.hours = 23;
    server.world.weather = 8;
    server.advance_ms(500);
    let again = server.hello(from, 77, "Repeater");
    assert_eq!(
        again,
        HelloOutcome::Repeated {
            hello: first.clone()
        }
    );
    assert_eq!(server.sessions.len(), 1);
    assert_eq!(server.sessions.last_generation(), first.player_token);
}

#[test]
fn a_new_nonce_from_the_same_address_replaces_the_session() {
    let mut server = Server::new(4);
    let from = addr(1, 1);
    let zero = server.connect(addr(2, 2), 1, "First");
    let old = server.connect(from, 1, "Restarter");
    server.advance_ms(500);
    let HelloOutcome::Accepted {
        hello: new,
        replaced: Some(ended),
        evicted: None,
    } = server.hello(from, 2, "Restarter")
    else {
        panic!("expected an accept that replaces");
    };
    // PlayerLeave reason 1 for the old session.
    assert_eq!(ended.reason, LeaveReason::Timeout);
    assert_eq!(
        (ended.session.id(), ended.session.token()),
        (old.player_id, old.player_token)
    );
    // A new session: the smallest free id (the old slot), a new generation and token.
    assert_eq!(new.player_id, old.player_id);
    assert_ne!(new.player_token, old.player_token);
    assert_ne!(new.session_token, old.session_token);
    assert_eq!(new.nonce, 2);
    assert_eq!(server.sessions.len(), 2);
    assert_eq!(
        server.packet(old.session_token, from),
        Err(Stranger::UnknownToken)
    );
    assert_eq!(server.packet(new.session_token, from), Ok(new.player_id));
    assert_eq!(
        server.packet(zero.session_token, addr(2, 2)),
        Ok(zero.player_id)
    );
}

#[test]
fn a_refused_new_nonce_still_ends_the_old_session() {
    let mut server = Server::new(4);
    let from = addr(1, 1);
    let old = server.connect(from, 1, "Restarter");
    let outcome = server.hello(from, 2, "?");
    assert_eq!(
        outcome.replaced().map(|e| (e.session.id(), e.reason)),
        Some((old.player_id, LeaveReason::Timeout))
    );
    assert_eq!(refused(outcome), RefuseReason::InvalidName);
    assert!(server.sessions.is_empty());
}

#[test]
fn a_full_server_takes_a_replacement_in_the_same_slot() {
    let mut server = Server::new(1);
    let from = addr(1, 1);
    let old = server.connect(from, 1, "Only");
    let outcome = server.hello(from, 2, "Only");
    assert_eq!(
        outcome.replaced().map(|e| e.session.id()),
        Some(old.player_id)
    );
    let HelloOutcome::Accepted { hello: new, .. } = outcome else {
        panic!("expected an accept, got {outcome:?}");
    };
    assert_eq!(new.player_id, PlayerId(0));
}

#[test]
fn strangers_are_not_taken() {
    let mut server = Server::new(4);
    let from = addr(1, 1);
    let sh = server.connect(from, 1, "Owner");
    assert_eq!(server.packet(sh.session_token, from), Ok(sh.player_id));
    assert_eq!(
        server.packet(SessionToken(sh.session_token.0.wrapping_add(1)), from),
        Err(Stranger::UnknownToken)
    );
    assert_eq!(
        server.packet(SessionToken(0), from),
        Err(Stranger::UnknownToken)
    );
    assert_eq!(
        server.packet(sh.session_token, addr(1, 2)),
        Err(Stranger::WrongAddress)
    );
    assert_eq!(
        server.packet(sh.session_token, addr(3, 1)),
        Err(Stranger::WrongAddress)
    );
    assert_eq!(Stranger::WrongAddress.kind(), "wrong_address");
}

#[test]
fn a_session_times_out_after_exactly_ten_seconds_of_silence() {
    let mut server = Server::new(4);
    let from = addr(1, 1);
    let sh = server.connect(from, 1, "Quiet");
    server.advance_ms(4_000);
    server.packet(sh.session_token, from).unwrap();
    // Strangers do not keep it alive.
    server.advance_ms(5_000);
    server.packet(sh.session_token, addr(1, 2)).unwrap_err();
    server.advance_ms(4_999);
    assert_eq!(server.sessions.expired(server.now), []);
    server.advance_ms(1);
    assert_eq!(server.sessions.expired(server.now), [sh.player_id]);
}

#[test]
fn a_freed_slot_is_reused_with_a_new_generation() {
    let mut server = Server::new(4);
    let a = server.connect(addr(1, 1), 1, "Alpha");
    let b = server.connect(addr(2, 1), 1, "Bravo");
    server.connect(addr(3, 1), 1, "Charlie");
    let removed = server.sessions.remove(a.player_id).unwrap();
    assert_eq!(removed.token(), a.player_token);
    server.sessions.remove(b.player_id).unwrap();
    let again = server.connect(addr(4, 1), 1, "Delta");
    assert_eq!(again.player_id, PlayerId(0));
    assert_eq!(again.player_token, PlayerToken(4));
    let next = server.connect(addr(5, 1), 1, "Echo");
    assert_eq!(next.player_id, PlayerId(1));
    assert_eq!(next.player_token, PlayerToken(5));
}

#[test]
fn the_generation_is_never_zero_across_the_wrap() {
    let sessions = Sessions::new(8)
        .with_max_unproven(8)
        .with_last_generation(PlayerToken(u32::MAX - 1));
    let mut server = Server::with(sessions, HelloLimits::default());
    let tokens: Vec<_> = (1..=3)
        .map(|i| {
            server
                .connect(addr(i, 1), 1, &format!("wrap{i}"))
                .player_token
        })
        .collect();
    assert_eq!(
        tokens,
        [PlayerToken(u32::MAX), PlayerToken(1), PlayerToken(2)]
    );
}

#[test]
fn a_flood_from_many_addresses_is_bounded() {
    let limits = HelloLimits {
        max_tracked: 4,
        ..HelloLimits::default()
    };
    let mut server = Server::with(Sessions::new(16).with_max_unproven(16), limits);
    for host in 1..=4 {
        server.connect(addr(host, 1), 1, &format!("flood{host}"));
    }
    assert_eq!(
        server.hello(addr(5, 1), 1, "flood5"),
        HelloOutcome::Ignored(Ignored::Busy)
    );
    // A second later the table is pruned and the client's resend gets in.
    server.advance_ms(1_000);
    server.connect(addr(5, 1), 1, "flood5");
}

#[test]
fn bans_cover_every_port_and_lift() {
    let mut server = Server::new(4);
    let ip: IpAddr = addr(1, 0).ip();
    server.sessions.ban(ip);
    for port in [1, 2, 3] {
        assert_eq!(
            refused(server.hello(SocketAddr::new(ip, port), 1, "Banned")),
            RefuseReason::Banned
        );
    }
    server.sessions.unban(ip);
    server.connect(SocketAddr::new(ip, 4), 1, "Forgiven");
}

#[rstest]
#[case::chat(RateLimit::CHAT, 5, 1000)]
fn rate_limits_of_the_spec(#[case] limit: RateLimit, #[case] burst: u32, #[case] ms: u64) {
    assert_eq!(limit.burst(), burst);
    assert_eq!(limit.interval(), Duration::from_millis(ms));
}
