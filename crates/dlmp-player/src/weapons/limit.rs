//! The weapon event limit (weapons.md §7): ProjectileCreate, SatchelDetonate and
//! StealthKillRequest of one connection share one bucket of 8 at once and 4 a second.
//! Each such event takes its token before any other check, whether it is then admitted or
//! refused; an event past it is acknowledged (the lane did) but dropped.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::session::{PlayerConnected, RateLimit, TokenBucket};

/// 8 at once, 4 a second, per connection.
pub const WEAPON_EVENTS: RateLimit = RateLimit::per_second(8, 4);

/// One connection's bucket of weapon events.
#[derive(Component, Debug, Clone, Copy)]
pub struct WeaponEvents(TokenBucket);

impl WeaponEvents {
    pub fn new(now: Duration) -> Self {
        WeaponEvents(TokenBucket::new(WEAPON_EVENTS, now))
    }

    /// Whether an event at `now` is within the limit (it takes a token).
    pub fn take(&mut self, now: Duration) -> bool {
        self.0.try_take(now)
    }
}

/// Every new connection gets its bucket, its launcher state and its action log.
pub(super) fn give(
    mut commands: Commands,
    time: Res<Time>,
    mut connected: MessageReader<PlayerConnected>,
) {
    for c in connected.read() {
        if let Ok(mut e) = commands.get_entity(c.player) {
            e.insert((
                WeaponEvents::new(time.elapsed()),
                super::launch::Launcher::default(),
                super::actions::ActionLog::default(),
            ));
        }
    }
}
