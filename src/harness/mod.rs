//! The deterministic test harness (ADR 0005, ADR 0018): the app without a socket, virtual
//! clients whose typed packets go in as bytes through the network thread's decoder, a
//! manual clock stepped tick by tick, and exactly what each client was sent, decoded, with
//! the client's side of the reliable lane applied.
//!
//! ```
//! use dlmp::harness::Harness;
//! use dlmp::protocol::connection::roster::PlayerJoin;
//!
//! let mut h = Harness::new();
//! let alice = h.connect("alice");
//! let bob = h.connect("bob");
//! h.step();
//! assert_eq!(h.packets::<PlayerJoin>(alice).len(), 1);
//! assert_eq!(h.packets::<PlayerJoin>(bob)[0].name.as_str(), "alice");
//! ```

mod scripts;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bevy_app::App;
use bevy_ecs::world::World;
use bevy_time::{Fixed, Time, TimeUpdateStrategy};
use crossbeam_channel::{Sender, unbounded};

use bevy_ecs::component::{Component, Mutable};
use bevy_ecs::entity::Entity;

use crate::server::build_app;
use dlmp_core::position::Position;
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_core::tick::Transport;
use dlmp_core::viewers::Viewers;
use dlmp_net::lane::Delivery;
use dlmp_net::lane::{InboundLane, Verdict};
use dlmp_net::sessions::SessionBoard;
use dlmp_net::{Datagram, Decoder, DropReason, Inbound, NetStats, Outbound, Shipments};
use dlmp_ops::config::Config;
use dlmp_player::{Life, SpawnInfo, SpawnState};
use dlmp_protocol::bundle::ServerDatagram;
use dlmp_protocol::connection::chat::{ChatMessage, ChatText, ClientChat, Color};
use dlmp_protocol::connection::damage::DamageReport;
use dlmp_protocol::connection::handshake::{
    ClientDisconnect, ClientHello, MAGIC, PROTOCOL_BUNDLES, Protocol, ServerHello,
};
use dlmp_protocol::connection::lane::ClientAck;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::Seq;
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken, SessionToken};
use dlmp_protocol::player::life::{DeathPose, DeathReport, RequestSpawn, RespawnRequest};
use dlmp_protocol::player::sync::{Frame, PlayerSync};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::text::FixedText;
use dlmp_protocol::{ClientPacket, ServerPacket};
use dlmp_script::{ScriptHost, ScriptLimits};

pub use scripts::TempScripts;

/// The wall time at which a harness starts (2025-12-01 00:00 UTC): bans are dated on the
/// manual clock from here.
pub const HARNESS_EPOCH: i64 = 1_764_547_200;

/// A virtual client of a [`Harness`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientId(usize);

/// The client side of one virtual connection.
#[derive(Debug)]
struct VirtualClient {
    addr: SocketAddr,
    nonce: u32,
    hello: Option<ServerHello>,
    /// The client's receiver of server events.
    lane: InboundLane,
    /// The client's own next event id.
    next_event: EventId,
    auto_ack: bool,
    ack_due: bool,
    /// Every packet applied, in order: unreliable ones as they came, events once each.
    inbox: Vec<ServerPacket>,
    /// Every packet decoded, resends and duplicates included, a bundle's inner packets
    /// each in order.
    wire: Vec<ServerPacket>,
    /// Datagrams received (a bundle counts once).
    datagrams: usize,
    /// What the client says in its hello.
    protocol: u16,
}

impl VirtualClient {
    /// Takes one packet as the client's game does.
    fn take(&mut self, packet: ServerPacket) {
        self.wire.push(packet.clone());
        if let ServerPacket::ServerHello(hello) = &packet {
            self.hello = Some(hello.clone());
        }
        match packet.event_id() {
            Some(id) => {
                self.ack_due = true;
                if self.lane.receive(id).0 == Verdict::Apply {
                    self.inbox.push(packet);
                }
            }
            None => self.inbox.push(packet),
        }
    }
}

