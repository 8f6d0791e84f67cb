//! The network thread over real sockets on 127.0.0.1 (connection.md §1): valid datagrams
//! arrive decoded, malformed ones are counted by reason and never arrive, outbound
//! datagrams go out, a full queue counts as overloaded, shutdown flushes and joins; inbound
//! is read while a large outbound batch is pending; a full outbound queue sheds, relays
//! first, counted and told to the app; several send threads keep each address's order.
//!
//! Waiting is on channels and sockets with generous timeouts; the one counter wait polls
//! with a deadline.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::TryRecvError;
use dlmp_net::{
    Datagram, DropReason, Inbound, NetConfig, NetHandle, NetStats, Outbound, ShedReason, spawn,
};
use dlmp_protocol::connection::chat::ChatMessage;
use dlmp_protocol::connection::samples::handshake::client_hello;
use dlmp_protocol::player::samples::sync::player_sync;
use dlmp_protocol::player::sync::RemotePlayerSync;
use dlmp_protocol::query::QUERY_IDS;
use dlmp_protocol::sample;
use dlmp_protocol::{ClientPacket, Direction, ErrorKind, MAX_DATAGRAM, Packet};

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
        .filter(|s| s.direction() == Direction::ClientToServer && !QUERY_IDS.contains(&s.id()))
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
    // The sent shipment comes back for the app to fill again, and the queue is empty.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while h.net.outbound.pool().pooled() == 0 && std::time::Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert_eq!(h.net.outbound.pool().pooled(), 1, "given back once sent");
    assert!(h.net.outbound.pool().take().is_empty());
    assert_eq!(h.net.outbound.queued(), 0);
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

/// Datagrams to a socket that never reads: the kernel drops them once its buffer is full,
/// and the sends still count as sent.
fn pending_batch(to: SocketAddr, count: usize) -> Vec<Datagram> {
    (0..count)
        .map(|i| Datagram {
            to,
            bytes: vec![0x06, (i % 251) as u8],
        })
        .collect()
}

#[test]
fn inbound_is_read_while_a_large_outbound_batch_is_pending() {
    let stats = Arc::new(NetStats::default());
    let net = spawn(
        NetConfig {
            bind: loopback(0),
            outbound_capacity: 400_000,
            ..NetConfig::default()
        },
        Arc::clone(&stats),
    )
    .unwrap();
    let sink = UdpSocket::bind(loopback(0)).unwrap();
    let client = UdpSocket::bind(loopback(0)).unwrap();
    let total = 200_000;
    for datagram in pending_batch(sink.local_addr().unwrap(), total) {
        net.outbound
            .send(datagram)
            .expect("room for the whole batch");
    }
    // Sending 200 000 datagrams takes the thread a good part of a second; the hello is read
    // between two send batches, long before the last of them.
    client.send_to(&hello_bytes(), net.local_addr()).unwrap();
    let inbound = net
        .inbound
        .recv_timeout(TIMEOUT)
        .expect("the hello arrives");
    let sent_before = stats.sent_count();
    assert_eq!(inbound.from, client.local_addr().unwrap());
    assert!(
        sent_before < total as u64,
        "the hello waited for the whole outbound batch ({sent_before} sent)"
    );
    net.shutdown().unwrap();
    assert_eq!(stats.sent_count(), total as u64, "{}", stats.summary());
}

