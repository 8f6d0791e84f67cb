//! The whole server over real sockets on 127.0.0.1: the network thread on a free port, the
//! app of `build_app` under the production run loop on a background thread, and clients
//! that are plain `UdpSocket`s speaking the wire format (connection.md §1-§4).
//!
//! Every wait is a socket read with a generous timeout; nothing sleeps to synchronise. Each
//! test's server is stopped by a guard (shutdown flag, join), also when an assertion fails.

#[path = "support/real.rs"]
mod real;

use std::time::{Duration, Instant};

use dlmp::config::Config;
use dlmp::net::DropReason;
use dlmp::protocol::connection::chat::ChatMessage;
use dlmp::protocol::connection::handshake::{ClientHello, LeaveReason, ServerDisconnect};
use dlmp::protocol::connection::roster::{PlayerJoin, PlayerLeave};
use dlmp::protocol::ids::SessionToken;
use dlmp::protocol::{ClientPacket, ErrorKind, MAX_DATAGRAM, Packet, ServerPacket};
use real::{Client, Server, TIMEOUT, config};

#[test]
fn a_hello_is_answered_with_a_server_hello_and_a_token() {
    let server = Server::start(config());
    let mut alice = Client::new(&server, 0xA11CE);
    let hello = alice.connect("alice");
    assert_ne!(hello.session_token, SessionToken(0));
    assert_eq!(hello.nonce, 0xA11CE);
    assert_eq!(hello.player_id.0, 0);
    assert_ne!(hello.player_token.0, 0);
    assert_eq!((hello.max_players, hello.tick_hz), (1000, 50));
}

#[test]
fn a_chat_line_reaches_both_real_clients() {
    let server = Server::start(config());
    let mut alice = Client::new(&server, 1);
    let mut bob = Client::new(&server, 2);
    let alice_hello = alice.connect("alice");
    let bob_hello = bob.connect("bob");

    let join = bob.wait_for(|j: &PlayerJoin| j.name.as_str() == "alice");
    assert_eq!(
        (join.id, join.player_token),
        (alice_hello.player_id, alice_hello.player_token)
    );
    let join = alice.wait_for(|j: &PlayerJoin| j.name.as_str() == "bob");
    assert_eq!(
        (join.id, join.player_token),
        (bob_hello.player_id, bob_hello.player_token)
    );

    alice.chat("hello over loopback");
    for client in [&mut alice, &mut bob] {
        let line = client.wait_for(|_: &ChatMessage| true);
        assert_eq!(line.text.as_str(), "alice: hello over loopback");
    }
    // Applied exactly once each, however often the server resent them.
    assert_eq!(alice.applied::<ChatMessage>().len(), 1);
    assert_eq!(bob.applied::<ChatMessage>().len(), 1);
    assert_eq!(bob.applied::<PlayerJoin>().len(), 1);
    assert_eq!(alice.applied::<PlayerJoin>().len(), 1);
}

#[test]
fn a_silent_client_times_out_and_the_other_hears_player_leave_reason_1() {
    let server = Server::start(Config {
        session_timeout_ms: 300,
        ..config()
    });
    let mut quiet = Client::new(&server, 1);
    let mut talker = Client::new(&server, 2);
    quiet.acks = false;
    let quiet_hello = quiet.connect("quiet");
    talker.connect("talker");

    // The talker keeps its session alive: an ack at least every 50 ms (more often while
    // events arrive), until the quiet one's PlayerLeave comes.
    talker
        .socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .expect("set a read timeout");
    let deadline = Instant::now() + TIMEOUT;
    let leave = loop {
        assert!(
            Instant::now() < deadline,
            "no PlayerLeave within {TIMEOUT:?}"
        );
        match talker.receive() {
            Some(ServerPacket::PlayerLeave(leave)) => break leave,
            Some(_) => {}
            None => talker.ack(),
        }
    };
    assert_eq!(
        (leave.id, leave.player_token, leave.reason),
        (
            quiet_hello.player_id,
            quiet_hello.player_token,
            LeaveReason::Timeout
        )
    );

    // The quiet one hears Disconnect (it may first see resends of PlayerJoin: it never acked).
    let bye = quiet.wait_for(|_: &ServerDisconnect| true);
    assert_eq!(bye.reason, LeaveReason::Timeout);
    assert_eq!(talker.applied::<PlayerLeave>().len(), 1);
    assert!(talker.applied::<ServerDisconnect>().is_empty());
}

#[test]
fn garbage_and_a_hello_with_bad_magic_get_no_answer_and_are_counted() {
    let server = Server::start(config());
    let mallory = Client::new(&server, 0xBAD);
    assert!(ClientPacket::PACKETS.iter().all(|&(id, _)| id != 0xEE));
    mallory.send_bytes(b"\xEEgarbage that is no packet");
    let mut bad = mallory.hello("mallory").to_bytes().expect("a valid hello");
    let magic = ClientHello::byte_offset("magic").expect("ClientHello has a magic");
    bad[magic] ^= 0xFF;
    mallory.send_bytes(&bad);

    // A well-formed hello sent after them: once it is answered, both were handled (one
    // socket, read in order) and any answer to them would already be in mallory's buffer
    // (the server sends in order, and loopback delivers during the send).
    let mut witness = Client::new(&server, 0x600D);
    witness.connect_unproven("witness");
    mallory
        .socket
        .set_nonblocking(true)
        .expect("a non-blocking socket");
    let mut answer = [0u8; MAX_DATAGRAM + 1];
    let got = mallory.socket.recv(&mut answer);
    assert!(
        got.as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "mallory got an answer: {got:?}"
    );

    let stats = &server.stats;
    assert_eq!(
        stats.drops(DropReason::Decode(ErrorKind::UnknownPacket)),
        1,
        "{}",
        stats.summary()
    );
    assert_eq!(
        stats.drops(DropReason::Decode(ErrorKind::Reserved)),
        1,
        "{}",
        stats.summary()
    );
    assert_eq!(stats.total_drops(), 2, "{}", stats.summary());
    assert_eq!(
        stats.received_count(),
        1,
        "only the witness's hello got through"
    );
}
