//! `dlmp-load` flags.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Where the bots stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shape {
    /// Uniform over the 12 km map.
    Spread,
    /// Clusters of 50, far enough apart that no cluster sees another.
    City,
}

/// A load generator for a dlmp server: bots that join, spawn, walk and acknowledge like
/// clients, and a report of what the server delivered and what it cost.
#[derive(Debug, Clone, Parser)]
#[command(name = "dlmp-load", version)]
pub struct Args {
    /// The server to load.
    #[arg(long, default_value = "127.0.0.1:7777")]
    pub server: SocketAddr,
    /// Start this dlmp-server binary on a free loopback port (and stop it at the end).
    #[arg(long)]
    pub spawn_server: Option<PathBuf>,
    /// The gamemode folder of a spawned server; it needs freeroam's `/tp x y z`.
    #[arg(long, default_value = "scripts")]
    pub scripts: PathBuf,
    /// Pin a spawned server to this core (taskset).
    #[arg(long)]
    pub server_core: Option<usize>,
    /// Read CPU and memory of this server process from /proc.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Bots.
    #[arg(long, default_value_t = 100)]
    pub bots: usize,
    #[arg(long, value_enum, default_value_t = Shape::City)]
    pub shape: Shape,
    /// 1 single packets, 2 bundles (connection.md §1).
    #[arg(long, default_value_t = 1)]
    pub protocol: u16,
    /// Seconds measured, after everyone joined.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Longest wait for every bot to join, spawn and teleport before measuring anyway.
    #[arg(long, default_value_t = 30.0)]
    pub join_timeout: f64,
    /// Bots per source address (127.1.x.y); the server limits sessions per address.
    #[arg(long, default_value_t = 16)]
    pub per_ip: usize,
    /// Hellos a second while joining.
    #[arg(long, default_value_t = 200.0)]
    pub hello_rate: f64,
    /// PlayerSync frames a second per bot.
    #[arg(long, default_value_t = 30.0)]
    pub hz: f64,
    /// Of the bots, this many (spread evenly over them) get a vehicle with freeroam's
    /// `/v 411`, enter it and drive a loop near home, sending VehicleFrames at `--vehicle-hz`.
    #[arg(long, default_value_t = 0)]
    pub drivers: usize,
    /// Vehicles the bots spawn with `/v MODEL` where they walk and leave parked (spread
    /// over every bot, before the window). Freeroam keeps 3 a player, a driver's own
    /// included: at most `3 × bots` (`2 × bots` with drivers).
    #[arg(long, default_value_t = 0)]
    pub parked: usize,
    /// VehicleFrames a second per driver (vehicles.md allows 31 on average).
    #[arg(long, default_value_t = 30.0)]
    pub vehicle_hz: f64,
    /// Seed of the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Junk datagrams a second from one source address (127.2.0.1) at the server, instead
    /// of bots, for `--seconds`: well-formed PlayerSync under random tokens.
    #[arg(long)]
    pub flood: Option<f64>,
    /// With `--flood`: random bytes instead of PlayerSync under random tokens.
    #[arg(long)]
    pub flood_random: bool,
    /// 20 bots in one city for 2 s, then check correctness (exit 1 if it fails).
    #[arg(long)]
    pub smoke: bool,
}
