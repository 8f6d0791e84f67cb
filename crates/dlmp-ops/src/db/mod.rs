//! The database for gamemodes and the server's own tables (lua-api.md, "Persistence, with
//! exact signatures"; ADR 0031): an embedded SQLite file by default, PostgreSQL as the
//! option, behind a small pool of worker threads (ADR 0044) so the tick never waits on a
//! query.

pub mod backend;
pub mod placeholders;
mod plugin;
pub mod postgres;
pub mod script;
pub mod sqlite;
pub mod value;
pub mod worker;

pub use crate::config::{DbTarget, SQLITE_FILE};
pub use backend::Backend;
pub use plugin::{Database, DbPlugin, DbSettings};
pub use value::{DbError, DbOp, DbOutput, DbResult, DbValue, Row, Statement};
pub use worker::{DbClient, DbWorker, QueryId, Reply};
