//! Server settings (connection.md §7): defaults, a TOML file (`--config`), and flags that
//! override the file.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use serde::{Deserialize, Serialize};

pub use dlmp_player::respawn::{DEFAULT_RESPAWN_DELAY, MAX_RESPAWN_DELAY};
pub use dlmp_world::object::OBJECT_STREAM_DISTANCE;
pub use dlmp_world::pickup::{
    DRAW_DISTANCE as PICKUP_DRAW_DISTANCE, TOUCH_RADIUS as PICKUP_TOUCH_RADIUS,
};

/// Everything the server reads at start. Each field's default is the spec's.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Address the UDP socket binds. Default `127.0.0.1:7777`.
    pub bind: SocketAddr,
    /// Player slots. Default 1000.
    pub max_players: u16,
    /// Simulation rate in ticks a second. Default 50.
    pub tick_hz: u16,
    /// The gamemode resources folder. Default `scripts/`, beside the config file (ADR 0093);
    /// `--scripts` is the working folder's.
    pub scripts: PathBuf,
    /// Resources started at boot; empty means every folder in `scripts` with a manifest.
    pub resources: Vec<String>,
    /// Silence after which a session ends, in milliseconds. Default 10 000 (connection.md
    /// §2); lower it only for tests.
    pub session_timeout_ms: u64,
    /// Seconds between two stats log lines; 0 turns them off. Default 60.
    pub stats_interval_secs: u64,
    /// Lua instructions one script call may run before it is cut off. Default 5 000 000.
    pub script_instruction_budget: u64,
    /// MiB the Lua VM may hold, all resources together; 0 = no limit. Default 128 (ADR
    /// 0021).
    pub script_memory_mb: u64,
    /// Wall time all script calls of one tick may take together, in milliseconds. Default
    /// 20 (ADR 0021).
    pub script_tick_budget_ms: u64,
    /// The least time a player stays dead before a RespawnRequest is granted, in
    /// milliseconds (player.md, RespawnRequest; ADR 0012). Default 3 000; the gamemode may
    /// change it (`dlmp.set_respawn_delay`).
    pub respawn_delay_ms: u64,
    /// The folder of the server's files (the SQLite database). Default `data/`. Like every
    /// relative path of the file, it is beside the config file (ADR 0093).
    pub data_dir: Option<PathBuf>,
    /// The database (lua-api.md, "Persistence"): unset = SQLite `dlmp.sqlite` in
    /// `data_dir`; `postgres://user@host/db` for PostgreSQL; `sqlite:PATH`;
    /// `sqlite::memory:` (tests). ADR 0031; a relative `sqlite:PATH` is beside the config
    /// file (ADR 0093).
    pub database: Option<String>,
    /// Database operations waiting at most; one more fails at once. Default 1024.
    pub db_queue: usize,
    /// Connections the database worker holds (ADR 0044): operations of different resources
    /// run side by side, one resource's in order. Default 4, in 1..=64; SQLite in memory
    /// always uses 1.
    pub db_pool_size: usize,
    /// Tests only: the script pass waits for the database's answers (and the password
    /// worker's, ADR 0105), so each callback runs in the tick after its call.
    #[serde(skip)]
    pub db_wait_for_replies: bool,
    /// Live sessions from one source IP (any port); a hello past it is refused as server
    /// full (ADR 0018). Default 16, so a LAN party behind one address still fits; load tests
    /// from 127.0.0.1 raise it.
    pub max_sessions_per_ip: u16,
    /// Threads that send datagrams: the network thread and `net_send_threads - 1` more on
    /// clones of the socket (ADR 0025). Default 1; more pays only with cores to spare.
    pub net_send_threads: usize,
    /// Datagrams each sending thread's queue holds before it sheds, relays first (ADR
    /// 0025). Default 65 536.
    pub net_outbound_capacity: usize,
    /// Datagrams the server sends in one tick, all sessions together, before it defers
    /// lane traffic (roster fan-out, resends, new events) to the next tick (ADR 0043).
    /// Default 2 000, in 16..=1 000 000.
    pub net_send_budget: usize,
    /// Pickups are shown within this distance of a player's stream center, m (world.md
    /// PickupSync, "the server's draw distance"; ADR 0028). Default 150, in 1..=6000.
    pub pickup_draw_distance: f32,
    /// A PickupTouch is admitted within this distance of the player's last PlayerSync
    /// position, m (ADR 0028). Default 3, in 0.5..=50.
    pub pickup_touch_radius: f32,
    /// An object is shown within this distance of a player's stream center unless its
    /// creator gave it its own (world.md ObjectState; ADR 0047), m. Default 300, in
    /// 1..=6000.
    pub object_stream_distance: f32,
    /// An RC is released farther than this from its remote driver's body, m (vehicles.md
    /// VehicleRemote, `dlmp.rc_range()`; ADR 0069). Default 150, in 1..=180.
    pub rc_range: f32,
    /// The server's name in server browsers (query.md ServerInfo), at most 64 bytes.
    /// Default `dlmp server`. Reloadable.
    pub name: String,
    /// The game mode browsers show, at most 32 bytes, unless a resource sets one
    /// (`dlmp.set_game_mode_text`). Default empty. Reloadable.
    pub gamemode: String,
    /// Free text, at most 16 bytes. Default empty. Reloadable.
    pub language: String,
    /// At most 64 bytes. Default empty. Reloadable.
    pub website: String,
    /// Address of the Prometheus `/metrics` listener; none (the default) serves none.
    pub metrics: Option<SocketAddr>,
    /// Folder for the daily log files (`dlmp.log.DATE`, `chat.log.DATE`), beside the config
    /// file when relative (ADR 0093); none (the default) logs to the console only.
    pub log_dir: Option<PathBuf>,
    /// Address of the web admin panel, served with `/metrics` (ADR 0100); none (the
    /// default) serves no panel. It needs an `[[admin_users]]` account.
    pub admin: Option<SocketAddr>,
    /// The panel's accounts: `[[admin_users]]` tables of `name`, `password_hash` (argon2,
    /// from `dlmp-server --hash-password`) and `role` (`owner` or `moderator`; ADR 0102).
    pub admin_users: Vec<crate::accounts::AdminUser>,
    /// A PEM certificate chain; with `admin_tls_key` the panel speaks HTTPS only.
    pub admin_tls_cert: Option<PathBuf>,
    /// The PEM private key of `admin_tls_cert`.
    pub admin_tls_key: Option<PathBuf>,
    /// A daily restart, `HH:MM` UTC or `HH:MM+02:00` (ADR 0103); none (the default) never.
    pub restart_at: Option<String>,
    /// This server's name in a ban list several servers share (ADR 0104). Default: `name`.
    pub server_id: Option<String>,
    /// A PEM file of CA certificates `dlmp.fetch` trusts instead of the bundled roots (ADR
    /// 0101).
    pub fetch_ca_file: Option<PathBuf>,
    /// Rust gameplay plugins' settings: `[plugins.NAME]` tables, each read by its plugin
    /// (`dlmp::prelude::plugin_settings`); a plugin without a table is off (ADR 0036).
    pub plugins: BTreeMap<String, toml::Value>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: SocketAddr::from(([127, 0, 0, 1], 7777)),
            max_players: 1000,
            tick_hz: 50,
            scripts: PathBuf::from("scripts"),
            resources: Vec::new(),
            session_timeout_ms: 10_000,
            stats_interval_secs: 60,
            script_instruction_budget: 5_000_000,
            script_memory_mb: 128,
            script_tick_budget_ms: 20,
            respawn_delay_ms: 3_000,
            data_dir: None,
            database: None,
            db_queue: 1024,
            db_pool_size: 4,
            db_wait_for_replies: false,
            max_sessions_per_ip: 16,
            net_send_threads: 1,
            net_outbound_capacity: 65_536,
            net_send_budget: 2_000,
            pickup_draw_distance: PICKUP_DRAW_DISTANCE,
            pickup_touch_radius: PICKUP_TOUCH_RADIUS,
            object_stream_distance: OBJECT_STREAM_DISTANCE,
            rc_range: dlmp_vehicle::remote::DEFAULT_RC_RANGE,
            name: "dlmp server".into(),
            gamemode: String::new(),
            language: String::new(),
            website: String::new(),
            metrics: None,
            log_dir: None,
            admin: None,
            admin_users: Vec::new(),
            admin_tls_cert: None,
            admin_tls_key: None,
            restart_at: None,
            server_id: None,
            fetch_ca_file: None,
            plugins: BTreeMap::new(),
        }
    }
}

