//! Which recipients' answers cannot have changed since they were last decided (ADR 0079).
//!
//! Players are shown within 420 m and hidden 40 m beyond (player.md, "Player streaming"),
//! vehicles within 200 m (vehicles.md, VehicleSync). An answer by distance can change only
//! when some item crosses its edge. When a
//! recipient was decided, [`Decision::slack`] measured how far every item was from its
//! edge. The answer still holds while the recipient's own move plus the farthest any
//! subject moved since then stays within that slack. Every other input is discrete: a
//! subject that joins, leaves, spawns, dies, changes scope, is seated or unseated, or jumps
//! (a teleport, a respawn), a change of the rules or of a seated player's audience, the
//! recipient's own scope, spawn or spectate target, or a shown set other than the one
//! decided. Any of these decides the recipients again.

use bevy_ecs::entity::Entity;

use super::engine::{Decision, Layer, Viewpoint, distance_squared};
use dlmp_protocol::geometry::Vec3;

/// A subject that moves farther than this in one pass, m, jumped (a teleport, a respawn).
/// Every recipient is decided again, not just given the jump as drift.
pub const JUMP: f32 = 5.0;

/// The revision of one recipient's shown set: bumped at every change of the set, so an
/// answer decided against it holds only while the revision is the one it was decided at
/// (comparing the sets themselves cost a thousand list compares a pass).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SetRevision(u64);

impl SetRevision {
    pub fn bump(&mut self) {
        self.0 = self.0.wrapping_add(1);
    }
}

/// What a pass sees of one subject slot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// The subject's entity: a slot taken by another subject is a change.
    pub entity: Entity,
    pub layer: Layer,
    pub position: Vec3,
    pub spawned: bool,
    /// Its audience decides alone (a seated player): its distance is no one's answer.
    pub forced: bool,
}

impl Seen {
    fn same_but_place(&self, other: &Seen) -> bool {
        self.entity == other.entity
            && self.layer == other.layer
            && self.spawned == other.spawned
            && self.forced == other.forced
    }
}

/// A recipient's last answer: what it was decided from, and how far it holds.
#[derive(Debug, Clone, Copy)]
struct Held {
    layer: Layer,
    active: bool,
    always: Option<u32>,
    center: Vec3,
    /// [`Stability::drift`] when it was decided.
    drift_at: f64,
    slack: f32,
}

/// The recipients whose answers hold, by slot.
#[derive(Debug, Default)]
pub struct Stability {
    seen: Vec<Option<Seen>>,
    next: Vec<Option<Seen>>,
    /// How far, m, any subject may have moved since the last discrete change: the sum of
    /// each pass's largest step.
    drift: f64,
    held: Vec<Option<Held>>,
    /// The revision of the shown set each held answer was decided against.
    expected: Vec<SetRevision>,
}

impl Stability {
    /// Starts a pass: note every subject with [`see`](Self::see), then
    /// [`settle`](Self::settle).
    pub fn begin(&mut self) {
        self.next.iter_mut().for_each(|s| *s = None);
    }

    pub fn see(&mut self, slot: usize, seen: Seen) {
        if self.next.len() <= slot {
            self.next.resize(slot + 1, None);
        }
        self.next[slot] = Some(seen);
    }

    /// Compares the subjects seen with the pass before. A discrete change, or `changed`
    /// (the rules, a seated player's audience), lets no answer hold.
    pub fn settle(&mut self, changed: bool) {
        let mut changed = changed;
        let mut step = 0.0f32;
        for i in 0..self.seen.len().max(self.next.len()) {
            let before = self.seen.get(i).copied().flatten();
            let now = self.next.get(i).copied().flatten();
            match (before, now) {
                (None, None) => {}
                (Some(a), Some(b)) if a.same_but_place(&b) => {
                    if a.spawned && !a.forced {
                        let d = distance(a.position, b.position);
                        if d <= JUMP {
                            step = step.max(d);
                        } else {
                            changed = true;
                        }
                    }
                }
                _ => changed = true,
            }
        }
        std::mem::swap(&mut self.seen, &mut self.next);
        if changed {
            self.held.iter_mut().for_each(|h| *h = None);
            self.drift = 0.0;
        } else {
            self.drift += f64::from(step);
        }
    }

    /// Recipient `slot` is decided again this pass: something only its answer depends on
    /// changed (it joined or left a seated player's audience).
    pub fn forget(&mut self, slot: usize) {
        if let Some(h) = self.held.get_mut(slot) {
            *h = None;
        }
    }