/// The server app with virtual clients. See the module doc.
pub struct Harness {
    app: App,
    to_server: Sender<Inbound>,
    /// The sending thread's end: shipments are unpacked, reported sent and given back,
    /// as the sending threads do it.
    from_server: Shipments,
    shutdown: Arc<AtomicBool>,
    stats: Arc<NetStats>,
    /// The network thread's decoder: every client packet goes in as bytes through it.
    decoder: Decoder,
    clients: Vec<VirtualClient>,
    /// Each client's index by its address.
    by_addr: HashMap<SocketAddr, usize>,
    /// Datagrams to addresses no virtual client owns.
    stray: Vec<Datagram>,
    /// The real instant of server time zero: arrivals and step deadlines are stamped on the
    /// manual clock from here ([`dlmp_core::tick::StepDeadline`]).
    epoch: std::time::Instant,
    /// Server time the next datagram arrives at ([`send_at`](Self::send_at)); `None`: now.
    arrival: Option<Duration>,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    /// A server with the default config, without gamemode resources and stats lines.
    pub fn new() -> Self {
        Self::with_config(Self::config())
    }

    /// The harness's base config: the defaults, with no scripts folder and no stats line.
    pub fn config() -> Config {
        Config {
            stats_interval_secs: 0,
            scripts: std::path::PathBuf::new(),
            database: Some("sqlite::memory:".to_owned()),
            db_wait_for_replies: true,
            ..Config::default()
        }
    }

    /// A script host with the Lua API of the assembled server (every feature's functions,
    /// handle methods and events, as the plugins registered them), outside any app: for
    /// tests of the API itself. No resource runs; the players' view is empty.
    pub fn api_host() -> ScriptHost {
        let (_, inbound) = unbounded();
        let stats = Arc::new(NetStats::default());
        let (outbound, _) = Outbound::unbounded(stats.clone());
        let transport = Transport {
            inbound,
            outbound,
            stats,
            sessions: Arc::default(),
        };
        let config = Self::config();
        let mut app = build_app(&config, transport, Arc::new(AtomicBool::new(false)));
        let mut api = app
            .world_mut()
            .remove_resource::<dlmp_script::ScriptApi>()
            .expect("the features registered their Lua API");
        let setups = api.take_setups();
        let host = ScriptHost::with_api(config.scripts.clone(), ScriptLimits::default(), api)
            .expect("a Lua VM");
        for setup in setups {
            setup(host.lua(), app.world_mut());
        }
        host
    }

    /// A server with `config`; no socket is bound.
    pub fn with_config(config: Config) -> Self {
        Self::with_app(config, |_| {})
    }

    /// A server with `config` and extra plugins or resources added by `setup` (a plugin's
    /// own tests add the plugin here).
    pub fn with_app(config: Config, setup: impl FnOnce(&mut App)) -> Self {
        let (to_server, inbound) = unbounded();
        let stats = Arc::new(NetStats::default());
        let (outbound, from_server) = Outbound::unbounded(stats.clone());
        let shutdown = Arc::new(AtomicBool::new(false));
        let sessions = Arc::new(SessionBoard::default());
        let transport = Transport {
            inbound,
            outbound,
            stats: stats.clone(),
            sessions: Arc::clone(&sessions),
        };
        let mut app = build_app(&config, transport, shutdown.clone());
        app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
        app.insert_resource(dlmp_ops::bans::BanClock::Virtual {
            start: HARNESS_EPOCH,
        });
        setup(&mut app);
        app.finish();
        app.cleanup();
        // The scripts' wall clock stands still, as the manual clock does: no test depends
        // on the machine's speed. A test of the tick's time budget sets its own clock.
        if let Some(mut host) = app.world_mut().get_non_send_mut::<ScriptHost>() {
            host.set_clock(|| Duration::ZERO);
        }
        // The first update has no delta and runs no fixed tick.
        app.update();
        Harness {
            app,
            to_server,
            from_server,
            shutdown,
            stats,
            decoder: Decoder::with_sessions(sessions),
            clients: Vec::new(),
            by_addr: HashMap::new(),
            stray: Vec::new(),
            epoch: std::time::Instant::now(),
            arrival: None,
        }
    }

    pub fn app(&mut self) -> &mut App {
        &mut self.app
    }

    pub fn world(&self) -> &World {
        self.app.world()
    }

    pub fn world_mut(&mut self) -> &mut World {
        self.app.world_mut()
    }

    pub fn stats(&self) -> &NetStats {
        &self.stats
    }

