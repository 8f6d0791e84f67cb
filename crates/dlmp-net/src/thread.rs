//! The network thread (connection.md §1): the only code that touches the UDP socket.
//!
//! [`spawn`] binds a socket and starts one thread, `dlmp-net`, that owns it for reading and
//! sends too, plus `net_send_threads - 1` threads `dlmp-send-N` that only send, each on a
//! clone of the one socket. Every datagram is decoded by the shared [`Decoder`] (the harness uses it too); a
//! failure is counted by [`DropReason::Decode`] and logged at debug level, rate-limited,
//! and never reaches the app. A valid packet goes to the app as an [`Inbound`] over a
//! bounded channel; when that is full the packet is counted as [`DropReason::Overloaded`]
//! and dropped, so the receive loop never waits for the app. The app queues datagrams, a
//! [`Shipment`] of them at a time, through [`Outbound`] (bounded, with backpressure:
//! net/outbound.rs) and the threads send them. Decisions:
//! docs/decisions/0025-network-thread.md, docs/decisions/0080-one-outbound-arena.md.
//!
//! # The loop of `dlmp-net`
//!
//! The socket is non-blocking. Each turn:
//!
//! 1. Read up to [`READ_BUDGET`] datagrams, [`batch::BATCH`] per `recvmmsg` call, until the
//!    socket has none left.
//! 2. Send at most one batch ([`batch::BATCH`] datagrams, one `sendmmsg` call) of its own
//!    queue, then go back to 1. So inbound waits for at most one send batch (~0.1 ms), never
//!    for a whole tick's relays: two frames of one player no longer pile up into one tick.
//! 3. If shutdown was asked, send what was queued before and stop.
//! 4. With the socket drained and nothing queued, block on its outbound queue for at most
//!    1 ms ([`POLL_INTERVAL`]), sending at once whatever arrives; after a second without
//!    inbound traffic, for at most 10 ms ([`IDLE_POLL_INTERVAL`]).
//!
//! So the app's datagrams go out as soon as they are queued (the channel wakes the thread),
//! and a new inbound datagram is noticed within 1 ms, which the app, draining once a tick,
//! does not see (within 10 ms for the first one after a quiet second, such as a hello to an
//! empty server). Blocking on the socket with `SO_RCVTIMEO` instead would delay outbound by
//! a kernel tick (measured 7-12 ms here for a 1 ms timeout: the timeout is rounded to
//! jiffies). The cost of polling is measured by `examples/flood.rs`: ~5% of a core at
//! 1 ms, well under 1% at 10 ms.
//!
//! A `dlmp-send-N` thread blocks on its own queue and sends what arrives in batches.
//! Datagrams for one address always use the same queue, so they leave in order.
//!
//! Shutdown ([`NetHandle::shutdown`] or drop) sets a flag the threads see within one poll
//! interval; each then sends everything already on its queue (the app's last sends, such
//! as the Disconnect burst) before it exits, and the handle joins them.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use socket2::{Domain, Protocol, Socket, Type};

use super::batch::{self, BATCH};
use super::ingress::Decoder;
use super::log_limit::LogLimit;
use super::query::{self, QueryBoard, QueryLimiter};
use super::sessions::SessionBoard;
use super::{DropReason, Inbound, NetStats, Outbound, Shipment, Shipments};
use dlmp_protocol::MAX_DATAGRAM;

/// Datagrams read in one turn before the thread sends a batch: inbound comes first, but a
/// flood cannot stop outbound either.
const READ_BUDGET: usize = 4 * BATCH;

/// The longest the thread waits on the outbound channel before looking at the socket again:
/// the added inbound latency between datagrams, and how soon shutdown is noticed.
const POLL_INTERVAL: Duration = Duration::from_millis(1);

/// [`POLL_INTERVAL`] once no datagram has arrived for [`QUIET_TURNS`] turns (about a
/// second), so an empty server does not wake a thousand times a second.
const IDLE_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// Turns of the loop without an inbound datagram before polling slows down.
const QUIET_TURNS: u32 = 1000;

