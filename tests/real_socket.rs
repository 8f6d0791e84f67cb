//! The whole server over real sockets on 127.0.0.1: the network thread on a free port, the
//! app of `build_app` under the production run loop on a background thread, and clients
//! that are plain `UdpSocket`s speaking the wire format (connection.md §1-§4).
//!
//! Every wait is a socket read with a generous timeout; nothing sleeps to synchronise. Each
//! test's server is stopped by a guard (shutdown flag, join), also when an assertion fails.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use bevy_app::AppExit;
use dlmp::config::Config;
use dlmp::lane::{InboundLane, Verdict};
use dlmp::net::{self, DropReason, NetConfig, NetHandle, NetStats};
use dlmp::protocol::connection::chat::{ChatMessage, ChatText, ClientChat};
use dlmp::protocol::connection::handshake::{
    ClientHello, LeaveReason, MAGIC, PROTOCOL_VERSION, ServerDisconnect, ServerHello,
};
use dlmp::protocol::connection::lane::ClientAck;
use dlmp::protocol::connection::roster::{PlayerJoin, PlayerLeave};
use dlmp::protocol::ids::{EventId, SessionToken};
use dlmp::protocol::text::FixedText;
use dlmp::protocol::{ClientPacket, ErrorKind, MAX_DATAGRAM, Packet, ServerPacket};
use dlmp::serial::Serial;
use dlmp::server::{Transport, build_app};

/// The longest any single wait may take before the test fails.
const TIMEOUT: Duration = Duration::from_secs(5);

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

fn config() -> Config {
    Config {
        bind: loopback(),
        ..dlmp::harness::Harness::config()
    }
}

/// A running server. Dropping it sets the shutdown flag, joins the app thread, then stops
/// the network thread, so a failed assertion never leaves a server behind.
struct Server {
    addr: SocketAddr,
    stats: Arc<NetStats>,
    shutdown: Arc<AtomicBool>,
    app: Option<JoinHandle<AppExit>>,
    net: Option<NetHandle>,
}

impl Server {
    fn start(config: Config) -> Server {
        let stats = Arc::new(NetStats::default());
        let net = net::spawn(
            NetConfig {
                bind: config.bind,
                ..NetConfig::default()
            },
            stats.clone(),
        )
        .expect("bind a loopback port");
        let transport = Transport {
            inbound: net.inbound.clone(),
            outbound: net.outbound.clone(),
            stats: stats.clone(),
        };
        let shutdown = Arc::new(AtomicBool::new(false));
        let flag = shutdown.clone();
        // The app (its runner) is not Send: it is built on the thread that runs it.
        let app = thread::Builder::new()
            .name("dlmp-app".into())
            .spawn(move || {
                let mut app = build_app(&config, transport, flag);
                app.add_plugins(dlmp::server::FixedStepRunner {
                    tick: config.tick(),
                });
                app.run()
            })
            .expect("spawn the app thread");
        Server {
            addr: net.local_addr(),
            stats,
            shutdown,
            app: Some(app),
            net: Some(net),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.store(true, Ordering::Relaxed);
        let app = self.app.take().map(JoinHandle::join);
        let net = self.net.take().map(NetHandle::shutdown);
        if thread::panicking() {
            return;
        }
        assert!(
            matches!(app, Some(Ok(AppExit::Success))),
            "the app did not exit cleanly: {app:?}"
        );
        assert!(matches!(net, Some(Ok(()))), "the network thread panicked");
    }
}

/// A real client: a socket, the client's side of the server's reliable lane (apply in
/// order, ClientAck on every reliable packet) and everything it applied.
struct Client {
    socket: UdpSocket,
    server: SocketAddr,
    nonce: u32,
    token: SessionToken,
    lane: InboundLane,
    next_event: EventId,
    /// Acknowledge reliable packets (a silent client does not).
    acks: bool,
    /// Unreliable packets as they came, events once each, in order.
    inbox: Vec<ServerPacket>,
}

impl Client {
    fn new(server: &Server, nonce: u32) -> Client {
        let socket = UdpSocket::bind(loopback()).expect("bind a client socket");
        socket
            .set_read_timeout(Some(TIMEOUT))
            .expect("set a read timeout");
        Client {
            socket,
            server: server.addr,
            nonce,
            token: SessionToken(0),
            lane: InboundLane::new(),
            next_event: EventId(1),
            acks: true,
            inbox: Vec::new(),
        }
    }

    fn send_bytes(&self, bytes: &[u8]) {
        let n = self
            .socket
            .send_to(bytes, self.server)
            .expect("send to the server");
        assert_eq!(n, bytes.len());
    }

    fn send(&self, packet: impl Into<ClientPacket>) {
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = packet.into().encode(&mut buf).expect("a valid packet");
        self.send_bytes(&buf[..n]);
    }

    fn hello(&self, name: &str) -> ClientHello {
        ClientHello {
            magic: MAGIC,
            protocol: PROTOCOL_VERSION,
            nonce: self.nonce,
            name: FixedText::new(name).expect("a name of at most 24 bytes"),
            pad: [0; 29],
        }
    }

    /// Says hello as `name` and waits for the ServerHello.
    #[track_caller]
    fn connect(&mut self, name: &str) -> ServerHello {
        self.send(self.hello(name));
        let hello: ServerHello = self.wait_for(|_: &ServerHello| true);
        self.token = hello.session_token;
        hello
    }

    fn ack(&self) {
        self.send(ClientAck {
            session_token: self.token,
            event_id: self.lane.last_applied(),
        });
    }

    fn chat(&mut self, text: &str) {
        let event_id = self.next_event;
        self.next_event = event_id.next();
        self.send(ClientChat {
            session_token: self.token,
            event_id,
            text: ChatText::new(text).expect("at most 144 bytes"),
        });
    }

    /// Receives one datagram (or `None` at the read timeout), applies it like a client:
    /// an event only if it is the next one, acked (if this client acks) either way.
    fn receive(&mut self) -> Option<ServerPacket> {
        let mut buf = [0u8; MAX_DATAGRAM + 1];
        let n = match self.socket.recv(&mut buf) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(e) => panic!("receive failed: {e}"),
        };
        let packet = ServerPacket::decode(&buf[..n])
            .unwrap_or_else(|e| panic!("the server sent a packet a client rejects: {e}"));
        match packet.event_id() {
            Some(id) => {
                let applied = self.lane.receive(id).0 == Verdict::Apply;
                if self.acks {
                    self.ack();
                }
                applied.then_some(packet)
            }
            None => Some(packet),
        }
        .inspect(|p| self.inbox.push(p.clone()))
    }

    /// Receives until a packet of type `P` matching `want` is applied; returns it.
    #[track_caller]
    fn wait_for<P: TryFrom<ServerPacket>>(&mut self, want: impl Fn(&P) -> bool) -> P {
        let deadline = Instant::now() + TIMEOUT;
        while Instant::now() < deadline {
            if let Some(packet) = self.receive()
                && let Ok(p) = P::try_from(packet)
                && want(&p)
            {
                return p;
            }
        }
        panic!(
            "no {} within {TIMEOUT:?}; applied: {:?}",
            std::any::type_name::<P>(),
            self.inbox
        );
    }

    /// The packets of type `P` applied so far.
    fn applied<P: TryFrom<ServerPacket>>(&self) -> Vec<P> {
        self.inbox
            .iter()
            .cloned()
            .filter_map(|p| P::try_from(p).ok())
            .collect()
    }
}

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
    witness.connect("witness");
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