    /// The counters, shared (a `/metrics` registry reads them).
    pub fn shared_stats(&self) -> Arc<NetStats> {
        Arc::clone(&self.stats)
    }

    /// Server time since start.
    pub fn now(&self) -> Duration {
        self.app.world().resource::<Time<Fixed>>().elapsed()
    }

    /// One fixed tick.
    pub fn tick(&self) -> Duration {
        self.app.world().resource::<Time<Fixed>>().timestep()
    }

    /// Runs one tick: the clients' due acks go in first, then the server's datagrams are
    /// delivered to their clients.
    pub fn step(&mut self) {
        for i in 0..self.clients.len() {
            let c = &mut self.clients[i];
            if c.auto_ack && std::mem::take(&mut c.ack_due) {
                self.ack(ClientId(i));
            }
        }
        let deadline = self.epoch + self.now() + self.tick();
        self.app
            .insert_resource(dlmp_core::tick::StepDeadline(deadline));
        self.app.update();
        self.deliver();
    }

    /// Runs `n` ticks.
    pub fn steps(&mut self, n: usize) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Runs ticks until at least `d` of server time has passed.
    pub fn advance(&mut self, d: Duration) {
        let until = self.now() + d;
        while self.now() < until {
            self.step();
        }
    }

    /// Hands each datagram to its client through the real decoder: a bundle is checked
    /// and unpacked (connection.md §1), and a datagram or inner packet a client would drop
    /// is a server bug, so it panics.
    fn deliver(&mut self) {
        while let Some(shipment) = self.from_server.try_recv() {
            for (to, bytes) in shipment.iter() {
                let Some(&i) = self.by_addr.get(&to) else {
                    self.stray.push(Datagram {
                        to,
                        bytes: bytes.to_vec(),
                    });
                    continue;
                };
                let c = &mut self.clients[i];
                let decoded = ServerDatagram::decode(bytes)
                    .unwrap_or_else(|e| panic!("the server sent a datagram a client rejects: {e}"));
                if matches!(decoded, ServerDatagram::Bundle(_)) {
                    assert!(
                        Protocol::of(c.protocol).is_some_and(Protocol::bundles),
                        "a bundle to a protocol 1 client"
                    );
                }
                c.datagrams += 1;
                for packet in decoded.packets() {
                    let packet = packet.unwrap_or_else(|e| {
                        panic!("the server bundled a packet a client rejects: {e}")
                    });
                    c.take(packet);
                }
            }
            self.from_server.done(shipment);
        }
    }

    /// A client with an address but no session yet. Each client has its own IP in
    /// 127.0.0.0/8 (client `n` at 127.0.x.y with `x.y` = n + 1), so the per-IP limits
    /// (ADR 0018) see them as separate hosts; [`add_client_at`](Self::add_client_at) puts
    /// several behind one IP.
    pub fn add_client(&mut self) -> ClientId {
        let n = u32::try_from(self.clients.len()).expect("fewer than 2^32 clients") + 1;
        assert!(n < 1 << 16, "fewer than 65 535 harness clients");
        let [_, _, x, y] = n.to_be_bytes();
        self.add_client_at(IpAddr::V4(Ipv4Addr::new(127, 0, x, y)))
    }

    /// A client with no session yet at `ip`, on a port of its own.
    pub fn add_client_at(&mut self, ip: IpAddr) -> ClientId {
        let port = 20_000 + u16::try_from(self.clients.len()).expect("fewer than 45 000 clients");
        let addr = SocketAddr::new(ip, port);
        self.by_addr.insert(addr, self.clients.len());
        self.clients.push(VirtualClient {
            addr,
            nonce: 0x1000 + u32::from(port),
            hello: None,
            lane: InboundLane::new(),
            next_event: EventId(1),
            auto_ack: true,
            ack_due: false,
            inbox: Vec::new(),
            wire: Vec::new(),
            datagrams: 0,
            protocol: PROTOCOL_BUNDLES,
        });
        ClientId(self.clients.len() - 1)
    }

    /// Makes the client say `version` in its hellos from now on. Clients say protocol 2
    /// (bundles, connection.md §1) unless told otherwise, so every scenario runs through
    /// the bundle path; a protocol 1 client gets single packets.
    pub fn set_protocol(&mut self, client: ClientId, version: u16) {
        self.clients[client.0].protocol = version;
    }

