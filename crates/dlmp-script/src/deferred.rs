//! Notifications that wait for a later tick once the tick's script time is spent
//! (ADR 0082).
//!
//! A join storm raises hundreds of `player_connect` in a few ticks. Past the tick's time
//! budget (ADR 0021) each further handler was started and cut off at its first check,
//! and five cut-offs in a row suspended it: a restarted server's gamemode never heard of
//! hundreds of its players, who then never spawned (issue 11). A notification, an event
//! whose handlers' answer nobody waits for, is now kept in order and raised at the start
//! of the next tick instead.

use std::collections::VecDeque;

use bevy_ecs::entity::{Entity, EntityHashMap};

use super::events::ScriptEvent;

/// Notifications waiting beyond this many are dropped, oldest first, and counted: a
/// gamemode slower than its events for minutes cannot grow the queue without bound.
pub(crate) const MAX_DEFERRED: usize = 65_536;

/// The notifications waiting, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    events: VecDeque<ScriptEvent>,
    /// The events among them that let an entity go (`player_disconnect`), by entity: asked
    /// for each departed view every tick, so never a search of the queue.
    releases: EntityHashMap<u32>,
}

impl Deferred {
    pub(crate) fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }

    /// Queues `event` after the others; says whether the oldest was dropped for room.
    pub(crate) fn push(&mut self, event: ScriptEvent) -> bool {
        let full = self.events.len() >= MAX_DEFERRED;
        if full {
            self.pop();
        }
        if let Some(entity) = event.releases() {
            *self.releases.entry(entity).or_default() += 1;
        }
        self.events.push_back(event);
        full
    }

    pub(crate) fn pop(&mut self) -> Option<ScriptEvent> {
        let event = self.events.pop_front()?;
        if let Some(entity) = event.releases()
            && let Some(n) = self.releases.get_mut(&entity)
        {
            *n -= 1;
            if *n == 0 {
                self.releases.remove(&entity);
            }
        }
        Some(event)
    }

    /// Whether an event that lets `entity` go waits: its view and its script data are
    /// kept for it.
    pub(crate) fn awaits_release(&self, entity: Entity) -> bool {
        self.releases.contains_key(&entity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Arg, host_events};

    #[test]
    fn the_oldest_goes_when_the_queue_is_full() {
        let mut d = Deferred::default();
        for _ in 0..MAX_DEFERRED {
            assert!(!d.push(host_events::server_shutdown()));
        }
        assert!(d.push(host_events::tick(1.0)));
        assert_eq!(d.len(), MAX_DEFERRED);
        assert_eq!(d.pop(), Some(host_events::server_shutdown()));
    }

    #[test]
    fn a_waiting_disconnect_is_known_until_it_is_raised() {
        let entity = Entity::from_raw_u32(7).expect("a valid index");
        let leave = || ScriptEvent::new("player_disconnect", [Arg::Name("quit")]).releasing(entity);
        let mut d = Deferred::default();
        d.push(leave());
        d.push(leave());
        assert!(d.awaits_release(entity));
        d.pop();
        assert!(d.awaits_release(entity), "one still waits");
        d.pop();
        assert!(!d.awaits_release(entity));
    }
}
