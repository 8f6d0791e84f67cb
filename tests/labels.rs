//! 3D labels through the Lua API (world.md Label3D; lua-api.md `dlmp.create_label`), in the
//! harness: exactly the Label3D packets each client gets, in order. Shown to a spawned
//! player in the label's scope within its draw distance (hidden 10 m beyond, ADR 0045), at
//! most the 256 nearest; an attached label only while its player is shown to the recipient
//! and never to that player; a viewer's label to the viewer alone; reconciled on every
//! change and once a second; deleting the attached player or the viewer deletes the label.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::lane::Delivery;
use dlmp::protocol::ServerPacket;
use dlmp::protocol::world::label::Label3D;
use dlmp::protocol::world::shared::AttachKind;
use dlmp::script::ScriptHost;
use world_support::{lua, lua_now, scripts, spawned, told};

/// `who(name)` is the connected player of that name.
const HELPERS: &str = r#"
function who(n) for _, q in ipairs(dlmp.players()) do if q:name() == n then return q end end end
"#;

/// (label_id, active, color, x, draw_distance, text).
type Line = (u32, bool, u32, f32, f32, String);

fn lines(h: &Harness, c: ClientId) -> Vec<Line> {
    h.packets::<Label3D>(c)
        .iter()
        .map(|l| {
            (
                l.label_id.0,
                l.active,
                l.color,
                l.pos.x,
                l.draw_distance,
                l.text.as_str().to_owned(),
            )
        })
        .collect()
}

fn ids(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    lines(h, c).iter().map(|l| (l.0, l.1)).collect()
}

fn hide(id: u32) -> Line {
    (id, false, 0, 0.0, 0.0, String::new())
}

fn two(test: &str) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let s = scripts(test, HELPERS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    (s, h, a, b)
}

#[test]
fn a_label_changed_every_tick_costs_a_slow_viewer_one_event_and_ends_at_the_latest() {
    let (_s, mut h, a, b) = two("countdown");
    lua(
        &mut h,
        a,
        "G.l = dlmp.create_label('go', 5, 0, 10) G.n = 0 dlmp.on('tick', function() G.n = G.n + 1 G.l:set_text(tostring(G.n)) end)",
    );
    h.advance(Duration::from_secs(1));
    // Bob's game stops acknowledging (a slow link); alice's acks every tick.
    h.set_auto_ack(b, false);
    h.step();
    h.clear(a);
    h.clear(b);
    h.steps(100);
    let texts = |h: &Harness, c| -> Vec<String> { lines(h, c).into_iter().map(|l| l.5).collect() };
    assert!(
        texts(&h, a).len() >= 99,
        "alice: every change: {}",
        texts(&h, a).len()
    );
    assert_eq!(
        texts(&h, b),
        Vec::<String>::new(),
        "bob: his last change waits for his ack, the later ones are coalesced into it"
    );
    h.set_auto_ack(b, true);
    h.ack(b);
    h.steps(2);
    let (last_a, last_b) = (texts(&h, a).pop(), texts(&h, b).pop());
    assert!(
        last_b.is_some() && last_a == last_b,
        "{last_a:?} {last_b:?}"
    );
    assert!(texts(&h, b).len() <= 4, "{:?}", texts(&h, b));
}

/// Teleports the player to (x, 0, 10) and lets a second pass (the once-a-second reconcile).
fn go(h: &mut Harness, c: ClientId, x: f32) {
    lua_now(h, c, &format!("p:set_position({x}, 0, 10)"));
    h.advance(Duration::from_secs(1));
}

