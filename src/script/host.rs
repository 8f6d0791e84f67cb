//! The Lua VM of the server and its resources (lua-api.md, "Resources"): starting,
//! stopping and restarting resources, dispatching events to their handlers, firing
//! timers, all behind an instruction budget so that no script stops the server.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use bevy_ecs::entity::Entity;
use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};
use tracing::{error, info, warn};

use super::api;
use super::events::{Outcome, ScriptEvent};
use super::manifest::{ResourceDir, discover};
use super::state::{PlayerView, ResourceId, ScriptCommand, ScriptState};

/// Instructions between two budget checks.
const HOOK_EVERY: u32 = 1000;

/// Why a resource did not start or stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceError {
    NotFound(String),
    AlreadyRunning(String),
    NotRunning(String),
    DependencyCycle(String),
    /// The main file failed: read error, syntax error, runtime error.
    Failed {
        resource: String,
        error: String,
    },
}

impl std::fmt::Display for ResourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResourceError::NotFound(n) => write!(f, "no resource named {n}"),
            ResourceError::AlreadyRunning(n) => write!(f, "{n} is already running"),
            ResourceError::NotRunning(n) => write!(f, "{n} is not running"),
            ResourceError::DependencyCycle(n) => write!(f, "{n} depends on itself"),
            ResourceError::Failed { resource, error } => {
                write!(f, "{resource} failed to start: {error}")
            }
        }
    }
}

impl std::error::Error for ResourceError {}

/// A running resource.
#[derive(Debug)]
struct Running {
    id: ResourceId,
    dir: ResourceDir,
}

/// The server's Lua VM: non-`Send`, kept as non-send data of the app.
pub struct ScriptHost {
    lua: Lua,
    scripts: PathBuf,
    budget: u64,
    remaining: Rc<Cell<i64>>,
    running: BTreeMap<String, Running>,
    /// Resources stopped since the app last removed what they owned.
    stopped: Vec<ResourceId>,
    next_id: u32,
    errors: u64,
    /// `emit`'s snapshot of the handlers it runs, kept for its allocation.
    dispatch: Vec<(ResourceId, Function)>,
}

impl std::fmt::Debug for ScriptHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptHost")
            .field("scripts", &self.scripts)
            .field("running", &self.running.keys())
            .finish()
    }
}

impl ScriptHost {
    /// A VM with Lua's safe standard libraries (no `os.exit`, `os.execute`, `io.popen`)
    /// and `budget` instructions per call.
    pub fn new(scripts: PathBuf, budget: u64) -> mlua::Result<Self> {
        let lua = Lua::new_with(StdLib::ALL_SAFE, LuaOptions::default())?;
        let os: Table = lua.globals().get("os")?;
        for unsafe_fn in [
            "exit",
            "execute",
            "remove",
            "rename",
            "tmpname",
            "setlocale",
        ] {
            os.set(unsafe_fn, Value::Nil)?;
        }
        let io: Table = lua.globals().get("io")?;
        io.set("popen", Value::Nil)?;
        lua.set_app_data(ScriptState::default());
        let remaining = Rc::new(Cell::new(i64::MAX));
        let counter = remaining.clone();
        lua.set_global_hook(
            HookTriggers::new().every_nth_instruction(HOOK_EVERY),
            move |_, _| {
                let left = counter.get() - i64::from(HOOK_EVERY);
                counter.set(left);
                if left < 0 {
                    Err(mlua::Error::runtime(
                        "instruction budget exceeded (a runaway loop?)",
                    ))
                } else {
                    Ok(VmState::Continue)
                }
            },
        )?;
        Ok(ScriptHost {
            lua,
            scripts,
            budget,
            remaining,
            running: BTreeMap::new(),
            stopped: Vec::new(),
            next_id: 0,
            errors: 0,
            dispatch: Vec::new(),
        })
    }

    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    /// Script errors logged so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// Names of the running resources.
    pub fn running(&self) -> impl Iterator<Item = &str> {
        self.running.keys().map(String::as_str)
    }

    /// Every resource on disk with its state.
    pub fn available(&self) -> Vec<(String, bool)> {
        let (found, _) = discover(&self.scripts);
        found
            .into_keys()
            .map(|n| {
                let on = self.running.contains_key(&n);
                (n, on)
            })
            .collect()
    }

    /// Replaces the players scripts see (the view `dlmp.players()` and player handles
    /// answer from) with `players`. The app rebuilds this view at the start of every
    /// script pass; this is for driving a host without the app (benchmarks, tests).
    pub fn set_players(&self, players: impl IntoIterator<Item = (Entity, PlayerView)>) {
        let mut state = self.state_mut();
        state.players.clear();
        state.players.extend(players);
    }

