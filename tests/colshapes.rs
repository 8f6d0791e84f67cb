//! Colshapes through the Lua API (lua-api.md; world.md ColshapeShape): spheres, cylinders
//! and axis-aligned boxes on the server, `colshape_enter` / `colshape_leave` for players
//! from their accepted positions (a living spawned player in the colshape's scope),
//! `contains` and `players`, no event on destroy or leave, and a stopped resource's
//! colshapes gone as if destroyed. The outline (ColshapeShape): only to players a resource
//! showed it to, in the colshape's scope, the 256 nearest by the form's center.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::markers::{ColshapeForm, ColshapeShape};
use dlmp::script::ScriptHost;
use world_support::{lua, lua_now, scripts, spawned, told, walk_to};

/// Every crossing is told to everyone as "enter|leave NAME ID".
const EVENTS: &str = r#"
dlmp.on("colshape_enter", function(p, c) dlmp.send_chat("enter " .. p:name() .. " " .. c:id()) end)
dlmp.on("colshape_leave", function(p, c) dlmp.send_chat("leave " .. p:name() .. " " .. c:id()) end)
"#;

fn alice(test: &str) -> (world_support::Scripts, Harness, ClientId) {
    let s = scripts(test, EVENTS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    (s, h, a)
}

#[test]
fn a_sphere_raises_colshape_enter_then_colshape_leave_from_accepted_frames() {
    let (_s, mut h, a) = alice("cs-sphere");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_colshape('sphere', 5, 0, 10, 2) say(G.c:id())",
    );
    assert_eq!(told(&mut h, a), ["1"]);
    walk_to(&mut h, a, Vec3::new(2.9, 0.0, 10.0));
    assert_eq!(told(&mut h, a), Vec::<String>::new());
    walk_to(&mut h, a, Vec3::new(3.1, 0.0, 10.0));
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
    walk_to(&mut h, a, Vec3::new(7.5, 0.0, 10.0));
    assert_eq!(told(&mut h, a), ["leave alice 1"]);
}

#[test]
fn a_teleport_into_a_colshape_enters_only_with_the_first_frame_there() {
    let (_s, mut h, a) = alice("cs-teleport");
    lua(&mut h, a, "dlmp.create_colshape('sphere', 40, 0, 10, 2)");
    h.clear(a);
    lua(&mut h, a, "p:set_position(40, 0, 10)");
    h.steps(5);
    assert_eq!(told(&mut h, a), Vec::<String>::new());
    world_support::frame_at(&mut h, a, Vec3::new(40.0, 0.0, 10.0));
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
}

#[test]
fn a_cylinder_spans_its_base_to_its_top_and_a_box_its_corners() {
    let (_s, mut h, a) = alice("cs-forms");
    lua(
        &mut h,
        a,
        "dlmp.create_colshape('cylinder', 0, 0, 9, 1, 1.5) dlmp.create_colshape('box', -1, -1, 9.5, 1, 1, 12)",
    );
    assert_eq!(told(&mut h, a), ["enter alice 1", "enter alice 2"]);
    walk_to(&mut h, a, Vec3::new(0.0, 0.0, 11.0));
    assert_eq!(
        told(&mut h, a),
        ["leave alice 1"],
        "above the cylinder's top, in the box"
    );
    walk_to(&mut h, a, Vec3::new(0.0, 0.0, 12.5));
    assert_eq!(told(&mut h, a), ["leave alice 2"]);
}

#[test]
fn players_lists_who_is_inside_and_contains_tests_a_point() {
    let (_s, mut h, a) = alice("cs-query");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_colshape('sphere', 0, 0, 10, 3)",
    );
    h.clear(a);
    lua(
        &mut h,
        a,
        "local n = {} for _, q in ipairs(G.c:players()) do n[#n+1] = q:name() end say(table.concat(n, ','))",
    );
    assert_eq!(told(&mut h, a), ["alice,bob"]);
    walk_to(&mut h, b, Vec3::new(4.0, 0.0, 10.0));
    lua(
        &mut h,
        a,
        "say(#G.c:players()) say(tostring(G.c:contains(0, 3, 10))) say(tostring(G.c:contains(0, 3.1, 10)))",
    );
    assert_eq!(told(&mut h, a), ["leave bob 1", "1", "true", "false"]);
}

