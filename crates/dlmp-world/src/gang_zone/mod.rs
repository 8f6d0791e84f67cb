//! Gang zones (world.md GangZone; lua-api.md `dlmp.create_gang_zone`): colored rectangles
//! on the radar and the map, shown to every player in the zone's scope (or to its single
//! viewer) with no distance limit, at most the 1024 nearest by center; a later zone id is
//! drawn over an earlier one (the client's part: ids come from the one marker counter).
//! Decisions: ADR 0037.
//!
//! - [`stream`]: the reconcile on the one engine (ADR 0027).
//! - this module: the zone, its commands and the end of a viewer's zones.

pub mod stream;

use std::collections::HashMap;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use dlmp_core::position::Scope;
use dlmp_core::session::{Connection, PlayerDisconnected, PlayerIndex};
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_protocol::world::shared::{EntityRev, MarkerId};
use dlmp_script::{Owned, ResourceId, ResourceStopped};

use crate::check::{self, WorldError, WorldRefusals};

pub use stream::GangZoneStream;

/// At most this many zones are shown to one player, the nearest by center first.
pub const CAP: usize = 1024;

/// What a zone is made of; its creator checked the corners (within world bounds, max above
/// min) and the colors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GangZoneSpec {
    pub min: [f32; 2],
    pub max: [f32; 2],
    /// 0xRRGGBB.
    pub color: u32,
    pub alpha: u8,
    /// The flash color while it flashes.
    pub flash: Option<u32>,
    pub scope: Scope,
    /// Shown to this player only; the zone goes when the viewer leaves (ADR 0037).
    pub viewer: Option<Entity>,
}

impl GangZoneSpec {
    /// Whether a zone of this spec can be shown (world.md GangZone: colors, corners within
    /// world bounds, max above min on both axes). What `dlmp.create_gang_zone` and plugins
    /// pass (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        let probe = GangZone {
            id: MarkerId(1),
            spec: *self,
            rev: EntityRev(0),
        };
        check::shows(&stream::show_packet(&probe))
    }

    /// The rectangle's center, where "nearest" measures from.
    pub fn center(&self) -> [f32; 2] {
        [
            (self.min[0] + self.max[0]) / 2.0,
            (self.min[1] + self.max[1]) / 2.0,
        ]
    }
}

/// A gang zone entity.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct GangZone {
    pub id: MarkerId,
    pub spec: GangZoneSpec,
    /// Grows with every change (GangZone `rev`).
    pub rev: EntityRev,
}

/// The zones of this run by id.
#[derive(Resource, Debug, Default)]
pub struct GangZones {
    by_id: HashMap<MarkerId, Entity>,
}

impl GangZones {
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

/// A change of the zone set, from a script or a Rust plugin (ids from
/// [`MarkerIds`](super::MarkerIds)); applied in [`GameplaySystems::Apply`], in order.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum GangZoneCommand {
    Create {
        id: MarkerId,
        spec: GangZoneSpec,
        owner: Option<ResourceId>,
    },
    /// Starts flashing to `Some(color)`, or stops (`None`).
    Flash {
        id: MarkerId,
        color: Option<u32>,
    },
    SetColor {
        id: MarkerId,
        color: u32,
        alpha: u8,
    },
    /// A new rectangle (an edit session's commit, editing.md §2); its sender checked it
    /// (within world bounds, max above min).
    SetRect {
        id: MarkerId,
        min: [f32; 2],
        max: [f32; 2],
    },
    Destroy {
        id: MarkerId,
    },
}

impl GangZoneCommand {
    /// Whether the command may be applied: a created zone's spec, a color or flash color.
    /// Write it with `command.checked()?` (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        match self {
            GangZoneCommand::Create { spec, .. } => spec.check(),
            GangZoneCommand::Flash { color, .. } => {
                color.map_or(Ok(()), |c| check::rgb("flash_color", c))
            }
            GangZoneCommand::SetColor { color, .. } => check::rgb("color", *color),
            GangZoneCommand::SetRect { min, max, .. } => {
                let probe = GangZoneSpec {
                    min: *min,
                    max: *max,
                    color: 0,
                    alpha: 0,
                    flash: None,
                    scope: Scope::default(),
                    viewer: None,
                };
                probe.check()
            }
            GangZoneCommand::Destroy { .. } => Ok(()),
        }
    }

    /// The command, or why it may not be applied.
    pub fn checked(self) -> Result<Self, WorldError> {
        self.check().map(|()| self)
    }
}