    pub(crate) fn state(&self) -> mlua::AppDataRef<'_, ScriptState> {
        self.lua
            .app_data_ref::<ScriptState>()
            .expect("set in ScriptHost::new")
    }

    pub(crate) fn state_mut(&self) -> mlua::AppDataRefMut<'_, ScriptState> {
        self.lua
            .app_data_mut::<ScriptState>()
            .expect("set in ScriptHost::new")
    }

    /// Runs `f` with a fresh instruction budget.
    fn guarded<R>(&mut self, f: impl FnOnce(&Lua) -> mlua::Result<R>) -> mlua::Result<R> {
        self.remaining
            .set(i64::try_from(self.budget).unwrap_or(i64::MAX));
        let result = f(&self.lua);
        self.remaining.set(i64::MAX);
        result
    }

    /// Runs `f` on behalf of `resource` with a fresh instruction budget, logging its error
    /// with the resource's name (database callbacks, [`super::api::db`]).
    pub(crate) fn call_for(
        &mut self,
        resource: ResourceId,
        what: &str,
        f: impl FnOnce(&Lua) -> mlua::Result<()>,
    ) {
        if let Err(e) = self.guarded(f) {
            let name = self.resource_name(resource);
            self.log_error(&name, what, &e);
        }
    }

    fn log_error(&mut self, resource: &str, what: &str, e: &mlua::Error) {
        self.errors += 1;
        error!(resource, "{what}: {e}");
    }

    /// Starts `name` and, first, what it depends on; every resource hears
    /// `resource_start(name)` for each one started.
    pub fn start(&mut self, name: &str) -> Result<(), ResourceError> {
        if self.running.contains_key(name) {
            return Err(ResourceError::AlreadyRunning(name.to_owned()));
        }
        let (found, problems) = discover(&self.scripts);
        for p in problems {
            warn!("{p}");
        }
        self.start_with(name, &found, &mut Vec::new())
    }

    fn start_with(
        &mut self,
        name: &str,
        found: &BTreeMap<String, ResourceDir>,
        path: &mut Vec<String>,
    ) -> Result<(), ResourceError> {
        if self.running.contains_key(name) {
            return Ok(());
        }
        if path.iter().any(|p| p == name) {
            return Err(ResourceError::DependencyCycle(name.to_owned()));
        }
        let dir = found
            .get(name)
            .cloned()
            .ok_or_else(|| ResourceError::NotFound(name.to_owned()))?;
        path.push(name.to_owned());
        for dep in &dir.manifest.depends {
            self.start_with(dep, found, path)?;
        }
        path.pop();

        let failed = |error: String| ResourceError::Failed {
            resource: name.to_owned(),
            error,
        };
        let code = std::fs::read_to_string(dir.main_path())
            .map_err(|e| failed(format!("{}: {e}", dir.main_path().display())))?;
        self.next_id += 1;
        let id = ResourceId(self.next_id);
        self.state_mut().resource_names.insert(id, name.to_owned());
        let chunk_name = format!("@{}/{}", name, dir.manifest.main);
        let loaded = self.guarded(|lua| {
            let env = lua.create_table()?;
            let meta = lua.create_table()?;
            meta.set("__index", lua.globals())?;
            env.set_metatable(Some(meta))?;
            env.set("dlmp", api::install(lua, id, name)?)?;
            lua.load(&code)
                .set_name(chunk_name)
                .set_environment(env)
                .exec()
        });
        if let Err(e) = loaded {
            self.state_mut().forget(id);
            self.errors += 1;
            return Err(failed(e.to_string()));
        }
        info!(resource = name, "resource started");
        self.running.insert(name.to_owned(), Running { id, dir });
        self.emit(&ScriptEvent::ResourceStart {
            name: name.to_owned(),
        });
        Ok(())
    }

    /// Stops `name` (and first every running resource that depends on it): it hears
    /// `resource_stop(name)`, then its handlers, timers and exports are removed.
    pub fn stop(&mut self, name: &str) -> Result<(), ResourceError> {
        if !self.running.contains_key(name) {
            return Err(ResourceError::NotRunning(name.to_owned()));
        }
        let dependents: Vec<String> = self
            .running
            .iter()
            .filter(|(_, r)| r.dir.manifest.depends.iter().any(|d| d == name))
            .map(|(n, _)| n.clone())
            .collect();
        for dependent in dependents {
            if self.running.contains_key(&dependent) {
                self.stop(&dependent)?;
            }
        }
        self.emit(&ScriptEvent::ResourceStop {
            name: name.to_owned(),
        });
        if let Some(running) = self.running.remove(name) {
            self.state_mut().forget(running.id);
            self.stopped.push(running.id);
        }
        info!(resource = name, "resource stopped");
        Ok(())
    }

    /// Stops `name` and starts it again from disk, so changed code is reloaded.
    pub fn restart(&mut self, name: &str) -> Result<(), ResourceError> {
        self.stop(name)?;
        self.start(name)
    }

    /// Starts `names`, or every resource on disk when empty; failures are logged.
    pub fn start_all(&mut self, names: &[String]) {
        let names: Vec<String> = if names.is_empty() {
            let (found, _) = discover(&self.scripts);
            found.into_keys().collect()
        } else {
            names.to_vec()
        };
        for name in names {
            if let Err(e) = self.start(&name)
                && !matches!(e, ResourceError::AlreadyRunning(_))
            {
                self.errors += 1;
                error!("{e}");
            }
        }
    }

    fn resource_name(&self, id: ResourceId) -> String {
        self.state()
            .resource_names
            .get(&id)
            .cloned()
            .unwrap_or_default()
    }

    /// Runs every handler of `event` in the order they were added. A handler's error is
    /// logged with its resource and traceback; the others still run.
    pub fn emit(&mut self, event: &ScriptEvent) -> Outcome {
        // The handlers as they are now: one may add or remove handlers while it runs. The
        // snapshot goes in a buffer kept between calls, so dispatching does not allocate.
        {
            let state = self
                .lua
                .app_data_ref::<ScriptState>()
                .expect("set in ScriptHost::new");
            let Some(list) = state.handlers.get(event.name()) else {
                return Outcome::default();
            };
            self.dispatch
                .extend(list.iter().map(|h| (h.resource, h.func.clone())));
        }
        let mut handlers = std::mem::take(&mut self.dispatch);
        let mut outcome = Outcome::default();
        for (resource, func) in handlers.drain(..) {
            outcome.handlers += 1;
            let result = self.guarded(|_| event.call(&func));
            match result {
                Ok(Value::Boolean(false)) => outcome.refused = true,
                Ok(Value::Boolean(true)) => outcome.handled = true,
                Ok(_) => {}
                Err(e) => {
                    let name = self.resource_name(resource);
                    self.log_error(&name, event.name(), &e);
                }
            }
        }
        self.dispatch = handlers;
        outcome
    }

    /// Whether any handler listens to `event`.
    pub fn listens(&self, event: &str) -> bool {
        self.state().handlers.contains_key(event)
    }

    /// Sets the script clock and fires the timers due by `now`, earliest first.
    pub fn run_timers(&mut self, now: Duration) {
        // Timers set during this pass wait for the next one, so a timer that re-arms
        // itself at 0 ms cannot keep the tick from ending.
        let newest = {
            let mut state = self.state_mut();
            state.now = now;
            state.next_handle
        };
        loop {
            let next = {
                let state = self.state();
                state
                    .timers
                    .iter()
                    .filter(|t| t.due <= now && t.id <= newest)
                    .min_by_key(|t| (t.due, t.id))
                    .map(|t| t.id)
            };
            let Some(id) = next else { break };
            let (resource, func) = {
                let mut state = self.state_mut();
                let Some(i) = state.timers.iter().position(|t| t.id == id) else {
                    break;
                };
                let timer = &mut state.timers[i];
                let fired = (timer.resource, timer.func.clone());
                if timer.repeating {
                    // A repeating timer fires at most once per tick.
                    timer.due = (timer.due + timer.interval).max(now + Duration::from_nanos(1));
                } else {
                    state.timers.remove(i);
                }
                fired
            };
            if let Err(e) = self.guarded(|_| func.call::<()>(())) {
                let name = self.resource_name(resource);
                self.log_error(&name, "timer", &e);
            }
        }
    }

    /// The id of a running resource.
    pub fn resource_id(&self, name: &str) -> Option<ResourceId> {
        self.running.get(name).map(|r| r.id)
    }

    /// Resources stopped since the last call: the app removes what they owned.
    pub fn take_stopped(&mut self) -> Vec<ResourceId> {
        std::mem::take(&mut self.stopped)
    }

    /// The commands scripts issued since the last call.
    pub fn take_commands(&mut self) -> Vec<ScriptCommand> {
        std::mem::take(&mut self.state_mut().commands)
    }
}
