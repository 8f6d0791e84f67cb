//! world.md's waypoints: PlayerWaypoint admission (spawned, active 0 / 1, ±3000, within
//! 1 m or "none" again is no change), `player_waypoint` within 5 at once and 2 a second
//! with the latest coalesced, SetWaypoint held at once without the event, and the
//! late-answer ordering.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::ids::EventId;
use dlmp::protocol::world::waypoint::{AnyF32, PlayerWaypoint, SetWaypoint};
use dlmp::world::waypoint::WaypointDrops;
use world_support::{lua, scripts, spawned, told};

const EVENTS: &str = r#"
local function n(v) if v == nil then return "nil" end return string.format("%g", v) end
dlmp.on("player_waypoint", function(p, x, y) dlmp.send_chat("wp " .. p:name() .. " " .. n(x) .. " " .. n(y)) end)
"#;

fn alice(test: &str) -> (world_support::Scripts, Harness, ClientId) {
    let s = scripts(test, EVENTS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    (s, h, a)
}

fn report(h: &mut Harness, c: ClientId, active: u8, x: f32, y: f32) {
    let packet = PlayerWaypoint {
        session_token: h.token(c),
        event_id: EventId(0),
        active,
        x: AnyF32(x),
        y: AnyF32(y),
    };
    h.send_event(c, packet);
}

fn drops(h: &Harness) -> WaypointDrops {
    *h.world().resource::<WaypointDrops>()
}

#[test]
fn an_accepted_report_raises_player_waypoint_and_is_held() {
    let (_s, mut h, a) = alice("wp-accept");
    report(&mut h, a, 1, 100.0, -200.5);
    h.step();
    assert_eq!(told(&mut h, a), ["wp alice 100 -200.5"]);
    lua(&mut h, a, "say(table.concat({p:waypoint()}, ' '))");
    assert_eq!(told(&mut h, a), ["100.0 -200.5"]);
    report(&mut h, a, 0, 0.0, 0.0);
    h.step();
    assert_eq!(told(&mut h, a), ["wp alice nil nil"]);
    lua(&mut h, a, "say(tostring(p:waypoint()))");
    assert_eq!(told(&mut h, a), ["nil"]);
}

#[test]
fn a_report_before_the_spawn_is_dropped() {
    let s = scripts("wp-unspawned", EVENTS);
    let mut h = world_support::harness(&s);
    let a = h.connect("alice");
    h.step();
    report(&mut h, a, 1, 10.0, 10.0);
    h.steps(2);
    assert_eq!(told(&mut h, a), Vec::<String>::new());
    assert_eq!(drops(&h).not_spawned, 1);
}

#[test]
fn within_1_m_or_none_again_is_no_change() {
    let (_s, mut h, a) = alice("wp-repeat");
    report(&mut h, a, 0, 0.0, 0.0);
    report(&mut h, a, 1, 10.0, 10.0);
    report(&mut h, a, 1, 10.5, 10.5);
    report(&mut h, a, 1, 11.0, 10.8);
    report(&mut h, a, 0, 0.0, 0.0);
    report(&mut h, a, 0, 5.0, 5.0);
    h.step();
    assert_eq!(
        told(&mut h, a),
        ["wp alice 10 10", "wp alice 11 10.8", "wp alice nil nil"]
    );
    assert_eq!(drops(&h).repeated, 3);
}

#[test]
fn a_malformed_report_is_dropped() {
    let (_s, mut h, a) = alice("wp-malformed");
    report(&mut h, a, 2, 1.0, 1.0);
    report(&mut h, a, 1, f32::NAN, 1.0);
    report(&mut h, a, 1, 1.0, 3000.5);
    report(&mut h, a, 1, f32::INFINITY, 1.0);
    report(&mut h, a, 1, -3000.0, 3000.0);
    h.step();
    assert_eq!(
        told(&mut h, a),
        ["wp alice -3000 3000"],
        "the lane goes on after the drops"
    );
    assert_eq!(drops(&h).malformed, 4);
}

#[test]
fn five_events_at_once_then_two_a_second_with_the_latest_coalesced() {
    let (_s, mut h, a) = alice("wp-limit");
    for i in 0..8u8 {
        report(&mut h, a, 1, f32::from(i) * 10.0, 0.0);
    }
    h.step();
    assert_eq!(
        told(&mut h, a),
        [
            "wp alice 0 0",
            "wp alice 10 0",
            "wp alice 20 0",
            "wp alice 30 0",
            "wp alice 40 0"
        ]
    );
    lua(&mut h, a, "say(table.concat({p:waypoint()}, ' '))");
    let lines = told(&mut h, a);
    assert_eq!(
        lines.last().map(String::as_str),
        Some("70.0 0.0"),
        "held at once: {lines:?}"
    );
    assert_eq!(
        lines[..lines.len() - 1],
        ["wp alice 70 0"],
        "the latest, when a token came back"
    );
    h.advance(Duration::from_secs(2));
    assert_eq!(told(&mut h, a), Vec::<String>::new(), "nothing else waited");
}

#[test]
fn a_change_waits_half_a_second_once_the_burst_is_spent() {
    let (_s, mut h, a) = alice("wp-refill");
    for i in 0..5u8 {
        report(&mut h, a, 1, f32::from(i) * 10.0, 0.0);
    }
    h.step();
    assert_eq!(told(&mut h, a).len(), 5);
    report(&mut h, a, 1, 500.0, 0.0);
    h.step();
    assert_eq!(told(&mut h, a), Vec::<String>::new());
    h.advance(Duration::from_millis(440));
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "before the token is back"
    );
    h.advance(Duration::from_millis(60));
    assert_eq!(told(&mut h, a), ["wp alice 500 0"]);
}

