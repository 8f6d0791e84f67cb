//! Pickups (world.md PickupSync, PickupTouch; lua-api.md "World and vehicles"): the
//! server's set of pickups, streamed by the one streaming engine (ADR 0027) within the
//! draw distance and scope, touches admitted as the page lists, the collectible and static
//! behaviours, collection and respawn. Distances: docs/decisions/0028-pickup-distances.md.
//!
//! - [`models`]: the models a pickup may show (`assets/weapon_models.tsv`).
//! - [`commands`]: create, move, destroy, collect, the respawn and the resource stop.
//! - [`stream`]: the reconcile on the engine.
//! - [`touch`]: PickupTouch admission, the static latch, `pickup_interact`.
//! - [`script`]: the Lua API.

pub mod commands;
pub mod models;
pub mod script;
pub mod stream;
pub mod touch;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use dlmp_core::position::Scope;
use dlmp_core::tick::{GameplaySystems, StreamingSystems};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::PlayerId;
use dlmp_protocol::world::pickup::{PICKUP_XY, PickupId};
use dlmp_protocol::world::shared::EntityRev;
use dlmp_protocol::world::shared::{WORLD_Z_MAX, WORLD_Z_MIN};
use dlmp_script::ResourceId;

use crate::check::{self, WorldError};

pub use commands::PickupCommand;
pub use stream::PickupStream;
pub use touch::{PickupInteracted, PickupStats};

/// Pickups are shown within this distance of a player's stream center, m (ADR 0028).
pub const DRAW_DISTANCE: f32 = 150.0;
/// A touch counts when the player's last PlayerSync position is this near, m (ADR 0028).
pub const TOUCH_RADIUS: f32 = 3.0;

/// A shown pickup is hidden this far beyond the draw distance, m (ADR 0028).
pub const HIDE_MARGIN: f32 = 10.0;

/// Pickup settings (`pickup_draw_distance`, `pickup_touch_radius`).
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct PickupSettings {
    /// Shown within this distance of the player's stream center. Default 150 m.
    pub draw_distance: f32,
    /// A touch is admitted within this distance of the last PlayerSync position, and a
    /// static pickup's latch clears beyond it. Default 3 m.
    pub touch_radius: f32,
}

impl Default for PickupSettings {
    fn default() -> Self {
        PickupSettings {
            draw_distance: DRAW_DISTANCE,
            touch_radius: TOUCH_RADIUS,
        }
    }
}

/// The touch policy (world.md PickupTouch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Behavior {
    /// The gamemode decides on each touch and consumes it with `collect_pickup`.
    Collectible,
    /// Accepted once per entry per player; never removed by a touch.
    Static,
}

impl Behavior {
    /// The name scripts see.
    pub fn name(self) -> &'static str {
        match self {
            Behavior::Collectible => "collectible",
            Behavior::Static => "static",
        }
    }
}

/// What a pickup is made of (checked by its creator: model, position, scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PickupSpec {
    pub model: u32,
    pub position: Vec3,
    pub scale: f32,
    pub highlight: bool,
    pub behavior: Behavior,
    /// After a collection, active again this much later; `None`: gone until destroyed.
    pub respawn: Option<Duration>,
    pub scope: Scope,
}

impl PickupSpec {
    /// Whether a pickup of this spec can be shown: a model of the pickup table and a show
    /// its page accepts (world.md PickupSync: |x|, |y| ≤ 4095, z, scale). What
    /// `dlmp.create_pickup`, map files and plugins pass (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        if !models::is_pickup_model(self.model) {
            return Err(WorldError::Invalid(format!(
                "model {} is not a pickup model (a weapon model 321..=373 or an object model of the model table)",
                self.model
            )));
        }
        check_position(self.position)?;
        check::shows(&stream::show_packet(&Pickup::new(PickupId(1), *self)))
    }
}

/// A pickup's point: |x|, |y| ≤ 4095, z −200..=4000 (world.md PickupSync), named per axis
/// as `dlmp.create_pickup` names it.
pub(crate) fn check_position(p: Vec3) -> Result<(), WorldError> {
    let xy = |c: f32| c.abs() <= PICKUP_XY;
    check::range("x", p.x, xy, "-4095..=4095")?;
    check::range("y", p.y, xy, "-4095..=4095")?;
    check::range(
        "z",
        p.z,
        |z| (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&z),
        "-200..=4000",
    )
}

/// A pickup entity.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Pickup {
    pub id: PickupId,
    pub spec: PickupSpec,
    /// Pose revision, grows with every move.
    pub rev: EntityRev,
    /// False while it waits for its respawn.
    pub active: bool,
    /// When a collected pickup becomes active again.
    pub respawn_at: Option<Duration>,
    /// Players a static pickup accepted a touch of, until they leave the radius.
    pub latched: Vec<PlayerId>,
}

impl Pickup {
    /// A new active pickup.
    pub(crate) fn new(id: PickupId, spec: PickupSpec) -> Self {
        Pickup {
            id,
            spec,
            rev: EntityRev(0),
            active: true,
            respawn_at: None,
            latched: Vec::new(),
        }
    }
}

/// The pickup ids of this run (never reused, connection.md §5) and the entity of each.
#[derive(Resource, Debug, Default)]
pub struct Pickups {
    /// The last id handed out; shared with the scripts' view, which takes ids from it too.
    last: Arc<AtomicU32>,
    by_id: HashMap<PickupId, Entity>,
    /// Something changed that the scripts' view does not know yet.
    changed: bool,
}

impl Pickups {
    /// A new id, never handed out before in this run; `None` once 2^32 - 1 were.
    pub fn reserve(&self) -> Option<PickupId> {
        reserve(&self.last)
    }

    pub fn entity(&self, id: PickupId) -> Option<Entity> {
        self.by_id.get(&id).copied()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub(crate) fn counter(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.last)
    }
}

fn reserve(last: &AtomicU32) -> Option<PickupId> {
    last.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
        .ok()
        .map(|n| PickupId(n + 1))
}

/// The resource that made a pickup, if a script did.
pub type Owner = Option<ResourceId>;

/// Adds pickups.
pub struct PickupPlugin;

impl Plugin for PickupPlugin {
    fn build(&self, app: &mut App) {
        models::load();
        app.init_resource::<PickupSettings>()
            .init_resource::<Pickups>()
            .init_resource::<PickupStream>()
            .init_resource::<PickupStats>()
            .add_message::<PickupCommand>()
            .add_message::<PickupInteracted>()
            .add_systems(
                FixedUpdate,
                (
                    (script::refresh_view, touch::admit_touches)
                        .chain()
                        .in_set(GameplaySystems::Intake),
                    (commands::apply, commands::respawn, commands::forget_stopped)
                        .chain()
                        .in_set(GameplaySystems::Apply),
                    (stream::reconcile, touch::clear_latches)
                        .chain()
                        .in_set(StreamingSystems::Reconcile),
                ),
            );
    }
}
