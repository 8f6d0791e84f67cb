//! world.md ObjectState with things that move and change between passes (ADR 0076): the
//! pass keeps its chains and decides again only the recipients a change can affect, so
//! these check what each client gets while objects move, chains are held and objects
//! appear: a moving object is shown and hidden near it at the tick it crosses the stream
//! distance while a far recipient gets nothing; a held chain follows its holder's
//! visibility; at the cap a nearer chain, new or carried nearer, pushes out the farthest.

mod world_support;

use dlmp::harness::Harness;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::object::{ObjectId, ObjectState};
use dlmp::world::object::{Object, Objects};
use world_support::objects::{barrel, lines, shown};
use world_support::{SPAWN, go, lua, server, spawned};

/// Where the server has object `id` now (its movement applied).
fn x_now(h: &Harness, id: u32) -> f32 {
    let e = h
        .world()
        .resource::<Objects>()
        .entity(ObjectId(id))
        .expect("there");
    let o = h.world().get::<Object>(e).expect("an object");
    o.pose_at(h.now()).position.x
}

#[test]
fn a_moving_object_is_shown_and_hidden_as_it_crosses_the_distance_and_a_far_player_gets_nothing() {
    let (_s, mut h) = server("live_move", "");
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    let far = Vec3::new(3000.0, 0.0, 10.0);
    go(&mut h, b, far);
    let beside_bob = barrel(&mut h, Vec3::new(3010.0, 0.0, 10.0));
    h.steps(2);
    assert_eq!(shown(&h, b), [beside_bob.0]);
    assert!(shown(&h, a).is_empty());
    h.clear(a);
    h.clear(b);
    // 400 m from alice, coming at 40 m/s: shown within 300 m, hidden beyond 310 m.
    lua(
        &mut h,
        a,
        "G.m = dlmp.create_object(1225, 400, 0, 10) G.m:move_to(0, 0, 10, 40)",
    );
    let m = 2;
    let step = 40.0 * h.tick().as_secs_f32();
    assert!(lines(&h, a).is_empty(), "400 m away");
    while lines(&h, a).is_empty() {
        assert!(x_now(&h, m) > SPAWN.x + 300.0, "not shown before 300 m");
        h.step();
    }
    let x = x_now(&h, m);
    assert!(
        x <= 300.0 && x > 300.0 - step - 1e-3,
        "shown in the tick it came within 300 m: {x}"
    );
    assert_eq!(lines(&h, a), [(m, true)]);
    let show = h.packets::<ObjectState>(a)[0].clone();
    assert!(show.move_ms > 0 && show.to == SPAWN, "{show:?}");
    // Back out: hidden in the tick it goes past 310 m.
    h.clear(a);
    lua(&mut h, a, "G.m:move_to(400, 0, 10, 40)");
    h.clear(a);
    while lines(&h, a).iter().all(|&(_, active)| active) {
        assert!(x_now(&h, m) <= 310.0, "kept up to 310 m");
        h.step();
    }
    let x = x_now(&h, m);
    assert!(
        x > 310.0 && x <= 310.0 + step + 1e-3,
        "hidden in the tick it went past 310 m: {x}"
    );
    assert_eq!(lines(&h, a), [(m, false)]);
    assert!(lines(&h, b).is_empty(), "bob, 3 km away, got nothing");
    assert_eq!(shown(&h, b), [beside_bob.0]);
}

#[test]
fn a_held_chain_follows_its_holders_visibility_the_child_hidden_first() {
    let (_s, mut h) = server("live_held", "");
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    go(&mut h, b, Vec3::new(3000.0, 0.0, 10.0));
    lua(
        &mut h,
        a,
        "G.hat = dlmp.create_object(1225, 0, 0, 0) G.hat:attach_to(p, 0, 0, 0.5)",
    );
    lua(
        &mut h,
        a,
        "G.pin = dlmp.create_object(1225, 0, 0, 0) G.pin:attach_to(G.hat, 0, 0, 0.2)",
    );
    h.steps(2);
    assert_eq!(shown(&h, a), [1, 2], "a player always sees their own");
    assert!(lines(&h, b).is_empty(), "bob is 3 km away");
    go(&mut h, b, Vec3::new(20.0, 0.0, 10.0));
    h.steps(2);
    assert!(h.is_shown(b, a));
    assert_eq!(lines(&h, b), [(1, true), (2, true)], "the parent first");
    h.clear(b);
    go(&mut h, a, Vec3::new(-3000.0, 0.0, 10.0));
    h.steps(2);
    assert!(!h.is_shown(b, a));
    assert_eq!(lines(&h, b), [(2, false), (1, false)], "the child first");
    assert_eq!(shown(&h, a), [1, 2], "alice still sees her own");
}

#[test]
fn at_the_cap_a_nearer_chain_new_or_carried_nearer_pushes_out_the_farthest() {
    let (_s, mut h) = server("live_cap", "");
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    go(&mut h, b, Vec3::new(0.0, 200.0, 10.0));
    lua(
        &mut h,
        b,
        "G.hat = dlmp.create_object(1225, 0, 0, 0) G.hat:attach_to(p, 0, 0, 0.5, 0, 0, 0, 2)",
    );
    let hat = 1;
    let barrels: Vec<u32> = (0..1000)
        .map(|i| barrel(&mut h, Vec3::new(10.0 + i as f32 * 0.1, 0.0, 10.0)).0)
        .collect();
    h.steps(60);
    assert!(h.is_shown(a, b), "bob is 200 m away");
    assert_eq!(
        shown(&h, a),
        barrels,
        "the 1000 nearest: bob's hat is farther"
    );
    h.clear(a);
    // Bob carries his hat nearer than every barrel: it takes the farthest's place.
    go(&mut h, b, Vec3::new(0.0, 3.0, 10.0));
    h.steps(2);
    assert_eq!(lines(&h, a), [(barrels[999], false), (hat, true)]);
    h.clear(a);
    let new = barrel(&mut h, Vec3::new(1.0, 0.0, 10.0));
    h.steps(2);
    assert_eq!(
        lines(&h, a),
        [(barrels[998], false), (new.0, true)],
        "a new object near alice at her cap"
    );
    let mut expected: Vec<u32> = [hat]
        .into_iter()
        .chain(barrels[..998].iter().copied())
        .chain([new.0])
        .collect();
    expected.sort_unstable();
    assert_eq!(shown(&h, a), expected);
}

#[test]
fn a_chain_on_a_vehicle_driven_away_and_back_follows_it_while_the_player_stands() {
    let (_s, mut h) = server("live_vehicle", "");
    let a = spawned(&mut h, "alice");
    lua(&mut h, a, "G.v = dlmp.create_vehicle(400, 20, 0, 10, 0)");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 0, 0, 0) G.o:attach_to(G.v, 0, 0, 1)",
    );
    h.steps(2);
    assert_eq!(shown(&h, a), [1]);
    h.clear(a);
    lua(&mut h, a, "dlmp.set_vehicle_position(G.v, 3000, 0, 10)");
    h.steps(2);
    assert_eq!(lines(&h, a), [(1, false)], "hidden with its vehicle");
    assert!(shown(&h, a).is_empty());
    h.clear(a);
    lua(&mut h, a, "dlmp.set_vehicle_position(G.v, 30, 0, 10)");
    h.steps(2);
    assert_eq!(lines(&h, a), [(1, true)], "shown with its vehicle again");
    let show = &h.packets::<ObjectState>(a)[0];
    assert_eq!(show.attach_id, 1, "on the vehicle");
}