    /// A new client that completes the handshake as `name`, saying protocol `version`.
    #[track_caller]
    pub fn connect_with_protocol(&mut self, name: &str, version: u16) -> ClientId {
        let client = self.add_client();
        self.set_protocol(client, version);
        self.join_as(client, name);
        client
    }

    /// A well-formed ClientHello of `client` asking for `name`.
    pub fn client_hello(&self, client: ClientId, name: &str) -> ClientHello {
        ClientHello {
            magic: MAGIC,
            protocol: self.clients[client.0].protocol,
            nonce: self.clients[client.0].nonce,
            name: FixedText::new(name).expect("a name of at most 24 bytes"),
            pad: [0; 29],
        }
    }

    /// A new client that completes the handshake as `name`: its hello, one tick, then
    /// its proof of the session token ([`prove`](Self::prove)) and one more tick, after
    /// which the server sends it what it held (ADR 0018).
    #[track_caller]
    pub fn connect(&mut self, name: &str) -> ClientId {
        let client = self.add_client();
        self.join_as(client, name);
        client
    }

    /// The handshake of [`connect`](Self::connect) for a client made with
    /// [`add_client`](Self::add_client) or [`add_client_at`](Self::add_client_at).
    #[track_caller]
    pub fn join_as(&mut self, client: ClientId, name: &str) {
        let hello = self.client_hello(client, name);
        self.send(client, hello);
        self.step();
        assert!(
            self.clients[client.0].hello.is_some(),
            "{name} got no ServerHello"
        );
        self.prove(client);
        self.step();
    }

    /// Sends what a client sends first after its ServerHello when it has nothing else to
    /// say: a ClientAck of event 0 (no event yet), which carries the session token and so
    /// proves the client got it. Without stepping.
    pub fn prove(&mut self, client: ClientId) {
        let ack = ClientAck {
            session_token: self.token(client),
            event_id: EventId(0),
        };
        self.send(client, ack);
    }

    /// Sends `packet` from `client`, encoded and through the network thread's decoder.
    pub fn send(&mut self, client: ClientId, packet: impl Into<ClientPacket>) {
        let from = self.clients[client.0].addr;
        self.send_from(from, packet);
    }

    /// Sends `packet` from any address (a stranger, another port), encoded and through the
    /// network thread's decoder. The encoding skips the page's rules, so a packet that breaks
    /// one reaches the decoder as the bytes a bad client would send, and is dropped and
    /// counted there.
    pub fn send_from(&mut self, from: SocketAddr, packet: impl Into<ClientPacket>) {
        let packet = packet.into();
        let mut buf = [0u8; dlmp_protocol::MAX_DATAGRAM];
        match packet.encode_unchecked(&mut buf) {
            Ok(n) => self.send_raw_from(from, &buf[..n]),
            Err(e) => self.stats.count_drop(DropReason::Decode(e.kind())),
        }
    }

    /// Sends `packet` from `client` as [`send`](Self::send) does, arriving at server time
    /// `at` instead of now: a step takes it only once its deadline (the end of the step on
    /// the manual clock) has reached `at`.
    pub fn send_at(&mut self, client: ClientId, packet: impl Into<ClientPacket>, at: Duration) {
        self.arrival = Some(at);
        self.send(client, packet);
        self.arrival = None;
    }

    /// Sends arbitrary bytes from `client`, as one datagram.
    pub fn send_raw(&mut self, client: ClientId, bytes: &[u8]) {
        let from = self.clients[client.0].addr;
        self.send_raw_from(from, bytes);
    }

    /// Sends arbitrary bytes from any address: decoded, dropped and counted exactly as the
    /// network thread does with a datagram from the socket.
    pub fn send_raw_from(&mut self, from: SocketAddr, bytes: &[u8]) {
        let at = self.epoch + self.arrival.unwrap_or_else(|| self.now());
        let live = self.decoder.live_sessions();
        if let Some(inbound) = self
            .decoder
            .take(bytes, from, at, &self.stats, live.as_deref())
        {
            self.stats.received();
            self.to_server
                .send(inbound)
                .expect("the app holds the receiver");
        }
    }

