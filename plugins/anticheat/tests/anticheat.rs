//! The reporter through the public API: refusals the server makes (stale frames, held-back
//! movement) reach its counters; past the thresholds it warns, then kicks.

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::prelude::*;
use dlmp::protocol::connection::handshake::ServerDisconnect;
use dlmp::protocol::player::sync::Frame;
use dlmp_anticheat::{AntiCheatPlugin, RefusalCounts};

fn server(table: &str) -> Harness {
    let mut config = Harness::config();
    config
        .plugins
        .insert("anticheat".into(), toml::from_str(table).expect("TOML"));
    Harness::with_app(config, |app| {
        app.add_plugins(AntiCheatPlugin);
    })
}

fn spawned(h: &mut Harness) -> ClientId {
    let alice = h.connect("alice");
    h.step();
    h.spawn(alice, Vec3::new(0.0, 0.0, 3.0));
    h.live(alice);
    h.clear(alice);
    alice
}

/// The same seq again: admission drops the frame as stale.
fn stale_frame(h: &mut Harness, who: ClientId) {
    let seq = h.get::<LastFrame>(who).seq.expect("a frame was taken").0;
    let at = h.get::<Position>(who).0;
    h.sync(who, seq, Frame::standing(at));
}

#[test]
fn stale_frames_warn_then_kick() {
    let mut h = server("warn_at = 3\nkick_at = 5\ncount = [\"frame\"]");
    let alice = spawned(&mut h);
    for _ in 0..2 {
        stale_frame(&mut h, alice);
    }
    assert_eq!(h.get::<RefusalCounts>(alice).total(), 2);
    assert!(h.chat_lines(alice).is_empty(), "below warn_at");
    stale_frame(&mut h, alice);
    assert_eq!(
        h.take_chat_lines(alice),
        ["Anti-cheat: your game's input is being refused."]
    );
    stale_frame(&mut h, alice);
    assert!(h.chat_lines(alice).is_empty(), "warned once a window");
    assert!(h.packets::<ServerDisconnect>(alice).is_empty());
    stale_frame(&mut h, alice);
    h.step();
    assert_eq!(h.chat_lines(alice), ["Kicked by the anti-cheat."]);
    assert!(!h.packets::<ServerDisconnect>(alice).is_empty(), "kicked");
}

#[test]
fn held_back_movement_is_counted_and_other_kinds_are_not() {
    let mut h = server("warn_at = 0\nkick_at = 0\ncount = [\"movement\"]");
    let alice = spawned(&mut h);
    stale_frame(&mut h, alice);
    assert!(
        h.world()
            .get::<RefusalCounts>(h.entity(alice))
            .is_none_or(|c| c.total() == 0),
        "frames are not counted here"
    );
    let seq = h.get::<LastFrame>(alice).seq.expect("a frame").0 + 1;
    h.sync(alice, seq, Frame::standing(Vec3::new(900.0, 0.0, 3.0)));
    let counts = h.get::<RefusalCounts>(alice);
    assert_eq!(counts.by_kind.get(&RefusalKind::Movement), Some(&1));
}

#[test]
fn off_without_a_table_and_a_bad_table_is_an_error() {
    let mut h = Harness::with_app(Harness::config(), |app| {
        app.add_plugins(AntiCheatPlugin);
    });
    let alice = spawned(&mut h);
    stale_frame(&mut h, alice);
    assert!(h.world().get::<RefusalCounts>(h.entity(alice)).is_none());

    let h = server("warn_at = \"many\"");
    let errors = h.world().resource::<PluginSettings>().errors().to_vec();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].0.starts_with("[plugins.anticheat]"),
        "{}",
        errors[0]
    );
}

/// What the gamemode heard: `player_cheat_suspected` with the verdict and the counts.
const LISTENER: &str = r#"
dlmp.on("player_cheat_suspected", function(p, verdict, counts)
    dlmp.send_chat("heard " .. p:name() .. " " .. verdict .. " frame=" .. tostring(counts.frame)
        .. " shot=" .. tostring(counts.shot), nil, { p })
end)
"#;

#[test]
fn gamemodes_hear_each_verdict_as_player_cheat_suspected() {
    let scripts = TempScripts::new("anticheat-event");
    scripts.resource("gm", LISTENER);
    let mut config = scripts.config();
    config.plugins.insert(
        "anticheat".into(),
        toml::from_str("warn_at = 2\nkick_at = 4\ncount = [\"frame\"]").expect("TOML"),
    );
    let mut h = Harness::with_app(config, |app| {
        app.add_plugins(AntiCheatPlugin);
    });
    let alice = spawned(&mut h);
    stale_frame(&mut h, alice);
    assert!(h.chat_lines(alice).is_empty(), "below warn_at");
    stale_frame(&mut h, alice);
    assert_eq!(
        h.take_chat_lines(alice),
        [
            "Anti-cheat: your game's input is being refused.",
            "heard alice warned frame=2 shot=nil"
        ],
        "in the tick of the verdict"
    );
    stale_frame(&mut h, alice);
    assert!(h.take_chat_lines(alice).is_empty(), "warned once a window");
    stale_frame(&mut h, alice);
    h.step();
    assert_eq!(
        h.chat_lines(alice),
        [
            "Kicked by the anti-cheat.",
            "heard alice kicked frame=4 shot=nil"
        ],
        "the handlers run before the session ends"
    );
    assert!(!h.packets::<ServerDisconnect>(alice).is_empty(), "kicked");
}