    /// Whether recipient `slot`'s last answer still holds for `viewpoint`, its shown set at
    /// revision `shown`.
    pub fn holds(&self, slot: usize, viewpoint: &Viewpoint, shown: SetRevision) -> bool {
        let Some(h) = self.held.get(slot).copied().flatten() else {
            return false;
        };
        let moved = f64::from(distance(h.center, viewpoint.center)) + (self.drift - h.drift_at);
        h.layer == viewpoint.layer
            && h.active == viewpoint.active
            && h.always == viewpoint.always
            && moved < f64::from(h.slack)
            && self.expected.get(slot) == Some(&shown)
    }

    /// Records recipient `slot`'s answer, just decided against its shown set at revision
    /// `shown`. Only an answer that changes nothing can hold: one that hides or shows is
    /// decided again next pass, against the set it left.
    pub fn decided(
        &mut self,
        slot: usize,
        viewpoint: &Viewpoint,
        shown: SetRevision,
        d: &Decision,
    ) {
        if self.held.len() <= slot {
            self.held.resize(slot + 1, None);
            self.expected.resize(slot + 1, SetRevision::default());
        }
        if !(d.hides.is_empty() && d.shows.is_empty() && d.slack > 0.0) {
            self.held[slot] = None;
            return;
        }
        self.held[slot] = Some(Held {
            layer: viewpoint.layer,
            active: viewpoint.active,
            always: viewpoint.always,
            center: viewpoint.center,
            drift_at: self.drift,
            slack: d.slack,
        });
        self.expected[slot] = shown;
    }
}

/// NaN when a coordinate is not finite: no step and no move then holds.
fn distance(a: Vec3, b: Vec3) -> f32 {
    distance_squared(a, b).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::ids::PlayerId;

    fn seen(x: f32) -> Seen {
        Seen {
            entity: Entity::PLACEHOLDER,
            layer: Layer::default(),
            position: Vec3::new(x, 0.0, 0.0),
            spawned: true,
            forced: false,
        }
    }

    fn view(x: f32) -> Viewpoint {
        Viewpoint {
            id: PlayerId(0),
            layer: Layer::default(),
            center: Vec3::new(x, 0.0, 0.0),
            active: true,
            always: None,
        }
    }

    /// Two revisions of one shown set.
    const R1: SetRevision = SetRevision(1);
    const R2: SetRevision = SetRevision(2);

    fn quiet(slack: f32) -> Decision {
        Decision {
            slack,
            ..Decision::default()
        }
    }

    fn pass(s: &mut Stability, x: f32) {
        s.begin();
        s.see(1, seen(x));
        s.settle(false);
    }

    #[test]
    fn an_answer_holds_while_the_moves_stay_within_its_slack() {
        let mut s = Stability::default();
        pass(&mut s, 0.0);
        s.decided(0, &view(0.0), R1, &quiet(3.0));
        assert!(s.holds(0, &view(0.0), R1));
        pass(&mut s, 1.0);
        assert!(s.holds(0, &view(1.0), R1), "1 m of drift, 1 m of own move");
        pass(&mut s, 2.0);
        assert!(!s.holds(0, &view(1.0), R1), "2 m of drift, 1 m of own move");
        assert!(!s.holds(0, &view(0.0), R2), "another shown set");
    }

    #[test]
    fn a_jump_a_change_or_an_answer_with_changes_holds_nothing() {
        let mut s = Stability::default();
        pass(&mut s, 0.0);
        s.decided(0, &view(0.0), R1, &quiet(100.0));
        pass(&mut s, JUMP + 1.0);
        assert!(!s.holds(0, &view(0.0), R1), "a jump");
        s.decided(0, &view(0.0), R1, &quiet(100.0));
        s.begin();
        s.see(
            1,
            Seen {
                spawned: false,
                ..seen(JUMP + 1.0)
            },
        );
        s.settle(false);
        assert!(!s.holds(0, &view(0.0), R1), "a death");
        s.decided(0, &view(0.0), R1, &quiet(100.0));
        s.begin();
        s.settle(false);
        assert!(!s.holds(0, &view(0.0), R1), "a leave");
        s.decided(0, &view(0.0), R1, &quiet(100.0));
        s.begin();
        s.settle(true);
        assert!(!s.holds(0, &view(0.0), R1), "the rules changed");
        let mut shows = quiet(100.0);
        shows.shows.push(2);
        s.decided(0, &view(0.0), R1, &shows);
        assert!(!s.holds(0, &view(0.0), R1), "an answer that shows");
        s.decided(0, &view(0.0), R1, &quiet(0.0));
        assert!(!s.holds(0, &view(0.0), R1), "no slack");
        s.decided(0, &view(0.0), R1, &quiet(100.0));
        let mut other = view(0.0);
        other.always = Some(1);
        assert!(!s.holds(0, &other, R1), "another spectate target");
        other = view(f32::NAN);
        assert!(!s.holds(0, &other, R1), "a center that is not finite");
    }
}
