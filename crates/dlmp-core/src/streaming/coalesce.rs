//! Critical changes of a shown item coalesced per viewer (ADR 0092): a change of an item
//! whose show is its whole state (a label's text, a zone's colors, an attached blip's
//! place) goes to a viewer at once only if that viewer has acknowledged the item's last
//! change; otherwise it waits, and when the ack comes the item goes as it is then. A label
//! counting down every tick or a hundred blips on moving players cost a slow viewer at
//! most one event per item in its lane, never an overflow, and it still ends with the
//! latest state.

use std::collections::HashMap;

use bevy_ecs::prelude::*;

use super::shown::ShownSets;
use crate::session::{Connection, PlayerIndex};
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId};

/// The viewers' unacknowledged changes, by viewer and item key; kept by [`ShownSets`]
/// ([`ShownSets::tell_change`]).
#[derive(Debug, Clone, Default)]
pub struct Coalescer {
    /// The last change queued to a viewer, and whether another came since.
    pending: HashMap<(PlayerId, u32), Pending>,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    event: EventId,
    waiting: bool,
}

impl Coalescer {
    /// Tells item `key`'s viewers its new state `packet` (critical): now to those who
    /// acknowledged its last change, later ([`Coalescer::flush`]) to the others.
    pub(super) fn tell_viewers(
        &mut self,
        shown: &ShownSets,
        key: u32,
        packet: &ServerPacket,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        for viewer in shown.viewers(key) {
            if let Some(p) = self.pending.get_mut(&(viewer, key)) {
                p.waiting = true;
                continue;
            }
            self.send(viewer, key, packet.clone(), index, connections);
        }
    }

    /// Sends the changes that waited for an ack now given, as `state(key)` makes the item
    /// now, to viewers that still see it; forgets what was acknowledged.
    pub(super) fn flush(
        &mut self,
        shown: &ShownSets,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
        mut state: impl FnMut(u32) -> Option<ServerPacket>,
    ) {
        if self.pending.is_empty() {
            return;
        }
        let mut due = Vec::new();
        self.pending.retain(|&(viewer, key), p| {
            let acked = index
                .get(viewer)
                .and_then(|e| connections.get(e).ok())
                .is_none_or(|c| c.is_acked(p.event));
            if !acked {
                return true;
            }
            if p.waiting && shown.contains(viewer, key) {
                due.push((viewer, key));
            }
            false
        });
        for (viewer, key) in due {
            if let Some(packet) = state(key) {
                self.send(viewer, key, packet, index, connections);
            }
        }
    }

    /// A viewer left: its slot's next player starts with nothing pending.
    pub(super) fn forget(&mut self, viewer: PlayerId) {
        self.pending.retain(|&(v, _), _| v != viewer);
    }

    /// Changes waiting for an ack, all viewers and items.
    pub(super) fn waiting(&self) -> usize {
        self.pending.values().filter(|p| p.waiting).count()
    }

    fn send(
        &mut self,
        viewer: PlayerId,
        key: u32,
        packet: ServerPacket,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        let Some(mut c) = index.get(viewer).and_then(|e| connections.get_mut(e).ok()) else {
            return;
        };
        match c.send_event(packet, Delivery::Critical) {
            Ok(event) => {
                self.pending.insert(
                    (viewer, key),
                    Pending {
                        event,
                        waiting: false,
                    },
                );
            }
            Err(e) => dlmp_net::log_limited!(
                warn,
                key,
                recipient = viewer.0,
                "a critical change not queued: {e}"
            ),
        }
    }
}
