//! lua-api.md "Persistence, with exact signatures" in the harness: `dlmp.db_exec`,
//! `dlmp.db_query` and `dlmp.db_transaction` against the embedded SQLite, and the same
//! suite against a real PostgreSQL server when `DLMP_TEST_POSTGRES` names one (`.ci/run`
//! starts one); without it those tests say they were skipped and why. The harness runs
//! the database in its deterministic mode: the script pass waits for the answers of the
//! queries made before it, so each callback runs in the tick after its query.

use dlmp::config::Config;
use dlmp::harness::{Harness, TempScripts};
use dlmp::script::ScriptHost;

/// The env var naming the test PostgreSQL server (`postgres://user@host:port/db`).
const PG_ENV: &str = "DLMP_TEST_POSTGRES";

/// Ticks a test steps at most while waiting for its callbacks.
const MAX_STEPS: usize = 200;

/// The PostgreSQL URL, or `None` after saying why the test is skipped.
fn postgres(test: &str) -> Option<String> {
    match std::env::var(PG_ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            eprintln!(
                "{test}: skipped: {PG_ENV} is not set (no PostgreSQL server to test against; .ci/run starts one)"
            );
            None
        }
    }
}

/// A resource `gm` that puts its `dlmp` table and a `log` list in the globals, so the test
/// can issue queries as that resource and read what the callbacks wrote.
fn harness(
    test: &str,
    database: &str,
    config: impl FnOnce(Config) -> Config,
) -> (TempScripts, Harness) {
    let s = TempScripts::new(test);
    s.resource("gm", r#"rawset(_G, "gm", dlmp); rawset(_G, "log", {})"#);
    let url = database.to_owned();
    let h = s.harness_with(|c| {
        config(Config {
            database: Some(url),
            ..c
        })
    });
    (s, h)
}

fn run(h: &Harness, code: &str) {
    if let Err(e) = h.script_host().lua().load(code).exec() {
        panic!("{code}: {e}");
    }
}

fn log(h: &Harness) -> Vec<String> {
    let lua = h.script_host().lua();
    let log: mlua::Table = lua.globals().get("log").expect("the log");
    log.sequence_values::<String>()
        .map(|v| v.expect("a string"))
        .collect()
}

/// Steps until the log has `n` lines (bounded, no sleeps).
fn step_until(h: &mut Harness, n: usize) -> Vec<String> {
    for _ in 0..MAX_STEPS {
        if log(h).len() >= n {
            break;
        }
        h.step();
    }
    log(h)
}

const SQLITE: &str = "sqlite::memory:";

// --- the suite, once per engine ---

fn values_round_trip_and_callbacks_run_in_query_order(db: &str) {
    let (_s, mut h) = harness("db-roundtrip", db, |c| c);
    run(
        &h,
        r#"
        local function note(what) return function(n, err) log[#log + 1] = what .. " " .. tostring(n) .. " " .. tostring(err) end end
        gm.db_exec("DROP TABLE IF EXISTS dbt_roundtrip", note("drop"))
        gm.db_exec("CREATE TABLE dbt_roundtrip (id INTEGER PRIMARY KEY, name TEXT, score REAL, flag INTEGER, note TEXT)", {}, note("create"))
        gm.db_exec("INSERT INTO dbt_roundtrip (id, name, score, flag, note) VALUES (?, ?, ?, ?, ?)", {1, "CJ", 2.5, true, nil}, note("insert"))
        gm.db_exec("INSERT INTO dbt_roundtrip (id, name, score, flag, note) VALUES (?, ?, ?, ?, ?)", {2, "it's ?", -1.0, false}, note("insert"))
        gm.db_query("SELECT id, name, score, flag, note FROM dbt_roundtrip WHERE id >= ? ORDER BY id", {1}, function(rows, err)
            for _, r in ipairs(rows) do
                log[#log + 1] = string.format("%s %s|%s|%s|%s|%s", math.type(r.id), r.id, r.name, r.score, r.flag, tostring(r.note))
            end
            log[#log + 1] = "rows " .. #rows .. " " .. tostring(err)
        end)
        "#,
    );
    assert!(log(&h).is_empty(), "callbacks never run inside the call");
    let log = step_until(&mut h, 7);
    assert_eq!(
        log[1..],
        [
            "create 0 nil",
            "insert 1 nil",
            "insert 1 nil",
            "integer 1|CJ|2.5|1|nil",
            "integer 2|it's ?|-1.0|0|nil",
            "rows 2 nil",
        ]
    );
    assert!(
        log[0].starts_with("drop ") && log[0].ends_with(" nil"),
        "{log:?}"
    );
}

fn errors_reach_the_callback_and_bad_arguments_raise(db: &str) {
    let (_s, mut h) = harness("db-errors", db, |c| c);
    run(
        &h,
        r#"
        gm.db_query("SELECT * FROM dbt_no_such_table", function(rows, err) log[#log + 1] = tostring(rows) .. " " .. err end)
        gm.db_exec("INSERT INTO dbt_no_such_table VALUES (?)", {1}, function(n, err) log[#log + 1] = tostring(n) .. " " .. err end)
        gm.db_query("SELECT 1 + 1 AS two", function(rows, err) log[#log + 1] = "two " .. rows[1].two end)
        local ok, e = pcall(gm.db_exec, 42)
        log[#log + 1] = tostring(e)
        ok, e = pcall(gm.db_query, "SELECT 1")
        log[#log + 1] = tostring(e)
        ok, e = pcall(gm.db_exec, "SELECT ?", {{}})
        log[#log + 1] = tostring(e)
        ok, e = pcall(gm.db_transaction, {"SELECT 1"})
        log[#log + 1] = tostring(e)
        "#,
    );
    let log = step_until(&mut h, 7);
    assert!(log[0].contains("db_exec: sql must be a string"), "{log:?}");
    assert!(
        log[1].contains("db_query: fn must be a function"),
        "{log:?}"
    );
    assert!(log[2].contains("db_exec: params[1] is a table"), "{log:?}");
    assert!(
        log[3].contains("db_transaction: statements[1] must be a table"),
        "{log:?}"
    );
    assert!(
        log[4].starts_with("nil ") && log[4].contains("dbt_no_such_table"),
        "{log:?}"
    );
    assert!(
        log[5].starts_with("nil ") && log[5].contains("dbt_no_such_table"),
        "{log:?}"
    );
    assert_eq!(log[6], "two 2");
    assert_eq!(
        h.script_host().errors(),
        0,
        "an error reaches the callback, never the log"
    );
}

fn a_transaction_is_all_or_nothing(db: &str) {
    let (_s, mut h) = harness("db-transaction", db, |c| c);
    run(
        &h,
        r#"
        local function count(label)
            gm.db_query("SELECT count(*) AS n FROM dbt_tx", function(rows) log[#log + 1] = label .. " " .. rows[1].n end)
        end
        local ins = "INSERT INTO dbt_tx (k) VALUES (?)"
        gm.db_transaction({{"DROP TABLE IF EXISTS dbt_tx"}, {"CREATE TABLE dbt_tx (k INTEGER PRIMARY KEY)"}})
        gm.db_transaction({{ins, {1}}, {ins, {2}}, {ins, {1}}}, function(ok, err) log[#log + 1] = tostring(ok) .. " " .. tostring(err ~= nil) end)
        count("after failed")
        gm.db_transaction({{ins, {1}}, {ins, {2}}}, function(ok, err) log[#log + 1] = tostring(ok) .. " " .. tostring(err) end)
        count("after committed")
        "#,
    );
    let log = step_until(&mut h, 4);
    assert_eq!(
        log,
        [
            "false true",
            "after failed 0",
            "true nil",
            "after committed 2"
        ]
    );
}

fn a_stopped_resources_callbacks_are_dropped_but_its_queries_finish(db: &str) {
    let s = TempScripts::new("db-stop");
    s.resource("gm", r#"rawset(_G, "gm", dlmp); rawset(_G, "log", {})"#);
    s.resource("probe", r#"rawset(_G, "probe", dlmp)"#);
    let url = db.to_owned();
    let mut h = s.harness_with(|c| Config {
        database: Some(url),
        ..c
    });
    run(
        &h,
        r#"
        gm.db_exec("DROP TABLE IF EXISTS dbt_stop")
        gm.db_exec("CREATE TABLE dbt_stop (k INTEGER)")
        gm.db_exec("INSERT INTO dbt_stop VALUES (7)", function() log[#log + 1] = "gm callback" end)
        "#,
    );
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("gm runs");
    // The next script pass takes gm's answers (the harness waits for them) and drops its
    // callback. Another resource's query runs on its own connection of the pool (ADR
    // 0044), so it asks after that.
    h.step();
    run(
        &h,
        r#"probe.db_query("SELECT k FROM dbt_stop", function(rows) log[#log + 1] = "rows " .. #rows .. " k " .. rows[1].k end)"#,
    );
    let log = step_until(&mut h, 1);
    assert_eq!(log, ["rows 1 k 7"]);
}

#[test]
fn sqlite_values_round_trip_and_callbacks_run_in_query_order() {
    values_round_trip_and_callbacks_run_in_query_order(SQLITE);
}

#[test]
fn sqlite_errors_reach_the_callback_and_bad_arguments_raise() {
    errors_reach_the_callback_and_bad_arguments_raise(SQLITE);
}

#[test]
fn sqlite_a_transaction_is_all_or_nothing() {
    a_transaction_is_all_or_nothing(SQLITE);
}

#[test]
fn sqlite_a_stopped_resources_callbacks_are_dropped_but_its_queries_finish() {
    a_stopped_resources_callbacks_are_dropped_but_its_queries_finish(SQLITE);
}

#[test]
fn postgres_values_round_trip_and_callbacks_run_in_query_order() {
    if let Some(url) = postgres("postgres_values_round_trip") {
        values_round_trip_and_callbacks_run_in_query_order(&url);
    }
}

#[test]
fn postgres_errors_reach_the_callback_and_bad_arguments_raise() {
    if let Some(url) = postgres("postgres_errors_reach_the_callback") {
        errors_reach_the_callback_and_bad_arguments_raise(&url);
    }
}

#[test]
fn postgres_a_transaction_is_all_or_nothing() {
    if let Some(url) = postgres("postgres_a_transaction_is_all_or_nothing") {
        a_transaction_is_all_or_nothing(&url);
    }
}

#[test]
fn postgres_a_stopped_resources_callbacks_are_dropped_but_its_queries_finish() {
    if let Some(url) = postgres("postgres_a_stopped_resource") {
        a_stopped_resources_callbacks_are_dropped_but_its_queries_finish(&url);
    }
}

/// Two resources `a` and `b` on a pool of `pool` connections.
fn two_resources(test: &str, database: &str, pool: usize) -> (TempScripts, Harness) {
    let s = TempScripts::new(test);
    for name in ["a", "b"] {
        s.resource(
            name,
            &format!(
                r#"rawset(_G, "g{name}", dlmp); rawset(_G, "log", rawget(_G, "log") or {{}})"#
            ),
        );
    }
    let url = database.to_owned();
    let h = s.harness_with(|c| Config {
        database: Some(url),
        db_pool_size: pool,
        ..c
    });
    (s, h)
}

/// ADR 0044: on a pool, each resource's queries run in its own order (every SELECT reads
/// the resource's writes before it) and the callbacks of all come in query order.
fn a_pool_keeps_each_resources_order_and_the_callbacks_in_query_order(db: &str, pool: usize) {
    let (_s, mut h) = two_resources("db-pool", db, pool);
    assert_eq!(
        h.world().resource::<dlmp::db::Database>().connections(),
        pool
    );
    run(
        &h,
        r#"
        for _, g in ipairs({ {ga, "dbt_pool_a"}, {gb, "dbt_pool_b"} }) do
            g[1].db_exec("DROP TABLE IF EXISTS " .. g[2])
            g[1].db_exec("CREATE TABLE " .. g[2] .. " (id INTEGER PRIMARY KEY)")
        end
        for i = 1, 30 do
            for _, g in ipairs({ {ga, "dbt_pool_a", "a"}, {gb, "dbt_pool_b", "b"} }) do
                g[1].db_exec("INSERT INTO " .. g[2] .. " (id) VALUES (?)", {i})
                g[1].db_query("SELECT count(*) AS n FROM " .. g[2], function(rows, err)
                    log[#log + 1] = g[3] .. " " .. i .. " " .. tostring(rows and rows[1].n) .. " " .. tostring(err)
                end)
            end
        end
        "#,
    );
    let log = step_until(&mut h, 60);
    let expected: Vec<String> = (1..=30)
        .flat_map(|i| [format!("a {i} {i} nil"), format!("b {i} {i} nil")])
        .collect();
    assert_eq!(log, expected);
}

#[test]
fn sqlite_a_pool_keeps_each_resources_order_and_the_callbacks_in_query_order() {
    let dir = std::env::temp_dir().join(format!("dlmp-db-pool-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("sqlite:{}", dir.join("pool.sqlite").display());
    a_pool_keeps_each_resources_order_and_the_callbacks_in_query_order(&url, 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sqlite_in_memory_is_one_connection_whatever_the_pool_size() {
    let (_s, h) = two_resources("db-pool-memory", SQLITE, 8);
    assert_eq!(h.world().resource::<dlmp::db::Database>().connections(), 1);
}

#[test]
fn postgres_a_pool_keeps_each_resources_order_and_the_callbacks_in_query_order() {
    if let Some(url) = postgres("postgres_a_pool") {
        a_pool_keeps_each_resources_order_and_the_callbacks_in_query_order(&url, 3);
    }
}

// --- SQLite only ---

#[test]
fn a_query_past_the_bounded_queue_fails_at_once_and_its_callback_gets_the_error() {
    let (_s, mut h) = harness("db-queue", SQLITE, |c| Config { db_queue: 1, ..c });
    // A slow first query holds the worker while the rest arrive.
    run(
        &h,
        r#"
        rawset(_G, "returned", {})
        gm.db_query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c",
            function(rows, err) log[#log + 1] = "slow " .. tostring(rows and rows[1].n) end)
        for i = 1, 20 do
            local ok, err = gm.db_exec("SELECT ?", {i}, function(n, err) log[#log + 1] = i .. " " .. tostring(err) end)
            returned[#returned + 1] = tostring(ok) .. " " .. tostring(err)
        end
        "#,
    );
    let returned: Vec<String> = {
        let t: mlua::Table = h
            .script_host()
            .lua()
            .globals()
            .get("returned")
            .expect("returned");
        t.sequence_values::<String>()
            .map(|v| v.expect("a string"))
            .collect()
    };
    let refused = returned.iter().filter(|r| r.starts_with("false ")).count();
    assert!(
        refused >= 18,
        "a queue of 1 behind a slow query takes at most 2: {returned:?}"
    );
    assert!(
        returned
            .iter()
            .filter(|r| r.starts_with("false "))
            .all(|r| r.contains("the database queue is full (1 queries waiting)"))
    );
    let log = step_until(&mut h, 21);
    assert_eq!(log[0], "slow 2000000");
    // Every callback runs, in query order, the refused ones with the error.
    for (i, line) in log[1..].iter().enumerate() {
        assert!(line.starts_with(&format!("{} ", i + 1)), "{log:?}");
    }
    let full = log.iter().filter(|l| l.contains("queue is full")).count();
    assert_eq!(full, refused);
}

#[test]
fn the_default_database_is_a_wal_file_in_the_data_folder() {
    let dir = std::env::temp_dir().join(format!("dlmp-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let data = dir.clone();
        let (_s, mut h) = harness("db-file", SQLITE, |c| Config {
            database: None,
            data_dir: Some(data),
            ..c
        });
        run(
            &h,
            r#"
            gm.db_exec("CREATE TABLE IF NOT EXISTS kept (v TEXT)")
            gm.db_exec("INSERT INTO kept VALUES (?)", {"across restarts"})
            gm.db_query("PRAGMA journal_mode", function(rows) log[#log + 1] = rows[1].journal_mode end)
            "#,
        );
        assert_eq!(step_until(&mut h, 1), ["wal"]);
    }
    assert!(dir.join("dlmp.sqlite").is_file());
    let data = dir.clone();
    let (_s, mut h) = harness("db-file2", SQLITE, |c| Config {
        database: None,
        data_dir: Some(data),
        ..c
    });
    run(
        &h,
        r#"gm.db_query("SELECT v FROM kept", function(rows) log[#log + 1] = rows[1].v end)"#,
    );
    assert_eq!(step_until(&mut h, 1), ["across restarts"]);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

// --- PostgreSQL only ---

/// `url` with `application_name` set, so the test can find its own connection.
fn with_application_name(url: &str, name: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}application_name={name}")
}

#[test]
fn postgres_a_killed_connection_loses_no_acknowledged_write_and_the_pool_recovers() {
    let Some(url) = postgres("postgres_a_killed_connection") else {
        return;
    };
    let app = format!("dlmp_kill_{}", std::process::id());
    let (_s, mut h) = harness("db-kill", &with_application_name(&url, &app), |c| c);
    run(
        &h,
        r#"
        rawset(_G, "acked", {})
        rawset(_G, "insert", function(from, to)
            for i = from, to do
                gm.db_exec("INSERT INTO dbt_kill (id) VALUES (?)", {i}, function(n, err)
                    if err then log[#log + 1] = "failed " .. i else acked[#acked + 1] = i; log[#log + 1] = "acked " .. i end
                end)
            end
        end)
        gm.db_exec("DROP TABLE IF EXISTS dbt_kill")
        gm.db_exec("CREATE TABLE dbt_kill (id INTEGER PRIMARY KEY)")
        gm.db_query("SELECT pg_backend_pid() AS pid", function(rows) log[#log + 1] = "pid " .. rows[1].pid end)
        insert(1, 10)
        "#,
    );
    let log = step_until(&mut h, 11);
    assert!(log[1..].iter().all(|l| l.starts_with("acked ")), "{log:?}");
    let before = log[0].clone();

    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("an admin connection");
    let killed = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&app],
        )
        .expect("terminate");
    assert_eq!(
        killed,
        u64::try_from(h.world().resource::<dlmp::db::Database>().connections()).unwrap(),
        "every connection of the pool"
    );

    run(
        &h,
        r#"
        insert(11, 20)
        gm.db_query("SELECT pg_backend_pid() AS pid", function(rows, err) log[#log + 1] = "pid " .. tostring(rows and rows[1].pid) end)
        insert(21, 25)
        gm.db_query("SELECT id FROM dbt_kill ORDER BY id", function(rows)
            local ids = {}
            for _, r in ipairs(rows) do ids[#ids + 1] = r.id end
            log[#log + 1] = "stored " .. table.concat(ids, ",")
        end)
        "#,
    );
    let log = step_until(&mut h, 11 + 17);
    let after = &log[11..];
    // The one in flight when the connection died may fail; every later one succeeds.
    let failed: Vec<&String> = after.iter().filter(|l| l.starts_with("failed ")).collect();
    assert!(
        failed.len() <= 1 && failed.iter().all(|l| *l == "failed 11"),
        "{after:?}"
    );
    let pid_after = after.iter().find(|l| l.starts_with("pid ")).expect("a pid");
    assert_ne!(pid_after, &before, "a new connection");
    assert_ne!(pid_after, "pid nil");
    assert!(
        after[after.len() - 6..after.len() - 1]
            .iter()
            .all(|l| l.starts_with("acked ")),
        "{after:?}"
    );
    // No acknowledged write is lost.
    let acked: Vec<i64> = {
        let t: mlua::Table = h.script_host().lua().globals().get("acked").expect("acked");
        t.sequence_values::<i64>()
            .map(|v| v.expect("an id"))
            .collect()
    };
    let stored = after
        .last()
        .expect("stored")
        .trim_start_matches("stored ")
        .to_owned();
    let stored: Vec<i64> = stored
        .split(',')
        .map(|s| s.parse().expect("an id"))
        .collect();
    for id in &acked {
        assert!(
            stored.contains(id),
            "acknowledged write {id} lost: {stored:?}"
        );
    }
    assert!(acked.len() >= 24, "{acked:?}");
}