impl Config {
    pub fn session_timeout(&self) -> Duration {
        Duration::from_millis(self.session_timeout_ms)
    }

    pub fn respawn_delay(&self) -> Duration {
        Duration::from_millis(self.respawn_delay_ms)
    }

    /// This server's name in a shared ban list: `server_id`, else `name`.
    pub fn server_id(&self) -> &str {
        self.server_id.as_deref().unwrap_or(&self.name)
    }

    /// The data folder: `data_dir`, else `data/` in the working folder.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("data"))
    }

    /// One fixed tick.
    pub fn tick(&self) -> Duration {
        Duration::from_secs_f64(1.0 / f64::from(self.tick_hz.max(1)))
    }

    /// Reads a TOML file. Its relative paths are the file's (ADR 0093): `scripts`,
    /// `data_dir` (default `data/`), `log_dir` and a `sqlite:PATH` database are taken from
    /// the file's folder, whatever the working folder the server starts in.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("reading {}: {e}", path.display())))?;
        let mut config: Config =
            toml::from_str(&text).map_err(|e| ConfigError(format!("{}: {e}", path.display())))?;
        config
            .resolve_beside(path.parent().unwrap_or(Path::new("")))
            .map_err(|e| ConfigError(format!("{}: {e}", path.display())))?;
        Ok(config)
    }

    /// Makes the relative paths of a file read in `dir` relative to `dir`.
    fn resolve_beside(&mut self, dir: &Path) -> Result<(), ConfigError> {
        let beside = |p: &Path| dir.join(p);
        self.scripts = beside(&self.scripts);
        self.data_dir = Some(beside(
            self.data_dir.as_deref().unwrap_or(Path::new("data")),
        ));
        self.log_dir = self.log_dir.as_deref().map(beside);
        let sqlite = self
            .database
            .as_deref()
            .and_then(|d| d.strip_prefix("sqlite:"))
            .filter(|p| !p.is_empty() && *p != ":memory:")
            .map(Path::new);
        if let Some(file) = sqlite.filter(|p| p.is_relative()) {
            let joined = beside(file);
            let text = joined.to_str().ok_or_else(|| {
                ConfigError(format!(
                    "database = \"sqlite:{}\": the config file's folder is not UTF-8; give an \
                     absolute path",
                    file.display()
                ))
            })?;
            self.database = Some(format!("sqlite:{text}"));
        }
        Ok(())
    }

    /// The file named by `--config` (or the defaults), then the flags on top.
    pub fn from_cli(cli: &Cli) -> Result<Config, ConfigError> {
        let mut config = match &cli.config {
            Some(path) => Config::from_file(path)?,
            None => Config::default(),
        };
        if let Some(bind) = cli.bind {
            config.bind = bind;
        }
        if let Some(n) = cli.max_players {
            config.max_players = n;
        }
        if let Some(hz) = cli.tick_hz {
            config.tick_hz = hz;
        }
        if let Some(dir) = &cli.scripts {
            config.scripts.clone_from(dir);
        }
        if !cli.resource.is_empty() {
            config.resources.clone_from(&cli.resource);
        }
        if let Some(ms) = cli.respawn_delay_ms {
            config.respawn_delay_ms = ms;
        }
        if let Some(n) = cli.max_sessions_per_ip {
            config.max_sessions_per_ip = n;
        }
        if let Some(n) = cli.net_send_threads {
            config.net_send_threads = n;
        }
        if let Some(addr) = cli.admin {
            config.admin = Some(addr);
        }
        config.validate()?;
        Ok(config)
    }

    /// The settings as a TOML file would say them, for the start-up log.
    pub fn effective(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("(cannot print the settings: {e})"))
    }

    /// Ranges the wire can carry (ServerHello has a u16 `max_players` and `tick_hz`) and
    /// ranges that make a working server; each error names the setting and its range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        in_range("max_players", self.max_players.into(), 1, u16::MAX.into())?;
        in_range("tick_hz", self.tick_hz.into(), 1, 1000)?;
        in_range(
            "session_timeout_ms",
            self.session_timeout_ms,
            100,
            3_600_000,
        )?;
        in_range("stats_interval_secs", self.stats_interval_secs, 0, 86_400)?;
        in_range(
            "script_instruction_budget",
            self.script_instruction_budget,
            1_000,
            u64::from(u32::MAX),
        )?;
        in_range("script_memory_mb", self.script_memory_mb, 0, 65_536)?;
        in_range(
            "script_tick_budget_ms",
            self.script_tick_budget_ms,
            1,
            10_000,
        )?;
        DbTarget::from_config(self.database.as_deref(), &self.data_dir())?;
        if self.max_sessions_per_ip == 0 {
            return Err(ConfigError("max_sessions_per_ip must be at least 1".into()));
        }
        if !(1..=64).contains(&self.net_send_threads) {
            return Err(ConfigError("net_send_threads must be in 1..=64".into()));
        }
        in_range(
            "db_queue",
            u64::try_from(self.db_queue).unwrap_or(u64::MAX),
            1,
            1 << 20,
        )?;
        in_range(
            "db_pool_size",
            u64::try_from(self.db_pool_size).unwrap_or(u64::MAX),
            1,
            64,
        )?;
        in_range(
            "net_send_budget",
            u64::try_from(self.net_send_budget).unwrap_or(u64::MAX),
            16,
            1_000_000,
        )?;
        if self.respawn_delay() > MAX_RESPAWN_DELAY {
            return Err(ConfigError(format!(
                "respawn_delay_ms must be at most {}",
                MAX_RESPAWN_DELAY.as_millis()
            )));
        }
        if !(1.0..=6000.0).contains(&self.pickup_draw_distance) {
            return Err(ConfigError(
                "pickup_draw_distance must be in 1..=6000".into(),
            ));
        }
        if !(1.0..=6000.0).contains(&self.object_stream_distance) {
            return Err(ConfigError(
                "object_stream_distance must be in 1..=6000".into(),
            ));
        }
        if !(1.0..=dlmp_vehicle::remote::MAX_RC_RANGE).contains(&self.rc_range) {
            return Err(ConfigError("rc_range must be in 1..=180".into()));
        }
        if !(0.5..=50.0).contains(&self.pickup_touch_radius) {
            return Err(ConfigError(
                "pickup_touch_radius must be in 0.5..=50".into(),
            ));
        }
        for (key, value, max) in [
            ("name", &self.name, 64),
            ("gamemode", &self.gamemode, 32),
            ("language", &self.language, 16),
            ("website", &self.website, 64),
        ] {
            if value.len() > max || value.contains('\0') {
                return Err(ConfigError(format!(
                    "{key} must be at most {max} bytes of UTF-8 without NUL"
                )));
            }
        }
        self.validate_admin()
    }
}