#[test]
fn a_label_within_its_draw_distance_is_shown_with_every_field_and_hidden_10_m_past_it() {
    let (_s, mut h, a, _b) = two("lb-show");
    lua(
        &mut h,
        a,
        "dlmp.create_label('Bank', 20, 0, 10, { color = 0x00FF00, draw_distance = 30 })",
    );
    let shown = (1, true, 0x00FF00, 20.0, 30.0, "Bank".to_owned());
    assert_eq!(lines(&h, a), std::slice::from_ref(&shown));
    let l = &h.packets::<Label3D>(a)[0];
    assert_eq!((l.pos.y, l.pos.z), (0.0, 10.0));
    assert_eq!((l.attach_kind, l.attach_id), (AttachKind::None, 0));
    h.clear(a);
    go(&mut h, a, -15.0);
    assert_eq!(
        lines(&h, a),
        [],
        "35 m: past 30 but within the 10 m hysteresis"
    );
    go(&mut h, a, -21.0);
    assert_eq!(lines(&h, a), [hide(1)], "41 m: hidden");
    h.clear(a);
    go(&mut h, a, -15.0);
    assert_eq!(lines(&h, a), [], "35 m: not shown again past 30");
    go(&mut h, a, -9.0);
    assert_eq!(lines(&h, a), [shown], "29 m: shown again");
}

#[test]
fn only_a_spawned_player_in_the_labels_scope_sees_it() {
    let (s, mut h, a, _b) = two("lb-scope");
    lua(
        &mut h,
        a,
        "dlmp.create_label('inside', 0, 0, 10, { virtual_world = 1 }) dlmp.create_label('here', 1, 0, 10)",
    );
    assert_eq!(
        ids(&h, a),
        [(2, true)],
        "another world's label is not shown"
    );
    h.clear(a);
    lua(&mut h, a, "p:set_virtual_world(1)");
    assert_eq!(ids(&h, a), [(2, false), (1, true)], "the same tick");
    let c = h.connect("carol");
    h.steps(60);
    assert_eq!(ids(&h, c), [], "not spawned yet");
    h.request_spawn(c);
    h.steps(3);
    assert_eq!(ids(&h, c), [(2, true)]);
    drop(s);
}

#[test]
fn a_player_is_shown_at_most_the_256_nearest_and_a_nearer_label_displaces_the_farthest() {
    let (_s, mut h, a, _b) = two("lb-cap");
    lua(
        &mut h,
        a,
        "for i = 0, 256 do dlmp.create_label('n' .. i, i / 10, 0, 10) end",
    );
    h.advance(Duration::from_secs(3));
    let shown = ids(&h, a);
    assert_eq!(shown.len(), 256);
    assert!(!shown.contains(&(257, true)), "the farthest waits");
    assert_eq!(shown[0], (1, true), "the nearest first");
    h.clear(a);
    lua(&mut h, a, "dlmp.create_label('new', -0.05, 0, 10)");
    assert_eq!(ids(&h, a), [(256, false), (258, true)]);
    h.clear(a);
    go(&mut h, a, 30.0);
    assert_eq!(
        ids(&h, a),
        [(1, false), (258, false), (257, true), (256, true)],
        "refilled as the player moves: the two farthest from x = 30 make room"
    );
}

#[test]
fn set_text_set_color_and_set_position_are_critical_shows_to_everyone_it_is_shown_to() {
    let (_s, mut h, a, b) = two("lb-change");
    lua(&mut h, a, "G.l = dlmp.create_label('one', 0, 0, 10)");
    let c = spawned(&mut h, "carol");
    lua_now(&mut h, c, "p:set_position(500, 0, 10)");
    h.advance(Duration::from_secs(1));
    for x in [a, b, c] {
        h.clear(x);
    }
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 0);
    lua(
        &mut h,
        a,
        "G.l:set_text('two') G.l:set_color(0xFF0000) G.l:set_position(1, 0, 10)",
    );
    let white = 0x00FF_FFFF;
    // The first change at once; the two after it, made before it was acknowledged, as one
    // show of the label as it is then (ADR 0092).
    let want = [
        (1, true, white, 0.0, 50.0, "two".to_owned()),
        (1, true, 0xFF0000, 1.0, 50.0, "two".to_owned()),
    ];
    assert_eq!(lines(&h, a), want);
    h.release_lane(b);
    assert_eq!(
        lines(&h, b),
        want,
        "critical: past a full lane's droppable room"
    );
    assert_eq!(lines(&h, c), [], "not shown to carol, 500 m away");
}

