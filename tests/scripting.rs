//! lua-api.md in the harness: resources, events, isolation, timers and the core calls,
//! each scenario driven by a small resource written to a temporary scripts folder.

use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::TempScripts;
use dlmp::protocol::player::life::SpawnPlayer;
use dlmp::script::ScriptHost;

#[test]
fn a_resource_spawns_a_connecting_player_at_its_point() {
    let s = TempScripts::new("spawn");
    s.resource(
        "gm",
        r#"dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, -200.5, 10, 90, 7, 2, 3) end)"#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.request_spawn(a);
    h.step();
    let spawns = h.packets::<SpawnPlayer>(a);
    assert_eq!(spawns.len(), 1);
    let sp = &spawns[0];
    assert_eq!((sp.spawn.x, sp.spawn.y, sp.spawn.z), (100.0, -200.5, 10.0));
    assert!(
        (sp.heading - std::f32::consts::FRAC_PI_2).abs() < 1e-6,
        "degrees become radians"
    );
    assert_eq!((sp.skin, sp.variant, sp.area), (7, 2, 3));
    // Repeats before confirmation grant again, idempotently.
    h.request_spawn(a);
    h.step();
    assert_eq!(h.packets::<SpawnPlayer>(a).len(), 2);
    assert_eq!(h.packets::<SpawnPlayer>(a)[1], *sp);
}

#[test]
fn a_spawn_point_no_f32_holds_is_an_error_and_grants_no_spawn() {
    let s = TempScripts::new("spawn-f32");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p)
            for _, f in ipairs({
                function() dlmp.spawn_player(p, 100, 200, 10, 1e300) end,
                function() dlmp.spawn_player(p, 1e300, 200, 10, 0) end,
                function() dlmp.spawn_player(p, 100, 200, 4000.5, 0) end,
                function() p:set_respawn_point(100, 200, 10, -1e300) end,
            }) do
                local ok, err = pcall(f)
                local line = tostring(err):match("^[^\n]*"):gsub("^runtime error: ", "")
                dlmp.send_chat(line, nil, { p })
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    assert_eq!(
        h.chat_lines(a),
        [
            "spawn_player: heading 1e300 is not finite as a 32-bit float (|v| <= 3.4e38)",
            "spawn_player: x 1e300 is outside the world (-6000..=6000)",
            "spawn_player: z 4000.5 is outside the world (-200..=4000)",
            "set_respawn_point: heading -1e300 is not finite as a 32-bit float (|v| <= 3.4e38)",
        ]
    );
    h.request_spawn(a);
    h.step();
    assert!(
        h.packets::<SpawnPlayer>(a).is_empty(),
        "no spawn info was set, so the player is not sent to an infinite heading"
    );
}

#[test]
fn a_player_on_foot_has_no_vehicle() {
    let s = TempScripts::new("vehicle-nil");
    s.resource(
        "gm",
        r##"
        dlmp.on("player_connect", function(p)
            local n = select("#", p:vehicle())
            local vehicle, seat = p:vehicle()
            dlmp.send_chat(string.format("%d %s %s", n, tostring(vehicle), tostring(seat)), nil, { p })
        end)
        "##,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    assert_eq!(h.chat_lines(a), ["1 nil nil"]);
}

#[test]
fn without_spawn_info_a_spawn_request_grants_nothing() {
    let s = TempScripts::new("nospawn");
    s.resource("gm", "-- no spawn");
    let mut h = s.harness();
    let a = h.connect("alice");
    h.request_spawn(a);
    h.step();
    assert!(h.packets::<SpawnPlayer>(a).is_empty());
}

#[test]
fn player_spawn_fires_on_the_first_grant() {
    let s = TempScripts::new("spawnevent");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 1, 2, 3, 0) end)
        dlmp.on("player_spawn", function(p) dlmp.send_chat(p:name() .. " spawned " .. tostring(p:is_spawned())) end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.request_spawn(a);
    h.step();
    h.request_spawn(a);
    h.step();
    h.step();
    assert_eq!(h.chat_lines(a), ["alice spawned true"]);
}

