//! The Lua host of the DLMP server (lua-api.md): the VM, resources and their manifests, the
//! sandbox, events, timers, entity handles, argument checking, `dlmp.fetch`, and the
//! registry through which every feature crate adds its own functions, handle methods,
//! events and views ([`ScriptApi`]). The VM lives on the simulation thread; scripts run in
//! [`GameplaySystems::Scripts`](dlmp_core::tick::GameplaySystems::Scripts) of every tick,
//! see a consistent view of the world, and their commands apply in the same tick.
//!
//! The host names no feature: it knows the core ([`dlmp_core`]) and below, never the
//! players, the world, the vehicles or operations, which register with it from above.

pub mod api;
mod deferred;
pub mod events;
pub mod fetch;
pub mod host;
pub mod manifest;
pub mod ownership;
pub mod registry;
pub mod sandbox;
pub mod state;
mod systems;

pub use events::{
    Arg, EventGuard, EventHandle, EventPlace, Handle, Outcome, ScriptEvent, ScriptEvents,
};
pub use host::{ResourceError, ScriptHost, ScriptLimits, ScriptStats};
pub use ownership::{Owned, ReleaseOwned, ResourceStopped};
pub use registry::{ResourceContext, ScriptApi};
pub use state::{ResourceId, ScriptCommand};
pub use systems::{ScriptPlugin, ScriptSettings, ScriptSystems};
