//! What a Rust gameplay plugin needs, in one `use dlmp::prelude::*;`: the tick's system
//! sets, the components of players, vehicles and the world's kinds, the messages features
//! announce and the commands they take, the helpers that send to a player, and plugin
//! settings. See the crate page for a walk-through.
//!
//! Names two kinds share carry their kind here: a vehicle's [`VehiclePose`], [`VehicleLife`]
//! and [`VehicleHealth`], an object's [`ObjectPose`].

pub use bevy_app::{App, FixedUpdate, Plugin};
pub use bevy_ecs::prelude::*;

pub use crate::server::{PluginSettings, Server, plugin_settings};
pub use dlmp_core::position::{Position, Scope};
pub use dlmp_core::session::{
    Connection, EndSession, Name, Player, PlayerConnected, PlayerDisconnected, PlayerIndex,
    Received,
};
pub use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
pub use dlmp_core::viewers::Viewers;
pub use dlmp_ops::config::Config;
pub use dlmp_player::admission::{
    AdmissionRefused, CheatSuspected, CheatVerdict, RateLimit, RefusalKind, RefusalReason,
};
pub use dlmp_player::chat::{PlayerChat, notify, say};
pub use dlmp_player::ledger::LedgerEvent;
pub use dlmp_player::{
    Body, Inventory, LastFrame, Ledger, Life, RespawnGranted, SpawnGranted, SpawnState, Team,
};
pub use dlmp_protocol::connection::handshake::LeaveReason;
pub use dlmp_protocol::geometry::Vec3;
pub use dlmp_protocol::ids::{PlayerId, PlayerToken, VehicleId};
pub use dlmp_protocol::player::sync::Keys;
// Vehicles (vehicles.md): their components, the gamemode's commands (what the Lua API
// queues), and what seats, syncers and explosions announce.
pub use dlmp_vehicle::life::VehicleDied;
pub use dlmp_vehicle::syncer::SyncerChanged;
pub use dlmp_vehicle::{
    Health as VehicleHealth, Life as VehicleLife, Occupant, Pose as VehiclePose, SeatChanged,
    SeatCommand, Seated, Seats, Syncer, Vehicle, VehicleCommand, VehicleError, VehicleModels,
    VehicleScope, VehicleSpec, Vehicles, create_vehicle, destroy_vehicle,
};
// The world's kinds (world.md): their components, the gamemode's commands and what
// players crossing or touching them announce.
pub use dlmp_world::blip::{Blip, BlipCommand, BlipSpec};
pub use dlmp_world::check::{WorldError, WorldRefusals};
pub use dlmp_world::checkpoint::{
    Checkpoint, CheckpointCommand, CheckpointCrossed, CheckpointSpec,
};
pub use dlmp_world::clock::{Environment, EnvironmentCommand, Recipients, TimeOfDay};
pub use dlmp_world::colshape::{Colshape, ColshapeCommand, ColshapeCrossed};
pub use dlmp_world::gang_zone::{GangZone, GangZoneCommand, GangZoneSpec};
pub use dlmp_world::label::{Label, LabelCommand, LabelSpec};
pub use dlmp_world::object::{
    Object, ObjectCommand, ObjectId, ObjectMoveEnded, ObjectSpec, Objects, Pose as ObjectPose,
    create_object,
};
pub use dlmp_world::pickup::{Pickup, PickupCommand, PickupInteracted, PickupSpec};
pub use dlmp_world::waypoint::{Waypoint, WaypointChanged, WaypointCommand};
