//! Blips through the Lua API (world.md Blip; lua-api.md `dlmp.create_blip`), in the
//! harness: exactly the Blip packets each client gets, in order. Shown to every player in
//! the blip's scope, within its draw distance when it has one (hidden 10 m past it), at
//! most the 100 nearest; an attached blip is never shown to its player, waits until both
//! have spawned, has sprite 0 and carries where its player was, refreshed at most once a
//! second after a move of more than 5 m; destroy, a resource stop, the viewer's and the
//! attached player's leave hide it; a new connection receives its blips again.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::markers::{Blip, BlipFlags};
use dlmp::protocol::world::shared::AttachKind;
use dlmp::script::ScriptHost;
use world_support::{lua, lua_now, scripts, spawned, told, walk_to};

const HELPERS: &str = r#"
function who(n) for _, q in ipairs(dlmp.players()) do if q:name() == n then return q end end end
"#;

/// (blip_id, active, x, y).
type Line = (u32, bool, f32, f32);

fn lines(h: &Harness, c: ClientId) -> Vec<Line> {
    h.packets::<Blip>(c)
        .iter()
        .map(|b| (b.blip_id.0, b.active, b.pos.x, b.pos.y))
        .collect()
}

fn ids(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    lines(h, c).iter().map(|l| (l.0, l.1)).collect()
}

fn hide(id: u32) -> Line {
    (id, false, 0.0, 0.0)
}

fn two(test: &str) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let s = scripts(test, HELPERS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    (s, h, a, b)
}

/// Teleports the player to (x, 0, 10) and lets a second pass.
fn go(h: &mut Harness, c: ClientId, x: f32) {
    lua_now(h, c, &format!("p:set_position({x}, 0, 10)"));
    h.advance(Duration::from_secs(1));
}

#[test]
fn a_blip_is_shown_to_everyone_in_its_scope_at_any_distance_with_every_field() {
    let (_s, mut h, a, b) = two("bl-show");
    lua(
        &mut h,
        a,
        "dlmp.create_blip(5000, -5000, 20, { sprite = 6, color = 0x00FF00, size = 1.5, flags = 3 })",
    );
    lua(
        &mut h,
        a,
        "dlmp.create_blip(1, 1, 1, { virtual_world = 1 })",
    );
    assert_eq!(
        lines(&h, a),
        [(1, true, 5000.0, -5000.0)],
        "not another scope's"
    );
    assert_eq!(lines(&h, b), [(1, true, 5000.0, -5000.0)]);
    let p = &h.packets::<Blip>(a)[0];
    assert_eq!(
        (
            p.sprite,
            p.color,
            p.pos.z,
            p.size,
            p.flags,
            p.attach_kind,
            p.attach_id
        ),
        (6, 0x00FF00, 20.0, 1.5, BlipFlags(3), AttachKind::None, 0)
    );
    h.clear(a);
    lua(&mut h, a, "p:set_virtual_world(1)");
    assert_eq!(
        ids(&h, a),
        [(1, false), (2, true)],
        "a scope change, the same tick"
    );
}

#[test]
fn a_blip_with_a_draw_distance_is_shown_within_it_and_hidden_10_m_past_it() {
    let (_s, mut h, a, _b) = two("bl-distance");
    lua(
        &mut h,
        a,
        "dlmp.create_blip(100, 0, 10, { draw_distance = 50 })",
    );
    assert_eq!(ids(&h, a), []);
    go(&mut h, a, 51.0);
    assert_eq!(ids(&h, a), [(1, true)], "49 m");
    go(&mut h, a, 42.0);
    assert_eq!(ids(&h, a), [(1, true)], "58 m: within the 10 m");
    go(&mut h, a, 39.0);
    assert_eq!(ids(&h, a), [(1, true), (1, false)], "61 m: hidden");
}

#[test]
fn a_player_is_shown_at_most_the_100_nearest_and_a_nearer_blip_displaces_the_farthest() {
    let (_s, mut h, a, _b) = two("bl-cap");
    lua(
        &mut h,
        a,
        "for i = 1, 101 do dlmp.create_blip(i * 10, 0, 10) end",
    );
    h.advance(Duration::from_secs(2));
    let shown = ids(&h, a);
    assert_eq!(shown.len(), 100);
    assert_eq!(shown[0], (1, true), "the nearest first");
    assert!(!shown.contains(&(101, true)), "the farthest waits");
    h.clear(a);
    lua(&mut h, a, "dlmp.create_blip(-1, 0, 10)");
    assert_eq!(ids(&h, a), [(100, false), (102, true)]);
    h.clear(a);
    go(&mut h, a, 2000.0);
    h.advance(Duration::from_secs(1));
    let now = ids(&h, a);
    assert_eq!(
        now,
        [(1, false), (102, false), (101, true), (100, true)],
        "refilled as the player moves"
    );
}

