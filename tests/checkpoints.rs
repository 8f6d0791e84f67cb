//! world.md's checkpoints through the Lua API: per player, up to 16, shown while the
//! player is in the checkpoint's scope; entry and exit from the last accepted frame of a
//! living spawned player (a ground cylinder of radius and max(radius, 5) up and down, an
//! air sphere); death and a scope change are an exit; 20 crossings at once and 4 a second
//! per connection; no event on delete or leave; a stopped resource's checkpoints go as if
//! destroyed.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::EventId;
use dlmp::protocol::world::markers::{Checkpoint, CheckpointKind};
use dlmp::protocol::world::shared::MarkerId;
use world_support::{SPAWN, frame_at, lua, lua_now, scripts, spawned, told, walk_to};

/// Every crossing is told to everyone as "enter|leave NAME ID".
const EVENTS: &str = r#"
dlmp.on("checkpoint_enter", function(p, c) dlmp.send_chat("enter " .. p:name() .. " " .. c:id()) end)
dlmp.on("checkpoint_leave", function(p, c) dlmp.send_chat("leave " .. p:name() .. " " .. c:id()) end)
"#;

fn alice(test: &str) -> (world_support::Scripts, Harness, ClientId) {
    let s = scripts(test, EVENTS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    (s, h, a)
}

fn show(
    id: u32,
    kind: CheckpointKind,
    pos: Vec3,
    next: Vec3,
    radius: f32,
    color: u32,
) -> Checkpoint {
    Checkpoint {
        event_id: EventId(0),
        checkpoint_id: MarkerId(id),
        active: true,
        kind,
        pos,
        next,
        radius,
        color,
    }
}

fn hide(id: u32) -> Checkpoint {
    Checkpoint::hide(EventId(0), MarkerId(id))
}

/// The Checkpoint packets the client applied, event ids zeroed.
fn checkpoints(h: &Harness, c: ClientId) -> Vec<Checkpoint> {
    h.packets::<Checkpoint>(c)
        .into_iter()
        .map(|p| Checkpoint {
            event_id: EventId(0),
            ..p
        })
        .collect()
}

#[test]
fn a_checkpoint_is_shown_to_its_player_only_with_every_field() {
    let (_s, mut h, a) = alice("cp-show");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "local c=dlmp.create_checkpoint(p,20,0,10,{kind='race',radius=4.5,next={30,5,11},color=0xFF00}) say(c:id()..' '..tostring(c:exists()))",
    );
    let expected = show(
        1,
        CheckpointKind::Race,
        Vec3::new(20.0, 0.0, 10.0),
        Vec3::new(30.0, 5.0, 11.0),
        4.5,
        0x00FF00,
    );
    assert_eq!(checkpoints(&h, a), [expected]);
    assert_eq!(checkpoints(&h, b), []);
    assert_eq!(told(&mut h, a), ["1 true"]);
    lua(&mut h, a, "G.d = dlmp.create_checkpoint(p, 20, 0, 10)");
    let default = show(
        2,
        CheckpointKind::Normal,
        Vec3::new(20.0, 0.0, 10.0),
        Vec3::new(20.0, 0.0, 10.0),
        3.0,
        0xFF0000,
    );
    assert_eq!(
        checkpoints(&h, a),
        [default],
        "the defaults: normal, radius 3, red, next = pos"
    );
}

#[test]
fn a_teleport_into_a_checkpoint_enters_only_with_the_first_frame_there() {
    let (_s, mut h, a) = alice("cp-teleport");
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(p, 40, 0, 10, {radius = 2})",
    );
    h.clear(a);
    lua(&mut h, a, "p:set_position(40, 0, 10)");
    h.steps(5);
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "the teleport wrote the point, the client is not there yet"
    );
    frame_at(&mut h, a, Vec3::new(40.0, 0.0, 10.0));
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
}