    /// Sends a client event with the client's next event id; returns that id.
    pub fn send_event(&mut self, client: ClientId, packet: impl Into<ClientPacket>) -> EventId {
        let mut packet = packet.into();
        let c = &mut self.clients[client.0];
        let id = c.next_event;
        assert!(
            packet.set_event_id(id),
            "{} is not a client event",
            packet.name()
        );
        c.next_event = id.next();
        self.send(client, packet);
        id
    }

    /// Sends a chat line (or command) as a client event.
    pub fn chat(&mut self, client: ClientId, text: &str) -> EventId {
        let chat = ClientChat {
            session_token: self.token(client),
            event_id: EventId(0),
            text: ChatText::new(text).expect("at most 144 bytes"),
        };
        self.send_event(client, chat)
    }

    /// The client leaves with Disconnect.
    pub fn disconnect(&mut self, client: ClientId) {
        let packet = ClientDisconnect {
            session_token: self.token(client),
        };
        self.send(client, packet);
    }

    /// Sends ClientAck for every event the client applied.
    pub fn ack(&mut self, client: ClientId) {
        let c = &self.clients[client.0];
        let ack = ClientAck {
            session_token: self.token(client),
            event_id: c.lane.last_applied(),
        };
        self.send(client, ack);
    }

    /// Turns the automatic ClientAck after each tick on or off (on by default).
    pub fn set_auto_ack(&mut self, client: ClientId, on: bool) {
        self.clients[client.0].auto_ack = on;
    }

    /// Queues chat lines on the client's lane, without stepping, until `delivery` has
    /// exactly `leave` places left (connection.md §3: 512 wait at most, 32 of them kept
    /// from droppable events).
    pub fn fill_lane(&mut self, client: ClientId, delivery: Delivery, leave: usize) {
        let line = ChatMessage {
            event_id: EventId(0),
            color: Color(0x00FF_FFFF),
            text: ChatText::new("filler").expect("short"),
        };
        self.with::<Connection>(client, |conn| {
            while conn.room(delivery) > leave {
                conn.send_event(line.clone(), Delivery::Normal)
                    .expect("room for a normal event");
            }
        });
    }

    /// Turns the automatic acks back on and lets the client acknowledge everything a
    /// [`fill_lane`](Self::fill_lane) left waiting, with a second for the chat limits, so
    /// that the lane has room again and what was still queued has reached the client.
    pub fn release_lane(&mut self, client: ClientId) {
        self.set_auto_ack(client, true);
        self.ack(client);
        self.steps(30);
        self.advance(Duration::from_secs(1));
    }

    pub fn addr(&self, client: ClientId) -> SocketAddr {
        self.clients[client.0].addr
    }

    /// The ServerHello the client got.
    #[track_caller]
    pub fn hello(&self, client: ClientId) -> &ServerHello {
        self.clients[client.0]
            .hello
            .as_ref()
            .expect("the client has a session")
    }

    pub fn token(&self, client: ClientId) -> SessionToken {
        self.clients[client.0]
            .hello
            .as_ref()
            .map_or(SessionToken(0), |h| h.session_token)
    }

    pub fn player_id(&self, client: ClientId) -> PlayerId {
        self.hello(client).player_id
    }

    /// The client's player entity.
    #[track_caller]
    pub fn entity(&self, client: ClientId) -> Entity {
        self.world()
            .resource::<PlayerIndex>()
            .get(self.player_id(client))
            .expect("the client has a live player")
    }

    /// A copy of a component of the client's player.
    #[track_caller]
    pub fn get<T: Component + Clone>(&self, client: ClientId) -> T {
        self.world()
            .get::<T>(self.entity(client))
            .expect("the player has the component")
            .clone()
    }

    /// Changes a component of the client's player, as a feature would.
    #[track_caller]
    pub fn with<T: Component<Mutability = Mutable>>(
        &mut self,
        client: ClientId,
        f: impl FnOnce(&mut T),
    ) {
        let entity = self.entity(client);
        f(&mut self
            .world_mut()
            .get_mut::<T>(entity)
            .expect("the player has the component"));
    }