#[test]
fn an_attached_blip_is_never_shown_to_its_player_and_waits_until_both_have_spawned() {
    let (_s, mut h, a, b) = two("bl-attach");
    let c = h.connect("carol");
    h.steps(2);
    lua(
        &mut h,
        a,
        "G.b = dlmp.create_blip(0, 0, 0, { attach = who('bob'), color = 0xFF0000 })",
    );
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_blip(0, 0, 0, { attach = who('carol') })",
    );
    let p = &h.packets::<Blip>(a)[0];
    assert_eq!(
        (p.blip_id.0, p.sprite, p.attach_kind, p.attach_id, p.pos),
        (
            1,
            0,
            AttachKind::Player,
            h.player_id(b).0,
            world_support::SPAWN
        ),
        "where bob is by the server's data"
    );
    assert_eq!(ids(&h, a), [(1, true)], "carol has not spawned yet");
    assert_eq!(ids(&h, b), [], "never to bob");
    assert_eq!(ids(&h, c), [], "carol waits for her own spawn");
    h.clear(a);
    h.request_spawn(c);
    h.steps(3);
    assert_eq!(ids(&h, c), [(1, true)]);
    assert_eq!(ids(&h, a), [(2, true)]);
    assert_eq!(ids(&h, b), [(2, true)]);
}

/// world.md Blip (which wins over player.md's "shown only while the player is shown"): a
/// blip attached to a player stays on the radar at any distance, standing where the server
/// last had the player while the player itself is not shown.
#[test]
fn a_players_blip_stays_on_the_radar_at_any_distance() {
    let (_s, mut h, a, b) = two("bl-far-player");
    lua(
        &mut h,
        a,
        "dlmp.create_blip(0, 0, 0, { attach = who('bob') })",
    );
    h.clear(a);
    go(&mut h, b, 3000.0);
    world_support::frame_at(&mut h, b, Vec3::new(3000.0, 0.0, 10.0));
    h.advance(Duration::from_secs(2));
    let bob = h.player_id(b);
    assert!(
        h.packets::<dlmp::protocol::player::streaming::PlayerStreamOut>(a)
            .iter()
            .any(|p| p.player_id == bob),
        "bob himself is out of alice's range"
    );
    assert!(ids(&h, a).iter().all(|(_, active)| *active), "never hidden");
    assert_eq!(
        lines(&h, a).last().map(|l| l.2),
        Some(3000.0),
        "the blip stands where bob is"
    );
}

#[test]
fn a_vehicles_blip_marks_it_at_any_distance_in_its_scope_and_goes_with_it() {
    let (_s, mut h, a, b) = two("bl-vehicle");
    lua(
        &mut h,
        a,
        "G.v = dlmp.create_vehicle(400, 3000, 0, 10, 0) G.b = dlmp.create_blip(0, 0, 0, { attach = G.v, color = 0xFF0000 })",
    );
    let got = h.packets::<Blip>(a);
    assert_eq!(
        got.len(),
        1,
        "any distance: the vehicle itself is not shown"
    );
    assert_eq!(
        (got[0].attach_kind, got[0].attach_id),
        (AttachKind::Vehicle, 1)
    );
    assert_eq!(got[0].pos.x, 3000.0, "where the vehicle is");
    assert_eq!(ids(&h, b), [(1, true)], "everyone in its scope");
    h.clear(a);
    lua(&mut h, a, "dlmp.destroy_vehicle(G.v)");
    h.steps(2);
    assert_eq!(ids(&h, a), [(1, false)]);
    lua(&mut h, a, "say(tostring(G.b:exists()))");
    assert_eq!(told(&mut h, a), ["false"]);
}

#[test]
fn an_attached_blip_is_refreshed_at_most_once_a_second_after_a_move_of_more_than_5_m() {
    let (_s, mut h, a, b) = two("bl-refresh");
    lua(
        &mut h,
        a,
        "dlmp.create_blip(0, 0, 0, { attach = who('bob') })",
    );
    h.clear(a);
    walk_to(&mut h, b, Vec3::new(4.5, 0.0, 10.0));
    h.advance(Duration::from_secs(2));
    assert_eq!(ids(&h, a), [], "4.5 m is no refresh");
    walk_to(&mut h, b, Vec3::new(5.5, 0.0, 10.0));
    assert_eq!(
        lines(&h, a),
        [(1, true, 5.25, 0.0)],
        "the first frame more than 5 m away"
    );
    h.clear(a);
    let at = h.now();
    walk_to(&mut h, b, Vec3::new(12.0, 0.0, 10.0));
    assert!(h.now() - at < Duration::from_millis(700));
    assert_eq!(lines(&h, a), [], "6.75 m, but within the second");
    h.advance(Duration::from_secs(1));
    assert_eq!(lines(&h, a), [(1, true, 12.0, 0.0)]);
}

