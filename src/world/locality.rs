//! Which recipients a change of a world kind can affect (docs/decisions/0077): the
//! places its changed items stood at before and stand at now, and their keys, so a pass
//! reconciles the recipients near a change (or shown the changed item) in the tick of the
//! change and leaves the others to their [`Cadence`](super::cadence::Cadence) rotation.
//!
//! A kind keeps the [`Places`] of its items as it last inserted them into its engine. When
//! something changed it rebuilds, and [`Places::diff`] against the new places gives the
//! [`Changes`]: items added, removed, moved or changed in scope.

use crate::protocol::geometry::Vec3;
use crate::streaming::engine::{Layer, Viewpoint};

/// More changed items than this in one pass and the pass reconciles everyone: marking
/// would cost more than it saves.
pub const MOST: usize = 64;

/// A float slack on every reach, m: a mark is a superset, never a miss on a rounding.
const SLACK: f32 = 1.0;

/// Where an item stood when it was last inserted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub layer: Layer,
    pub position: Vec3,
}

/// One item's place, with whether it follows a parent and was not itself changed (its
/// move is the parent's, which the page's once-a-second reconcile covers).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    key: u32,
    place: Place,
    follows: bool,
}

/// The places of a kind's items, ascending by key.
#[derive(Debug, Clone, Default)]
pub struct Places {
    entries: Vec<Entry>,
}

impl Places {
    /// Forgets every place (before a rebuild records the new ones).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Records an inserted item. `follows`: it is attached and not itself changed this
    /// pass, so a change of its place is its parent's move alone.
    pub fn push(&mut self, key: u32, place: Place, follows: bool) {
        self.entries.push(Entry {
            key,
            place,
            follows,
        });
    }

    /// Sorts what [`push`](Self::push) recorded (call once after the rebuild).
    pub fn sort(&mut self) {
        self.entries.sort_unstable_by_key(|e| e.key);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What changed from `self` (the last places) to `now`: each key in one and not the
    /// other, and each key whose place differs (unless it only follows its parent), with
    /// both places.
    pub fn diff(&self, now: &Places, changes: &mut Changes) {
        let (mut a, mut b) = (
            self.entries.iter().peekable(),
            now.entries.iter().peekable(),
        );
        loop {
            match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some(old), None) => {
                    changes.record(old.key, Some(old.place), None);
                    a.next();
                }
                (None, Some(new)) => {
                    changes.record(new.key, None, Some(new.place));
                    b.next();
                }
                (Some(old), Some(new)) => match old.key.cmp(&new.key) {
                    std::cmp::Ordering::Less => {
                        changes.record(old.key, Some(old.place), None);
                        a.next();
                    }
                    std::cmp::Ordering::Greater => {
                        changes.record(new.key, None, Some(new.place));
                        b.next();
                    }
                    std::cmp::Ordering::Equal => {
                        if old.place != new.place && !new.follows {
                            changes.record(new.key, Some(old.place), Some(new.place));
                        }
                        a.next();
                        b.next();
                    }
                },
            }
        }
    }
}

/// This pass's changes of one kind.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    places: Vec<Place>,
    /// Ascending once [`seal`](Self::seal)ed.
    keys: Vec<u32>,
    everyone: bool,
}

impl Changes {
    pub fn clear(&mut self) {
        self.places.clear();
        self.keys.clear();
        self.everyone = false;
    }

    /// `key` changed from `old` to `new` (`None`: it was not, or is no longer, an item).
    pub fn record(&mut self, key: u32, old: Option<Place>, new: Option<Place>) {
        if self.everyone {
            return;
        }
        if self.keys.len() >= MOST {
            self.everyone = true;
            self.places.clear();
            self.keys.clear();
            return;
        }
        self.keys.push(key);
        self.places.extend(old);
        self.places.extend(new);
    }