    /// The real connect spawn at `at` (player.md, RequestSpawn / SpawnPlayer): the
    /// gamemode's spawn info (what `dlmp.spawn_player` sets: facing north, outside, skin
    /// 0; no packet carries it, so this writes it as a gameplay plugin would), the
    /// client's RequestSpawn, and the tick in which the server grants it: SpawnPlayer to
    /// the client, spawned, alive, at `at`, `player_spawn`, and streaming reconciled.
    #[track_caller]
    pub fn spawn(&mut self, client: ClientId, at: Vec3) {
        let info = self.offer_spawn(client, at);
        self.step();
        assert!(
            self.received(client)
                .iter()
                .rev()
                .any(|p| *p == ServerPacket::SpawnPlayer(info.packet())),
            "the server granted the spawn"
        );
    }

    /// The first half of [`spawn`](Self::spawn), without the tick: the gamemode's spawn
    /// info at `at` and the client's RequestSpawn, so that several clients can spawn in
    /// one tick. Returns the spawn info the grant will carry.
    pub fn offer_spawn(&mut self, client: ClientId, at: Vec3) -> SpawnInfo {
        let info = SpawnInfo {
            position: at,
            heading: 0.0,
            interior: 0,
            skin: 0,
            variant: 1,
        };
        self.with::<SpawnState>(client, |s| s.info = Some(info));
        self.request_spawn(client);
        info
    }

    /// Whether streaming shows `subject` to `viewer` (player.md, "Player streaming").
    pub fn is_shown(&self, subject: ClientId, viewer: ClientId) -> bool {
        self.get::<Viewers>(subject)
            .contains(self.player_id(viewer))
    }

    /// Component-writing shortcut: puts the client's player at `at` as a granted connect
    /// spawn leaves it (spawned, alive, there, with `at` as its spawn info) without the
    /// RequestSpawn, the SpawnPlayer or a tick. Only for `benches/tick.rs`, which spawns a
    /// thousand players outside its measured ticks; tests use [`spawn`](Self::spawn), the
    /// real path.
    #[doc(hidden)]
    #[track_caller]
    pub fn spawn_at(&mut self, client: ClientId, at: Vec3) {
        self.with::<dlmp_core::session::Connection>(client, |c| c.spawn_granted());
        self.with::<SpawnState>(client, |s| {
            s.granted = true;
            s.info = Some(SpawnInfo {
                position: at,
                heading: 0.0,
                interior: 0,
                skin: 0,
                variant: 1,
            });
        });
        self.with::<Life>(client, |l| {
            *l = Life {
                spawned: true,
                alive: true,
            }
        });
        self.with::<Position>(client, |p| p.0 = at);
    }

    /// Alice and Bob, connected, spawned at `at` by the real connect spawn and shown to
    /// each other by streaming (same point, same scope), with what they received so far
    /// forgotten: the start of most on-foot scenarios.
    #[track_caller]
    pub fn connect_pair_at(&mut self, at: Vec3) -> (ClientId, ClientId) {
        let a = self.connect("alice");
        let b = self.connect("bob");
        self.step();
        self.spawn(a, at);
        self.spawn(b, at);
        assert!(
            self.is_shown(a, b) && self.is_shown(b, a),
            "streaming shows players at one point to each other"
        );
        self.clear(a);
        self.clear(b);
        (a, b)
    }

    /// Component-writing shortcut: marks `subject` as shown to `viewer` without a
    /// snapshot, as if streaming had shown it already: relays and events about the
    /// subject go to the viewer from now on. Streaming shows players within range on its
    /// own (see [`connect_pair_at`](Self::connect_pair_at)); this stays for a show that
    /// positions cannot produce in the test's tick.
    pub fn show(&mut self, subject: ClientId, viewer: ClientId) {
        let id = self.player_id(viewer);
        self.with::<Viewers>(subject, |v| v.insert(id));
    }

    /// The gamemode freezes or unfreezes the client's player (player.md, SetFrozen) with
    /// the command a gameplay plugin writes, and one tick: SetFrozen goes out and frame
    /// admission holds the player from that tick.
    pub fn freeze(&mut self, client: ClientId, frozen: bool) {
        let player = self.entity(client);
        self.world_mut()
            .write_message(dlmp_player::control::ControlCommand::Freeze { player, frozen });
        self.step();
    }

