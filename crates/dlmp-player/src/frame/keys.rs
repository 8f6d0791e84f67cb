//! Key change events (player.md, "Server reads and events"): `player_key_change` fires
//! for every changed key, the next change of the same key after 50 ms. A change held back
//! by that limit arrives with the next frame, so a release is never lost and a one-frame
//! press arrives later as a press and a release.

use std::time::Duration;

use dlmp_protocol::player::sync::Keys;

/// The next change of the same key counts after this long.
pub const KEY_INTERVAL: Duration = Duration::from_millis(50);
/// Keys the server reports (bits 0..8).
pub const KEY_COUNT: usize = 9;

/// The Lua names of the keys, by bit.
pub const KEY_NAMES: [&str; KEY_COUNT] = [
    "forward", "backward", "left", "right", "sprint", "jump", "walk", "fire", "aim",
];

/// One reported key change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyChange {
    /// The bit, 0..8.
    pub key: u8,
    pub pressed: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct KeySlot {
    /// What scripts were last told.
    reported: bool,
    last_change: Option<Duration>,
    /// The key left `reported` while held back (and may have come back).
    toggled: bool,
}

/// What scripts were told of a player's keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyTracker {
    slots: [KeySlot; KEY_COUNT],
}

impl KeyTracker {
    /// The keys the scripts were last told, as a mask.
    pub fn reported(&self) -> Keys {
        let mut k = 0u16;
        for (i, s) in self.slots.iter().enumerate() {
            if s.reported {
                k |= 1 << i;
            }
        }
        Keys(k)
    }

    /// Takes the keys of a frame (or a server pass) at `now`; calls `emit` for each change
    /// scripts are told of, in key order.
    pub fn observe(&mut self, keys: Keys, now: Duration, mut emit: impl FnMut(KeyChange)) {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let key = u8::try_from(i).unwrap_or(0);
            let down = keys.0 & (1 << i) != 0;
            let due = slot
                .last_change
                .is_none_or(|t| now.saturating_sub(t) >= KEY_INTERVAL);
            if !due {
                if down != slot.reported {
                    slot.toggled = true;
                }
                continue;
            }
            if down == slot.reported && !slot.toggled {
                continue;
            }
            if down == slot.reported {
                // It left and came back while held back: both edges, late.
                emit(KeyChange {
                    key,
                    pressed: !down,
                });
            }
            emit(KeyChange { key, pressed: down });
            slot.reported = down;
            slot.toggled = false;
            slot.last_change = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn run(t: &mut KeyTracker, keys: u16, at: u64) -> Vec<(u8, bool)> {
        let mut out = Vec::new();
        t.observe(Keys(keys), ms(at), |c| out.push((c.key, c.pressed)));
        out
    }

    #[test]
    fn every_changed_key_fires() {
        let mut t = KeyTracker::default();
        assert_eq!(run(&mut t, 0b101, 0), vec![(0, true), (2, true)]);
        assert_eq!(run(&mut t, 0b101, 20), vec![]);
        assert_eq!(run(&mut t, 0b001, 100), vec![(2, false)]);
    }

    #[test]
    fn a_held_back_release_is_not_lost() {
        let mut t = KeyTracker::default();
        run(&mut t, 1, 0);
        assert_eq!(run(&mut t, 0, 20), vec![], "within 50 ms");
        assert_eq!(run(&mut t, 0, 60), vec![(0, false)]);
    }

    #[test]
    fn a_one_frame_press_arrives_as_press_and_release() {
        let mut t = KeyTracker::default();
        run(&mut t, 1, 0);
        run(&mut t, 0, 60);
        assert_eq!(run(&mut t, 1, 80), vec![], "held back");
        assert_eq!(run(&mut t, 0, 200), vec![(0, true), (0, false)]);
        assert_eq!(t.reported(), Keys::NONE);
    }
}
