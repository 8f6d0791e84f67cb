//! Vehicle parameters, the driver's keys and colors (vehicles.md VehicleParams,
//! VehicleControl, VehicleColors; ADR 0062).
//!
//! - [`rules`]: what one change does, the classes that carry a siren or a winch, doors.
//! - [`command`]: the gamemode's [`ParamsCommand`]s applied in order, each vehicle told
//!   once a tick; a leaver's own parameters removed.
//! - [`notify`]: the one VehicleParams builder and who is told of a change.
//! - [`control`]: VehicleControl's checks, `vehicle_control`, the key applied as a command.
//! - [`colors`]: VehicleColors, the repaint.
//! - [`script`]: the `dlmp.set_vehicle_*` functions of these.

pub mod colors;
pub mod command;
pub mod control;
pub mod notify;
pub mod rules;
pub mod script;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::VehicleSystems;
use dlmp_core::tick::GameplaySystems;

pub use colors::{ColorStats, ColorsCommand};
pub use command::{ParamStats, ParamsCommand};
pub use control::{ControlDrop, ControlStats};
pub use rules::{ParamChange, Winch};

/// Adds parameters, VehicleControl and colors.
pub struct ParamsPlugin;

impl Plugin for ParamsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ParamStats>()
            .init_resource::<ControlStats>()
            .init_resource::<ColorStats>()
            .init_resource::<control::PendingControls>()
            .init_resource::<command::Touched>()
            .add_message::<ParamsCommand>()
            .add_message::<ColorsCommand>()
            .add_systems(
                FixedUpdate,
                (
                    control::intake
                        .in_set(GameplaySystems::Intake)
                        .before(super::seats::intake),
                    (
                        command::apply,
                        control::apply,
                        command::tell,
                        colors::apply,
                        command::forget_leavers,
                    )
                        .chain()
                        .in_set(GameplaySystems::Apply)
                        .after(VehicleSystems::Lifecycle)
                        .before(VehicleSystems::Seats),
                ),
            );
    }
}
