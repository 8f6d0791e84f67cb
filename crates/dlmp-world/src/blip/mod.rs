//! Radar and map blips (world.md Blip; lua-api.md `dlmp.create_blip`): a marker at a point
//! or attached to a player (or, the day vehicles exist, a vehicle), shown to the players in
//! its scope (an attached blip: its entity's), within its draw distance when it has one
//! (hidden 10 m past it), at most the 100 nearest. An attached blip is never shown to the
//! attached player, waits until both that player and the recipient have spawned once, has
//! sprite 0, and carries where its entity was, refreshed at most once a second after a
//! move of more than 5 m. Deleting the viewer or the attached entity deletes the blip.
//! Decisions: ADR 0045.
//!
//! - [`stream`]: the reconcile on the one engine (ADR 0027) and the position refresh.
//! - this module: the blip, its commands and the end of a viewer's or parent's blips.

pub mod stream;

use std::collections::HashMap;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use super::attach::{Attach, Parents};
use dlmp_core::position::Scope;
use dlmp_core::session::PlayerDisconnected;
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::world::markers::BlipFlags;
use dlmp_protocol::world::shared::{AttachKind, MarkerId, WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};
use dlmp_script::{Owned, ResourceId, ResourceStopped};

use crate::check::{self, WorldError, WorldRefusals};

pub use stream::BlipStream;

/// At most this many blips are shown to one player, the nearest first.
pub const CAP: usize = 100;
/// A shown blip is hidden this far past its draw distance, m (world.md Blip).
pub const HIDE_MARGIN: f32 = 10.0;
/// An attached blip's position is refreshed after its entity moved more than this, m.
pub const REFRESH_DISTANCE: f32 = 5.0;
/// ... and at most this often.
pub const REFRESH_INTERVAL: Duration = Duration::from_secs(1);
/// The largest draw distance a script may give, m (ADR 0045: the map's diagonal).
pub const DRAW_DISTANCE_MAX: f32 = 17_000.0;

/// What a blip is made of; its creator checked every field against the page's ranges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlipSpec {
    /// Icon 1..=63, 0 = a dot in `color`; 0 when attached.
    pub sprite: u8,
    /// 0xRRGGBB.
    pub color: u32,
    /// Where it stands (unused when attached).
    pub position: Vec3,
    /// 0.25..=4.
    pub size: f32,
    pub flags: BlipFlags,
    /// Shown within this of the recipient, m; `None`: at any distance.
    pub draw_distance: Option<f32>,
    pub attach: Option<Attach>,
    /// Its scope when it stands alone; an attached blip is in its entity's.
    pub scope: Scope,
    /// Shown to this player only; the blip goes when the viewer leaves.
    pub viewer: Option<Entity>,
}

impl BlipSpec {
    /// Whether a blip of this spec can be shown (world.md Blip: sprite, no sprite when
    /// attached, the color, a position within world bounds, size, known flags) and its draw
    /// distance is in (0, 17000]. What `dlmp.create_blip` and plugins pass (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        if let Some(d) = self.draw_distance {
            check::range(
                "draw_distance",
                d,
                |d| d > 0.0 && d <= DRAW_DISTANCE_MAX,
                "(0, 17000]",
            )?;
        }
        let kind = match self.attach {
            None => AttachKind::None,
            Some(Attach::Player(_)) => AttachKind::Player,
            Some(Attach::Vehicle(_)) => AttachKind::Vehicle,
        };
        let probe = Blip {
            id: MarkerId(1),
            spec: *self,
            attached: (kind, 0),
            at: if self.attach.is_some() {
                Vec3::ZERO
            } else {
                self.position
            },
            refreshed: Duration::ZERO,
        };
        check::shows(&stream::show_packet(&probe))
    }
}

/// A blip entity.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Blip {
    pub id: MarkerId,
    pub spec: BlipSpec,
    /// `attach_kind` and `attach_id` on the wire, fixed when it was made.
    pub attached: (AttachKind, u32),
    /// The position on the wire: the spec's, or where the entity was at the last refresh.
    pub at: Vec3,
    /// When `at` was last refreshed from the entity.
    pub refreshed: Duration,
}

/// The blips of this run by id.
#[derive(Resource, Debug, Default)]
pub struct Blips {
    by_id: HashMap<MarkerId, Entity>,
}

impl Blips {
    pub fn entity(&self, id: MarkerId) -> Option<Entity> {
        self.by_id.get(&id).copied()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// A change of the blip set, from a script or a Rust plugin (ids from
/// [`MarkerIds`](super::MarkerIds)); applied in [`GameplaySystems::Apply`], in order.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum BlipCommand {
    Create {
        id: MarkerId,
        spec: BlipSpec,
        owner: Option<ResourceId>,
    },
    Destroy {
        id: MarkerId,
    },
}

impl BlipCommand {
    /// Whether the command may be applied: a created blip's spec. Write it with
    /// `command.checked()?` (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        match self {
            BlipCommand::Create { spec, .. } => spec.check(),
            BlipCommand::Destroy { .. } => Ok(()),
        }
    }

    /// The command, or why it may not be applied.
    pub fn checked(self) -> Result<Self, WorldError> {
        self.check().map(|()| self)
    }
}