#[test]
fn a_show_refused_by_a_full_lane_is_repeated_by_the_next_reconcile() {
    let (_s, mut h, a, _b) = two("lb-full");
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Droppable, 0);
    lua_now(&mut h, a, "dlmp.create_label('x', 0, 0, 10)");
    assert_eq!(ids(&h, a), []);
    h.release_lane(a);
    assert_eq!(ids(&h, a), [(1, true)]);
}

#[test]
fn an_attached_label_follows_its_players_visibility_and_is_never_shown_to_that_player() {
    let (_s, mut h, a, b) = two("lb-attach");
    lua(
        &mut h,
        a,
        "G.l = dlmp.create_label('bob', 0, 0, 1.5, { attach = who('bob') })",
    );
    assert_eq!(ids(&h, b), [], "never to the attached player");
    let l = &h.packets::<Label3D>(a)[0];
    assert_eq!(
        (l.attach_kind, l.attach_id, l.pos.z),
        (AttachKind::Player, h.player_id(b).0, 1.5),
        "the wire carries the offset"
    );
    h.clear(a);
    lua_now(&mut h, b, "p:set_position(2000, 0, 10)");
    let wire = h.received(a).to_vec();
    let out = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::PlayerStreamOut(_)));
    let hid = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::Label3D(l) if !l.active));
    assert!(
        out.is_some() && hid > out,
        "hidden after its player: {wire:?}"
    );
    h.clear(a);
    lua_now(&mut h, b, "p:set_position(1, 0, 10)");
    let wire = h.received(a).to_vec();
    let tag = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::PlayerNametag(_)));
    let show = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::Label3D(l) if l.active));
    assert!(
        tag.is_some() && show > tag,
        "shown after its player: {wire:?}"
    );
    assert_eq!(ids(&h, b), []);
}

#[test]
fn a_vehicles_label_is_shown_after_the_vehicle_hidden_after_it_and_goes_with_it() {
    let (_s, mut h, a, _) = two("lb-vehicle");
    lua(
        &mut h,
        a,
        "G.v = dlmp.create_vehicle(400, 5, 0, 10, 0) G.l = dlmp.create_label('taxi', 0, 0, 1.5, { attach = G.v })",
    );
    let wire = h.received(a).to_vec();
    let car = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::VehicleSync(v) if v.active));
    let tag = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::Label3D(l) if l.active));
    assert!(
        car.is_some() && tag > car,
        "shown after its vehicle: {wire:?}"
    );
    let l = &h.packets::<Label3D>(a)[0];
    assert_eq!(
        (l.attach_kind, l.attach_id, l.pos.z),
        (AttachKind::Vehicle, 1, 1.5)
    );
    h.clear(a);
    go(&mut h, a, 1000.0);
    let wire = h.received(a).to_vec();
    let car = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::VehicleSync(v) if !v.active));
    let tag = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::Label3D(l) if !l.active));
    assert!(
        car.is_some() && tag > car,
        "hidden after its vehicle: {wire:?}"
    );
    go(&mut h, a, 0.0);
    assert_eq!(ids(&h, a), [(1, false), (1, true)]);
    h.clear(a);
    lua(
        &mut h,
        a,
        "dlmp.destroy_vehicle(G.v) say(tostring(G.l:exists()))",
    );
    h.steps(2);
    assert_eq!(ids(&h, a), [(1, false)]);
    lua(&mut h, a, "say(tostring(G.l:exists()))");
    assert_eq!(told(&mut h, a).last().map(String::as_str), Some("false"));
}

#[test]
fn a_vehicles_label_is_measured_from_the_vehicle_and_in_its_scope() {
    let (_s, mut h, a, _) = two("lb-vehicle-far");
    lua(
        &mut h,
        a,
        "G.v = dlmp.create_vehicle(400, 100, 0, 10, 0) dlmp.create_label('far', 0, 0, 1, { attach = G.v, draw_distance = 60 })",
    );
    assert_eq!(
        ids(&h, a),
        [],
        "the vehicle is shown at 100 m, past the label's 60"
    );
    go(&mut h, a, 50.0);
    assert_eq!(ids(&h, a), [(1, true)]);
    lua(&mut h, a, "p:set_virtual_world(4)");
    h.advance(Duration::from_secs(1));
    assert_eq!(
        ids(&h, a),
        [(1, true), (1, false)],
        "the vehicle's scope, not the label's own"
    );
}

