//! `dlmp-server`: the server with its built-in features and the gameplay plugins of
//! `plugins/` ([`dlmp_server::ShippedPlugins`]), each off until its `[plugins.NAME]` table.
//! A server with plugins of your own is the same lines with `.add_plugins(..)`.

use std::process::ExitCode;

use dlmp_server::ShippedPlugins;

fn main() -> ExitCode {
    match dlmp::Server::from_args() {
        Ok(server) => server.add_plugins(ShippedPlugins).run(),
        Err(_) => ExitCode::FAILURE,
    }
}
