//! What a Rust gameplay plugin needs, in one `use dlmp::prelude::*;`: the tick's system
//! sets, the player's components, the messages features announce, the helpers that send
//! to a player, and plugin settings. See the crate page for a walk-through.

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
    Body, Inventory, LastFrame, Ledger, RespawnGranted, SpawnGranted, SpawnState, Team,
};
pub use dlmp_protocol::connection::handshake::LeaveReason;
pub use dlmp_protocol::geometry::Vec3;
pub use dlmp_protocol::ids::PlayerId;
pub use dlmp_protocol::player::sync::Keys;
// The world kinds (world.md) as they landed: their components, the gamemode's commands
// and what players crossing or touching them announce.
pub use dlmp_world::checkpoint::{Checkpoint, CheckpointCommand, CheckpointCrossed};
pub use dlmp_world::clock::{Environment, EnvironmentCommand};
pub use dlmp_world::colshape::{Colshape, ColshapeCommand, ColshapeCrossed};
pub use dlmp_world::gang_zone::{GangZone, GangZoneCommand};
pub use dlmp_world::pickup::{Pickup, PickupCommand, PickupInteracted};
pub use dlmp_world::waypoint::{Waypoint, WaypointChanged, WaypointCommand};