/// `name`'s `value` in `min..=max`, or an error that says the range.
fn in_range(name: &str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError(format!(
            "{name} = {value} is out of range: it must be in {min}..={max}"
        )))
    }
}

/// The file name of the embedded database in the data folder (lua-api.md).
pub const SQLITE_FILE: &str = "dlmp.sqlite";

/// Which database the worker opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbTarget {
    /// A SQLite file (the default: `dlmp.sqlite` in the data folder).
    SqliteFile(PathBuf),
    /// A private SQLite database in memory (`database = "sqlite::memory:"`; tests).
    SqliteMemory,
    /// A PostgreSQL URL (`database = "postgres://..."`).
    Postgres(String),
}

impl DbTarget {
    /// The target the config names: `database` if set (a `postgres://` or `postgresql://`
    /// URL, `sqlite:PATH` or `sqlite::memory:`), else the file in `data_dir`.
    pub fn from_config(
        database: Option<&str>,
        data_dir: &std::path::Path,
    ) -> Result<Self, ConfigError> {
        match database {
            None => Ok(DbTarget::SqliteFile(data_dir.join(SQLITE_FILE))),
            Some("sqlite::memory:") => Ok(DbTarget::SqliteMemory),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(DbTarget::Postgres(url.to_owned()))
            }
            Some(url) => match url.strip_prefix("sqlite:") {
                Some(path) if !path.is_empty() => Ok(DbTarget::SqliteFile(PathBuf::from(path))),
                _ => Err(ConfigError(format!(
                    "database = {url:?}: expected postgres://..., sqlite:PATH or sqlite::memory:"
                ))),
            },
        }
    }
}