#[test]
fn a_handler_returning_false_refuses_the_chat_line_and_every_handler_still_runs() {
    let s = TempScripts::new("refuse");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_chat", function(p, text) if text:find("darn") then return false end end)
        dlmp.on("player_chat", function(p, text) dlmp.send_chat("seen: " .. text, 0x00FF00, {p}) end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.chat(a, "oh darn");
    h.chat(a, "hello");
    h.steps(2);
    assert_eq!(h.chat_lines(b), ["alice: hello"]);
    assert_eq!(
        h.chat_lines(a),
        ["seen: oh darn", "seen: hello", "alice: hello"]
    );
}

#[test]
fn a_command_a_handler_takes_is_not_unknown() {
    let s = TempScripts::new("command");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_command", function(p, name, args)
            if name == "add" then
                dlmp.send_chat(tostring(tonumber(args[1]) + tonumber(args[2])), nil, {p})
                return true
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.chat(a, "/add 2 40");
    h.chat(a, "/fly");
    h.steps(2);
    assert_eq!(h.chat_lines(a), ["42", "Unknown command"]);
}

#[test]
fn a_runtime_error_leaves_the_server_and_other_resources_working() {
    let s = TempScripts::new("error");
    s.resource(
        "broken",
        r#"dlmp.on("player_connect", function(p) error("boom") end)"#,
    );
    s.resource("greeter", r#"dlmp.on("player_connect", function(p) dlmp.send_chat("welcome " .. p:name(), nil, {p}) end)"#);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert_eq!(h.chat_lines(a), ["welcome alice"]);
    assert_eq!(h.script_host().errors(), 1);
    let b = h.connect("bob");
    h.step();
    assert_eq!(h.chat_lines(b), ["welcome bob"]);
    assert_eq!(h.script_host().errors(), 2);
}

#[test]
fn an_endless_loop_is_cut_off_by_the_instruction_budget() {
    let s = TempScripts::new("loop");
    s.resource(
        "spin",
        r#"dlmp.on("player_chat", function() while true do end end)"#,
    );
    let mut h = s.harness_with(|c| Config {
        script_instruction_budget: 200_000,
        ..c
    });
    let a = h.connect("alice");
    h.chat(a, "still here");
    h.steps(2);
    assert_eq!(
        h.chat_lines(a),
        ["alice: still here"],
        "the failed handler refuses nothing"
    );
    assert_eq!(h.script_host().errors(), 1);
    h.chat(a, "and again");
    h.steps(2);
    assert_eq!(h.chat_lines(a).len(), 2);
}

#[test]
fn an_endless_loop_at_load_fails_the_resource_start_only() {
    let s = TempScripts::new("loadloop");
    s.resource("spin", "while true do end");
    s.resource(
        "ok",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("hi", nil, {p}) end)"#,
    );
    let mut h = s.harness_with(|c| Config {
        script_instruction_budget: 100_000,
        ..c
    });
    let running: Vec<String> = h.script_host().running().map(str::to_owned).collect();
    assert_eq!(running, ["ok"]);
    let a = h.connect("alice");
    h.step();
    assert_eq!(h.chat_lines(a), ["hi"]);
}

#[test]
fn timers_fire_on_the_stepped_clock() {
    let s = TempScripts::new("timers");
    s.resource(
        "gm",
        r#"
        local n = 0
        dlmp.on("player_connect", function(p)
            dlmp.set_timer(100, function() dlmp.send_chat("once") end)
            dlmp.set_timer(200, function() n = n + 1; dlmp.send_chat("tick " .. n) end, true)
        end)
        "#,
    );
    let mut h = s.harness();
    // The hello's tick (20 ms) sets the timers; connect returns after the proof's (40 ms).
    let a = h.connect("alice");
    h.advance(Duration::from_millis(60));
    assert!(h.chat_lines(a).is_empty(), "nothing before 100 ms");
    h.advance(Duration::from_millis(40));
    assert_eq!(h.chat_lines(a), ["once"]);
    // Set at 20 ms (the connect tick): the repeating one fires at 220, 420 and 620 ms.
    h.advance(Duration::from_millis(440));
    assert_eq!(h.chat_lines(a), ["once", "tick 1", "tick 2"]);
    h.advance(Duration::from_millis(40));
    assert_eq!(h.chat_lines(a), ["once", "tick 1", "tick 2", "tick 3"]);
}

#[test]
fn stopping_a_resource_removes_its_timers_and_handlers() {
    let s = TempScripts::new("stop");
    s.resource(
        "gm",
        r#"
        dlmp.set_timer(100, function() dlmp.send_chat("beat") end, true)
        dlmp.on("player_chat", function() return false end)
        dlmp.on("resource_stop", function(name) dlmp.send_chat("stopping " .. name) end)
        "#,
    );
    let mut h = s.harness();
    // connect returns at 40 ms (the hello's tick and the proof's).
    let a = h.connect("alice");
    h.advance(Duration::from_millis(230));
    assert_eq!(h.chat_lines(a), ["beat", "beat"]);
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.step();
    h.advance(Duration::from_millis(500));
    h.chat(a, "free again");
    h.steps(2);
    assert_eq!(
        h.chat_lines(a),
        ["beat", "beat", "stopping gm", "alice: free again"]
    );
}

#[test]
fn restart_reloads_changed_code() {
    let s = TempScripts::new("restart");
    s.resource(
        "gm",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("v1", nil, {p}) end)"#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    s.resource(
        "gm",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("v2", nil, {p}) end)"#,
    );
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .restart("gm")
        .expect("restarts");
    let b = h.connect("bob");
    h.step();
    assert_eq!(h.chat_lines(a), ["v1"]);
    assert_eq!(h.chat_lines(b), ["v2"]);
}

