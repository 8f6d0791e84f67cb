//! The reliability suite (issue 10), bounded to a few seconds so it runs on every
//! `cargo test`: hostile input at the real socket while real players keep full service, a
//! hello flood from one host, the bytes sent to silent sessions, and a reliable lane over a
//! link that loses 30 % of the datagrams both ways and reorders them.

#[path = "support/real.rs"]
mod real;

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use dlmp::config::Config;
use dlmp::harness::Harness;
use dlmp::net::DropReason;
use dlmp::protocol::connection::chat::{ChatMessage, ChatText, ClientChat};
use dlmp::protocol::connection::handshake::ServerHello;
use dlmp::protocol::connection::lane::ClientAck;
use dlmp::protocol::connection::roster::PlayerJoin;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, Seq};
use dlmp::protocol::player::sync::{Frame, PlayerSync};
use dlmp::protocol::{ClientPacket, MAX_DATAGRAM, ServerPacket};
use dlmp::session::SessionState;
use real::{Client, Server, config};

/// A small deterministic generator (xorshift64*), so every run sends the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn byte(&mut self) -> u8 {
        self.next().to_le_bytes()[0]
    }
}

/// Valid client datagrams to mutate: every kind a fuzzer would start from.
fn seeds(token: dlmp::protocol::ids::SessionToken) -> Vec<Vec<u8>> {
    let packets: Vec<ClientPacket> = vec![
        dlmp::protocol::connection::samples::handshake::client_hello().into(),
        ClientAck {
            session_token: token,
            event_id: EventId(3),
        }
        .into(),
        ClientChat {
            session_token: token,
            event_id: EventId(1),
            text: ChatText::new("hi").expect("short"),
        }
        .into(),
        PlayerSync {
            session_token: token,
            seq: Seq(1),
            frame: Frame::standing(Vec3 {
                x: 0.0,
                y: 0.0,
                z: 3.0,
            }),
        }
        .into(),
    ];
    packets
        .iter()
        .map(|p| {
            let mut buf = [0u8; MAX_DATAGRAM];
            let n = p.encode(&mut buf).expect("valid");
            buf[..n].to_vec()
        })
        .collect()
}

/// Random and mutated datagrams (flipped bytes, cut or grown, random ids) from a socket of
/// their own, aimed at the server while two real players chat: every line still reaches
/// the other player exactly once, in order, and the server is still answering at the end.
#[test]
fn random_and_mutated_datagrams_at_the_socket_cost_a_real_player_nothing() {
    let server = Server::start(config());
    let mut alice = Client::new_at(&server, [127, 0, 3, 1], 1);
    let mut bob = Client::new_at(&server, [127, 0, 3, 2], 2);
    alice.connect("alice");
    bob.connect("bob");
    bob.wait_for(|j: &PlayerJoin| j.name.as_str() == "alice");
    let fuzzer = UdpSocket::bind(real::loopback()).expect("bind");
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let seeds = seeds(alice.token);
    for round in 0..5 {
        for _ in 0..600 {
            let bytes = if rng.chance(30) {
                let len = rng.below(MAX_DATAGRAM as u64 + 40) as usize;
                (0..len).map(|_| rng.byte()).collect::<Vec<u8>>()
            } else {
                let mut b = seeds[rng.below(seeds.len() as u64) as usize].clone();
                match rng.below(3) {
                    0 => {
                        for _ in 0..=rng.below(4) {
                            let i = rng.below(b.len() as u64) as usize;
                            b[i] ^= rng.byte() | 1;
                        }
                    }
                    1 => b.truncate(rng.below(b.len() as u64) as usize),
                    _ => b.extend((0..=rng.below(8)).map(|_| rng.byte())),
                }
                b
            };
            fuzzer.send_to(&bytes, server.addr).expect("send");
        }
        alice.chat(&format!("line {round}"));
        let line = bob.wait_for(|_: &ChatMessage| true);
        assert_eq!(line.text.as_str(), format!("alice: line {round}"));
    }
    assert_eq!(bob.applied::<ChatMessage>().len(), 5);
    assert!(server.stats.total_drops() > 0, "{}", server.stats.summary());
    // Still answering after it all.
    let mut carl = Client::new_at(&server, [127, 0, 3, 3], 3);
    carl.connect("carl");
}