/// A setting that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// `dlmp-server` flags; each overrides the config file.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "dlmp-server",
    version,
    about = "A server for the DLMP protocol"
)]
pub struct Cli {
    /// A TOML file with any of the settings below.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Address to bind [default: 127.0.0.1:7777].
    #[arg(long)]
    pub bind: Option<SocketAddr>,
    /// Player slots [default: 1000].
    #[arg(long)]
    pub max_players: Option<u16>,
    /// Simulation rate in ticks a second [default: 50].
    #[arg(long)]
    pub tick_hz: Option<u16>,
    /// Gamemode resources folder [default: scripts/].
    #[arg(long)]
    pub scripts: Option<PathBuf>,
    /// A resource to start at boot (repeatable) [default: every resource in the folder].
    #[arg(long)]
    pub resource: Vec<String>,
    /// Least time dead before a respawn, ms [default: 3000].
    #[arg(long)]
    pub respawn_delay_ms: Option<u64>,
    /// Live sessions from one IP [default: 16].
    #[arg(long)]
    pub max_sessions_per_ip: Option<u16>,
    /// Threads that send datagrams [default: 1].
    #[arg(long)]
    pub net_send_threads: Option<usize>,
    /// The admin panel's address, e.g. 127.0.0.1:8080 [default: no panel].
    #[arg(long)]
    pub admin: Option<SocketAddr>,
    /// Read a password on stdin, print its argon2 hash for `[[admin_users]]`, and exit.
    #[arg(long)]
    pub hash_password: bool,
}