/// `p` moved into world bounds (the decoder rejects a blip outside them; world.md Blip).
pub fn within_world(p: Vec3) -> Vec3 {
    Vec3::new(
        p.x.clamp(-WORLD_XY, WORLD_XY),
        p.y.clamp(-WORLD_XY, WORLD_XY),
        p.z.clamp(WORLD_Z_MIN, WORLD_Z_MAX),
    )
}

/// Adds blips.
pub(crate) struct BlipPlugin;

impl Plugin for BlipPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Blips>()
            .init_resource::<BlipStream>()
            .add_message::<BlipCommand>()
            .add_systems(FixedUpdate, forget_left.in_set(ServerSystems::Validation))
            .add_systems(
                FixedUpdate,
                (apply, forget_stopped, forget_removed_vehicles)
                    .chain()
                    .in_set(GameplaySystems::Apply)
                    .after(dlmp_vehicle::VehicleSystems::Lifecycle),
            )
            .add_systems(
                FixedUpdate,
                stream::reconcile
                    .in_set(StreamingSystems::Reconcile)
                    .after(dlmp_player::stream::reconcile),
            );
    }
}

/// Applies the tick's [`BlipCommand`]s; a destroyed blip is hidden by the next reconcile.
fn apply(
    mut commands: Commands,
    mut read: MessageReader<BlipCommand>,
    mut registry: ResMut<Blips>,
    mut stream: ResMut<BlipStream>,
    parents: Parents,
    time: Res<bevy_time::Time<bevy_time::Fixed>>,
    mut refusals: ResMut<WorldRefusals>,
) {
    for command in read.read() {
        if let Err(e) = command.check() {
            refusals.refuse("blip", command, &e);
            continue;
        }
        stream.changed();
        match *command {
            BlipCommand::Create { id, spec, owner } => {
                if registry.by_id.contains_key(&id) {
                    debug!(id = id.0, "a blip id created twice; ignored");
                    continue;
                }
                let (attached, at) = match spec.attach {
                    None => ((AttachKind::None, 0), spec.position),
                    Some(a) => match parents.get(a) {
                        Some(p) => ((p.kind, p.wire_id), within_world(p.position)),
                        None => {
                            debug!(id = id.0, "a blip attached to an entity that is gone");
                            continue;
                        }
                    },
                };
                let mut entity = commands.spawn(Blip {
                    id,
                    spec,
                    attached,
                    at,
                    refreshed: time.elapsed(),
                });
                if let Some(owner) = owner {
                    entity.insert(Owned(owner));
                }
                registry.by_id.insert(id, entity.id());
            }
            BlipCommand::Destroy { id } => {
                if let Some(entity) = registry.by_id.remove(&id) {
                    commands.entity(entity).despawn();
                }
            }
        }
    }
}

/// A blip whose viewer or attached player left goes with it (ADR 0045, as world.md says
/// of labels); the others who saw it get the hide from the next reconcile.
fn forget_left(
    mut commands: Commands,
    mut left: MessageReader<PlayerDisconnected>,
    mut registry: ResMut<Blips>,
    mut stream: ResMut<BlipStream>,
    blips: Query<(Entity, &Blip)>,
) {
    let gone: Vec<Entity> = left.read().map(|d| d.player).collect();
    if gone.is_empty() {
        return;
    }
    stream.changed();
    for (entity, blip) in &blips {
        let viewer = blip.spec.viewer.is_some_and(|v| gone.contains(&v));
        let parent = blip
            .spec
            .attach
            .is_some_and(|a| gone.iter().any(|&g| a.is_player(g)));
        if viewer || parent {
            registry.by_id.remove(&blip.id);
            commands.entity(entity).despawn();
        }
    }
}

/// The blips attached to a vehicle removed this tick go with it.
fn forget_removed_vehicles(
    mut commands: Commands,
    mut removed: RemovedComponents<dlmp_vehicle::Vehicle>,
    mut registry: ResMut<Blips>,
    mut stream: ResMut<BlipStream>,
    blips: Query<(Entity, &Blip)>,
    parents: Parents,
) {
    if removed.read().count() == 0 {
        return;
    }
    for (entity, blip) in &blips {
        if parents.vehicle_gone(blip.spec.attach) {
            stream.changed();
            registry.by_id.remove(&blip.id);
            commands.entity(entity).despawn();
        }
    }
}

/// A stopped resource's blips were despawned (`despawn_owned`); their ids go too.
fn forget_stopped(
    mut stopped: MessageReader<ResourceStopped>,
    mut registry: ResMut<Blips>,
    mut stream: ResMut<BlipStream>,
    blips: Query<(), With<Blip>>,
) {
    if stopped.read().count() > 0 {
        stream.changed();
        registry.by_id.retain(|_, e| blips.contains(*e));
    }
}
