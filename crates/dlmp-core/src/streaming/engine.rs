//! The one streaming engine (docs/decisions/0027-one-streaming-engine.md): the decision of
//! what one recipient is shown of one kind, for every kind that streams (players today;
//! pickups, labels, blips, gang zones, colshape outlines, objects and vehicles), I/O-free.
//!
//! A kind describes itself with [`Rules`] (show distance and hysteresis, or none; a cap
//! filled nearest first) and, each pass, hands the engine its subjects as [`Item`]s (key,
//! scope, position, single viewer, "never to", parent, forced audience). For each
//! recipient ([`Viewpoint`]) and its current shown set, [`Engine::decide`] answers what to
//! hide and what to show, nearest first. The kind's plugin then acts on the answer: for the
//! world kinds [`ShownSets`](super::shown::ShownSets) does the lane part (pending hides
//! before the next show, retries on a full lane, a new connection's set again).
//!
//! Only what is near costs: the subjects are in one [`Grid`] per kind, and a recipient
//! looks at the cells within the hide distance of its center. A kind with a cap and no
//! distance limit (blips, gang zones) searches ring by ring for the nearest, once per
//! small cell of recipients, who share the list ([`nearest`](super::nearest), ADR 0074).
//!
//! ```
//! use dlmp_protocol::geometry::Vec3;
//! use dlmp_protocol::ids::PlayerId;
//! use dlmp_core::streaming::engine::{Decision, Engine, Everyone, Item, Rules, Viewpoint};
//! use dlmp_core::streaming::players::Distances;
//!
//! let rules = Rules { distances: Some(Distances::new(100.0, 10.0, None)), cap: Some(1) };
//! let mut engine = Engine::new(50.0);
//! engine.insert(Item::at(7, (0, 0), Vec3::new(30.0, 0.0, 0.0)));
//! engine.insert(Item::at(8, (0, 0), Vec3::new(20.0, 0.0, 0.0)));
//! engine.insert(Item::at(9, (0, 0), Vec3::new(500.0, 0.0, 0.0)));
//! let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::ZERO);
//! let mut out = Decision::default();
//! engine.decide(&rules, &me, &[7], &Everyone, &mut out);
//! assert_eq!((out.hides.as_slice(), out.shows.as_slice()), (&[7][..], &[8][..]), "the cap holds the nearest");
//! ```

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::grid::{FxHasher, Grid};
use super::nearest::Groups;
use super::players::Distances;
use crate::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::PlayerId;

/// A world scope as the grid's layer: (virtual world, interior).
pub type Layer = (u32, u8);

/// The layer of a scope.
pub fn layer(scope: &Scope) -> Layer {
    (scope.virtual_world, scope.interior)
}

/// How a kind streams: its page's distances and cap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    /// Shown within `show` of the recipient's center, kept up to `hide` (hysteresis).
    /// `None`: no distance limit (gang zones; a blip without draw distance).
    pub distances: Option<Distances>,
    /// At most this many shown to one recipient, the nearest first. `None`: no cap.
    pub cap: Option<usize>,
}

/// One recipient in this pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewpoint {
    pub id: PlayerId,
    pub layer: Layer,
    /// Its stream center (the camera while it is not its own, else the body).
    pub center: Vec3,
    /// A recipient that is not active (not spawned yet) is shown nothing.
    pub active: bool,
    /// The key of a subject shown at any distance (a spectate target), still subject to
    /// every other rule.
    pub always: Option<u32>,
}

impl Viewpoint {
    /// An active recipient at `center` with nothing shown at any distance.
    pub fn at(id: PlayerId, layer: Layer, center: Vec3) -> Self {
        Viewpoint {
            id,
            layer,
            center,
            active: true,
            always: None,
        }
    }
}

/// One subject of a kind in this pass. A subject that may not be shown now (inactive,
/// waiting for a respawn, not spawned) is simply not inserted: whoever sees it gets a hide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    /// The kind's id of the subject (player slot, pickup id, marker id), the value the
    /// shown sets hold.
    pub key: u32,
    pub layer: Layer,
    /// Its position (for an attached subject, the parent's).
    pub position: Vec3,
    /// A single viewer: shown to this recipient only.
    pub viewer: Option<PlayerId>,
    /// Never shown to this recipient (a player to itself; a label to the player it is
    /// attached to).
    pub not_to: Option<PlayerId>,
    /// Shown only while [`Audience::parent_shown`] says this parent is shown to the
    /// recipient.
    pub parent: Option<u32>,
    /// Its audience is [`Audience::forced`] alone, at any distance (a seated player follows
    /// its vehicle). Forced items are not in the grid; keep them few.
    pub forced: bool,
    /// Its own show distance and hysteresis (a label's `draw_distance`, a blip's), in place
    /// of [`Rules::distances`]; within the rules' (which bound the grid query) or `None`
    /// there.
    pub distances: Option<Distances>,
    /// The places it takes against the cap (a chain of objects with its parents: world.md
    /// ObjectState, "as a whole or not at all"). 1 for a single subject.
    pub weight: u32,
}

