//! The world as scripts see it (the Lua API answers reads from here): the clock, the
//! checkpoints, colshapes, gang zones, labels and blips that exist, each player's held waypoint, and the shared id
//! counters, so a `create_*` knows its id in the call (ADR 0029). Refreshed from the ECS
//! at the start of every script pass; a call's own creations and removals show at once.

use std::collections::HashMap;

use bevy_ecs::entity::{Entity, EntityHashMap};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use super::blip::Blip;
use super::checkpoint::{Checkpoint, CheckpointCrossed};
use super::clock::{ClockMode, Environment, WallClock};
use super::colshape::{Colshape, ColshapeCrossed};
use super::gang_zone::GangZone;
use super::label::Label;
use super::waypoint::{Waypoint, WaypointChanged};
use super::{ColshapeIds, MarkerIds};
use dlmp_protocol::world::markers::{ColshapeId, Shape};
use dlmp_protocol::world::shared::MarkerId;
use dlmp_protocol::world::waypoint::MapPoint;

/// A checkpoint as scripts see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointView {
    pub player: Entity,
    /// Made by a call since the last refresh: kept by the next one even before the ECS
    /// has it (its command applies after the pass).
    fresh: bool,
}

/// A colshape as scripts see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColshapeView {
    pub shape: Shape,
    /// Players inside, in the order they entered.
    pub inside: Vec<Entity>,
    fresh: bool,
}

/// The world part of the script state.
#[derive(Debug, Clone, Default)]
pub struct WorldView {
    pub clock: ClockMode,
    pub wall: WallClock,
    pub marker_ids: MarkerIds,
    pub colshape_ids: ColshapeIds,
    pub checkpoints: HashMap<MarkerId, CheckpointView>,
    pub colshapes: HashMap<ColshapeId, ColshapeView>,
    /// The gang zones that exist; `true` for one a call made since the last refresh.
    pub gang_zones: HashMap<MarkerId, bool>,
    /// The labels that exist, as `gang_zones`.
    pub labels: HashMap<MarkerId, bool>,
    /// The blips that exist, as `gang_zones`.
    pub blips: HashMap<MarkerId, bool>,
    /// Held waypoints of the players that have one.
    pub waypoints: EntityHashMap<MapPoint>,
    /// Removed by a call since the last refresh (their despawn applies after the pass).
    gone_checkpoints: Vec<MarkerId>,
    gone_colshapes: Vec<ColshapeId>,
    gone_gang_zones: Vec<MarkerId>,
    gone_labels: Vec<MarkerId>,
    gone_blips: Vec<MarkerId>,
}

impl WorldView {
    /// The view of a server whose counters are `marker_ids` and `colshape_ids`.
    pub fn new(marker_ids: MarkerIds, colshape_ids: ColshapeIds) -> Self {
        WorldView {
            marker_ids,
            colshape_ids,
            ..WorldView::default()
        }
    }

    /// A checkpoint a call made.
    pub fn add_checkpoint(&mut self, id: MarkerId, player: Entity) {
        self.checkpoints.insert(
            id,
            CheckpointView {
                player,
                fresh: true,
            },
        );
    }

    /// A colshape a call made.
    pub fn add_colshape(&mut self, id: ColshapeId, shape: Shape) {
        self.colshapes.insert(
            id,
            ColshapeView {
                shape,
                inside: Vec::new(),
                fresh: true,
            },
        );
    }

    /// A gang zone a call made.
    pub fn add_gang_zone(&mut self, id: MarkerId) {
        self.gang_zones.insert(id, true);
    }

    /// A gang zone a call removed; false if it did not exist.
    pub fn remove_gang_zone(&mut self, id: MarkerId) -> bool {
        self.gone_gang_zones.push(id);
        self.gang_zones.remove(&id).is_some()
    }

    /// A label a call made.
    pub fn add_label(&mut self, id: MarkerId) {
        self.labels.insert(id, true);
    }

    /// A label a call removed; false if it did not exist.
    pub fn remove_label(&mut self, id: MarkerId) -> bool {
        self.gone_labels.push(id);
        self.labels.remove(&id).is_some()
    }

    /// A blip a call made.
    pub fn add_blip(&mut self, id: MarkerId) {
        self.blips.insert(id, true);
    }

    /// A blip a call removed; false if it did not exist.
    pub fn remove_blip(&mut self, id: MarkerId) -> bool {
        self.gone_blips.push(id);
        self.blips.remove(&id).is_some()
    }

    /// A checkpoint a call removed; false if it did not exist.
    pub fn remove_checkpoint(&mut self, id: MarkerId) -> bool {
        self.gone_checkpoints.push(id);
        self.checkpoints.remove(&id).is_some()
    }