#[test]
fn a_spawn_grant_inside_a_checkpoint_enters_only_with_the_first_living_frame() {
    let extra = format!(
        "{EVENTS}\ndlmp.on(\"player_connect\", function(p) dlmp.create_checkpoint(p, 0, 0, 10, {{radius = 3}}) end)"
    );
    let s = scripts("cp-spawn", &extra);
    let mut h = world_support::harness(&s);
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.steps(5);
    assert!(
        h.get::<dlmp::player::Life>(a).alive,
        "granted at the spawn point, inside the checkpoint"
    );
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "not yet confirmed by the client"
    );
    h.live(a);
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
}

#[test]
fn a_driver_crosses_a_checkpoint_by_its_vehicle_frames() {
    let (_s, mut h, a) = alice("cp-drive");
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(p, 30, 0, 10, {radius = 3}) G.v = dlmp.create_vehicle(400, 0, 0, 10, 0) dlmp.put_player_in_vehicle(p, G.v, 0)",
    );
    h.steps(3);
    h.clear(a);
    let id = dlmp::protocol::ids::VehicleId(1);
    // 36 km/h, a frame a tick, and no PlayerSync at all: a driver sends only
    // VehicleFrames.
    for step in 1..=200u32 {
        let x = step as f32 * 0.2;
        h.send(
            a,
            dlmp::protocol::vehicle::frame::VehicleFrame {
                session_token: h.token(a),
                seq: dlmp::protocol::ids::Seq(step),
                vehicle_id: id,
                state: dlmp::protocol::vehicle::state::VehicleState::at_rest(Vec3::new(
                    x, 0.0, 10.0,
                )),
            },
        );
        h.step();
    }
    assert_eq!(told(&mut h, a), ["enter alice 1", "leave alice 1"]);
}

#[test]
fn entry_and_exit_come_from_accepted_frames() {
    let (_s, mut h, a) = alice("cp-cross");
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(p, 5, 0, 10, {radius = 2})",
    );
    h.clear(a);
    walk_to(&mut h, a, Vec3::new(2.9, 0.0, 10.0));
    assert_eq!(told(&mut h, a), Vec::<String>::new(), "outside the radius");
    walk_to(&mut h, a, Vec3::new(3.1, 0.0, 10.0));
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
    walk_to(&mut h, a, Vec3::new(6.5, 0.0, 10.0));
    assert_eq!(told(&mut h, a), Vec::<String>::new(), "still inside");
    walk_to(&mut h, a, Vec3::new(7.5, 0.0, 10.0));
    assert_eq!(told(&mut h, a), ["leave alice 1"]);
}

#[test]
fn a_ground_checkpoint_reaches_5_up_and_down_and_an_air_one_is_a_sphere() {
    let (_s, mut h, a) = alice("cp-forms");
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(p, 0, 0, 5.5, {radius = 1}) dlmp.create_checkpoint(p, 0, 0, 5.5, {radius = 1, kind = 'air'})",
    );
    assert_eq!(
        told(&mut h, a),
        ["enter alice 1"],
        "4.5 m above a ground one of radius 1"
    );
    walk_to(&mut h, a, Vec3::new(0.0, 0.0, 6.0));
    assert_eq!(
        told(&mut h, a),
        ["enter alice 2"],
        "within the air one's radius"
    );
    walk_to(&mut h, a, Vec3::new(0.0, 0.0, 11.0));
    assert_eq!(told(&mut h, a), ["leave alice 2", "leave alice 1"]);
}

#[test]
fn death_is_an_exit_and_the_new_life_enters_again() {
    let (_s, mut h, a) = alice("cp-death");
    lua(&mut h, a, "dlmp.create_checkpoint(p, 0, 0, 10)");
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
    h.die(a);
    assert_eq!(told(&mut h, a), ["leave alice 1"]);
    h.respawn(a);
    h.live(a);
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
}

