//! The Lua VM of the server and its resources (lua-api.md, "Resources"): starting,
//! stopping and restarting resources, dispatching events to their handlers, firing
//! timers, all behind limits so that no script stops the server (ADR 0021): an
//! instruction budget per call, a memory limit for the VM, a wall-time budget for all the
//! calls of a tick, and a back-off for handlers and timers that keep failing.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use bevy_ecs::entity::Entity;
use mlua::{Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};
use tracing::{debug, error, info, warn};

use super::api;
use super::deferred::{Deferred, MAX_DEFERRED};
use super::events::{Arg, Outcome, ScriptEvent, host_events};
use super::manifest::{ResourceDir, discover};
use super::registry::ScriptApi;
use super::sandbox;
use super::state::{ResourceId, ScriptCommand, ScriptState};

/// Instructions between two checks of the instruction budget and the tick's time.
const HOOK_EVERY: u32 = 1000;

/// Consecutive errors after which a handler or a timer is suspended (ADR 0021).
pub const FAILURES_BEFORE_BACKOFF: u32 = 5;
/// The first suspension; each further one in a row doubles it, up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The limits every script call runs under (lua-api.md, "Resources": a runaway script
/// never stops the server; ADR 0021).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptLimits {
    /// Lua instructions one call may run before it is cut off.
    pub instruction_budget: u64,
    /// Bytes the Lua VM may hold, all resources together (they share one state); an
    /// allocation past it fails the call that made it. 0 = no limit.
    pub memory: usize,
    /// Wall time all the script calls of one tick may take together; past it, each call
    /// is cut off at its next check ([`ScriptHost::begin_tick`]).
    pub tick_time: Duration,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            instruction_budget: 5_000_000,
            memory: 128 << 20,
            tick_time: Duration::from_millis(20),
        }
    }
}

/// What the VM's limits stopped since the start, for the stats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptStats {
    /// Calls cut off because the tick's scripts ran past `tick_time`.
    pub time_cutoffs: u64,
    /// Calls failed by the memory limit.
    pub memory_errors: u64,
    /// Suspensions of a handler or a timer that kept failing.
    pub suspensions: u64,
    /// Calls not made because their handler or timer was suspended.
    pub skipped: u64,
    /// Admission refusals not raised to scripts (past `REFUSALS_PER_SECOND` a player).
    pub refusals_dropped: u64,
    /// Notifications that waited for a later tick: the tick's time was spent (ADR 0082).
    pub deferred: u64,
    /// Notifications dropped, oldest first, past `MAX_DEFERRED` waiting.
    pub deferred_dropped: u64,
    /// Events not raised because their guard no longer held (a touch of a pickup an
    /// earlier handler collected).
    pub moot: u64,
}

/// The script clock: monotonic wall time. A test injects its own
/// ([`ScriptHost::set_clock`]), so the time budget never depends on the machine's speed.
type Clock = Box<dyn Fn() -> Duration>;

/// What the instruction hook checks, shared with it.
struct Guard {
    remaining: Cell<i64>,
    /// The clock reading past which this tick's calls are cut off.
    deadline: Cell<Option<Duration>>,
    clock: RefCell<Clock>,
    /// The hook cut the running call off for time.
    timed_out: Cell<bool>,
}

impl Guard {
    fn now(&self) -> Duration {
        (self.clock.borrow())()
    }
}

