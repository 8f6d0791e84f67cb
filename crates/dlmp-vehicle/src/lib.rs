//! Vehicles on the DLMP server (vehicles.md): server-owned vehicle entities, their
//! streaming, seats and jacking, and the player rules that wait for seats (player.md). The
//! frames, the relay and the syncer election build on these components. Each part is a
//! bevy plugin ([`VehiclePlugin`] adds them all), with its Lua API ([`lua`]).
//!
//! This crate builds on the players ([`dlmp_player`]) and never knows the world or
//! operations above it; what the player side reads of a vehicle lives in the core
//! ([`dlmp_core::vehicle`]) and is re-exported here.
//!
//! - [`models`]: the per-model table (`assets/vehicles.tsv`): class, seats, siren, name;
//!   [`model_script`]: its names in the Lua API.
//! - [`components`]: a vehicle entity's components and the player's [`Seated`].
//! - [`lifecycle`]: create and destroy, ids, the resource as cleanup owner.
//! - [`life`]: explosion, death, kill credit, respawn.
//! - [`stream`]: the reconcile on the engine, with seated players in one transition.
//! - [`seats`]: VehicleEnter / VehicleExit, jacking, the server's seating, lost seats.
//! - [`reset`]: what ends a hitch, a winch load or a remote driver.
//! - [`event_limit`]: the vehicle events of a connection judged in lane order, with their
//!   shared rate limit.
//! - [`params`]: VehicleParams, VehicleControl and VehicleColors.
//! - [`script`]: the Lua API's reads and commands; [`lua`]: its registration and events.
//! - [`frame`]: VehicleFrame acceptance, the field rules, RemoteVehicleFrame.
//! - [`syncer`]: the syncer election.
//! - [`damage`]: VehicleDamage, the health and damage commands.
//! - [`transform`]: VehicleTransform, the gamemode's pose and freeze.
//! - [`remote`]: RC vehicles driven remotely; [`weapon`]: VehicleShot and its relay.
//! - [`tow`], [`winch`]: hitches and winch loads.
//! - [`tuning`]: tuning, nitro charges and handling.

pub mod components;
pub mod damage;
pub mod event_limit;
pub mod frame;
pub mod life;
pub mod lifecycle;
pub mod lua;
pub mod model_script;
pub mod models;
pub mod params;
pub mod remote;
pub mod reset;
pub mod script;
pub mod seats;
pub mod stream;
pub mod syncer;
pub mod tow;
pub mod train;
pub mod transform;
pub mod tuning;
pub mod weapon;
pub mod winch;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use dlmp_core::tick::{GameplaySystems, StreamingSystems};
use dlmp_player::teleport::MoveSystems;

pub use components::{
    Colors, Damage, DamageRev, Frozen, Health, HealthRev, Hitch, Occupant, Params, Part,
    PlayerParams, PoseRev, RelaySerial, Remote, Revisions, Seats, ShowTail, SirenRev, SpawnPoint,
    Syncer, Train, Vehicle, VehicleScope,
};
/// The vehicle's components the player side reads too, kept in the core (vehicles.md).
pub use dlmp_core::vehicle::{Life, Pose, Seated, Vehicles};
pub use lifecycle::{VehicleCommand, VehicleError, VehicleSpec, create_vehicle, destroy_vehicle};
pub use models::{ModelInfo, VehicleClass, VehicleModels};
pub use reset::{ResetKind, VehicleReset};
pub use seats::{Deny, Jacking, JackingCommand, SeatChanged, SeatCommand, SeatStats};
pub use stream::{STREAM_DISTANCE, VehicleStream};

/// Where vehicles change, inside [`GameplaySystems::Apply`]: the scripts' creates and
/// destroys (a destroyed vehicle's seats freed first), then the seats: waiting requests,
/// the server's seating.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VehicleSystems {
    Lifecycle,
    Seats,
}

/// Adds vehicles.
pub struct VehiclePlugin;

impl Plugin for VehiclePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(damage::VehicleDamagePlugin);
        app.add_plugins(transform::TransformPlugin);
        app.add_plugins(train::TrainPlugin);
        app.add_plugins((remote::RemotePlugin, weapon::VehicleWeaponPlugin));
        app.add_plugins(life::VehicleLifePlugin);
        app.add_plugins(tuning::TuningPlugin);
        app.add_plugins(lua::VehicleScriptPlugin);
        app.insert_resource(VehicleModels::load())
            .init_resource::<Vehicles>()
            .init_resource::<VehicleStream>()
            .init_resource::<Jacking>()
            .init_resource::<SeatStats>()
            .init_resource::<seats::PendingEnters>()
            .init_resource::<event_limit::VehicleLane>()
            .add_message::<VehicleCommand>()
            .add_message::<SeatCommand>()
            .add_message::<SeatChanged>()
            .add_message::<JackingCommand>()
            .add_message::<VehicleReset>()
            .add_plugins((tow::TowPlugin, winch::WinchPlugin))
            .configure_sets(
                FixedUpdate,
                (VehicleSystems::Lifecycle, VehicleSystems::Seats)
                    .chain()
                    .in_set(GameplaySystems::Apply)
                    .before(MoveSystems::Unseat),
            )
            .add_systems(
                FixedUpdate,
                (
                    (event_limit::give, event_limit::judge)
                        .chain()
                        .in_set(dlmp_core::tick::ServerSystems::Validation),
                    (seats::free_lost_seats, seats::intake, script::refresh_view)
                        .chain()
                        .in_set(GameplaySystems::Intake),
                    (
                        seats::empty_destroyed,
                        lifecycle::apply,
                        lifecycle::forget_despawned,
                    )
                        .chain()
                        .in_set(VehicleSystems::Lifecycle),
                    // The gamemode's seat calls of the tick before the waiting requests
                    // (vehicles.md: the server checks everything again after the handlers).
                    (
                        seats::apply_jacking,
                        seats::apply_commands,
                        seats::seat_pending,
                    )
                        .chain()
                        .in_set(VehicleSystems::Seats),
                    seats::unseat_moved.in_set(MoveSystems::Unseat),
                    seats::empty_owned.in_set(dlmp_script::ReleaseOwned),
                    (stream::reconcile, stream::keep_overrides)
                        .chain()
                        .in_set(StreamingSystems::Reconcile)
                        .before(dlmp_player::stream::reconcile),
                ),
            );
        app.add_plugins(params::ParamsPlugin);
    }
}