/// How to open the socket and size the queues.
#[derive(Debug, Clone)]
pub struct NetConfig {
    /// Address and port to bind. Default `127.0.0.1:7777`; port 0 picks a free port (see
    /// [`NetHandle::local_addr`]).
    pub bind: SocketAddr,
    /// `SO_RCVBUF` in bytes: how much the kernel holds while the thread is busy. Default
    /// 4 MiB. Linux caps it at `net.core.rmem_max` (a warning is logged when it does).
    pub recv_buffer: usize,
    /// `SO_SNDBUF` in bytes. Default 4 MiB; capped at `net.core.wmem_max`.
    pub send_buffer: usize,
    /// Decoded datagrams the inbound channel holds for the app; past that they are dropped as
    /// [`DropReason::Overloaded`]. Default 65536: two seconds of 1000 players sending at
    /// 30 Hz, for an app that drains it every tick. 0 counts as 1.
    pub inbound_capacity: usize,
    /// Datagrams each sending thread's queue holds; past 3/4 of it relays are shed, past
    /// all of it anything (net/outbound.rs). Default 65536: more than a tick of 1000
    /// players' relays at protocol 1. 0 counts as 1.
    pub outbound_capacity: usize,
    /// Threads that send: `dlmp-net` itself and `send_threads - 1` more on clones of the
    /// socket. Default 1; more only pays with cores to spare. 0 counts as 1.
    pub send_threads: usize,
    /// The app's live sessions: with it, a datagram no session takes (a token not live or
    /// not from its address, a hello past its IP's limit) is dropped before decoding
    /// (ADR 0088). Default none: every datagram is decoded and handed on.
    pub sessions: Option<Arc<SessionBoard>>,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 7777)),
            recv_buffer: 4 << 20,
            send_buffer: 4 << 20,
            inbound_capacity: 65_536,
            outbound_capacity: 65_536,
            send_threads: 1,
            sessions: None,
        }
    }
}

