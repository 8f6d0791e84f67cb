//! world.md ObjectState and lua-api.md's object API in the harness: streaming of the 1000
//! nearest, chains against the cap, the floor before TeleportPlayer and the teleport
//! refused without room for it, spawn grants held until the objects at the point are
//! acknowledged, movement on a stepped clock, bones, breaking, the interior resend and a
//! stopped resource's chains. Exactly the ObjectState packets each client gets, in order.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::lane::Delivery;
use dlmp::player::{DeathEpoch, LastFrame};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::Seq;
use dlmp::protocol::player::control::TeleportPlayer;
use dlmp::protocol::player::life::SpawnPlayer;
use dlmp::protocol::player::sync::{Frame, PlayerSync};
use dlmp::protocol::world::object::{Bone, ObjectAttachKind, ObjectId};
use dlmp::session::Connection;
use dlmp::world::object::{Object, ObjectCommand, ObjectStats, Objects, Parent, Pose};
use dlmp_core::position::Position;
use world_support::objects::{barrel, lines, shown, states};
use world_support::{SPAWN, lua, lua_now, scripts, server, spawned, told};

/// `object_move_end` is told to everyone as "end ID".
const EVENTS: &str = r#"
dlmp.on("object_move_end", function(o) dlmp.send_chat("end " .. o:id()) end)
"#;

/// A player connected and granted its connect spawn, with what it got kept.
fn arrive(h: &mut Harness, name: &str) -> ClientId {
    let c = h.connect(name);
    h.step();
    h.request_spawn(c);
    h.steps(3);
    assert_eq!(h.packets::<SpawnPlayer>(c).len(), 1, "spawned");
    c
}

fn alice(test: &str) -> (world_support::Scripts, Harness, ClientId) {
    let (s, mut h) = server(test, EVENTS);
    let a = spawned(&mut h, "alice");
    (s, h, a)
}

fn command(h: &mut Harness, c: ObjectCommand) {
    h.world_mut().write_message(c);
}

fn conn(h: &Harness, c: ClientId) -> &Connection {
    h.world().get::<Connection>(h.entity(c)).expect("connected")
}

fn at_x(x: f32) -> Vec3 {
    Vec3::new(SPAWN.x + x, SPAWN.y, SPAWN.z)
}

#[test]
fn the_nearest_1000_of_3000_are_shown_nearest_first_leaving_32_places_free() {
    let (_s, mut h, a) = alice("nearest");
    // Created farthest first, so the ids do not give the order away.
    for i in (1..=3000).rev() {
        barrel(&mut h, at_x(i as f32 * 0.1));
    }
    h.step();
    assert!(
        conn(&h, a).waiting() <= 480,
        "shows stop where 32 places stay free for critical events"
    );
    h.steps(60);
    let got = lines(&h, a);
    assert_eq!(got.len(), 1000, "the cap");
    assert!(got.iter().all(|&(_, active)| active));
    // Id 3000 is the nearest (0.1 m), id 2001 the 1000th.
    let expected: Vec<(u32, bool)> = (2001..=3000).rev().map(|id| (id, true)).collect();
    assert_eq!(got, expected, "nearest first, over following passes");
    assert_eq!(shown(&h, a), (2001..=3000).collect::<Vec<_>>());
    let first = &states(&h, a)[0];
    assert_eq!(
        (
            first.model,
            first.pos,
            first.interior,
            first.attach_kind,
            first.move_ms
        ),
        (1225, at_x(0.1), 0, ObjectAttachKind::None, 0)
    );
}

/// Makes a chain of `len` objects at `at`: a root and children hanging from it.
fn chain(h: &mut Harness, at: Vec3, len: usize) -> Vec<ObjectId> {
    let ids: Vec<ObjectId> = (0..len).map(|_| barrel(h, at)).collect();
    for child in &ids[1..] {
        command(
            h,
            ObjectCommand::Attach {
                id: *child,
                parent: Parent::Object(ids[0]),
                offset: Pose::at(Vec3::new(0.0, 0.0, 1.0)),
                bone: Bone::Root,
                in_place: false,
            },
        );
    }
    ids
}

#[test]
fn a_chain_at_the_cap_edge_counts_as_a_whole_or_not_at_all() {
    let (_s, mut h, a) = alice("chain_cap");
    let singles: Vec<ObjectId> = (1..=998)
        .map(|i| barrel(&mut h, at_x(i as f32 * 0.1)))
        .collect();
    let links = chain(&mut h, at_x(100.0), 3);
    let far = barrel(&mut h, at_x(150.0));
    h.steps(40);
    assert_eq!(shown(&h, a).len(), 998, "998 + a chain of 3 exceed 1000");
    for id in links.iter().chain([&far]) {
        assert!(
            !shown(&h, a).contains(&id.0),
            "{id:?}: not shown, nor anything farther"
        );
    }
    h.clear(a);
    command(&mut h, ObjectCommand::Destroy { id: singles[0] });
    h.steps(3);
    assert_eq!(
        lines(&h, a),
        [
            (singles[0].0, false),
            (links[0].0, true),
            (links[1].0, true),
            (links[2].0, true)
        ],
        "997 + 3 fit: the whole chain, the parent first"
    );
    let child = &states(&h, a)[2];
    assert_eq!(
        (child.attach_kind, child.attach_id, child.pos),
        (
            ObjectAttachKind::Object,
            links[0].0,
            Vec3::new(0.0, 0.0, 1.0)
        ),
        "a child carries its offset from the parent"
    );
    assert!(!shown(&h, a).contains(&far.0));
}

