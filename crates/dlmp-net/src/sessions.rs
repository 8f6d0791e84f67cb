//! Where the app leaves the live sessions for the network thread, so that a datagram no
//! session will take is dropped before it is decoded or queued (ADR 0088): a flood of junk
//! then costs the thread a token lookup a datagram and never fills the app's queue.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// The live session tokens and the address each belongs to (connection.md §1: a packet is
/// taken only with a live token from that session's exact address). Both sides hold the
/// lock only to swap or clone an `Arc`.
#[derive(Debug, Default)]
pub struct SessionBoard {
    latest: Mutex<Arc<HashMap<u64, SocketAddr>>>,
}

impl SessionBoard {
    /// Replaces the live sessions (the app, when a session opened or ended).
    pub fn publish(&self, live: HashMap<u64, SocketAddr>) {
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Arc::new(live);
    }

    /// The live sessions now (the network thread, once a batch of datagrams).
    pub fn load(&self) -> Arc<HashMap<u64, SocketAddr>> {
        Arc::clone(&self.latest.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
