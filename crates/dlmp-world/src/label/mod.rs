//! 3D text labels (world.md Label3D; lua-api.md `dlmp.create_label`): text at a point or
//! attached to a player (or, the day vehicles exist, a vehicle), shown to the players in
//! its scope within its draw distance, at most the 256 nearest; an attached label only
//! while its entity is shown to the recipient and never to the attached player; a label
//! with a viewer only to that player. Deleting the attached entity or the viewer deletes
//! the label. Decisions: ADR 0045.
//!
//! - [`stream`]: the reconcile on the one engine (ADR 0027), on every change (for the
//!   recipients it can affect, ADR 0077) and once a second.
//! - this module: the label, its commands and the end of a viewer's or parent's labels.

pub mod stream;

use std::collections::HashMap;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use super::attach::{Attach, Parents};
use dlmp_core::position::Scope;
use dlmp_core::session::{Connection, PlayerDisconnected, PlayerIndex};
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::text::FixedText;
use dlmp_protocol::world::label::LABEL_TEXT;
use dlmp_protocol::world::shared::{AttachKind, EntityRev, MarkerId};
use dlmp_script::{Owned, ResourceId, ResourceStopped};

use crate::check::{self, WorldError, WorldRefusals};

pub use stream::LabelStream;

/// At most this many labels are shown to one player, the nearest first.
pub const CAP: usize = 256;
/// A shown label is hidden this far beyond its draw distance, m (ADR 0045).
pub const HIDE_MARGIN: f32 = 10.0;
/// `draw_distance` when the script gives none, m (lua-api.md).
pub const DEFAULT_DRAW_DISTANCE: f32 = 50.0;

/// A label's text: UTF-8, at most 255 bytes, no NUL (the wire's NUL-terminated field).
pub type LabelText = FixedText<LABEL_TEXT>;

/// What a label is made of; its creator checked every field against the page's ranges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelSpec {
    pub text: LabelText,
    /// 0xRRGGBB.
    pub color: u32,
    /// Where it stands; the offset from the entity when attached.
    pub position: Vec3,
    /// (0, 300] m.
    pub draw_distance: f32,
    pub attach: Option<Attach>,
    /// Its scope when it stands alone; an attached label is in its entity's.
    pub scope: Scope,
    /// Shown to this player only; the label goes when the viewer leaves.
    pub viewer: Option<Entity>,
}

impl LabelSpec {
    /// Whether a label of this spec can be shown (world.md Label3D: the color, a position
    /// (offset) within world bounds, a draw distance in (0, 300]). What `dlmp.create_label`
    /// and plugins pass (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        let probe = Label {
            id: MarkerId(1),
            spec: *self,
            attached: (AttachKind::None, 0),
            rev: EntityRev(0),
        };
        check::shows(&stream::show_packet(&probe))
    }
}

/// A label entity.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Label {
    pub id: MarkerId,
    pub spec: LabelSpec,
    /// `attach_kind` and `attach_id` on the wire, fixed when it was made.
    pub attached: (AttachKind, u32),
    /// Grows with every change; not on the wire (Label3D carries none): an edit session
    /// hands it to its editor in EditState (editing.md §1).
    pub rev: EntityRev,
}

/// The labels of this run by id.
#[derive(Resource, Debug, Default)]
pub struct Labels {
    by_id: HashMap<MarkerId, Entity>,
}

impl Labels {
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

/// A change of the label set, from a script or a Rust plugin (ids from
/// [`MarkerIds`](super::MarkerIds)); applied in [`GameplaySystems::Apply`], in order.
#[derive(Message, Debug, Clone, PartialEq)]
pub enum LabelCommand {
    Create {
        id: MarkerId,
        spec: LabelSpec,
        owner: Option<ResourceId>,
    },
    SetText {
        id: MarkerId,
        text: LabelText,
    },
    SetColor {
        id: MarkerId,
        color: u32,
    },
    /// A new position (the offset when attached).
    SetPosition {
        id: MarkerId,
        position: Vec3,
    },
    Destroy {
        id: MarkerId,
    },
}

impl LabelCommand {
    /// Whether the command may be applied: a created label's spec, a color, a position.
    /// Write it with `command.checked()?` (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        match self {
            LabelCommand::Create { spec, .. } => spec.check(),
            LabelCommand::SetColor { color, .. } => check::rgb("color", *color),
            LabelCommand::SetPosition { position, .. } => {
                check::world_point(["x", "y", "z"], *position)
            }
            LabelCommand::SetText { .. } | LabelCommand::Destroy { .. } => Ok(()),
        }
    }

    /// The command, or why it may not be applied.
    pub fn checked(self) -> Result<Self, WorldError> {
        self.check().map(|()| self)
    }
}

/// Adds 3D labels.
pub(crate) struct LabelPlugin;

impl Plugin for LabelPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Labels>()
            .init_resource::<LabelStream>()
            .add_message::<LabelCommand>()
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