impl Item {
    /// A subject for everyone in `layer` at `position`.
    pub fn at(key: u32, layer: Layer, position: Vec3) -> Self {
        Item {
            key,
            layer,
            position,
            viewer: None,
            not_to: None,
            parent: None,
            forced: false,
            distances: None,
            weight: 1,
        }
    }
}

/// What the engine asks the kind about other entities.
pub trait Audience {
    /// Whether `parent` (an [`Item::parent`]) is shown to `recipient` now.
    fn parent_shown(&self, _parent: u32, _recipient: PlayerId) -> bool {
        true
    }
    /// For a [`forced`](Item::forced) subject: whether `recipient` is in its audience.
    fn forced(&self, _key: u32, _recipient: PlayerId) -> bool {
        false
    }
    /// For a [`forced`](Item::forced) subject: every recipient in its audience, into `out`,
    /// if the kind can list them (false: it cannot). [`Engine::index_forced`] uses it so a
    /// recipient weighs only the forced subjects whose audience it is in.
    fn forced_audience(&self, _key: u32, _out: &mut Vec<PlayerId>) -> bool {
        false
    }
}

/// A kind with neither parents nor forced audiences.
#[derive(Debug, Clone, Copy, Default)]
pub struct Everyone;

impl Audience for Everyone {}

/// The answer for one recipient.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// Keys shown now that are to go, ascending.
    pub hides: Vec<u32>,
    /// Keys to show, the nearest first.
    pub shows: Vec<u32>,
    /// With [`Engine::with_slack`]: how far, in m, the recipient's center and the items
    /// may move together before an answer by distance can differ from this one (the least
    /// distance of an item to the edge it is measured against; ADR 0079). 0 otherwise.
    pub slack: f32,
}

impl Decision {
    pub fn clear(&mut self) {
        self.hides.clear();
        self.shows.clear();
        self.slack = 0.0;
    }
}

/// Whether `item` may be shown to `viewer` now, and if so its squared distance (the
/// order of the cap). `shown`: whether it is shown now (the hysteresis).
///
/// In order: an active recipient only; the same scope; never to [`Item::not_to`]; a
/// single viewer only to that viewer; an attached subject only while its parent is shown
/// to the recipient; then a forced subject's audience decides alone; the recipient's
/// `always` subject at any distance; otherwise the 3D distance from the center, within
/// `show` for a new show and `hide` for a shown one (the item's own distances when it has
/// them, else the rules'). A non-finite distance is never within.
pub fn admits(
    rules: &Rules,
    viewer: &Viewpoint,
    item: &Item,
    shown: bool,
    audience: &impl Audience,
) -> Option<f32> {
    if !viewer.active
        || !for_viewer(viewer, item)
        || item
            .parent
            .is_some_and(|p| !audience.parent_shown(p, viewer.id))
    {
        return None;
    }
    let d2 = distance_squared(viewer.center, item.position);
    if item.forced {
        return audience.forced(item.key, viewer.id).then_some(d2);
    }
    if viewer.always == Some(item.key) {
        return Some(d2);
    }
    let Some(d) = item.distances.or(rules.distances) else {
        return Some(d2);
    };
    let limit = if shown { d.hide } else { d.show };
    (d2 <= limit * limit).then_some(d2)
}

/// The least slack, m, a tracked decision can have from the items its query did not
/// return (ADR 0079).
const LEAST_SLACK: f32 = 20.0;

/// How far `item` is from the edge that decides it for `viewer` (its show distance, or
/// its hide distance while shown): infinite when no distance decides it (another scope,
/// never to this viewer, forced, the viewer's `always`); 0 when the distance is not
/// finite. What depends on a parent, an audience or the scope is the caller's to watch.
fn margin(rules: &Rules, viewer: &Viewpoint, item: &Item, shown: bool) -> f32 {
    if !for_viewer(viewer, item) || item.forced || viewer.always == Some(item.key) {
        return f32::INFINITY;
    }
    let Some(d) = item.distances.or(rules.distances) else {
        return f32::INFINITY;
    };
    let limit = if shown { d.hide } else { d.show };
    let off = (distance_squared(viewer.center, item.position).sqrt() - limit).abs();
    if off.is_finite() { off } else { 0.0 }
}

/// Whether `item` may ever be shown to `viewer`: its scope, not the one player it is never
/// shown to, its single viewer if it has one.
fn for_viewer(viewer: &Viewpoint, item: &Item) -> bool {
    item.layer == viewer.layer
        && item.not_to != Some(viewer.id)
        && item.viewer.is_none_or(|v| v == viewer.id)
}

pub(crate) fn distance_squared(a: Vec3, b: Vec3) -> f32 {
    let (dx, dy, dz) = (a.x - b.x, a.y - b.y, a.z - b.z);
    dx * dx + dy * dy + dz * dz
}

