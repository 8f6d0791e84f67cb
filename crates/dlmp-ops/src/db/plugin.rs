//! The database in the app: the worker started at build from the settings, kept as the
//! [`Database`] resource (dropped, it finishes the queue), and a client for the scripts
//! put into the Lua VM (`dlmp.db_*`, [`crate::db::script`]).

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::{error, info};

use super::backend::Backend;
use super::postgres::Postgres;
use super::sqlite::Sqlite;
use super::value::DbError;
use super::worker::{DbClient, DbWorker};
use crate::config::DbTarget;
use crate::db::script::ScriptDb;
use dlmp_script::{ScriptApi, ScriptSystems};

impl DbTarget {
    /// `size` connections; a private in-memory SQLite database is one connection's, so
    /// it gets one whatever `size` says.
    fn open_pool(&self, size: usize) -> Result<Vec<Box<dyn Backend>>, DbError> {
        let size = match self {
            DbTarget::SqliteMemory => 1,
            _ => size.max(1),
        };
        (0..size).map(|_| self.open()).collect()
    }

    fn open(&self) -> Result<Box<dyn Backend>, DbError> {
        Ok(match self {
            DbTarget::SqliteFile(path) => Box::new(Sqlite::open(path)?),
            DbTarget::SqliteMemory => Box::new(Sqlite::memory()?),
            DbTarget::Postgres(url) => Box::new(Postgres::new(url)?),
        })
    }

    /// For the log: the file, or the URL without its password.
    fn describe(&self) -> String {
        match self {
            DbTarget::SqliteFile(path) => format!("SQLite {}", path.display()),
            DbTarget::SqliteMemory => "SQLite in memory".to_owned(),
            DbTarget::Postgres(url) => match (url.find("://"), url.rfind('@')) {
                (Some(s), Some(at)) if at > s => {
                    format!("PostgreSQL {}{}", &url[..s + 3], &url[at + 1..])
                }
                _ => format!("PostgreSQL {url}"),
            },
        }
    }
}

/// Database settings.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct DbSettings {
    pub target: DbTarget,
    /// Operations waiting for the worker at most; one more fails at once. Default 1024.
    pub queue: usize,
    /// Connections of the pool (ADR 0044). Default 4.
    pub pool: usize,
    /// Deterministic tests: the script pass waits for the answers of the queries made
    /// before it, so a callback runs in the tick after its query. Never for a server.
    pub wait_for_replies: bool,
}

/// The running worker.
#[derive(Resource, Debug)]
pub struct Database {
    worker: DbWorker,
}

impl Database {
    /// A new client of the worker (each has its own answers).
    #[must_use]
    pub fn client(&self) -> DbClient {
        self.worker.client()
    }

    /// Operations waiting for the worker now.
    #[must_use]
    pub fn queued(&self) -> usize {
        self.worker.queued()
    }

    /// Connections of the pool.
    #[must_use]
    pub fn connections(&self) -> usize {
        self.worker.connections()
    }

    /// The operation-time histogram the worker records (`/metrics`).
    #[must_use]
    pub fn query_seconds(&self) -> prometheus_client::metrics::histogram::Histogram {
        self.worker.query_seconds()
    }
}

/// Starts the worker. Add it after the script plugin, whose VM gets the scripts' client.
/// A database that does not open is logged; the scripts' calls then fail with that error.
pub struct DbPlugin {
    pub settings: DbSettings,
}

impl Plugin for DbPlugin {
    fn build(&self, app: &mut App) {
        let settings = self.settings.clone();
        app.insert_resource(settings.clone());
        let opened = settings
            .target
            .open_pool(settings.pool)
            .and_then(|backends| {
                DbWorker::spawn_pool(backends, settings.queue)
                    .map_err(|e| DbError(format!("starting the database worker: {e}")))
            });
        let scripts_client = match opened {
            Ok(worker) => {
                info!(
                    queue = settings.queue,
                    connections = worker.connections(),
                    "database: {}",
                    settings.target.describe()
                );
                let client = worker.client();
                app.insert_resource(Database { worker });
                (Ok(client), settings.wait_for_replies)
            }
            Err(e) => {
                error!("database {}: {e}", settings.target.describe());
                (Err(e), false)
            }
        };
        let mut api = app.world_mut().get_resource_or_init::<ScriptApi>();
        api.functions(|lua, dlmp, resource| super::script::install(lua, dlmp, resource.id))
            .setup(move |lua, _| {
                let (client, wait_for_replies) = scripts_client;
                lua.set_app_data(ScriptDb::new(client, wait_for_replies));
            });
        app.add_systems(
            FixedUpdate,
            super::script::deliver.in_set(ScriptSystems::Deliver),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    #[test]
    fn the_config_names_the_target() {
        let data = Path::new("srv/data");
        assert_eq!(
            DbTarget::from_config(None, data),
            Ok(DbTarget::SqliteFile(PathBuf::from("srv/data/dlmp.sqlite")))
        );
        assert_eq!(
            DbTarget::from_config(Some("sqlite::memory:"), data),
            Ok(DbTarget::SqliteMemory)
        );
        assert_eq!(
            DbTarget::from_config(Some("sqlite:/var/x.db"), data),
            Ok(DbTarget::SqliteFile(PathBuf::from("/var/x.db")))
        );
        assert_eq!(
            DbTarget::from_config(Some("postgresql://u@h/db"), data),
            Ok(DbTarget::Postgres("postgresql://u@h/db".into()))
        );
        assert!(DbTarget::from_config(Some("mysql://h/db"), data).is_err());
    }

    #[test]
    fn the_log_hides_the_password() {
        let t = DbTarget::Postgres("postgres://dlmp:secret@db.local:5432/game".into());
        assert_eq!(t.describe(), "PostgreSQL postgres://db.local:5432/game");
    }
}
