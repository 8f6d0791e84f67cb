//! What crosses between the scripts and the database worker (lua-api.md, "Persistence"):
//! the values of the common subset (INTEGER, REAL, TEXT, BLOB, NULL), statements, the
//! three operations and their answers. Plain data, so the worker interface is I/O-free.

/// A value of the common subset of SQLite and PostgreSQL.
#[derive(Debug, Clone, PartialEq)]
pub enum DbValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// One result row: the columns in the order the query named them.
pub type Row = Vec<(String, DbValue)>;

/// SQL with `?` marks and the values for them, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<DbValue>,
}

impl Statement {
    pub fn new(sql: impl Into<String>, params: Vec<DbValue>) -> Self {
        Statement {
            sql: sql.into(),
            params,
        }
    }
}

/// What a client asks the worker to run.
#[derive(Debug, Clone, PartialEq)]
pub enum DbOp {
    /// `dlmp.db_exec`: answers the number of changed rows.
    Exec(Statement),
    /// `dlmp.db_query`: answers the rows.
    Query(Statement),
    /// `dlmp.db_transaction`: every statement or none.
    Transaction(Vec<Statement>),
}

/// What a successful operation answers.
#[derive(Debug, Clone, PartialEq)]
pub enum DbOutput {
    Changes(u64),
    Rows(Vec<Row>),
    Committed,
}

/// A failed operation: the database's own message, or why it never ran (queue full, the
/// database unreachable), worded for a scripter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError(pub String);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DbError {}

/// The answer to one operation.
pub type DbResult = Result<DbOutput, DbError>;