/// Applies the tick's [`LabelCommand`]s. A change of a shown label is a show to everyone
/// it is shown to, as critical (nothing else would resend it) and coalesced per viewer (a
/// viewer that has not acknowledged the last change gets the label as it is once it has;
/// ADR 0092); a destroyed label is hidden by the next reconcile like any that left a set.
#[allow(clippy::too_many_arguments, reason = "a system's parameters")]
pub(crate) fn apply(
    mut commands: Commands,
    mut read: MessageReader<LabelCommand>,
    mut registry: ResMut<Labels>,
    mut labels: Query<&mut Label>,
    mut stream: ResMut<LabelStream>,
    parents: Parents,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut refusals: ResMut<WorldRefusals>,
) {
    for command in read.read() {
        if let Err(e) = command.check() {
            refusals.refuse("label", command, &e);
            continue;
        }
        // A text or a colour is no change of anybody's set: the critical show below is
        // all it sends.
        if !matches!(
            command,
            LabelCommand::SetText { .. } | LabelCommand::SetColor { .. }
        ) {
            stream.changed();
        }
        let id = match command {
            LabelCommand::Create { id, spec, owner } => {
                if registry.by_id.contains_key(id) {
                    debug!(id = id.0, "a label id created twice; ignored");
                    continue;
                }
                let attached = match spec.attach {
                    None => (AttachKind::None, 0),
                    Some(a) => match a
                        .vehicle_wire()
                        .or_else(|| parents.get(a).map(|p| (p.kind, p.wire_id)))
                    {
                        Some(wire) => wire,
                        None => {
                            debug!(id = id.0, "a label attached to an entity that is gone");
                            continue;
                        }
                    },
                };
                let mut entity = commands.spawn(Label {
                    id: *id,
                    spec: *spec,
                    attached,
                    rev: EntityRev(0),
                });
                if let Some(owner) = owner {
                    entity.insert(Owned(*owner));
                }
                registry.by_id.insert(*id, entity.id());
                continue;
            }
            LabelCommand::Destroy { id } => {
                if let Some(entity) = registry.by_id.remove(id) {
                    commands.entity(entity).despawn();
                }
                continue;
            }
            LabelCommand::SetText { id, .. }
            | LabelCommand::SetColor { id, .. }
            | LabelCommand::SetPosition { id, .. } => *id,
        };
        let Some(mut label) = registry.entity(id).and_then(|e| labels.get_mut(e).ok()) else {
            debug!(id = id.0, "a change of a label that is gone");
            continue;
        };
        match command {
            LabelCommand::SetText { text, .. } => label.spec.text = *text,
            LabelCommand::SetColor { color, .. } => label.spec.color = *color,
            LabelCommand::SetPosition { position, .. } => label.spec.position = *position,
            LabelCommand::Create { .. } | LabelCommand::Destroy { .. } => {}
        }
        label.rev = label.rev.next();
        let packet = stream::show_packet(&label).into();
        stream
            .shown_mut()
            .tell_change(id.0, &packet, &index, &mut connections);
    }
    stream
        .shown_mut()
        .flush_changes(&index, &mut connections, |key| {
            let label = labels.get(registry.entity(MarkerId(key))?).ok()?;
            Some(stream::show_packet(label).into())
        });
}

/// A label whose viewer or attached player left goes with it (world.md Label3D: "Deleting
/// the attached entity or the label's viewer deletes the label"); the others who saw it
/// get the hide from the next reconcile.
fn forget_left(
    mut commands: Commands,
    mut left: MessageReader<PlayerDisconnected>,
    mut registry: ResMut<Labels>,
    mut stream: ResMut<LabelStream>,
    labels: Query<(Entity, &Label)>,
) {
    let gone: Vec<Entity> = left.read().map(|d| d.player).collect();
    if gone.is_empty() {
        return;
    }
    stream.changed();
    for (entity, label) in &labels {
        let viewer = label.spec.viewer.is_some_and(|v| gone.contains(&v));
        let parent = label
            .spec
            .attach
            .is_some_and(|a| gone.iter().any(|&g| a.is_player(g)));
        if viewer || parent {
            registry.by_id.remove(&label.id);
            commands.entity(entity).despawn();
        }
    }
}

/// The labels attached to a vehicle removed this tick go with it.
fn forget_removed_vehicles(
    mut commands: Commands,
    mut removed: RemovedComponents<dlmp_vehicle::Vehicle>,
    mut registry: ResMut<Labels>,
    mut stream: ResMut<LabelStream>,
    labels: Query<(Entity, &Label)>,
    parents: Parents,
) {
    if removed.read().count() == 0 {
        return;
    }
    for (entity, label) in &labels {
        if parents.vehicle_gone(label.spec.attach) {
            stream.changed();
            registry.by_id.remove(&label.id);
            commands.entity(entity).despawn();
        }
    }
}

/// A stopped resource's labels were despawned (`despawn_owned`); their ids go too.
fn forget_stopped(
    mut stopped: MessageReader<ResourceStopped>,
    mut registry: ResMut<Labels>,
    mut stream: ResMut<LabelStream>,
    labels: Query<(), With<Label>>,
) {
    if stopped.read().count() > 0 {
        stream.changed();
        registry.by_id.retain(|_, e| labels.contains(*e));
    }
}
