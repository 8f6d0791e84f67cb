//! When a vehicle started burning (vehicles.md VehicleExplode: "the vehicle has been
//! burning (health below 250) for at least 4 s"). The server's health changes by accepted
//! frames (Validation) and by gamemode commands (Apply); `track` runs after each and
//! stamps the tick the health went below [`BURNING_BELOW`]. A health at or above it (a
//! repair, `set_vehicle_health`) ends the burning; a respawn starts a life that does not
//! burn.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use crate::Health;

/// A vehicle burns while its health is below this.
pub const BURNING_BELOW: f32 = 250.0;

/// An explosion is accepted after this much burning.
pub const BURN_TIME: Duration = Duration::from_secs(4);

/// Since when the vehicle's server health has been below [`BURNING_BELOW`].
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Burning {
    pub since: Option<Duration>,
}

impl Burning {
    /// Takes the health of this tick.
    pub fn take(&mut self, health: f32, now: Duration) {
        if health < BURNING_BELOW {
            self.since.get_or_insert(now);
        } else {
            self.since = None;
        }
    }

    /// Whether it burns now (with `health` below the line) and has burnt for `for_at_least`.
    pub fn has_burnt(&self, health: f32, now: Duration, for_at_least: Duration) -> bool {
        health < BURNING_BELOW
            && self
                .since
                .is_some_and(|t| now.saturating_sub(t) >= for_at_least)
    }
}

/// Stamps the start and end of burning of every vehicle whose health changed.
pub(super) fn track(
    time: Res<Time>,
    mut vehicles: Query<(&Health, &mut Burning), Changed<Health>>,
) {
    let now = time.elapsed();
    for (health, mut burning) in &mut vehicles {
        let before = *burning;
        let mut after = before;
        after.take(health.0, now);
        if after != before {
            *burning = after;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn burning_starts_below_250_and_a_repair_ends_it() {
        let mut b = Burning::default();
        b.take(250.0, S(0));
        assert_eq!(b.since, None, "250 does not burn");
        b.take(249.0, S(100));
        b.take(100.0, S(900));
        assert_eq!(b.since, Some(S(100)), "the first tick below counts");
        assert!(!b.has_burnt(100.0, S(4099), BURN_TIME));
        assert!(b.has_burnt(100.0, S(4100), BURN_TIME));
        b.take(600.0, S(4200));
        assert_eq!(b.since, None);
        b.take(200.0, S(5000));
        assert!(
            !b.has_burnt(200.0, S(8999), BURN_TIME),
            "a new fire, a new clock"
        );
    }
}