#[test]
fn a_full_outbound_queue_sheds_relays_first_then_anything_and_counts_each() {
    let stats = Arc::new(NetStats::default());
    // No thread reads these queues: the test plays the app against a queue of 8.
    let (outbound, queues) = Outbound::bounded(8, 1, Arc::clone(&stats));
    let to = loopback(9);
    let relay = |seq: u8| Datagram {
        to,
        bytes: vec![RemotePlayerSync::ID, seq],
    };
    let event = |id: u8| Datagram {
        to,
        bytes: vec![ChatMessage::ID, id],
    };
    // Relays fill 3/4 of the queue (6 of 8); the next relay is shed, events still go in.
    for seq in 0..6 {
        assert_eq!(outbound.send(relay(seq)), Ok(()));
    }
    assert!(outbound.is_congested());
    assert_eq!(outbound.send(relay(6)), Err(ShedReason::Relay));
    assert_eq!(outbound.send(event(1)), Ok(()));
    assert_eq!(outbound.send(event(2)), Ok(()));
    // Full: anything is shed.
    assert_eq!(outbound.send(event(3)), Err(ShedReason::Full));
    assert_eq!(outbound.send(relay(7)), Err(ShedReason::Relay));
    assert_eq!(outbound.queued(), 8);
    assert_eq!(outbound.capacity(), Some(8));
    assert_eq!(stats.shed_count(ShedReason::Relay), 2);
    assert_eq!(stats.shed_count(ShedReason::Full), 1);
    // What was queued is what the sending thread gets, in order.
    let mut queued: Vec<Vec<u8>> = Vec::new();
    while let Some(shipment) = queues[0].try_recv() {
        queued.extend(shipment.iter().map(|(_, bytes)| bytes.to_vec()));
        queues[0].done(shipment);
    }
    let expected: Vec<Vec<u8>> = (0..6)
        .map(relay)
        .chain([event(1), event(2)])
        .map(|d| d.bytes)
        .collect();
    assert_eq!(queued, expected);
    assert!(!outbound.is_congested());
    drop(queues);
    assert_eq!(outbound.send(event(4)), Err(ShedReason::Closed));
}

#[test]
fn a_thread_behind_its_queue_sheds_and_every_datagram_is_accounted_for() {
    let stats = Arc::new(NetStats::default());
    let net = spawn(
        NetConfig {
            bind: loopback(0),
            outbound_capacity: 16,
            ..NetConfig::default()
        },
        Arc::clone(&stats),
    )
    .unwrap();
    let sink = UdpSocket::bind(loopback(0)).unwrap();
    let total = 20_000u64;
    let mut refused = 0u64;
    for datagram in pending_batch(sink.local_addr().unwrap(), total as usize) {
        if net.outbound.send(datagram).is_err() {
            refused += 1;
        }
    }
    net.shutdown().unwrap();
    let shed = stats.shed_count(ShedReason::Full) + stats.shed_count(ShedReason::Relay);
    assert_eq!(shed, refused, "the app is told of every shed datagram");
    assert_eq!(stats.sent_count() + shed, total, "{}", stats.summary());
    assert!(shed > 0, "queueing outpaces sending 16 at a time");
}

#[test]
fn several_send_threads_keep_each_addresss_order() {
    let stats = Arc::new(NetStats::default());
    let net = spawn(
        NetConfig {
            bind: loopback(0),
            send_threads: 3,
            ..NetConfig::default()
        },
        Arc::clone(&stats),
    )
    .unwrap();
    let clients: Vec<UdpSocket> = (0..4)
        .map(|_| {
            let c = UdpSocket::bind(loopback(0)).unwrap();
            c.set_read_timeout(Some(TIMEOUT)).unwrap();
            c
        })
        .collect();
    let per_client = 200u8;
    for i in 0..per_client {
        for c in &clients {
            net.outbound
                .send(Datagram {
                    to: c.local_addr().unwrap(),
                    bytes: vec![0x06, i],
                })
                .unwrap();
        }
    }
    let mut buf = [0u8; 16];
    for c in &clients {
        for i in 0..per_client {
            let n = c.recv(&mut buf).expect("a datagram");
            assert_eq!(&buf[..n], [0x06, i]);
        }
    }
    // The receiving side still works beside the extra senders.
    clients[0]
        .send_to(&hello_bytes(), net.local_addr())
        .unwrap();
    net.inbound
        .recv_timeout(TIMEOUT)
        .expect("the hello arrives");
    net.shutdown().unwrap();
    assert_eq!(stats.sent_count(), 4 * u64::from(per_client));
}