#[test]
fn death_and_another_scope_are_a_leave() {
    let (_s, mut h, a) = alice("cs-life");
    lua(
        &mut h,
        a,
        "dlmp.create_colshape('sphere', 0, 0, 10, 3) dlmp.create_colshape('sphere', 0, 0, 10, 3, {virtual_world = 2})",
    );
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
    lua(&mut h, a, "p:set_virtual_world(2)");
    assert_eq!(told(&mut h, a), ["leave alice 1", "enter alice 2"]);
    h.die(a);
    assert_eq!(told(&mut h, a), ["leave alice 2"]);
}

#[test]
fn destroying_a_colshape_raises_nothing() {
    let (_s, mut h, a) = alice("cs-destroy");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_colshape('sphere', 0, 0, 10, 3)",
    );
    h.clear(a);
    lua(
        &mut h,
        a,
        "say(tostring(dlmp.destroy_colshape(G.c))) say(tostring(G.c:exists())) say(tostring(G.c:destroy()))",
    );
    assert_eq!(told(&mut h, a), ["true", "false", "false"]);
    walk_to(&mut h, a, Vec3::new(5.0, 0.0, 10.0));
    assert_eq!(told(&mut h, a), Vec::<String>::new());
    lua(&mut h, a, "G.c:players()");
    assert!(told(&mut h, a)[0].contains("players: the colshape no longer exists"));
}

#[test]
fn the_player_leaving_raises_nothing_and_is_no_longer_inside() {
    let (_s, mut h, a) = alice("cs-leave");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_colshape('sphere', 0, 0, 10, 3)",
    );
    h.clear(a);
    h.disconnect(b);
    h.steps(3);
    lua(&mut h, a, "say(#G.c:players())");
    assert_eq!(told(&mut h, a), ["1"]);
}

#[test]
fn stopping_the_resource_removes_its_colshapes_as_destroy_does() {
    let s = scripts("cs-stop", EVENTS);
    s.resource(
        "zones",
        "dlmp.export('make', function() return dlmp.create_colshape('sphere', 0, 0, 10, 3) end)",
    );
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    lua(
        &mut h,
        a,
        "G.c = dlmp.call('zones', 'make') G.d = dlmp.create_colshape('sphere', 0, 0, 10, 3)",
    );
    assert_eq!(told(&mut h, a), ["enter alice 1", "enter alice 2"]);
    dlmp::console::execute(h.world_mut(), "stop zones");
    h.steps(2);
    walk_to(&mut h, a, Vec3::new(5.0, 0.0, 10.0));
    lua(
        &mut h,
        a,
        "say(tostring(G.c:exists())) say(tostring(G.d:exists()))",
    );
    assert_eq!(
        told(&mut h, a),
        ["leave alice 2", "false", "true"],
        "no colshape_leave of the stopped one"
    );
}

