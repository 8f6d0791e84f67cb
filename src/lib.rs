//! dlmp: a server for the DLMP protocol. The spec lives in `../shared/spec/`.

pub mod bans;
pub mod chat;
pub mod config;
pub mod console;
pub mod db;
pub mod harness;
pub mod lane;
pub mod logs;
pub mod metrics;
pub mod net;
pub mod player;
pub mod protocol;
pub mod query;
pub mod script;
pub mod serial;
pub mod server;
pub mod session;
pub mod streaming;
pub mod world;
