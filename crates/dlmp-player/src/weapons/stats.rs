//! The counts of one kind of weapon event (ProjectileCreate, SatchelDetonate,
//! StealthKillRequest): accepted, dropped by reason, and relays a full lane refused. The
//! console's `stats` and the metrics read them by name ([`EventStats::counts`]).

use std::collections::HashMap;
use std::hash::Hash;

use bevy_ecs::resource::Resource;

/// A reason an event of this kind is dropped.
pub trait DropReason: Copy + Eq + Hash + Send + Sync + 'static {
    /// Every reason, in the order `stats` lists them.
    const ALL: &'static [Self];
    /// Its name in `stats` and the metric label.
    fn name(self) -> &'static str;
}

/// Accepted, dropped by reason `R`, and relays a full lane refused.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct EventStats<R: DropReason> {
    pub accepted: u64,
    pub dropped: HashMap<R, u64>,
    /// Relays a viewer's full lane refused (that viewer never gets the event; nothing
    /// repeats it).
    pub relay_refused: u64,
}

impl<R: DropReason> Default for EventStats<R> {
    fn default() -> Self {
        EventStats {
            accepted: 0,
            dropped: HashMap::new(),
            relay_refused: 0,
        }
    }
}

impl<R: DropReason> EventStats<R> {
    /// Accepted, then each reason's drops, then the refused relays (console `stats`).
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        let mut out = vec![("accepted", self.accepted)];
        out.extend(R::ALL.iter().map(|&why| (why.name(), self.drops(why))));
        out.push(("relay_refused", self.relay_refused));
        out
    }

    pub fn drops(&self, why: R) -> u64 {
        self.dropped.get(&why).copied().unwrap_or(0)
    }

    /// One more drop for `why`.
    pub fn drop(&mut self, why: R) {
        *self.dropped.entry(why).or_default() += 1;
    }
}
