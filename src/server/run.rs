//! [`Server`]: the whole server as a library entry point. A binary is
//! `Server::from_args()?.add_plugins(MyPlugin).run()`; `dlmp-server` (`plugins/server`) is
//! that with the shipped plugins. Start-up refuses what would make a server that does nothing
//! useful or not what the config says: a config that does not check, a plugin table that
//! does not fit or that no plugin reads, no gamemode resource.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_app::{App, AppExit, Plugins};
use clap::Parser;
use tracing::{error, info};

use super::{FixedStepRunner, PluginSettings, build_app};
use dlmp_admin::{AdminLink, HttpSettings};
use dlmp_core::tick::Transport;
use dlmp_net::sessions::SessionBoard;
use dlmp_net::{self as net, NetConfig, NetStats};
use dlmp_ops::config::{Cli, Config, ConfigError};
use dlmp_ops::console::{ConfigFile, ConsolePlugin};
use dlmp_ops::logs;
use dlmp_ops::metrics::{MetricsPlugin, ServerMetrics};
use dlmp_ops::query::QueryPublisher;
use dlmp_ops::restart::{RESTART_EXIT_CODE, RestartSchedule};

type AddPlugins = Box<dyn FnOnce(&mut App)>;

/// A server to run: its config and the gameplay plugins added to the built-in features.
pub struct Server {
    config: Config,
    /// The `--config` file, read again by the console's `reload`.
    config_file: Option<PathBuf>,
    plugins: Vec<AddPlugins>,
}

impl Server {
    pub fn new(config: Config) -> Self {
        Server {
            config,
            config_file: None,
            plugins: Vec::new(),
        }
    }

    /// Reads the command line and the `--config` file. An error is printed (the logs start
    /// in [`run`](Self::run), once `log_dir` is known), and returned.
    ///
    /// With `--hash-password` it reads a password on stdin, prints its argon2 hash for an
    /// `[[admin_users]]` table and ends the process (ADR 0102).
    pub fn from_args() -> Result<Self, ConfigError> {
        let cli = Cli::parse();
        if cli.hash_password {
            std::process::exit(print_password_hash());
        }
        match Config::from_cli(&cli) {
            Ok(config) => Ok(Server {
                config_file: cli.config.clone(),
                ..Server::new(config)
            }),
            Err(e) => {
                eprintln!("dlmp-server: {e}");
                Err(e)
            }
        }
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
        let config = self.config.clone();
        // Console and, with `log_dir`, the daily files; held until the server stops.
        let _logs = match logs::init(config.log_dir.as_deref()) {
            Ok(guards) => guards,
            Err(e) => {
                eprintln!(
                    "dlmp-server: cannot write logs to {:?}: {e}",
                    config.log_dir
                );
                return ExitCode::FAILURE;
            }
        };
        if let Err(e) = gamemode_check(&config.scripts, &config.resources) {
            error!("{e}");
            return ExitCode::FAILURE;
        }
        let stats = Arc::new(NetStats::default());
        let sessions = Arc::new(SessionBoard::default());
        let net = match net::spawn(
            NetConfig {
                bind: config.bind,
                send_threads: config.net_send_threads,
                outbound_capacity: config.net_outbound_capacity,
                sessions: Some(Arc::clone(&sessions)),
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
        let net_stats = stats.clone();
        let transport = Transport {
            inbound: net.inbound.clone(),
            outbound: net.outbound.clone(),
            stats,
            sessions,
        };
        let config_file = self.config_file.clone();
        let mut app = self.build(transport, shutdown);
        app.insert_resource(QueryPublisher(net.query.clone()))
            .insert_resource(ConfigFile::new(config_file));
        // The panel and /metrics on one HTTP server of their own threads (ADR 0100); held
        // until the server stops.
        let http = HttpSettings::from_config(&config);
        let _http = if http.serves() {
            let metrics = Arc::new(ServerMetrics::default());
            let registry = metrics.registry_for(net_stats, app.world());
            let link = app.world_mut().remove_resource::<AdminLink>().map(|l| l.0);
            match dlmp_admin::start(http, link, Some(registry)) {
                Ok(server) => {
                    app.add_plugins(MetricsPlugin { metrics });
                    Some(server)
                }
                Err(e) => {
                    error!("{e}");
                    return ExitCode::FAILURE;
                }
            }
        } else {
            None
        };
        if let Some(settings) = app.world().get_resource::<PluginSettings>() {
            for e in settings.errors() {
                error!("{e}");
            }
            if let Err(e) = settings.check() {
                if settings.errors().is_empty() {
                    error!("{e}");
                }
                return ExitCode::FAILURE;
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
            FixedStepRunner {
                tick: config.tick(),
            },
            ConsolePlugin::stdin(),
        ));
        let exit = app.run();
        if net.shutdown().is_err() {
            error!("the network thread panicked");
        }
        let restarting = app
            .world()
            .get_resource::<RestartSchedule>()
            .is_some_and(RestartSchedule::restarting);
        info!("stopped");
        match exit {
            // The service unit starts the server again on this code (ADR 0103).
            AppExit::Success if restarting => ExitCode::from(RESTART_EXIT_CODE),
            AppExit::Success => ExitCode::SUCCESS,
            AppExit::Error(_) => ExitCode::FAILURE,
        }
    }
}

/// `--hash-password`: the first line of stdin (its line end removed) hashed; the exit code.
fn print_password_hash() -> i32 {
    use std::io::{BufRead, IsTerminal, Write};
    if std::io::stdin().is_terminal() {
        eprint!("password (shown as typed; pipe it in to hide it): ");
        let _ = std::io::stderr().flush();
    }
    let mut line = String::new();
    if let Err(e) = std::io::stdin().lock().read_line(&mut line) {
        eprintln!("dlmp-server: cannot read the password: {e}");
        return 1;
    }
    let password = line.trim_end_matches(['\r', '\n']);
    if password.is_empty() {
        eprintln!("dlmp-server: the password is empty");
        return 1;
    }
    match dlmp_ops::password::hash_password(password) {
        Ok(hash) => {
            println!("{hash}");
            0
        }
        Err(e) => {
            eprintln!("dlmp-server: {e}");
            1
        }
    }
}

/// A server without a gamemode resource accepts players into an empty world; refuse to
/// start, saying where the resources were looked for. The same for a resource named in
/// `resources` (or `--resource`) that is not in the folder: a typo would otherwise start a
/// server without the gamemode the admin asked for.
pub fn gamemode_check(scripts: &Path, resources: &[String]) -> Result<(), ConfigError> {
    let (found, problems) = dlmp_script::manifest::discover(scripts);
    let at = std::path::absolute(scripts).unwrap_or_else(|_| scripts.to_path_buf());
    let missing: Vec<&str> = resources
        .iter()
        .filter(|name| !found.contains_key(*name))
        .map(String::as_str)
        .collect();
    let mut text = if found.is_empty() {
        format!(
            "no gamemode resource in {}: each resource is a folder there with a resource.toml \
             (see scripts/README.md); set `scripts` in the config or pass --scripts DIR",
            at.display()
        )
    } else if !missing.is_empty() {
        let known: Vec<&str> = found.keys().map(String::as_str).collect();
        format!(
            "no resource named {} in {} (the resources there: {}); check `resources` in the \
             config or --resource",
            missing.join(", "),
            at.display(),
            known.join(", ")
        )
    } else {
        return Ok(());
    };
    for p in problems {
        text.push_str("; ");
        text.push_str(&p);
    }
    Err(ConfigError(text))
}
