//! Datagrams handed to a sending thread many at a time, in one buffer
//! (docs/decisions/0080-one-outbound-arena.md).
//!
//! A crowd's tick is thousands of datagrams. Handed over one by one, each cost two channel
//! operations and a pooled buffer of its own, first touched cold; a bundle of one packet
//! was moved four bytes down. A [`Shipment`] is one buffer the app writes datagram after
//! datagram into (bundles are built in place, [`dlmp_protocol::bundle::Packer`]) and a
//! list of who each one goes to: up to [`CHUNK`] datagrams cross to the sending thread in
//! one channel operation, and the thread sends them from where they were written. Emptied
//! shipments come back through a bounded pool, so a steady server allocates none.

use std::net::SocketAddr;
use std::ops::Range;

use crossbeam_channel::{Receiver, Sender};

use dlmp_protocol::packet::MAX_DATAGRAM;

/// Datagrams a shipment takes before the app hands it over: two `sendmmsg` batches, so the
/// sending thread starts on a tick's first datagrams while the app still writes the rest.
pub const CHUNK: usize = 128;

/// Bytes a shipment takes before it is handed over, whatever its count.
const CHUNK_BYTES: usize = CHUNK * MAX_DATAGRAM;

/// Emptied shipments kept for reuse at most (about 10 MiB of room).
pub const POOLED: usize = 64;

/// One datagram of a shipment: its address and where its bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Addressed {
    pub(crate) to: SocketAddr,
    pub(crate) range: Range<usize>,
}

impl Addressed {
    pub(crate) fn len(&self) -> usize {
        self.range.len()
    }
}

/// Datagrams for one sending thread, in the order they leave.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Shipment {
    /// Every datagram's bytes, one after another (with the few bytes a bundle of one did not
    /// need between them).
    pub(crate) bytes: Vec<u8>,
    pub(crate) datagrams: Vec<Addressed>,
}

impl Shipment {
    /// An empty shipment with room for a whole chunk.
    pub fn with_room() -> Shipment {
        Shipment {
            bytes: Vec::with_capacity(CHUNK_BYTES),
            datagrams: Vec::with_capacity(CHUNK),
        }
    }

    /// Datagrams in it.
    pub fn len(&self) -> usize {
        self.datagrams.len()
    }

    pub fn is_empty(&self) -> bool {
        self.datagrams.is_empty()
    }

    /// Each datagram with its address, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (SocketAddr, &[u8])> + '_ {
        self.datagrams
            .iter()
            .map(|d| (d.to, &self.bytes[d.range.clone()]))
    }

    /// Appends a copy of `bytes` as one datagram to `to`.
    pub fn push(&mut self, to: SocketAddr, bytes: &[u8]) {
        let range = self.append(bytes);
        self.mark(to, range);
    }

    /// Copies `bytes` to the end of the buffer, not yet a datagram; says where they are.
    pub(crate) fn append(&mut self, bytes: &[u8]) -> Range<usize> {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        start..self.bytes.len()
    }

    /// Takes the bytes at `range`, already written, as one datagram to `to`.
    pub(crate) fn mark(&mut self, to: SocketAddr, range: Range<usize>) {
        debug_assert!(range.end <= self.bytes.len());
        self.datagrams.push(Addressed { to, range });
    }

    /// Whether it should be handed over before more is written to it.
    pub(crate) fn is_full(&self) -> bool {
        self.datagrams.len() >= CHUNK || self.bytes.len() >= CHUNK_BYTES
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.datagrams.clear();
    }
}

/// Both ends of the pool of emptied shipments; cheap to clone.
#[derive(Debug, Clone)]
pub struct ShipmentPool {
    give: Sender<Shipment>,
    take: Receiver<Shipment>,
}

impl Default for ShipmentPool {
    fn default() -> Self {
        let (give, take) = crossbeam_channel::bounded(POOLED);
        ShipmentPool { give, take }
    }
}

impl ShipmentPool {
    /// An empty shipment: a used one if the pool has one.
    pub fn take(&self) -> Shipment {
        self.take
            .try_recv()
            .unwrap_or_else(|_| Shipment::with_room())
    }

    /// A sent shipment, back for reuse. One a burst grew past four chunks (a Go-Back-N of
    /// hundreds of events) is freed, not kept, and so is one past a full pool.
    pub fn give(&self, mut shipment: Shipment) {
        if shipment.bytes.capacity() > 4 * CHUNK_BYTES || shipment.datagrams.capacity() > 4 * CHUNK
        {
            return;
        }
        shipment.clear();
        let _ = self.give.try_send(shipment);
    }

    /// Shipments waiting for reuse.
    pub fn pooled(&self) -> usize {
        self.take.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn datagrams_come_out_in_order_with_their_addresses() {
        let mut s = Shipment::default();
        s.push(to(1), b"ab");
        s.bytes.extend_from_slice(&[0, 0, 9, 9, 9]);
        s.mark(to(2), 4..7);
        s.push(to(1), b"c");
        let got: Vec<_> = s.iter().collect();
        assert_eq!(
            got,
            [
                (to(1), &b"ab"[..]),
                (to(2), &[9, 9, 9][..]),
                (to(1), &b"c"[..])
            ]
        );
    }

    #[test]
    fn a_given_shipment_is_taken_again_empty_and_the_pool_is_bounded() {
        let pool = ShipmentPool::default();
        let mut first = pool.take();
        first.push(to(1), b"abc");
        let at = first.bytes.as_ptr();
        pool.give(first);
        let again = pool.take();
        assert!(again.is_empty() && again.bytes.is_empty());
        assert_eq!(again.bytes.as_ptr(), at, "the same allocation");
        let mut grown = Shipment::default();
        grown.bytes.reserve(5 * CHUNK_BYTES);
        pool.give(grown);
        assert_eq!(pool.pooled(), 0, "a grown shipment is freed");
        for _ in 0..POOLED + 10 {
            pool.give(Shipment::default());
        }
        assert_eq!(pool.pooled(), POOLED);
    }

    #[test]
    fn a_chunk_of_datagrams_or_of_bytes_fills_a_shipment() {
        let mut s = Shipment::default();
        for _ in 0..CHUNK - 1 {
            s.push(to(1), b"x");
        }
        assert!(!s.is_full());
        s.push(to(1), b"x");
        assert!(s.is_full());
        let mut big = Shipment::default();
        big.bytes.resize(CHUNK_BYTES - 1, 0);
        big.mark(to(1), 0..10);
        assert!(!big.is_full());
        big.push(to(1), b"x");
        assert!(big.is_full(), "by its bytes, with two datagrams");
    }
}