/// One kind's subjects this pass, indexed, and the scratch lists of [`Engine::decide`].
/// Fill it each pass with [`clear`](Self::clear) and [`insert`](Self::insert).
#[derive(Debug, Clone)]
pub struct Engine {
    grid: Grid<Layer, u32>,
    items: Vec<Item>,
    slots: Slots,
    forced: Vec<u32>,
    candidates: Vec<Candidate>,
    /// Per entry of the recipient's shown set: whether a candidate keeps it.
    kept: Vec<bool>,
    /// Whether some subject this pass weighs more than 1 (the cap then counts weights).
    weighted: bool,
    /// The candidates' distances, for a ring search's "is the cap's farthest near enough".
    distances: Vec<f32>,
    /// The nearest-k lists recipients of one small cell share (no distance limit and a
    /// cap; ADR 0074), built lazily this pass.
    groups: Groups,
    /// By recipient slot: the forced subjects whose audience holds it, when
    /// [`index_forced`](Self::index_forced) listed every audience since the items last
    /// changed; otherwise every recipient weighs every forced subject.
    forced_of: Option<Vec<Vec<u32>>>,
    /// Spare lists of `forced_of`, kept for their allocations.
    forced_spare: Vec<Vec<u32>>,
    /// The audience of one forced subject, scratch of [`index_forced`](Self::index_forced).
    members: Vec<PlayerId>,
    /// Where the recipient's shown keys stand, by item slot, for the paths that read it.
    marks: ShownMarks,
    /// Whether [`decide`](Self::decide) measures [`Decision::slack`].
    track_slack: bool,
}

/// By item slot: the index in the recipient's shown set, for the items shown to the
/// recipient of the latest stamped decision. A decision stamps only before a path that
/// reads it (the grid query, the ring search, the always and forced subjects): the shared
/// nearest lists (ADR 0074) merge with `shown` instead, and their decisions stamp nothing.
#[derive(Debug, Clone, Default)]
struct ShownMarks {
    /// By item slot: the stamp it was marked with and its index in `shown`.
    marks: Vec<(u32, u32)>,
    /// The stamp of the latest stamping (0: none).
    stamp: u32,
    /// Whether this decision has stamped.
    current: bool,
}

impl ShownMarks {
    /// A new decision: nothing stamped for it yet.
    fn begin(&mut self) {
        self.current = false;
    }

    /// Stamps where each of `shown` stands, once a decision: a candidate's "is it shown"
    /// is then one load, not a search of `shown`.
    fn ensure(&mut self, shown: &[u32], slots: &Slots, len: usize) {
        if self.current {
            return;
        }
        self.current = true;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.iter_mut().for_each(|m| m.0 = 0);
            self.stamp = 1;
        }
        self.marks.resize(len, (0, 0));
        for (i, key) in shown.iter().enumerate() {
            if let (Some(&slot), Ok(i)) = (slots.get(key), u32::try_from(i))
                && let Some(m) = self.marks.get_mut(slot as usize)
            {
                *m = (self.stamp, i);
            }
        }
    }

    /// The index in `shown` of the item in `slot`, if shown (after [`ensure`](Self::ensure)).
    fn at(&self, slot: u32) -> Option<usize> {
        self.marks
            .get(slot as usize)
            .filter(|m| self.current && m.0 == self.stamp)
            .map(|m| m.1 as usize)
    }
}

/// Item slots by key.
type Slots = HashMap<u32, u32, BuildHasherDefault<FxHasher>>;

/// A subject admitted for the recipient of [`Engine::decide`].
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Squared distance: the order of the cap and of the shows.
    d2: f32,
    key: u32,
    /// Its index in the recipient's shown set, if shown.
    shown: Option<u32>,
}

impl Engine {
    /// An empty engine whose grid has cells of edge `cell` (about half the show distance).
    ///
    /// # Panics
    /// If `cell` is not a finite number above 0.
    pub fn new(cell: f32) -> Self {
        Engine {
            groups: Groups::new(cell / GROUPS_PER_CELL),
            grid: Grid::new(cell),
            items: Vec::new(),
            slots: HashMap::default(),
            forced: Vec::new(),
            candidates: Vec::new(),
            kept: Vec::new(),
            weighted: false,
            distances: Vec::new(),
            forced_of: None,
            forced_spare: Vec::new(),
            members: Vec::new(),
            marks: ShownMarks::default(),
            track_slack: false,
        }
    }

    /// Makes [`decide`](Self::decide) measure [`Decision::slack`] on its distance path (a
    /// finite distance, no cap): a kind that skips the recipients whose answer cannot have
    /// changed (players, ADR 0079).
    #[must_use]
    pub fn with_slack(mut self) -> Self {
        self.track_slack = true;
        self
    }

    pub fn cell_size(&self) -> f32 {
        self.grid.cell_size()
    }

    /// Forgets the last pass's subjects (allocations stay).
    pub fn clear(&mut self) {
        self.grid.clear();
        self.items.clear();
        self.slots.clear();
        self.forced.clear();
        self.weighted = false;
        self.groups.clear();
        self.unindex_forced();
    }