#[test]
fn a_slow_viewer_has_one_refresh_per_attached_blip_in_its_lane_and_ends_at_the_latest() {
    let (_s, mut h, a, b) = two("bl-slow");
    lua(
        &mut h,
        a,
        "dlmp.create_blip(0, 0, 0, { attach = who('bob') })",
    );
    h.advance(Duration::from_secs(1));
    // Alice's game stops acknowledging while bob runs on for five refreshes.
    h.set_auto_ack(a, false);
    h.step();
    h.clear(a);
    for leg in 1..=5u8 {
        walk_to(&mut h, b, Vec3::new(f32::from(leg) * 10.0, 0.0, 10.0));
        h.advance(Duration::from_secs(1));
    }
    assert_eq!(
        lines(&h, a),
        [(1, true, 5.25, 0.0)],
        "the first refresh (the first frame 5 m on), then nothing while it is not acknowledged"
    );
    h.set_auto_ack(a, true);
    h.ack(a);
    h.steps(2);
    assert_eq!(
        lines(&h, a).last(),
        Some(&(1, true, 45.25, 0.0)),
        "the blip as it is now: its last refresh, the first frame 5 m past the one before"
    );
    assert_eq!(lines(&h, a).len(), 2);
}

#[test]
fn a_viewer_blip_is_the_viewers_and_goes_with_the_viewer_or_the_attached_player() {
    let (_s, mut h, a, b) = two("bl-gone");
    lua(
        &mut h,
        a,
        "G.v = dlmp.create_blip(1, 1, 1, { viewer = who('bob') }) G.on = dlmp.create_blip(0, 0, 0, { attach = who('bob') })",
    );
    assert_eq!(ids(&h, a), [(2, true)]);
    assert_eq!(ids(&h, b), [(1, true)]);
    h.clear(a);
    h.disconnect(b);
    h.steps(3);
    assert_eq!(lines(&h, a), [hide(2)]);
    lua(
        &mut h,
        a,
        "say(tostring(G.v:exists()) .. ' ' .. tostring(G.on:exists()))",
    );
    assert_eq!(told(&mut h, a), ["false false"]);
    assert!(h.world().resource::<dlmp::world::blip::Blips>().is_empty());
}

#[test]
fn destroy_and_a_resource_stop_hide_the_blip_for_every_viewer() {
    let (_s, mut h, a, b) = two("bl-destroy");
    lua(
        &mut h,
        a,
        "G.b = dlmp.create_blip(0, 0, 0) dlmp.create_blip(1, 0, 0)",
    );
    lua(&mut h, a, "G.gone = dlmp.destroy_blip(G.b)");
    for c in [a, b] {
        assert_eq!(lines(&h, c).last(), Some(&hide(1)));
        h.clear(c);
    }
    lua(
        &mut h,
        a,
        "say(tostring(G.gone) .. ' ' .. tostring(G.b:destroy()) .. ' ' .. tostring(G.b:exists()))",
    );
    assert_eq!(told(&mut h, a), ["true false false"]);
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    for c in [a, b] {
        assert_eq!(lines(&h, c), [hide(2)], "as if destroyed");
    }
}

#[test]
fn a_new_connection_receives_its_blips_again_nearest_first_before_it_spawns() {
    let (_s, mut h, a, _b) = two("bl-reconnect");
    lua(
        &mut h,
        a,
        "dlmp.create_blip(3000, 0, 0) dlmp.create_blip(10, 0, 0)",
    );
    h.disconnect(a);
    h.steps(2);
    let again = h.connect("alice");
    h.steps(2);
    assert_eq!(ids(&h, again), [(2, true), (1, true)]);
}

#[rstest::rstest]
#[case("7000, 0, 0", "create_blip: x 7000 is outside -6000..=6000")]
#[case("0, 0, 0, { sprite = 64 }", "sprite")]
#[case("0, 0, 0, { size = 0.2 }", "create_blip: size 0.2 is outside 0.25..=4")]
#[case("0, 0, 0, { size = 5 }", "size 5 is outside 0.25..=4")]
#[case("0, 0, 0, { flags = 4 }", "flags")]
#[case(
    "0, 0, 0, { draw_distance = 0 }",
    "draw_distance 0 is outside (0, 17000]"
)]
#[case("0, 0, 0, { color = -1 }", "color")]
#[case(
    "0, 0, 0, { attach = p, sprite = 3 }",
    "create_blip: sprite 3 must be 0 for an attached blip"
)]
#[case(
    "0, 0, 0, { attach = {} }",
    "create_blip: attach must be a Player or a Vehicle"
)]
#[case("0, 0, 0, { icon = 1 }", "create_blip: unknown option icon")]
fn a_bad_argument_is_a_lua_error_naming_it_and_its_range(#[case] args: &str, #[case] error: &str) {
    let (_s, mut h, a, _b) = two("bl-bad");
    lua(&mut h, a, &format!("dlmp.create_blip({args})"));
    let got = told(&mut h, a);
    assert_eq!(got.len(), 1);
    assert!(got[0].contains(error), "{got:?}");
    assert_eq!(ids(&h, a), []);
}
