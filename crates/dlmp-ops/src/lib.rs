//! Running a DLMP server: the config file ([`config`]), the database ([`db`]), bans
//! ([`bans`], ConnectRefused reason 4), the server query's app side ([`query`], query.md),
//! metrics ([`metrics`]), the stdin console ([`console`]), logs ([`logs`]), the periodic
//! stats line ([`stats`]), map files ([`map`], `dlmp.load_map`), scheduled restarts
//! ([`restart`]), the admin accounts ([`accounts`]) and password hashes ([`password`]),
//! each a bevy plugin or a library the assembly (`dlmp`) wires in.
//!
//! Operations may read every feature crate; no feature crate reads operations: what a
//! feature needs from here (a setting, a Lua function) is filled in from here.

pub mod accounts;
pub mod bans;
pub mod config;
pub mod console;
pub mod db;
pub mod logs;
pub mod map;
pub mod metrics;
pub mod password;
pub mod query;
pub mod restart;
pub mod stats;
