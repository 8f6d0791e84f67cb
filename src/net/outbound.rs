//! The app's bounded path to the sending threads, with backpressure it sees
//! (docs/decisions/0025-network-thread.md).
//!
//! [`Outbound::send`] never blocks the tick. The queue of each sending thread holds at
//! most `capacity` datagrams; past [`SHED_FRACTION`] of that, a relay whose next frame
//! supersedes it (RemotePlayerSync, RemoteVehicleFrame) is shed, so the room left goes to
//! lane events, acks, handshakes and bundles. A full queue sheds anything; a lane event lost
//! that way is resent by its lane (connection.md §3), as if the network had lost it. Every
//! shed is counted in [`NetStats`] by [`ShedReason`], and `send` returns it to the caller.
//! [`Outbound::queued`] tells the app how far behind the sending threads are.
//!
//! Datagrams for one address always go to the same sending thread, so they leave in the
//! order the app queued them (a Go-Back-N receiver drops an event that overtook another).

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::net::SocketAddr;
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, TrySendError};

use super::{Datagram, DatagramBuffers, NetStats};
use crate::protocol::Packet;
use crate::protocol::player::sync::RemotePlayerSync;
use crate::protocol::vehicle::frame::RemoteVehicleFrame;

/// A relay is shed once its sending thread's queue is this full.
pub const SHED_FRACTION: f64 = 0.75;

/// Why [`Outbound::send`] did not queue a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShedReason {
    /// A superseded-by-the-next-frame relay, past [`SHED_FRACTION`] of the queue.
    Relay,
    /// The queue was full.
    Full,
    /// The network thread has stopped.
    Closed,
}

impl ShedReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ShedReason::Relay => "relay",
            ShedReason::Full => "full",
            ShedReason::Closed => "closed",
        }
    }
}

impl std::fmt::Display for ShedReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ShedReason::Relay => "relay shed: the outbound queue is congested",
            ShedReason::Full => "the outbound queue is full",
            ShedReason::Closed => "the network thread has stopped",
        })
    }
}

impl std::error::Error for ShedReason {}

/// The app's end of the outbound queues; cheap to clone.
#[derive(Debug, Clone)]
pub struct Outbound {
    shards: Arc<[Sender<Datagram>]>,
    /// Per shard; `None` for an unbounded queue (the harness).
    capacity: Option<usize>,
    shed_at: usize,
    stats: Arc<NetStats>,
    /// Sent datagrams' buffers, back from the sending threads.
    buffers: DatagramBuffers,
}

impl Outbound {
    /// `shards` bounded queues of `capacity` datagrams each (0 counts as 1), and their
    /// receiving ends, one per sending thread.
    pub fn bounded(
        capacity: usize,
        shards: usize,
        stats: Arc<NetStats>,
    ) -> (Outbound, Vec<Receiver<Datagram>>) {
        let capacity = capacity.max(1);
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..shards.max(1))
            .map(|_| crossbeam_channel::bounded(capacity))
            .unzip();
        let shed_at = ((capacity as f64 * SHED_FRACTION) as usize).max(1);
        let outbound = Outbound {
            shards: senders.into(),
            capacity: Some(capacity),
            shed_at,
            stats,
            buffers: DatagramBuffers::default(),
        };
        (outbound, receivers)
    }

    /// One unbounded queue: nothing is ever shed (the test harness reads it each step).
    pub fn unbounded(stats: Arc<NetStats>) -> (Outbound, Receiver<Datagram>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let outbound = Outbound {
            shards: Arc::new([tx]),
            capacity: None,
            shed_at: usize::MAX,
            stats,
            buffers: DatagramBuffers::default(),
        };
        (outbound, rx)
    }

    /// Queues `datagram` for its address's sending thread, or sheds it (counted) and says
    /// why. Never blocks.
    pub fn send(&self, datagram: Datagram) -> Result<(), ShedReason> {
        let shard = &self.shards[self.shard_of(datagram.to)];
        // The relay test first: a bundle is never shed, and a queue's length is the costlier read.
        let result = if is_relay(&datagram.bytes) && shard.len() >= self.shed_at {
            Err(ShedReason::Relay)
        } else {
            shard.try_send(datagram).map_err(|e| match e {
                TrySendError::Full(_) => ShedReason::Full,
                TrySendError::Disconnected(_) => ShedReason::Closed,
            })
        };
        if let Err(reason) = result {
            self.stats.count_shed(reason);
        }
        result
    }

    /// The pool a datagram's buffer comes from and a sent one goes back to.
    pub fn buffers(&self) -> &DatagramBuffers {
        &self.buffers
    }

    /// Datagrams waiting for the sending threads, all shards together.
    pub fn queued(&self) -> usize {
        self.shards.iter().map(Sender::len).sum()
    }

    /// What all shards hold at most; `None` when unbounded.
    pub fn capacity(&self) -> Option<usize> {
        self.capacity.map(|c| c * self.shards.len())
    }

    /// A relay would be shed now on some shard: the app may send less this tick.
    pub fn is_congested(&self) -> bool {
        self.shards.iter().any(|s| s.len() >= self.shed_at)
    }

    fn shard_of(&self, to: SocketAddr) -> usize {
        if self.shards.len() == 1 {
            return 0;
        }
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(to);
        (hash % self.shards.len() as u64) as usize
    }
}

/// A relay the subject's next frame supersedes: sheddable before anything else.
fn is_relay(bytes: &[u8]) -> bool {
    matches!(
        bytes.first(),
        Some(&id) if id == RemotePlayerSync::ID || id == RemoteVehicleFrame::ID
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datagram(port: u16, id: u8) -> Datagram {
        Datagram {
            to: SocketAddr::from(([127, 0, 0, 1], port)),
            bytes: vec![id, 0],
        }
    }

    #[test]
    fn one_address_always_maps_to_one_shard() {
        let (out, _rx) = Outbound::bounded(8, 4, Arc::default());
        for port in 1..200 {
            let to = datagram(port, 0).to;
            assert_eq!(out.shard_of(to), out.shard_of(to));
        }
        let used: std::collections::HashSet<usize> =
            (1..200).map(|p| out.shard_of(datagram(p, 0).to)).collect();
        assert_eq!(used.len(), 4, "addresses spread over every shard");
    }
}