    /// The gamemode moves the client's player to another world scope (what
    /// `player:set_virtual_world` / `player:set_interior` do; `None` keeps that part) with
    /// the command a gameplay plugin writes, and one tick: ScopeChanged goes out and
    /// streaming reconciles the new scope in that tick (player.md, ScopeChanged).
    pub fn set_scope(
        &mut self,
        client: ClientId,
        virtual_world: Option<u32>,
        interior: Option<u8>,
    ) {
        let player = self.entity(client);
        self.world_mut()
            .write_message(dlmp_player::scope::SetScope {
                player,
                virtual_world,
                interior,
            });
        self.step();
    }

    /// The gamemode teleports the client's player to `at` (what `player:set_position`
    /// does: TeleportPlayer, the heading and the interior kept) with the command a
    /// gameplay plugin writes, and one tick: the server's position is `at` from that tick
    /// and the movement check starts there (player.md, TeleportPlayer).
    pub fn teleport(&mut self, client: ClientId, at: Vec3) {
        let player = self.entity(client);
        self.world_mut()
            .write_message(dlmp_player::teleport::Teleport {
                player,
                pos: at,
                heading: None,
                interior: None,
                ground: false,
            });
        self.step();
    }

    /// A living frame from the client where the server has it, with the next seq and the
    /// current life's death_epoch, and one tick: what a (re)spawned client's game sends,
    /// confirming its life (player.md, RespawnPlayer).
    pub fn live(&mut self, client: ClientId) {
        let seq = self
            .get::<dlmp_player::LastFrame>(client)
            .seq
            .map_or(1, |s| s.0.wrapping_add(1));
        let frame = Frame {
            death_epoch: self.get::<dlmp_player::DeathEpoch>(client).0,
            ..Frame::standing(self.get::<Position>(client).0)
        };
        self.sync(client, seq, frame);
    }

    /// Sends a PlayerSync of `frame` with `seq` from the client and runs one tick.
    pub fn sync(&mut self, client: ClientId, seq: u32, frame: Frame) {
        let packet = PlayerSync {
            session_token: self.token(client),
            seq: Seq(seq),
            frame,
        };
        self.send(client, packet);
        self.step();
    }

    /// Sends RequestSpawn (player.md) from the client, without stepping.
    pub fn request_spawn(&mut self, client: ClientId) {
        let packet = RequestSpawn {
            session_token: self.token(client),
        };
        self.send(client, packet);
    }

    /// Sends RespawnRequest (player.md) from the client, without stepping.
    pub fn request_respawn(&mut self, client: ClientId) {
        let packet = RespawnRequest {
            session_token: self.token(client),
        };
        self.send(client, packet);
    }

    /// The real respawn of a dead player: waits out the default least time dead
    /// ([`dlmp_player::respawn::DEFAULT_RESPAWN_DELAY`]), sends RespawnRequest and runs
    /// one tick, in which the server grants it.
    pub fn respawn(&mut self, client: ClientId) {
        self.advance(dlmp_player::respawn::DEFAULT_RESPAWN_DELAY);
        self.request_respawn(client);
        self.step();
    }

    /// A lethal fall (DamageReport, weapon 54, the next damage_seq) that the ledger
    /// commits in the tick it runs.
    #[track_caller]
    pub fn die(&mut self, client: ClientId) {
        let seq = self.get::<dlmp_player::Ledger>(client).damage_seq.0 + 1;
        self.report_damage(client, seq, 54, 200.0);
        self.step();
        assert!(!self.get::<Life>(client).alive, "the fall kills");
    }

    /// The real death and respawn flow: [`die`](Self::die), the default respawn delay,
    /// then RespawnRequest and one tick, in which the server grants the respawn.
    #[track_caller]
    pub fn die_and_respawn(&mut self, client: ClientId) {
        self.die(client);
        self.respawn(client);
        assert!(self.get::<Life>(client).alive, "the respawn is granted");
    }

    /// Sends a DamageReport without an attacker (connection.md §6) as a client event,
    /// without stepping.
    pub fn report_damage(&mut self, victim: ClientId, damage_seq: u32, weapon: u8, amount: f32) {
        let report = DamageReport {
            session_token: self.token(victim),
            event_id: EventId(0),
            damage_seq: Seq(damage_seq),
            has_attacker: false,
            attacker_id: PlayerId::NONE,
            attacker_token: PlayerToken(0),
            weapon,
            amount,
            bodypart: 3,
        };
        self.send_event(victim, report);
    }

