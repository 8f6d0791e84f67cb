//! `dlmp-server`: the server with its built-in features and no extra plugin. A server
//! with Rust gameplay plugins is the same three lines with `.add_plugins(..)` (see the
//! crate's documentation, and `plugins/`).

use std::process::ExitCode;

fn main() -> ExitCode {
    match dlmp::Server::from_args() {
        Ok(server) => server.run(),
        Err(_) => ExitCode::FAILURE,
    }
}
