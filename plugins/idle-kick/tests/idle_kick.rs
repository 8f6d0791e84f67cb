//! The idle kicker through the public API: a player that neither moves nor presses a key
//! is warned, then kicked; one that moves stays.

use std::time::Duration;

use dlmp::harness::Harness;
use dlmp::prelude::*;
use dlmp::protocol::connection::handshake::ServerDisconnect;
use dlmp::protocol::player::sync::Frame;
use dlmp_idle_kick::IdleKickPlugin;

fn server(table: Option<&str>) -> Harness {
    let mut config = Harness::config();
    if let Some(table) = table {
        config
            .plugins
            .insert("idle_kick".into(), toml::from_str(table).expect("TOML"));
    }
    Harness::with_app(config, |app| {
        app.add_plugins(IdleKickPlugin);
    })
}

#[test]
fn the_idle_are_warned_then_kicked_and_the_moving_stay() {
    let mut h = server(Some("idle_secs = 4\nwarn_secs = 2"));
    let (idle, busy) = h.connect_pair_at(Vec3::new(0.0, 0.0, 3.0));
    h.live(idle);
    h.live(busy);
    h.clear(idle);
    for second in 1..=3u8 {
        let seq = h.get::<LastFrame>(busy).seq.expect("a frame").0 + 1;
        h.sync(
            busy,
            seq,
            Frame::standing(Vec3::new(f32::from(second), 0.0, 3.0)),
        );
        h.advance(Duration::from_secs(1));
    }
    assert_eq!(
        h.take_chat_lines(idle),
        ["You will be kicked for being idle in 2 s: move to stay."]
    );
    h.advance(Duration::from_millis(1500));
    assert!(
        h.chat_lines(idle)
            .contains(&"Kicked for being idle.".to_owned())
    );
    assert!(!h.packets::<ServerDisconnect>(idle).is_empty(), "kicked");
    assert!(
        h.packets::<ServerDisconnect>(busy).is_empty(),
        "moved: stays"
    );
}

#[test]
fn off_without_a_table() {
    let mut h = server(None);
    let alice = h.connect("alice");
    h.advance(Duration::from_secs(5));
    assert!(h.packets::<ServerDisconnect>(alice).is_empty());
}