#[test]
fn bad_arguments_name_the_argument_and_the_range() {
    let (_s, mut h, a) = alice("cs-args");
    for (code, error) in [
        (
            "dlmp.create_colshape('sphere', 0, 0, 10, 0)",
            "create_colshape: radius 0 is outside (0, 12000]",
        ),
        (
            "dlmp.create_colshape('cylinder', 0, 0, 10, 1, 12001)",
            "create_colshape: height 12001 is outside (0, 12000]",
        ),
        (
            "dlmp.create_colshape('box', 0, 0, 0, 1, 0, 1)",
            "create_colshape: min_y 0 must be below max_y 0",
        ),
        (
            "dlmp.create_colshape('box', 0, 0, 0, 1, 1, 4001)",
            "create_colshape: max_z 4001 is outside -200..=4000",
        ),
        (
            "dlmp.create_colshape('cone', 0, 0, 0, 1)",
            "create_colshape: form \"cone\" is not one of sphere, cylinder, box",
        ),
        (
            "dlmp.create_colshape('sphere', 6001, 0, 0, 1)",
            "create_colshape: x 6001 is outside -6000..=6000",
        ),
        (
            "dlmp.create_colshape('sphere', 0, 0, 0, 1, {dimension = 1})",
            "create_colshape: unknown option dimension",
        ),
        (
            "dlmp.create_colshape('sphere', 0, 0, 0, 0/0)",
            "create_colshape: radius must be finite",
        ),
        (
            "dlmp.create_colshape('sphere', 0, 0, 0, 1):show(5)",
            "show: player must be a Player, got 5",
        ),
    ] {
        lua_now(&mut h, a, code);
        let lines = told(&mut h, a);
        assert!(
            lines.len() == 1 && lines[0].contains(error),
            "{code}: {lines:?}"
        );
        h.advance(Duration::from_secs(1));
    }
}

#[test]
fn show_and_hide_take_a_present_player() {
    let (_s, mut h, a) = alice("cs-show");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_colshape('box', -1, -1, 0, 1, 1, 1) G.c:show(p) G.c:hide(p) say('ok')",
    );
    assert_eq!(told(&mut h, a), ["ok"]);
}

#[test]
fn a_show_in_the_call_that_made_the_colshape_is_kept_and_a_destroy_there_removes_it() {
    let (_s, mut h, a) = alice("cs-same-call");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_colshape('sphere', 50, 0, 10, 1) G.c:show(p) dlmp.create_colshape('sphere', 0, 0, 10, 3):destroy()",
    );
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "the destroyed one raised nothing"
    );
    let alice = h.entity(a);
    let mut query = h.world_mut().query::<&dlmp::world::colshape::Colshape>();
    let shapes: Vec<(u32, Vec<bevy_ecs::entity::Entity>)> = query
        .iter(h.world())
        .map(|c| (c.id.0, c.shown_to.clone()))
        .collect();
    assert_eq!(shapes, [(1, vec![alice])]);
}

/// (colshape_id, active, form, a, b, rev) of every outline the client got.
type Outline = (u32, bool, ColshapeForm, [f32; 3], [f32; 3], u32);

fn outlines(h: &Harness, c: ClientId) -> Vec<Outline> {
    h.packets::<ColshapeShape>(c)
        .iter()
        .map(|o| {
            (
                o.colshape_id.0,
                o.active,
                o.form,
                [o.a.x, o.a.y, o.a.z],
                [o.b.x, o.b.y, o.b.z],
                o.rev.0,
            )
        })
        .collect()
}

fn gone(id: u32) -> Outline {
    (id, false, ColshapeForm::Sphere, [0.0; 3], [0.0; 3], 0)
}

fn alice_and_bob(test: &str) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let (s, mut h, a) = alice(test);
    let b = world_support::spawned(&mut h, "bob");
    (s, h, a, b)
}

#[test]
fn an_outline_goes_only_to_the_players_a_resource_showed_it_to_with_its_form() {
    let (_s, mut h, a, b) = alice_and_bob("cs-outline");
    lua(
        &mut h,
        a,
        "G.s = dlmp.create_colshape('sphere', 50, 0, 10, 2) G.y = dlmp.create_colshape('cylinder', 60, 0, 9, 3, 4)",
    );
    lua(
        &mut h,
        a,
        "G.x = dlmp.create_colshape('box', 70, -1, 8, 72, 1, 12) G.s:show(p) G.y:show(p) G.x:show(p)",
    );
    assert_eq!(
        outlines(&h, a),
        [
            (
                1,
                true,
                ColshapeForm::Sphere,
                [50.0, 0.0, 10.0],
                [2.0, 0.0, 0.0],
                1
            ),
            (
                2,
                true,
                ColshapeForm::Cylinder,
                [60.0, 0.0, 9.0],
                [3.0, 4.0, 0.0],
                1
            ),
            (
                3,
                true,
                ColshapeForm::Box,
                [70.0, -1.0, 8.0],
                [72.0, 1.0, 12.0],
                1
            ),
        ],
        "nearest by center first"
    );
    assert_eq!(outlines(&h, b), [], "shown to nobody by default");
}

