//! The pure rules of frame admission (player.md, "Fields", "paused", "on_fire",
//! "special_action", "weapon_rev"): no ECS, no clock, each takes what it needs and the time.

use std::time::Duration;

use crate::state::Inventory;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::player::sync::{Frame, Keys, MAX_RELAY_VEL};

/// A change of paused or on_fire counts at most once per this long.
pub const TOGGLE_INTERVAL: Duration = Duration::from_secs(1);
/// Physics steps per second: Frame.vel is in units per step.
pub const STEPS_PER_SECOND: f32 = 50.0;
/// The longest velocity the server keeps, m/s (5 units per step).
pub const MAX_SPEED: f32 = MAX_RELAY_VEL * STEPS_PER_SECOND;

/// Whether a rate-limited toggle last changed at `last` may change again at `now`.
pub fn may_toggle(last: Option<Duration>, now: Duration) -> bool {
    last.is_none_or(|t| now.saturating_sub(t) >= TOGGLE_INTERVAL)
}

/// `v` with its length capped to `max` (the direction kept).
pub fn cap_length(v: Vec3, max: f32) -> Vec3 {
    let len = v.length();
    if len <= max || len == 0.0 {
        return v;
    }
    let k = max / len;
    let capped = Vec3::new(v.x * k, v.y * k, v.z * k);
    // Rounding may leave a few ulps over; shave them off.
    if capped.length() > max {
        let k = k * (1.0 - 1e-6);
        Vec3::new(v.x * k, v.y * k, v.z * k)
    } else {
        capped
    }
}

/// `v` as a unit vector; a zero (or degenerate) vector is `None`.
pub fn normalized(v: Vec3) -> Option<Vec3> {
    let len = v.length();
    (len.is_finite() && len > 1e-12).then(|| Vec3::new(v.x / len, v.y / len, v.z / len))
}

/// The frame's velocity in m/s, at most [`MAX_SPEED`] long.
pub fn velocity_mps(vel: Vec3) -> Vec3 {
    let v = Vec3::new(
        vel.x * STEPS_PER_SECOND,
        vel.y * STEPS_PER_SECOND,
        vel.z * STEPS_PER_SECOND,
    );
    cap_length(v, MAX_SPEED)
}

/// The keys the server keeps of a frame: bits 0..8, none while paused or frozen.
pub fn kept_keys(frame: &Frame, paused: bool, frozen: bool) -> Keys {
    if paused || frozen || frame.paused {
        Keys::NONE
    } else {
        frame.keys.known()
    }
}

/// Whether `weapon` spends rounds (thrown weapons, firearms, the spray can, the
/// extinguisher, the camera), as opposed to melee weapons, the detonator, goggles and the
/// parachute.
pub fn uses_ammo(weapon: u8) -> bool {
    matches!(weapon, 16..=18 | 22..=39 | 41..=43)
}

/// The weapon the relay shows: the frame's if the inventory holds it, otherwise the last
/// confirmed one.
pub fn relay_weapon(frame: &Frame, inv: &Inventory) -> u8 {
    if inv.holds(frame.weapon) {
        frame.weapon
    } else {
        inv.armed
    }
}

/// The ammo of `weapon` by the inventory: (clip, total).
pub fn relay_ammo(frame: &Frame, inv: &Inventory, weapon: u8) -> (u16, u16) {
    let total = inv.ammo.get(usize::from(weapon)).copied().unwrap_or(0);
    let clip = if weapon == inv.armed {
        inv.clip
    } else {
        frame.clip
    };
    (clip.min(total), total)
}

/// Reconciles the inventory with a frame of the current weapon_rev (the caller checks the
/// echo): the armed weapon only within the inventory, ammo only downward. Returns whether
/// anything changed.
pub fn reconcile(inv: &mut Inventory, frame: &Frame) -> bool {
    if !inv.holds(frame.weapon) {
        return false;
    }
    let before = (inv.armed, inv.clip, inv.ammo);
    let w = frame.weapon;
    inv.armed = w;
    let slot = &mut inv.ammo[usize::from(w)];
    *slot = (*slot).min(frame.total);
    inv.clip = frame.clip.min(*slot);
    before != (inv.armed, inv.clip, inv.ammo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> Frame {
        Frame {
            keys: Keys(0xFFFF),
            cam: Vec3::ZERO,
            yaw: 0.0,
            move_state: Default::default(),
            ..Frame::standing(Vec3::ZERO)
        }
    }

    #[test]
    fn toggles_once_a_second() {
        assert!(may_toggle(None, Duration::ZERO));
        assert!(!may_toggle(
            Some(Duration::from_millis(500)),
            Duration::from_millis(1499)
        ));
        assert!(may_toggle(
            Some(Duration::from_millis(500)),
            Duration::from_millis(1500)
        ));
    }

    #[test]
    fn capped_vectors_stay_within_the_cap() {
        let v = cap_length(Vec3::new(300.0, 400.0, 0.0), 5.0);
        assert!(v.length() <= 5.0);
        assert!((v.x - 3.0).abs() < 1e-4);
        assert_eq!(cap_length(Vec3::new(1.0, 0.0, 0.0), 5.0).x, 1.0);
        assert!(velocity_mps(Vec3::new(100.0, 0.0, 0.0)).length() <= MAX_SPEED);
    }

    #[test]
    fn zero_direction_has_no_normal() {
        assert_eq!(normalized(Vec3::ZERO), None);
        let n = normalized(Vec3::new(0.0, 3.0, 4.0)).expect("a direction");
        assert!((n.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn keys_are_masked_and_zeroed_while_paused_or_frozen() {
        let f = frame();
        assert_eq!(kept_keys(&f, false, false), Keys::KNOWN);
        assert_eq!(kept_keys(&f, true, false), Keys::NONE);
        assert_eq!(kept_keys(&f, false, true), Keys::NONE);
    }

    #[test]
    fn reconciliation_arms_only_held_weapons_and_lowers_ammo() {
        let mut inv = Inventory::default();
        inv.held.set(24, true);
        inv.ammo[24] = 50;
        let mut f = frame();
        f.weapon = 31;
        f.total = 500;
        assert!(!reconcile(&mut inv, &f), "not held: nothing");
        f.weapon = 24;
        f.clip = 7;
        f.total = 90;
        assert!(reconcile(&mut inv, &f));
        assert_eq!(
            (inv.armed, inv.ammo[24], inv.clip),
            (24, 50, 7),
            "never upward"
        );
        f.total = 30;
        reconcile(&mut inv, &f);
        assert_eq!(inv.ammo[24], 30);
    }
}
