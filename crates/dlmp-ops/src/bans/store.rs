//! The bans in the database (lua-api.md: "the server's own tables (bans) live in the same
//! database"), written behind the in-memory list: a changed address is queued, and its
//! row is written from the list as it is when the worker takes it, so writes that fail
//! (a dead database, a full queue) are simply tried again later and never reorder a ban
//! and its lifting (ADR 0032).

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

use tracing::{error, warn};

use super::list::{Ban, BanList};
use crate::db::{DbClient, DbError, DbOp, DbOutput, DbValue, QueryId, Row, Statement};

/// The table, the same SQL on SQLite and PostgreSQL.
pub const CREATE: &str = "CREATE TABLE IF NOT EXISTS dlmp_bans (\
    ip TEXT PRIMARY KEY, name TEXT NOT NULL, banned_by TEXT NOT NULL, reason TEXT NOT NULL, \
    banned_at BIGINT NOT NULL, expires_at BIGINT)";
const SELECT: &str = "SELECT ip, name, banned_by, reason, banned_at, expires_at FROM dlmp_bans";
const UPSERT: &str = "INSERT INTO dlmp_bans (ip, name, banned_by, reason, banned_at, expires_at) \
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (ip) DO UPDATE SET name = excluded.name, \
    banned_by = excluded.banned_by, reason = excluded.reason, banned_at = excluded.banned_at, \
    expires_at = excluded.expires_at";
const DELETE: &str = "DELETE FROM dlmp_bans WHERE ip = ?";

/// How long a failed write waits before it is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// The boot-time load waits this long for each answer (the server is not ticking yet).
const LOAD_WAIT: Duration = Duration::from_secs(30);

/// The write-behind of the ban list.
#[derive(Debug)]
pub struct BanStore {
    client: Option<DbClient>,
    /// Addresses whose row must be written, in order, without repeats.
    dirty: VecDeque<IpAddr>,
    in_flight: VecDeque<(QueryId, IpAddr)>,
    /// Failed writes and when they go again.
    retry: Vec<(Duration, IpAddr)>,
    failures: u64,
}

impl BanStore {
    /// A store writing through `client`; `None` keeps bans in memory only.
    #[must_use]
    pub fn new(client: Option<DbClient>) -> Self {
        BanStore {
            client,
            dirty: VecDeque::new(),
            in_flight: VecDeque::new(),
            retry: Vec::new(),
            failures: 0,
        }
    }

    /// Creates the table and reads every ban; waits for the answers (boot only).
    pub fn load(&mut self) -> Result<Vec<Ban>, DbError> {
        let Some(client) = &mut self.client else {
            return Ok(Vec::new());
        };
        let mut run = |op| -> Result<DbOutput, DbError> {
            let id = client.submit(op)?;
            loop {
                match client.wait_reply(LOAD_WAIT) {
                    Some(reply) if reply.id == id => return reply.result,
                    Some(_) => {}
                    None => return Err(DbError("no answer from the database".into())),
                }
            }
        };
        run(DbOp::Exec(Statement::new(CREATE, vec![])))?;
        let DbOutput::Rows(rows) = run(DbOp::Query(Statement::new(SELECT, vec![])))? else {
            return Err(DbError("the ban query answered no rows".into()));
        };
        let mut bans = Vec::with_capacity(rows.len());
        for row in &rows {
            match ban_of(row) {
                Some(ban) => bans.push(ban),
                None => warn!("a row of dlmp_bans is not a ban: {row:?}"),
            }
        }
        Ok(bans)
    }

    /// Marks `ip`'s row to be written from the list.
    pub fn touch(&mut self, ip: IpAddr) {
        if self.client.is_some() && !self.dirty.contains(&ip) {
            self.dirty.push_back(ip);
        }
    }

    /// Writes failed so far.
    #[must_use]
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// Writes not yet confirmed by the database.
    #[must_use]
    pub fn unconfirmed(&self) -> usize {
        self.dirty.len() + self.in_flight.len() + self.retry.len()
    }

    /// Reads the answers, queues the rows to write as `list` has them, never waiting.
    pub fn flush(&mut self, list: &BanList, now: Duration) {
        let Some(client) = &mut self.client else {
            return;
        };
        while let Some(reply) = client.try_reply() {
            let Some(i) = self.in_flight.iter().position(|(id, _)| *id == reply.id) else {
                continue;
            };
            let Some((_, ip)) = self.in_flight.remove(i) else {
                continue;
            };
            if let Err(e) = reply.result {
                self.failures += 1;
                error!(%ip, "writing the ban failed, trying again in {RETRY_AFTER:?}: {e}");
                self.retry.push((now + RETRY_AFTER, ip));
            }
        }
        let due: Vec<IpAddr> = self
            .retry
            .iter()
            .filter(|(at, _)| *at <= now)
            .map(|(_, ip)| *ip)
            .collect();
        self.retry.retain(|(at, _)| *at > now);
        for ip in due {
            if !self.dirty.contains(&ip) {
                self.dirty.push_back(ip);
            }
        }
        while let Some(&ip) = self.dirty.front() {
            match client.submit(write_of(list, ip)) {
                Ok(id) => {
                    self.dirty.pop_front();
                    self.in_flight.push_back((id, ip));
                }
                // A full queue: the rest go next tick, in order.
                Err(_) => break,
            }
        }
    }
}

/// The write that makes `ip`'s row what the list says.
fn write_of(list: &BanList, ip: IpAddr) -> DbOp {
    let text = |s: &str| DbValue::Text(s.to_owned());
    DbOp::Exec(match list.get(ip) {
        Some(b) => Statement::new(
            UPSERT,
            vec![
                text(&b.ip.to_string()),
                text(&b.name),
                text(&b.by),
                text(&b.reason),
                DbValue::Integer(b.at),
                b.until.map_or(DbValue::Null, DbValue::Integer),
            ],
        ),
        None => Statement::new(DELETE, vec![text(&ip.to_string())]),
    })
}

fn ban_of(row: &Row) -> Option<Ban> {
    let text = |i: usize| match row.get(i).map(|(_, v)| v) {
        Some(DbValue::Text(s)) => Some(s.clone()),
        _ => None,
    };
    let int = |i: usize| match row.get(i).map(|(_, v)| v) {
        Some(DbValue::Integer(n)) => Some(Some(*n)),
        Some(DbValue::Null) => Some(None),
        _ => None,
    };
    Some(Ban {
        ip: text(0)?.parse::<IpAddr>().ok()?.to_canonical(),
        name: text(1)?,
        by: text(2)?,
        reason: text(3)?,
        at: int(4)??,
        until: int(5)?,
    })
}
