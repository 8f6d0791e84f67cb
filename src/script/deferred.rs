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
    /// The `player_disconnect`s among them, by player: asked for each departed view every
    /// tick, so never a search of the queue.
    disconnects: EntityHashMap<u32>,
}

/// The player of a `player_disconnect`.
fn disconnected(event: &ScriptEvent) -> Option<Entity> {
    match event {
        ScriptEvent::PlayerDisconnect { player, .. } => Some(player.entity),
        _ => None,
    }
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
        if let Some(player) = disconnected(&event) {
            *self.disconnects.entry(player).or_default() += 1;
        }
        self.events.push_back(event);
        full
    }

    pub(crate) fn pop(&mut self) -> Option<ScriptEvent> {
        let event = self.events.pop_front()?;
        if let Some(player) = disconnected(&event)
            && let Some(n) = self.disconnects.get_mut(&player)
        {
            *n -= 1;
            if *n == 0 {
                self.disconnects.remove(&player);
            }
        }
        Some(event)
    }

    /// Whether the `player_disconnect` of `player` waits: its view and its script data
    /// are kept for it.
    pub(crate) fn awaits_disconnect(&self, player: Entity) -> bool {
        self.disconnects.contains_key(&player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_goes_when_the_queue_is_full() {
        let mut d = Deferred::default();
        for _ in 0..MAX_DEFERRED {
            assert!(!d.push(ScriptEvent::ServerShutdown {}));
        }
        assert!(d.push(ScriptEvent::Tick { dt_ms: 1.0 }));
        assert_eq!(d.len(), MAX_DEFERRED);
        assert!(matches!(d.pop(), Some(ScriptEvent::ServerShutdown {})));
    }

    #[test]
    fn a_waiting_disconnect_is_known_until_it_is_raised() {
        let entity = Entity::from_raw_u32(7).expect("a valid index");
        let leave = || ScriptEvent::PlayerDisconnect {
            player: crate::script::api::player::LuaPlayer {
                entity,
                token: dlmp_protocol::ids::PlayerToken(1),
            },
            reason: "quit",
        };
        let mut d = Deferred::default();
        d.push(leave());
        d.push(leave());
        assert!(d.awaits_disconnect(entity));
        d.pop();
        assert!(d.awaits_disconnect(entity), "one still waits");
        d.pop();
        assert!(!d.awaits_disconnect(entity));
    }
}
