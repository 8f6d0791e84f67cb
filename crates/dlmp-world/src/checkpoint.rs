//! Checkpoints (world.md Checkpoint): per player, up to 16, shown while the player is in
//! the checkpoint's scope; entry and exit computed by the server from the last accepted
//! position of a living, spawned player, within 20 crossings at once and 4 a second per
//! connection. Decisions: ADR 0029.
//!
//! The player keeps what it was shown and where it stands inside ([`PlayerCheckpoints`]),
//! so a checkpoint that is gone (destroyed, its resource stopped) is hidden by the same
//! reconcile that hides one out of scope, and its exit raises nothing.

use std::collections::HashMap;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use dlmp_core::position::Scope;
use dlmp_core::session::{Connection, PlayerConnected, PlayerDisconnected, RateLimit, TokenBucket};
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_net::lane::Delivery;
use dlmp_player::{Life, ReportedPosition, SpawnState};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::world::markers::{Checkpoint as CheckpointPacket, CheckpointKind};
use dlmp_protocol::world::shared::MarkerId;
use dlmp_script::{Owned, ResourceId};

use crate::check::{self, WorldError, WorldRefusals};

/// Checkpoints one player may have (world.md Checkpoint).
pub const MAX_PER_PLAYER: usize = 16;
/// Crossings per connection: 20 at once, 4 a second; past it the check waits.
pub const CROSSINGS: RateLimit = RateLimit::per_second(20, 4);
/// A ground checkpoint reaches at least this far up and down.
pub const GROUND_REACH_MIN: f32 = 5.0;

/// A checkpoint's form and place.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointSpec {
    pub kind: CheckpointKind,
    pub pos: Vec3,
    /// Where it points; `pos` when there is no next point.
    pub next: Vec3,
    /// (0, 100].
    pub radius: f32,
    /// 0xRRGGBB.
    pub color: u32,
    pub scope: Scope,
}

impl CheckpointSpec {
    /// Whether `p` is inside: a ground checkpoint is a cylinder of `radius` reaching
    /// max(radius, 5) up and down, an air one a sphere.
    pub fn contains(&self, p: Vec3) -> bool {
        let (dx, dy, dz) = (p.x - self.pos.x, p.y - self.pos.y, p.z - self.pos.z);
        match self.kind {
            CheckpointKind::Air | CheckpointKind::AirFinish => {
                dx * dx + dy * dy + dz * dz <= self.radius * self.radius
            }
            _ => {
                dx * dx + dy * dy <= self.radius * self.radius
                    && dz.abs() <= self.radius.max(GROUND_REACH_MIN)
            }
        }
    }

    /// Whether a checkpoint of this spec can be shown (world.md Checkpoint: pos and next
    /// within world bounds, radius in (0, 100], the color). What `dlmp.create_checkpoint`
    /// and plugins pass (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        check::shows(&self.show(MarkerId(1)))
    }

    fn show(&self, id: MarkerId) -> CheckpointPacket {
        CheckpointPacket {
            event_id: EventId(0),
            checkpoint_id: id,
            active: true,
            kind: self.kind,
            pos: self.pos,
            next: self.next,
            radius: self.radius,
            color: self.color,
        }
    }
}

/// A checkpoint of one player.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Checkpoint {
    pub id: MarkerId,
    pub player: Entity,
    pub spec: CheckpointSpec,
}

/// What a player was shown of its checkpoints and which it stands in.
#[derive(Component, Debug, Clone)]
pub struct PlayerCheckpoints {
    shown: Vec<MarkerId>,
    inside: Vec<MarkerId>,
    crossings: TokenBucket,
}

impl PlayerCheckpoints {
    /// The checkpoints the player is shown now.
    pub fn shown(&self) -> &[MarkerId] {
        &self.shown
    }

    /// The checkpoints the player stands in, as the last crossings left it.
    pub fn inside(&self) -> &[MarkerId] {
        &self.inside
    }
}

/// The gamemode's checkpoint commands; `dlmp.create_checkpoint` and `:destroy()` write
/// them (ADR 0011).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum CheckpointCommand {
    /// A new checkpoint `id` (from [`MarkerIds`](super::MarkerIds)) for `player`, owned by
    /// `owner` if a resource made it. Refused past 16 for the player.
    Create {
        id: MarkerId,
        player: Entity,
        spec: CheckpointSpec,
        owner: Option<ResourceId>,
    },
    /// Removes it: hidden from its player, without `checkpoint_leave`.
    Destroy { id: MarkerId },
}

