//! The embedded default (lua-api.md, "Persistence"): a SQLite file, `dlmp.sqlite` in the
//! data folder, in WAL mode so a reader never blocks the writer; or a private in-memory
//! database for tests.

use std::path::Path;
use std::time::Duration;

use rusqlite::types::{ToSql, ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, params_from_iter};

use super::backend::Backend;
use super::value::{DbError, DbOp, DbOutput, DbResult, DbValue, Row, Statement};

/// A SQLite connection.
#[derive(Debug)]
pub struct Sqlite {
    conn: Connection,
}

fn error(e: rusqlite::Error) -> DbError {
    DbError(e.to_string())
}

impl Sqlite {
    /// Opens (creating it and its folder if needed) the file at `path`, in WAL mode.
    pub fn open(path: &Path) -> Result<Self, DbError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| DbError(format!("creating {}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path)
            .map_err(|e| DbError(format!("opening {}: {e}", path.display())))?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(error)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(DbError(format!(
                "{}: WAL mode refused (journal_mode is {mode})",
                path.display()
            )));
        }
        Self::tuned(conn)
    }

    /// A private database in memory, gone when the worker stops.
    pub fn memory() -> Result<Self, DbError> {
        Self::tuned(Connection::open_in_memory().map_err(error)?)
    }

    fn tuned(conn: Connection) -> Result<Self, DbError> {
        conn.busy_timeout(Duration::from_secs(5)).map_err(error)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(error)?;
        Ok(Sqlite { conn })
    }

    /// The journal mode in force (`wal` for a file).
    pub fn journal_mode(&self) -> Result<String, DbError> {
        self.conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .map_err(error)
    }
}

impl ToSql for DbValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            DbValue::Null => ToSqlOutput::Owned(Value::Null),
            DbValue::Integer(i) => ToSqlOutput::Owned(Value::Integer(*i)),
            DbValue::Real(f) => ToSqlOutput::Owned(Value::Real(*f)),
            DbValue::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            DbValue::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

fn value(v: ValueRef<'_>) -> DbValue {
    match v {
        ValueRef::Null => DbValue::Null,
        ValueRef::Integer(i) => DbValue::Integer(i),
        ValueRef::Real(f) => DbValue::Real(f),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => DbValue::Text(s.to_owned()),
            Err(_) => DbValue::Blob(t.to_vec()),
        },
        ValueRef::Blob(b) => DbValue::Blob(b.to_vec()),
    }
}

fn execute(conn: &Connection, s: &Statement) -> rusqlite::Result<u64> {
    let mut stmt = conn.prepare_cached(&s.sql)?;
    let changed = stmt.execute(params_from_iter(s.params.iter()))?;
    Ok(changed as u64)
}

fn query(conn: &Connection, s: &Statement) -> rusqlite::Result<Vec<Row>> {
    let mut stmt = conn.prepare_cached(&s.sql)?;
    let names: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let mut rows = stmt.query(params_from_iter(s.params.iter()))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut columns = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            columns.push((name.clone(), value(row.get_ref(i)?)));
        }
        out.push(columns);
    }
    Ok(out)
}

/// Every statement or none: dropping the transaction on an error rolls it back.
fn transaction(conn: &mut Connection, list: &[Statement]) -> rusqlite::Result<DbOutput> {
    let tx = conn.transaction()?;
    for s in list {
        execute(&tx, s)?;
    }
    tx.commit().map(|()| DbOutput::Committed)
}

impl Backend for Sqlite {
    fn run(&mut self, op: &DbOp) -> DbResult {
        match op {
            DbOp::Exec(s) => execute(&self.conn, s).map(DbOutput::Changes),
            DbOp::Query(s) => query(&self.conn, s).map(DbOutput::Rows),
            DbOp::Transaction(list) => transaction(&mut self.conn, list),
        }
        .map_err(error)
    }

    fn engine(&self) -> &'static str {
        "sqlite"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(db: &mut Sqlite, sql: &str, params: Vec<DbValue>) -> DbResult {
        db.run(&DbOp::Exec(Statement::new(sql, params)))
    }

    #[test]
    fn values_of_the_common_subset_round_trip() {
        let mut db = Sqlite::memory().unwrap();
        exec(
            &mut db,
            "CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)",
            vec![],
        )
        .unwrap();
        let row = vec![
            DbValue::Integer(-7),
            DbValue::Real(1.5),
            DbValue::Text("héllo".into()),
            DbValue::Blob(vec![0, 255]),
            DbValue::Null,
        ];
        assert_eq!(
            exec(&mut db, "INSERT INTO t VALUES (?, ?, ?, ?, ?)", row.clone()),
            Ok(DbOutput::Changes(1))
        );
        let Ok(DbOutput::Rows(rows)) =
            db.run(&DbOp::Query(Statement::new("SELECT * FROM t", vec![])))
        else {
            panic!("no rows");
        };
        let names: Vec<&str> = rows[0].iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["i", "r", "s", "b", "n"]);
        let values: Vec<DbValue> = rows[0].iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(values, row);
    }

    #[test]
    fn a_failed_transaction_leaves_nothing() {
        let mut db = Sqlite::memory().unwrap();
        exec(&mut db, "CREATE TABLE t (k INTEGER PRIMARY KEY)", vec![]).unwrap();
        let insert = |k| Statement::new("INSERT INTO t VALUES (?)", vec![DbValue::Integer(k)]);
        let failed = db.run(&DbOp::Transaction(vec![insert(1), insert(2), insert(1)]));
        assert!(failed.unwrap_err().0.contains("UNIQUE"));
        let Ok(DbOutput::Rows(rows)) =
            db.run(&DbOp::Query(Statement::new("SELECT k FROM t", vec![])))
        else {
            panic!("no rows");
        };
        assert!(rows.is_empty());
        assert_eq!(
            db.run(&DbOp::Transaction(vec![insert(1), insert(2)])),
            Ok(DbOutput::Committed)
        );
    }

    #[test]
    fn a_file_is_in_wal_mode() {
        let dir = std::env::temp_dir().join(format!("dlmp-sqlite-wal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let db = Sqlite::open(&dir.join("sub").join("dlmp.sqlite")).unwrap();
        assert_eq!(db.journal_mode().unwrap(), "wal");
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn sql_errors_are_errors() {
        let mut db = Sqlite::memory().unwrap();
        let e = exec(&mut db, "SELEC nonsense", vec![]).unwrap_err();
        assert!(e.0.contains("syntax error"), "{e}");
        let e = exec(&mut db, "SELECT ?", vec![]).unwrap_err();
        assert!(!e.0.is_empty());
    }
}
