//! What scripts see of the objects ([`ObjectBook`], Lua app data): refreshed from the ECS
//! before the scripts run whenever an object changed, and updated at once by the calls
//! themselves (`src/script/api/world/object.rs`), so a read after a write in the same call
//! sees it. Ids come from the server's one counter ([`Objects::reserve`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::landing::FLOOR;
use super::pose::Pose;
use super::{Attachment, Object, ObjectId, ObjectSettings, Objects, Parent, reserve};
use dlmp_core::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;
use dlmp_script::ScriptHost;

/// The scripts' view of the objects (Lua app data).
#[derive(Debug, Default)]
pub struct ObjectBook {
    last: Arc<AtomicU32>,
    pub objects: HashMap<u32, Object>,
    /// The server time of this script pass (movements are read at it).
    pub now: Duration,
    pub settings: ObjectSettings,
}

impl ObjectBook {
    /// A new id for a call, or `None` once 2^32 − 1 were handed out.
    pub fn reserve(&self) -> Option<ObjectId> {
        reserve(&self.last)
    }

    /// An object a call made.
    pub fn add(&mut self, object: Object) {
        self.objects.insert(object.id.0, object);
    }

    pub fn get(&self, id: ObjectId) -> Option<&Object> {
        self.objects.get(&id.0)
    }

    pub fn get_mut(&mut self, id: ObjectId) -> Option<&mut Object> {
        self.objects.get_mut(&id.0)
    }

    /// Removes `id` and every object it carries; the ids removed.
    pub fn remove_chain(&mut self, id: ObjectId) -> Vec<ObjectId> {
        let mut gone = vec![id];
        let mut i = 0;
        while i < gone.len() {
            let parent = gone[i];
            gone.extend(
                self.objects
                    .values()
                    .filter(|o| {
                        o.attachment
                            .is_some_and(|a| a.parent == Parent::Object(parent))
                    })
                    .map(|o| o.id),
            );
            i += 1;
        }
        for g in &gone {
            self.objects.remove(&g.0);
        }
        gone
    }

    /// The root of `id`'s chain (itself when free or on a player).
    pub fn root(&self, id: ObjectId) -> ObjectId {
        let mut at = id;
        for _ in 0..super::commands::MAX_DEPTH {
            match self.get(at).and_then(|o| o.attachment) {
                Some(Attachment {
                    parent: Parent::Object(p),
                    ..
                }) => at = p,
                _ => break,
            }
        }
        at
    }

    /// Whether `ancestor` carries `id` through the chain above it (or is it).
    pub fn carries(&self, ancestor: ObjectId, id: ObjectId) -> bool {
        let mut at = id;
        for _ in 0..super::commands::MAX_DEPTH {
            if at == ancestor {
                return true;
            }
            match self.get(at).and_then(|o| o.attachment) {
                Some(Attachment {
                    parent: Parent::Object(p),
                    ..
                }) => at = p,
                _ => return false,
            }
        }
        true
    }

    /// Whether some object hangs from `id`.
    pub fn has_children(&self, id: ObjectId) -> bool {
        self.objects
            .values()
            .any(|o| o.attachment.is_some_and(|a| a.parent == Parent::Object(id)))
    }

    /// The own pose of `id` now.
    pub fn pose(&self, id: ObjectId) -> Option<Pose> {
        self.get(id).map(|o| o.pose_at(self.now))
    }

    /// How many objects the floor of a landing of `player` at `point` in `scope` may hold
    /// at most: the nearest free chains there within their stream distance, whole, up to
    /// [`FLOOR`]. Counted as if none were shown yet (scripts do not see the shown sets),
    /// so it is never below what the landing queues (docs/decisions/0049).
    pub fn floor_places(&self, player: Entity, point: Vec3, scope: Scope) -> usize {
        let mut sizes: HashMap<u32, usize> = HashMap::new();
        for o in self.objects.values() {
            *sizes.entry(self.root(o.id).0).or_default() += 1;
        }
        let mut near: Vec<(f32, usize)> = self
            .objects
            .values()
            .filter(|o| {
                o.attachment.is_none() && o.scope == scope && o.viewer.is_none_or(|v| v == player)
            })
            .filter_map(|o| {
                let d = distance(o.pose_at(self.now).position, point);
                (d <= o.stream_distance).then(|| (d, sizes.get(&o.id.0).copied().unwrap_or(1)))
            })
            .collect();
        near.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        let mut places = 0;
        for (_, size) in near {
            if places + size > FLOOR {
                break;
            }
            places += size;
        }
        places
    }
}

/// The object book of `lua`, made on first use.
pub fn book(lua: &mlua::Lua) -> mlua::Result<mlua::AppDataRefMut<'_, ObjectBook>> {
    if lua.app_data_ref::<ObjectBook>().is_none() {
        lua.set_app_data(ObjectBook::default());
    }
    lua.app_data_mut::<ObjectBook>()
        .ok_or_else(|| mlua::Error::runtime("no object state"))
}

/// Before the scripts run: the book takes the server's counter and time and, when an
/// object changed since, the objects as they are (and the calls' own creations).
pub(super) fn refresh_view(
    host: Option<NonSend<ScriptHost>>,
    time: Res<Time>,
    settings: Res<ObjectSettings>,
    mut registry: ResMut<Objects>,
    objects: Query<&Object>,
) {
    let Some(host) = host else { return };
    let Ok(mut book) = book(host.lua()) else {
        return;
    };
    book.now = time.elapsed();
    book.settings = *settings;
    if !Arc::ptr_eq(&book.last, &registry.last) {
        // Ids scripts took before the first pass (at boot) stay taken.
        let taken = book.last.load(Ordering::Relaxed);
        registry.last.fetch_max(taken, Ordering::Relaxed);
        book.last = registry.counter();
        registry.changed = true;
    }
    if !std::mem::take(&mut registry.changed) {
        return;
    }
    // A call's creations are in the ECS by now, or were refused.
    book.objects.clear();
    book.objects
        .extend(objects.iter().map(|o| (o.id.0, o.clone())));
}