#[test]
fn a_scope_change_is_an_exit_and_hides_the_checkpoint_until_the_player_is_back() {
    let (_s, mut h, a) = alice("cp-scope");
    lua(&mut h, a, "dlmp.create_checkpoint(p, 0, 0, 10)");
    let shown = checkpoints(&h, a);
    assert_eq!(shown.len(), 1);
    h.clear(a);
    lua(&mut h, a, "p:set_virtual_world(2)");
    assert_eq!(checkpoints(&h, a), [hide(1)]);
    assert_eq!(told(&mut h, a), ["leave alice 1"]);
    lua(&mut h, a, "p:set_virtual_world(0)");
    assert_eq!(checkpoints(&h, a), shown);
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(p, 0, 0, 10, {virtual_world = 3})",
    );
    assert_eq!(
        checkpoints(&h, a),
        [],
        "another scope's checkpoint is not shown"
    );
    assert_eq!(told(&mut h, a), Vec::<String>::new());
}

#[test]
fn destroying_a_checkpoint_hides_it_without_checkpoint_leave() {
    let (_s, mut h, a) = alice("cp-destroy");
    lua(
        &mut h,
        a,
        "G.c = dlmp.create_checkpoint(p, 0, 0, 10) G.d = dlmp.create_checkpoint(p, 0, 0, 10)",
    );
    h.clear(a);
    lua(
        &mut h,
        a,
        "say(tostring(G.c:destroy())) say(tostring(G.c:exists())) say(tostring(dlmp.destroy_checkpoint(G.d))) say(tostring(G.d:destroy()))",
    );
    assert_eq!(checkpoints(&h, a), [hide(1), hide(2)]);
    assert_eq!(told(&mut h, a), ["true", "false", "true", "false"]);
    walk_to(&mut h, a, Vec3::new(10.0, 0.0, 10.0));
    assert_eq!(told(&mut h, a), Vec::<String>::new());
}

#[test]
fn the_player_leaving_raises_nothing() {
    let (_s, mut h, a) = alice("cp-leave");
    let b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(dlmp.players()[2], 0, 0, 10)",
    );
    assert_eq!(told(&mut h, a), ["enter bob 1"]);
    assert_eq!(checkpoints(&h, a), []);
    h.disconnect(b);
    h.steps(3);
    assert_eq!(told(&mut h, a), Vec::<String>::new());
}

#[test]
fn a_player_has_at_most_16_checkpoints() {
    let (_s, mut h, a) = alice("cp-cap");
    lua(
        &mut h,
        a,
        "for i = 1, 16 do dlmp.create_checkpoint(p, 100, 0, 10) end dlmp.create_checkpoint(p, 100, 0, 10)",
    );
    assert_eq!(checkpoints(&h, a).len(), 16);
    let lines = told(&mut h, a);
    assert!(
        lines.len() == 1
            && lines[0].contains(
                "create_checkpoint: the player has 16 checkpoints already, the most a player may have"
            ),
        "{lines:?}"
    );
}

#[test]
fn crossings_are_limited_to_20_at_once_and_4_a_second_the_rest_waiting() {
    let (_s, mut h, a) = alice("cp-limit");
    h.chat(
        a,
        "/lua for i = 1, 16 do dlmp.create_checkpoint(p, 0, 0, 10) end",
    );
    h.steps(2);
    assert_eq!(told(&mut h, a).len(), 16, "16 of the 20 at once");
    h.die(a);
    assert_eq!(told(&mut h, a).len(), 4, "the 4 left of the 20");
    let mut per_quarter = Vec::new();
    for _ in 0..4 {
        h.advance(Duration::from_millis(250));
        per_quarter.push(told(&mut h, a).len());
    }
    assert_eq!(per_quarter, [1, 1, 1, 1], "then 4 a second");
    h.advance(Duration::from_secs(3));
    assert_eq!(told(&mut h, a).len(), 8, "until every exit was taken");
}

