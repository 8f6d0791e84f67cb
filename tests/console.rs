//! The server console in the harness: every command, its mistakes, and what the clients
//! see (`say`, `kick`, `quit`), each driven through `dlmp::console::execute`.

mod vehicle_support;

use std::time::Duration;

use crossbeam_channel::unbounded;
use dlmp::console::{ConsolePlugin, SAY_COLOR, execute};
use dlmp::harness::{Harness, TempScripts};
use dlmp::protocol::connection::chat::ChatMessage;
use dlmp::protocol::connection::handshake::{LeaveReason, ServerDisconnect};
use dlmp::protocol::connection::roster::PlayerLeave;

/// A harness with one resource, `gm`, that greets every connecting player.
fn with_gm(test: &str) -> (TempScripts, Harness) {
    let s = TempScripts::new(test);
    s.resource_with(
        "gm",
        "",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("hi " .. p:name(), nil, {p}) end)"#,
    );
    let h = s.harness();
    (s, h)
}

fn run(h: &mut Harness, line: &str) -> Vec<String> {
    execute(h.world_mut(), line)
}

fn running(h: &Harness) -> Vec<String> {
    h.script_host().running().map(str::to_owned).collect()
}

#[test]
fn help_lists_every_command() {
    let mut h = Harness::new();
    let out = run(&mut h, "help").join("\n");
    for command in [
        "help",
        "resources",
        "start NAME",
        "stop NAME",
        "restart NAME",
        "players",
        "say TEXT",
        "kick ID|NAME",
        "destroy ID",
        "stats",
        "quit",
    ] {
        assert!(out.contains(command), "{command} missing from:\n{out}");
    }
}

#[test]
fn an_empty_line_prints_nothing_and_an_unknown_command_points_to_help() {
    let mut h = Harness::new();
    assert!(run(&mut h, "").is_empty());
    assert!(run(&mut h, "   ").is_empty());
    assert_eq!(
        run(&mut h, "fly away"),
        [
            "unknown command: fly",
            "type `help` for the list of commands"
        ]
    );
}

#[test]
fn resources_shows_stop_start_and_restart() {
    let (s, mut h) = with_gm("resources");
    s.resource_with("idle", "", "");
    assert_eq!(
        run(&mut h, "resources"),
        [
            "2 resources, 1 running:",
            "  gm    running",
            "  idle  stopped"
        ],
        "a resource added on disk after boot is listed, not started"
    );
    assert_eq!(run(&mut h, "start idle"), ["started idle"]);
    h.step();
    assert_eq!(run(&mut h, "stop gm"), ["stopped gm"]);
    assert_eq!(running(&h), ["idle"]);
    assert_eq!(
        run(&mut h, "resources"),
        [
            "2 resources, 1 running:",
            "  gm    stopped",
            "  idle  running"
        ]
    );
    let a = h.connect("alice");
    h.step();
    assert!(
        h.chat_lines(a).is_empty(),
        "a stopped resource hears nothing"
    );

    assert_eq!(run(&mut h, "start gm"), ["started gm"]);
    assert_eq!(run(&mut h, "resources")[1], "  gm    running");
    let b = h.connect("bob");
    h.step();
    assert_eq!(h.chat_lines(b), ["hi bob"]);

    s.resource_with("gm",
        "",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("hello " .. p:name(), nil, {p}) end)"#,
    );
    assert_eq!(run(&mut h, "restart gm"), ["restarted gm"]);
    assert_eq!(run(&mut h, "resources")[1], "  gm    running");
    let c = h.connect("carol");
    h.step();
    assert_eq!(
        h.chat_lines(c),
        ["hello carol"],
        "restart reloads from disk"
    );
}

#[test]
fn resource_commands_report_dependencies_that_follow() {
    let s = TempScripts::new("deps");
    s.resource_with("base", "", "");
    s.resource_with("mode", "depends = [\"base\"]", "");
    let mut h = s.harness();
    assert_eq!(run(&mut h, "stop base"), ["stopped base", "stopped mode"]);
    assert_eq!(run(&mut h, "start mode"), ["started base", "started mode"]);
    // The dependents a restart stopped start again (ADR 0035).
    assert_eq!(run(&mut h, "restart base"), ["restarted base"]);
    assert_eq!(run(&mut h, "resources")[2], "  mode  running");
    // A stopped resource is started.
    assert_eq!(run(&mut h, "stop mode"), ["stopped mode"]);
    assert_eq!(
        run(&mut h, "restart mode"),
        ["restarted mode", "started mode"]
    );
}