    /// Sorts the keys (call once after the last [`record`](Self::record)).
    pub fn seal(&mut self) {
        self.keys.sort_unstable();
    }

    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.everyone && self.keys.is_empty()
    }

    /// Too many changed: every recipient is reconciled.
    pub fn everyone(&self) -> bool {
        self.everyone
    }

    /// Whether a changed item is in `shown` (ascending): the recipient is shown it now.
    pub fn shown_in(&self, shown: &[u32]) -> bool {
        self.keys.iter().any(|k| shown.binary_search(k).is_ok())
    }

    /// Whether a changed item stood or stands in `viewpoint`'s layer within `reach` of its
    /// center (3D; `reach` infinite: anywhere in the layer).
    pub fn near(&self, viewpoint: &Viewpoint, reach: f32) -> bool {
        let r = reach + SLACK;
        self.places.iter().any(|p| {
            p.layer == viewpoint.layer && {
                let c = viewpoint.center;
                let (dx, dy, dz) = (p.position.x - c.x, p.position.y - c.y, p.position.z - c.z);
                let d2 = dx * dx + dy * dy + dz * dz;
                // A non-finite distance (a far or broken coordinate) marks: never a miss.
                r == f32::INFINITY || d2.is_nan() || d2 <= r * r
            }
        })
    }

    /// For a kind with a show distance: whether the changes can alter `viewpoint`'s
    /// decision: everyone, a changed item shown to it, or one within `reach` (the kind's
    /// largest hide distance) of its center before or after the change.
    pub fn affect(&self, viewpoint: &Viewpoint, shown: &[u32], reach: f32) -> bool {
        self.everyone
            || (!self.keys.is_empty() && (self.shown_in(shown) || self.near(viewpoint, reach)))
    }

    /// For a kind with a cap and no distance limit: whether the changes can alter
    /// `viewpoint`'s decision: everyone, a changed item shown to it, or one before or after
    /// the change within `radius()` of its center: the farthest of what is shown to it
    /// (infinite while fewer than the cap are), asked only when there is a change.
    pub fn affect_capped(
        &self,
        viewpoint: &Viewpoint,
        shown: &[u32],
        radius: impl FnOnce() -> f32,
    ) -> bool {
        self.everyone
            || (!self.keys.is_empty() && (self.shown_in(shown) || self.near(viewpoint, radius())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ids::PlayerId;

    fn at(x: f32) -> Place {
        Place {
            layer: (0, 0),
            position: Vec3::new(x, 0.0, 0.0),
        }
    }

    fn places(entries: &[(u32, f32, bool)]) -> Places {
        let mut p = Places::default();
        for &(k, x, follows) in entries {
            p.push(k, at(x), follows);
        }
        p.sort();
        p
    }

    #[test]
    fn the_diff_names_added_removed_and_moved_but_not_a_parent_s_move() {
        let old = places(&[
            (1, 0.0, false),
            (2, 10.0, false),
            (3, 20.0, true),
            (5, 0.0, false),
        ]);
        let new = places(&[
            (2, 11.0, false),
            (3, 25.0, true),
            (4, 30.0, false),
            (5, 0.0, false),
        ]);
        let mut c = Changes::default();
        old.diff(&new, &mut c);
        c.seal();
        assert_eq!(c.keys, [1, 2, 4]);
        assert_eq!(c.places, [at(0.0), at(10.0), at(11.0), at(30.0)]);
    }

    #[test]
    fn a_change_affects_the_near_and_those_shown_it_only() {
        let mut c = Changes::default();
        c.record(7, Some(at(100.0)), Some(at(300.0)));
        c.seal();
        let me = |x: f32| Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(x, 0.0, 0.0));
        assert!(c.affect(&me(150.0), &[], 60.0), "near the old place");
        assert!(c.affect(&me(250.0), &[], 60.0), "near the new place");
        assert!(
            !c.affect(&me(200.0), &[], 60.0),
            "between, beyond reach of both"
        );
        assert!(c.affect(&me(200.0), &[3, 7], 60.0), "shown it");
        assert!(
            c.affect(&me(9000.0), &[], f32::INFINITY),
            "no distance limit"
        );
        let other = Viewpoint {
            layer: (1, 0),
            ..me(100.0)
        };
        assert!(!c.affect(&other, &[], 60.0), "another scope");
        assert!(!Changes::default().affect(&me(100.0), &[], 60.0));
    }

    #[test]
    fn too_many_changes_are_everyone() {
        let mut c = Changes::default();
        for k in 0..=MOST as u32 {
            c.record(k, None, Some(at(0.0)));
        }
        let far = Viewpoint::at(PlayerId(0), (5, 0), Vec3::new(1e6, 0.0, 0.0));
        assert!(c.everyone() && c.affect(&far, &[], 1.0));
    }
}