#[test]
fn the_floor_goes_before_teleport_player_into_the_places_shows_leave_free() {
    let (_s, mut h, a) = alice("floor");
    let landing = Vec3::new(2000.0, 0.0, 10.0);
    for i in 0..40 {
        barrel(&mut h, Vec3::new(2000.0 + i as f32, 0.0, 10.0));
    }
    h.steps(2);
    assert!(states(&h, a).is_empty(), "2 km away");
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Droppable, 0);
    assert_eq!(
        conn(&h, a).room(Delivery::Normal),
        32,
        "31 for the floor, 1 for the teleport"
    );
    lua(&mut h, a, "p:set_position(2000, 0, 10)");
    h.release_lane(a);
    let received = h.received(a).to_vec();
    let tp = received
        .iter()
        .position(|p| matches!(p, ServerPacket::TeleportPlayer(_)))
        .expect("the teleport went");
    let floor: Vec<u32> = received[tp - 31..tp]
        .iter()
        .map(|p| match p {
            ServerPacket::ObjectState(s) => s.object_id.0,
            other => panic!("{other:?} between the floor and the teleport"),
        })
        .collect();
    assert_eq!(
        floor,
        (1..=31).collect::<Vec<_>>(),
        "the 31 nearest the landing point"
    );
    assert!(
        !matches!(received[tp - 32], ServerPacket::ObjectState(_)),
        "no more than the floor before the landing"
    );
    let ServerPacket::TeleportPlayer(TeleportPlayer { pos, .. }) = received[tp] else {
        unreachable!()
    };
    assert_eq!(pos, landing);
    h.steps(5);
    assert_eq!(shown(&h, a).len(), 40, "the rest follow as ordinary shows");
}

#[test]
fn a_teleport_without_room_for_the_floor_is_refused_and_changes_nothing() {
    let (_s, mut h, a) = alice("floor_refused");
    for i in 0..40 {
        barrel(&mut h, Vec3::new(2000.0 + i as f32, 0.0, 10.0));
    }
    h.steps(2);
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Normal, 20);
    lua(&mut h, a, "p:set_position(2000, 0, 10)");
    h.release_lane(a);
    let lines = told(&mut h, a);
    assert!(
        lines.iter().any(|l| l.starts_with("error: ")
            && l.contains(
                "set_position: queue full (no room for the 31 objects at the landing point"
            )),
        "{lines:?}"
    );
    assert!(h.packets::<TeleportPlayer>(a).is_empty());
    assert!(states(&h, a).is_empty());
    assert_eq!(h.get::<Position>(a).0, SPAWN, "nothing changed");
}

#[test]
fn a_rust_teleport_without_room_for_the_floor_is_refused_before_teleport_player() {
    let (_s, mut h, a) = alice("floor_refused_rust");
    for i in 0..40 {
        barrel(&mut h, Vec3::new(2000.0 + i as f32, 0.0, 10.0));
    }
    h.steps(2);
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Normal, 20);
    let player = h.entity(a);
    h.world_mut()
        .write_message(dlmp::player::teleport::Teleport {
            player,
            pos: Vec3::new(2000.0, 0.0, 10.0),
            heading: None,
            interior: None,
            ground: false,
        });
    h.step();
    h.release_lane(a);
    assert!(h.packets::<TeleportPlayer>(a).is_empty());
    assert_eq!(h.get::<Position>(a).0, SPAWN);
}

#[test]
fn the_spawn_is_held_until_every_object_at_the_point_is_acknowledged() {
    let (_s, mut h) = server("spawn_hold", EVENTS);
    for i in 0..5 {
        barrel(&mut h, at_x(i as f32 + 1.0));
    }
    let a = h.connect("alice");
    h.step();
    h.set_auto_ack(a, false);
    h.request_spawn(a);
    h.steps(3);
    assert!(h.packets::<SpawnPlayer>(a).is_empty(), "held");
    assert_eq!(lines(&h, a).len(), 5, "the objects at the point went first");
    h.steps(3);
    assert!(
        h.packets::<SpawnPlayer>(a).is_empty(),
        "still held: nothing acknowledged"
    );
    h.ack(a);
    h.steps(2);
    let received = h.received(a).to_vec();
    let spawn = received
        .iter()
        .position(|p| matches!(p, ServerPacket::SpawnPlayer(_)))
        .expect("granted once acknowledged");
    let last_object = received
        .iter()
        .rposition(|p| matches!(p, ServerPacket::ObjectState(_)))
        .expect("objects");
    assert!(last_object < spawn, "every object before the grant");
    assert_eq!(
        h.packets::<SpawnPlayer>(a).len(),
        1,
        "sent on its own, once"
    );
}

