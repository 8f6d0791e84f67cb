//! What a Rust gameplay plugin needs, in one `use dlmp::prelude::*;`: the tick's system
//! sets, the player's components, the messages features announce, the helpers that send
//! to a player, and plugin settings. See the crate page for a walk-through.

pub use bevy_app::{App, FixedUpdate, Plugin};
pub use bevy_ecs::prelude::*;

pub use crate::chat::{PlayerChat, notify, say};
pub use crate::config::Config;
pub use crate::player::admission::{
    AdmissionRefused, CheatSuspected, CheatVerdict, RateLimit, RefusalKind, RefusalReason,
};
pub use crate::player::ledger::LedgerEvent;
pub use crate::player::{
    Body, Inventory, LastFrame, Ledger, Position, RespawnGranted, Scope, SpawnGranted, SpawnState,
    Team, Viewers,
};
pub use crate::protocol::connection::handshake::LeaveReason;
pub use crate::protocol::geometry::Vec3;
pub use crate::protocol::ids::PlayerId;
pub use crate::protocol::player::sync::Keys;
pub use crate::server::{PluginSettings, Server, plugin_settings};
pub use crate::session::{
    Connection, EndSession, Name, Player, PlayerConnected, PlayerDisconnected, PlayerIndex,
    Received,
};
pub use crate::tick::{GameplaySystems, ServerSystems, StreamingSystems};
// The world kinds (world.md) as they landed: their components, the gamemode's commands
// and what players crossing or touching them announce.
pub use crate::world::checkpoint::{Checkpoint, CheckpointCommand, CheckpointCrossed};
pub use crate::world::clock::{Environment, EnvironmentCommand};
pub use crate::world::colshape::{Colshape, ColshapeCommand, ColshapeCrossed};
pub use crate::world::gang_zone::{GangZone, GangZoneCommand};
pub use crate::world::pickup::{Pickup, PickupCommand, PickupInteracted};
pub use crate::world::waypoint::{Waypoint, WaypointChanged, WaypointCommand};