#[test]
fn bad_arguments_raise_an_error_naming_the_function_and_argument() {
    let s = TempScripts::new("badargs");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p)
            local calls = {
                function() dlmp.set_timer("soon", function() end) end,
                function() dlmp.spawn_player(p, 0, 0, 0/0, 0) end,
                function() dlmp.spawn_player(p, 0, 0, 0, 0, 1, 1, 300) end,
                function() dlmp.send_chat("x", 0x1000000) end,
                function() dlmp.spawn_player("alice", 0, 0, 0, 0) end,
                function() dlmp.set_timer(10, function() end, "twice") end,
                function() dlmp.set_team_damage("yes") end,
                function() p:kick({}) end,
                function() p:teleport(0, 0, 3, "north") end,
                function() p:set_headless(1) end,
                function() p:apply_animation("PED", "WALK", { loop = "yes" }) end,
            }
            for _, f in ipairs(calls) do
                local ok, err = pcall(f)
                dlmp.send_chat(tostring(err):match("^[^\n]*"), nil, {p})
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    let got = h.chat_lines(a);
    let expect = [
        "set_timer: ms must be a number, got \"soon\"",
        "spawn_player: z must be finite",
        "spawn_player: interior 300 is outside 0..=255",
        "send_chat: color 16777216 is outside 0..=16777215",
        "spawn_player: player must be a Player, got \"alice\"",
        "set_timer: times must be a",
        "set_team_damage: on must be a boolean, got \"yes\"",
        "kick: reason must be a string, got table",
        "teleport: opts must be a table, got \"north\"",
        "set_headless: headless must be a boolean, got 1",
        "apply_animation: loop must be a boolean, got \"yes\"",
    ];
    assert_eq!(got.len(), expect.len(), "{got:?}");
    for (g, e) in got.iter().zip(expect) {
        assert!(g.contains(e), "{g:?} should say {e:?}");
    }
}