#[test]
fn a_spawn_with_no_object_near_is_granted_in_the_same_tick() {
    let (_s, mut h) = server("spawn_free", EVENTS);
    barrel(&mut h, Vec3::new(4000.0, 4000.0, 10.0));
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.step();
    assert_eq!(h.packets::<SpawnPlayer>(a).len(), 1);
}

#[test]
fn a_respawn_is_held_until_the_objects_at_the_point_are_acknowledged() {
    let (_s, mut h, a) = alice("respawn_hold");
    // Dies far away: the objects at the respawn point are not shown to it yet.
    world_support::go(&mut h, a, Vec3::new(3000.0, 0.0, 10.0));
    h.die(a);
    for i in 0..3 {
        barrel(&mut h, at_x(i as f32 + 1.0));
    }
    h.advance(dlmp::player::respawn::DEFAULT_RESPAWN_DELAY);
    h.set_auto_ack(a, false);
    h.clear(a);
    h.request_respawn(a);
    h.steps(3);
    let respawns = |h: &Harness| {
        h.received(a)
            .iter()
            .filter(|p| matches!(p, ServerPacket::RespawnPlayer(_)))
            .count()
    };
    assert_eq!(respawns(&h), 0, "held");
    assert_eq!(lines(&h, a).len(), 3);
    h.ack(a);
    h.steps(2);
    assert_eq!(respawns(&h), 1);
}

#[test]
fn a_move_ends_on_the_servers_clock_and_a_repeated_show_carries_the_time_left() {
    let (_s, mut h, a) = alice("move");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) say(G.o:move_to(20, 0, 10, 5))",
    );
    let started = h.now() - h.tick();
    let mv = states(&h, a).last().cloned().expect("shown");
    assert_eq!(told(&mut h, a), ["2000"], "10 m at 5 m/s");
    assert_eq!((mv.move_ms, mv.to), (2000, Vec3::new(20.0, 0.0, 10.0)));
    let b = arrive(&mut h, "bob");
    let late = states(&h, b).last().cloned().expect("bob sees it");
    assert!(late.move_ms > 0 && late.move_ms < 2000, "{}", late.move_ms);
    let done = 1.0 - late.move_ms as f32 / 2000.0;
    assert!(
        (late.pos.x - (10.0 + 10.0 * done)).abs() < 1e-3,
        "the pose now and the time left agree: {late:?}"
    );
    while h.now() < started + Duration::from_millis(2000) - h.tick() {
        h.step();
        assert!(
            !h.chat_lines(a).iter().any(|l| l.starts_with("end")),
            "not before 2000 ms"
        );
    }
    h.steps(2);
    assert_eq!(
        h.chat_lines(a)
            .iter()
            .filter(|l| l.starts_with("end"))
            .collect::<Vec<_>>(),
        ["end 1"]
    );
    lua(&mut h, a, "say(G.o:position())");
    assert_eq!(told(&mut h, a).last().map(String::as_str), Some("20.0"));
}

#[test]
fn stop_stands_the_object_where_it_is_now() {
    let (_s, mut h, a) = alice("stop");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) G.o:move_to(110, 0, 10, 10)",
    );
    h.advance(Duration::from_secs(5));
    h.clear(a);
    lua_now(&mut h, a, "G.o:stop() local x = G.o:position() say(x)");
    let stop = states(&h, a).last().cloned().expect("a critical show");
    let x: f32 = told(&mut h, a)[0].parse().expect("a number");
    assert!((55.0..=70.0).contains(&x), "{x}");
    assert_eq!(stop.move_ms, 0);
    assert!((stop.pos.x - x).abs() < 0.5, "{stop:?} at {x}");
    h.advance(Duration::from_secs(10));
    assert!(
        !h.chat_lines(a).iter().any(|l| l.starts_with("end")),
        "a stop raises no end"
    );
}

