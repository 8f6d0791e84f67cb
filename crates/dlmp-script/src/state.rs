//! What the Lua side of the server holds between calls (Lua app data): the handlers,
//! timers and exports of every resource, the read-only view of the world the API answers
//! from, and the commands scripts issued, applied by the app after the call.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use bevy_ecs::entity::{Entity, EntityHashMap};
use bevy_ecs::message::Message;
use bevy_ecs::world::World;
use mlua::Function;

/// A running resource's number; never reused during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub u32);

/// `dlmp.on` registration.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub(crate) handle: u64,
    pub(crate) resource: ResourceId,
    pub(crate) func: Function,
}

/// `dlmp.add_command` registration.
#[derive(Debug, Clone)]
pub(crate) struct ChatCommand {
    pub(crate) handle: u64,
    pub(crate) resource: ResourceId,
    pub(crate) func: Function,
}

/// `dlmp.set_timer` registration.
#[derive(Debug, Clone)]
pub(crate) struct Timer {
    pub(crate) id: u64,
    pub(crate) resource: ResourceId,
    pub(crate) due: Duration,
    pub(crate) interval: Duration,
    /// Firings left; `None` = until stopped.
    pub(crate) remaining: Option<u32>,
    pub(crate) func: Function,
    /// The extra arguments of `dlmp.set_timer`, passed on every firing.
    pub(crate) args: Vec<mlua::Value>,
}

/// What a script asked the server to do: applied on the app's world after the call, in
/// the order the calls were made, in the same tick (before
/// [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply)). A feature's Lua
/// function checks what it can answer from its view and queues its command (or its
/// message, [`ScriptCommand::message`]), exactly what a Rust gameplay plugin would do
/// itself (lua-api.md, "Besides Lua").
pub struct ScriptCommand(Box<dyn FnOnce(&mut World) + Send + Sync>);

impl ScriptCommand {
    pub fn new(apply: impl FnOnce(&mut World) + Send + Sync + 'static) -> Self {
        ScriptCommand(Box::new(apply))
    }

    /// Writes `message` for the feature's systems in `GameplaySystems::Apply`.
    pub fn message<M: Message>(message: M) -> Self {
        ScriptCommand::new(move |world: &mut World| {
            world.write_message(message);
        })
    }

    /// Applies the command.
    pub fn apply(self, world: &mut World) {
        (self.0)(world);
    }
}

impl std::fmt::Debug for ScriptCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScriptCommand")
    }
}

/// The Lua app data.
#[derive(Debug, Default)]
pub struct ScriptState {
    pub(crate) handlers: HashMap<String, Vec<Handler>>,
    pub(crate) timers: Vec<Timer>,
    pub(crate) exports: HashMap<(String, String), Function>,
    /// `dlmp.add_command`, by command name.
    pub(crate) chat_commands: HashMap<String, ChatCommand>,
    pub(crate) resource_names: BTreeMap<ResourceId, String>,
    /// The folder of each running resource (`dlmp.load_map` reads its files).
    pub(crate) resource_dirs: BTreeMap<ResourceId, std::path::PathBuf>,
    pub(crate) next_handle: u64,
    pub(crate) now: Duration,
    pub(crate) commands: Vec<ScriptCommand>,
    /// Every event name the API knows (the host's own and the crates' registered ones).
    pub(crate) event_names: Vec<&'static str>,
    /// `player:uid()` of each entity that was asked for one (ADR 0035).
    pub(crate) uids: EntityHashMap<u64>,
    /// How the fetch worker connects (the config's `fetch_ca_file`).
    pub(crate) fetch_settings: super::fetch::FetchSettings,
    /// The fetch worker, started by the first `dlmp.fetch`.
    pub(crate) fetch: Option<super::fetch::Client>,
    /// Pending `dlmp.fetch` callbacks, by request id.
    pub(crate) fetches: HashMap<u64, (ResourceId, Function)>,
    /// Answers taken from the worker, not yet delivered.
    pub(crate) answers: Vec<super::fetch::Answer>,
    pub(crate) last_uid: u64,
    /// Errors of handlers that `dlmp.emit` ran inside another call, where the host's own
    /// count cannot be reached; [`ScriptHost::errors`] adds them (ADR 0042).
    ///
    /// [`ScriptHost::errors`]: super::host::ScriptHost::errors
    pub(crate) emit_errors: u64,
}

impl ScriptState {
    pub fn next_handle(&mut self) -> u64 {
        self.next_handle += 1;
        self.next_handle
    }

    /// The entity's unique id, never given to another during the run.
    pub fn uid(&mut self, entity: Entity) -> u64 {
        let next = self.last_uid + 1;
        let uid = *self.uids.entry(entity).or_insert(next);
        self.last_uid = self.last_uid.max(uid);
        uid
    }

    /// Removes everything `resource` registered.
    pub(crate) fn forget(&mut self, resource: ResourceId) {
        for list in self.handlers.values_mut() {
            list.retain(|h| h.resource != resource);
        }
        self.handlers.retain(|_, list| !list.is_empty());
        self.timers.retain(|t| t.resource != resource);
        self.chat_commands.retain(|_, c| c.resource != resource);
        self.fetches.retain(|_, (owner, _)| *owner != resource);
        self.resource_dirs.remove(&resource);
        if let Some(name) = self.resource_names.remove(&resource) {
            self.exports.retain(|(owner, _), _| *owner != name);
        }
    }

    /// The script clock: the time of this tick's pass.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// Queues `command` after the ones the calls before queued.
    pub fn queue(&mut self, command: ScriptCommand) {
        self.commands.push(command);
    }
}
