//! The chains of objects as the streaming pass keeps them between passes (ADR 0076): the
//! members, each root's chain, the roots held by a player or a vehicle, the engine's items
//! and the spawn grants' probe ([`GrantFloor::probe`], ADR 0049). A change of objects
//! ([`Objects::touch_object`]) takes out and puts in again only the chains it touches; a
//! moving root, or a held chain, has only its own item placed again each pass. What each
//! change can affect is noted in [`Marks`], so the pass decides again only the recipients
//! it names (world.md ObjectState: the nearest 1000 stay exact).
//!
//! [`GrantFloor::probe`]: dlmp_player::floor::GrantFloor::probe
//! [`Objects::touch_object`]: super::Objects::touch_object

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::time::Duration;

use bevy_ecs::prelude::*;

use super::commands::MAX_DEPTH;
use super::stream::{Member, Recipient};
use super::vehicles::VehicleParents;
use super::{HIDE_MARGIN, Object, ObjectId, Objects, Parent};
use dlmp_core::position::Scope;
use dlmp_core::streaming::engine::{Engine, Item, Layer, layer};
use dlmp_core::streaming::grid::FxHasher;
use dlmp_core::streaming::players::Distances;
use dlmp_core::viewers::Viewers;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, VehicleId};
use dlmp_protocol::world::object::ObjectAttachKind;

pub(super) type Map<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// More regions than this in one pass: every recipient is decided again (a map loaded,
/// a resource stopped), which costs no more than looking at each region for each.
const REGIONS_MAX: usize = 256;

/// What holds a chain that follows its parent: a player or a vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holder {
    /// The player's entity and id: shown to it and to whoever it is shown to.
    Player(Entity, PlayerId),
    /// The vehicle's id: shown to whoever the vehicle is shown to.
    Vehicle(VehicleId),
}

/// Where something changed for the free chains: whoever's center is within `reach` of
/// `at` in `layer` may be decided otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Region {
    pub layer: Layer,
    pub at: Vec3,
    pub reach: f32,
}

impl Region {
    fn of(item: &Item, rules_reach: f32) -> Self {
        Region {
            layer: item.layer,
            at: item.position,
            // One metre over the item's own hide distance: the engine's test, in f32,
            // never admits what this one leaves out.
            reach: item.distances.map_or(rules_reach, |d| d.hide.max(d.show)) + 1.0,
        }
    }

    /// Whether a recipient at `center` in `layer` may be affected.
    pub(super) fn touches(&self, layer: Layer, center: Vec3) -> bool {
        let (dx, dy, dz) = (
            center.x - self.at.x,
            center.y - self.at.y,
            center.z - self.at.z,
        );
        layer == self.layer && dx * dx + dy * dy + dz * dz <= self.reach * self.reach
    }
}

/// The recipients to decide again, gathered by the refreshes of a tick and taken by its
/// pass.
#[derive(Debug, Default)]
pub(super) struct Marks {
    /// Every recipient (the index was built whole, or too many regions).
    pub everyone: bool,
    pub regions: Vec<Region>,
    /// Recipient slots whose held chain's audience or layer changed.
    pub recipients: Vec<u32>,
    /// Recipient slots whose held chain only moved: decided again only when their last
    /// decision may have been cut by the cap (a forced chain's distance counts only there).
    pub near_cap: Vec<u32>,
}

impl Marks {
    fn region(&mut self, region: Region) {
        if self.everyone {
            return;
        }
        if self.regions.len() >= REGIONS_MAX {
            self.everyone = true;
            self.regions.clear();
            return;
        }
        self.regions.push(region);
    }

    pub(super) fn clear(&mut self) {
        self.everyone = false;
        self.regions.clear();
        self.recipients.clear();
        self.near_cap.clear();
    }
}

/// A held chain as the last pass placed it, and who could see it then.
#[derive(Debug, Clone, PartialEq)]
struct Placed {
    layer: Layer,
    position: Vec3,
    /// Recipient slots of the holder's audience (the holder included), ascending.
    audience: Vec<u32>,
}

/// What the chains are built from.
pub(super) struct Sources<'a, 'w, 's> {
    pub now: Duration,
    pub registry: &'a Objects,
    pub objects: &'a Query<'w, 's, &'static Object>,
    pub players: &'a Query<'w, 's, Recipient>,
    pub vehicles: &'a VehicleParents<'w, 's>,
    pub viewers: &'a Query<'w, 's, &'static Viewers>,
}