    /// A colshape a call removed; false if it did not exist.
    pub fn remove_colshape(&mut self, id: ColshapeId) -> bool {
        self.gone_colshapes.push(id);
        self.colshapes.remove(&id).is_some()
    }
}

/// What the refresh reads.
#[derive(SystemParam)]
pub struct WorldScriptParts<'w, 's> {
    env: Res<'w, Environment>,
    wall: Res<'w, WallClock>,
    checkpoints: Query<'w, 's, &'static Checkpoint>,
    colshapes: Query<'w, 's, &'static Colshape>,
    gang_zones: Query<'w, 's, &'static GangZone>,
    labels: Query<'w, 's, &'static Label>,
    blips: Query<'w, 's, &'static Blip>,
    waypoints: Query<'w, 's, (Entity, &'static Waypoint)>,
}

impl WorldScriptParts<'_, '_> {
    /// Rebuilds `view` from the ECS, keeping what calls made or removed since the last
    /// refresh until the ECS shows it.
    pub fn refresh(&self, view: &mut WorldView) {
        view.clock = self.env.clock;
        view.wall = self.wall.clone();
        let gone = std::mem::take(&mut view.gone_checkpoints);
        let mut checkpoints: HashMap<MarkerId, CheckpointView> = self
            .checkpoints
            .iter()
            .filter(|c| !gone.contains(&c.id))
            .map(|c| {
                let v = CheckpointView {
                    player: c.player,
                    fresh: false,
                };
                (c.id, v)
            })
            .collect();
        for (id, v) in view.checkpoints.drain() {
            if v.fresh {
                checkpoints
                    .entry(id)
                    .or_insert(CheckpointView { fresh: false, ..v });
            }
        }
        view.checkpoints = checkpoints;

        let gone = std::mem::take(&mut view.gone_colshapes);
        let mut colshapes: HashMap<ColshapeId, ColshapeView> = self
            .colshapes
            .iter()
            .filter(|c| !gone.contains(&c.id))
            .map(|c| {
                let v = ColshapeView {
                    shape: c.shape,
                    inside: c.inside.clone(),
                    fresh: false,
                };
                (c.id, v)
            })
            .collect();
        for (id, v) in view.colshapes.drain() {
            if v.fresh {
                colshapes
                    .entry(id)
                    .or_insert(ColshapeView { fresh: false, ..v });
            }
        }
        view.colshapes = colshapes;

        merge_ids(
            &mut view.gang_zones,
            &mut view.gone_gang_zones,
            self.gang_zones.iter().map(|z| z.id),
        );
        merge_ids(
            &mut view.labels,
            &mut view.gone_labels,
            self.labels.iter().map(|l| l.id),
        );
        merge_ids(
            &mut view.blips,
            &mut view.gone_blips,
            self.blips.iter().map(|b| b.id),
        );

        view.waypoints = self
            .waypoints
            .iter()
            .filter_map(|(e, w)| w.held.map(|p| (e, p)))
            .collect();
    }
}

/// The ids of a kind the ECS holds, less those a call removed since the last refresh, plus
/// those a call made (kept until the ECS has them).
fn merge_ids(
    view: &mut HashMap<MarkerId, bool>,
    gone: &mut Vec<MarkerId>,
    ecs: impl Iterator<Item = MarkerId>,
) {
    let gone = std::mem::take(gone);
    let mut ids: HashMap<MarkerId, bool> = ecs
        .filter(|id| !gone.contains(id))
        .map(|id| (id, false))
        .collect();
    for (id, fresh) in view.drain() {
        if fresh {
            ids.entry(id).or_insert(false);
        }
    }
    *view = ids;
}

/// A world event for scripts, before it becomes a [`ScriptEvent`](dlmp_script::ScriptEvent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldEvent {
    Checkpoint(CheckpointCrossed),
    Colshape(ColshapeCrossed),
    Waypoint(WaypointChanged),
}

/// The world's messages of this tick that scripts hear of.
#[derive(SystemParam)]
pub struct WorldEvents<'w, 's> {
    checkpoints: MessageReader<'w, 's, CheckpointCrossed>,
    colshapes: MessageReader<'w, 's, ColshapeCrossed>,
    waypoints: MessageReader<'w, 's, WaypointChanged>,
}

impl WorldEvents<'_, '_> {
    /// This tick's events: checkpoints, then colshapes, then waypoints, each in order.
    pub fn read(&mut self) -> Vec<WorldEvent> {
        let mut out: Vec<WorldEvent> = self
            .checkpoints
            .read()
            .copied()
            .map(WorldEvent::Checkpoint)
            .collect();
        out.extend(self.colshapes.read().copied().map(WorldEvent::Colshape));
        out.extend(self.waypoints.read().copied().map(WorldEvent::Waypoint));
        out
    }
}