impl From<&Config> for dlmp_script::ScriptLimits {
    fn from(config: &Config) -> Self {
        dlmp_script::ScriptLimits {
            instruction_budget: config.script_instruction_budget,
            memory: usize::try_from(config.script_memory_mb.saturating_mul(1 << 20))
                .unwrap_or(usize::MAX),
            tick_time: std::time::Duration::from_millis(config.script_tick_budget_ms),
        }
    }
}

impl From<&Config> for dlmp_vehicle::remote::RcSettings {
    fn from(config: &Config) -> Self {
        dlmp_vehicle::remote::RcSettings {
            range: config.rc_range,
        }
    }
}

impl From<&Config> for dlmp_world::pickup::PickupSettings {
    fn from(config: &Config) -> Self {
        dlmp_world::pickup::PickupSettings {
            draw_distance: config.pickup_draw_distance,
            touch_radius: config.pickup_touch_radius,
        }
    }
}

impl From<&Config> for dlmp_world::object::ObjectSettings {
    fn from(config: &Config) -> Self {
        dlmp_world::object::ObjectSettings {
            stream_distance: config.object_stream_distance,
        }
    }
}

/// The longest admin account name.
const MAX_ADMIN_NAME: usize = 32;

impl Config {
    /// The panel's settings hold together: an address needs an account (there is no
    /// default one), every hash is an argon2 hash, names are unique, a certificate comes
    /// with its key.
    fn validate_admin(&self) -> Result<(), ConfigError> {
        if let Some(addr) = self.admin
            && self.admin_users.is_empty()
        {
            return Err(ConfigError(format!(
                "admin = \"{addr}\" turns the admin panel on, but there is no [[admin_users]] \
                 account (name, password_hash from `dlmp-server --hash-password`, role); \
                 there is no default account"
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for user in &self.admin_users {
            let valid = !user.name.is_empty()
                && user.name.len() <= MAX_ADMIN_NAME
                && user
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
            if !valid {
                return Err(ConfigError(format!(
                    "admin_users: name {:?} must be 1..={MAX_ADMIN_NAME} letters, digits, _ - or .",
                    user.name
                )));
            }
            if !seen.insert(user.name.to_ascii_lowercase()) {
                return Err(ConfigError(format!(
                    "admin_users: the name {} is there twice",
                    user.name
                )));
            }
            crate::password::check_hash(&user.password_hash).map_err(|e| {
                ConfigError(format!(
                    "admin_users: the password_hash of {}: {e}; make one with \
                     `dlmp-server --hash-password`",
                    user.name
                ))
            })?;
        }
        if self.admin_tls_cert.is_some() != self.admin_tls_key.is_some() {
            return Err(ConfigError(
                "admin_tls_cert and admin_tls_key go together: set both or neither".into(),
            ));
        }
        if let Some(at) = &self.restart_at {
            crate::restart::daily::DailyTime::parse(at)
                .map_err(|e| ConfigError(format!("restart_at = {at:?}: {e}")))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_table() {
        let c = Config::default();
        assert_eq!(c.bind.to_string(), "127.0.0.1:7777");
        assert_eq!((c.max_players, c.tick_hz), (1000, 50));
        assert_eq!(c.scripts, PathBuf::from("scripts"));
        assert!(c.resources.is_empty());
        assert_eq!(c.session_timeout(), Duration::from_secs(10));
        assert_eq!(c.respawn_delay(), Duration::from_secs(3));
        assert_eq!(c.max_sessions_per_ip, 16);
    }

    #[test]
    fn flags_override_the_file() {
        let dir = std::env::temp_dir().join(format!("dlmp-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("server.toml");
        std::fs::write(
            &path,
            "bind = \"0.0.0.0:9000\"\nmax_players = 64\ntick_hz = 30\n",
        )
        .expect("write");
        let cli = Cli::parse_from([
            "dlmp-server",
            "--config",
            path.to_str().expect("utf-8 path"),
            "--tick-hz",
            "60",
            "--resource",
            "freeroam",
            "--resource",
            "race",
            "--respawn-delay-ms",
            "5000",
            "--max-sessions-per-ip",
            "200",
        ]);
        let c = Config::from_cli(&cli).expect("valid");
        assert_eq!(c.bind.to_string(), "0.0.0.0:9000");
        assert_eq!(c.max_players, 64);
        assert_eq!(c.tick_hz, 60);
        assert_eq!(c.resources, ["freeroam", "race"]);
        assert_eq!(c.respawn_delay_ms, 5000);
        assert_eq!(c.max_sessions_per_ip, 200);
        assert_eq!(
            c.data_dir,
            Some(dir.join("data")),
            "data/ beside the config file"
        );
        assert_eq!(Config::default().data_dir(), PathBuf::from("data"));
    }

    #[test]
    fn database_settings_are_checked() {
        let c: Config =
            toml::from_str("database = \"postgres://u@h/db\"\ndb_queue = 8").expect("valid");
        assert_eq!(
            (c.database.as_deref(), c.db_queue),
            (Some("postgres://u@h/db"), 8)
        );
        assert!(c.validate().is_ok());
        let bad: Config = toml::from_str("database = \"mysql://h/db\"").expect("parses");
        assert!(bad.validate().is_err());
        let bad: Config = toml::from_str("db_queue = 0").expect("parses");
        assert!(bad.validate().is_err());
        assert!(
            toml::from_str::<Config>("db_wait_for_replies = true").is_err(),
            "not a TOML key"
        );
    }

    #[test]
    fn pickup_distances_are_read_and_checked() {
        let c: Config = toml::from_str("pickup_draw_distance = 200.0\npickup_touch_radius = 2.5")
            .expect("valid");
        assert_eq!(
            (c.pickup_draw_distance, c.pickup_touch_radius),
            (200.0, 2.5)
        );
        assert!(c.validate().is_ok());
        for bad in [
            "pickup_draw_distance = 0.0",
            "pickup_draw_distance = nan",
            "pickup_touch_radius = 51.0",
            "object_stream_distance = 0.5",
            "object_stream_distance = 6001.0",
        ] {
            let c: Config = toml::from_str(bad).expect("parses");
            assert!(c.validate().is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        assert!(toml::from_str::<Config>("bnd = \"x\"").is_err());
        let cli = Cli {
            tick_hz: Some(0),
            ..Cli::default()
        };
        assert!(Config::from_cli(&cli).is_err());
        let cli = Cli {
            respawn_delay_ms: Some(3_600_001),
            ..Cli::default()
        };
        assert!(Config::from_cli(&cli).is_err());
    }

    #[test]
    fn settings_out_of_range_name_the_setting_and_its_range() {
        for (toml_line, name) in [
            ("session_timeout_ms = 0", "session_timeout_ms"),
            ("session_timeout_ms = 999999999", "session_timeout_ms"),
            ("max_players = 0", "max_players"),
            ("tick_hz = 5000", "tick_hz"),
            ("stats_interval_secs = 100000000", "stats_interval_secs"),
            (
                "script_instruction_budget = 10",
                "script_instruction_budget",
            ),
            ("script_memory_mb = 10000000", "script_memory_mb"),
            ("script_tick_budget_ms = 0", "script_tick_budget_ms"),
            ("db_queue = 0", "db_queue"),
            ("db_pool_size = 0", "db_pool_size"),
            ("db_pool_size = 65", "db_pool_size"),
            ("net_send_budget = 15", "net_send_budget"),
        ] {
            let c: Config = toml::from_str(toml_line).expect("parses");
            let e = c.validate().expect_err(toml_line);
            assert!(
                e.0.starts_with(name) && e.0.contains("must be in"),
                "{toml_line}: {e}"
            );
        }
        assert!(Config::default().validate().is_ok());
    }

    #[test]
    fn every_relative_path_of_the_file_is_beside_the_file_and_a_flag_is_the_working_folders() {
        let dir = std::env::temp_dir().join(format!("dlmp-config-paths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("server.toml");
        std::fs::write(
            &path,
            "scripts = \"gm\"\ndata_dir = \"state\"\nlog_dir = \"logs\"\n\
             database = \"sqlite:db/main.sqlite\"\n",
        )
        .expect("write");
        let file = path.to_str().expect("UTF-8 path");
        let c =
            Config::from_cli(&Cli::parse_from(["dlmp-server", "--config", file])).expect("valid");
        assert_eq!(c.scripts, dir.join("gm"));
        assert_eq!(c.data_dir(), dir.join("state"));
        assert_eq!(c.log_dir, Some(dir.join("logs")));
        assert_eq!(
            DbTarget::from_config(c.database.as_deref(), &c.data_dir()),
            Ok(DbTarget::SqliteFile(dir.join("db/main.sqlite")))
        );
        let absolute = std::env::temp_dir().join("elsewhere");
        let text = format!(
            "data_dir = {0:?}\nlog_dir = {0:?}\ndatabase = \"sqlite:{1}\"\n",
            absolute.to_str().expect("UTF-8 path"),
            absolute.join("x.sqlite").to_str().expect("UTF-8 path")
        );
        std::fs::write(&path, text).expect("write");
        let c = Config::from_file(&path).expect("valid");
        assert_eq!(c.data_dir(), absolute, "an absolute path stays");
        assert_eq!(c.log_dir.as_deref(), Some(absolute.as_path()));
        assert_eq!(
            DbTarget::from_config(c.database.as_deref(), &c.data_dir()),
            Ok(DbTarget::SqliteFile(absolute.join("x.sqlite")))
        );
        std::fs::write(&path, "database = \"sqlite::memory:\"\n").expect("write");
        let c = Config::from_file(&path).expect("valid");
        assert_eq!(c.database.as_deref(), Some("sqlite::memory:"));
        let c = Config::from_cli(&Cli::parse_from(["dlmp-server"])).expect("defaults");
        assert_eq!(
            (c.scripts.clone(), c.data_dir()),
            (PathBuf::from("scripts"), PathBuf::from("data")),
            "without a file, the working folder's"
        );
    }

    #[test]
    fn scripts_are_beside_the_config_file_and_plugin_tables_are_kept() {
        let dir = std::env::temp_dir().join(format!("dlmp-config-rel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("server.toml");
        std::fs::write(
            &path,
            "scripts = \"gm\"\n[plugins.anticheat]\nkick_at = 9\n",
        )
        .expect("write");
        let cli = Cli {
            config: Some(path),
            ..Cli::default()
        };
        let c = Config::from_cli(&cli).expect("valid");
        assert_eq!(c.scripts, dir.join("gm"));
        let table = c.plugins.get("anticheat").expect("kept");
        assert_eq!(
            table.get("kick_at").and_then(toml::Value::as_integer),
            Some(9)
        );
        let printed = c.effective();
        assert!(printed.contains("kick_at = 9"), "{printed}");
        assert!(printed.contains("max_players = 1000"), "{printed}");
        let cli = Cli {
            scripts: Some(PathBuf::from("elsewhere")),
            ..cli
        };
        assert_eq!(
            Config::from_cli(&cli).expect("valid").scripts,
            PathBuf::from("elsewhere"),
            "a flag is the working folder's"
        );
    }
}
