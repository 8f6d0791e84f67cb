//! The scripts in the app: the VM as non-send data, made once every plugin added its part
//! of the API ([`ScriptApi`]); boot-time resource starts; and the script pass of every
//! tick in [`GameplaySystems::Scripts`], in the order of [`ScriptSystems`].

use std::path::PathBuf;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin, Startup};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::tick::{GameplaySystems, ServerShutdown};
use tracing::error;

use crate::events::{ScriptEvents, host_events};
use crate::host::{ScriptHost, ScriptLimits};
use crate::ownership::{ReleaseOwned, ResourceStopped, despawn_owned};
use crate::registry::ScriptApi;

/// Script settings.
#[derive(Resource, Debug, Clone)]
pub struct ScriptSettings {
    /// The resources folder. Default `scripts/`.
    pub scripts: PathBuf,
    /// Resources started at boot; empty = every resource in the folder.
    pub resources: Vec<String>,
    /// The instruction budget, the VM's memory limit and the tick's time budget (ADR
    /// 0021).
    pub limits: ScriptLimits,
    /// The server's data folder (`data_dir`), which scripts reach as `$data/...` (ADR
    /// 0035); `None` refuses such paths.
    pub data_dir: Option<PathBuf>,
    /// How `dlmp.fetch` connects (ADR 0101).
    pub fetch: crate::fetch::FetchSettings,
}

impl Default for ScriptSettings {
    fn default() -> Self {
        ScriptSettings {
            scripts: PathBuf::from("scripts"),
            resources: Vec::new(),
            limits: ScriptLimits::default(),
            data_dir: None,
            fetch: crate::fetch::FetchSettings::default(),
        }
    }
}

/// The phases of the script pass, inside [`GameplaySystems::Scripts`], in order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScriptSystems {
    /// The host starts the tick's time budget and its clock.
    Begin,
    /// Feature crates refresh their views (what the API answers reads from) and queue this
    /// tick's notifications ([`ScriptEvents`]), each at its place.
    Collect,
    /// The host raises what waited from earlier ticks, then this tick's notifications in
    /// order.
    Notify,
    /// Features raise the events whose handlers' answer they wait for (a chat line, a seat
    /// request) and act on the answer, in their plugins' order.
    Ask,
    /// The host raises `server_shutdown`, answers fetches and fires timers.
    Timers,
    /// Features deliver what their workers answered (database replies).
    Deliver,
    /// The host raises `tick`, ends the budget and hands the commands the scripts queued
    /// to the app's world, in call order; resources stopped since are cleaned up.
    Finish,
}

/// Adds the Lua VM and the script pass. Feature plugins add to [`ScriptApi`] in their
/// `build`; the VM is made in [`finish`](Plugin::finish), once they all did.
pub struct ScriptPlugin {
    pub settings: ScriptSettings,
}

impl Plugin for ScriptPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ScriptApi>()
            .init_resource::<ScriptEvents>()
            .insert_resource(self.settings.clone())
            .add_message::<ResourceStopped>()
            .configure_sets(
                FixedUpdate,
                (
                    ScriptSystems::Begin,
                    ScriptSystems::Collect,
                    ScriptSystems::Notify,
                    ScriptSystems::Ask,
                    ScriptSystems::Timers,
                    ScriptSystems::Deliver,
                    ScriptSystems::Finish,
                )
                    .chain()
                    .in_set(GameplaySystems::Scripts)
                    .run_if(has_host),
            )
            .add_systems(Startup, start_resources.run_if(has_host))
            .add_systems(FixedUpdate, begin.in_set(ScriptSystems::Begin))
            .add_systems(FixedUpdate, notify.in_set(ScriptSystems::Notify))
            .add_systems(FixedUpdate, timers.in_set(ScriptSystems::Timers))
            .configure_sets(
                FixedUpdate,
                ReleaseOwned
                    .in_set(ScriptSystems::Finish)
                    .after(report_stopped)
                    .before(despawn_owned),
            )
            .add_systems(
                FixedUpdate,
                (finish, report_stopped, despawn_owned)
                    .chain()
                    .in_set(ScriptSystems::Finish),
            );
    }

    fn finish(&self, app: &mut App) {
        let mut api = app
            .world_mut()
            .remove_resource::<ScriptApi>()
            .unwrap_or_default();
        let setups = api.take_setups();
        match ScriptHost::with_api(self.settings.scripts.clone(), self.settings.limits, api) {
            Ok(mut host) => {
                host.set_data_dir(self.settings.data_dir.clone());
                host.state_mut().fetch_settings = self.settings.fetch.clone();
                for setup in setups {
                    setup(host.lua(), app.world_mut());
                }
                app.insert_non_send(host);
            }
            Err(e) => error!("the Lua VM did not start: {e}"),
        }
    }
}

/// The scripts run only with a VM (one that failed to start was logged).
fn has_host(host: Option<NonSend<ScriptHost>>) -> bool {
    host.is_some()
}

fn start_resources(mut host: NonSendMut<ScriptHost>, settings: Res<ScriptSettings>) {
    host.start_all(&settings.resources);
}

/// Starts the tick's time budget and sets the script clock.
fn begin(mut host: NonSendMut<ScriptHost>, time: Res<Time>) {
    host.begin_tick();
    host.state_mut().now = time.elapsed();
}

/// What waited from earlier ticks goes first, so the gamemode hears every event in order
/// (ADR 0082); then this tick's notifications.
fn notify(mut host: NonSendMut<ScriptHost>, mut events: ResMut<ScriptEvents>) {
    host.emit_deferred();
    for event in events.take_sorted() {
        host.notify(event);
    }
}

fn timers(
    mut host: NonSendMut<ScriptHost>,
    time: Res<Time>,
    mut shutdown: MessageReader<ServerShutdown>,
) {
    if shutdown.read().next().is_some() {
        host.emit(&host_events::server_shutdown());
    }
    host.deliver_fetches();
    host.run_timers(time.elapsed());
}

/// Raises `tick` with the time since the last pass (0 on the first), if a script listens;
/// then the commands go to the world, in call order.
fn finish(
    mut host: NonSendMut<ScriptHost>,
    time: Res<Time>,
    mut last_tick: Local<Option<Duration>>,
    mut commands: Commands,
) {
    let now = time.elapsed();
    if host.listens("tick") {
        let dt = last_tick.map_or(Duration::ZERO, |last| now.saturating_sub(last));
        host.emit(&host_events::tick(dt.as_secs_f64() * 1000.0));
    }
    *last_tick = Some(now);
    host.end_tick();
    for command in host.take_commands() {
        commands.queue(move |world: &mut World| command.apply(world));
    }
}

/// Turns the resources stopped since the last pass (by the console, by a restart) into
/// [`ResourceStopped`] messages.
fn report_stopped(mut host: NonSendMut<ScriptHost>, mut stopped: MessageWriter<ResourceStopped>) {
    for id in host.take_stopped() {
        stopped.write(ResourceStopped(id));
    }
}