#[test]
fn an_attached_label_is_measured_from_its_player_within_its_draw_distance() {
    let (_s, mut h, a, b) = two("lb-attach-far");
    lua_now(&mut h, b, "p:set_position(100, 0, 10)");
    h.advance(Duration::from_secs(1));
    lua(
        &mut h,
        a,
        "dlmp.create_label('bob', 0, 0, 1, { attach = who('bob'), draw_distance = 60 })",
    );
    assert!(h.is_shown(b, a), "bob is shown to alice at 100 m");
    assert_eq!(ids(&h, a), [], "but 100 m is past the label's 60");
    lua_now(&mut h, b, "p:set_position(50, 0, 10)");
    h.advance(Duration::from_secs(1));
    assert_eq!(ids(&h, a), [(1, true)]);
}

#[test]
fn deleting_the_attached_player_or_the_viewer_deletes_the_label() {
    let (_s, mut h, a, b) = two("lb-gone");
    lua(
        &mut h,
        a,
        "G.on = dlmp.create_label('bob', 0, 0, 1, { attach = who('bob') }) G.mine = dlmp.create_label('me', 0, 0, 10, { viewer = who('bob') })",
    );
    assert_eq!(ids(&h, a), [(1, true)], "the viewer label is bob's alone");
    assert_eq!(ids(&h, b), [(2, true)]);
    h.clear(a);
    h.disconnect(b);
    h.steps(3);
    assert_eq!(lines(&h, a), [hide(1)]);
    lua(
        &mut h,
        a,
        "say(tostring(G.on:exists()) .. ' ' .. tostring(G.mine:exists()))",
    );
    assert_eq!(told(&mut h, a), ["false false"]);
    assert!(
        h.world()
            .resource::<dlmp::world::label::Labels>()
            .is_empty()
    );
}

#[test]
fn destroy_and_a_resource_stop_hide_the_label_for_every_viewer() {
    let (_s, mut h, a, b) = two("lb-destroy");
    lua(
        &mut h,
        a,
        "G.l = dlmp.create_label('a', 0, 0, 10) dlmp.create_label('b', 1, 0, 10)",
    );
    lua(&mut h, a, "G.gone = G.l:destroy()");
    for c in [a, b] {
        assert_eq!(lines(&h, c).last(), Some(&hide(1)));
        h.clear(c);
    }
    lua(
        &mut h,
        a,
        "say(tostring(G.gone) .. ' ' .. tostring(dlmp.destroy_label(G.l)))",
    );
    assert_eq!(told(&mut h, a), ["true false"]);
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    for c in [a, b] {
        assert_eq!(lines(&h, c), [hide(2)], "as if destroyed");
    }
    assert!(
        h.world()
            .resource::<dlmp::world::label::Labels>()
            .is_empty()
    );
}

#[test]
fn a_new_connection_receives_its_labels_again_nearest_first() {
    let (_s, mut h, a, _b) = two("lb-reconnect");
    lua(
        &mut h,
        a,
        "dlmp.create_label('far', 40, 0, 10) dlmp.create_label('near', 2, 0, 10)",
    );
    assert_eq!(ids(&h, a), [(2, true), (1, true)]);
    h.disconnect(a);
    h.steps(2);
    let again = h.connect("alice");
    assert_eq!(h.player_id(again), h.player_id(a), "the same slot");
    h.step();
    h.request_spawn(again);
    h.steps(3);
    assert_eq!(ids(&h, again), [(2, true), (1, true)]);
}

