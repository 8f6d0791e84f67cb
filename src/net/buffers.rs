//! Datagram buffers handed back by the sending threads for the app to fill again (issue
//! 11: "no per-datagram allocation handed across threads if a measurement shows it
//! matters"). A crowd's tick is thousands of datagrams; with a fresh allocation each, the
//! allocator gives the freed memory back to the kernel between ticks and the next tick
//! faults it in again (a tenth of the vehicle tick's profile, ADR 0072's addendum). The
//! pool is bounded: a buffer past it, or grown past a datagram, is simply freed.

use crossbeam_channel::{Receiver, Sender};

use crate::protocol::packet::MAX_DATAGRAM;

/// Buffers kept for reuse at most (about 5 MiB of datagrams).
pub const POOLED: usize = 4096;

/// Both ends of the pool; cheap to clone.
#[derive(Debug, Clone)]
pub struct DatagramBuffers {
    give: Sender<Vec<u8>>,
    take: Receiver<Vec<u8>>,
}

impl Default for DatagramBuffers {
    fn default() -> Self {
        let (give, take) = crossbeam_channel::bounded(POOLED);
        DatagramBuffers { give, take }
    }
}

impl DatagramBuffers {
    /// An empty buffer with room for a datagram: a used one if the pool has one.
    pub fn take(&self) -> Vec<u8> {
        match self.take.try_recv() {
            Ok(mut buf) => {
                buf.clear();
                buf
            }
            Err(_) => Vec::with_capacity(MAX_DATAGRAM),
        }
    }

    /// `bytes` copied into a buffer of [`take`](Self::take).
    pub fn filled(&self, bytes: &[u8]) -> Vec<u8> {
        let mut buf = self.take();
        buf.extend_from_slice(bytes);
        buf
    }

    /// A sent datagram's buffer, back for reuse (freed when the pool is full).
    pub fn give(&self, buf: Vec<u8>) {
        if buf.capacity() <= MAX_DATAGRAM {
            let _ = self.give.try_send(buf);
        }
    }

    /// Buffers waiting for reuse.
    pub fn pooled(&self) -> usize {
        self.take.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_buffer_is_taken_again_empty_and_the_pool_is_bounded() {
        let pool = DatagramBuffers::default();
        let first = pool.filled(b"abc");
        assert_eq!(first, b"abc");
        let at = first.as_ptr();
        pool.give(first);
        let again = pool.take();
        assert!(again.is_empty());
        assert_eq!(again.as_ptr(), at, "the same allocation");
        pool.give(Vec::with_capacity(MAX_DATAGRAM * 4));
        assert_eq!(pool.pooled(), 0, "a grown buffer is freed");
        for _ in 0..POOLED + 10 {
            pool.give(Vec::with_capacity(16));
        }
        assert_eq!(pool.pooled(), POOLED);
    }
}