#[test]
fn resource_mistakes_are_reported_as_lines() {
    let (s, mut h) = with_gm("mistakes");
    assert_eq!(run(&mut h, "start nope"), ["error: no resource named nope"]);
    assert_eq!(run(&mut h, "stop nope"), ["error: nope is not running"]);
    assert_eq!(
        run(&mut h, "restart nope"),
        ["error: no resource named nope"]
    );
    assert_eq!(run(&mut h, "start gm"), ["error: gm is already running"]);
    assert_eq!(run(&mut h, "start"), ["usage: start NAME"]);
    assert_eq!(run(&mut h, "restart"), ["usage: restart NAME"]);

    s.resource_with("gm", "", "this is not lua");
    let out = run(&mut h, "restart gm");
    assert_eq!(out[0], "stopped gm");
    assert!(out[1].starts_with("error: gm failed to start"), "{out:?}");
    assert!(running(&h).is_empty());
}

#[test]
fn resources_in_an_empty_folder() {
    let s = TempScripts::new("empty");
    let mut h = s.harness();
    let out = run(&mut h, "resources");
    assert_eq!(out.len(), 1);
    assert!(out[0].starts_with("no resources in "), "{out:?}");
}

#[test]
fn players_lists_id_name_and_address() {
    let mut h = Harness::new();
    assert_eq!(run(&mut h, "players"), ["no players connected"]);
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    h.spawn(b, dlmp::protocol::geometry::Vec3::new(1.0, 2.0, 3.0));
    let out = run(&mut h, "players");
    assert_eq!(out[0], "2 players:");
    assert_eq!(out.len(), 4);
    let header: Vec<&str> = out[1].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "id", "name", "address", "ping", "state", "health", "position"
        ]
    );
    let state_at = out[1].find("state").expect("a state column");
    for (line, (c, name, state)) in out[2..]
        .iter()
        .zip([(a, "alice", "not spawned"), (b, "bob", "alive")])
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            words[..3],
            [
                h.player_id(c).0.to_string().as_str(),
                name,
                h.addr(c).to_string().as_str()
            ]
        );
        assert_eq!(
            &line[state_at..state_at + state.len()],
            state,
            "aligned: {line}"
        );
    }
    assert!(out[3].ends_with("1.0 2.0 3.0"), "{}", out[3]);
    h.disconnect(a);
    h.step();
    let out = run(&mut h, "players");
    assert_eq!(out[0], "1 player:");
    assert!(out[2].contains("bob"));
}

#[test]
fn say_reaches_every_client() {
    let mut h = Harness::new();
    let clients = [h.connect("alice"), h.connect("bob"), h.connect("carol")];
    assert_eq!(
        run(&mut h, "say  restart in 5 minutes "),
        ["* Server: restart in 5 minutes"]
    );
    h.step();
    for c in clients {
        let got = h.packets::<ChatMessage>(c);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].text.as_str(), "* Server: restart in 5 minutes");
        assert_eq!(got[0].color, SAY_COLOR);
    }
    assert_eq!(run(&mut h, "say"), ["usage: say TEXT"]);
}

#[test]
fn kick_by_name_ends_the_session_with_the_reason() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    assert_eq!(
        run(&mut h, "kick ALICE spamming the chat"),
        [format!(
            "kicked alice (id {}): spamming the chat",
            h.player_id(a).0
        )]
    );
    h.step();
    assert_eq!(h.chat_lines(a), ["You were kicked: spamming the chat"]);
    let leaves = h.packets::<PlayerLeave>(b);
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0].id, h.player_id(a));
    assert_eq!(
        leaves[0].reason,
        LeaveReason::Kicked,
        "PlayerLeave reason 2"
    );
    h.advance(Duration::from_millis(150));
    let bye = h.packets::<ServerDisconnect>(a);
    assert_eq!(bye.len(), 3);
    assert!(bye.iter().all(|d| d.reason == LeaveReason::Kicked));
    assert_eq!(run(&mut h, "players")[0], "1 player:");
}

