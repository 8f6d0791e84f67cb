//! A real server and real clients over 127.0.0.1 for the integration tests: the network
//! thread on a free port, the app of `build_app` under the production run loop on a
//! background thread, and clients that are plain `UdpSocket`s speaking the wire format.
//! Shared by tests/real_socket.rs and tests/reliability.rs.
#![allow(dead_code, unreachable_pub)]

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use bevy_app::AppExit;
use dlmp::config::Config;
use dlmp::lane::{InboundLane, Verdict};
use dlmp::net::{self, NetConfig, NetHandle, NetStats};
use dlmp::protocol::connection::chat::{ChatText, ClientChat};
use dlmp::protocol::connection::handshake::{ClientHello, MAGIC, PROTOCOL_VERSION, ServerHello};
use dlmp::protocol::connection::lane::ClientAck;
use dlmp::protocol::ids::{EventId, SessionToken};
use dlmp::protocol::text::FixedText;
use dlmp::protocol::{ClientPacket, MAX_DATAGRAM, ServerPacket};
use dlmp::serial::Serial;
use dlmp::server::build_app;
use dlmp::tick::Transport;

/// The longest any single wait may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(5);

pub fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

pub fn config() -> Config {
    Config {
        bind: loopback(),
        ..dlmp::harness::Harness::config()
    }
}

/// A running server. Dropping it sets the shutdown flag, joins the app thread, then stops
/// the network thread, so a failed assertion never leaves a server behind.
pub struct Server {
    pub addr: SocketAddr,
    pub stats: Arc<NetStats>,
    shutdown: Arc<AtomicBool>,
    app: Option<JoinHandle<AppExit>>,
    net: Option<NetHandle>,
}

impl Server {
    pub fn start(config: Config) -> Server {
        let stats = Arc::new(NetStats::default());
        // As `Server::run` wires it: the network thread drops what no session takes.
        let sessions = Arc::new(dlmp::net::sessions::SessionBoard::default());
        let net = net::spawn(
            NetConfig {
                bind: config.bind,
                sessions: Some(Arc::clone(&sessions)),
                ..NetConfig::default()
            },
            stats.clone(),
        )
        .expect("bind a loopback port");
        let transport = Transport {
            inbound: net.inbound.clone(),
            outbound: net.outbound.clone(),
            stats: stats.clone(),
            sessions,
        };
        let board = net.query.clone();
        let shutdown = Arc::new(AtomicBool::new(false));
        let flag = shutdown.clone();
        // The app (its runner) is not Send: it is built on the thread that runs it.
        let app = thread::Builder::new()
            .name("dlmp-app".into())
            .spawn(move || {
                let mut app = build_app(&config, transport, flag);
                // What `Server::run` adds: the snapshot the server query is answered from.
                app.insert_resource(dlmp::query::QueryPublisher(board));
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
pub struct Client {
    pub socket: UdpSocket,
    pub server: SocketAddr,
    pub nonce: u32,
    pub token: SessionToken,
    pub lane: InboundLane,
    pub next_event: EventId,
    /// Acknowledge reliable packets (a silent client does not).
    pub acks: bool,
    /// Unreliable packets as they came, events once each, in order.
    pub inbox: Vec<ServerPacket>,
}

impl Client {
    pub fn new(server: &Server, nonce: u32) -> Client {
        Client::new_at(server, [127, 0, 0, 1], nonce)
    }

    /// A client on its own host in 127.0.0.0/8 (the per-IP limits see it apart).
    pub fn new_at(server: &Server, ip: [u8; 4], nonce: u32) -> Client {
        let socket = UdpSocket::bind(SocketAddr::from((ip, 0))).expect("bind a client socket");
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

    pub fn send_bytes(&self, bytes: &[u8]) {
        let n = self
            .socket
            .send_to(bytes, self.server)
            .expect("send to the server");
        assert_eq!(n, bytes.len());
    }

    pub fn send(&self, packet: impl Into<ClientPacket>) {
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = packet.into().encode(&mut buf).expect("a valid packet");
        self.send_bytes(&buf[..n]);
    }

    pub fn hello(&self, name: &str) -> ClientHello {
        ClientHello {
            magic: MAGIC,
            protocol: PROTOCOL_VERSION,
            nonce: self.nonce,
            name: FixedText::new(name).expect("a name of at most 24 bytes"),
            pad: [0; 29],
        }
    }

    /// Says hello as `name`, waits for the ServerHello and proves the session with a
    /// ClientAck of event 0 (the server holds everything else until then, ADR 0018).
    #[track_caller]
    pub fn connect(&mut self, name: &str) -> ServerHello {
        let hello = self.connect_unproven(name);
        self.ack();
        hello
    }

    /// Says hello as `name` and waits for the ServerHello, sending nothing more.
    #[track_caller]
    pub fn connect_unproven(&mut self, name: &str) -> ServerHello {
        self.send(self.hello(name));
        let hello: ServerHello = self.wait_for(|_: &ServerHello| true);
        self.token = hello.session_token;
        hello
    }

    pub fn ack(&self) {
        self.send(ClientAck {
            session_token: self.token,
            event_id: self.lane.last_applied(),
        });
    }

    pub fn chat(&mut self, text: &str) {
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
    pub fn receive(&mut self) -> Option<ServerPacket> {
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
    pub fn wait_for<P: TryFrom<ServerPacket>>(&mut self, want: impl Fn(&P) -> bool) -> P {
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
    pub fn applied<P: TryFrom<ServerPacket>>(&self) -> Vec<P> {
        self.inbox
            .iter()
            .cloned()
            .filter_map(|p| P::try_from(p).ok())
            .collect()
    }
}
