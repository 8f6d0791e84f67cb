//! Reshow requests: a viewer whose lane refused a change of a subject it is shown (a
//! normal event: PlayerSkills, a rename's nametag, an animation, PlayerSpawned,
//! PlayerWasted) would keep a wrong copy until its next hide and show. Instead the
//! feature asks for a fresh show; the reconcile hides the subject from that viewer at once
//! (relays stop, a PlayerStreamOut waits for room) and shows it anew with a whole snapshot
//! once the lane has room (player.md, "Player streaming"; ADR 0020). Any streamed kind can
//! ask: the subject is an entity, the recipient a player slot.

use bevy_ecs::entity::Entity;
use bevy_ecs::resource::Resource;

use dlmp_protocol::ids::PlayerId;

/// One request: show `subject` to `recipient` afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reshow {
    pub subject: Entity,
    pub recipient: PlayerId,
}

/// The requests since the last reconcile, which consumes them.
#[derive(Resource, Debug, Default)]
pub struct Reshows {
    requests: Vec<Reshow>,
    /// Requests made since the start, for the stats.
    made: u64,
}

impl Reshows {
    /// Asks for a fresh show of `subject` to `recipient`.
    pub fn request(&mut self, subject: Entity, recipient: PlayerId) {
        self.made += 1;
        self.requests.push(Reshow { subject, recipient });
    }

    /// The requests made since the start.
    pub fn made(&self) -> u64 {
        self.made
    }

    pub fn take(&mut self) -> std::vec::Drain<'_, Reshow> {
        self.requests.drain(..)
    }
}
