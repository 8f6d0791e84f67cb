//! The network thread over real sockets on 127.0.0.1 (connection.md §1): valid datagrams
//! arrive decoded, malformed ones are counted by reason and never arrive, outbound
//! datagrams go out, a full queue counts as overloaded, shutdown flushes and joins.
//!
//! Waiting is on channels and sockets with generous timeouts; the one counter wait polls
//! with a deadline.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::TryRecvError;
use dlmp::net::{Datagram, DropReason, Inbound, NetConfig, NetHandle, NetStats, spawn};
use dlmp::protocol::connection::samples::handshake::client_hello;
use dlmp::protocol::player::samples::sync::player_sync;
use dlmp::protocol::sample;
use dlmp::protocol::{ClientPacket, Direction, ErrorKind, MAX_DATAGRAM, Packet};

const TIMEOUT: Duration = Duration::from_secs(5);

/// A network thread on a free loopback port and a client socket talking to it.
struct Harness {
    net: NetHandle,
    stats: Arc<NetStats>,
    client: UdpSocket,
}

impl Harness {
    fn new() -> Self {
        Harness::with_capacity(NetConfig::default().inbound_capacity)
    }

    fn with_capacity(inbound_capacity: usize) -> Self {
        let stats = Arc::new(NetStats::default());
        let config = NetConfig {
            bind: loopback(0),
            inbound_capacity,
            ..NetConfig::default()
        };
        let net = spawn(config, Arc::clone(&stats)).expect("spawn the network thread");
        let client = UdpSocket::bind(loopback(0)).expect("bind a client socket");
        client
            .set_read_timeout(Some(TIMEOUT))
            .expect("set a read timeout");
        Harness { net, stats, client }
    }

    fn send(&self, bytes: &[u8]) {
        let n = self
            .client
            .send_to(bytes, self.net.local_addr())
            .expect("send to the server");
        assert_eq!(n, bytes.len());
    }

    #[track_caller]
    fn next_inbound(&self) -> Inbound {
        self.net
            .inbound
            .recv_timeout(TIMEOUT)
            .expect("a datagram within the timeout")
    }

    #[track_caller]
    fn assert_no_more_inbound(&self) {
        assert_eq!(self.net.inbound.try_recv(), Err(TryRecvError::Empty));
    }

    /// The next datagram the client receives, with its sender.
    #[track_caller]
    fn client_recv(&self) -> (Vec<u8>, SocketAddr) {
        let mut buf = [0u8; MAX_DATAGRAM + 1];
        let (n, from) = self
            .client
            .recv_from(&mut buf)
            .expect("a datagram for the client");
        (buf[..n].to_vec(), from)
    }

    fn client_addr(&self) -> SocketAddr {
        self.client.local_addr().expect("a bound client")
    }
}

fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

fn hello_bytes() -> Vec<u8> {
    client_hello().to_bytes().expect("a valid hello")
}

/// A packet_id no Client → Server packet uses.
fn unknown_id() -> u8 {
    (0..=u8::MAX)
        .rev()
        .find(|id| ClientPacket::PACKETS.iter().all(|(p, _)| p != id))
        .expect("a free packet_id")
}

#[test]
fn every_client_fixture_arrives_decoded_with_the_senders_address() {
    let h = Harness::new();
    let fixtures: Vec<Vec<u8>> = sample::all()
        .iter()
        .filter(|s| s.direction() == Direction::ClientToServer)
        .map(|s| s.encode().unwrap())
        .collect();
    assert!(!fixtures.is_empty());
    for bytes in &fixtures {
        h.send(bytes);
    }
    for bytes in &fixtures {
        let inbound = h.next_inbound();
        assert_eq!(inbound.from, h.client_addr());
        assert_eq!(inbound.packet, ClientPacket::decode(bytes).unwrap());
    }
    h.assert_no_more_inbound();
    assert_eq!(h.stats.received_count(), fixtures.len() as u64);
    assert_eq!(h.stats.total_drops(), 0);
}

