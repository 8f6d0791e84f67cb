//! Where the app leaves the latest [`QuerySnapshot`] for the network thread.

use std::sync::{Arc, Mutex, PoisonError};

use super::QuerySnapshot;

/// The latest snapshot. Both sides hold the lock only to swap or clone an `Arc`, so the
/// tick never waits on a query being answered, nor the other way round.
#[derive(Debug, Default)]
pub struct QueryBoard {
    latest: Mutex<Arc<QuerySnapshot>>,
}

impl QueryBoard {
    /// Replaces the snapshot (the app, at the end of a tick).
    pub fn publish(&self, snapshot: QuerySnapshot) {
        let snapshot = Arc::new(snapshot);
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = snapshot;
    }

    /// The latest snapshot (the network thread, per query).
    pub fn load(&self) -> Arc<QuerySnapshot> {
        Arc::clone(&self.latest.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