/// A handler or timer whose last calls failed.
#[derive(Debug, Clone, Copy)]
struct Failing {
    resource: ResourceId,
    streak: u32,
    backoff: Duration,
    /// Script time until which it is not called.
    until: Duration,
}

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
    limits: ScriptLimits,
    guard: Rc<Guard>,
    /// Handlers (by handle) and timers (by id) whose last calls failed.
    failing: HashMap<u64, Failing>,
    stats: ScriptStats,
    /// A time cut-off was logged this tick: the further ones only count.
    cut_logged: bool,
    running: BTreeMap<String, Running>,
    /// Resources stopped since the app last removed what they owned.
    stopped: Vec<ResourceId>,
    next_id: u32,
    errors: u64,
    /// Script-clock time each resource's calls took since the last
    /// [`take_script_time`](ScriptHost::take_script_time) (the metrics, issue 17).
    time: HashMap<ResourceId, Duration>,
    /// `emit`'s snapshot of the handlers it runs (resource, handle, function), kept for
    /// its allocation.
    dispatch: Vec<(ResourceId, u64, Function)>,
    /// Lua's own `io.open` and `io.lines`, which only the sandbox's wrappers call.
    io_open: Function,
    io_lines: Function,
    /// The server's data folder scripts reach as `$data/...` (ADR 0035).
    data_dir: Option<PathBuf>,
    /// Notifications waiting for a tick with time left (ADR 0082).
    deferred: Deferred,
    /// What the feature crates added to the API.
    api: std::sync::Arc<ScriptApi>,
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
    /// under `limits`, with the host's own API only (tests, benchmarks).
    pub fn new(scripts: PathBuf, limits: ScriptLimits) -> mlua::Result<Self> {
        Self::with_api(scripts, limits, ScriptApi::default())
    }

    /// A VM as [`new`](Self::new) makes it, with what the feature crates added to the
    /// API.
    pub fn with_api(scripts: PathBuf, limits: ScriptLimits, api: ScriptApi) -> mlua::Result<Self> {
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
        let io_open: Function = io.get("open")?;
        let io_lines: Function = io.get("lines")?;
        sandbox::strip_globals(&lua)?;
        api.register_types(&lua)?;
        let mut event_names = host_events::NAMES.to_vec();
        event_names.extend_from_slice(api.event_names());
        lua.set_app_data(ScriptState {
            event_names,
            ..ScriptState::default()
        });
        if limits.memory > 0 {
            lua.set_memory_limit(limits.memory)?;
        }
        let start = std::time::Instant::now();
        let guard = Rc::new(Guard {
            remaining: Cell::new(i64::MAX),
            deadline: Cell::new(None),
            clock: RefCell::new(Box::new(move || start.elapsed())),
            timed_out: Cell::new(false),
        });
        let hook = guard.clone();
        let tick_ms = limits.tick_time.as_millis();
        lua.set_global_hook(
            HookTriggers::new().every_nth_instruction(HOOK_EVERY),
            move |_, _| {
                let left = hook.remaining.get() - i64::from(HOOK_EVERY);
                hook.remaining.set(left);
                if left < 0 {
                    return Err(mlua::Error::runtime(
                        "instruction budget exceeded (a runaway loop?)",
                    ));
                }
                if hook.deadline.get().is_some_and(|d| hook.now() > d) {
                    hook.timed_out.set(true);
                    return Err(mlua::Error::runtime(format!(
                        "tick time budget exceeded: the scripts of this tick ran past {tick_ms} ms"
                    )));
                }
                Ok(VmState::Continue)
            },
        )?;
        Ok(ScriptHost {
            lua,
            scripts,
            limits,
            guard,
            failing: HashMap::new(),
            stats: ScriptStats::default(),
            cut_logged: false,
            running: BTreeMap::new(),
            stopped: Vec::new(),
            next_id: 0,
            errors: 0,
            time: HashMap::new(),
            dispatch: Vec::new(),
            io_open,
            io_lines,
            data_dir: None,
            deferred: Deferred::default(),
            api: std::sync::Arc::new(api),
        })
    }

    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    /// Script errors so far, those of handlers run by `dlmp.emit` included.
    pub fn errors(&self) -> u64 {
        self.errors + self.state().emit_errors
    }

    /// The time each running resource's calls took since the last take, by resource name
    /// (handlers, timers and database callbacks, on the script clock).
    pub fn take_script_time(&mut self) -> Vec<(String, Duration)> {
        let time = std::mem::take(&mut self.time);
        let state = self.state();
        time.into_iter()
            .filter_map(|(id, d)| state.resource_names.get(&id).map(|n| (n.clone(), d)))
            .collect()
    }

    /// Runs `f` under [`guarded`](Self::guarded) and charges its time to `resource`.
    fn timed<R>(
        &mut self,
        resource: ResourceId,
        f: impl FnOnce(&Lua) -> mlua::Result<R>,
    ) -> mlua::Result<R> {
        let started = self.guard.now();
        let result = self.guarded(f);
        let took = self.guard.now().saturating_sub(started);
        *self.time.entry(resource).or_default() += took;
        result
    }

    /// What the limits stopped so far.
    pub fn stats(&self) -> ScriptStats {
        self.stats
    }

    /// Counts an admission refusal the rate limit kept from the scripts.
    pub fn count_dropped_refusal(&mut self) {
        self.stats.refusals_dropped += 1;
    }

    /// Bytes the Lua VM holds now.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Replaces the wall clock the tick's time budget is measured with (monotonic).
    pub fn set_clock(&mut self, clock: impl Fn() -> Duration + 'static) {
        *self.guard.clock.borrow_mut() = Box::new(clock);
    }

    /// Starts the tick's time budget: every call from now until [`end_tick`] shares
    /// `tick_time`; past it each call is cut off at its next check.
    ///
    /// [`end_tick`]: Self::end_tick
    pub fn begin_tick(&mut self) {
        let deadline = self.guard.now() + self.limits.tick_time;
        self.guard.deadline.set(Some(deadline));
        self.cut_logged = false;
    }

    /// Whether too little of this tick's script time is left to start a call that may
    /// wait (a notification, a timer): under a quarter of the budget, so that the call
    /// started last usually ends before the deadline instead of being cut off (ADR 0082).
    fn budget_spent(&self) -> bool {
        let reserve = self.limits.tick_time / 4;
        self.guard
            .deadline
            .get()
            .is_some_and(|d| self.guard.now() + reserve > d)
    }

    /// Raises a notification: an event whose handlers' answer nobody waits for. Once the
    /// tick's script time is spent it waits, in order, for the next tick
    /// ([`emit_deferred`](Self::emit_deferred)); so does every one after it while any
    /// waits (ADR 0082).
    pub fn notify(&mut self, event: ScriptEvent) {
        if self.deferred.is_empty() && !self.budget_spent() {
            self.emit(&event);
            return;
        }
        self.stats.deferred += 1;
        if self.deferred.push(event) {
            self.stats.deferred_dropped += 1;
            warn!(
                "a script notification waiting for a later tick was dropped: more than {MAX_DEFERRED} wait"
            );
        }
    }

    /// Raises the notifications that waited, oldest first, while the tick's script time
    /// lasts. A `player_disconnect` that ran lets its player's view and data go.
    pub fn emit_deferred(&mut self) {
        // The queue is asked first: an empty one costs no clock reading.
        while !self.deferred.is_empty() && !self.budget_spent() {
            let Some(event) = self.deferred.pop() else {
                break;
            };
            self.emit(&event);
            if let Some(entity) = event.releases()
                && !self.deferred.awaits_release(entity)
            {
                self.forget_entity(entity);
            }
        }
    }

    /// Notifications waiting for a tick with time left.
    pub fn notifications_waiting(&self) -> usize {
        self.deferred.len()
    }

    /// Whether an event that lets `entity` go (its `player_disconnect`) still waits for a
    /// tick: its view and its script data stay until it ran.
    pub fn awaits_release(&self, entity: Entity) -> bool {
        self.deferred.awaits_release(entity)
    }

    /// Ends the tick's time budget: calls outside a tick (resource starts from the
    /// console) have none.
    pub fn end_tick(&mut self) {
        self.guard.deadline.set(None);
    }

    /// The server's data folder, which scripts reach as `$data/...` besides their own
    /// folder; none until set (the config's data folder, when the server has one).
    pub fn set_data_dir(&mut self, dir: Option<PathBuf>) {
        self.data_dir = dir;
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

    pub fn state(&self) -> mlua::AppDataRef<'_, ScriptState> {
        self.lua
            .app_data_ref::<ScriptState>()
            .expect("set in ScriptHost::new")
    }

    pub fn state_mut(&self) -> mlua::AppDataRefMut<'_, ScriptState> {
        self.lua
            .app_data_mut::<ScriptState>()
            .expect("set in ScriptHost::new")
    }

    /// Runs `f` with a fresh instruction budget. A memory error is counted and logged
    /// with the VM's use, and a full collection gives the next calls what it can.
    fn guarded<R>(&mut self, f: impl FnOnce(&Lua) -> mlua::Result<R>) -> mlua::Result<R> {
        self.guard
            .remaining
            .set(i64::try_from(self.limits.instruction_budget).unwrap_or(i64::MAX));
        self.guard.timed_out.set(false);
        let result = f(&self.lua);
        self.guard.remaining.set(i64::MAX);
        if let Err(e) = &result
            && is_memory_error(e)
        {
            self.stats.memory_errors += 1;
            let _ = self.lua.gc_collect();
        }
        result
    }

    /// Runs `f` on behalf of `resource` with a fresh instruction budget, logging its error
    /// with the resource's name (the database callbacks of operations).
    pub fn call_for(
        &mut self,
        resource: ResourceId,
        what: &str,
        f: impl FnOnce(&Lua) -> mlua::Result<()>,
    ) {
        if let Err(e) = self.timed(resource, f) {
            let name = self.resource_name(resource);
            self.log_error(&name, what, &e);
        }
    }

    /// Logs a failed call of `resource`, naming what ran (ADR 0021): a time cut-off
    /// once per tick (the further ones are counted), a memory error with the VM's use.
    fn log_error(&mut self, resource: &str, what: &str, e: &mlua::Error) {
        self.errors += 1;
        if self.guard.timed_out.get() {
            self.stats.time_cutoffs += 1;
            if std::mem::replace(&mut self.cut_logged, true) {
                debug!(resource, "{what}: {e}");
            } else {
                error!(resource, "{what}: {e}");
            }
        } else if is_memory_error(e) {
            error!(
                resource,
                used_mib = self.lua.used_memory() >> 20,
                limit_mib = self.limits.memory >> 20,
                "{what}: the Lua VM's memory limit refused an allocation: {e}"
            );
        } else {
            error!(resource, "{what}: {e}");
        }
    }

    /// Whether the handler or timer `key` is suspended at script time `now`.
    fn suspended(&mut self, key: u64, now: Duration) -> bool {
        let skip = self.failing.get(&key).is_some_and(|f| now < f.until);
        if skip {
            self.stats.skipped += 1;
        }
        skip
    }

    /// Runs the handler or timer `key` of `resource` (`what` names it in logs), unless
    /// it is suspended; an error is logged, and after [`FAILURES_BEFORE_BACKOFF`] in a
    /// row the handler or timer is suspended for [`FIRST_BACKOFF`], doubled on each
    /// further suspension in a row, with one log line instead of the error's.
    fn call<R>(
        &mut self,
        (resource, key): (ResourceId, u64),
        what: &str,
        f: impl FnOnce(&Lua) -> mlua::Result<R>,
    ) -> Option<R> {
        let now = self.state().now;
        if self.suspended(key, now) {
            return None;
        }
        match self.timed(resource, f) {
            Ok(r) => {
                self.failing.remove(&key);
                Some(r)
            }
            // A call cut off by the tick's time did not fail by itself: the back-off is
            // for calls that fail (ADR 0082).
            Err(e) if self.guard.timed_out.get() => {
                let name = self.resource_name(resource);
                self.log_error(&name, what, &e);
                None
            }
            Err(e) => {
                let name = self.resource_name(resource);
                let failing = self.failing.entry(key).or_insert(Failing {
                    resource,
                    streak: 0,
                    backoff: Duration::ZERO,
                    until: Duration::ZERO,
                });
                failing.streak += 1;
                if failing.streak < FAILURES_BEFORE_BACKOFF {
                    self.log_error(&name, what, &e);
                    return None;
                }
                failing.backoff = if failing.backoff.is_zero() {
                    FIRST_BACKOFF
                } else {
                    (failing.backoff * 2).min(MAX_BACKOFF)
                };
                failing.until = now + failing.backoff;
                let (streak, backoff) = (failing.streak, failing.backoff);
                self.errors += 1;
                self.stats.suspensions += 1;
                warn!(
                    resource = name,
                    "{what} failed {streak} times in a row, suspended for {backoff:?}: {e}"
                );
                None
            }
        }
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
        let roots = sandbox::Roots {
            resource: dir.dir.clone(),
            data: self.data_dir.clone(),
        };
        // The listed files, then the main file, each read from inside the folder.
        let mut chunks = Vec::new();
        for file in dir.manifest.files.iter().chain([&dir.manifest.main]) {
            let path = roots
                .resolve(file)
                .map_err(|e| failed(format!("manifest: {e}")))?;
            let code = std::fs::read_to_string(&path)
                .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            chunks.push((format!("@{name}/{file}"), code));
        }
        self.next_id += 1;
        let id = ResourceId(self.next_id);
        self.state_mut().resource_names.insert(id, name.to_owned());
        self.state_mut().resource_dirs.insert(id, dir.dir.clone());
        let (open, lines) = (self.io_open.clone(), self.io_lines.clone());
        let api = std::sync::Arc::clone(&self.api);
        let loaded = self.guarded(|lua| {
            let env = lua.create_table()?;
            let meta = lua.create_table()?;
            meta.set("__index", lua.globals())?;
            env.set_metatable(Some(meta))?;
            env.set("dlmp", api::install(lua, &api, id, name)?)?;
            sandbox::install(lua, &env, roots, &open, &lines)?;
            for (chunk_name, code) in &chunks {
                lua.load(code)
                    .set_name(chunk_name)
                    .set_environment(env.clone())
                    .exec()?;
            }
            Ok(())
        });
        if let Err(e) = loaded {
            self.state_mut().forget(id);
            self.errors += 1;
            return Err(failed(e.to_string()));
        }
        info!(resource = name, "resource started");
        self.running.insert(name.to_owned(), Running { id, dir });
        self.emit(&host_events::resource_start(name));
        Ok(())
    }

    /// Stops `name` (and first every running resource that depends on it): it hears
    /// `resource_stop(name)`, then its handlers, timers and exports are removed.
    pub fn stop(&mut self, name: &str) -> Result<(), ResourceError> {
        self.stop_chain(name).map(drop)
    }

    /// [`stop`](Self::stop), returning every resource it stopped, `name` last.
    fn stop_chain(&mut self, name: &str) -> Result<Vec<String>, ResourceError> {
        if !self.running.contains_key(name) {
            return Err(ResourceError::NotRunning(name.to_owned()));
        }
        let dependents: Vec<String> = self
            .running
            .iter()
            .filter(|(_, r)| r.dir.manifest.depends.iter().any(|d| d == name))
            .map(|(n, _)| n.clone())
            .collect();
        let mut stopped = Vec::new();
        for dependent in dependents {
            if self.running.contains_key(&dependent) {
                stopped.extend(self.stop_chain(&dependent)?);
            }
        }
        self.emit(&host_events::resource_stop(name));
        if let Some(running) = self.running.remove(name) {
            self.state_mut().forget(running.id);
            self.failing.retain(|_, f| f.resource != running.id);
            self.stopped.push(running.id);
        }
        info!(resource = name, "resource stopped");
        stopped.push(name.to_owned());
        Ok(stopped)
    }

    /// Stops `name` and starts it again from disk, so changed code is reloaded, then
    /// starts again the dependents the stop stopped (a failure of one is logged). A
    /// resource that is not running is started.
    pub fn restart(&mut self, name: &str) -> Result<(), ResourceError> {
        if !self.running.contains_key(name) {
            return self.start(name);
        }
        let stopped = self.stop_chain(name)?;
        self.start(name)?;
        for dependent in stopped.iter().rev().filter(|d| *d != name) {
            if !self.running.contains_key(dependent)
                && let Err(e) = self.start(dependent)
            {
                self.errors += 1;
                error!("restarting {name}: {e}");
            }
        }
        Ok(())
    }

    /// Starts `names`, or every resource on disk that starts by default
    /// ([`Manifest::autostart`](crate::manifest::Manifest::autostart)) when empty; failures
    /// are logged.
    pub fn start_all(&mut self, names: &[String]) {
        let names: Vec<String> = if names.is_empty() {
            let (found, _) = discover(&self.scripts);
            found
                .into_iter()
                .filter(|(_, r)| r.manifest.autostart)
                .map(|(name, _)| name)
                .collect()
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
        if !event.stands(&self.lua) {
            self.stats.moot += 1;
            return Outcome::default();
        }
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
                .extend(list.iter().map(|h| (h.resource, h.handle, h.func.clone())));
        }
        let mut handlers = std::mem::take(&mut self.dispatch);
        let mut outcome = Outcome::default();
        for (resource, handle, func) in handlers.drain(..) {
            outcome.handlers += 1;
            match self.call((resource, handle), event.name(), |lua| {
                event.call(lua, &func)
            }) {
                Some(Value::Boolean(false)) => outcome.refused = true,
                Some(Value::Boolean(true)) => outcome.handled = true,
                Some(_) => {}
                None => outcome.failed = true,
            }
        }
        self.dispatch = handlers;
        outcome
    }

    /// Runs the `dlmp.add_command` handler of `/name`: `None` when there is none, else
    /// whether it succeeded (an error is logged with its traceback, like a handler's).
    /// `player` is the handle of the player who typed it.
    pub fn run_command(&mut self, name: &str, player: &Arg, args: &[String]) -> Option<bool> {
        let (resource, handle, func) = {
            let state = self.state();
            let c = state.chat_commands.get(name)?;
            (c.resource, c.handle, c.func.clone())
        };
        let what = format!("command /{name}");
        let ran = self.call((resource, handle), &what, |lua| {
            let list = lua.create_sequence_from(args.iter().map(String::as_str))?;
            func.call::<()>((player, list))
        });
        Some(ran.is_some())
    }

    /// Calls the callbacks of the fetches answered since the last pass:
    /// `fn(status, body, nil)` or `fn(nil, nil, err)`.
    pub fn deliver_fetches(&mut self) {
        let answers = {
            let mut state = self.state_mut();
            let mut answers = std::mem::take(&mut state.answers);
            if let Some(client) = &state.fetch {
                answers.extend(client.answers.try_iter());
            }
            answers
        };
        for answer in answers {
            let Some((resource, func)) = self.state_mut().fetches.remove(&answer.id) else {
                continue;
            };
            self.call((resource, answer.id), "fetch", |_| match answer.result {
                Ok((status, body)) => func.call::<()>((status, body, Value::Nil)),
                Err(e) => func.call::<()>((Value::Nil, Value::Nil, e)),
            });
        }
    }

    /// Waits (at most `timeout` each) until every pending fetch has its answer, for tests
    /// that step the schedule deterministically after the worker answered.
    pub fn settle_fetches(&mut self, timeout: Duration) {
        let mut state = self.state_mut();
        while state.answers.len() < state.fetches.len() {
            let Some(answer) = state
                .fetch
                .as_ref()
                .and_then(|c| c.answers.recv_timeout(timeout).ok())
            else {
                break;
            };
            state.answers.push(answer);
        }
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
        // A timer due once the tick's time is spent stays due for the next tick.
        while !self.budget_spent() {
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
            let (resource, func, args) = {
                let mut state = self.state_mut();
                let Some(i) = state.timers.iter().position(|t| t.id == id) else {
                    break;
                };
                let timer = &mut state.timers[i];
                let fired = (
                    timer.resource,
                    timer.func.clone(),
                    MultiValue::from_iter(timer.args.iter().cloned()),
                );
                timer.remaining = timer.remaining.map(|n| n.saturating_sub(1));
                if timer.remaining == Some(0) {
                    state.timers.remove(i);
                } else {
                    // A repeating timer fires at most once per tick.
                    timer.due = (timer.due + timer.interval).max(now + Duration::from_nanos(1));
                }
                fired
            };
            self.call((resource, id), "timer", |_| func.call::<()>(args));
        }
    }

    /// Whether the resource `id` still runs (a stopped one's callbacks are not called).
    pub fn is_running(&self, id: ResourceId) -> bool {
        self.running.values().any(|r| r.id == id)
    }

    /// The id of a running resource.
    pub fn resource_id(&self, name: &str) -> Option<ResourceId> {
        self.running.get(name).map(|r| r.id)
    }

    /// Forgets an entity that left or was despawned: its handle, its data and its uid
    /// (ADR 0035). Every handle kind's despawn calls this.
    pub fn forget_entity(&mut self, entity: Entity) {
        self.state_mut().uids.remove(&entity);
        self.api.forget(&self.lua, entity);
        if let Err(e) = api::handles::forget(&self.lua, entity) {
            error!("forgetting an entity's script data: {e}");
        }
    }

    /// Resources stopped since the last call: the app removes what they owned.
    pub fn take_stopped(&mut self) -> Vec<ResourceId> {
        std::mem::take(&mut self.stopped)
    }

    /// The `dlmp` table a resource named `name` would get, outside any resource: for
    /// listing and checking the API.
    pub fn api_table(&self, name: &str) -> mlua::Result<Table> {
        api::install(&self.lua, &self.api, ResourceId(0), name)
    }

    /// The API the feature crates added, for their setup once the app is built.
    pub fn api(&self) -> &ScriptApi {
        &self.api
    }

    /// The commands scripts issued since the last call.
    pub fn take_commands(&mut self) -> Vec<ScriptCommand> {
        std::mem::take(&mut self.state_mut().commands)
    }
}

/// Whether `e` is, or was caused by, the memory limit refusing an allocation.
fn is_memory_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } => is_memory_error(cause),
        mlua::Error::WithContext { cause, .. } => is_memory_error(cause),
        _ => false,
    }
}
