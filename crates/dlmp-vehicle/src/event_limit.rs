//! The vehicle event rate limit (vehicles.md VehicleControl, "Vehicle event rate limit"):
//! VehicleEnter, VehicleExit, VehicleControl, VehicleDamage, VehicleTow, VehicleWinch,
//! VehicleRemoteExit and VehicleRemoteEnter of one connection share one bucket of 30 at
//! once and 15 a second. An event past it is acknowledged (the lane did) but dropped. Each
//! feature that reads one of these packets takes a token with [`VehicleEvents::take`].

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use dlmp_core::session::{PlayerConnected, RateLimit, TokenBucket};

/// 30 at once, 15 a second, per connection.
pub const VEHICLE_EVENTS: RateLimit = RateLimit::per_second(30, 15);

/// One connection's bucket of vehicle events, and the events it dropped.
#[derive(Component, Debug, Clone, Copy)]
pub struct VehicleEvents {
    bucket: TokenBucket,
    pub dropped: u64,
}

impl VehicleEvents {
    pub fn new(now: Duration) -> Self {
        VehicleEvents {
            bucket: TokenBucket::new(VEHICLE_EVENTS, now),
            dropped: 0,
        }
    }

    /// Whether an event at `now` is within the limit (it takes a token); counts a drop.
    pub fn take(&mut self, now: Duration) -> bool {
        let ok = self.bucket.try_take(now);
        if !ok {
            self.dropped += 1;
        }
        ok
    }
}

/// Every new connection gets its bucket.
pub(super) fn give(
    mut commands: Commands,
    time: Res<Time>,
    mut connected: MessageReader<PlayerConnected>,
) {
    for c in connected.read() {
        if let Ok(mut e) = commands.get_entity(c.player) {
            e.insert(VehicleEvents::new(time.elapsed()));
        }
    }
}