    /// Lists, per recipient, the forced subjects whose audience holds it (the kind's
    /// [`Audience::forced_audience`]), so [`decide`](Self::decide) weighs a recipient
    /// against those only: a pass then costs the audiences' sizes, not recipients × forced
    /// subjects (issue 14: 500 seated players × 1000 recipients). Call it once a pass after
    /// the inserts, with the audience the pass decides with; an insert or a clear forgets
    /// the lists. A kind that cannot list an audience keeps the walk of every forced subject.
    pub fn index_forced(&mut self, audience: &impl Audience) {
        self.unindex_forced();
        let mut lists = std::mem::take(&mut self.forced_spare);
        let members = &mut self.members;
        for &slot in &self.forced {
            members.clear();
            if !audience.forced_audience(self.items[slot as usize].key, members) {
                lists.iter_mut().for_each(Vec::clear);
                self.forced_spare = lists;
                return;
            }
            for recipient in members.iter() {
                let i = recipient.0 as usize;
                if lists.len() <= i {
                    lists.resize_with(i + 1, Vec::new);
                }
                lists[i].push(slot);
            }
        }
        self.forced_of = Some(lists);
    }

    fn unindex_forced(&mut self) {
        if let Some(mut lists) = self.forced_of.take() {
            lists.iter_mut().for_each(Vec::clear);
            self.forced_spare = lists;
        }
    }

    /// Adds a subject for this pass. A second item with the same key replaces nothing: keys
    /// are the kind's unique ids.
    pub fn insert(&mut self, item: Item) {
        let Ok(slot) = u32::try_from(self.items.len()) else {
            return;
        };
        if item.forced {
            self.forced.push(slot);
        } else if !self
            .grid
            .insert(item.layer, item.position.x, item.position.y, slot)
        {
            return;
        }
        self.weighted |= item.weight != 1;
        self.groups.clear();
        self.unindex_forced();
        self.slots.insert(item.key, slot);
        self.items.push(item);
    }

    /// Subjects inserted this pass.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The subject of `key` this pass.
    pub fn item(&self, key: u32) -> Option<&Item> {
        self.slots.get(&key).map(|&s| &self.items[s as usize])
    }

    /// What `viewer` is to be shown: the admitted subjects (see [`admits`]), the `cap`
    /// nearest of them (ties by key; with weights, the nearest whose weights add up to at
    /// most `cap`, stopping at the first that does not fit), against `shown` (the keys shown to it now,
    /// ascending). Writes the hides and the shows into `out` (cleared first).
    pub fn decide(
        &mut self,
        rules: &Rules,
        viewer: &Viewpoint,
        shown: &[u32],
        audience: &impl Audience,
        out: &mut Decision,
    ) {
        out.clear();
        let Engine {
            grid,
            items,
            slots,
            forced,
            candidates,
            kept,
            weighted,
            distances,
            groups,
            forced_of,
            marks,
            track_slack,
            ..
        } = self;
        candidates.clear();
        // `at`: the item's index in `shown`, if shown.
        let consider_at = |item: &Item, at: Option<usize>, candidates: &mut Vec<Candidate>| {
            if let Some(d2) = admits(rules, viewer, item, at.is_some(), audience) {
                candidates.push(Candidate {
                    d2,
                    key: item.key,
                    shown: at.and_then(|i| u32::try_from(i).ok()),
                });
            }
        };
        marks.begin();
        let consider = |slot: u32, marks: &ShownMarks, candidates: &mut Vec<Candidate>| {
            consider_at(&items[slot as usize], marks.at(slot), candidates);
        };
        if viewer.active {
            let radius = rules
                .distances
                .map_or(f32::INFINITY, |d| d.hide.max(d.show));
            let c = viewer.center;
            match rules.cap {
                // No distance limit and a cap (blips: the 100 nearest of the scope): the
                // list the recipient's small cell shares (ADR 0074), or, when its answer
                // is not provably exact for this recipient, a search of its own: ring by
                // ring until the cap's farthest is nearer than anything not visited.
                Some(cap) if radius == f32::INFINITY && !*weighted && cap > 0 => {
                    let mut exact = false;
                    if let Some((shared, exact_below)) =
                        groups.candidates(grid, items, viewer.layer, c.x, c.y, cap)
                    {
                        // The list is ascending by key, as `shown` is: one merge finds
                        // what is shown.
                        let mut next = 0;
                        for &slot in shared {
                            let item = &items[slot as usize];
                            while shown.get(next).is_some_and(|&k| k < item.key) {
                                next += 1;
                            }
                            let at = (shown.get(next) == Some(&item.key)).then_some(next);
                            consider_at(item, at, candidates);
                        }
                        exact = nearest_below(candidates, cap, exact_below);
                        if !exact {
                            candidates.clear();
                        }
                    }
                    if !exact {
                        marks.ensure(shown, slots, items.len());
                        let marks = &*marks;
                        let found = std::cell::RefCell::new(&mut *candidates);
                        grid.query_rings(
                            viewer.layer,
                            c.x,
                            c.y,
                            |slot| consider(slot, marks, &mut found.borrow_mut()),
                            |reach| {
                                let found = found.borrow();
                                if found.len() < cap {
                                    return false;
                                }
                                distances.clear();
                                distances.extend(found.iter().map(|c| c.d2));
                                let (_, kth, _) =
                                    distances.select_nth_unstable_by(cap - 1, f32::total_cmp);
                                *kth < reach * reach
                            },
                        );
                    }
                }
                _ => {
                    marks.ensure(shown, slots, items.len());
                    // What the query did not return is beyond its reach: a kind without
                    // hysteresis (vehicles) looks [`LEAST_SLACK`] further for its slack.
                    let (mut slack, reach) = match rules.distances {
                        Some(d) if *track_slack && rules.cap.is_none() => {
                            let reach = radius.max(d.show + LEAST_SLACK);
                            (reach - d.show, reach)
                        }
                        _ => (0.0, radius),
                    };
                    let tracked = slack > 0.0;
                    grid.query(viewer.layer, c.x, c.y, reach, |slot| {
                        if tracked {
                            let item = &items[slot as usize];
                            slack =
                                slack.min(margin(rules, viewer, item, marks.at(slot).is_some()));
                        }
                        consider(slot, marks, candidates);
                    });
                    out.slack = slack.max(0.0);
                }
            }
            if let Some(key) = viewer.always
                && let Some(&slot) = slots.get(&key)
                && !items[slot as usize].forced
                && !candidates.iter().any(|c| c.key == key)
            {
                marks.ensure(shown, slots, items.len());
                consider(slot, marks, candidates);
            }
            let forced = match forced_of {
                Some(lists) => lists
                    .get(viewer.id.0 as usize)
                    .map_or(&[][..], Vec::as_slice),
                None => forced.as_slice(),
            };
            if !forced.is_empty() {
                marks.ensure(shown, slots, items.len());
            }
            for &slot in forced {
                consider(slot, marks, candidates);
            }
        }
        if let Some(cap) = rules.cap
            && *weighted
        {
            candidates.sort_unstable_by(nearest);
            let mut used = 0usize;
            let fits = candidates
                .iter()
                .take_while(|c| {
                    let w = slots
                        .get(&c.key)
                        .map_or(1, |&s| items[s as usize].weight as usize);
                    used += w;
                    used <= cap
                })
                .count();
            candidates.truncate(fits);
        } else if let Some(cap) = rules.cap
            && candidates.len() > cap
        {
            if cap > 0 {
                candidates.select_nth_unstable_by(cap - 1, nearest);
            }
            candidates.truncate(cap);
        }
        // Hides: the shown keys no candidate kept, in `shown`'s (ascending) order. Shows:
        // the candidates not shown, nearest first; a quiet pass has none and sorts nothing.
        kept.clear();
        kept.resize(shown.len(), false);
        let mut still = 0;
        for c in candidates.iter() {
            if let Some(at) = c.shown
                && !kept[at as usize]
            {
                kept[at as usize] = true;
                still += 1;
            }
        }
        if still < shown.len() {
            out.hides.extend(
                shown
                    .iter()
                    .zip(kept.iter())
                    .filter(|&(_, &k)| !k)
                    .map(|(&key, _)| key),
            );
        }
        candidates.retain(|c| c.shown.is_none());
        candidates.sort_unstable_by(nearest);
        out.shows.extend(candidates.iter().map(|c| c.key));
    }
}

