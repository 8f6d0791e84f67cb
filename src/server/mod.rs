//! The headless bevy app: one fixed tick of ordered sets ([`ServerSystems`]) and the
//! feature plugins that fill them. [`build_app`] assembles it around a [`Transport`]; the
//! binary connects that to the network thread, the test harness to virtual clients.

mod plugin_settings;
mod run;
mod runner;
mod sets;
mod shutdown;
mod stats;
mod transport;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy_app::App;
use bevy_time::{Fixed, Time, TimePlugin};

pub use plugin_settings::{PluginSettings, plugin_settings};
pub use run::{Server, gamemode_check};
pub use runner::{FixedStepRunner, MAX_CATCH_UP};
pub use sets::{GameplaySystems, ServerSystems, StreamingSystems};
pub use shutdown::{ServerShutdown, ShutdownFlag};
pub use stats::StatsSettings;
pub use transport::Transport;

use crate::bans::BansPlugin;
use crate::chat::ChatPlugin;
use crate::config::Config;
use crate::db::{DbPlugin, DbSettings, DbTarget};
use crate::player::PlayerPlugin;
use crate::player::respawn::RespawnPolicy;
use crate::query::QueryPlugin;
use crate::script::{ScriptPlugin, ScriptSettings};
use crate::session::{HelloWorld, SessionPlugin, SessionSettings, WorldInfo};
use crate::streaming::StreamingPlugin;
use crate::world::WorldPlugin;

/// The app for `config`, talking through `transport`. `shutdown` asks it to end every
/// session and exit. The caller picks the runner and the time strategy.
pub fn build_app(config: &Config, transport: Transport, shutdown: Arc<AtomicBool>) -> App {
    let mut app = App::new();
    app.add_plugins(TimePlugin)
        .insert_resource(Time::<Fixed>::from_hz(f64::from(config.tick_hz)))
        .insert_resource(transport)
        .insert_resource(HelloWorld(WorldInfo {
            tick_hz: config.tick_hz,
            ..WorldInfo::default()
        }))
        .insert_resource(RespawnPolicy {
            min_dead: config.respawn_delay(),
        })
        .insert_resource(config.pickups())
        .insert_resource(config.identity())
        .insert_resource(PluginSettings::new(config.plugins.clone()));
    sets::configure(&mut app);
    app.add_plugins((
        SessionPlugin {
            settings: SessionSettings {
                max_players: config.max_players,
                timeout: config.session_timeout(),
                max_sessions_per_ip: usize::from(config.max_sessions_per_ip),
            },
        },
        ChatPlugin,
        PlayerPlugin,
        StreamingPlugin,
        WorldPlugin,
        QueryPlugin,
        ScriptPlugin {
            settings: ScriptSettings {
                scripts: config.scripts.clone(),
                resources: config.resources.clone(),
                limits: config.script_limits(),
                data_dir: Some(config.data_dir()),
            },
        },
        DbPlugin {
            settings: DbSettings {
                target: db_target(config),
                queue: config.db_queue,
                wait_for_replies: config.db_wait_for_replies,
            },
        },
        BansPlugin,
        shutdown::ShutdownPlugin {
            flag: ShutdownFlag(shutdown),
        },
        stats::StatsPlugin {
            settings: StatsSettings {
                interval: Duration::from_secs(config.stats_interval_secs),
            },
        },
    ));
    app
}

/// The database the config names; a `database` value that does not parse is logged and the
/// default file is used instead (the config check refuses it before a server starts).
fn db_target(config: &Config) -> DbTarget {
    let data_dir = config.data_dir();
    DbTarget::from_config(config.database.as_deref(), &data_dir).unwrap_or_else(|e| {
        tracing::error!("{e}");
        DbTarget::SqliteFile(data_dir.join(crate::db::SQLITE_FILE))
    })
}
