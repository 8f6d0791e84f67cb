//! `dlmp.db_exec`, `dlmp.db_query`, `dlmp.db_transaction` (lua-api.md, "Persistence, with
//! exact signatures"). A call queues the operation on the database worker and returns at
//! once; its callback runs in a later script pass, in the order the queries were made
//! (`deliver`, after the timers). A failed query passes its error to the callback; a
//! stopped resource's callbacks are dropped (its queries still finish). Decisions: ADR 0031.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use mlua::{Error, Function, Lua, MultiValue, Result, Table, Value, Variadic};

use crate::db::{DbClient, DbError, DbOp, DbOutput, DbResult, DbValue, QueryId, Statement};
use bevy_ecs::system::NonSendMut;
use dlmp_script::ResourceId;
use dlmp_script::api::args;
use dlmp_script::host::ScriptHost;

/// How long the deterministic test mode waits for one answer before it gives up (the
/// callback then gets an error; a wedged worker must not hang a test forever).
const TEST_WAIT: Duration = Duration::from_secs(60);

/// Which call made a query: it decides the callback's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Exec,
    Query,
    Transaction,
}

/// A query whose callback has not run yet.
#[derive(Debug)]
struct Pending {
    /// `None` when the query never reached the worker (the queue was full).
    id: Option<QueryId>,
    resource: ResourceId,
    kind: Kind,
    callback: Option<Function>,
    result: Option<DbResult>,
}

/// The scripts' side of the database, as Lua app data: the worker's client (or why there
/// is none) and the callbacks waiting, in query order.
#[derive(Debug)]
pub struct ScriptDb {
    client: std::result::Result<DbClient, DbError>,
    wait_for_replies: bool,
    pending: VecDeque<Pending>,
    arrived: HashMap<QueryId, DbResult>,
}

impl ScriptDb {
    pub(crate) fn new(
        client: std::result::Result<DbClient, DbError>,
        wait_for_replies: bool,
    ) -> Self {
        ScriptDb {
            client,
            wait_for_replies,
            pending: VecDeque::new(),
            arrived: HashMap::new(),
        }
    }

    /// Queries whose callback has not run.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    fn submit(
        &mut self,
        resource: ResourceId,
        kind: Kind,
        op: DbOp,
        callback: Option<Function>,
    ) -> std::result::Result<(), DbError> {
        let submitted = match &mut self.client {
            // One resource's queries run on one connection, in its order (ADR 0044).
            Ok(client) => client.submit_keyed(u64::from(resource.0), op),
            Err(e) => Err(DbError(format!("no database: {e}"))),
        };
        let (id, result, outcome) = match submitted {
            Ok(id) => (Some(id), None, Ok(())),
            Err(e) => (None, Some(Err(e.clone())), Err(e)),
        };
        self.pending.push_back(Pending {
            id,
            resource,
            kind,
            callback,
            result,
        });
        outcome
    }

    /// The answered queries at the front of the queue, in query order, with what their
    /// callbacks get. In the test mode it first waits for the answers of every query
    /// queued so far.
    fn ready(&mut self) -> Vec<Pending> {
        if let Ok(client) = &self.client {
            while let Some(reply) = client.try_reply() {
                self.arrived.insert(reply.id, reply.result);
            }
        }
        let mut ready = Vec::new();
        let waiting = if self.wait_for_replies {
            self.pending.len()
        } else {
            0
        };
        let mut index = 0;
        while let Some(front) = self.pending.front_mut() {
            if front.result.is_none()
                && let Some(id) = front.id
            {
                front.result = self.arrived.remove(&id);
                if front.result.is_none() && index < waiting {
                    front.result = Some(wait_for(&self.client, id, &mut self.arrived));
                }
            }
            if front.result.is_none() {
                break;
            }
            ready.extend(self.pending.pop_front());
            index += 1;
        }
        ready
    }
}

/// Blocks (test mode only) until the answer of `id` arrives, keeping the others.
fn wait_for(
    client: &std::result::Result<DbClient, DbError>,
    id: QueryId,
    arrived: &mut HashMap<QueryId, DbResult>,
) -> DbResult {
    let Ok(client) = client else {
        return Err(DbError("no database".into()));
    };
    loop {
        match client.wait_reply(TEST_WAIT) {
            Some(reply) if reply.id == id => return reply.result,
            Some(reply) => {
                arrived.insert(reply.id, reply.result);
            }
            None => return Err(DbError("no answer from the database worker".into())),
        }
    }
}