#[test]
fn kick_by_id_without_a_reason() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    let id = h.player_id(b).0;
    assert_eq!(
        run(&mut h, &format!("kick {id}")),
        [format!("kicked bob (id {id})")]
    );
    h.step();
    assert_eq!(h.chat_lines(b), ["You were kicked."]);
    assert_eq!(h.packets::<PlayerLeave>(a).len(), 1);
    h.advance(Duration::from_millis(150));
    assert_eq!(h.packets::<ServerDisconnect>(b).len(), 3);
}

#[test]
fn kick_of_an_unknown_player_changes_nothing() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    assert_eq!(
        run(&mut h, "kick mallory"),
        ["error: no player with id or name mallory"]
    );
    assert_eq!(
        run(&mut h, "kick 77 bye"),
        ["error: no player with id or name 77"]
    );
    assert_eq!(run(&mut h, "kick"), ["usage: kick ID|NAME [REASON]"]);
    h.steps(10);
    assert!(h.packets::<ServerDisconnect>(a).is_empty());
    assert_eq!(run(&mut h, "players")[0], "1 player:");
}

#[test]
fn stats_counts_players_traffic_and_script_errors() {
    let s = TempScripts::new("stats");
    s.resource_with(
        "broken",
        "",
        r#"dlmp.on("player_connect", function() error("boom") end)"#,
    );
    let mut h = s.harness();
    h.connect("alice");
    h.connect("bob");
    h.step();
    let out = run(&mut h, "stats");
    assert_eq!(out[0], "players: 2 / 1000");
    assert!(out[1].starts_with("net: received="), "{out:?}");
    assert!(out[1].contains("drops["), "{out:?}");
    assert!(
        out[2].starts_with(
            "scripts: 1 running, 2 errors, 0 cut off by the tick's time, 0 memory errors, \
             0 suspensions (0 calls skipped), "
        ),
        "{out:?}"
    );
    assert!(
        out[2].ends_with(
            " KiB in use, 0 notifications waited for a later tick (0 waiting, 0 dropped), \
             0 events moot when their turn came"
        ),
        "{out:?}"
    );
    assert!(out[3].starts_with("uptime: "), "{out:?}");
}

#[test]
fn stats_lists_the_gameplay_drops() {
    use dlmp::protocol::geometry::Vec3;
    use dlmp::protocol::player::sync::Frame;
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.step();
    // A frame before the connect spawn is dropped whole.
    h.sync(a, 1, Frame::standing(Vec3::new(1.0, 2.0, 3.0)));
    let out = run(&mut h, "stats");
    assert!(
        out.iter().any(|l| l.starts_with("frames dropped")
            && l.ends_with("  not spawned 1, stale 0, past the frame rate 0")),
        "{out:?}"
    );
    for counter in [
        "shots",
        "respawn requests",
        "previous life",
        "animations",
        "waypoint reports",
        "edits dropped",
        "vehicle frames",
        "vehicle parameters",
        "vehicle keys",
        "vehicle colors",
        "vehicle transforms",
        "trains",
        "hitches",
        "winch loads",
        "vehicle shots",
        "RC vehicles",
        "vehicle explosions",
        "projectile launches",
        "stealth kills",
    ] {
        assert!(
            out.iter().any(|l| l.starts_with(counter)),
            "{counter}: {out:?}"
        );
    }
    assert!(
        out.iter().any(|l| l.starts_with("projectile launches")
            && l.contains("accepted 0, limit 0, not_in_control 0")),
        "{out:?}"
    );
    assert!(
        out.iter().any(|l| l.starts_with("stealth kills")
            && l.contains("accepted 0, limit 0, off 0, not_in_control 0")),
        "{out:?}"
    );
}

#[test]
fn quit_disconnects_everyone_and_exits() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    assert_eq!(run(&mut h, "quit"), ["stopping: disconnecting 2 players"]);
    for _ in 0..20 {
        if h.exited() {
            break;
        }
        h.step();
    }
    assert!(h.exited(), "the app exits after a few ticks");
    for c in [a, b] {
        let bye = h.packets::<ServerDisconnect>(c);
        assert_eq!(bye.len(), 3);
        assert!(bye.iter().all(|d| d.reason == LeaveReason::Quit));
    }
}