    /// Sends a DeathReport (player.md) with `pose` as a client event, without stepping.
    pub fn report_death(&mut self, victim: ClientId, pose: DeathPose) {
        let report = DeathReport {
            session_token: self.token(victim),
            event_id: EventId(0),
            weapon: pose.weapon,
            anim_group: pose.anim_group,
            anim: pose.anim,
        };
        self.send_event(victim, report);
    }

    /// Everything the client applied so far, in order.
    pub fn received(&self, client: ClientId) -> &[ServerPacket] {
        &self.clients[client.0].inbox
    }

    /// Every packet the client got, resends and duplicates included, in arrival order: a
    /// bundle's inner packets each, as the client's game takes them. How many datagrams
    /// carried them is [`datagrams`](Self::datagrams).
    pub fn wire(&self, client: ClientId) -> &[ServerPacket] {
        &self.clients[client.0].wire
    }

    /// Datagrams the client got so far (a bundle counts once), cleared with the rest.
    pub fn datagrams(&self, client: ClientId) -> usize {
        self.clients[client.0].datagrams
    }

    /// Forgets what the client received so far (applied and on the wire).
    pub fn clear(&mut self, client: ClientId) {
        // Their room goes too, so that a long scenario's memory stays what the server holds.
        self.clients[client.0].inbox = Vec::new();
        self.clients[client.0].wire = Vec::new();
        self.clients[client.0].datagrams = 0;
    }

    /// Takes what the client applied so far.
    pub fn take(&mut self, client: ClientId) -> Vec<ServerPacket> {
        self.clients[client.0].wire.clear();
        self.clients[client.0].datagrams = 0;
        std::mem::take(&mut self.clients[client.0].inbox)
    }

    /// The texts of the chat lines the client applied, in order.
    pub fn chat_lines(&self, client: ClientId) -> Vec<String> {
        self.packets::<ChatMessage>(client)
            .iter()
            .map(|m| m.text.as_str().to_owned())
            .collect()
    }

    /// The chat lines the client applied since the last clear, then forgets everything it
    /// received, as [`Harness::clear`] does.
    pub fn take_chat_lines(&mut self, client: ClientId) -> Vec<String> {
        let lines = self.chat_lines(client);
        self.clear(client);
        lines
    }

    /// The Lua host of the app (its resources, its error count).
    #[track_caller]
    pub fn script_host(&self) -> &ScriptHost {
        self.world().non_send::<ScriptHost>()
    }

    /// The packets of type `P` the client applied, in order.
    pub fn packets<P: TryFrom<ServerPacket>>(&self, client: ClientId) -> Vec<P> {
        self.received(client)
            .iter()
            .cloned()
            .filter_map(|p| P::try_from(p).ok())
            .collect()
    }

    /// Runs one tick of the app alone: no acks go in and nothing is delivered; the
    /// server's datagrams wait for [`discard_sent`](Self::discard_sent). For benchmarks
    /// that time the server, not the virtual clients.
    pub fn step_server_only(&mut self) {
        let deadline = self.epoch + self.now() + self.tick();
        self.app
            .insert_resource(dlmp_core::tick::StepDeadline(deadline));
        self.app.update();
    }

    /// Drops the datagrams the server sent since they were last delivered or discarded,
    /// and counts them: what the network thread does with them, outside a benchmark's
    /// timing of the tick.
    pub fn discard_sent(&mut self) -> usize {
        let mut n = 0;
        while let Some(shipment) = self.from_server.try_recv() {
            n += shipment.len();
            self.from_server.done(shipment);
        }
        n
    }

    /// Datagrams sent to addresses no virtual client owns.
    pub fn stray(&self) -> &[Datagram] {
        &self.stray
    }

    /// Asks the server to stop, as Ctrl-C does.
    pub fn request_shutdown(&mut self) {
        self.shutdown.store(true, Ordering::Relaxed);
    }

    /// Whether the app asked to exit.
    pub fn exited(&self) -> bool {
        self.app.should_exit().is_some()
    }
}