/// Runs the callbacks of the answered queries, in query order, each with the instruction
/// budget of a call. Called once per script pass, after the timers.
pub(crate) fn deliver(mut host: NonSendMut<ScriptHost>) {
    let ready = match host.lua().app_data_mut::<ScriptDb>() {
        Some(mut db) if !db.pending.is_empty() => db.ready(),
        _ => return,
    };
    for done in ready {
        let (Some(callback), Some(result)) = (done.callback, done.result) else {
            continue;
        };
        if !host.is_running(done.resource) {
            continue;
        }
        host.call_for(done.resource, "database callback", |lua| {
            let args = callback_args(lua, done.kind, result)?;
            callback.call::<()>(args)
        });
    }
}

/// `fn(changes, err)`, `fn(rows, err)`, `fn(ok, err)`.
fn callback_args(lua: &Lua, kind: Kind, result: DbResult) -> Result<MultiValue> {
    let (value, err) = match result {
        Ok(DbOutput::Changes(n)) => (
            Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)),
            Value::Nil,
        ),
        Ok(DbOutput::Rows(rows)) => {
            let list = lua.create_table_with_capacity(rows.len(), 0)?;
            for row in rows {
                let t = lua.create_table_with_capacity(0, row.len())?;
                for (name, v) in row {
                    t.raw_set(name, to_lua(lua, v)?)?;
                }
                list.raw_push(t)?;
            }
            (Value::Table(list), Value::Nil)
        }
        Ok(DbOutput::Committed) => (Value::Boolean(true), Value::Nil),
        Err(e) => {
            let failed = if kind == Kind::Transaction {
                Value::Boolean(false)
            } else {
                Value::Nil
            };
            (failed, Value::String(lua.create_string(e.0)?))
        }
    };
    Ok(MultiValue::from_iter([value, err]))
}

fn to_lua(lua: &Lua, v: DbValue) -> Result<Value> {
    Ok(match v {
        DbValue::Null => Value::Nil,
        DbValue::Integer(i) => Value::Integer(i),
        DbValue::Real(f) => Value::Number(f),
        DbValue::Text(s) => Value::String(lua.create_string(s)?),
        DbValue::Blob(b) => Value::String(lua.create_string(b)?),
    })
}

/// Lua → SQL: integer → INTEGER, float → REAL, string → TEXT (BLOB when it is not UTF-8),
/// `nil` → NULL, boolean → INTEGER 0/1.
fn to_db(func: &str, arg: &str, v: &Value) -> Result<DbValue> {
    Ok(match v {
        Value::Nil => DbValue::Null,
        Value::Boolean(b) => DbValue::Integer(i64::from(*b)),
        Value::Integer(i) => DbValue::Integer(*i),
        Value::Number(n) => DbValue::Real(*n),
        Value::String(s) => match s.to_str() {
            Ok(text) => DbValue::Text(text.to_owned()),
            Err(_) => DbValue::Blob(s.as_bytes().to_vec()),
        },
        other => {
            return Err(Error::runtime(format!(
                "{func}: {arg} is a {}; expected nil, boolean, number or string",
                other.type_name()
            )));
        }
    })
}

/// A params list: positions 1..=n, where n is the largest index (a `nil` inside the list
/// is NULL).
fn params(func: &str, arg: &str, v: &Value) -> Result<Vec<DbValue>> {
    let Some(table) = args::table_or_nil(func, arg, v)? else {
        return Ok(Vec::new());
    };
    let mut by_index = std::collections::BTreeMap::new();
    for pair in table.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let index = match k {
            Value::Integer(i) if (1..=i64::from(u16::MAX)).contains(&i) => i as usize,
            other => {
                return Err(Error::runtime(format!(
                    "{func}: {arg} must be a list of values, it has the key {}",
                    match &other {
                        Value::String(s) => format!("\"{}\"", s.to_string_lossy()),
                        v => v.type_name().to_owned(),
                    }
                )));
            }
        };
        by_index.insert(index, to_db(func, &format!("{arg}[{index}]"), &v)?);
    }
    let n = by_index.keys().next_back().copied().unwrap_or(0);
    Ok((1..=n)
        .map(|i| by_index.remove(&i).unwrap_or(DbValue::Null))
        .collect())
}

