//! Gang zones through the Lua API (world.md GangZone; lua-api.md `dlmp.create_gang_zone`):
//! shown to every player in the zone's scope with no distance limit, or to its viewer
//! alone; a change is a show with a new rev; destroy, a resource stop and the viewer's
//! leave hide it; a new connection receives its zones again.

mod world_support;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::world::markers::GangZone;
use dlmp::script::ScriptHost;
use world_support::{lua, scripts, spawned, told};

/// (zone_id, active, flashing, color, alpha, flash_color, min_x, rev).
type Line = (u32, bool, bool, u32, u8, u32, f32, u32);

fn lines(h: &Harness, c: ClientId) -> Vec<Line> {
    h.packets::<GangZone>(c)
        .iter()
        .map(|z| {
            (
                z.zone_id.0,
                z.active,
                z.flashing,
                z.color,
                z.alpha,
                z.flash_color,
                z.min_x,
                z.rev.0,
            )
        })
        .collect()
}

fn hide(id: u32) -> Line {
    (id, false, false, 0, 0, 0, 0.0, 0)
}

fn two(test: &str) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let s = scripts(test, "");
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    (s, h, a, b)
}

#[test]
fn a_zone_is_shown_to_everyone_in_its_scope_at_any_distance_with_every_field() {
    let (_s, mut h, a, b) = two("gz-show");
    lua(
        &mut h,
        a,
        "dlmp.create_gang_zone(5000, 5000, 5900, 5900, { color = 0x00FF00, alpha = 200 })",
    );
    lua(
        &mut h,
        a,
        "dlmp.create_gang_zone(-10, -10, 10, 10, { virtual_world = 1 })",
    );
    let shown = (1, true, false, 0x00FF00, 200, 0, 5000.0, 0);
    assert_eq!(lines(&h, a), [shown], "another scope's zone is not shown");
    assert_eq!(lines(&h, b), [shown]);
    let z = &h.packets::<GangZone>(a)[0];
    assert_eq!((z.min_y, z.max_x, z.max_y), (5000.0, 5900.0, 5900.0));
}

#[test]
fn flash_stop_flash_and_set_color_are_shows_with_a_new_rev() {
    let (_s, mut h, a, _b) = two("gz-flash");
    lua(&mut h, a, "G.z = dlmp.create_gang_zone(0, 0, 10, 10)");
    lua(&mut h, a, "G.z:flash(0xFF0000)");
    lua(&mut h, a, "G.z:set_color(0x0000FF, 50)");
    lua(&mut h, a, "G.z:stop_flash()");
    assert_eq!(
        lines(&h, a),
        [
            (1, true, false, 0xFFFFFF, 128, 0, 0.0, 0),
            (1, true, true, 0xFFFFFF, 128, 0xFF0000, 0.0, 1),
            (1, true, true, 0x0000FF, 50, 0xFF0000, 0.0, 2),
            (1, true, false, 0x0000FF, 50, 0, 0.0, 3),
        ]
    );
}

#[test]
fn a_viewer_zone_is_shown_to_its_viewer_only_and_goes_when_the_viewer_leaves() {
    let (_s, mut h, a, b) = two("gz-viewer");
    lua(
        &mut h,
        a,
        "G.z = dlmp.create_gang_zone(0, 0, 10, 10, { viewer = p }) G.all = dlmp.create_gang_zone(0, 0, 20, 20)",
    );
    assert_eq!(lines(&h, a).len(), 2);
    assert_eq!(
        lines(&h, b),
        [(2, true, false, 0xFFFFFF, 128, 0, 0.0, 0)],
        "not the viewer's zone"
    );
    h.disconnect(a);
    h.steps(2);
    lua(
        &mut h,
        b,
        "say(tostring(G.z:exists()) .. ' ' .. tostring(G.all:exists()))",
    );
    assert_eq!(told(&mut h, b), ["false true"]);
}

#[test]
fn destroy_and_a_resource_stop_hide_the_zone_for_every_viewer() {
    let (_s, mut h, a, b) = two("gz-gone");
    lua(
        &mut h,
        a,
        "G.z = dlmp.create_gang_zone(0, 0, 10, 10) dlmp.create_gang_zone(0, 0, 20, 20)",
    );
    lua(&mut h, a, "G.z:destroy()");
    for c in [a, b] {
        assert_eq!(lines(&h, c).last(), Some(&hide(1)));
        h.clear(c);
    }
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
            .resource::<dlmp::world::gang_zone::GangZones>()
            .is_empty()
    );
}

#[test]
fn a_new_connection_receives_its_zones_again_nearest_first() {
    let (_s, mut h, a, _b) = two("gz-reconnect");
    lua(
        &mut h,
        a,
        "dlmp.create_gang_zone(3000, 0, 3010, 10) dlmp.create_gang_zone(0, 0, 10, 10)",
    );
    let again = h.connect("carol");
    h.steps(2);
    let ids: Vec<u32> = lines(&h, again).iter().map(|l| l.0).collect();
    assert_eq!(ids, [2, 1], "the nearest by center first");
}

#[test]
fn a_player_is_shown_at_most_the_1024_nearest_by_center() {
    let (_s, mut h, a, _b) = two("gz-cap");
    lua(
        &mut h,
        a,
        "for i = 0, 1023 do dlmp.create_gang_zone(i, 0, i + 1, 1) end \
         dlmp.create_gang_zone(5000, 5000, 5001, 5001)",
    );
    h.steps(200);
    let ids: Vec<u32> = lines(&h, a).iter().map(|l| l.0).collect();
    assert_eq!(ids.len(), 1024);
    assert!(!ids.contains(&1025), "the farthest waits");
}

#[test]
fn a_bad_argument_is_a_lua_error_naming_it_and_its_range() {
    let (_s, mut h, a, _b) = two("gz-bad");
    lua(&mut h, a, "dlmp.create_gang_zone(0, 0, 7000, 10)");
    lua(&mut h, a, "dlmp.create_gang_zone(10, 0, 5, 10)");
    lua(
        &mut h,
        a,
        "dlmp.create_gang_zone(0, 0, 5, 10, { alpha = 300 })",
    );
    let got = told(&mut h, a);
    assert_eq!(got.len(), 3);
    assert!(
        got[0].contains("max_x 7000 is outside -6000..=6000"),
        "{got:?}"
    );
    assert!(got[1].contains("min_x 10 must be below max_x 5"), "{got:?}");
    assert!(got[2].contains("alpha"), "{got:?}");
    assert!(lines(&h, a).is_empty());
}