impl Sources<'_, '_, '_> {
    fn object(&self, id: u32) -> Option<&Object> {
        self.registry
            .entity(ObjectId(id))
            .and_then(|e| self.objects.get(e).ok())
    }

    fn player(&self, entity: Entity) -> Option<PlayerId> {
        self.players.get(entity).ok().map(|(_, p, ..)| p.id)
    }

    /// Where `holder` stands now and its scope; `None` once it is gone.
    fn place(&self, holder: Holder) -> Option<(Vec3, Scope)> {
        match holder {
            Holder::Player(e, _) => self.players.get(e).ok().map(|(_, _, p, s, ..)| (p.0, *s)),
            Holder::Vehicle(v) => self.vehicles.pose(v).map(|(pose, s)| (pose.position, s)),
        }
    }

    /// Who may see a chain `holder` holds: the player and whoever it is shown to, or
    /// whoever the vehicle is shown to; ascending slots.
    fn audience(&self, holder: Holder) -> Vec<u32> {
        let mut out: Vec<u32> = match holder {
            Holder::Player(e, id) => {
                let mut out: Vec<u32> = self
                    .viewers
                    .get(e)
                    .map(|v| v.iter().map(|p| p.0).collect())
                    .unwrap_or_default();
                out.push(id.0);
                out
            }
            Holder::Vehicle(v) => self
                .vehicles
                .shown()
                .map(|s| s.viewers(v.0).map(|p| p.0).collect())
                .unwrap_or_default(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The chains, kept between passes.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// The objects' generation the index was last brought up to.
    pub built: Option<u64>,
    pub members: Map<u32, Member>,
    /// The depths of members taken out by the last change, for the order of their hides.
    pub departed: Map<u32, u8>,
    /// Each root's members, the parent before the child.
    pub chains: Map<u32, Vec<u32>>,
    /// Roots on a player or a vehicle.
    pub held: Map<u32, Holder>,
    /// The largest stream distance of a member (at least 1).
    pub reach: f32,
    pub marks: Marks,
    /// The objects each object carries, ascending.
    children: Map<u32, Vec<u32>>,
    parent_of: Map<u32, u32>,
    /// Free roots in the engine with a movement: placed again each pass.
    moving: BTreeSet<u32>,
    /// Objects whose chain did not resolve (a link not there yet): tried again each pass.
    unresolved: BTreeSet<u32>,
    /// Members by stream distance (its bits: positive floats order as their bits).
    distances: BTreeMap<u32, u32>,
    /// Chains by weight.
    weights: BTreeMap<u32, u32>,
    placed: Map<u32, Placed>,
    /// Interiors of the chains on players, for the resend on a change.
    interiors: Map<u32, u8>,
}

fn count(map: &mut BTreeMap<u32, u32>, key: u32, up: bool) {
    if up {
        *map.entry(key).or_default() += 1;
    } else if let Some(n) = map.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            map.remove(&key);
        }
    }
}

/// A free chain as the spawn hold's probe holds it ([`GrantFloor::probe`]): as the pass
/// has it, but a moving root is shown from as far as the rest of its path reaches, since
/// the probe is read up to a tick after it was built (world.md ObjectState, "Ordering
/// around spawns": a grant goes early never, at worst a tick late).
///
/// [`GrantFloor::probe`]: dlmp_player::floor::GrantFloor::probe
pub(super) fn probed(item: Item, object: &Object, now: Duration) -> Item {
    let Some(motion) = object.motion.filter(|m| !m.ended(now)) else {
        return item;
    };
    let path = dlmp_protocol::geometry::distance(item.position, motion.to.position);
    Item {
        distances: Some(Distances::new(
            object.stream_distance + path,
            HIDE_MARGIN,
            None,
        )),
        ..item
    }
}

impl Index {
    /// Whether some object's chain did not resolve yet.
    pub(super) fn has_unresolved(&self) -> bool {
        !self.unresolved.is_empty()
    }

    /// The largest weight of a chain (1 without chains).
    pub(super) fn heaviest(&self) -> u32 {
        self.weights.keys().next_back().copied().unwrap_or(1)
    }