/// Recipients per group cell edge: a kind's grid cell holds this many group cells along
/// each axis (ADR 0074).
const GROUPS_PER_CELL: f32 = 2.0;

/// The order of the cap and of the shows: nearer first, ties by key.
fn nearest(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    a.d2.total_cmp(&b.d2).then(a.key.cmp(&b.key))
}

/// Keeps the `cap` nearest of `candidates` and answers whether they are provably the `cap`
/// nearest of the whole scope: the `cap`-th is nearer than `exact_below` (the bound of a
/// shared list, ADR 0074), or the list is the whole scope (`exact_below` infinite).
fn nearest_below(candidates: &mut Vec<Candidate>, cap: usize, exact_below: f32) -> bool {
    if exact_below == f32::INFINITY {
        return true;
    }
    if candidates.len() < cap || cap == 0 || exact_below.is_nan() || exact_below <= 0.0 {
        return false;
    }
    candidates.select_nth_unstable_by(cap - 1, nearest);
    candidates.truncate(cap);
    candidates[cap - 1].d2 < exact_below * exact_below
}

/// Changes between passes, for a kind that keeps its engine (objects, ADR 0076): only what
/// changed is taken out or put again, and [`Engine::decide`] answers as if the engine had
/// been filled afresh with the same items.
impl Engine {
    /// Takes the subject of `key` out and returns it. The last subject takes its slot.
    pub fn remove(&mut self, key: u32) -> Option<Item> {
        let slot = self.slots.remove(&key)?;
        let item = *self.items.get(slot as usize)?;
        self.unindex(&item, slot);
        let last = self.items.len() - 1;
        if slot as usize != last {
            let moved = self.items[last];
            let from = u32::try_from(last).unwrap_or(u32::MAX);
            if moved.forced {
                for s in self.forced.iter_mut().filter(|s| **s == from) {
                    *s = slot;
                }
            } else {
                self.grid
                    .rename(moved.layer, moved.position.x, moved.position.y, from, slot);
            }
            if self.slots.get(&moved.key) == Some(&from) {
                self.slots.insert(moved.key, slot);
            }
        }
        self.items.swap_remove(slot as usize);
        self.groups.clear();
        self.unindex_forced();
        Some(item)
    }