#[test]
fn a_handle_to_a_player_who_left_raises_a_clear_error() {
    let s = TempScripts::new("gone");
    s.resource(
        "gm",
        r#"
        local kept
        dlmp.on("player_connect", function(p) if p:name() == "alice" then kept = p end end)
        dlmp.on("player_disconnect", function(p, reason)
            dlmp.send_chat(p:name() .. " left (" .. reason .. "), exists=" .. tostring(p:exists()))
            dlmp.set_timer(0, function()
                local ok, err = pcall(function() return kept:name() end)
                dlmp.send_chat(tostring(err):match("^[^\n]*"))
            end)
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.disconnect(a);
    h.steps(4);
    let got = h.chat_lines(b);
    assert_eq!(got[0], "alice left (quit), exists=false");
    assert!(
        got[1].contains("name: the player has left the server"),
        "{got:?}"
    );
}

#[test]
fn a_leaving_player_answers_reads_in_player_disconnect_but_its_setters_raise() {
    let s = TempScripts::new("leaving-setters");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_disconnect", function(p)
            local answers = { p:name(), tostring(p:id()) }
            for _, f in ipairs({
                function() p:set_health(50) end,
                function() p:set_skin(7) end,
                function() p:set_frozen(true) end,
                function() p:set_virtual_world(3) end,
                function() dlmp.spawn_player(p, 0, 0, 3, 0) end,
            }) do
                local ok, err = pcall(f)
                answers[#answers + 1] = ok and "ok" or tostring(err):match("^[^\n]*")
            end
            for _, line in ipairs(answers) do dlmp.send_chat(line) end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    let id = h.player_id(a).0;
    h.disconnect(a);
    h.steps(2);
    assert_eq!(
        h.chat_lines(b),
        [
            "alice".to_owned(),
            id.to_string(),
            "runtime error: set_health: the player has left the server".to_owned(),
            "runtime error: set_skin: the player has left the server".to_owned(),
            "runtime error: set_frozen: the player has left the server".to_owned(),
            "runtime error: set_virtual_world: the player has left the server".to_owned(),
            "runtime error: spawn_player: the player has left the server".to_owned(),
        ]
    );
}

#[test]
fn set_team_shows_in_team_at_once_and_a_new_player_has_none() {
    let s = TempScripts::new("team");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p)
            local before = p:team()
            p:set_team(4)
            dlmp.send_chat(before .. " " .. p:team(), nil, { p })
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert_eq!(h.chat_lines(a), ["0 4"]);
    h.step();
    assert_eq!(h.get::<dlmp::player::Team>(a).group, 4);
}

#[test]
fn resources_talk_through_exports_and_hear_each_others_start() {
    let s = TempScripts::new("exports");
    s.resource(
        "math",
        r#"dlmp.export("add", function(a, b) return a + b end)"#,
    );
    s.resource_with(
        "user",
        "depends = [\"math\"]",
        r#"
        dlmp.on("player_connect", function(p)
            dlmp.send_chat("2+3=" .. dlmp.call("math", "add", 2, 3), nil, {p})
            local ok, err = pcall(dlmp.call, "math", "mul", 2, 3)
            dlmp.send_chat(tostring(err):match("^[^\n]*"), nil, {p})
        end)
        "#,
    );
    let mut h = s.harness();
    let running: Vec<String> = h.script_host().running().map(str::to_owned).collect();
    assert_eq!(running, ["math", "user"]);
    let a = h.connect("alice");
    h.step();
    let got = h.chat_lines(a);
    assert_eq!(got[0], "2+3=5");
    assert!(
        got[1].contains("call: math exports no function mul"),
        "{got:?}"
    );
}

#[test]
fn kick_ends_the_session_with_reason_kicked() {
    let s = TempScripts::new("kick");
    s.resource("gm", r#"dlmp.on("player_command", function(p, name) if name == "leave" then p:kick("bye") return true end end)"#);
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.chat(a, "/leave");
    h.steps(3);
    let leaves = h.packets::<dlmp::protocol::connection::roster::PlayerLeave>(b);
    assert_eq!(leaves.len(), 1);
    assert_eq!(
        leaves[0].reason,
        dlmp::protocol::connection::handshake::LeaveReason::Kicked
    );
    assert!(h.chat_lines(a).iter().any(|t| t == "You were kicked: bye"));
    let _ = s.path();
}

#[test]
fn stopping_a_resource_despawns_everything_it_owned() {
    use dlmp::script::Owned;
    let s = TempScripts::new("owned");
    s.resource("gm", "-- owns things")
        .resource("other", "-- owns other things");
    let mut h = s.harness();
    let gm = h.script_host().resource_id("gm").expect("running");
    let other = h.script_host().resource_id("other").expect("running");
    let mine: Vec<_> = (0..1000)
        .map(|_| h.world_mut().spawn(Owned(gm)).id())
        .collect();
    let theirs = h.world_mut().spawn(Owned(other)).id();
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.step();
    assert!(
        mine.iter().all(|&e| h.world().get_entity(e).is_err()),
        "all of gm's things are gone"
    );
    assert!(
        h.world().get_entity(theirs).is_ok(),
        "other resources keep theirs"
    );
}

#[test]
fn a_timer_that_re_arms_itself_at_0_ms_fires_once_per_tick() {
    let s = TempScripts::new("rearm");
    s.resource(
        "gm",
        r#"
        local n = 0
        local function again() n = n + 1; dlmp.set_timer(0, again) end
        dlmp.set_timer(0, again)
        dlmp.on("player_command", function(p) dlmp.send_chat(tostring(n), nil, {p}) return true end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.steps(4);
    h.chat(a, "/count");
    h.step();
    let n: u32 = h.chat_lines(a)[0].parse().expect("a count");
    assert!((5..=7).contains(&n), "once per tick, got {n}");
}

#[test]
fn tick_count_is_the_milliseconds_of_the_server_clock() {
    let s = TempScripts::new("tick-count");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_command", function(p, name)
            if name ~= "t" then return end
            local ms = dlmp.tick_count()
            dlmp.send_chat(math.type(ms) .. " " .. ms, nil, { p })
            return true
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.chat(a, "/t");
    h.step();
    let first: u64 = number_after(&h.chat_lines(a)[0], "integer ");
    h.steps(50);
    h.chat(a, "/t");
    h.step();
    let second: u64 = number_after(&h.chat_lines(a)[1], "integer ");
    let tick = u64::try_from(h.tick().as_millis()).expect("ms");
    assert_eq!(second - first, 51 * tick, "one tick length per tick");
    assert_eq!(
        u128::from(second),
        h.now().as_millis(),
        "since the server started"
    );
    assert_eq!(h.script_host().errors(), 0);
}

/// The number after `prefix` in `line`.
fn number_after(line: &str, prefix: &str) -> u64 {
    line.strip_prefix(prefix)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line:?} is not {prefix}N"))
}

#[test]
fn vehicle_model_names_go_both_ways_and_an_unknown_one_is_nil() {
    let s = TempScripts::new("model-names");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_command", function(p, name, args)
            local out
            if name == "name" then
                out = tostring(dlmp.vehicle_model_name(tonumber(args[1])))
            elseif name == "model" then
                out = tostring(dlmp.vehicle_model(table.concat(args, " ")))
            elseif name == "bad" then
                local ok, err = pcall(dlmp.vehicle_model_name, "411")
                local ok2, err2 = pcall(dlmp.vehicle_model, 411)
                out = tostring(err):match("^[^\n]*") .. " | " .. tostring(err2):match("^[^\n]*")
            end
            dlmp.send_chat(out, nil, { p })
            return true
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    for line in [
        "/name 411",
        "/name 611",
        "/name 399",
        "/name 70000",
        "/model INFERNUS",
        "/model rc bandit",
        "/model Berkley's RC Van",
        "/model infernu",
        "/bad",
    ] {
        h.chat(a, line);
        h.advance(Duration::from_secs(1));
    }
    let lines = h.chat_lines(a);
    assert_eq!(
        lines[..8],
        [
            "Infernus",
            "Street Clean Trailer",
            "nil",
            "nil",
            "411",
            "441",
            "459",
            "nil"
        ]
    );
    assert!(
        lines[8].contains("vehicle_model_name") && lines[8].contains("model"),
        "{}",
        lines[8]
    );
    assert!(
        lines[8].contains("vehicle_model:") && lines[8].contains("name"),
        "{}",
        lines[8]
    );
    assert_eq!(h.script_host().errors(), 0);
}
