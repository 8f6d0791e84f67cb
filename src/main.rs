//! `dlmp-server`: binds the UDP socket, runs the app at `--tick-hz` until Ctrl-C, SIGTERM
//! or the console's `quit`, then says Disconnect to every client and stops. Console
//! commands are read from stdin.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_app::AppExit;
use clap::Parser;
use dlmp::config::{Cli, Config};
use dlmp::console::{ConfigFile, ConsolePlugin};
use dlmp::logs;
use dlmp::metrics::{self, MetricsPlugin, ServerMetrics};
use dlmp::net::{self, NetConfig, NetStats};
use dlmp::query::QueryPublisher;
use dlmp::server::{FixedStepRunner, Transport, build_app};
use tracing::{error, info};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::from_cli(&cli) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("dlmp-server: {e}");
            return ExitCode::FAILURE;
        }
    };
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
    let stats = Arc::new(NetStats::default());
    let net = match net::spawn(
        NetConfig {
            bind: config.bind,
            send_threads: config.net_send_threads,
            outbound_capacity: config.net_outbound_capacity,
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
    info!(
        addr = %net.local_addr(),
        max_players = config.max_players,
        tick_hz = config.tick_hz,
        "dlmp listening"
    );

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
    };
    let mut app = build_app(&config, transport, shutdown);
    app.insert_resource(QueryPublisher(net.query.clone()))
        .insert_resource(ConfigFile::new(cli.config.clone()));
    if let Some(addr) = config.metrics {
        let metrics = Arc::new(ServerMetrics::default());
        if let Err(e) = metrics::serve(addr, metrics.registry(net_stats)) {
            error!("cannot serve metrics on {addr}: {e}");
            return ExitCode::FAILURE;
        }
        app.add_plugins(MetricsPlugin { metrics });
    }
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
    info!("stopped");
    match exit {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(_) => ExitCode::FAILURE,
    }
}
