//! The scripting features of issue 18 in the harness (ADR 0035): handle identity and
//! uids, per-entity data, custom events between resources, commands, timers with a count
//! and arguments, restarts of a chain of dependents.

use dlmp::harness::TempScripts;
use dlmp::script::ScriptHost;

#[path = "support/https.rs"]
mod https;

#[test]
fn the_same_player_is_the_same_handle_and_a_reconnect_is_a_new_one_with_a_new_uid() {
    let s = TempScripts::new("identity");
    s.resource(
        "gm",
        r#"
        local seen = {}
        dlmp.on("player_connect", function(p)
            seen[p] = (seen[p] or 0) + 1
            local same = rawequal(p, dlmp.players()[#dlmp.players()])
            dlmp.send_chat("connect uid " .. p:uid() .. " same " .. tostring(same), nil, {p})
        end)
        dlmp.on("player_chat", function(p, text)
            seen[p] = (seen[p] or 0) + 1
            local count = 0
            for _ in pairs(seen) do count = count + 1 end
            dlmp.send_chat("uid " .. p:uid() .. " seen " .. seen[p] .. " keys " .. count, nil, {p})
            return false
        end)
        dlmp.on("player_disconnect", function(p) seen[p] = nil end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.chat(a, "hi");
    h.step();
    assert_eq!(
        h.take_chat_lines(a),
        ["connect uid 1 same true", "uid 1 seen 2 keys 1"]
    );
    h.disconnect(a);
    h.step();
    let b = h.connect("alice");
    h.step();
    h.chat(b, "hi");
    h.step();
    assert_eq!(
        h.chat_lines(b),
        ["connect uid 2 same true", "uid 2 seen 2 keys 1"]
    );
}

#[test]
fn per_entity_data_is_kept_between_calls_and_gone_with_the_player() {
    let s = TempScripts::new("entitydata");
    s.resource(
        "gm",
        r#"
        local old
        dlmp.on("player_connect", function(p)
            if old then
                local ok, err = pcall(old.data, old, "score")
                dlmp.send_chat("old " .. tostring(err):match("^[^\n]*"), nil, {p})
            end
            dlmp.send_chat("new " .. tostring(p:data("score")), nil, {p})
            p:set_data("score", 10)
            p:set_data({}, "any key")
        end)
        dlmp.on("player_chat", function(p, text)
            p:set_data("score", p:data("score") + 1)
            dlmp.send_chat("score " .. p:data("score"), nil, {p})
            old = p
            return false
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.chat(a, "x");
    h.step();
    assert_eq!(h.chat_lines(a), ["new nil", "score 11"]);
    h.disconnect(a);
    h.steps(3);
    let b = h.connect("alice");
    h.step();
    assert_eq!(
        h.chat_lines(b),
        [
            "old runtime error: data: the player has left the server",
            "new nil"
        ]
    );
}

#[test]
fn custom_events_reach_every_resource_and_a_typo_of_a_built_in_is_refused() {
    let s = TempScripts::new("custom");
    s.resource(
        "race",
        r#"
        dlmp.on("player_chat", function(p, text)
            local n = dlmp.emit("race:finish", p, tonumber(text))
            dlmp.send_chat("handlers " .. n, nil, {p})
            return false
        end)
        "#,
    );
    s.resource(
        "scores",
        r#"
        dlmp.on("race:finish", function(p, time)
            dlmp.send_chat(p:name() .. " finished in " .. time, nil, {p})
        end)
        dlmp.on("race:finish", function() error("a broken listener") end)
        local ok, err = pcall(dlmp.on, "player_conect", function() end)
        dlmp.export("typo", function() return tostring(err):match("^[^\n]*") end)
        local ok2, err2 = pcall(dlmp.emit, "player_connect")
        dlmp.export("builtin", function() return tostring(err2):match("^[^\n]*") end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.chat(a, "42");
    h.step();
    assert_eq!(h.chat_lines(a), ["alice finished in 42", "handlers 2"]);
    s.resource(
        "probe",
        r#"
        dlmp.on("player_connect", function(p)
            dlmp.send_chat(dlmp.call("scores", "typo"), nil, {p})
            dlmp.send_chat(dlmp.call("scores", "builtin"), nil, {p})
        end)
        "#,
    );
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .start("probe")
        .expect("starts");
    let b = h.connect("bob");
    h.step();
    let got = h.chat_lines(b);
    assert!(
        got[0].contains("on: unknown event player_conect (did you mean player_connect?)"),
        "{got:?}"
    );
    assert!(
        got[1].contains("emit: player_connect is not a custom event name"),
        "{got:?}"
    );
}

#[test]
fn an_error_in_a_handler_that_emit_ran_counts_as_a_script_error() {
    let s = TempScripts::new("emit-errors");
    s.resource(
        "race",
        r#"
        dlmp.on("player_chat", function(p, text)
            local n = dlmp.emit("race:finish", p)
            dlmp.send_chat("handlers " .. n, nil, {p})
            return false
        end)
        "#,
    );
    s.resource(
        "scores",
        r#"
        dlmp.on("race:finish", function() error("a broken listener") end)
        dlmp.on("race:finish", function(p) dlmp.send_chat("scored " .. p:name(), nil, {p}) end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert_eq!(h.script_host().errors(), 0);
    h.chat(a, "go");
    h.step();
    assert_eq!(
        h.take_chat_lines(a),
        ["scored alice", "handlers 2"],
        "the next handler and the emitting call go on"
    );
    assert_eq!(h.script_host().errors(), 1, "counted with the other errors");
    h.chat(a, "again");
    h.step();
    assert_eq!(h.script_host().errors(), 2);
}

#[test]
fn add_command_gets_its_words_and_a_failing_command_tells_the_player_it_failed() {
    let s = TempScripts::new("commands");
    s.resource(
        "gm",
        r#"
        dlmp.add_command("add", function(p, args)
            dlmp.send_chat(tostring(tonumber(args[1]) + tonumber(args[2])), nil, {p})
        end)
        dlmp.add_command("boom", function(p, args) error("kaboom") end)
        dlmp.on("player_command", function(p, name)
            if name == "legacy" then error("old style") end
        end)
        "#,
    );
    s.resource(
        "other",
        r#"
        local ok, err = pcall(dlmp.add_command, "add", function() end)
        dlmp.export("err", function() return tostring(err):match("^[^\n]*") end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.chat(a, "/add 2 40");
    h.chat(a, "/boom");
    h.chat(a, "/legacy");
    h.chat(a, "/nothing");
    h.steps(2);
    assert_eq!(
        h.chat_lines(a),
        [
            "42",
            "Command /boom failed",
            "Command /legacy failed",
            "Unknown command"
        ]
    );
    assert_eq!(h.script_host().errors(), 2);
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("stops");
    h.chat(a, "/add 1 1");
    h.steps(2);
    assert_eq!(
        h.chat_lines(a).last().map(String::as_str),
        Some("Unknown command")
    );
}

#[test]
fn a_command_name_taken_by_another_resource_is_refused() {
    let s = TempScripts::new("cmdtaken");
    s.resource("a", r#"dlmp.add_command("go", function() end)"#);
    s.resource_with(
        "b",
        "depends = [\"a\"]",
        r#"
        local ok, err = pcall(dlmp.add_command, "go", function() end)
        dlmp.on("player_connect", function(p) dlmp.send_chat(tostring(err):match("^[^\n]*"), nil, {p}) end)
        "#,
    );
    let mut h = s.harness();
    let p = h.connect("alice");
    h.step();
    let got = h.chat_lines(p);
    assert!(
        got[0].contains("add_command: /go is already a command of a"),
        "{got:?}"
    );
}

#[test]
fn a_timer_with_a_count_fires_that_many_times_with_its_arguments() {
    let s = TempScripts::new("timercount");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p)
            dlmp.set_timer(0, function(who, n) dlmp.send_chat(who:name() .. " " .. n, nil, {who}) end, 3, p, 7)
            dlmp.set_timer(0, function(tag) dlmp.send_chat(tag, nil, {p}) end, false, "once")
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.steps(6);
    assert_eq!(h.chat_lines(a), ["alice 7", "once", "alice 7", "alice 7"]);
}

#[test]
fn restart_starts_again_the_chain_of_dependents_it_stopped_and_starts_a_stopped_one() {
    let s = TempScripts::new("restartchain");
    s.resource("base", "");
    s.resource_with("mid", "depends = [\"base\"]", "");
    s.resource_with("top", "depends = [\"mid\"]", "");
    s.resource("alone", "");
    let mut h = s.harness();
    let host = &mut *h.world_mut().non_send_mut::<ScriptHost>();
    let ids =
        |host: &ScriptHost| ["base", "mid", "top"].map(|n| host.resource_id(n).expect("running"));
    let before = ids(host);
    host.restart("base").expect("restarts");
    let after = ids(host);
    for (b, a) in before.iter().zip(&after) {
        assert_ne!(b, a, "each one was started anew");
    }
    host.stop("alone").expect("stops");
    host.restart("alone").expect("a stopped resource starts");
    assert!(host.resource_id("alone").is_some());
}

/// Runs `code` as the main file of resource `gm` (with `files` in its manifest) and
/// returns the lines it sent to a connecting player.
fn lines_of(s: &TempScripts, manifest: &str, code: &str) -> Vec<String> {
    s.resource_with("gm", manifest, code);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.chat_lines(a)
}

#[test]
fn require_finds_modules_in_the_resource_folder_and_the_manifest_runs_listed_files() {
    let s = TempScripts::new("require");
    let dir = s.path().join("gm");
    std::fs::create_dir_all(dir.join("lib")).expect("dir");
    std::fs::write(
        dir.join("lib/util.lua"),
        "calls = (calls or 0) + 1\nreturn { twice = function(x) return 2 * x end }",
    )
    .expect("write");
    std::fs::write(dir.join("first.lua"), "FIRST = 'listed file ran'").expect("write");
    let got = lines_of(
        &s,
        "files = [\"first.lua\"]",
        r#"
        local util = require("lib.util")
        local again = require("lib.util")
        local ok, err = pcall(require, "missing")
        local ok2, err2 = pcall(require, "..secret")
        dlmp.on("player_connect", function(p)
            dlmp.send_chat(util.twice(21) .. " " .. tostring(util == again) .. " " .. calls, nil, {p})
            dlmp.send_chat(FIRST, nil, {p})
            dlmp.send_chat(tostring(err):match("^[^\n]*"), nil, {p})
            dlmp.send_chat(tostring(err2):match("^[^\n]*"), nil, {p})
        end)
        "#,
    );
    assert_eq!(got[0], "42 true 1");
    assert_eq!(got[1], "listed file ran");
    assert!(
        got[2].contains("require: module missing not found in the resource's folder"),
        "{got:?}"
    );
    assert!(got[3].contains("must be words joined by '.'"), "{got:?}");
}

#[test]
fn the_sandbox_refuses_every_path_out_of_the_resource_folder() {
    let s = TempScripts::new("sandbox");
    let dir = s.path().join("gm");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("notes.txt"), "inside").expect("write");
    std::fs::write(s.path().join("secret.txt"), "outside").expect("write");
    std::os::unix::fs::symlink(s.path().join("secret.txt"), dir.join("link.txt")).expect("symlink");
    std::os::unix::fs::symlink(s.path(), dir.join("up")).expect("symlink");
    let got = lines_of(
        &s,
        "",
        r#"
        local function try(path)
            local f, err = io.open(path)
            if f then local text = f:read("a"); f:close(); return "read " .. text end
            return err
        end
        local out = io.open("new.txt", "w"); out:write("written"); out:close()
        local results = {
            try("notes.txt"), try("new.txt"), try("../secret.txt"), try("/etc/passwd"),
            try("link.txt"), try("up/secret.txt"), try("$data/../secret.txt"),
            tostring(select(2, pcall(io.lines, "../secret.txt"))):match("^[^\n]*"),
        }
        local gone = {}
        for _, name in ipairs({"package", "dofile", "loadfile"}) do
            if _G[name] ~= nil then table.insert(gone, name) end
        end
        for _, f in ipairs({os.getenv, os.execute, io.popen, os.exit, io.input, io.output}) do
            if f ~= nil then table.insert(gone, "a function") end
        end
        if package.loadlib ~= nil then table.insert(gone, "loadlib") end
        table.insert(results, "left: " .. table.concat(gone, ","))
        dlmp.on("player_connect", function(p)
            for _, r in ipairs(results) do dlmp.send_chat(r, nil, {p}) end
        end)
        "#,
    );
    assert_eq!(got[0], "read inside");
    assert_eq!(got[1], "read written");
    for refused in &got[2..4] {
        assert!(
            refused.contains("only relative paths inside the resource's folder"),
            "{got:?}"
        );
    }
    for refused in &got[4..6] {
        assert!(
            refused.contains("resolves outside the resource's folder"),
            "{got:?}"
        );
    }
    // The data folder (the server's `data_dir`) is a root of its own: no way out of it.
    assert!(
        got[6].contains("$data/../secret.txt: only relative paths"),
        "{got:?}"
    );
    assert!(
        got[7].contains("io.lines: ../secret.txt: only relative paths"),
        "{got:?}"
    );
    assert_eq!(got[8], "left: ");
}

#[test]
fn admission_refusals_reach_scripts_at_most_four_a_second_per_player() {
    use dlmp::protocol::connection::weapons::{HitKind, WeaponShot};
    use dlmp::protocol::geometry::Vec3;
    use dlmp::protocol::ids::{Revision, Seq};
    use dlmp::protocol::player::sync::Frame;

    let s = TempScripts::new("refusals");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_frame_refused", function(p, reason) dlmp.send_chat("frame " .. reason, nil, {p}) end)
        dlmp.on("player_shot_refused", function(p, reason) dlmp.send_chat("shot " .. reason, nil, {p}) end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    // Not spawned: every frame is refused.
    for seq in 1..=6 {
        h.sync(a, seq, Frame::standing(Vec3::ZERO));
    }
    h.step();
    assert_eq!(h.take_chat_lines(a), ["frame not_spawned"; 4]);
    assert_eq!(h.script_host().stats().refusals_dropped, 2);
    h.steps(60);
    let shot = WeaponShot {
        session_token: h.token(a),
        order: Seq(1),
        weapon: 31,
        origin: Vec3::ZERO,
        hit: Vec3::ZERO,
        hit_kind: HitKind::Nothing,
        hit_id: 0xFFFF_FFFF,
        props_rev: Revision(0),
    };
    h.send(a, shot);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["shot not_in_control"]);
}

#[test]
fn fetch_answers_inside_the_tick_with_the_status_and_body_a_timeout_or_a_refusal() {
    use std::io::{Read, Write};
    use std::net::TcpListener;

    // Answers one request with what it got and closes (a kept-alive connection would carry
    // the next request), then holds a second connection silent.
    let server = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let port = server.local_addr().expect("addr").port();
    let worker = std::thread::spawn(move || {
        let (mut conn, _) = server.accept().expect("a request");
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while !String::from_utf8_lossy(&got).contains("ping") {
            let n = conn.read(&mut buf).expect("read");
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&got).into_owned();
        let line = text.lines().next().unwrap_or_default().to_owned();
        // Header names are case-insensitive; HTTP/1.1 clients may send them in lower case.
        let tagged = text.to_ascii_lowercase().contains("x-test: yes");
        let body = format!("{line} {tagged}");
        write!(
            conn,
            "HTTP/1.1 201 Created\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("write");
        let (silent, _) = server.accept().expect("a second request");
        silent
    });
    let closed = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let closed_port = closed.local_addr().expect("addr").port();
    drop(closed);

    let s = TempScripts::new("fetch");
    s.resource(
        "gm",
        &format!(
            r#"
        dlmp.on("player_connect", function(p)
            dlmp.fetch("http://127.0.0.1:{port}/hello", {{ method = "post", headers = {{ ["X-Test"] = "yes" }}, body = "ping" }},
                function(status, body, err) dlmp.send_chat("ok " .. status .. " " .. body, nil, {{p}}) end)
            dlmp.fetch("http://127.0.0.1:{port}/slow", {{ timeout_ms = 200 }},
                function(status, body, err) dlmp.send_chat("slow " .. tostring(status) .. " " .. err, nil, {{p}}) end)
            dlmp.fetch("http://127.0.0.1:{closed_port}/", nil,
                function(status, body, err) dlmp.send_chat("closed " .. tostring(status) .. " " .. err, nil, {{p}}) end)
            local ok, e = pcall(dlmp.fetch, "ftp://example.com/", nil, function() end)
            dlmp.send_chat(tostring(e):match("^[^\n]*") or "none", nil, {{p}})
        end)
        "#
        ),
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .settle_fetches(std::time::Duration::from_secs(10));
    h.step();
    let got = h.chat_lines(a);
    let _silent = worker.join().expect("the server thread");
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(
        got[0].contains("fetch: only http:// and https:// URLs are supported"),
        "{got:?}"
    );
    assert!(
        got[1].starts_with("ok 201 POST /hello HTTP/1.1 true"),
        "{got:?}"
    );
    assert!(got.iter().any(|l| l == "slow nil timed out"), "{got:?}");
    assert!(
        got.iter()
            .any(|l| l.starts_with("closed nil") && l.to_lowercase().contains("refused")),
        "{got:?}"
    );
}

#[test]
fn fetch_speaks_https_reads_chunked_gzip_follows_five_redirects_and_reports_tls_errors() {
    let ca = https::TestCa::new("dlmp test CA");
    let port = ca.serve();
    // A server whose certificate another CA signed: not trusted.
    let stranger = https::TestCa::new("a stranger").serve();
    let s = TempScripts::new("fetch-https");
    let ca_file = s.path().join("test-ca.pem");
    std::fs::write(&ca_file, &ca.pem).expect("the CA file");
    s.resource(
        "gm",
        &format!(
            r#"
        local function say(p, text) dlmp.send_chat(text:sub(1, 120), nil, {{p}}) end
        dlmp.on("player_connect", function(p)
            dlmp.fetch("https://localhost:{port}/gzip", nil, function(status, body, err)
                say(p, "gzip " .. tostring(status) .. " " .. tostring(body and #body) .. " " .. tostring(body and body:sub(1, 16)))
            end)
            dlmp.fetch("https://127.0.0.1:{port}/redirect", nil, function(status, body, err)
                say(p, "redirect " .. tostring(status) .. " " .. tostring(body and #body))
            end)
            dlmp.fetch("https://localhost:{port}/loop/0", nil, function(status, body, err)
                say(p, "loop " .. tostring(status) .. " " .. tostring(err))
            end)
            dlmp.fetch("https://localhost:{port}/missing", nil, function(status, body, err)
                say(p, "missing " .. tostring(status) .. " " .. tostring(body))
            end)
            dlmp.fetch("https://localhost:{stranger}/gzip", nil, function(status, body, err)
                say(p, "stranger " .. tostring(status) .. " " .. tostring(err))
            end)
            local ok, e = pcall(dlmp.fetch, "https://localhost:{port}/gzip",
                {{ headers = {{ ["X-Test"] = "a\r\nInjected: 1" }} }}, function() end)
            say(p, "header " .. tostring(ok) .. " " .. tostring(e):match("^[^\n]*"))
        end)
        "#
        ),
    );
    let mut h = s.harness_with(|c| dlmp::config::Config {
        fetch_ca_file: Some(ca_file.clone()),
        ..c
    });
    let a = h.connect("alice");
    h.step();
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .settle_fetches(std::time::Duration::from_secs(20));
    h.step();
    let got = h.chat_lines(a);
    assert_eq!(got.len(), 6, "{got:?}");
    let line = |prefix: &str| {
        got.iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {got:?}"))
            .clone()
    };
    let full = https::GZIP_TEXT.len() * https::GZIP_REPEAT;
    assert_eq!(line("gzip "), format!("gzip 200 {full} hello over tls; "));
    assert_eq!(line("redirect "), format!("redirect 200 {full}"));
    assert_eq!(line("loop "), "loop nil more than 5 redirects");
    assert_eq!(
        line("missing "),
        "missing 404 none",
        "a status is an answer"
    );
    let stranger = line("stranger ");
    assert!(
        stranger.starts_with("stranger nil TLS: ") && stranger.contains("certificate"),
        "{stranger}"
    );
    assert_eq!(
        line("header "),
        "header false runtime error: fetch: header \"X-Test\" is not a valid header"
    );
}

#[test]
fn passwords_are_hashed_and_checked_off_the_tick_with_answers_in_call_order() {
    let s = TempScripts::new("passwords");
    s.resource(
        "gm",
        r#"
        local function say(p, text) dlmp.send_chat(text, nil, {p}) end
        dlmp.on("player_connect", function(p)
            dlmp.hash_password("hunter2", function(hash, err)
                say(p, "hash " .. tostring(hash):sub(1, 10) .. " " .. tostring(err))
                dlmp.verify_password("hunter2", hash, function(ok, err)
                    say(p, "right " .. tostring(ok) .. " " .. tostring(err))
                end)
                dlmp.verify_password("hunter3", hash, function(ok, err)
                    say(p, "wrong " .. tostring(ok) .. " " .. tostring(err))
                end)
                dlmp.verify_password("hunter2", "hunter2", function(ok, err)
                    say(p, "plain " .. tostring(ok) .. " " .. tostring(err):sub(1, 19))
                end)
            end)
            local ok, e = pcall(dlmp.hash_password, 42, function() end)
            say(p, tostring(e):match("^[^\n]*"))
            ok, e = pcall(dlmp.hash_password, string.rep("x", 1025), function() end)
            say(p, tostring(e):match("^[^\n]*"))
            ok, e = pcall(dlmp.verify_password, "a", "b")
            say(p, tostring(e):match("^[^\n]*"))
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.steps(3);
    assert_eq!(
        h.take_chat_lines(a),
        [
            // Bad arguments fail the call at once, before any answer.
            "runtime error: hash_password: password must be a string, got 42",
            "runtime error: hash_password: password is longer than 1024 bytes",
            "runtime error: verify_password: fn must be a function, got nil",
            // The hash in a later pass, then the three checks it started, in call order.
            "hash $argon2id$ nil",
            "right true nil",
            "wrong false nil",
            "plain nil not a password hash",
        ]
    );
}