/// A UDP relay between one client and the server that loses `loss` percent of the
/// datagrams each way and holds back one in five to send it after the next (reordering).
/// Decisions come from a fixed seed.
struct LossyLink {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl LossyLink {
    fn start(server: SocketAddr, loss: u64, seed: u64) -> LossyLink {
        let socket = UdpSocket::bind(SocketAddr::from(([127, 0, 5, 1], 0))).expect("bind");
        socket
            .set_read_timeout(Some(Duration::from_millis(5)))
            .expect("timeout");
        let addr = socket.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = thread::spawn(move || {
            let mut rng = Rng(seed);
            let mut client: Option<SocketAddr> = None;
            let mut held: Option<(SocketAddr, Vec<u8>)> = None;
            let mut buf = [0u8; MAX_DATAGRAM + 1];
            while !flag.load(Ordering::Relaxed) {
                let Ok((n, from)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                let to = if from == server {
                    match client {
                        Some(c) => c,
                        None => continue,
                    }
                } else {
                    client = Some(from);
                    server
                };
                if rng.chance(loss) {
                    continue;
                }
                let datagram = buf[..n].to_vec();
                if held.is_none() && rng.chance(20) {
                    held = Some((to, datagram));
                    continue;
                }
                let _ = socket.send_to(&datagram, to);
                if let Some((to, late)) = held.take() {
                    let _ = socket.send_to(&late, to);
                }
            }
        });
        LossyLink {
            addr,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for LossyLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// 30 % loss each way and reordering: every event of the lane (the roster snapshot and a
/// burst of chat lines) is applied once and in order, and the lane needs nothing else.
#[test]
fn a_lane_at_30_percent_loss_with_reordering_delivers_every_event_once_in_order() {
    let server = Server::start(Config {
        session_timeout_ms: 60_000,
        ..config()
    });
    let mut talkers: Vec<Client> = (0..8u8)
        .map(|i| Client::new_at(&server, [127, 0, 4, i + 1], 10 + u32::from(i)))
        .collect();
    for (i, t) in talkers.iter_mut().enumerate() {
        t.connect(&format!("talker{i}"));
    }
    let link = LossyLink::start(server.addr, 30, 0xC0FF_EE00_0030);
    let mut lossy = Client::new_at(&server, [127, 0, 5, 2], 99);
    lossy.server = link.addr;
    // The hello and its proof may be lost: resend as a client does.
    let mut proven = false;
    let deadline = Instant::now() + Duration::from_secs(20);
    lossy
        .socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    while !proven {
        assert!(Instant::now() < deadline, "no ServerHello through the link");
        lossy.send(lossy.hello("lossy"));
        while let Some(p) = lossy.receive() {
            if let ServerPacket::ServerHello(h) = p {
                lossy.token = h.session_token;
                proven = true;
            }
        }
    }
    for t in talkers.iter_mut() {
        for n in 0..5 {
            t.chat(&format!("{n}"));
        }
    }
    let expected_lines = talkers.len() * 5;
    while lossy.applied::<ChatMessage>().len() < expected_lines
        || lossy.applied::<PlayerJoin>().len() < talkers.len()
    {
        assert!(
            Instant::now() < deadline,
            "not everything arrived: {} lines, {} joins",
            lossy.applied::<ChatMessage>().len(),
            lossy.applied::<PlayerJoin>().len()
        );
        if lossy.receive().is_none() {
            // A lost ack: acknowledge again what was applied (the proof, too).
            lossy.ack();
        }
    }
    let events: Vec<EventId> = lossy
        .inbox
        .iter()
        .filter_map(ServerPacket::event_id)
        .collect();
    let want: Vec<EventId> = (1..=events.len() as u32).map(EventId).collect();
    assert_eq!(events, want, "every event once, in order");
    // Each talker's lines in the order it sent them.
    for i in 0..talkers.len() {
        let lines: Vec<String> = lossy
            .applied::<ChatMessage>()
            .iter()
            .map(|m| m.text.as_str().to_owned())
            .filter(|t| t.starts_with(&format!("talker{i}: ")))
            .collect();
        let want: Vec<String> = (0..5).map(|n| format!("talker{i}: {n}")).collect();
        assert_eq!(lines, want);
    }
    drop(link);
}

/// 40 sockets of one host say hello as fast as they can for 3 s against a server of 20
/// slots: at most 4 hellos a second get through (the first second included), the host
/// never holds more than its cap, and a player from another host gets in.
#[test]
fn a_hello_flood_from_one_ip_cannot_take_the_slots() {
    let mut h = Harness::with_config(Config {
        max_players: 20,
        max_sessions_per_ip: 6,
        session_timeout_ms: 60_000,
        ..Harness::config()
    });
    let ip: IpAddr = "127.66.0.1".parse().expect("ip");
    let bots: Vec<_> = (0..40).map(|_| h.add_client_at(ip)).collect();
    for tick in 0..150 {
        for (i, &b) in bots.iter().enumerate() {
            if h.token(b).0 == 0 {
                let hello = h.client_hello(b, &format!("bot{i:02}"));
                h.send(b, hello);
            } else if tick % 25 == 0 {
                h.prove(b);
            }
        }
        h.step();
        let at_ip = h
            .world()
            .resource::<SessionState>()
            .sessions
            .count_at_ip(ip);
        assert!(at_ip <= 4 * (tick / 50 + 1), "{at_ip} at tick {tick}");
    }
    let answered = bots
        .iter()
        .filter(|&&b| !h.packets::<ServerHello>(b).is_empty())
        .count();
    assert_eq!(answered, 6, "the per-IP cap");
    assert!(h.stats().drops(DropReason::RateLimited) > 5_000);
    let player = h.connect("real_player");
    assert_eq!(h.packets::<PlayerJoin>(player).len(), 6);
}

/// 20 hosts that say hello and never prove, with resends and new nonces, next to 6
/// players: everything they were sent is hellos answered, never more bytes than they sent.
#[test]
fn silent_sessions_are_never_sent_more_bytes_than_they_sent() {
    let mut h = Harness::new();
    let players: Vec<_> = (0..6).map(|i| h.connect(&format!("player{i}"))).collect();
    let silent: Vec<_> = (0..20).map(|_| h.add_client()).collect();
    let (bytes_in, bytes_out) = (
        h.stats().unproven_received_bytes(),
        h.stats().unproven_sent_bytes(),
    );
    let mut rng = Rng(7);
    for tick in 0..300u32 {
        for (i, &s) in silent.iter().enumerate() {
            if tick % 25 == (i as u32) % 25 {
                let mut hello = h.client_hello(s, &format!("silent{i:02}"));
                if rng.chance(10) {
                    hello.nonce ^= rng.below(1000) as u32 + 1;
                }
                h.send(s, hello);
            }
        }
        if tick % 60 == 0 {
            h.chat(
                players[(tick / 60) as usize % players.len()],
                "anyone there?",
            );
        }
        h.step();
    }
    let sent = h.stats().unproven_sent_bytes() - bytes_out;
    let received = h.stats().unproven_received_bytes() - bytes_in;
    assert!(
        sent > 0 && sent <= received,
        "sent {sent}, received {received}"
    );
    let kinds: HashSet<&str> = silent
        .iter()
        .flat_map(|&s| h.wire(s).iter().map(ServerPacket::name))
        .collect();
    assert!(
        kinds
            .iter()
            .all(|k| ["ServerHello", "ConnectRefused"].contains(k)),
        "{kinds:?}"
    );
}
