//! `dlmp-server-plugins`: `dlmp-server` with the gameplay plugins of this folder. Each is
//! off until the config has its `[plugins.NAME]` table.

use std::process::ExitCode;

use dlmp_anticheat::AntiCheatPlugin;
use dlmp_idle_kick::IdleKickPlugin;

fn main() -> ExitCode {
    match dlmp::Server::from_args() {
        Ok(server) => server.add_plugins((AntiCheatPlugin, IdleKickPlugin)).run(),
        Err(_) => ExitCode::FAILURE,
    }
}
