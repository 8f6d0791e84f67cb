//! `dlmp-query HOST:PORT [info|players|rules]`: asks a DLMP server what a server browser
//! would (query.md) and prints it. Exit status 1 when the server does not answer.

use std::net::ToSocketAddrs;
use std::process::ExitCode;

use dlmp::query::client::{QueryClient, format_info, format_players, format_rules};

const USAGE: &str = "usage: dlmp-query HOST:PORT [info|players|rules]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (target, what) = match args.as_slice() {
        [target] => (target, "info"),
        [target, what] => (target, what.as_str()),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let Some(server) = target.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
        eprintln!("dlmp-query: cannot resolve {target}");
        return ExitCode::from(2);
    };
    let result = QueryClient::new(server).and_then(|mut client| match what {
        "info" => client.info().map(|i| format_info(&i)),
        "players" => client.players().map(|p| format_players(&p)),
        "rules" => client.rules().map(|r| format_rules(&r)),
        _ => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, USAGE)),
    });
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dlmp-query: {e}");
            ExitCode::FAILURE
        }
    }
}
