//! `dlmp.hash_password` and `dlmp.verify_password` (ADR 0105): gamemode accounts get the
//! panel's argon2id hashes. One hash costs tens of milliseconds on purpose, more than a
//! tick's script budget, so a call queues the work on a thread of its own and returns at
//! once; its callback runs in a later script pass, in call order, like a database
//! callback. A stopped resource's callbacks are dropped.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use crossbeam_channel::{Receiver, Sender, TrySendError};
use mlua::{Error, Function, Lua, MultiValue, Result, Table, Value};

use dlmp_script::api::args;
use dlmp_script::host::ScriptHost;
use dlmp_script::{ResourceId, ScriptApi, ScriptSystems};

/// Jobs waiting for the worker, all resources together; a call past it gets its error in
/// the callback.
pub const QUEUE: usize = 64;
/// The longest password hashed or checked, in bytes: argon2's cost does not depend on
/// it, but nothing longer is a password.
pub const MAX_PASSWORD: usize = 1024;
/// How long the test mode waits for one answer before the callback gets an error.
const TEST_WAIT: Duration = Duration::from_secs(60);

/// Adds the two functions and the delivery of their answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct PasswordPlugin {
    /// Tests only: the script pass waits for the answers, so each callback runs in the
    /// tick after its call (the database's `db_wait_for_replies`).
    pub wait_for_replies: bool,
}

impl Plugin for PasswordPlugin {
    fn build(&self, app: &mut App) {
        let wait = self.wait_for_replies;
        app.world_mut()
            .get_resource_or_init::<ScriptApi>()
            .functions(|lua, dlmp, resource| install(lua, dlmp, resource.id))
            .setup(move |lua, _| {
                lua.set_app_data(ScriptPasswords::start(wait));
            });
        app.add_systems(FixedUpdate, deliver.in_set(ScriptSystems::Deliver));
    }
}

/// What the worker does.
#[derive(Debug)]
enum Job {
    Hash(String),
    Verify { password: String, hash: String },
}

/// The worker's answer: `(hash, nil)`, `(true|false, nil)` or `(nil, err)`.
#[derive(Debug)]
enum Done {
    Hashed(String),
    Verified(bool),
    Failed(String),
}

impl Job {
    fn run(self) -> Done {
        match self {
            Job::Hash(password) => match super::hash_password(&password) {
                Ok(hash) => Done::Hashed(hash),
                Err(e) => Done::Failed(e.0),
            },
            Job::Verify { password, hash } => match super::verify_password(&password, &hash) {
                Ok(ok) => Done::Verified(ok),
                Err(e) => Done::Failed(e.0),
            },
        }
    }
}

/// A call whose callback has not run yet.
#[derive(Debug)]
struct Pending {
    id: u64,
    resource: ResourceId,
    callback: Function,
    done: Option<Done>,
}

/// The scripts' side of the worker, as Lua app data.
#[derive(Debug)]
pub struct ScriptPasswords {
    jobs: Option<Sender<(u64, Job)>>,
    answers: Receiver<(u64, Done)>,
    wait_for_replies: bool,
    next: u64,
    pending: VecDeque<Pending>,
    arrived: HashMap<u64, Done>,
}

impl ScriptPasswords {
    /// Starts the worker thread; without one every call answers with the error.
    fn start(wait_for_replies: bool) -> Self {
        let (jobs, work) = crossbeam_channel::bounded::<(u64, Job)>(QUEUE);
        let (done, answers) = crossbeam_channel::unbounded();
        let spawned = std::thread::Builder::new()
            .name("script-passwords".to_owned())
            .spawn(move || {
                for (id, job) in work {
                    if done.send((id, job.run())).is_err() {
                        break;
                    }
                }
            });
        if let Err(e) = &spawned {
            tracing::error!("password worker: {e}");
        }
        ScriptPasswords {
            jobs: spawned.ok().map(|_| jobs),
            answers,
            wait_for_replies,
            next: 0,
            pending: VecDeque::new(),
            arrived: HashMap::new(),
        }
    }