#[test]
fn set_waypoint_drops_the_players_change_still_waiting_for_the_limit() {
    let (_s, mut h, a) = alice("wp-pending");
    for i in 0..5u8 {
        report(&mut h, a, 1, f32::from(i) * 10.0, 0.0);
    }
    h.step();
    assert_eq!(told(&mut h, a).len(), 5);
    report(&mut h, a, 1, 500.0, 0.0);
    h.step();
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "past the limit: waits"
    );
    world_support::lua_now(&mut h, a, "p:set_waypoint(100, 100)");
    h.advance(Duration::from_secs(2));
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "no stale player_waypoint after the gamemode set the point"
    );
    lua(&mut h, a, "say(table.concat({p:waypoint()}, ' '))");
    assert_eq!(told(&mut h, a), ["100.0 100.0"]);
}

#[test]
fn set_waypoint_is_held_at_once_without_player_waypoint_and_its_answer_is_no_change() {
    let (_s, mut h, a) = alice("wp-set");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "p:set_waypoint(50, 60.5) say(table.concat({p:waypoint()}, ' '))",
    );
    assert_eq!(
        h.packets::<SetWaypoint>(a)
            .into_iter()
            .map(|w| (w.active, w.x, w.y))
            .collect::<Vec<_>>(),
        [(true, 50.0, 60.5)]
    );
    assert_eq!(told(&mut h, a), ["50.0 60.5"]);
    report(&mut h, a, 1, 50.2, 60.5);
    h.step();
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "the answer repeats what is held"
    );
    assert_eq!(h.packets::<SetWaypoint>(b), [], "never to anyone else");
    lua(&mut h, a, "p:clear_waypoint() say(tostring(p:waypoint()))");
    assert_eq!(
        h.packets::<SetWaypoint>(a)
            .into_iter()
            .map(|w| (w.active, w.x, w.y))
            .collect::<Vec<_>>(),
        [(false, 0.0, 0.0)]
    );
    assert_eq!(told(&mut h, a), ["nil"]);
}

#[test]
fn a_report_sent_before_set_waypoint_raises_its_point_then_the_answer_the_new_one() {
    let (_s, mut h, a) = alice("wp-late");
    lua(&mut h, a, "p:set_waypoint(50, 60)");
    h.clear(a);
    report(&mut h, a, 1, 10.0, 10.0);
    h.step();
    report(&mut h, a, 1, 50.0, 60.0);
    h.step();
    assert_eq!(told(&mut h, a), ["wp alice 10 10", "wp alice 50 60"]);
}

#[test]
fn bad_arguments_name_the_argument_and_the_range() {
    let (_s, mut h, a) = alice("wp-args");
    lua(&mut h, a, "p:set_waypoint(3001, 0)");
    assert!(told(&mut h, a)[0].contains("set_waypoint: x 3001 is outside -3000..=3000"));
    lua(&mut h, a, "p:set_waypoint(0, 'north')");
    assert!(told(&mut h, a)[0].contains("set_waypoint: y must be a number, got \"north\""));
    assert_eq!(h.packets::<SetWaypoint>(a), []);
}
