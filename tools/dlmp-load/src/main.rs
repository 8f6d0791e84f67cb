//! `dlmp-load`: a load generator for a dlmp server, built on the server's own codec.
//!
//! N bots over several source addresses of 127.0.0.0/8 join, spawn, are teleported home
//! by freeroam's `/tp`, and walk at 30 frames a second in one of two shapes (`spread`,
//! `city`); each acknowledges every event. With `--drivers` some of them get a vehicle
//! (`/v`), enter it and drive it at 30 VehicleFrames a second; `--parked` vehicles are
//! spawned by the bots and left where they walk. The report gives frames due and sent, relays due
//! (from the bots' own positions and the streaming distances) and delivered, latency
//! percentiles from kernel receive timestamps, the server's CPU per thread and memory from
//! /proc, and a bare `sendto` floor measured in the same run. README "Load" has the
//! command lines; docs/decisions/0026-load-tool.md the choices.

#![allow(unreachable_pub, reason = "a binary: its modules are private anyway")]

mod bot;
mod cli;
mod drive;
mod flood;
mod floor;
mod procfs;
mod recv;
mod report;
mod run;
mod server;
mod shape;
mod tally;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Args, Shape};

/// The smoke run's drivers and parked vehicles, unless the flags give others.
const SMOKE_DRIVERS: usize = 4;
const SMOKE_PARKED: usize = 4;
/// The vehicles of `/v` freeroam keeps for one player.
const FREEROAM_VEHICLES: usize = 3;

fn main() -> ExitCode {
    let mut args = Args::parse();
    if args.smoke {
        args.bots = 20;
        args.seconds = 2.0;
        args.shape = Shape::City;
        args.join_timeout = args.join_timeout.min(20.0);
        if args.drivers == 0 && args.parked == 0 {
            args.drivers = SMOKE_DRIVERS;
            args.parked = SMOKE_PARKED;
        }
    }
    if args.drivers > args.bots {
        eprintln!("dlmp-load: --drivers must not exceed --bots");
        return ExitCode::FAILURE;
    }
    if args.parked.div_ceil(args.bots.max(1)) + usize::from(args.drivers > 0) > FREEROAM_VEHICLES {
        eprintln!(
            "dlmp-load: freeroam keeps at most {FREEROAM_VEHICLES} vehicles a player (the next \
             removes the oldest): --parked spread over --bots, plus a driver's own, must fit"
        );
        return ExitCode::FAILURE;
    }
    if let Some(rate) = args.flood {
        let from = std::net::SocketAddr::from(([127, 2, 0, 1], 0));
        return match flood::flood(args.server, from, rate, args.seconds, args.flood_random) {
            Ok(f) => {
                println!(
                    "flooded {} datagrams in {:.1} s ({:.0} a second)",
                    f.datagrams,
                    f.seconds,
                    f.datagrams as f64 / f.seconds
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("dlmp-load: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if !matches!(args.protocol, 1 | 2) {
        eprintln!("dlmp-load: --protocol must be 1 or 2");
        return ExitCode::FAILURE;
    }
    match run_all(&args) {
        Ok(report) => {
            if args.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(text) => println!("{text}"),
                    Err(e) => eprintln!("dlmp-load: {e}"),
                }
            } else {
                print!("{}", report.text());
            }
            if args.smoke {
                let failures = report.smoke_failures();
                for f in &failures {
                    eprintln!("dlmp-load smoke: {f}");
                }
                if !failures.is_empty() {
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dlmp-load: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_all(args: &Args) -> std::io::Result<report::Report> {
    let floor = floor::measure(100_000)?;
    let spawned = match &args.spawn_server {
        Some(path) => Some(server::Spawned::start(path, args)?),
        None => None,
    };
    let addr = spawned.as_ref().map_or(args.server, |s| s.addr);
    let pid = spawned.as_ref().map(|s| s.pid).or(args.server_pid);
    let outcome = run::run(args, addr, pid);
    if let Some(server) = spawned {
        server.stop();
    }
    Ok(report::Report::new(args, floor, outcome?))
}
