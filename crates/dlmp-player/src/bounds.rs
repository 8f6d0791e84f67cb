//! SetWorldBounds (player.md): a rectangle that holds the player's own body. Stored in
//! [`FrameState::bounds`], where frame admission clamps every on-foot frame with it; it
//! survives death and respawn (nothing here resets it) and a new connection starts with the
//! whole world (`FrameState::default`). Decisions: docs/decisions/0015-teleport-and-physics.md.

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use super::frame::{Bounds, FrameState};
use dlmp_core::owner::command_owner;
use dlmp_core::session::Connection;
use dlmp_core::tick::GameplaySystems;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::player::control::{MAX_WORLD_COORD, SetWorldBounds};

/// Why a rectangle is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundsRefusal {
    NotFinite,
    /// A bound beyond ±6000.
    OutsideWorld,
    /// min_x >= max_x or min_y >= max_y.
    Empty,
}

impl Bounds {
    /// A rectangle the client accepts: finite, each bound within ±6000, min < max.
    pub fn new(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Result<Bounds, BoundsRefusal> {
        let all = [min_x, min_y, max_x, max_y];
        if !all.iter().all(|v| v.is_finite()) {
            return Err(BoundsRefusal::NotFinite);
        }
        if !all.iter().all(|v| v.abs() <= MAX_WORLD_COORD) {
            return Err(BoundsRefusal::OutsideWorld);
        }
        if min_x >= max_x || min_y >= max_y {
            return Err(BoundsRefusal::Empty);
        }
        Ok(Bounds {
            min_x,
            min_y,
            max_x,
            max_y,
        })
    }

    /// `p` held inside the rectangle horizontally (z is free): where the server takes a
    /// point the bounds leave outside (player.md, SetWorldBounds and the Admission bullet:
    /// "start the movement check from the edge").
    pub fn clamp(&self, p: Vec3) -> Vec3 {
        Vec3::new(
            p.x.clamp(self.min_x, self.max_x),
            p.y.clamp(self.min_y, self.max_y),
            p.z,
        )
    }

    /// The packet that sets `bounds` (`None`: the whole world, zeros).
    pub fn packet(bounds: Option<Bounds>) -> SetWorldBounds {
        let b = bounds.unwrap_or(Bounds {
            min_x: 0.0,
            min_y: 0.0,
            max_x: 0.0,
            max_y: 0.0,
        });
        SetWorldBounds {
            event_id: EventId(0),
            enabled: bounds.is_some(),
            min_x: b.min_x,
            min_y: b.min_y,
            max_x: b.max_x,
            max_y: b.max_y,
        }
    }
}

/// Sets (`Some`) or clears (`None`) a player's world bounds. Any connected player: set
/// before the spawn, the bounds hold from it.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct SetBounds {
    pub player: Entity,
    pub bounds: Option<Bounds>,
}

pub(crate) struct BoundsPlugin;

impl Plugin for BoundsPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<SetBounds>()
            .add_systems(FixedUpdate, set_bounds.in_set(GameplaySystems::Apply));
    }
}

fn set_bounds(
    mut sets: MessageReader<SetBounds>,
    mut players: Query<(&mut FrameState, &mut Connection)>,
) {
    for s in sets.read() {
        let Ok((mut state, mut conn)) = players.get_mut(s.player) else {
            continue;
        };
        let checked = s
            .bounds
            .map(|b| Bounds::new(b.min_x, b.min_y, b.max_x, b.max_y))
            .transpose();
        let bounds = match checked {
            Ok(b) => b,
            Err(reason) => {
                debug!(player = ?s.player, ?reason, "world bounds refused");
                continue;
            }
        };
        if command_owner(&mut conn, Bounds::packet(bounds)).is_ok() {
            state.bounds = bounds;
            // The freeze holds after the bounds: a hold point left outside would pull the
            // frames back out.
            if let (Some(b), Some(anchor)) = (bounds, &mut state.frozen) {
                *anchor = b.clamp(*anchor);
            }
        }
    }
}