    /// Forgets every chain and builds them all from `src`; every recipient is decided
    /// again.
    pub(super) fn rebuild(
        &mut self,
        src: &Sources,
        engine: &mut Engine,
        probe: &mut Engine,
        resend: &mut HashSet<ObjectId>,
    ) {
        let old = std::mem::take(&mut self.interiors);
        for (k, m) in self.members.drain() {
            self.departed.insert(k, m.depth);
        }
        self.chains.clear();
        self.held.clear();
        self.children.clear();
        self.parent_of.clear();
        self.moving.clear();
        self.unresolved.clear();
        self.distances.clear();
        self.weights.clear();
        self.placed.clear();
        engine.clear();
        probe.clear();
        self.marks.everyone = true;
        self.marks.regions.clear();
        let mut ids: Vec<u32> = src.objects.iter().map(|o| o.id.0).collect();
        ids.sort_unstable();
        self.apply(&ids, src, engine, probe, old, resend);
    }

    /// Brings the chains of `changed` objects (and the ones not resolved yet) up to date.
    pub(super) fn update(
        &mut self,
        changed: &[ObjectId],
        src: &Sources,
        engine: &mut Engine,
        probe: &mut Engine,
        resend: &mut HashSet<ObjectId>,
    ) {
        let mut ids: Vec<u32> = changed.iter().map(|id| id.0).collect();
        ids.extend(std::mem::take(&mut self.unresolved));
        ids.sort_unstable();
        ids.dedup();
        self.apply(&ids, src, engine, probe, Map::default(), resend);
    }

    fn apply(
        &mut self,
        ids: &[u32],
        src: &Sources,
        engine: &mut Engine,
        probe: &mut Engine,
        mut interiors: Map<u32, u8>,
        resend: &mut HashSet<ObjectId>,
    ) {
        let mut affected = BTreeSet::new();
        for &id in ids {
            if let Some(m) = self.members.get(&id) {
                affected.insert(m.root);
            }
            if let Some(p) = self.parent_of.remove(&id)
                && let Some(kids) = self.children.get_mut(&p)
            {
                kids.retain(|&k| k != id);
                if kids.is_empty() {
                    self.children.remove(&p);
                }
            }
        }
        for &id in ids {
            let Some(o) = src.object(id) else {
                if src.registry.entity(ObjectId(id)).is_some() {
                    self.unresolved.insert(id);
                }
                continue;
            };
            if let Some(Parent::Object(p)) = o.attachment.map(|a| a.parent) {
                self.parent_of.insert(id, p.0);
                let kids = self.children.entry(p.0).or_default();
                if let Err(at) = kids.binary_search(&id) {
                    kids.insert(at, id);
                }
            }
            match root_of(o, src) {
                Some(root) => {
                    affected.insert(root);
                }
                None => {
                    self.unresolved.insert(id);
                }
            }
        }
        for &root in &affected {
            self.take_out(root, engine, probe, &mut interiors);
        }
        for &root in &affected {
            self.put_in(root, src, engine, probe, &interiors, resend);
        }
    }

    fn take_out(
        &mut self,
        root: u32,
        engine: &mut Engine,
        probe: &mut Engine,
        interiors: &mut Map<u32, u8>,
    ) {
        if let Some(chain) = self.chains.remove(&root) {
            for k in &chain {
                if let Some(m) = self.members.remove(k) {
                    self.departed.insert(*k, m.depth);
                    count(
                        &mut self.distances,
                        m.object.stream_distance.to_bits(),
                        false,
                    );
                }
            }
            count(
                &mut self.weights,
                u32::try_from(chain.len()).unwrap_or(u32::MAX),
                false,
            );
        }
        probe.remove(root);
        self.moving.remove(&root);
        self.held.remove(&root);
        if let Some(i) = self.interiors.remove(&root) {
            interiors.entry(root).or_insert(i);
        }
        let placed = self.placed.remove(&root);
        match engine.remove(root) {
            Some(item) if item.forced => {
                if let Some(p) = placed {
                    self.marks.recipients.extend(p.audience);
                }
            }
            Some(item) => self.marks.region(Region::of(&item, self.reach)),
            None => {}
        }
    }