/// The app's end of the network thread. Dropping it shuts the thread down like
/// [`NetHandle::shutdown`]. Clone the channel ends to hand them to other owners.
#[derive(Debug)]
pub struct NetHandle {
    /// Decoded datagrams, in arrival order. Drain it without blocking (`try_iter`).
    pub inbound: Receiver<Inbound>,
    /// Datagrams to send, at most `MAX_DATAGRAM` bytes each. Bounded; sending never blocks
    /// the app, a full queue sheds (counted, and said to the caller).
    pub outbound: Outbound,
    /// Where the app publishes what server queries are answered from (query.md).
    pub query: Arc<QueryBoard>,
    local_addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl NetHandle {
    /// The bound address (with the real port when the config asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops the threads after they have sent every datagram already queued on
    /// [`NetHandle::outbound`], and joins them: within 10 ms plus the sending. `Err` carries
    /// a thread's panic, which would be a bug.
    pub fn shutdown(mut self) -> thread::Result<()> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> thread::Result<()> {
        self.stop.store(true, Ordering::Release);
        let mut result = Ok(());
        for thread in self.threads.drain(..) {
            let joined = thread.join();
            if result.is_ok() {
                result = joined;
            }
        }
        result
    }
}

impl Drop for NetHandle {
    fn drop(&mut self) {
        if self.stop_and_join().is_err() {
            tracing::error!("the network thread panicked");
        }
    }
}

/// Binds the socket of `config` and starts the network thread.
///
/// ```no_run
/// # use std::sync::Arc;
/// # use dlmp_net::{spawn, NetConfig, NetStats};
/// let net = spawn(NetConfig::default(), Arc::new(NetStats::default()))?;
/// for inbound in net.inbound.try_iter() { /* ... */ }
/// net.shutdown().ok();
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn spawn(config: NetConfig, stats: Arc<NetStats>) -> io::Result<NetHandle> {
    let socket = open(&config)?;
    let local_addr = socket.local_addr()?;
    let (inbound_tx, inbound) = crossbeam_channel::bounded(config.inbound_capacity.max(1));
    let (outbound, queues) = Outbound::bounded(
        config.outbound_capacity,
        config.send_threads.max(1),
        Arc::clone(&stats),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let mut queues = queues.into_iter();
    let own_queue = queues.next().expect("at least one queue");
    let query = Arc::new(QueryBoard::default());
    let mut handle = NetHandle {
        inbound,
        outbound,
        query: Arc::clone(&query),
        local_addr,
        stop: Arc::clone(&stop),
        threads: Vec::new(),
    };
    for (i, queue) in queues.enumerate() {
        let mut sender = SendThread::new(
            socket.try_clone()?,
            Arc::clone(&stats),
            queue,
            Arc::clone(&stop),
        );
        let thread = thread::Builder::new()
            .name(format!("dlmp-send-{}", i + 1))
            .spawn(move || sender.run())?;
        handle.threads.push(thread);
    }
    let mut net = NetThread {
        queries: Queries {
            board: query,
            limiter: QueryLimiter::default(),
            started: Instant::now(),
        },
        inbound: inbound_tx,
        out: SendThread::new(socket, Arc::clone(&stats), own_queue, Arc::clone(&stop)),
        stats,
        decoder: config
            .sessions
            .clone()
            .map_or_else(Decoder::default, Decoder::with_sessions),
        drop_log: LogLimit::default(),
        recv_log: LogLimit::default(),
    };
    let thread = thread::Builder::new()
        .name("dlmp-net".into())
        .spawn(move || net.run())?;
    handle.threads.push(thread);
    tracing::info!(%local_addr, "listening");
    Ok(handle)
}

/// A non-blocking UDP socket with the configured buffers, bound. No address reuse: a
/// second server on the same port fails to start.
fn open(config: &NetConfig) -> io::Result<UdpSocket> {
    let socket = Socket::new(
        Domain::for_address(config.bind),
        Type::DGRAM,
        Some(Protocol::UDP),
    )?;
    socket.set_recv_buffer_size(config.recv_buffer)?;
    socket.set_send_buffer_size(config.send_buffer)?;
    // Linux reports twice what it grants (the other half is bookkeeping).
    let granted = |reported: usize| {
        if cfg!(target_os = "linux") {
            reported / 2
        } else {
            reported
        }
    };
    let recv = granted(socket.recv_buffer_size()?);
    let send = granted(socket.send_buffer_size()?);
    if recv < config.recv_buffer {
        tracing::warn!(
            asked = config.recv_buffer,
            got = recv,
            "receive buffer capped by the kernel (net.core.rmem_max)"
        );
    }
    if send < config.send_buffer {
        tracing::warn!(
            asked = config.send_buffer,
            got = send,
            "send buffer capped by the kernel (net.core.wmem_max)"
        );
    }
    socket.set_nonblocking(true)?;
    socket.bind(&config.bind.into())?;
    Ok(socket.into())
}

/// The server query's state on the thread.
struct Queries {
    board: Arc<QueryBoard>,
    limiter: QueryLimiter,
    started: Instant,
}

/// What `dlmp-net` owns: the socket (inside its sending half) and the inbound side.
struct NetThread {
    queries: Queries,
    out: SendThread,
    stats: Arc<NetStats>,
    inbound: Sender<Inbound>,
    decoder: Decoder,
    drop_log: LogLimit,
    recv_log: LogLimit,
}

impl NetThread {
    fn run(&mut self) {
        // nix's headers hold raw pointers (not Send): made on the thread that uses them.
        let mut receiver = batch::Receiver::new();
        let mut sender = batch::Sender::new();
        let mut quiet_turns = 0u32;
        loop {
            let received = self.receive(&mut receiver);
            if received > 0 {
                quiet_turns = 0;
            } else {
                quiet_turns = quiet_turns.saturating_add(1);
            }
            let sent = self.out.send_batch(&mut sender);
            if self.out.stop.load(Ordering::Acquire) {
                self.out.flush(&mut sender);
                return;
            }
            // A turn that sent something, or read its whole budget (the socket likely holds
            // more: a flood must not overflow the kernel's buffer while this thread sleeps,
            // ADR 0088), goes straight on to the next.
            if sent > 0 || received >= READ_BUDGET {
                continue;
            }
            let wait = if quiet_turns < QUIET_TURNS {
                POLL_INTERVAL
            } else {
                IDLE_POLL_INTERVAL
            };
            self.out.wait(wait, &mut sender);
        }
    }

    /// Reads up to [`READ_BUDGET`] datagrams, stopping when the socket has none left.
    /// Returns how many arrived.
    fn receive(&mut self, receiver: &mut batch::Receiver) -> usize {
        let mut total = 0;
        while total < READ_BUDGET {
            let (stats, inbound, decoder, drop_log, queries) = (
                &self.stats,
                &self.inbound,
                &mut self.decoder,
                &mut self.drop_log,
                &mut self.queries,
            );
            let socket = &self.out.socket;
            // One stamp a batch: the datagrams of one `recvmmsg` were all in the socket
            // by the time it returned. One look at the live sessions a batch, too.
            let mut at = None;
            let live = decoder.live_sessions();
            let result = receiver.receive(socket, READ_BUDGET - total, |bytes, from| {
                if bytes.len() <= MAX_DATAGRAM && query::is_query(bytes) {
                    answer_query(queries, socket, stats, drop_log, bytes, from);
                } else {
                    let at = *at.get_or_insert_with(Instant::now);
                    handle(
                        stats,
                        inbound,
                        decoder,
                        drop_log,
                        live.as_deref(),
                        (bytes, from, at),
                    );
                }
            });
            match result {
                Ok(0) => return total,
                Ok(n) => total += n,
                Err(e) => {
                    // UDP receive errors are transient (an ICMP error from an earlier send
                    // on some platforms); log and carry on with the next turn.
                    if let Some(suppressed) = self.recv_log.allow(Instant::now()) {
                        tracing::warn!(error = %e, suppressed, "receive failed");
                    }
                    return total;
                }
            }
        }
        total
    }
}

/// A server query (query.md): the per-IP limit first, so a flood costs no decoding, then the
/// answer from the app's last snapshot, sent at once (it is never larger than the request).
fn answer_query(
    queries: &mut Queries,
    socket: &UdpSocket,
    stats: &NetStats,
    drop_log: &mut LogLimit,
    bytes: &[u8],
    from: SocketAddr,
) {
    let now = queries.started.elapsed();
    if !queries.limiter.allow(from.ip(), now) {
        stats.count_drop(DropReason::QueryLimited);
        return;
    }
    let snapshot = queries.board.load();
    match query::answer(bytes, &snapshot) {
        Ok(answer) => {
            stats.query_answered();
            match socket.send_to(&answer, from) {
                Ok(_) => stats.sent(),
                Err(_) => stats.send_error(),
            }
        }
        Err(err) => {
            stats.count_drop(DropReason::Decode(err.kind()));
            if tracing::enabled!(tracing::Level::DEBUG)
                && let Some(suppressed) = drop_log.allow(Instant::now())
            {
                tracing::debug!(%from, error = %err, suppressed, "dropped query");
            }
        }
    }
}

/// Decodes one datagram with the shared [`Decoder`] and hands it to the app, or counts why
/// not.
fn handle(
    stats: &NetStats,
    inbound: &Sender<Inbound>,
    decoder: &mut Decoder,
    drop_log: &mut LogLimit,
    live: Option<&std::collections::HashMap<u64, SocketAddr>>,
    (bytes, from, at): (&[u8], SocketAddr, Instant),
) {
    let Some(packet) = decoder.take(bytes, from, at, stats, live) else {
        return;
    };
    // Counted before the hand-over, so whoever takes the packet sees it counted. This thread
    // is the queue's only sender: a queue with room now still has room for the send.
    if inbound.is_full() {
        stats.count_drop(DropReason::Overloaded);
        if let Some(suppressed) = drop_log.allow(Instant::now()) {
            tracing::warn!(%from, suppressed, "inbound queue full, datagram dropped");
        }
        return;
    }
    stats.received();
    // The handle holds the receiver until the thread is joined.
    if inbound.try_send(packet).is_err()
        && let Some(suppressed) = drop_log.allow(Instant::now())
    {
        tracing::warn!(%from, suppressed, "inbound channel closed, datagram dropped");
    }
}

/// One sending queue and the socket (or a clone) it goes out on: the whole of a
/// `dlmp-send-N` thread, the sending half of `dlmp-net`.
struct SendThread {
    socket: UdpSocket,
    stats: Arc<NetStats>,
    queue: Shipments,
    stop: Arc<AtomicBool>,
    send_log: LogLimit,
    /// The shipment being sent and how many of its datagrams have left.
    current: Option<(Shipment, usize)>,
}

impl SendThread {
    fn new(
        socket: UdpSocket,
        stats: Arc<NetStats>,
        queue: Shipments,
        stop: Arc<AtomicBool>,
    ) -> Self {
        SendThread {
            socket,
            stats,
            queue,
            stop,
            send_log: LogLimit::default(),
            current: None,
        }
    }

    /// A `dlmp-send-N` thread: block on the queue, send in batches, flush on shutdown.
    fn run(&mut self) {
        let mut sender = batch::Sender::new();
        loop {
            if self.stop.load(Ordering::Acquire) {
                self.flush(&mut sender);
                return;
            }
            if self.send_batch(&mut sender) == 0 {
                self.wait(IDLE_POLL_INTERVAL, &mut sender);
            }
        }
    }

    /// Sends at most one batch of what is queued, without waiting. Returns how many.
    fn send_batch(&mut self, sender: &mut batch::Sender) -> usize {
        if self.current.is_none() {
            self.current = self.queue.try_recv().map(|s| (s, 0));
        }
        self.send_current(sender)
    }

    /// Blocks on the queue for at most `wait` if nothing is being sent; whatever arrives
    /// goes out at once, one batch.
    fn wait(&mut self, wait: Duration, sender: &mut batch::Sender) {
        if self.current.is_some() {
            self.send_current(sender);
            return;
        }
        match self.queue.recv_timeout(wait) {
            Ok(shipment) => {
                self.current = Some((shipment, 0));
                self.send_current(sender);
            }
            Err(RecvTimeoutError::Timeout) => {}
            // The handle holds a sender until the threads are joined, so this is
            // unreachable; wait rather than spin if it ever happens.
            Err(RecvTimeoutError::Disconnected) => thread::sleep(POLL_INTERVAL),
        }
    }

    /// Everything the app queued before asking to stop is on the queue now; sends that
    /// much, not what a clone of the sender keeps adding.
    fn flush(&mut self, sender: &mut batch::Sender) {
        let mut left = self.queue.len();
        loop {
            while self.current.is_some() {
                self.send_current(sender);
            }
            if left == 0 {
                return;
            }
            left -= 1;
            match self.queue.try_recv() {
                Some(shipment) => self.current = Some((shipment, 0)),
                None => return,
            }
        }
    }

    /// Sends the next batch of the current shipment; a finished one goes back to the pool.
    fn send_current(&mut self, sender: &mut batch::Sender) -> usize {
        let Some((shipment, at)) = &mut self.current else {
            return 0;
        };
        let end = (*at + BATCH).min(shipment.len());
        let window = &shipment.datagrams[*at..end];
        let stats = &self.stats;
        let log = &mut self.send_log;
        sender.send(
            &self.socket,
            window,
            &shipment.bytes,
            |datagram, result| match result {
                Ok(()) => stats.sent(),
                Err(e) => {
                    stats.send_error();
                    if let Some(suppressed) = log.allow(Instant::now()) {
                        tracing::warn!(
                            to = %datagram.to,
                            len = datagram.len(),
                            error = %e,
                            suppressed,
                            "send failed"
                        );
                    }
                }
            },
        );
        let n = end - *at;
        *at = end;
        self.queue.sent(n);
        if *at >= shipment.len()
            && let Some((done, _)) = self.current.take()
        {
            self.queue.recycle(done);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_documented() {
        let config = NetConfig::default();
        assert_eq!(config.bind, "127.0.0.1:7777".parse().unwrap());
        assert_eq!(config.recv_buffer, 4 * 1024 * 1024);
        assert_eq!(config.send_buffer, 4 * 1024 * 1024);
        assert_eq!(config.inbound_capacity, 65_536);
    }
}
