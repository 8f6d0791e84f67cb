//! Lua gamemodes (lua-api.md): resources, events, timers and the core API. The VM lives
//! on the simulation thread; scripts run in [`GameplaySystems::Scripts`] of every tick,
//! see a consistent view of the world, and their commands apply in the same tick.

pub mod api;
mod deferred;
pub mod events;
pub mod fetch;
pub mod host;
pub mod manifest;
pub mod ownership;
pub mod sandbox;
pub mod state;
mod systems;

pub use events::{Outcome, ScriptEvent};
pub use host::{ResourceError, ScriptHost, ScriptLimits, ScriptStats};
pub use ownership::{Owned, ResourceStopped};
pub use state::{PlayerView, ResourceId, ScriptCommand};
pub use systems::{REFUSALS_PER_SECOND, ScriptPlugin, ScriptSettings};

#[allow(unused_imports, reason = "the set scripts run in")]
use dlmp_core::tick::GameplaySystems;