impl CheckpointCommand {
    /// Whether the command may be applied: a created checkpoint's spec. Write it with
    /// `command.checked()?` (ADR 0090).
    pub fn check(&self) -> Result<(), WorldError> {
        match self {
            CheckpointCommand::Create { spec, .. } => spec.check(),
            CheckpointCommand::Destroy { .. } => Ok(()),
        }
    }

    /// The command, or why it may not be applied.
    pub fn checked(self) -> Result<Self, WorldError> {
        self.check().map(|()| self)
    }
}

/// A player entered or left one of its checkpoints.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointCrossed {
    pub player: Entity,
    pub checkpoint: MarkerId,
    pub entered: bool,
}

pub(crate) struct CheckpointPlugin;

impl Plugin for CheckpointPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<CheckpointCommand>()
            .add_message::<CheckpointCrossed>()
            .add_systems(FixedUpdate, give_state.in_set(ServerSystems::Validation))
            .add_systems(FixedUpdate, cross.in_set(GameplaySystems::Intake))
            .add_systems(
                FixedUpdate,
                (apply_commands, forget_leavers)
                    .chain()
                    .in_set(GameplaySystems::Apply),
            )
            .add_systems(FixedUpdate, reconcile.in_set(StreamingSystems::Reconcile));
    }
}

fn give_state(
    mut commands: Commands,
    mut connected: MessageReader<PlayerConnected>,
    time: Res<Time>,
) {
    for c in connected.read() {
        commands.entity(c.player).insert(PlayerCheckpoints {
            shown: Vec::new(),
            inside: Vec::new(),
            crossings: TokenBucket::new(CROSSINGS, time.elapsed()),
        });
    }
}

fn apply_commands(
    mut commands: Commands,
    mut orders: MessageReader<CheckpointCommand>,
    checkpoints: Query<(Entity, &Checkpoint)>,
    players: Query<(), With<PlayerCheckpoints>>,
    mut refusals: ResMut<WorldRefusals>,
) {
    // Made by this pass's orders: spawned at the end, so a destroy in the same call finds
    // them.
    let mut fresh: Vec<(Checkpoint, Option<ResourceId>)> = Vec::new();
    let mut removed: Vec<MarkerId> = Vec::new();
    for order in orders.read() {
        if let Err(e) = order.check() {
            refusals.refuse("checkpoint", order, &e);
            continue;
        }
        match *order {
            CheckpointCommand::Create {
                id,
                player,
                spec,
                owner,
            } => {
                let existing = checkpoints
                    .iter()
                    .filter(|(_, c)| c.player == player && !removed.contains(&c.id))
                    .count()
                    + fresh.iter().filter(|(c, _)| c.player == player).count();
                if !players.contains(player) || existing >= MAX_PER_PLAYER {
                    debug!(
                        ?player,
                        ?id,
                        "checkpoint refused (player gone or 16 already)"
                    );
                    continue;
                }
                fresh.push((Checkpoint { id, player, spec }, owner));
            }
            CheckpointCommand::Destroy { id } => {
                removed.push(id);
                fresh.retain(|(c, _)| c.id != id);
                for (entity, c) in &checkpoints {
                    if c.id == id {
                        commands.entity(entity).despawn();
                    }
                }
            }
        }
    }
    for (checkpoint, owner) in fresh {
        let mut entity = commands.spawn(checkpoint);
        if let Some(owner) = owner {
            entity.insert(Owned(owner));
        }
    }
}

/// A player's checkpoints go with it, without events or packets.
fn forget_leavers(
    mut commands: Commands,
    mut left: MessageReader<PlayerDisconnected>,
    checkpoints: Query<(Entity, &Checkpoint)>,
) {
    for d in left.read() {
        for (entity, c) in &checkpoints {
            if c.player == d.player {
                commands.entity(entity).despawn();
            }
        }
    }
}

/// The checkpoints of each player, by id.
fn by_player(checkpoints: &Query<&Checkpoint>) -> HashMap<Entity, Vec<Checkpoint>> {
    let mut map: HashMap<Entity, Vec<Checkpoint>> = HashMap::new();
    for c in checkpoints {
        map.entry(c.player).or_default().push(*c);
    }
    for list in map.values_mut() {
        list.sort_by_key(|c| c.id);
    }
    map
}

