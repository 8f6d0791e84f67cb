//! A short history of each player's server position, for the rewind of a shot
//! (connection.md §6, ShotRewind: the target's "server's position of it at the time of
//! the shooter's last frame"). Decisions: docs/decisions/0017-shot-history.md.
//!
//! Every tick in which a player's [`Position`] changed (an accepted frame, a spawn, a
//! teleport) adds one entry, stamped with the tick's server time, once the tick's gameplay
//! is done and before the relays.

use std::collections::VecDeque;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;

use dlmp_core::position::Position;
use dlmp_core::session::PlayerConnected;
use dlmp_core::tick::{ServerSystems, StreamingSystems};
use dlmp_protocol::geometry::Vec3;

/// How far back the history answers exactly: 1 s (a shooter's frames come at least every
/// 100 ms; a heartbeat gap ten times that is a shooter that barely talks).
pub const HISTORY_SPAN: Duration = Duration::from_secs(1);
/// Entries kept at most: one a tick over [`HISTORY_SPAN`] at 50 Hz, with room for a
/// faster tick rate.
pub const HISTORY_LEN: usize = 64;

/// The player's server positions of about the last [`HISTORY_SPAN`], oldest first: each
/// from its server time until the next entry's.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct PositionHistory(VecDeque<(Duration, Vec3)>);

impl PositionHistory {
    /// The player stands at `pos` from `at` on. The oldest entry stays while it is the
    /// position at the start of the span.
    pub fn record(&mut self, at: Duration, pos: Vec3) {
        if self.0.back().is_some_and(|&(_, p)| p == pos) {
            return;
        }
        self.0.push_back((at, pos));
        while self.0.len() > HISTORY_LEN
            || self
                .0
                .get(1)
                .is_some_and(|&(t, _)| at.saturating_sub(t) >= HISTORY_SPAN)
        {
            self.0.pop_front();
        }
    }

    /// The server's position at `at`: the newest entry not after it; before the history,
    /// the oldest entry (the nearest known); `None` without entries.
    pub fn at(&self, at: Duration) -> Option<Vec3> {
        self.0
            .iter()
            .rev()
            .find(|&&(t, _)| t <= at)
            .or_else(|| self.0.front())
            .map(|&(_, p)| p)
    }
}

/// Keeps every player's [`PositionHistory`].
pub struct HistoryPlugin;

impl Plugin for HistoryPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(FixedUpdate, give_history.in_set(ServerSystems::Validation))
            .add_systems(
                FixedUpdate,
                record_positions
                    .in_set(ServerSystems::Streaming)
                    .before(StreamingSystems::Relay),
            );
    }
}

fn give_history(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands.entity(c.player).insert(PositionHistory::default());
    }
}

/// One entry per player whose position changed this tick.
fn record_positions(
    time: Res<Time>,
    mut players: Query<(&Position, &mut PositionHistory), Changed<Position>>,
) {
    let now = time.elapsed();
    for (position, mut history) in &mut players {
        history.record(now, position.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn x(v: f32) -> Vec3 {
        Vec3::new(v, 0.0, 0.0)
    }

    #[test]
    fn the_position_at_a_time_is_the_newest_entry_not_after_it() {
        let mut h = PositionHistory::default();
        assert_eq!(h.at(ms(5)), None);
        for (t, v) in [(100, 1.0), (200, 2.0), (300, 3.0)] {
            h.record(ms(t), x(v));
        }
        assert_eq!(h.at(ms(250)), Some(x(2.0)));
        assert_eq!(h.at(ms(200)), Some(x(2.0)));
        assert_eq!(h.at(ms(999)), Some(x(3.0)));
        assert_eq!(h.at(ms(50)), Some(x(1.0)), "before the history: the oldest");
    }

    #[test]
    fn the_history_keeps_the_position_at_the_start_of_its_span() {
        let mut h = PositionHistory::default();
        h.record(ms(0), x(0.0));
        for t in 1..=300u16 {
            h.record(ms(u64::from(t) * 20), x(f32::from(t)));
        }
        // Now = 6 s: the entry at 5 s (x = 250) still answers for 5 s.
        assert_eq!(h.at(ms(5_000)), Some(x(250.0)));
        assert_eq!(h.at(ms(5_010)), Some(x(250.0)));
        assert!(h.0.len() <= HISTORY_LEN);
        assert!(ms(6_000) - h.0[1].0 < HISTORY_SPAN);
    }

    #[test]
    fn standing_still_keeps_one_entry() {
        let mut h = PositionHistory::default();
        for t in 0..100 {
            h.record(ms(t * 20), x(7.0));
        }
        assert_eq!(h.0.len(), 1);
        assert_eq!(h.at(ms(1)), Some(x(7.0)));
    }
}
