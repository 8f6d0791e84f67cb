//! [`Server`]: the whole server as a library entry point. A binary is
//! `Server::from_args()?.add_plugins(MyPlugin).run()`; `src/main.rs` is that with no extra
//! plugin. Start-up refuses what would make a server that does nothing useful: a config
//! that does not check, a plugin table that does not fit, no gamemode resource.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_app::{App, AppExit, Plugins, ScheduleRunnerPlugin};
use clap::Parser;
use tracing::{error, info, warn};
use tracing_subscriber::EnvFilter;

use super::{PluginSettings, Transport, build_app};
use crate::config::{Cli, Config, ConfigError};
use crate::console::ConsolePlugin;
use crate::net::{self, NetConfig, NetStats};

type AddPlugins = Box<dyn FnOnce(&mut App)>;

/// A server to run: its config and the gameplay plugins added to the built-in features.
pub struct Server {
    config: Config,
    plugins: Vec<AddPlugins>,
}

impl Server {
    pub fn new(config: Config) -> Self {
        Server {
            config,
            plugins: Vec::new(),
        }
    }

    /// Starts the logs (plain text when stdout is not a terminal; `RUST_LOG` filters) and
    /// reads the command line and the `--config` file. An error is logged, and returned.
    pub fn from_args() -> Result<Self, ConfigError> {
        init_logging();
        Config::from_cli(&Cli::parse())
            .map(Server::new)
            .inspect_err(|e| error!("{e}"))
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Adds gameplay plugins (anything bevy's `App::add_plugins` takes); they are built
    /// after the server's own features, so every set and message exists.
    pub fn add_plugins<M>(mut self, plugins: impl Plugins<M> + 'static) -> Self {
        self.plugins.push(Box::new(move |app: &mut App| {
            app.add_plugins(plugins);
        }));
        self
    }

    /// The app around `transport`, with the extra plugins: what [`Server::run`] runs and
    /// what the test harness steps.
    pub fn build(self, transport: Transport, shutdown: Arc<AtomicBool>) -> App {
        let mut app = build_app(&self.config, transport, shutdown);
        for add in self.plugins {
            add(&mut app);
        }
        app
    }

    /// Binds the socket and runs at `tick_hz` until Ctrl-C, SIGTERM or the console's
    /// `quit`, then says Disconnect to every client and stops.
    pub fn run(self) -> ExitCode {
        init_logging();
        let config = self.config.clone();
        if let Err(e) = gamemode_check(&config.scripts) {
            error!("{e}");
            return ExitCode::FAILURE;
        }
        let stats = Arc::new(NetStats::default());
        let net = match net::spawn(
            NetConfig {
                bind: config.bind,
                ..NetConfig::default()
            },
            stats.clone(),
        ) {
            Ok(net) => net,
            Err(e) => {
                error!("cannot bind {}: {e}", config.bind);
                return ExitCode::FAILURE;
            }
        };
        let shutdown = Arc::new(AtomicBool::new(false));
        let flag = shutdown.clone();
        if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
            error!("cannot install the Ctrl-C handler: {e}");
        }
        let transport = Transport {
            inbound: net.inbound.clone(),
            outbound: net.outbound.clone(),
            stats,
        };
        let mut app = self.build(transport, shutdown);
        if let Some(settings) = app.world().get_resource::<PluginSettings>() {
            if !settings.errors().is_empty() {
                for e in settings.errors() {
                    error!("{e}");
                }
                return ExitCode::FAILURE;
            }
            for name in settings.unread() {
                warn!("[plugins.{name}]: no plugin of this server reads it; ignored");
            }
        }
        for line in config.effective().lines() {
            info!("setting {line}");
        }
        info!(
            addr = %net.local_addr(),
            max_players = config.max_players,
            tick_hz = config.tick_hz,
            "dlmp listening"
        );
        app.add_plugins((
            ScheduleRunnerPlugin::run_loop(config.tick()),
            ConsolePlugin::stdin(),
        ));
        let exit = app.run();
        if net.shutdown().is_err() {
            error!("the network thread panicked");
        }
        info!("stopped");
        match exit {
            AppExit::Success => ExitCode::SUCCESS,
            AppExit::Error(_) => ExitCode::FAILURE,
        }
    }
}

/// Logs to stdout, without colour codes when it is not a terminal (a file, a journal).
fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // A second call (from_args, then run) finds the subscriber set: nothing to do.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}

/// A server without a gamemode resource accepts players into an empty world; refuse to
/// start, saying where the resources were looked for.
pub fn gamemode_check(scripts: &Path) -> Result<(), ConfigError> {
    let (found, problems) = crate::script::manifest::discover(scripts);
    if !found.is_empty() {
        return Ok(());
    }
    let at = std::path::absolute(scripts).unwrap_or_else(|_| scripts.to_path_buf());
    let mut text = format!(
        "no gamemode resource in {}: each resource is a folder there with a resource.toml \
         (see scripts/README.md); set `scripts` in the config or pass --scripts DIR",
        at.display()
    );
    for p in problems {
        text.push_str("; ");
        text.push_str(&p);
    }
    Err(ConfigError(text))
}