#[test]
fn move_limits_and_attached_objects_do_not_move() {
    let (_s, mut h, a) = alice("move_limits");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) G.c = dlmp.create_object(1225, 10, 0, 10)",
    );
    for (code, error) in [
        ("G.o:move_to(5000, 0, 10, 0.001)", "more than 3600000 ms"),
        ("G.o:move_to(10, 0, 10, 0)", "speed_mps"),
        ("G.o:move_to(7000, 0, 10, 5)", "x 7000"),
        (
            "G.c:attach_to(G.o, 0, 0, 1) G.c:move_to(0, 0, 0, 1)",
            "attached: it moves with its parent",
        ),
        ("G.c:set_position(1001, 0, 0)", "outside -1000..=1000"),
        ("G.o:set_rotation(0, 3601, 0)", "outside -3600..=3600"),
        (
            "dlmp.create_object(400, 0, 0, 0)",
            "model 400 is not an object model",
        ),
        ("dlmp.create_object(20000, 0, 0, 0)", "model 20000"),
        (
            "dlmp.create_object(1225, 0, 0, 0, 0, 0, 0, {size = 2})",
            "unknown option size",
        ),
    ] {
        lua(&mut h, a, code);
        let got = told(&mut h, a);
        assert!(
            got.iter()
                .any(|l| l.starts_with("error") && l.contains(error)),
            "{code}: {got:?}"
        );
    }
}

#[test]
fn bone_rules() {
    let (_s, mut h, a) = alice("bones");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) G.c = dlmp.create_object(1225, 10, 0, 10) G.d = dlmp.create_object(1225, 10, 0, 10)",
    );
    for (code, error) in [
        (
            "G.c:attach_to(G.o, 0, 0, 1, 0, 0, 0, 2)",
            "a bone is only on a player",
        ),
        (
            "G.c:attach_to(p, 0, 0, 1, 0, 0, 0, 18)",
            "bone 18 is outside 0..=17",
        ),
        ("G.c:attach_to(G.c, 0, 0, 1)", "cannot carry itself"),
        (
            "G.o:attach_to(p, 0, 0, 1, 0, 0, 0, 2) G.c:attach_to(G.o, 0, 0, 1)",
            "an object on a bone carries no other objects",
        ),
        ("G.o:set_broken(true)", "on a bone cannot be broken"),
        (
            "G.d:attach_to(G.c, 0, 0, 1) G.c:attach_to(p, 0, 0, 1, 0, 0, 0, 5)",
            "an object on a bone carries no other objects",
        ),
        (
            "G.c:attach_to(42, 0, 0, 1)",
            "parent must be a Player, an Object or a Vehicle",
        ),
    ] {
        lua(&mut h, a, code);
        let got = told(&mut h, a);
        assert!(
            got.iter()
                .any(|l| l.starts_with("error") && l.contains(error)),
            "{code}: {got:?}"
        );
    }
    // The Rust API holds the same rules: no attach in place onto a bone.
    let refused = h.world().resource::<ObjectStats>().refused;
    let id = ObjectId(3);
    let player = h.entity(a);
    command(
        &mut h,
        ObjectCommand::Attach {
            id,
            parent: Parent::Player(player),
            offset: Pose::default(),
            bone: Bone::Head,
            in_place: true,
        },
    );
    h.step();
    assert_eq!(h.world().resource::<ObjectStats>().refused, refused + 1);
    let head = h
        .world()
        .resource::<Objects>()
        .entity(ObjectId(1))
        .expect("kept");
    let attachment = h.world().get::<Object>(head).expect("object").attachment;
    assert_eq!(attachment.map(|a| a.bone), Some(Bone::Head));
    assert!(
        shown(&h, a).contains(&1),
        "the head object is shown to its player"
    );
}

#[test]
fn a_player_carried_by_a_moving_object_is_not_held_back_and_one_far_from_it_is() {
    let (_s, mut h, a) = alice("carried");
    let b = spawned(&mut h, "bob");
    world_support::go(&mut h, b, Vec3::new(500.0, 500.0, 10.0));
    // A platform under alice, moving along x at 80 m/s (far beyond what a body covers on
    // its own, 16 m/s and the slack of a frame a tick).
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 0, 0, 9) G.o:move_to(1000, 0, 9, 80)",
    );
    let step = 80.0 * h.tick().as_secs_f32();
    let (start_a, start_b) = (h.get::<Position>(a).0, h.get::<Position>(b).0);
    let ticks = 100u16;
    for i in 1..=ticks {
        let dx = f32::from(i) * step;
        // Alice's client carries her with the platform; bob claims the same speed on
        // open ground. A frame of each a tick.
        for (c, start) in [(a, start_a), (b, start_b)] {
            let seq = h.get::<LastFrame>(c).seq.map_or(1, |s| s.0 + 1);
            let frame = Frame {
                death_epoch: h.get::<DeathEpoch>(c).0,
                ..Frame::standing(Vec3::new(start.x + dx, start.y, start.z))
            };
            let token = h.token(c);
            h.send(
                c,
                PlayerSync {
                    session_token: token,
                    seq: Seq(seq),
                    frame,
                },
            );
        }
        h.step();
    }
    let carried = f32::from(ticks) * step;
    let (at_a, at_b) = (h.get::<Position>(a).0, h.get::<Position>(b).0);
    assert!(
        (at_a.x - (start_a.x + carried)).abs() < 0.01,
        "alice rides the platform: {at_a:?}"
    );
    assert!(
        at_b.x - start_b.x < carried * 0.75,
        "bob is held to a body's own speed: {at_b:?}"
    );
}

