//! Which recipients a change of a world kind can affect (docs/decisions/0077): the
//! places its changed items stood at before and stand at now, and their keys, so a pass
//! reconciles the recipients near a change (or shown the changed item) in the tick of the
//! change and leaves the others to their [`Cadence`](super::cadence::Cadence) rotation.
//!
//! A kind keeps the [`Places`] of its items as it last inserted them into its engine. When
//! something changed it rebuilds, and [`Places::diff`] against the new places gives the
//! [`Changes`]: items added, removed, moved or changed in scope.

use dlmp_core::streaming::engine::{Engine, Item, Layer, Viewpoint};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::PlayerId;

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

    /// Records `item` as inserted, at its place (see [`push`](Self::push)).
    pub fn push_item(&mut self, item: &Item, follows: bool) {
        let place = Place {
            layer: item.layer,
            position: item.position,
        };
        self.push(item.key, place, follows);
    }

    /// Sorts what [`push`](Self::push) recorded (call once after the rebuild).
    pub fn sort(&mut self) {
        self.entries.sort_unstable_by_key(|e| e.key);
    }

    /// Ends a rebuild: `rebuilt` (what it recorded) becomes these places, and `changes`
    /// the sealed [`diff`](Self::diff) between the two. `rebuilt` keeps the last places'
    /// allocation for the next rebuild.
    pub fn replace(&mut self, rebuilt: &mut Places, changes: &mut Changes) {
        rebuilt.sort();
        self.diff(rebuilt, changes);
        changes.seal();
        std::mem::swap(self, rebuilt);
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

/// For a kind with a cap and no distance limit: how far the farthest item shown to
/// `viewpoint` is (m). An item farther than that, before and after its change, has at
/// least `cap` admitted items strictly nearer, so it is not among the recipient's `cap`
/// nearest either way. Infinite while fewer than `cap` are shown, or when a shown item is
/// gone or has a show distance of its own (it may no longer be admitted, so the shown set
/// would not bound the cap's farthest).
pub fn cap_radius(engine: &Engine, viewpoint: &Viewpoint, shown: &[u32], cap: usize) -> f32 {
    measure(engine, viewpoint, shown, cap, true)
}

/// [`cap_radius`]; with `attached` false, also infinite when a shown item follows a parent
/// (it moves without a change, so a measure kept for later would not bound it).
fn measure(
    engine: &Engine,
    viewpoint: &Viewpoint,
    shown: &[u32],
    cap: usize,
    attached: bool,
) -> f32 {
    if shown.len() < cap {
        return f32::INFINITY;
    }
    let c = viewpoint.center;
    let mut farthest: f32 = 0.0;
    for key in shown {
        let Some(item) = engine
            .item(*key)
            .filter(|i| i.distances.is_none() && (attached || i.parent.is_none()))
        else {
            return f32::INFINITY;
        };
        let (dx, dy, dz) = (
            item.position.x - c.x,
            item.position.y - c.y,
            item.position.z - c.z,
        );
        farthest = farthest.max(dx * dx + dy * dy + dz * dz);
    }
    if farthest.is_finite() {
        farthest.sqrt()
    } else {
        f32::INFINITY
    }
}

/// Each recipient's cap radius as last measured, by slot: where its center was and the
/// radius then. Between two decisions of a recipient its shown set stays and its items do
/// not move without a change that marks it (a shown item's change is "shown to it"), so
/// the radius now is at most the measure plus how far its center moved (the triangle
/// inequality): a pass with a change measures only the recipients decided since.
#[derive(Debug, Clone, Default)]
pub struct Radii(Vec<Option<(Vec3, f32)>>);

impl Radii {
    /// `id` was decided (its shown set may have changed) or left: measure it again.
    pub fn forget(&mut self, id: PlayerId) {
        if let Some(r) = self.0.get_mut(id.0 as usize) {
            *r = None;
        }
    }

    /// A bound of `viewpoint`'s [`cap_radius`] now (infinite when a shown item follows a
    /// parent).
    pub fn bound(
        &mut self,
        engine: &Engine,
        viewpoint: &Viewpoint,
        shown: &[u32],
        cap: usize,
    ) -> f32 {
        let i = viewpoint.id.0 as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, None);
        }
        let c = viewpoint.center;
        let bound = match self.0[i] {
            Some((then, r)) => {
                let (dx, dy, dz) = (c.x - then.x, c.y - then.y, c.z - then.z);
                r + (dx * dx + dy * dy + dz * dz).sqrt()
            }
            None => {
                let r = measure(engine, viewpoint, shown, cap, false);
                self.0[i] = Some((c, r));
                r
            }
        };
        if bound.is_nan() { f32::INFINITY } else { bound }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A small fixed LCG in [0, 1).
    struct Lcg(u32);
    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (self.0 >> 8) as f32 / (1u32 << 24) as f32
        }
        fn coord(&mut self, half: f32) -> f32 {
            self.next() * 2.0 * half - half
        }
    }

    use dlmp_core::streaming::engine::{Decision, Everyone, Item, Rules};
    use dlmp_core::streaming::players::Distances;

    fn build(items: &[Item]) -> (Engine, Places) {
        let mut engine = Engine::new(25.0);
        let mut places = Places::default();
        for item in items {
            engine.insert(*item);
            let place = Place {
                layer: item.layer,
                position: item.position,
            };
            places.push(item.key, place, false);
        }
        places.sort();
        (engine, places)
    }

    fn decide(engine: &mut Engine, rules: &Rules, v: &Viewpoint, shown: &[u32]) -> Decision {
        let mut out = Decision::default();
        engine.decide(rules, v, shown, &Everyone, &mut out);
        out
    }

    /// The claim of ADR 0077: for a recipient the changes do not affect, the decision after
    /// the change is the decision before it (whatever its shown set and however far it
    /// moved since it was last decided), so leaving it to its rotation loses nothing.
    fn unaffected_recipients_decide_as_before(rules: Rules, seed: u32) {
        let mut rng = Lcg(seed);
        let reach = rules.distances.map(|d| d.hide.max(d.show));
        let cap = rules.cap.unwrap_or(usize::MAX);
        let (mut spared, mut needed) = (0, 0);
        for _ in 0..40 {
            let mut items: Vec<Item> = (0..60)
                .map(|k| {
                    let layer = (u32::from(rng.next() < 0.1), 0);
                    Item::at(k, layer, Vec3::new(rng.coord(400.0), rng.coord(400.0), 0.0))
                })
                .collect();
            let (mut before, old) = build(&items);
            let mut recipients = Vec::new();
            let mut centers = std::collections::HashMap::new();
            for i in 0..30 {
                let c0 = Vec3::new(rng.coord(400.0), rng.coord(400.0), 0.0);
                centers.insert(i, c0);
                let mut v = Viewpoint::at(PlayerId(i), (0, 0), c0);
                let mut set = decide(&mut before, &rules, &v, &[]).shows;
                set.sort_unstable();
                if rng.next() < 0.5 {
                    let step = if rng.next() < 0.5 { 30.0 } else { 300.0 };
                    v.center = Vec3::new(c0.x + rng.coord(step), c0.y + rng.coord(step), 0.0);
                }
                recipients.push((v, set));
            }
            let changed = (rng.next() * 60.0) as usize % items.len();
            match (rng.next() * 3.0) as u32 {
                0 => items.push(Item::at(
                    99,
                    (0, 0),
                    Vec3::new(rng.coord(400.0), rng.coord(400.0), 0.0),
                )),
                1 => {
                    items.remove(changed);
                }
                _ => {
                    let to = if rng.next() < 0.5 { 20.0 } else { 400.0 };
                    let p = items[changed].position;
                    items[changed].position = Vec3::new(p.x + rng.coord(to), p.y, 0.0);
                }
            }
            let (mut after, new) = build(&items);
            let mut changes = Changes::default();
            old.diff(&new, &mut changes);
            changes.seal();
            for (v, set) in &recipients {
                let affected = match reach {
                    Some(reach) => changes.affect(v, set, reach),
                    None => changes.affect_capped(v, set, || cap_radius(&after, v, set, cap)),
                };
                if reach.is_none() {
                    // A measure taken where the recipient was decided bounds the radius
                    // where it is now.
                    let mut radii = Radii::default();
                    let then = Viewpoint {
                        center: centers[&v.id.0],
                        ..*v
                    };
                    radii.bound(&before, &then, set, cap);
                    let bound = radii.bound(&after, v, set, cap);
                    assert!(bound >= cap_radius(&before, v, set, cap) - 1e-3);
                }
                let was = decide(&mut before, &rules, v, set);
                let is = decide(&mut after, &rules, v, set);
                if affected {
                    needed += usize::from(was != is);
                } else {
                    spared += 1;
                    assert_eq!(was, is, "an unaffected recipient {v:?} shown {set:?}");
                }
            }
        }
        assert!(
            spared > 200 && needed > 3,
            "spared {spared}, needed {needed}"
        );
    }

    #[test]
    fn with_a_show_distance_an_unaffected_recipient_decides_as_before() {
        let rules = Rules {
            distances: Some(Distances::new(50.0, 10.0, None)),
            cap: Some(5),
        };
        unaffected_recipients_decide_as_before(rules, 7);
        unaffected_recipients_decide_as_before(Rules { cap: None, ..rules }, 8);
    }

    #[test]
    fn with_a_cap_and_no_distance_an_unaffected_recipient_decides_as_before() {
        let rules = Rules {
            distances: None,
            cap: Some(5),
        };
        unaffected_recipients_decide_as_before(rules, 11);
        unaffected_recipients_decide_as_before(rules, 12);
    }
}