#[test]
fn malformed_datagrams_are_counted_by_reason_and_never_arrive() {
    let h = Harness::new();
    let hello = hello_bytes();
    let sync = player_sync().to_bytes().unwrap();

    let garbage = [unknown_id(), 0xDE, 0xAD, 0xBE, 0xEF];
    let truncated = &sync[..sync.len() - 1];
    let mut too_long = sync.clone();
    too_long.push(0);
    let mut oversized_valid_id = vec![0u8; MAX_DATAGRAM + 1];
    oversized_valid_id[..hello.len()].copy_from_slice(&hello);
    let oversized_garbage = vec![unknown_id(); MAX_DATAGRAM + 1];
    let way_oversized = vec![hello[0]; 4000];
    for bytes in [
        &garbage[..],
        truncated,
        &too_long,
        &[],
        &oversized_valid_id,
        &oversized_garbage,
        &way_oversized,
    ] {
        h.send(bytes);
    }
    // The thread reads in order; once the marker arrives, everything before it was handled.
    h.send(&hello);

    let inbound = h.next_inbound();
    assert_eq!(inbound.packet, ClientPacket::decode(&hello).unwrap());
    h.assert_no_more_inbound();
    assert_eq!(
        h.stats.drops(DropReason::Decode(ErrorKind::UnknownPacket)),
        1
    );
    // truncated, too long, empty and the three oversized ones
    assert_eq!(h.stats.drops(DropReason::Decode(ErrorKind::Length)), 6);
    assert_eq!(h.stats.total_drops(), 7);
    assert_eq!(h.stats.received_count(), 1);
}

#[test]
fn an_outbound_datagram_reaches_the_client() {
    let h = Harness::new();
    let bytes = vec![0x06, 0x00];
    h.net
        .outbound
        .send(Datagram {
            to: h.client_addr(),
            bytes: bytes.clone(),
        })
        .unwrap();
    let (received, from) = h.client_recv();
    assert_eq!(received, bytes);
    assert_eq!(from, h.net.local_addr());
}

#[test]
fn a_send_error_is_counted_and_the_thread_keeps_going() {
    let h = Harness::new();
    let send =
        |to: SocketAddr, bytes: Vec<u8>| h.net.outbound.send(Datagram { to, bytes }).unwrap();
    // An IPv6 destination from an IPv4 socket, and a datagram over the limit.
    send("[::1]:9".parse().unwrap(), vec![0x06, 0x00]);
    send(h.client_addr(), vec![0; MAX_DATAGRAM + 1]);
    send(h.client_addr(), vec![0x06, 0x01]);

    let (received, _) = h.client_recv();
    assert_eq!(received, [0x06, 0x01]);
    // The thread still receives.
    h.send(&hello_bytes());
    h.next_inbound();

    let Harness { net, stats, .. } = h;
    net.shutdown().unwrap();
    assert_eq!(stats.send_error_count(), 2);
    assert_eq!(stats.sent_count(), 1);
}

#[test]
fn a_full_inbound_queue_counts_overloaded_and_drops() {
    let h = Harness::with_capacity(1);
    let hello = hello_bytes();
    for _ in 0..3 {
        h.send(&hello);
    }
    // The app is not reading: the first fills the queue, the other two are dropped.
    let deadline = Instant::now() + TIMEOUT;
    while h.stats.drops(DropReason::Overloaded) < 2 {
        assert!(Instant::now() < deadline, "{}", h.stats.summary());
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        h.next_inbound().packet,
        ClientPacket::decode(&hello).unwrap()
    );
    h.assert_no_more_inbound();
    assert_eq!(h.stats.received_count(), 1);
    assert_eq!(h.stats.drops(DropReason::Overloaded), 2);
}

#[test]
fn shutdown_flushes_queued_outbound_datagrams_and_joins() {
    let h = Harness::new();
    let count = 200u8;
    for i in 0..count {
        h.net
            .outbound
            .send(Datagram {
                to: h.client_addr(),
                bytes: vec![0x06, i],
            })
            .unwrap();
    }
    let Harness { net, stats, client } = h;
    let started = Instant::now();
    net.shutdown().expect("the thread did not panic");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(stats.sent_count(), u64::from(count));

    let mut buf = [0u8; 16];
    for i in 0..count {
        let n = client.recv(&mut buf).expect("a flushed datagram");
        assert_eq!(&buf[..n], [0x06, i]);
    }
}

#[test]
fn dropping_the_handle_stops_the_thread_and_closes_the_socket() {
    let h = Harness::new();
    let addr = h.net.local_addr();
    assert!(
        UdpSocket::bind(addr).is_err(),
        "the port is in use while running"
    );
    drop(h);
    UdpSocket::bind(addr).expect("the port is free once the handle is dropped");
}

#[test]
fn a_second_server_on_a_port_in_use_fails_to_start() {
    let h = Harness::new();
    let config = NetConfig {
        bind: h.net.local_addr(),
        ..NetConfig::default()
    };
    let err = spawn(config, Arc::new(NetStats::default())).expect_err("no address reuse");
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
}
