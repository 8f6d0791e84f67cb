//! The floor above the features: the assembly. [`build_app`] puts every feature plugin
//! into the tick's ordered sets ([`dlmp_core::tick`]) around a [`Transport`]; [`Server`] runs
//! it with extra gameplay plugins over the network thread, the test harness over virtual
//! clients. No feature imports this module.

mod plugin_settings;
mod run;
mod runner;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy_app::App;
use bevy_time::{Fixed, Time, TimePlugin};

pub use plugin_settings::{PluginSettings, plugin_settings};
pub use run::{Server, gamemode_check};
pub use runner::{FixedStepRunner, MAX_CATCH_UP};

use dlmp_admin::AdminLink;
use dlmp_core::session::{HelloWorld, SessionPlugin, SessionSettings, WorldInfo};
use dlmp_core::tick::{ShutdownFlag, ShutdownPlugin, Transport};
use dlmp_ops::bans::BansPlugin;
use dlmp_ops::config::Config;
use dlmp_ops::db::{DbPlugin, DbSettings, DbTarget};
use dlmp_ops::query::QueryPlugin;
use dlmp_ops::restart::{DailyTime, RestartPlugin};
use dlmp_ops::stats::{StatsPlugin, StatsSettings};
use dlmp_player::PlayerPlugin;
use dlmp_player::chat::ChatPlugin;
use dlmp_player::respawn::RespawnPolicy;
use dlmp_player::stream::StreamingPlugin;
use dlmp_script::{ScriptPlugin, ScriptSettings};
use dlmp_vehicle::VehiclePlugin;
use dlmp_vehicle::frame::VehicleFramePlugin;
use dlmp_vehicle::syncer::SyncerPlugin;
use dlmp_world::WorldPlugin;

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
        .insert_resource(dlmp_world::pickup::PickupSettings::from(config))
        .insert_resource(dlmp_vehicle::remote::RcSettings::from(config))
        .insert_resource(dlmp_world::object::ObjectSettings::from(config))
        .insert_resource(dlmp_ops::query::ServerIdentity::from(config))
        .insert_resource(PluginSettings::new(config.plugins.clone()));
    dlmp_core::tick::configure(&mut app);
    app.add_plugins((
        SessionPlugin {
            settings: SessionSettings {
                max_players: config.max_players,
                timeout: config.session_timeout(),
                max_sessions_per_ip: usize::from(config.max_sessions_per_ip),
                send_budget: config.net_send_budget,
            },
        },
        ChatPlugin,
        PlayerPlugin,
        StreamingPlugin,
        WorldPlugin,
        (VehiclePlugin, VehicleFramePlugin, SyncerPlugin),
        QueryPlugin,
        ScriptPlugin {
            settings: ScriptSettings {
                scripts: config.scripts.clone(),
                resources: config.resources.clone(),
                limits: dlmp_script::ScriptLimits::from(config),
                data_dir: Some(config.data_dir()),
                fetch: dlmp_script::fetch::FetchSettings {
                    ca_file: config.fetch_ca_file.clone(),
                },
            },
        },
        DbPlugin {
            settings: DbSettings {
                target: db_target(config),
                queue: config.db_queue,
                pool: config.db_pool_size,
                wait_for_replies: config.db_wait_for_replies,
            },
        },
        dlmp_ops::password::PasswordPlugin {
            wait_for_replies: config.db_wait_for_replies,
        },
        BansPlugin {
            server: config.server_id().to_owned(),
        },
        dlmp_ops::map::MapPlugin,
        ShutdownPlugin {
            flag: ShutdownFlag(shutdown),
        },
        StatsPlugin {
            settings: StatsSettings {
                interval: Duration::from_secs(config.stats_interval_secs),
            },
        },
        RestartPlugin {
            // The config check refused a time that does not parse.
            daily: config
                .restart_at
                .as_deref()
                .and_then(|at| DailyTime::parse(at).ok()),
        },
    ));
    if config.admin.is_some() {
        // The panel's tick side; the HTTP server starts with the link (ADR 0100).
        let (plugin, link) = dlmp_admin::channel(&config.name);
        app.add_plugins(plugin).insert_resource(AdminLink(link));
    }
    app
}

/// The database the config names; a `database` value that does not parse is logged and the
/// default file is used instead (the config check refuses it before a server starts).
fn db_target(config: &Config) -> DbTarget {
    let data_dir = config.data_dir();
    DbTarget::from_config(config.database.as_deref(), &data_dir).unwrap_or_else(|e| {
        tracing::error!("{e}");
        DbTarget::SqliteFile(data_dir.join(dlmp_ops::db::SQLITE_FILE))
    })
}
