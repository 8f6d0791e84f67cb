//! Bans shared by the servers of one PostgreSQL database (ADR 0104). Each write of a ban
//! row notifies the channel `dlmp_bans` at its commit; every server's listener thread holds
//! a connection of its own that LISTENs, and on a notification (or every
//! [`RELOAD_EVERY`], should one be lost with a dropped connection) reads the whole table
//! and hands the snapshot to the tick, which brings its list to it. The tick never waits:
//! snapshots come through a channel it drains.

use std::str::FromStr;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls};
use tracing::{info, warn};

use super::list::Ban;
use super::store::{SELECT, ban_of};
use crate::db::DbValue;

/// The longest time between two reads of the table.
pub const RELOAD_EVERY: Duration = Duration::from_secs(15);

/// Notifications that arrive this close together are answered by one read.
const GATHER: Duration = Duration::from_millis(20);

/// How long the listener waits before it connects again after an error.
const RECONNECT_AFTER: Duration = Duration::from_secs(2);

/// The listener connection's `application_name`.
pub const LISTENER_NAME: &str = "dlmp_bans_listen";

/// Snapshots waiting for the tick; the listener drops older ones when the tick is behind.
const WAITING: usize = 4;

/// The table as it was read.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// When the read began: it has every write committed before.
    pub read_at: Instant,
    pub bans: Vec<Ban>,
}

/// The tick's end of the listener.
#[derive(Debug)]
pub struct SharedBans {
    snapshots: Receiver<Snapshot>,
}

impl SharedBans {
    /// Starts the listener thread on `url`; it ends when this end is dropped.
    pub fn listen(url: &str) -> Result<Self, String> {
        let mut config = Config::from_str(url).map_err(|e| format!("database URL: {e}"))?;
        // Told apart from the pool's connections in pg_stat_activity.
        config.application_name(LISTENER_NAME);
        let (tx, snapshots) = bounded(WAITING);
        std::thread::Builder::new()
            .name("dlmp-bans-listen".into())
            .spawn(move || run(&config, &tx))
            .map_err(|e| e.to_string())?;
        Ok(SharedBans { snapshots })
    }

    /// The snapshots read since the last call, oldest first.
    #[must_use]
    pub fn take(&self) -> Vec<Snapshot> {
        self.snapshots.try_iter().collect()
    }
}

/// Connects, listens and reads until the tick's end is gone.
fn run(config: &Config, tx: &Sender<Snapshot>) {
    let mut connected_once = false;
    loop {
        match config.connect(NoTls) {
            Ok(mut client) => {
                if connected_once {
                    info!("shared bans: listening again");
                }
                connected_once = true;
                match listen(&mut client, tx) {
                    Ok(()) => return,
                    Err(e) => warn!("shared bans: the listener lost its connection: {e}"),
                }
            }
            Err(e) => warn!("shared bans: cannot connect to listen: {e}"),
        }
        std::thread::sleep(RECONNECT_AFTER);
    }
}

/// One connection's life: `Ok` when the tick's end is gone.
fn listen(client: &mut Client, tx: &Sender<Snapshot>) -> Result<(), postgres::Error> {
    client.batch_execute("LISTEN dlmp_bans")?;
    // What changed while this connection was not listening.
    if !send(tx, read(client)?) {
        return Ok(());
    }
    loop {
        let heard = {
            let mut notifications = client.notifications();
            let first = notifications.timeout_iter(RELOAD_EVERY).next()?.is_some();
            if first {
                let mut more = notifications.timeout_iter(GATHER);
                while more.next()?.is_some() {}
            }
            first
        };
        if client.is_closed() {
            return client.batch_execute("SELECT 1");
        }
        if heard {
            tracing::debug!("shared bans: a change was announced");
        }
        if !send(tx, read(client)?) {
            return Ok(());
        }
    }
}

/// Hands a snapshot over; false when the tick's end is gone.
fn send(tx: &Sender<Snapshot>, snapshot: Snapshot) -> bool {
    match tx.try_send(snapshot) {
        Ok(()) | Err(TrySendError::Full(_)) => true,
        Err(TrySendError::Disconnected(_)) => false,
    }
}

fn read(client: &mut Client) -> Result<Snapshot, postgres::Error> {
    let read_at = Instant::now();
    let rows = client.query(SELECT, &[])?;
    let bans = rows
        .iter()
        .filter_map(|row| {
            let text = |i: usize| row.try_get::<_, Option<String>>(i).ok().flatten();
            let int = |i: usize| row.try_get::<_, Option<i64>>(i).ok().flatten();
            let values = vec![
                (String::new(), text(0).map_or(DbValue::Null, DbValue::Text)),
                (String::new(), text(1).map_or(DbValue::Null, DbValue::Text)),
                (String::new(), text(2).map_or(DbValue::Null, DbValue::Text)),
                (String::new(), text(3).map_or(DbValue::Null, DbValue::Text)),
                (
                    String::new(),
                    int(4).map_or(DbValue::Null, DbValue::Integer),
                ),
                (
                    String::new(),
                    int(5).map_or(DbValue::Null, DbValue::Integer),
                ),
                (String::new(), text(6).map_or(DbValue::Null, DbValue::Text)),
            ];
            let ban = ban_of(&values);
            if ban.is_none() {
                warn!("shared bans: a row of dlmp_bans is not a ban: {row:?}");
            }
            ban
        })
        .collect();
    Ok(Snapshot { read_at, bans })
}