/// The statement of `sql` and `params`.
fn statement(func: &str, sql: &Value, params_arg: &Value) -> Result<Statement> {
    let sql = args::string(func, "sql", sql)?;
    let params = params(func, "params", params_arg)?;
    Ok(padded(sql, params))
}

/// A Lua list cannot end in `nil`: marks past the list's end are NULL.
fn padded(sql: String, mut params: Vec<DbValue>) -> Statement {
    let marks = crate::db::placeholders::count(&sql);
    if params.len() < marks {
        params.resize(marks, DbValue::Null);
    }
    Statement::new(sql, params)
}

/// `(sql [, params] [, fn])`: a function in the params place is the callback.
fn sql_params_fn(a: &Variadic<Value>) -> (Value, Value, Value) {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
    match arg(1) {
        Value::Function(f) if arg(2).is_nil() => (arg(0), Value::Nil, Value::Function(f)),
        params => (arg(0), params, arg(2)),
    }
}

fn callback_or_nil(func: &str, v: Value) -> Result<Option<Function>> {
    if v.is_nil() {
        Ok(None)
    } else {
        args::function(func, "fn", v).map(Some)
    }
}

/// Queues `op` for `resource`; returns `true`, or `false, err` when it failed at once (the
/// callback gets the same error).
fn queue(
    lua: &Lua,
    resource: ResourceId,
    kind: Kind,
    op: DbOp,
    callback: Option<Function>,
) -> Result<(bool, Option<String>)> {
    let mut db = lua
        .app_data_mut::<ScriptDb>()
        .ok_or_else(|| Error::runtime("the database is not available in this server"))?;
    Ok(match db.submit(resource, kind, op, callback) {
        Ok(()) => (true, None),
        Err(e) => (false, Some(e.0)),
    })
}

/// Adds the database functions to `dlmp` of `resource`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "db_exec",
        lua.create_function(move |lua, a: Variadic<Value>| {
            const F: &str = "db_exec";
            let (sql, params, func) = sql_params_fn(&a);
            let statement = statement(F, &sql, &params)?;
            let callback = callback_or_nil(F, func)?;
            queue(lua, resource, Kind::Exec, DbOp::Exec(statement), callback)
        })?,
    )?;
    dlmp.set(
        "db_query",
        lua.create_function(move |lua, a: Variadic<Value>| {
            const F: &str = "db_query";
            let (sql, params, func) = sql_params_fn(&a);
            let statement = statement(F, &sql, &params)?;
            let callback = args::function(F, "fn", func)?;
            queue(
                lua,
                resource,
                Kind::Query,
                DbOp::Query(statement),
                Some(callback),
            )
        })?,
    )?;
    dlmp.set(
        "db_transaction",
        lua.create_function(move |lua, (list, func): (Value, Value)| {
            const F: &str = "db_transaction";
            let Value::Table(list) = list else {
                return Err(Error::runtime(format!(
                    "{F}: statements must be a list of {{sql, params}}, got {}",
                    list.type_name()
                )));
            };
            let mut statements = Vec::new();
            for (i, entry) in list.sequence_values::<Value>().enumerate() {
                let arg = format!("statements[{}]", i + 1);
                let Value::Table(entry) = entry? else {
                    return Err(Error::runtime(format!(
                        "{F}: {arg} must be a table {{sql, params}}"
                    )));
                };
                let sql = args::string(F, &format!("{arg}[1] (sql)"), &entry.raw_get(1)?)?;
                let params = params(F, &format!("{arg}[2] (params)"), &entry.raw_get(2)?)?;
                statements.push(padded(sql, params));
            }
            let callback = callback_or_nil(F, func)?;
            queue(
                lua,
                resource,
                Kind::Transaction,
                DbOp::Transaction(statements),
                callback,
            )
        })?,
    )?;
    Ok(())
}