    fn put_in(
        &mut self,
        root: u32,
        src: &Sources,
        engine: &mut Engine,
        probe: &mut Engine,
        interiors: &Map<u32, u8>,
        resend: &mut HashSet<ObjectId>,
    ) {
        if self.chains.contains_key(&root) {
            return;
        }
        let Some(o) = src.object(root) else {
            return;
        };
        let holder = match o.attachment.map(|a| a.parent) {
            None => None,
            Some(Parent::Player(e)) => match src.players.get(e) {
                Ok((e, p, ..)) => Some(Holder::Player(e, p.id)),
                Err(_) => return,
            },
            Some(Parent::Vehicle(v)) => {
                if src.vehicles.pose(v).is_none() {
                    return;
                }
                Some(Holder::Vehicle(v))
            }
            Some(Parent::Object(_)) => return,
        };
        let (position, scope) = match holder {
            None => (o.pose_at(src.now).position, o.scope),
            Some(h) => src.place(h).unwrap_or((Vec3::ZERO, Scope::default())),
        };
        // The chain, the parent before the child, each parent's objects ascending.
        let mut chain: Vec<(u32, u8)> = vec![(root, 0)];
        let mut i = 0;
        while i < chain.len() {
            let (k, depth) = chain[i];
            if usize::from(depth) < MAX_DEPTH
                && let Some(kids) = self.children.get(&k)
            {
                chain.extend(kids.iter().map(|&c| (c, depth + 1)));
            }
            i += 1;
        }
        let mut keys = Vec::with_capacity(chain.len());
        for (k, depth) in chain {
            let Some(object) = src.object(k) else {
                continue;
            };
            let (attach_kind, attach_id) = match object.attachment.map(|a| a.parent) {
                None => (ObjectAttachKind::None, 0),
                Some(Parent::Object(p)) => (ObjectAttachKind::Object, p.0),
                Some(Parent::Player(e)) => {
                    (ObjectAttachKind::Player, src.player(e).map_or(0, |id| id.0))
                }
                Some(Parent::Vehicle(v)) => (ObjectAttachKind::Vehicle, v.0),
            };
            count(&mut self.distances, object.stream_distance.to_bits(), true);
            self.members.insert(
                k,
                Member {
                    object: object.clone(),
                    root,
                    depth,
                    interior: scope.interior,
                    attach_kind,
                    attach_id,
                    viewer: object.viewer.and_then(|e| src.player(e)),
                },
            );
            keys.push(k);
        }
        let weight = u32::try_from(keys.len()).unwrap_or(u32::MAX);
        count(&mut self.weights, weight, true);
        let viewer = self.members.get(&root).and_then(|m| m.viewer);
        let item = match holder {
            Some(h) => {
                self.held.insert(root, h);
                if let Holder::Player(..) = h {
                    self.interiors.insert(root, scope.interior);
                    // A chain on a player whose interior changed is shown again with
                    // the new one.
                    if interiors
                        .get(&root)
                        .is_some_and(|&old| old != scope.interior)
                    {
                        resend.extend(keys.iter().map(|&k| ObjectId(k)));
                    }
                }
                Item {
                    forced: true,
                    viewer,
                    weight,
                    ..Item::at(root, layer(&scope), position)
                }
            }
            None => Item {
                viewer,
                distances: Some(Distances::new(o.stream_distance, HIDE_MARGIN, None)),
                weight,
                ..Item::at(root, layer(&o.scope), position)
            },
        };
        self.chains.insert(root, keys);
        if o.viewer.is_some() && viewer.is_none() {
            return;
        }
        match holder {
            Some(h) => {
                let audience = src.audience(h);
                self.marks.recipients.extend(audience.iter().copied());
                self.placed.insert(
                    root,
                    Placed {
                        layer: item.layer,
                        position,
                        audience,
                    },
                );
            }
            None => {
                probe.insert(probed(item, o, src.now));
                if o.motion.is_some() {
                    self.moving.insert(root);
                }
                self.marks.region(Region::of(&item, self.reach));
            }
        }
        engine.insert(item);
    }

    /// Sets [`reach`](Self::reach) from the members; whether it changed.
    pub(super) fn settle_reach(&mut self) -> bool {
        let reach = self
            .distances
            .keys()
            .next_back()
            .map_or(1.0, |&bits| f32::from_bits(bits).max(1.0));
        let changed = reach != self.reach;
        self.reach = reach;
        changed
    }

