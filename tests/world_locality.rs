//! A change of a world kind reconciles the recipients it can affect in the tick of the
//! change and leaves the others to the once-a-second rotation (ADR 0077), in the harness:
//! exactly what each client is sent, and when.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::label::Label3D;
use dlmp::protocol::world::markers::Blip;
use dlmp::protocol::world::pickup::PickupSync;
use world_support::{lua, lua_now, scripts, spawned, walk_to};

/// `who(name)` is the connected player of that name.
const HELPERS: &str = r#"
function who(n) for _, q in ipairs(dlmp.players()) do if q:name() == n then return q end end end
"#;

fn labels(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<Label3D>(c)
        .iter()
        .map(|l| (l.label_id.0, l.active))
        .collect()
}

fn blips(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<Blip>(c)
        .iter()
        .map(|b| (b.blip_id.0, b.active))
        .collect()
}

fn pickups(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<PickupSync>(c)
        .iter()
        .map(|p| (p.pickup_id.0, p.active))
        .collect()
}

/// Alice at the spawn, bob `x` m east of it, far from each other's player streaming, both
/// settled (a second for the rotation).
fn apart(test: &str, x: f32) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let s = scripts(test, HELPERS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    lua_now(&mut h, b, &format!("p:set_position({x}, 0, 10)"));
    h.advance(Duration::from_secs(1));
    h.clear(a);
    h.clear(b);
    (s, h, a, b)
}

#[test]
fn a_label_changed_far_from_a_recipient_changes_nothing_for_it_and_the_near_one_gets_it_in_that_tick()
 {
    let (_s, mut h, a, b) = apart("wl-label", -2000.0);
    lua(
        &mut h,
        a,
        "G.far = dlmp.create_label('far', -1949.5, 0, 10)",
    );
    h.advance(Duration::from_secs(1));
    assert_eq!((labels(&h, a), labels(&h, b)), (vec![], vec![]), "50.5 m");
    // Bob walks within the far label's 50 m; labels reconcile on a change and once a
    // second, not on a walk. A label made next to alice then is nothing to bob (a full
    // pass would show him the far label now).
    walk_to(&mut h, b, Vec3::new(-1999.0, 0.0, 10.0));
    assert_eq!(labels(&h, b), [], "49.5 m, not reconciled yet");
    lua_now(&mut h, a, "G.near = dlmp.create_label('near', 5, 0, 10)");
    assert_eq!(
        labels(&h, a),
        [(2, true)],
        "the near recipient, in that tick"
    );
    assert_eq!(labels(&h, b), [], "not the recipient far from the change");
    h.advance(Duration::from_secs(1));
    assert_eq!(labels(&h, b), [(1, true)], "bob converges by the rotation");
    assert_eq!(labels(&h, a), [(2, true)]);
    h.clear(a);
    h.clear(b);
    lua_now(&mut h, a, "G.near:set_position(2, 0, 10) G.near:destroy()");
    assert_eq!(
        labels(&h, a),
        [(2, true), (2, false)],
        "the hide in that tick"
    );
    lua_now(&mut h, a, "G.far:set_position(-1969, 0, 10)");
    assert_eq!(
        labels(&h, b),
        [(1, true)],
        "a critical change, still shown at 30 m"
    );
    lua_now(&mut h, a, "G.far:set_position(-1929, 0, 10)");
    assert_eq!(
        labels(&h, b),
        [(1, true), (1, true), (1, false)],
        "moved past the hysteresis: hidden in that tick, not a second later"
    );
    assert_eq!(labels(&h, a), [(2, true), (2, false)]);
}

#[test]
fn a_blip_made_among_a_recipients_100_nearest_pushes_out_its_farthest_in_that_tick() {
    let (_s, mut h, a, b) = apart("wl-blip", 3000.0);
    lua(
        &mut h,
        a,
        "for i = 1, 100 do dlmp.create_blip(i / 10, 0, 10) end \
         for i = 1, 100 do dlmp.create_blip(3000 + i / 10, 0, 10) end",
    );
    h.advance(Duration::from_secs(2));
    assert_eq!((blips(&h, a).len(), blips(&h, b).len()), (100, 100));
    assert!(blips(&h, a).iter().all(|&(id, on)| on && id <= 100));
    assert!(blips(&h, b).iter().all(|&(id, on)| on && id > 100));
    h.clear(a);
    h.clear(b);
    lua_now(&mut h, a, "G.nearer = dlmp.create_blip(-0.05, 0, 10)");
    assert_eq!(
        blips(&h, a),
        [(100, false), (201, true)],
        "the farthest out, the new one in, in the tick of the change"
    );
    assert_eq!(blips(&h, b), [], "beyond bob's farthest: nothing for him");
    lua_now(&mut h, a, "G.nearer:destroy()");
    assert_eq!(
        blips(&h, a),
        [(100, false), (201, true), (201, false), (100, true)],
        "the place it leaves refilled in that tick"
    );
    h.clear(a);
    lua_now(&mut h, a, "dlmp.create_blip(2999.95, 0, 10)");
    assert_eq!(blips(&h, b), [(200, false), (202, true)]);
    assert_eq!(blips(&h, a), [], "beyond alice's farthest");
}

#[test]
fn a_pickup_change_reaches_the_recipients_near_it_and_a_still_one_is_not_told_again() {
    let (_s, mut h, a, b) = apart("wl-pickup", 2000.0);
    lua(&mut h, a, "G.near = dlmp.create_pickup(1240, 20, 0, 10)");
    assert_eq!((pickups(&h, a), pickups(&h, b)), (vec![(1, true)], vec![]));
    h.advance(Duration::from_secs(2));
    assert_eq!(
        pickups(&h, a),
        [(1, true)],
        "a still recipient: nothing again"
    );
    lua_now(&mut h, a, "G.near:set_position(2010, 0, 10)");
    assert_eq!(
        (pickups(&h, a), pickups(&h, b)),
        (vec![(1, true), (1, true), (1, false)], vec![(1, true)]),
        "moved from alice to bob: the critical move, her removal and his show in that tick"
    );
}
