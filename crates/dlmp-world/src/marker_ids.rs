//! The id counters of world primitives (connection.md §5: never reused during a server's
//! run): the one of labels, blips, gang zones and checkpoints (world.md Label3D), and the
//! colshapes' own.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bevy_ecs::resource::Resource;

use dlmp_protocol::world::markers::ColshapeId;
use dlmp_protocol::world::shared::MarkerId;

/// A monotonic counter from 1 that clones share; `None` once 2^32 - 1 ids were handed out.
#[derive(Debug, Clone)]
struct SharedCounter(Arc<AtomicU32>);

impl Default for SharedCounter {
    fn default() -> Self {
        SharedCounter(Arc::new(AtomicU32::new(1)))
    }
}

impl SharedCounter {
    fn next(&self) -> Result<u32, MarkerIdsExhausted> {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |id| id.checked_add(1))
            .map_err(|_| MarkerIdsExhausted)
    }
}

/// Hands out [`ColshapeId`]s, monotonic from 1, never reused; clones share the counter
/// like [`MarkerIds`].
#[derive(Resource, Debug, Clone, Default)]
pub struct ColshapeIds(SharedCounter);

impl ColshapeIds {
    /// The next id; an id is never handed out twice.
    pub fn allocate(&self) -> Result<ColshapeId, MarkerIdsExhausted> {
        self.0.next().map(ColshapeId)
    }
}

/// Hands out [`MarkerId`]s: monotonic from 1, shared by Label3D, Checkpoint, Blip and
/// GangZone, never reused. Clones share one counter: the script host holds a clone, so a
/// Lua `create_*` knows its id in the call (ADR 0029).
#[derive(Resource, Debug, Clone, Default)]
pub struct MarkerIds {
    next: SharedCounter,
}

/// The counter ran out: 2^32 - 1 ids were handed out in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerIdsExhausted;

impl std::fmt::Display for MarkerIdsExhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no ids left in this run")
    }
}

impl std::error::Error for MarkerIdsExhausted {}

impl MarkerIds {
    /// The next id; an id is never handed out twice.
    pub fn allocate(&self) -> Result<MarkerId, MarkerIdsExhausted> {
        self.next.next().map(MarkerId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_start_at_one_and_are_never_reused() {
        let ids = MarkerIds::default();
        let shared = ids.clone();
        assert_eq!(ids.allocate(), Ok(MarkerId(1)));
        assert_eq!(shared.allocate(), Ok(MarkerId(2)));
    }

    #[test]
    fn the_last_id_is_refused_rather_than_wrapped() {
        let ids = MarkerIds {
            next: SharedCounter(Arc::new(AtomicU32::new(u32::MAX))),
        };
        assert_eq!(ids.allocate(), Err(MarkerIdsExhausted));
    }
}
