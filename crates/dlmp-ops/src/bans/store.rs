//! The bans in the database (lua-api.md: "the server's own tables (bans) live in the same
//! database"), written behind the in-memory list: a changed address is queued, and its
//! row is written from the list as it is when the worker takes it, so writes that fail
//! (a dead database, a full queue) are simply tried again later and never reorder a ban
//! and its lifting (ADR 0032).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

use tracing::{error, warn};

use super::list::{Ban, BanList};
use crate::db::{DbClient, DbError, DbOp, DbOutput, DbValue, QueryId, Row, Statement};

/// The table, the same SQL on SQLite and PostgreSQL.
pub const CREATE: &str = "CREATE TABLE IF NOT EXISTS dlmp_bans (\
    ip TEXT PRIMARY KEY, name TEXT NOT NULL, banned_by TEXT NOT NULL, reason TEXT NOT NULL, \
    banned_at BIGINT NOT NULL, expires_at BIGINT, server TEXT NOT NULL DEFAULT '')";
/// A table made before bans recorded their server gets the column (an error when it is
/// there already is expected and ignored).
const ADD_SERVER: &str = "ALTER TABLE dlmp_bans ADD COLUMN server TEXT NOT NULL DEFAULT ''";
pub(crate) const SELECT: &str =
    "SELECT ip, name, banned_by, reason, banned_at, expires_at, server FROM dlmp_bans";
const UPSERT: &str = "INSERT INTO dlmp_bans \
    (ip, name, banned_by, reason, banned_at, expires_at, server) \
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ip) DO UPDATE SET name = excluded.name, \
    banned_by = excluded.banned_by, reason = excluded.reason, banned_at = excluded.banned_at, \
    expires_at = excluded.expires_at, server = excluded.server";
const DELETE: &str = "DELETE FROM dlmp_bans WHERE ip = ?";
/// Tells the other servers of a shared PostgreSQL database that a row changed, at commit.
const NOTIFY: &str = "SELECT pg_notify('dlmp_bans', ?)";

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
    /// The other servers' changes (a PostgreSQL database; ADR 0104).
    shared: Option<super::shared::SharedBans>,
    /// When each recent write of this server was confirmed: a snapshot of the table read
    /// before that may not have it.
    confirmed: HashMap<IpAddr, Instant>,
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
            shared: None,
            confirmed: HashMap::new(),
        }
    }

    /// Shares the bans with the other servers of this PostgreSQL database: every write
    /// notifies them, and their changes come from `shared`.
    #[must_use]
    pub fn shared(mut self, shared: super::shared::SharedBans) -> Self {
        self.shared = Some(shared);
        self
    }

    /// Whether bans are written to a database.
    #[must_use]
    pub fn has_database(&self) -> bool {
        self.client.is_some()
    }

    /// Whether the table is shared with other servers.
    #[must_use]
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// The snapshots of the table the listener read since the last call.
    pub fn take_snapshots(&mut self) -> Vec<super::shared::Snapshot> {
        self.shared
            .as_ref()
            .map(super::shared::SharedBans::take)
            .unwrap_or_default()
    }

    /// Whether a snapshot read at `read_at` knows this server's last word on `ip`: no write
    /// of it waits, and the last one was confirmed before the snapshot was read.
    #[must_use]
    pub fn settled(&self, ip: IpAddr, read_at: Instant) -> bool {
        !self.dirty.contains(&ip)
            && !self.in_flight.iter().any(|(_, i)| *i == ip)
            && !self.retry.iter().any(|(_, i)| *i == ip)
            && self.confirmed.get(&ip).is_none_or(|at| *at < read_at)
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
        let _ = run(DbOp::Exec(Statement::new(ADD_SERVER, vec![])));
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
            match reply.result {
                Ok(_) => {
                    self.confirmed.insert(ip, Instant::now());
                }
                Err(e) => {
                    self.failures += 1;
                    error!(%ip, "writing the ban failed, trying again in {RETRY_AFTER:?}: {e}");
                    self.retry.push((now + RETRY_AFTER, ip));
                }
            }
        }
        self.confirmed
            .retain(|_, at| at.elapsed() < super::shared::RELOAD_EVERY * 2);
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
        let shared = self.shared.is_some();
        while let Some(&ip) = self.dirty.front() {
            match client.submit(write_of(list, ip, shared)) {
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

/// The write that makes `ip`'s row what the list says; in a `shared` table, with the
/// notification the other servers listen for.
fn write_of(list: &BanList, ip: IpAddr, shared: bool) -> DbOp {
    let text = |s: &str| DbValue::Text(s.to_owned());
    let write = match list.get(ip) {
        Some(b) => Statement::new(
            UPSERT,
            vec![
                text(&b.ip.to_string()),
                text(&b.name),
                text(&b.by),
                text(&b.reason),
                DbValue::Integer(b.at),
                b.until.map_or(DbValue::Null, DbValue::Integer),
                text(&b.server),
            ],
        ),
        None => Statement::new(DELETE, vec![text(&ip.to_string())]),
    };
    if shared {
        DbOp::Transaction(vec![
            write,
            Statement::new(NOTIFY, vec![text(&ip.to_string())]),
        ])
    } else {
        DbOp::Exec(write)
    }
}

pub(crate) fn ban_of(row: &Row) -> Option<Ban> {
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
        server: text(6).unwrap_or_default(),
    })
}
