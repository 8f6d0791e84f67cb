//! The network thread (connection.md §1): the only code that touches the UDP socket.
//!
//! [`spawn`] binds a socket and starts one thread, `dlmp-net`, that owns it for both
//! directions. Every datagram is decoded by the shared [`Decoder`] (the harness uses it too); a failure is counted
//! by [`DropReason::Decode`] and logged at debug level, rate-limited, and never reaches the
//! app. A valid packet goes to the app as an [`Inbound`] over a bounded channel; when that is
//! full the packet is counted as [`DropReason::Overloaded`] and dropped, so the receive loop
//! never waits for the app. The app queues [`Datagram`]s on the outbound channel and the
//! thread sends them.
//!
//! # The loop
//!
//! The socket is non-blocking. Each turn:
//!
//! 1. Read datagrams until the socket has none left, into one reused stack buffer of
//!    `MAX_DATAGRAM + 1` bytes (a datagram that fills it is oversized: a `Length` drop).
//!    After each one, send whatever the app has queued, so under load an outbound datagram
//!    waits for at most one inbound decode.
//! 2. Send what is queued.
//! 3. If shutdown was asked, send what was queued before and stop.
//! 4. With the socket drained, block on the outbound channel for at most 1 ms
//!    ([`POLL_INTERVAL`]), sending at once whatever arrives; after a second without
//!    inbound traffic, for at most 10 ms ([`IDLE_POLL_INTERVAL`]).
//!
//! So the app's datagrams go out as soon as they are queued (the channel wakes the thread),
//! and a new inbound datagram is noticed within 1 ms, which the app, draining once a tick,
//! does not see (within 10 ms for the first one after a quiet second, such as a hello to an
//! empty server). Blocking on the socket with `SO_RCVTIMEO` instead would delay outbound by
//! a kernel tick (measured 7-12 ms here for a 1 ms timeout: the timeout is rounded to
//! jiffies), and a second thread with a cloned socket for sending would compete for two
//! cores and make "flush on shutdown" a cross-thread handshake. The cost of polling is
//! measured by `examples/flood.rs`: ~5% of a core at 1 ms, well under 1% at 10 ms.
//!
//! Shutdown ([`NetHandle::shutdown`] or drop) sets a flag the loop sees within one poll
//! interval; the thread then sends everything already on the outbound channel (the app's
//! last sends, such as the Disconnect burst) before it exits, and the handle joins it.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError, TrySendError};
use socket2::{Domain, Protocol, Socket, Type};

use super::ingress::{Decoder, LogLimit};
use super::query::{self, QueryBoard, QueryLimiter};
use super::{Datagram, DropReason, Inbound, NetStats};
use crate::protocol::MAX_DATAGRAM;

/// The longest the thread waits on the outbound channel before looking at the socket again:
/// the added inbound latency between datagrams, and how soon shutdown is noticed.
const POLL_INTERVAL: Duration = Duration::from_millis(1);

/// [`POLL_INTERVAL`] once no datagram has arrived for [`QUIET_TURNS`] turns (about a
/// second), so an empty server does not wake a thousand times a second.
const IDLE_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// Turns of the loop without an inbound datagram before polling slows down.
const QUIET_TURNS: u32 = 1000;

/// How to open the socket and size the queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 7777)),
            recv_buffer: 4 << 20,
            send_buffer: 4 << 20,
            inbound_capacity: 65_536,
        }
    }
}