#[test]
fn an_object_detached_from_a_bone_lands_at_the_players_root() {
    let (_s, mut h, a) = alice("bone_detach");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) G.o:attach_to(p, 0.5, 0.3, 0.2, 0, 0, 0, 5)",
    );
    lua(
        &mut h,
        a,
        "G.r = dlmp.create_object(1225, 10, 0, 10) G.r:attach_to(p, 0.5, 0.3, 0.2)",
    );
    lua(&mut h, a, "G.o:detach() G.r:detach()");
    lua(
        &mut h,
        a,
        "say(table.concat({G.o:position()}, ' ')) say(table.concat({G.r:position()}, ' '))",
    );
    assert_eq!(
        told(&mut h, a),
        ["0.0 0.0 10.0", "-0.30000004172325 0.5 10.199999809265"],
        "the bone's object at the root; the root's object at its offset, turned with the heading"
    );
}

#[test]
fn an_object_on_a_player_is_shown_exactly_with_the_player_and_survives_death_and_respawn() {
    let (_s, mut h, a) = alice("on_player");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 0, 0, 0) G.o:attach_to(p, 0, 0, 0.5, 0, 0, 0, 2)",
    );
    h.steps(2);
    assert!(h.is_shown(a, b));
    assert!(shown(&h, a).contains(&1), "a player always sees their own");
    assert!(shown(&h, b).contains(&1), "bob sees alice, so her object");
    h.clear(b);
    world_support::go(&mut h, b, Vec3::new(3000.0, 0.0, 10.0));
    h.steps(2);
    assert!(!h.is_shown(a, b));
    assert_eq!(lines(&h, b), [(1, false)], "hidden with its parent");
    h.die(a);
    h.respawn(a);
    h.steps(3);
    let o = h
        .world()
        .resource::<Objects>()
        .entity(ObjectId(1))
        .expect("kept");
    assert!(
        h.world()
            .get::<Object>(o)
            .expect("object")
            .attachment
            .is_some(),
        "death and respawn do not detach"
    );
    assert!(shown(&h, a).contains(&1));
}

#[test]
fn an_object_on_a_vehicle_is_shown_with_the_vehicle_takes_its_pose_and_goes_with_it() {
    let (_s, mut h, a) = alice("on_vehicle");
    lua(&mut h, a, "G.v = dlmp.create_vehicle(400, 150, 0, 10, 90)");
    lua_now(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 0, 0, 0) G.o:attach_to(G.v, 2, 0, 1) G.c = dlmp.create_object(1225, 0, 0, 0) G.c:attach_to(G.o, 0, 0, 1)",
    );
    h.steps(2);
    let wire = h.received(a).to_vec();
    let car = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::VehicleSync(v) if v.active));
    let first = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::ObjectState(o) if o.active));
    assert!(car.is_some() && first > car, "after its vehicle: {wire:?}");
    let s = states(&h, a);
    assert_eq!(
        s.iter()
            .map(|o| (o.object_id.0, o.attach_kind, o.attach_id))
            .collect::<Vec<_>>(),
        [
            (1, ObjectAttachKind::Vehicle, 1),
            (2, ObjectAttachKind::Object, 1)
        ],
        "the chain, parent first"
    );
    lua(&mut h, a, "G.o:attach_to(G.v, 0, 0, 1, 0, 0, 0, 2)");
    let got = told(&mut h, a);
    assert!(
        got.iter().any(|l| l.contains("a bone is only on a player")),
        "{got:?}"
    );
    h.clear(a);
    world_support::go(&mut h, a, Vec3::new(1000.0, 0.0, 10.0));
    h.steps(2);
    assert_eq!(
        lines(&h, a),
        [(2, false), (1, false)],
        "hidden with the vehicle, child first"
    );
    // Detached, the object stands where the vehicle's pose put it: heading 90 turns the
    // offset (2, 0, 1) to (0, 2, 1).
    lua(&mut h, a, "G.o:detach()");
    h.steps(2);
    lua(
        &mut h,
        a,
        "say(string.format('%.2f %.2f %.2f', G.o:position()))",
    );
    assert_eq!(told(&mut h, a), ["150.00 2.00 11.00"]);
    lua(&mut h, a, "G.c:attach_to(G.v, 0, 0, 1)");
    lua(&mut h, a, "dlmp.destroy_vehicle(G.v)");
    h.steps(3);
    lua(
        &mut h,
        a,
        "say(tostring(G.c:exists()) .. ' ' .. tostring(G.o:exists()))",
    );
    assert_eq!(
        told(&mut h, a),
        ["false true"],
        "the destroyed vehicle's object goes"
    );
}