/// Adds gang zones.
pub(crate) struct GangZonePlugin;

impl Plugin for GangZonePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<GangZones>()
            .init_resource::<GangZoneStream>()
            .add_message::<GangZoneCommand>()
            .add_systems(
                FixedUpdate,
                forget_viewers.in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                (apply, forget_stopped)
                    .chain()
                    .in_set(GameplaySystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                stream::reconcile.in_set(StreamingSystems::Reconcile),
            );
    }
}

/// Applies the tick's [`GangZoneCommand`]s. A change of a shown zone is a show with a new
/// rev to everyone it is shown to, as critical; a destroyed zone is hidden by the next
/// reconcile like any that left a set.
fn apply(
    mut commands: Commands,
    mut read: MessageReader<GangZoneCommand>,
    mut registry: ResMut<GangZones>,
    mut zones: Query<&mut GangZone>,
    mut stream: ResMut<GangZoneStream>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut refusals: ResMut<WorldRefusals>,
) {
    for command in read.read() {
        if let Err(e) = command.check() {
            refusals.refuse("gang zone", command, &e);
            continue;
        }
        let id = match *command {
            GangZoneCommand::Create { id, spec, owner } => {
                if registry.by_id.contains_key(&id) {
                    debug!(id = id.0, "a gang zone id created twice; ignored");
                    continue;
                }
                let mut entity = commands.spawn(GangZone {
                    id,
                    spec,
                    rev: EntityRev(0),
                });
                if let Some(owner) = owner {
                    entity.insert(Owned(owner));
                }
                registry.by_id.insert(id, entity.id());
                continue;
            }
            GangZoneCommand::Destroy { id } => {
                if let Some(entity) = registry.by_id.remove(&id) {
                    commands.entity(entity).despawn();
                }
                continue;
            }
            GangZoneCommand::Flash { id, .. }
            | GangZoneCommand::SetColor { id, .. }
            | GangZoneCommand::SetRect { id, .. } => id,
        };
        let Some(mut zone) = registry.entity(id).and_then(|e| zones.get_mut(e).ok()) else {
            debug!(id = id.0, "a change of a gang zone that is gone");
            continue;
        };
        match *command {
            GangZoneCommand::Flash { color, .. } => zone.spec.flash = color,
            GangZoneCommand::SetColor { color, alpha, .. } => {
                zone.spec.color = color;
                zone.spec.alpha = alpha;
            }
            GangZoneCommand::SetRect { min, max, .. } => {
                zone.spec.min = min;
                zone.spec.max = max;
            }
            GangZoneCommand::Create { .. } | GangZoneCommand::Destroy { .. } => {}
        }
        zone.rev = EntityRev(zone.rev.0.wrapping_add(1));
        let packet = stream::show_packet(&zone).into();
        stream
            .shown_mut()
            .tell_change(id.0, &packet, &index, &mut connections);
    }
    stream
        .shown_mut()
        .flush_changes(&index, &mut connections, |key| {
            let zone = zones
                .get(registry.by_id.get(&MarkerId(key)).copied()?)
                .ok()?;
            Some(stream::show_packet(zone).into())
        });
}

/// A zone whose single viewer left goes with it (ADR 0037).
fn forget_viewers(
    mut commands: Commands,
    mut left: MessageReader<PlayerDisconnected>,
    mut registry: ResMut<GangZones>,
    zones: Query<(Entity, &GangZone)>,
) {
    let gone: Vec<Entity> = left.read().map(|d| d.player).collect();
    if gone.is_empty() {
        return;
    }
    for (entity, zone) in &zones {
        if zone.spec.viewer.is_some_and(|v| gone.contains(&v)) {
            registry.by_id.remove(&zone.id);
            commands.entity(entity).despawn();
        }
    }
}

/// A stopped resource's zones were despawned (`despawn_owned`); their ids go too.
fn forget_stopped(
    mut stopped: MessageReader<ResourceStopped>,
    mut registry: ResMut<GangZones>,
    zones: Query<(), With<GangZone>>,
) {
    if stopped.read().count() > 0 {
        registry.by_id.retain(|_, e| zones.contains(*e));
    }
}