#[test]
fn the_plugin_runs_typed_lines_in_the_tick_and_never_waits() {
    let (to_console, input) = unbounded();
    let (output, printed) = unbounded();
    let mut h = Harness::with_app(Harness::config(), |app| {
        app.add_plugins(ConsolePlugin::with_channels(input, output));
    });
    let a = h.connect("alice");
    h.steps(3);
    assert!(printed.try_recv().is_err(), "no input, no output");

    to_console.send("say hello".to_owned()).unwrap();
    to_console.send(String::new()).unwrap();
    to_console.send("players".to_owned()).unwrap();
    h.step();
    let lines: Vec<String> = printed.try_iter().collect();
    assert_eq!(lines[0], "* Server: hello");
    assert_eq!(lines[1], "1 player:");
    assert!(lines[3].contains("alice"), "under the header: {lines:?}");
    assert_eq!(
        h.chat_lines(a),
        ["* Server: hello"],
        "said in the same tick"
    );

    drop(to_console);
    h.steps(3);
    assert!(!h.exited(), "the end of the input does not stop the server");
}

/// ADR 0020: `say` is a broadcast: every lane with room gets the line, and the console
/// says how many players a full lane kept from it.
#[test]
fn say_reaches_every_lane_with_room_and_tells_who_missed_it() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    h.set_auto_ack(a, false);
    h.fill_lane(a, dlmp::lane::Delivery::Normal, 0);
    assert_eq!(
        run(&mut h, "say hello"),
        ["* Server: hello", "1 player missed it (queue full)"]
    );
    h.step();
    assert_eq!(
        h.packets::<ChatMessage>(b).last().map(|m| m.text.as_str()),
        Some("* Server: hello")
    );
    h.release_lane(a);
    assert!(!h.chat_lines(a).iter().any(|l| l == "* Server: hello"));
    let stats = run(&mut h, "stats");
    assert!(
        stats.iter().any(|l| l.starts_with("chat lines")),
        "{stats:?}"
    );
}

#[test]
fn reload_applies_the_identity_and_names_what_waits_for_a_restart() {
    let dir = std::env::temp_dir().join(format!("dlmp-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("server.toml");
    std::fs::write(&path, "name = \"Before\"\n").expect("write");
    let mut h = Harness::new();
    h.app()
        .insert_resource(dlmp::console::ConfigFile::new(Some(path.clone())));
    std::fs::write(&path, "name = \"After\"\nlanguage = \"Deutsch\"\n").expect("write");
    let lines = dlmp::console::execute(h.world_mut(), "reload");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let identity = h.world().resource::<dlmp::query::ServerIdentity>();
    assert_eq!(
        (identity.name.as_str(), identity.language.as_str()),
        ("After", "Deutsch")
    );

    std::fs::write(&path, "name = \"After\"\nmax_players = 5\n").expect("write");
    let lines = dlmp::console::execute(h.world_mut(), "reload");
    assert!(lines[1].contains("next start"), "{lines:?}");

    std::fs::write(&path, "name = 7\n").expect("write");
    let lines = dlmp::console::execute(h.world_mut(), "reload");
    assert!(lines[0].contains("nothing changed"), "{lines:?}");
    assert_eq!(
        h.world().resource::<dlmp::query::ServerIdentity>().name,
        "After"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn destroy_removes_a_vehicle_as_the_script_call_does_and_names_an_unknown_id() {
    use vehicle_support::{at, put, stand, transitions, vehicle};
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 411, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(50.0));
    put(&mut h, a, id, 0);
    h.step();
    h.clear(a);
    h.clear(b);
    assert_eq!(
        run(&mut h, &format!("destroy {}", id.0)),
        [format!("destroyed vehicle {} (411 Infernus)", id.0)]
    );
    assert_eq!(
        run(&mut h, &format!("destroy {}", id.0)),
        [format!("error: no vehicle with id {}", id.0)],
        "already being destroyed"
    );
    h.step();
    let ia = h.player_id(a).0;
    for c in [a, b] {
        assert_eq!(
            transitions(&h, c),
            [format!("Exit {ia} seat 0"), format!("hide {}", id.0)],
            "the occupant gets out before the hide, for every viewer"
        );
    }
    assert_eq!(
        run(&mut h, &format!("destroy {}", id.0)),
        [format!("error: no vehicle with id {}", id.0)]
    );
    assert_eq!(run(&mut h, "destroy car"), ["usage: destroy ID"]);
    assert_eq!(run(&mut h, "destroy"), ["usage: destroy ID"]);
}