#[test]
fn a_change_of_the_parents_interior_resends_the_shown_object() {
    let (_s, mut h, a) = alice("interior");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 0, 0, 0) G.o:attach_to(p, 0, 0, 1)",
    );
    h.steps(2);
    h.clear(a);
    lua(&mut h, a, "p:set_position(0, 0, 10, 3)");
    h.steps(2);
    let resent: Vec<i32> = states(&h, a)
        .iter()
        .filter(|s| s.object_id.0 == 1 && s.active)
        .map(|s| s.interior)
        .collect();
    assert_eq!(resent, [3], "shown again with the new interior");
}

#[test]
fn breaking_only_breakable_models_once_and_a_broken_object_still_moves_and_streams() {
    let (_s, mut h, a) = alice("breaking");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) G.box = dlmp.create_object(1271, 12, 0, 10)",
    );
    h.clear(a);
    lua(&mut h, a, "G.box:set_broken(true)");
    assert!(told(&mut h, a)[0].contains("model 1271 is not breakable"));
    lua(&mut h, a, "G.o:set_broken(true)");
    let broke = states(&h, a);
    assert_eq!(broke.len(), 1);
    assert!(broke[0].broken && broke[0].rev.0 == 1, "{broke:?}");
    h.clear(a);
    lua(&mut h, a, "G.o:set_broken(true) say(G.o:is_broken())");
    assert!(
        states(&h, a).is_empty(),
        "repeating the state sends nothing"
    );
    assert_eq!(told(&mut h, a), ["true"]);
    lua(&mut h, a, "say(G.o:move_to(15, 0, 10, 5))");
    assert_eq!(told(&mut h, a), ["1000"], "a broken object still moves");
    let b = arrive(&mut h, "bob");
    assert!(
        states(&h, b).iter().any(|s| s.object_id.0 == 1 && s.broken),
        "and streams, broken"
    );
}

#[test]
fn a_viewer_limits_an_object_to_one_player_and_destroy_takes_the_chain() {
    let (_s, mut h, a) = alice("viewer");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10, 0, 0, 0, {viewer = p}) G.c = dlmp.create_object(1225, 10, 0, 10) G.c:attach_to(G.o, 0, 0, 1)",
    );
    h.steps(2);
    assert_eq!(shown(&h, a), [1, 2]);
    assert!(shown(&h, b).is_empty(), "only alice");
    h.clear(a);
    lua(&mut h, a, "G.o:destroy() say(G.c:exists())");
    assert_eq!(lines(&h, a), [(2, false), (1, false)], "the child first");
    assert_eq!(told(&mut h, a), ["false"]);
    assert!(h.world().resource::<Objects>().is_empty());
}

#[test]
fn a_stopped_resources_objects_go_with_their_chains() {
    let s = scripts("stop", EVENTS);
    s.resource(
        "deco",
        "G = {} G.o = dlmp.create_object(1225, 5, 0, 10) dlmp.export('root', function() return G.o end)",
    );
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_object(1225, 5, 0, 10) G.c:attach_to(dlmp.call('deco', 'root'), 0, 0, 1)",
    );
    h.steps(2);
    assert_eq!(shown(&h, a), [1, 2]);
    h.clear(a);
    dlmp::console::execute(h.world_mut(), "stop deco");
    h.steps(3);
    let mut got = lines(&h, a);
    got.sort_unstable();
    assert_eq!(
        got,
        [(1, false), (2, false)],
        "gm's child went with deco's root"
    );
    assert!(h.world().resource::<Objects>().is_empty());
    lua(&mut h, a, "say(G.c:exists())");
    assert_eq!(told(&mut h, a), ["false"]);
}

#[test]
fn scope_and_each_objects_stream_distance_decide_what_is_shown() {
    let (_s, mut h, a) = alice("scope_distance");
    for code in [
        "dlmp.create_object(1225, 5, 0, 10, 0, 0, 0, {virtual_world = 2})",
        "dlmp.create_object(1225, 30, 0, 10, 0, 0, 0, {stream_distance = 20})",
        "dlmp.create_object(1225, 15, 0, 10, 0, 0, 0, {stream_distance = 20})",
        "dlmp.create_object(1225, 5, 0, 10, 0, 0, 0, {interior = 1})",
    ] {
        lua(&mut h, a, code);
    }
    h.steps(2);
    assert_eq!(shown(&h, a), [3], "only the near one of the main scope");
    lua(&mut h, a, "p:set_virtual_world(2)");
    h.steps(2);
    assert_eq!(shown(&h, a), [1], "the other virtual world's");
}