    /// Calls whose callback has not run.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    fn submit(&mut self, resource: ResourceId, job: Job, callback: Function) {
        self.next += 1;
        let id = self.next;
        let done = match &self.jobs {
            None => Some(Done::Failed("no password worker".to_owned())),
            Some(jobs) => match jobs.try_send((id, job)) {
                Ok(()) => None,
                Err(TrySendError::Full(_)) => Some(Done::Failed(format!(
                    "too many passwords waiting ({QUEUE}); try again"
                ))),
                Err(TrySendError::Disconnected(_)) => {
                    Some(Done::Failed("no password worker".to_owned()))
                }
            },
        };
        self.pending.push_back(Pending {
            id,
            resource,
            callback,
            done,
        });
    }

    /// The answered calls at the front of the queue, in call order. In the test mode it
    /// first waits for the answers of every call made so far.
    fn ready(&mut self) -> Vec<Pending> {
        while let Ok((id, done)) = self.answers.try_recv() {
            self.arrived.insert(id, done);
        }
        let mut ready = Vec::new();
        while let Some(front) = self.pending.front_mut() {
            if front.done.is_none() {
                front.done = self.arrived.remove(&front.id);
            }
            while front.done.is_none() && self.wait_for_replies {
                match self.answers.recv_timeout(TEST_WAIT) {
                    Ok((id, done)) if id == front.id => front.done = Some(done),
                    Ok((id, done)) => {
                        self.arrived.insert(id, done);
                    }
                    Err(_) => front.done = Some(Done::Failed("no answer".to_owned())),
                }
            }
            if front.done.is_none() {
                break;
            }
            ready.extend(self.pending.pop_front());
        }
        ready
    }
}

/// Runs the callbacks of the answered calls, in call order, each with the instruction
/// budget of a call.
fn deliver(mut host: NonSendMut<ScriptHost>) {
    let ready = match host.lua().app_data_mut::<ScriptPasswords>() {
        Some(mut p) if !p.pending.is_empty() => p.ready(),
        _ => return,
    };
    for call in ready {
        let Some(done) = call.done else { continue };
        if !host.is_running(call.resource) {
            continue;
        }
        host.call_for(call.resource, "password callback", |lua| {
            let args = match done {
                Done::Hashed(hash) => [Value::String(lua.create_string(hash)?), Value::Nil],
                Done::Verified(ok) => [Value::Boolean(ok), Value::Nil],
                Done::Failed(e) => [Value::Nil, Value::String(lua.create_string(e)?)],
            };
            call.callback.call::<()>(MultiValue::from_iter(args))
        });
    }
}

/// A password argument: a string of at most [`MAX_PASSWORD`] bytes.
fn password(func: &str, v: &Value) -> Result<String> {
    let text = args::string(func, "password", v)?;
    if text.len() > MAX_PASSWORD {
        return Err(Error::runtime(format!(
            "{func}: password is longer than {MAX_PASSWORD} bytes"
        )));
    }
    Ok(text)
}

fn queue(lua: &Lua, resource: ResourceId, job: Job, callback: Function) -> Result<()> {
    lua.app_data_mut::<ScriptPasswords>()
        .ok_or_else(|| Error::runtime("password hashing is not available in this server"))?
        .submit(resource, job, callback);
    Ok(())
}

/// Adds `hash_password` and `verify_password` to `dlmp` of `resource`.
fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "hash_password",
        lua.create_function(move |lua, (text, callback): (Value, Value)| {
            const F: &str = "hash_password";
            let text = password(F, &text)?;
            let callback = args::function(F, "fn", callback)?;
            queue(lua, resource, Job::Hash(text), callback)
        })?,
    )?;
    dlmp.set(
        "verify_password",
        lua.create_function(move |lua, (text, hash, callback): (Value, Value, Value)| {
            const F: &str = "verify_password";
            let password = password(F, &text)?;
            let hash = args::string(F, "hash", &hash)?;
            let callback = args::function(F, "fn", callback)?;
            queue(lua, resource, Job::Verify { password, hash }, callback)
        })?,
    )?;
    Ok(())
}