/// The app's end of the network thread. Dropping it shuts the thread down like
/// [`NetHandle::shutdown`]. Clone the channel ends to hand them to other owners.
#[derive(Debug)]
pub struct NetHandle {
    /// Decoded datagrams, in arrival order. Drain it without blocking (`try_iter`).
    pub inbound: Receiver<Inbound>,
    /// Datagrams to send, at most `MAX_DATAGRAM` bytes each. Unbounded: sending never
    /// blocks the app; the thread wakes when something is queued.
    pub outbound: Sender<Datagram>,
    /// Where the app publishes what server queries are answered from (query.md).
    pub query: Arc<QueryBoard>,
    local_addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl NetHandle {
    /// The bound address (with the real port when the config asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops the thread after it has sent every datagram already queued on
    /// [`NetHandle::outbound`], and joins it: within 10 ms plus the sending. `Err` carries
    /// the thread's panic, which would be a bug.
    pub fn shutdown(mut self) -> thread::Result<()> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> thread::Result<()> {
        self.stop.store(true, Ordering::Release);
        match self.thread.take() {
            Some(thread) => thread.join(),
            None => Ok(()),
        }
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
/// # use dlmp::net::{spawn, NetConfig, NetStats};
/// let net = spawn(NetConfig::default(), Arc::new(NetStats::default()))?;
/// for inbound in net.inbound.try_iter() { /* ... */ }
/// net.shutdown().ok();
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn spawn(config: NetConfig, stats: Arc<NetStats>) -> io::Result<NetHandle> {
    let socket = open(&config)?;
    let local_addr = socket.local_addr()?;
    let (inbound_tx, inbound) = crossbeam_channel::bounded(config.inbound_capacity.max(1));
    let (outbound, outbound_rx) = crossbeam_channel::unbounded();
    let stop = Arc::new(AtomicBool::new(false));
    let query = Arc::new(QueryBoard::default());
    let mut net = NetThread {
        queries: Queries {
            board: Arc::clone(&query),
            limiter: QueryLimiter::default(),
            started: Instant::now(),
        },
        socket,
        stats,
        inbound: inbound_tx,
        outbound: outbound_rx,
        stop: Arc::clone(&stop),
        decoder: Decoder::default(),
        drop_log: LogLimit::default(),
        send_log: LogLimit::default(),
        recv_log: LogLimit::default(),
    };
    let thread = thread::Builder::new()
        .name("dlmp-net".into())
        .spawn(move || net.run())?;
    tracing::info!(%local_addr, "listening");
    Ok(NetHandle {
        inbound,
        outbound,
        query,
        local_addr,
        stop,
        thread: Some(thread),
    })
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

/// Everything the thread owns.
struct NetThread {
    queries: Queries,
    socket: UdpSocket,
    stats: Arc<NetStats>,
    inbound: Sender<Inbound>,
    outbound: Receiver<Datagram>,
    stop: Arc<AtomicBool>,
    decoder: Decoder,
    drop_log: LogLimit,
    send_log: LogLimit,
    recv_log: LogLimit,
}

impl NetThread {
    fn run(&mut self) {
        // One byte more than the largest datagram, so an oversized one is seen (the kernel
        // truncates it to the buffer).
        let mut buf = [0u8; MAX_DATAGRAM + 1];
        let mut quiet_turns = 0u32;
        loop {
            if self.receive_all(&mut buf) {
                quiet_turns = 0;
            } else {
                quiet_turns = quiet_turns.saturating_add(1);
            }
            self.send_queued();
            if self.stop.load(Ordering::Acquire) {
                // Everything the app queued before asking to stop is on the channel now;
                // send that much, not what a clone of the sender keeps adding.
                for _ in 0..self.outbound.len() {
                    match self.outbound.try_recv() {
                        Ok(datagram) => self.send(&datagram),
                        Err(_) => break,
                    }
                }
                return;
            }
            let wait = if quiet_turns < QUIET_TURNS {
                POLL_INTERVAL
            } else {
                IDLE_POLL_INTERVAL
            };
            match self.outbound.recv_timeout(wait) {
                Ok(datagram) => self.send(&datagram),
                Err(RecvTimeoutError::Timeout) => {}
                // The handle holds a sender until the thread is joined, so this is
                // unreachable; wait rather than spin if it ever happens.
                Err(RecvTimeoutError::Disconnected) => thread::sleep(POLL_INTERVAL),
            }
        }
    }

    /// Reads until the socket has nothing left, sending queued datagrams in between.
    /// Returns whether anything arrived.
    fn receive_all(&mut self, buf: &mut [u8; MAX_DATAGRAM + 1]) -> bool {
        let mut any = false;
        loop {
            match self.socket.recv_from(buf) {
                Ok((len, from)) => {
                    any = true;
                    self.handle(&buf[..len], from);
                    self.send_queued();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return any,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // UDP receive errors are transient (an ICMP error from an earlier send
                    // on some platforms); log and carry on with the next turn.
                    if let Some(suppressed) = self.recv_log.allow(Instant::now()) {
                        tracing::warn!(error = %e, suppressed, "receive failed");
                    }
                    return any;
                }
            }
        }
    }

    /// Decodes one datagram and hands it to the app, or counts why not.
    fn handle(&mut self, bytes: &[u8], from: SocketAddr) {
        if bytes.len() <= MAX_DATAGRAM && query::is_query(bytes) {
            self.answer_query(bytes, from);
            return;
        }
        let Some(inbound) = self.decoder.decode(bytes, from, &self.stats) else {
            return;
        };
        match self.inbound.try_send(inbound) {
            Ok(()) => self.stats.received(),
            Err(TrySendError::Full(_)) => {
                self.count_drop(DropReason::Overloaded);
                if let Some(suppressed) = self.drop_log.allow(Instant::now()) {
                    tracing::warn!(%from, suppressed, "inbound queue full, datagram dropped");
                }
            }
            // The handle holds the receiver until the thread is joined.
            Err(TrySendError::Disconnected(_)) => {
                if let Some(suppressed) = self.drop_log.allow(Instant::now()) {
                    tracing::warn!(%from, suppressed, "inbound channel closed, datagram dropped");
                }
            }
        }
    }

    /// A server query (query.md): the per-IP limit first, so a flood costs no decoding,
    /// then the answer from the app's latest snapshot, sent at once.
    fn answer_query(&mut self, bytes: &[u8], from: SocketAddr) {
        let now = self.queries.started.elapsed();
        if !self.queries.limiter.allow(from.ip(), now) {
            self.count_drop(DropReason::QueryLimited);
            return;
        }
        let snapshot = self.queries.board.load();
        match query::answer(bytes, &snapshot) {
            Ok(answer) => {
                self.stats.query_answered();
                self.send(&Datagram {
                    to: from,
                    bytes: answer,
                });
            }
            Err(err) => {
                self.count_drop(DropReason::Decode(err.kind()));
                if tracing::enabled!(tracing::Level::DEBUG)
                    && let Some(suppressed) = self.drop_log.allow(Instant::now())
                {
                    tracing::debug!(%from, error = %err, suppressed, "dropped query");
                }
            }
        }
    }

    fn count_drop(&self, reason: DropReason) {
        self.stats.count_drop(reason);
    }

    /// Sends everything the app has queued, without waiting for more.
    fn send_queued(&mut self) {
        loop {
            match self.outbound.try_recv() {
                Ok(datagram) => self.send(&datagram),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            }
        }
    }

    /// Sends one datagram; a failure is counted and logged, never fatal.
    fn send(&mut self, datagram: &Datagram) {
        let result = if datagram.bytes.len() > MAX_DATAGRAM {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "datagram larger than MAX_DATAGRAM",
            ))
        } else {
            self.send_to(datagram)
        };
        match result {
            Ok(()) => self.stats.sent(),
            Err(e) => {
                self.stats.send_error();
                if let Some(suppressed) = self.send_log.allow(Instant::now()) {
                    tracing::warn!(
                        to = %datagram.to,
                        len = datagram.bytes.len(),
                        error = %e,
                        suppressed,
                        "send failed"
                    );
                }
            }
        }
    }

    fn send_to(&self, datagram: &Datagram) -> io::Result<()> {
        loop {
            match self.socket.send_to(&datagram.bytes, datagram.to) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A full send buffer on a non-blocking socket: the datagram is lost, as the
                // network could have lost it.
                Err(e) => return Err(e),
            }
        }
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