#[test]
fn hide_destroy_and_a_resource_stop_remove_the_outline() {
    let (_s, mut h, a, _b) = alice_and_bob("cs-outline-gone");
    lua(
        &mut h,
        a,
        "G.s = dlmp.create_colshape('sphere', 1, 0, 10, 2) G.s:show(p) G.t = dlmp.create_colshape('sphere', 2, 0, 10, 2)",
    );
    lua(
        &mut h,
        a,
        "G.t:show(p) G.u = dlmp.create_colshape('sphere', 3, 0, 10, 2) G.u:show(p)",
    );
    h.clear(a);
    lua(&mut h, a, "G.s:hide(p)");
    assert_eq!(outlines(&h, a), [gone(1)]);
    lua(&mut h, a, "G.s:show(p)");
    assert_eq!(outlines(&h, a)[1].0, 1, "shown again");
    h.clear(a);
    lua(&mut h, a, "G.t:destroy()");
    assert_eq!(outlines(&h, a), [gone(2)]);
    h.clear(a);
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    assert_eq!(outlines(&h, a), [gone(1), gone(3)], "as if destroyed");
}

#[test]
fn an_outline_is_shown_only_in_the_colshapes_scope() {
    let (_s, mut h, a, _b) = alice_and_bob("cs-outline-scope");
    lua(
        &mut h,
        a,
        "G.s = dlmp.create_colshape('sphere', 1, 0, 10, 2, { virtual_world = 2 }) G.s:show(p)",
    );
    assert_eq!(outlines(&h, a), []);
    lua(&mut h, a, "p:set_virtual_world(2)");
    assert_eq!(outlines(&h, a).len(), 1);
    lua(&mut h, a, "p:set_virtual_world(0)");
    assert_eq!(outlines(&h, a)[1], gone(1));
}

#[test]
fn a_player_is_shown_at_most_the_256_nearest_outlines_by_center() {
    let (_s, mut h, a, _b) = alice_and_bob("cs-outline-cap");
    lua(
        &mut h,
        a,
        "for i = 1, 257 do dlmp.create_colshape('sphere', i * 10, 0, 10, 1):show(p) end",
    );
    h.advance(Duration::from_secs(2));
    let ids: Vec<u32> = outlines(&h, a).iter().map(|o| o.0).collect();
    assert_eq!(ids.len(), 256);
    assert_eq!(ids[0], 1);
    assert!(!ids.contains(&257), "the farthest waits");
    h.clear(a);
    lua(&mut h, a, "p:set_position(2580, 0, 10)");
    let got: Vec<(u32, bool)> = outlines(&h, a).iter().map(|o| (o.0, o.1)).collect();
    assert_eq!(
        got,
        [(1, false), (257, true)],
        "refilled as the player moves"
    );
}

#[test]
fn a_show_set_is_discarded_when_the_player_leaves() {
    let (_s, mut h, a, _b) = alice_and_bob("cs-outline-leave");
    lua(
        &mut h,
        a,
        "G.s = dlmp.create_colshape('sphere', 1, 0, 10, 2) G.s:show(p)",
    );
    assert_eq!(outlines(&h, a).len(), 1);
    h.disconnect(a);
    h.steps(2);
    let again = world_support::spawned(&mut h, "alice");
    h.steps(2);
    assert_eq!(h.player_id(again), h.player_id(a), "the same slot");
    assert_eq!(
        outlines(&h, again),
        [],
        "a new connection has no outline shown"
    );
}