/// Where a living, spawned player's game last put it in this life
/// ([`ReportedPosition`]), once its first frame of the life came (world.md Checkpoint); a
/// teleport counts from the first frame after it. `None` while dead or unconfirmed.
pub(crate) fn living_at(
    life: &Life,
    spawn: &SpawnState,
    reported: &ReportedPosition,
) -> Option<Vec3> {
    (life.spawned && life.alive && spawn.life_confirmed)
        .then_some(reported.0)
        .flatten()
}

/// Entries and exits from the last accepted position; death, another scope and a
/// checkpoint that is gone count as outside (the gone one silently). A crossing past the
/// limit is not taken: the next pass checks it again.
fn cross(
    checkpoints: Query<&Checkpoint>,
    mut players: Query<(
        Entity,
        &mut PlayerCheckpoints,
        &Life,
        &SpawnState,
        &ReportedPosition,
        &Scope,
    )>,
    mut crossed: MessageWriter<CheckpointCrossed>,
    time: Res<Time>,
) {
    let now = time.elapsed();
    let mine = by_player(&checkpoints);
    let none = Vec::new();
    for (player, mut state, life, spawn, reported, scope) in &mut players {
        let list = mine.get(&player).unwrap_or(&none);
        state.inside.retain(|id| list.iter().any(|c| c.id == *id));
        for c in list {
            let inside = living_at(life, spawn, reported)
                .is_some_and(|at| c.spec.scope == *scope && c.spec.contains(at));
            let was = state.inside.contains(&c.id);
            if inside == was || !state.crossings.try_take(now) {
                continue;
            }
            if inside {
                state.inside.push(c.id);
            } else {
                state.inside.retain(|id| *id != c.id);
            }
            crossed.write(CheckpointCrossed {
                player,
                checkpoint: c.id,
                entered: inside,
            });
        }
    }
}

/// Shows each player its checkpoints in its scope and hides the others and those gone.
/// Droppable: what the lane refused stays unshown (or shown) and goes on the next pass.
fn reconcile(
    checkpoints: Query<&Checkpoint>,
    mut players: Query<(Entity, &mut PlayerCheckpoints, &Scope, &mut Connection)>,
) {
    let mine = by_player(&checkpoints);
    let none = Vec::new();
    for (player, mut state, scope, mut conn) in &mut players {
        let list = mine.get(&player).unwrap_or(&none);
        let wanted = |id: MarkerId| list.iter().any(|c| c.id == id && c.spec.scope == *scope);
        let shown = std::mem::take(&mut state.shown);
        for id in shown {
            let kept = wanted(id)
                || conn
                    .send_event(CheckpointPacket::hide(EventId(0), id), Delivery::Droppable)
                    .is_err();
            if kept {
                state.shown.push(id);
            }
        }
        for c in list {
            if c.spec.scope != *scope || state.shown.contains(&c.id) {
                continue;
            }
            if conn
                .send_event(c.spec.show(c.id), Delivery::Droppable)
                .is_ok()
            {
                state.shown.push(c.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: CheckpointKind, radius: f32) -> CheckpointSpec {
        CheckpointSpec {
            kind,
            pos: Vec3::new(0.0, 0.0, 10.0),
            next: Vec3::new(0.0, 0.0, 10.0),
            radius,
            color: 0xFF0000,
            scope: Scope::default(),
        }
    }

    #[test]
    fn a_ground_checkpoint_reaches_max_radius_5_up_and_down() {
        let small = spec(CheckpointKind::Normal, 2.0);
        assert!(small.contains(Vec3::new(2.0, 0.0, 15.0)));
        assert!(small.contains(Vec3::new(0.0, 0.0, 5.0)));
        assert!(!small.contains(Vec3::new(0.0, 0.0, 15.1)));
        assert!(!small.contains(Vec3::new(2.1, 0.0, 10.0)));
        let big = spec(CheckpointKind::Race, 8.0);
        assert!(big.contains(Vec3::new(0.0, 0.0, 18.0)));
        assert!(!big.contains(Vec3::new(0.0, 0.0, 18.1)));
    }

    #[test]
    fn an_air_checkpoint_is_a_sphere() {
        let air = spec(CheckpointKind::Air, 8.0);
        assert!(air.contains(Vec3::new(0.0, 0.0, 18.0)));
        assert!(!air.contains(Vec3::new(6.0, 0.0, 16.0)));
        assert!(air.contains(Vec3::new(4.0, 0.0, 14.0)));
    }
}