    /// Places the moving roots and the held chains where they are now (the probe too),
    /// noting whom that may affect. Returns the probe's reach: the largest show distance
    /// in it.
    pub(super) fn follow(
        &mut self,
        src: &Sources,
        engine: &mut Engine,
        probe: &mut Engine,
        resend: &mut HashSet<ObjectId>,
    ) -> f32 {
        let mut probe_reach = self.reach;
        let moving: Vec<u32> = self.moving.iter().copied().collect();
        for root in moving {
            let (Some(m), Some(old)) = (self.members.get(&root), engine.item(root).copied()) else {
                continue;
            };
            let at = m.object.pose_at(src.now).position;
            let item = Item {
                position: at,
                ..old
            };
            if at != old.position {
                engine.place(item);
                self.marks.region(Region::of(&old, self.reach));
                self.marks.region(Region::of(&item, self.reach));
            }
            let p = probed(item, &m.object, src.now);
            probe_reach = probe_reach.max(p.distances.map_or(0.0, |d| d.show));
            probe.place(p);
        }
        let held: Vec<(u32, Holder)> = self.placed_roots();
        for (root, holder) in held {
            let Some((position, scope)) = src.place(holder) else {
                continue;
            };
            let interior = scope.interior;
            let was = self.members.get(&root).map(|m| m.interior);
            if was.is_some_and(|w| w != interior) {
                if let Some(chain) = self.chains.get(&root) {
                    for k in chain {
                        if let Some(m) = self.members.get_mut(k) {
                            m.interior = interior;
                        }
                    }
                    if let Holder::Player(..) = holder {
                        resend.extend(chain.iter().map(|&k| ObjectId(k)));
                    }
                }
                if let Holder::Player(..) = holder {
                    self.interiors.insert(root, interior);
                }
            }
            let audience = src.audience(holder);
            let now = Placed {
                layer: layer(&scope),
                position,
                audience,
            };
            let Some(before) = self.placed.get(&root) else {
                continue;
            };
            if *before == now {
                continue;
            }
            if let Some(old) = engine.item(root).copied()
                && (old.layer != now.layer || old.position != now.position)
            {
                engine.place(Item {
                    layer: now.layer,
                    position: now.position,
                    ..old
                });
            }
            let marks = &mut self.marks;
            if before.layer != now.layer {
                marks.recipients.extend(before.audience.iter().copied());
                marks.recipients.extend(now.audience.iter().copied());
            } else {
                if before.audience != now.audience {
                    marks
                        .recipients
                        .extend(symmetric_difference(&before.audience, &now.audience));
                }
                if before.position != now.position {
                    marks.near_cap.extend(before.audience.iter().copied());
                    marks.near_cap.extend(now.audience.iter().copied());
                }
            }
            self.placed.insert(root, now);
        }
        probe_reach
    }

    /// The held chains in the engine, by root.
    fn placed_roots(&self) -> Vec<(u32, Holder)> {
        let mut out: Vec<(u32, Holder)> = self
            .placed
            .keys()
            .filter_map(|&root| self.held.get(&root).map(|&h| (root, h)))
            .collect();
        out.sort_unstable_by_key(|(root, _)| *root);
        out
    }
}

/// The root of `o`'s chain, if every link is there (a player or vehicle parent counts).
fn root_of(o: &Object, src: &Sources) -> Option<u32> {
    let (mut at, mut depth) = (o, 0usize);
    loop {
        match at.attachment.map(|a| a.parent) {
            None => return Some(at.id.0),
            Some(Parent::Player(e)) => return src.players.contains(e).then_some(at.id.0),
            Some(Parent::Vehicle(v)) => return src.vehicles.pose(v).map(|_| at.id.0),
            Some(Parent::Object(p)) if depth < MAX_DEPTH => {
                at = src.object(p.0)?;
                depth += 1;
            }
            Some(Parent::Object(_)) => return None,
        }
    }
}

/// The slots in exactly one of two ascending lists.
fn symmetric_difference<'a>(a: &'a [u32], b: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
    a.iter()
        .filter(|k| b.binary_search(k).is_err())
        .chain(b.iter().filter(|k| a.binary_search(k).is_err()))
        .copied()
}
