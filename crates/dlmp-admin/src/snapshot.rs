//! What the tick publishes for the panel, about once a second: plain data the HTTP side
//! reads without touching the world.

use serde::Serialize;

/// One second of the dashboard's history.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the Unix epoch.
    pub at: i64,
    pub tick_p50_ms: f64,
    pub tick_p99_ms: f64,
    /// The process's CPU time in that second, in percent of one core; `None` where the
    /// system does not tell.
    pub cpu_percent: Option<f64>,
}

/// The dashboard's numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Health {
    pub players: usize,
    pub max_players: u16,
    pub datagrams_in: u64,
    pub datagrams_out: u64,
    pub script_errors: u64,
    pub db_queue: usize,
    pub uptime_secs: u64,
    /// The last 15 minutes, oldest first.
    pub history: Vec<Sample>,
}

/// A connected player.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerRow {
    pub id: u32,
    pub name: String,
    pub address: String,
    pub ping_ms: Option<u64>,
    /// `alive`, `dead` or `not spawned`.
    pub state: &'static str,
    pub health: Option<f32>,
    pub armor: Option<f32>,
    pub position: Option<[f32; 3]>,
    pub virtual_world: u32,
    pub interior: u8,
    /// The vehicle the player sits in, by id.
    pub vehicle: Option<u32>,
}

/// A vehicle, for the map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VehicleRow {
    pub id: u32,
    pub model: u16,
    pub model_name: String,
    pub position: [f32; 3],
    pub virtual_world: u32,
    pub interior: u8,
    pub driver: Option<String>,
}

/// A resource on disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceRow {
    pub name: String,
    pub running: bool,
    /// Its last errors, oldest first.
    pub errors: Vec<String>,
}

/// A ban in force.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BanRow {
    pub ip: String,
    pub name: String,
    pub by: String,
    pub reason: String,
    /// `YYYY-MM-DD HH:MM UTC`.
    pub at: String,
    /// `None`: permanent.
    pub until: Option<String>,
    /// The server it was made on.
    pub server: String,
}

/// Everything the panel shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Snapshot {
    /// Rises with each snapshot.
    pub version: u64,
    pub server_name: String,
    pub health: Health,
    pub players: Vec<PlayerRow>,
    pub vehicles: Vec<VehicleRow>,
    pub resources: Vec<ResourceRow>,
    pub bans: Vec<BanRow>,
    /// The daily restart time, as the config writes it.
    pub restart_daily: Option<String>,
    /// The next restart, `YYYY-MM-DD HH:MM UTC`.
    pub restart_next: Option<String>,
    /// Bans not yet written to the database.
    pub bans_unconfirmed: usize,
}
