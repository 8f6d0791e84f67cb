//! Players carried by moving objects (world.md ObjectState: "a player standing on a moving
//! object is carried by their own client, and their frames carry that position"). The
//! server knows no object's shape, so a living player near a moving free object is taken
//! as possibly on it: its movement check also judges each frame from the start carried
//! along at the object's velocity ([`Movement::carried_by`], ADR 0091). A body beside the
//! object keeps its own start; one on it is no longer held back.
//!
//! [`Movement::carried_by`]: dlmp_player::frame::movement::Movement::carried_by

use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::Object;
use dlmp_core::position::{Position, Scope};
use dlmp_player::Life;
use dlmp_player::frame::FrameState;
use dlmp_protocol::geometry::Vec3;

/// A player this near a moving object horizontally may stand on it, m: the widest
/// platforms of the model table (a ship's deck) reach about this far from their origin.
pub const CARRY_REACH: f32 = 40.0;
/// ... and this near vertically, m.
pub const CARRY_HEIGHT: f32 = 15.0;

/// Each tick: the living players near a moving free object are carried by it.
pub(super) fn carry_players(
    time: Res<Time>,
    objects: Query<&Object>,
    mut players: Query<(&Position, &Scope, &Life, &mut FrameState)>,
) {
    let now = time.elapsed();
    let moving: Vec<(Vec3, Vec3, Scope)> = objects
        .iter()
        .filter(|o| o.attachment.is_none())
        .filter_map(|o| {
            let m = o
                .motion
                .filter(|m| !m.ended(now) && !m.duration.is_zero())?;
            let secs = m.duration.as_secs_f32();
            let (a, b) = (m.from.position, m.to.position);
            let velocity = Vec3::new((b.x - a.x) / secs, (b.y - a.y) / secs, (b.z - a.z) / secs);
            Some((o.pose_at(now).position, velocity, o.scope))
        })
        .collect();
    if moving.is_empty() {
        return;
    }
    for (position, scope, life, mut state) in &mut players {
        if !(life.spawned && life.alive) {
            continue;
        }
        let p = position.0;
        let carrier = moving.iter().find(|(at, _, s)| {
            s == scope
                && (p.x - at.x).hypot(p.y - at.y) <= CARRY_REACH
                && (p.z - at.z).abs() <= CARRY_HEIGHT
        });
        if let Some(&(_, velocity, _)) = carrier {
            state.movement.carried_by(velocity, now);
        }
    }
}
