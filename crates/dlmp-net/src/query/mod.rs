//! The server query (query.md), answered on the network thread without the app: the app
//! publishes a [`QuerySnapshot`] on a [`QueryBoard`] at the end of a tick, and the thread
//! answers each request from the latest one ([`answer`]), after the per-IP limit
//! ([`QueryLimiter`]). A query never becomes an [`Inbound`](super::Inbound).

mod answer;
mod board;
mod limit;
mod snapshot;

pub use answer::{answer, is_query};
pub use board::QueryBoard;
pub use limit::{QUERY_LIMIT, QueryLimiter};
pub use snapshot::{QuerySnapshot, ServerFacts};

#[cfg(test)]
mod tests;