/// Objects about the spawn point (0, 0, 10) made by a resource at its start, through the
/// gamemode's API: out of reach but in the hold's old coarse cell (310 m) of the point, or
/// in reach (`near` of them, at 1..=near m).
fn around_spawn(test: &str, near: usize) -> world_support::Scripts {
    let s = scripts(test, EVENTS);
    let mut deco = String::from(
        r#"
dlmp.create_object(1225, 305, 0, 10)
dlmp.create_object(1225, 0, -305, 10)
dlmp.create_object(1225, 25, 0, 10, 0, 0, 0, {stream_distance = 20})
dlmp.create_object(1225, 1, 0, 10, 0, 0, 0, {interior = 1})
dlmp.create_object(1225, 1, 0, 10, 0, 0, 0, {virtual_world = 3})
"#,
    );
    for i in 1..=near {
        deco.push_str(&format!("dlmp.create_object(1225, {i}, 0, 10)\n"));
    }
    s.resource("deco", &deco);
    s
}

#[test]
fn a_spawn_beside_but_out_of_reach_of_the_objects_near_it_is_granted_in_the_same_tick() {
    let s = around_spawn("spawn_beside", 0);
    let mut h = world_support::harness(&s);
    let a = h.connect("alice");
    h.step();
    assert_eq!(h.world().resource::<Objects>().len(), 5);
    h.clear(a);
    h.request_spawn(a);
    h.step();
    assert_eq!(
        h.packets::<SpawnPlayer>(a).len(),
        1,
        "granted in the request's tick"
    );
    h.steps(3);
    assert!(
        states(&h, a).is_empty(),
        "nothing of the five is shown at the point: {:?}",
        lines(&h, a)
    );
}

/// The ObjectStates a hold sent before its grant: the ids, each shown once, and that the
/// grant came after the last of them and nothing else came with it.
#[track_caller]
fn held_then_granted<P: TryFrom<ServerPacket>>(
    h: &mut Harness,
    c: ClientId,
    expected: &[u32],
    grant: fn(&ServerPacket) -> bool,
) {
    h.steps(3);
    assert!(h.packets::<P>(c).is_empty(), "held");
    let mut got: Vec<(u32, bool)> = lines(h, c);
    got.sort_unstable();
    let want: Vec<(u32, bool)> = expected.iter().map(|&id| (id, true)).collect();
    assert_eq!(got, want, "exactly the objects in reach of the point went");
    h.steps(5);
    assert!(
        h.packets::<P>(c).is_empty(),
        "still held: nothing acknowledged"
    );
    let before = h.received(c).len();
    h.ack(c);
    h.step();
    assert!(h.packets::<P>(c).is_empty(), "the ack is read in this tick");
    h.step();
    let after = &h.received(c)[before..];
    assert_eq!(
        after.iter().filter(|p| grant(p)).count(),
        1,
        "granted once acknowledged: {after:?}"
    );
    assert!(
        !after
            .iter()
            .any(|p| matches!(p, ServerPacket::ObjectState(_))),
        "on its own, after every object: {after:?}"
    );
}

#[test]
fn a_spawn_with_objects_in_reach_is_held_for_those_alone_then_sent_on_its_own() {
    let s = around_spawn("spawn_in_reach", 3);
    let mut h = world_support::harness(&s);
    let a = h.connect("alice");
    h.step();
    h.set_auto_ack(a, false);
    h.clear(a);
    h.request_spawn(a);
    held_then_granted::<SpawnPlayer>(&mut h, a, &[6, 7, 8], |p| {
        matches!(p, ServerPacket::SpawnPlayer(_))
    });
}

/// Alice dead 3 km from the spawn point (nothing there shown to her), her respawn delay
/// over; what she got so far cleared.
fn dead_far_away(h: &mut Harness) -> ClientId {
    let a = spawned(h, "alice");
    world_support::go(h, a, Vec3::new(3000.0, 0.0, 10.0));
    h.die(a);
    h.advance(dlmp::player::respawn::DEFAULT_RESPAWN_DELAY);
    h.steps(3);
    h.clear(a);
    a
}

fn respawns(h: &Harness, c: ClientId) -> usize {
    h.received(c)
        .iter()
        .filter(|p| matches!(p, ServerPacket::RespawnPlayer(_)))
        .count()
}

#[test]
fn a_respawn_beside_but_out_of_reach_of_the_objects_near_it_is_granted_in_the_same_tick() {
    let s = around_spawn("respawn_beside", 0);
    let mut h = world_support::harness(&s);
    let a = dead_far_away(&mut h);
    h.request_respawn(a);
    h.step();
    assert_eq!(respawns(&h, a), 1, "granted in the request's tick");
    h.steps(3);
    assert!(states(&h, a).is_empty(), "{:?}", lines(&h, a));
}

#[test]
fn a_respawn_with_objects_in_reach_is_held_for_those_alone_then_sent_on_its_own() {
    let s = around_spawn("respawn_in_reach", 2);
    let mut h = world_support::harness(&s);
    let a = dead_far_away(&mut h);
    h.set_auto_ack(a, false);
    h.request_respawn(a);
    held_then_granted::<dlmp::protocol::player::life::RespawnPlayer>(&mut h, a, &[6, 7], |p| {
        matches!(p, ServerPacket::RespawnPlayer(_))
    });
}