#[test]
fn the_text_is_utf8_of_at_most_255_bytes_and_keeps_its_line_breaks() {
    let (_s, mut h, a, _b) = two("lb-text");
    lua(
        &mut h,
        a,
        "G.l = dlmp.create_label(string.rep('x', 255), 0, 0, 10)",
    );
    assert_eq!(lines(&h, a)[0].5.len(), 255);
    h.clear(a);
    lua(
        &mut h,
        a,
        "G.l:set_text('K\u{f6}ln' .. string.char(10) .. 'Dom')",
    );
    assert_eq!(lines(&h, a)[0].5, "K\u{f6}ln\nDom");
    lua(
        &mut h,
        a,
        "dlmp.create_label(string.rep('x', 256), 0, 0, 10)",
    );
    lua(&mut h, a, "G.l:set_text('a' .. string.char(0) .. 'b')");
    lua(&mut h, a, "G.l:set_text(string.char(255))");
    let got = told(&mut h, a);
    assert!(
        got[0].contains("create_label: text is 256 bytes, at most 255 fit"),
        "{got:?}"
    );
    assert!(
        got[1].contains("set_text: text must not contain NUL"),
        "{got:?}"
    );
    assert!(got[2].contains("set_text: text must be UTF-8"), "{got:?}");
}

#[test]
fn ids_come_from_the_one_counter_of_labels_blips_gang_zones_and_checkpoints_never_reused() {
    let (_s, mut h, a, _b) = two("lb-ids");
    lua(
        &mut h,
        a,
        "local l = dlmp.create_label('x', 0, 0, 10) l:destroy() say(l:id() .. ' ' .. dlmp.create_blip(0, 0, 0):id())",
    );
    lua(
        &mut h,
        a,
        "say(dlmp.create_gang_zone(0, 0, 1, 1):id() .. ' ' .. dlmp.create_checkpoint(p, 0, 0, 0):id())",
    );
    lua(&mut h, a, "say(dlmp.create_label('y', 0, 0, 10):id())");
    assert_eq!(told(&mut h, a), ["1 2", "3 4", "5"]);
}

#[test]
fn a_destroyed_labels_methods_say_so() {
    let (_s, mut h, a, _b) = two("lb-stale");
    lua(
        &mut h,
        a,
        "G.l = dlmp.create_label('x', 0, 0, 10) G.l:destroy() say(tostring(G.l:exists()))",
    );
    lua(&mut h, a, "G.l:set_text('y')");
    let got = told(&mut h, a);
    assert_eq!(got[0], "false");
    assert!(
        got[1].starts_with("error: runtime error: set_text: label 1 no longer exists"),
        "{got:?}"
    );
}

#[rstest::rstest]
#[case("'x', 7000, 0, 0", "create_label: x 7000 is outside -6000..=6000")]
#[case("'x', 0, 0, -300", "create_label: z -300 is outside -200..=4000")]
#[case(
    "'x', 0, 0, 0, { draw_distance = 0 }",
    "draw_distance 0 is outside (0, 300]"
)]
#[case(
    "'x', 0, 0, 0, { draw_distance = 301 }",
    "draw_distance 301 is outside (0, 300]"
)]
#[case("'x', 0, 0, 0, { color = 0x1000000 }", "color")]
#[case("'x', 0, 0, 0, { colour = 1 }", "create_label: unknown option colour")]
#[case(
    "'x', 0, 0, 0, { attach = 5 }",
    "create_label: attach must be a Player or a Vehicle"
)]
#[case(
    "'x', 0, 0, 0, { viewer = 5 }",
    "create_label: viewer must be a Player"
)]
#[case("'x', 0, 0, 0, { interior = 256 }", "interior")]
#[case("nil, 0, 0, 0", "create_label: text must be a string")]
fn a_bad_argument_is_a_lua_error_naming_it_and_its_range(#[case] args: &str, #[case] error: &str) {
    let (_s, mut h, a, _b) = two("lb-bad");
    lua(&mut h, a, &format!("dlmp.create_label({args})"));
    let got = told(&mut h, a);
    assert_eq!(got.len(), 1);
    assert!(got[0].contains(error), "{got:?}");
    assert_eq!(ids(&h, a), []);
}
