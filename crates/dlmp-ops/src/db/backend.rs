//! The worker's one dependency: a database that runs one operation at a time. The worker
//! loop ([`super::worker`]) knows nothing else, so it is tested without I/O and each
//! engine (SQLite, PostgreSQL) is one implementation.

use super::value::{DbOp, DbResult};

/// A database connection (or a reconnecting one) that the worker thread owns.
pub trait Backend: Send {
    /// Runs `op` to the end: an exec or a query, or a transaction that commits every
    /// statement or none.
    fn run(&mut self, op: &DbOp) -> DbResult;

    /// For logs: `sqlite` or `postgres`.
    fn engine(&self) -> &'static str;
}