#[test]
fn stopping_the_resource_hides_its_checkpoints_as_destroy_does() {
    let s = scripts("cp-stop", EVENTS);
    s.resource(
        "race",
        "dlmp.export('make', function(p) return dlmp.create_checkpoint(p, 0, 0, 10):id() end)",
    );
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    lua(
        &mut h,
        a,
        "say(dlmp.call('race', 'make', p)) dlmp.create_checkpoint(p, 0, 0, 10)",
    );
    assert_eq!(told(&mut h, a), ["1", "enter alice 1", "enter alice 2"]);
    dlmp::console::execute(h.world_mut(), "stop race");
    h.steps(2);
    assert_eq!(checkpoints(&h, a), [hide(1)]);
    assert_eq!(told(&mut h, a), Vec::<String>::new(), "no checkpoint_leave");
}

#[test]
fn bad_arguments_name_the_argument_and_the_range() {
    let (_s, mut h, a) = alice("cp-args");
    for (code, error) in [
        (
            "dlmp.create_checkpoint(p, 0, 0, 10, {radius = 0})",
            "create_checkpoint: radius 0 is outside (0, 100]",
        ),
        (
            "dlmp.create_checkpoint(p, 0, 0, 10, {radius = 100.5})",
            "create_checkpoint: radius 100.5 is outside (0, 100]",
        ),
        (
            "dlmp.create_checkpoint(p, 7000, 0, 10)",
            "create_checkpoint: x 7000 is outside -6000..=6000",
        ),
        (
            "dlmp.create_checkpoint(p, 0, 0, -201)",
            "create_checkpoint: z -201 is outside -200..=4000",
        ),
        (
            "dlmp.create_checkpoint(p, 0, 0, 10, {kind = 'fast'})",
            "create_checkpoint: kind \"fast\" is not one of normal, race, race_finish, air, air_finish",
        ),
        (
            "dlmp.create_checkpoint(p, 0, 0, 10, {size = 1})",
            "create_checkpoint: unknown option size",
        ),
        (
            "dlmp.create_checkpoint(p, 0, 0, 10, {color = 0x1000000})",
            "create_checkpoint: color 16777216 is outside 0..=16777215",
        ),
        (
            "dlmp.create_checkpoint(p, 0, 0, 10, {next = {0, 0}})",
            "create_checkpoint: next[3] must be a number, got nil",
        ),
        (
            "dlmp.create_checkpoint(1, 0, 0, 10)",
            "create_checkpoint: player must be a Player, got 1",
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
    assert_eq!(checkpoints(&h, a), []);
}

#[test]
fn the_first_checkpoint_at_the_spawn_enters_at_once_from_the_spawn_frame() {
    let (_s, mut h, a) = alice("cp-spawn");
    lua(
        &mut h,
        a,
        &format!(
            "dlmp.create_checkpoint(p, {}, {}, {})",
            SPAWN.x, SPAWN.y, SPAWN.z
        ),
    );
    assert_eq!(told(&mut h, a), ["enter alice 1"]);
}

#[test]
fn a_show_the_lane_refused_is_repeated_by_the_reconcile() {
    let (_s, mut h, a) = alice("cp-retry");
    let b = spawned(&mut h, "bob");
    h.set_auto_ack(b, false);
    h.fill_lane(b, dlmp::lane::Delivery::Droppable, 0);
    lua(
        &mut h,
        a,
        "dlmp.create_checkpoint(dlmp.players()[2], 50, 0, 10)",
    );
    h.release_lane(b);
    assert_eq!(
        checkpoints(&h, b),
        [show(
            1,
            CheckpointKind::Normal,
            Vec3::new(50.0, 0.0, 10.0),
            Vec3::new(50.0, 0.0, 10.0),
            3.0,
            0xFF0000
        )],
        "shown once the lane had room again"
    );
}

#[test]
fn a_checkpoint_made_and_destroyed_in_one_call_is_never_shown() {
    let (_s, mut h, a) = alice("cp-same-call");
    lua(
        &mut h,
        a,
        "local c = dlmp.create_checkpoint(p, 0, 0, 10) c:destroy() say(tostring(c:exists()))",
    );
    assert_eq!(checkpoints(&h, a), []);
    assert_eq!(told(&mut h, a), ["false"]);
    h.steps(5);
    assert_eq!(
        told(&mut h, a),
        Vec::<String>::new(),
        "no checkpoint_enter either"
    );
}