    /// Puts `item` in place of the subject of its key (a moved or changed subject), or adds
    /// it.
    pub fn place(&mut self, item: Item) {
        self.remove(item.key);
        self.insert(item);
    }

    fn unindex(&mut self, item: &Item, slot: u32) {
        if item.forced {
            self.forced.retain(|&s| s != slot);
        } else {
            self.grid
                .remove(item.layer, item.position.x, item.position.y, slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(show: f32, cap: Option<usize>) -> Rules {
        Rules {
            distances: Some(Distances::new(show, 10.0, None)),
            cap,
        }
    }

    fn line(engine: &mut Engine, xs: &[f32]) {
        engine.clear();
        for (k, &x) in xs.iter().enumerate() {
            engine.insert(Item::at(k as u32, (0, 0), Vec3::new(x, 0.0, 0.0)));
        }
    }

    fn decide(engine: &mut Engine, rules: &Rules, shown: &[u32]) -> Decision {
        let mut out = Decision::default();
        let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::ZERO);
        engine.decide(rules, &me, shown, &Everyone, &mut out);
        out
    }

    #[test]
    fn shows_within_show_keeps_until_hide() {
        let mut e = Engine::new(50.0);
        line(&mut e, &[99.0, 105.0, 111.0]);
        let r = rules(100.0, None);
        assert_eq!(decide(&mut e, &r, &[]).shows, [0]);
        let d = decide(&mut e, &r, &[1, 2]);
        assert_eq!((d.hides, d.shows), (vec![2], vec![0]));
    }

    #[test]
    fn the_cap_takes_the_nearest_and_ties_by_key() {
        let mut e = Engine::new(50.0);
        line(&mut e, &[40.0, 10.0, 30.0, 10.0, 20.0]);
        let d = decide(&mut e, &rules(100.0, Some(3)), &[0]);
        assert_eq!((d.hides, d.shows), (vec![0], vec![1, 3, 4]));
        assert!(decide(&mut e, &rules(100.0, Some(0)), &[]).shows.is_empty());
    }

    #[test]
    fn no_distance_and_a_cap_takes_the_nearest_of_the_whole_scope_by_rings() {
        let mut e = Engine::new(50.0);
        // Far items first in key order, the nearest last; another scope nearer still.
        for (k, x) in [
            (0u32, 4000.0f32),
            (1, -3000.0),
            (2, 120.0),
            (3, -60.0),
            (4, 61.0),
        ] {
            e.insert(Item::at(k, (0, 0), Vec3::new(x, 0.0, 0.0)));
        }
        e.insert(Item::at(9, (1, 0), Vec3::ZERO));
        let r = Rules {
            distances: None,
            cap: Some(3),
        };
        assert_eq!(decide(&mut e, &r, &[]).shows, [3, 4, 2]);
        let d = decide(&mut e, &r, &[0, 3]);
        assert_eq!((d.hides, d.shows), (vec![0], vec![4, 2]));
        let one = Rules {
            distances: None,
            cap: Some(1),
        };
        assert_eq!(decide(&mut e, &one, &[]).shows, [3]);
    }

    #[test]
    fn no_distance_limit_sees_the_whole_scope_only() {
        let mut e = Engine::new(50.0);
        line(&mut e, &[5000.0, -9000.0]);
        e.insert(Item::at(9, (1, 0), Vec3::ZERO));
        let r = Rules {
            distances: None,
            cap: None,
        };
        assert_eq!(decide(&mut e, &r, &[]).shows, [0, 1]);
    }

    #[test]
    fn an_item_s_own_distances_replace_the_rules() {
        let mut e = Engine::new(50.0);
        line(&mut e, &[30.0, 30.0]);
        let mut near = *e.item(1).expect("inserted");
        near.key = 2;
        near.distances = Some(Distances::new(20.0, 5.0, None));
        e.insert(near);
        let r = rules(100.0, None);
        assert_eq!(decide(&mut e, &r, &[]).shows, [0, 1], "30 m is past 20 m");
        let unlimited = Rules {
            distances: None,
            cap: None,
        };
        let mut own = Item::at(3, (0, 0), Vec3::new(4000.0, 0.0, 0.0));
        own.distances = Some(Distances::new(10.0, 10.0, None));
        e.insert(own);
        e.insert(Item::at(4, (0, 0), Vec3::new(4000.0, 0.0, 0.0)));
        assert_eq!(decide(&mut e, &unlimited, &[]).shows, [0, 1, 4]);
    }

    #[test]
    fn weights_fill_the_cap_nearest_first_and_stop_at_the_first_that_does_not_fit() {
        let mut e = Engine::new(50.0);
        for (key, x, weight) in [(0, 10.0, 2), (1, 20.0, 3), (2, 30.0, 1)] {
            e.insert(Item {
                weight,
                ..Item::at(key, (0, 0), Vec3::new(x, 0.0, 0.0))
            });
        }
        assert_eq!(decide(&mut e, &rules(100.0, Some(5)), &[]).shows, [0, 1]);
        assert_eq!(
            decide(&mut e, &rules(100.0, Some(4)), &[]).shows,
            [0],
            "the chain of 3 does not fit, nor anything farther"
        );
    }

    #[test]
    fn a_shared_list_decision_stamps_nothing_and_a_later_query_still_reads_its_own_shown() {
        let mut e = Engine::new(50.0);
        line(&mut e, &[10.0, 20.0, 30.0, 40.0]);
        let blips = Rules {
            distances: None,
            cap: Some(2),
        };
        let d = decide(&mut e, &blips, &[1, 3]);
        assert_eq!((d.hides, d.shows), (vec![3], vec![0]));
        assert!(!e.marks.current, "the shared list merges with `shown`");
        let d = decide(&mut e, &rules(100.0, None), &[0, 2]);
        assert_eq!((d.hides, d.shows), (vec![], vec![1, 3]));
        assert!(e.marks.current);
        let d = decide(&mut e, &blips, &[0, 2]);
        assert_eq!((d.hides, d.shows), (vec![2], vec![1]));
        let d = decide(&mut e, &rules(100.0, None), &[3]);
        assert_eq!(
            (d.hides, d.shows),
            (vec![], vec![0, 1, 2]),
            "no mark of an earlier decision counts"
        );
    }

    struct Parents;
    impl Audience for Parents {
        fn parent_shown(&self, parent: u32, _: PlayerId) -> bool {
            parent == 1
        }
        fn forced(&self, key: u32, recipient: PlayerId) -> bool {
            key == 5 && recipient == PlayerId(0)
        }
    }

    #[test]
    fn viewer_not_to_parent_forced_and_always() {
        let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::ZERO);
        let r = rules(100.0, None);
        let p = Vec3::new(1.0, 0.0, 0.0);
        let mut only_other = Item::at(0, (0, 0), p);
        only_other.viewer = Some(PlayerId(3));
        let mut not_me = Item::at(1, (0, 0), p);
        not_me.not_to = Some(PlayerId(0));
        let mut hidden_parent = Item::at(2, (0, 0), p);
        hidden_parent.parent = Some(2);
        let mut shown_parent = Item::at(3, (0, 0), p);
        shown_parent.parent = Some(1);
        let mut forced = Item::at(5, (0, 0), Vec3::new(1e6, 0.0, 0.0));
        forced.forced = true;
        let far = Item::at(6, (0, 0), Vec3::new(5000.0, 0.0, 0.0));
        let mut e = Engine::new(50.0);
        for i in [only_other, not_me, hidden_parent, shown_parent, forced, far] {
            e.insert(i);
        }
        let mut out = Decision::default();
        e.decide(&r, &me, &[], &Parents, &mut out);
        assert_eq!(out.shows, [3, 5]);
        let spectator = Viewpoint {
            always: Some(6),
            ..me
        };
        e.decide(&r, &spectator, &[], &Parents, &mut out);
        assert_eq!(out.shows, [3, 6, 5]);
        let inactive = Viewpoint {
            active: false,
            ..me
        };
        e.decide(&r, &inactive, &[3], &Parents, &mut out);
        assert_eq!((out.hides.as_slice(), out.shows.len()), (&[3][..], 0));
    }

    /// Seated players: key 10 + i is heard by recipients i and i + 1 only.
    struct Listed;
    impl Audience for Listed {
        fn forced(&self, key: u32, recipient: PlayerId) -> bool {
            key >= 10 && (recipient.0 == key - 10 || recipient.0 == key - 9)
        }
        fn forced_audience(&self, key: u32, out: &mut Vec<PlayerId>) -> bool {
            out.extend([PlayerId(key - 10), PlayerId(key - 9)]);
            true
        }
    }

    struct Held;
    impl Audience for Held {
        fn forced(&self, key: u32, _: PlayerId) -> bool {
            key == 20
        }
    }

    #[test]
    fn an_index_of_forced_audiences_decides_as_the_walk_of_every_forced_subject() {
        let r = rules(100.0, None);
        let mut e = Engine::new(50.0);
        e.insert(Item::at(1, (0, 0), Vec3::new(5.0, 0.0, 0.0)));
        for k in 10..15 {
            e.insert(Item {
                forced: true,
                ..Item::at(k, (0, 0), Vec3::new(1e5, 0.0, 0.0))
            });
        }
        let mut walked = Vec::new();
        let mut out = Decision::default();
        for id in 0..7 {
            let me = Viewpoint::at(PlayerId(id), (0, 0), Vec3::ZERO);
            e.decide(&r, &me, &[12], &Listed, &mut out);
            walked.push(out.clone());
        }
        e.index_forced(&Listed);
        for (id, expected) in walked.iter().enumerate() {
            let me = Viewpoint::at(PlayerId(id as u32), (0, 0), Vec3::ZERO);
            e.decide(&r, &me, &[12], &Listed, &mut out);
            assert_eq!(&out, expected, "recipient {id}");
        }
        assert_eq!(
            (walked[3].hides.len(), walked[3].shows.as_slice()),
            (0, &[1, 13][..]),
            "12 is shown already"
        );
        assert_eq!(
            (walked[6].hides.as_slice(), walked[6].shows.as_slice()),
            (&[12][..], &[1][..])
        );
        // An insert forgets the lists: the new forced subject is weighed by everyone again.
        e.insert(Item {
            forced: true,
            ..Item::at(16, (0, 0), Vec3::ZERO)
        });
        let me = Viewpoint::at(PlayerId(6), (0, 0), Vec3::ZERO);
        e.decide(&r, &me, &[], &Listed, &mut out);
        assert_eq!(out.shows, [16, 1], "the nearest first");
    }

    #[test]
    fn removed_and_placed_items_decide_as_an_engine_filled_afresh() {
        let r = rules(100.0, Some(4));
        let at = |k: u32, x: f32, y: f32| Item {
            weight: 1 + k % 2,
            ..Item::at(k, (0, 0), Vec3::new(x, y, 0.0))
        };
        let mut kept = Engine::new(50.0);
        for k in 0..12 {
            kept.insert(at(k, k as f32 * 15.0 - 80.0, (k % 3) as f32 * 20.0));
        }
        let mut held = Item::at(20, (0, 0), Vec3::new(900.0, 0.0, 0.0));
        held.forced = true;
        kept.insert(held);
        assert_eq!(kept.remove(3).map(|i| i.key), Some(3));
        assert_eq!(kept.remove(3), None, "once");
        kept.remove(0);
        kept.place(at(5, 1.0, 1.0));
        kept.place(at(7, 400.0, 0.0));
        kept.place(Item {
            position: Vec3::new(2.0, 0.0, 0.0),
            ..held
        });
        kept.remove(11);
        let mut fresh = Engine::new(50.0);
        for k in [1, 2, 4, 6, 8, 9, 10] {
            fresh.insert(at(k, k as f32 * 15.0 - 80.0, (k % 3) as f32 * 20.0));
        }
        fresh.insert(at(5, 1.0, 1.0));
        fresh.insert(at(7, 400.0, 0.0));
        fresh.insert(Item {
            position: Vec3::new(2.0, 0.0, 0.0),
            ..held
        });
        assert_eq!(kept.len(), fresh.len());
        for (x, shown) in [(0.0, vec![]), (-60.0, vec![1, 2]), (60.0, vec![5, 20])] {
            let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(x, 0.0, 0.0));
            let (mut a, mut b) = (Decision::default(), Decision::default());
            kept.decide(&r, &me, &shown, &Held, &mut a);
            fresh.decide(&r, &me, &shown, &Held, &mut b);
            assert_eq!(a, b, "from x = {x}");
            if shown.is_empty() {
                assert!(a.shows.contains(&20), "the forced item, placed nearer");
            }
        }
    }

