//! The world of world.md: pickups, the clock and weather, garage doors, 3D labels,
//! checkpoints, blips, gang zones, colshapes and waypoints. One plugin per kind, each in
//! its own module; [`WorldPlugin`] adds them all.

mod marker_ids;
pub mod pickup;

use bevy_app::{App, Plugin};

pub use marker_ids::MarkerIds;

/// Adds the world features to the app.
pub struct WorldPlugin;

impl Plugin for WorldPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<MarkerIds>()
            .add_plugins(pickup::PickupPlugin);
    }
}