#[test]
fn an_object_made_in_the_tick_of_the_grant_holds_it() {
    let (_s, mut h) = server("respawn_same_tick", EVENTS);
    let a = dead_far_away(&mut h);
    h.set_auto_ack(a, false);
    // The command and the request in one tick: the gamemode makes the object before the
    // grant is decided.
    h.chat(a, "/lua dlmp.create_object(1225, 2, 0, 10)");
    h.request_respawn(a);
    h.step();
    assert_eq!(respawns(&h, a), 0, "held for the new object");
    h.step();
    assert_eq!(lines(&h, a), [(1, true)]);
    h.ack(a);
    h.steps(2);
    assert_eq!(respawns(&h, a), 1);
}

/// (id, attach kind, attach id, offset, rotation, broken) of each ObjectState shown.
fn chain_lines(h: &Harness, c: ClientId) -> Vec<(u32, ObjectAttachKind, u32, Vec3, Vec3, bool)> {
    states(h, c)
        .iter()
        .filter(|s| s.active)
        .map(|s| {
            (
                s.object_id.0,
                s.attach_kind,
                s.attach_id,
                s.pos,
                s.rot,
                s.broken,
            )
        })
        .collect()
}

#[test]
fn a_broken_object_carries_its_chain_shown_moved_and_streamed_with_it() {
    let (_s, mut h, a) = alice("broken_carries");
    let b = spawned(&mut h, "bob");
    let far = Vec3::new(2000.0, 0.0, 10.0);
    world_support::go(&mut h, b, far);
    h.steps(2);
    lua(
        &mut h,
        a,
        "G.o = dlmp.create_object(1225, 10, 0, 10) G.o:set_broken(true)",
    );
    let none = ObjectAttachKind::None;
    let on = ObjectAttachKind::Object;
    let (zero, up) = (Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0));
    let turned = Vec3::new(0.0, 0.0, 90.0);
    let side = Vec3::new(2.0, 0.0, 0.0);
    assert_eq!(
        chain_lines(&h, a),
        [(1, none, 0, Vec3::new(10.0, 0.0, 10.0), zero, true)]
    );
    h.clear(a);
    // Attaching to an object that is already broken.
    for code in [
        "G.c = dlmp.create_object(1225, 0, 0, 0) G.c:attach_to(G.o, 0, 0, 1, 0, 0, 90)",
        "G.d = dlmp.create_object(1225, 0, 0, 0) G.d:attach_to(G.c, 2, 0, 0)",
    ] {
        lua(&mut h, a, code);
        assert!(h.chat_lines(a).is_empty(), "{code}: no error");
    }
    assert_eq!(
        chain_lines(&h, a),
        [(2, on, 1, up, turned, false), (3, on, 2, side, zero, false)],
        "the chain on the broken object, shown with it"
    );
    assert!(states(&h, b).is_empty(), "bob is 2 km away");
    h.clear(a);
    // 1990 m at 400 m/s: alice (at the start) loses the chain after 310 m, bob (at the
    // end) gets it from 300 m before it.
    lua_now(&mut h, a, "say(G.o:move_to(2000, 0, 10, 400))");
    assert_eq!(h.chat_lines(a), ["4975"]);
    let moved = states(&h, a);
    assert_eq!(
        moved
            .iter()
            .map(|s| (s.object_id.0, s.move_ms, s.to, s.broken))
            .collect::<Vec<_>>(),
        [(1, 4975, far, true)],
        "the broken root's move, critical; its chain moves with it on the client"
    );
    h.clear(a);
    h.advance(Duration::from_secs(2));
    assert_eq!(
        lines(&h, a),
        [(3, false), (2, false), (1, false)],
        "out of alice's reach with its root, the children first"
    );
    assert!(states(&h, b).is_empty(), "not yet in bob's");
    h.advance(Duration::from_secs(4));
    let got = states(&h, b);
    assert_eq!(
        got.iter()
            .map(|s| (s.object_id.0, s.active))
            .collect::<Vec<_>>(),
        [(1, true), (2, true), (3, true)],
        "into bob's with its root, the parent first"
    );
    let root = &got[0];
    assert!(
        root.broken && root.move_ms > 0,
        "still broken and moving: {root:?}"
    );
    assert_eq!(
        chain_lines(&h, b)[1..],
        [(2, on, 1, up, turned, false), (3, on, 2, side, zero, false)]
    );
    let ends: Vec<String> = told(&mut h, a);
    assert_eq!(ends, ["end 1"]);
    // Its world pose is the parent's times its own: the root at the target, the first
    // link 1 m above it turned 90°, the second 2 m along that link's x, so at y + 2.
    lua(&mut h, a, "G.d:detach()");
    lua(
        &mut h,
        a,
        "say(string.format('%.2f %.2f %.2f', G.d:position()))",
    );
    assert_eq!(told(&mut h, a), ["2000.00 2.00 11.00"]);
}