    proptest::proptest! {
        /// The claim behind ADR 0079: while the recipient and the items together move less
        /// than a quiet answer's slack, a fresh decision changes nothing either.
        #[test]
        fn within_its_slack_a_quiet_answer_is_decided_the_same(
            xs in proptest::collection::vec(-600.0f32..600.0, 1..40),
            shown_mask in proptest::collection::vec(proptest::bool::ANY, 40),
            moves in proptest::collection::vec(-1.0f32..1.0, 41),
            share in 0.0f32..0.999,
            // Players' hysteresis, and none (vehicles).
            margin in proptest::sample::select(vec![40.0f32, 0.0]),
        ) {
            let rules = Rules {
                distances: Some(Distances::new(420.0, margin, None)),
                cap: None,
            };
            let mut engine = Engine::new(210.0).with_slack();
            line(&mut engine, &xs);
            // A consistent shown set: what a decision from nothing shows, then kept.
            let first = decide(&mut engine, &rules, &[]);
            let mut shown: Vec<u32> = first.shows.clone();
            // Shown items between show and hide stay shown (the hysteresis band).
            for (k, &x) in xs.iter().enumerate() {
                let d = x.abs();
                if shown_mask[k] && d > 420.0 && d <= 420.0 + margin {
                    shown.push(k as u32);
                }
            }
            shown.sort_unstable();
            let quiet = decide(&mut engine, &rules, &shown);
            proptest::prop_assume!(quiet.hides.is_empty() && quiet.shows.is_empty());
            proptest::prop_assume!(quiet.slack > 0.0);
            // Split the slack between the recipient's move and the items' (each item
            // moves at most `budget`, as the drift bounds them).
            let total = quiet.slack * share;
            let own = total * moves[40].abs();
            let budget = total - own;
            let moved: Vec<f32> = xs
                .iter()
                .enumerate()
                .map(|(k, &x)| x + budget * moves[k])
                .collect();
            line(&mut engine, &moved);
            let mut out = Decision::default();
            let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(own, 0.0, 0.0));
            engine.decide(&rules, &me, &shown, &Everyone, &mut out);
            proptest::prop_assert!(out.hides.is_empty(), "{:?}", out);
            proptest::prop_assert!(out.shows.is_empty(), "{:?}", out);
        }
    }
}
