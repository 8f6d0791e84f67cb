//! player.md, the server's commands that move and throw a player: TeleportPlayer (with the
//! scope move and its streaming change in the same step, and the ground-mode landing),
//! the scope setters (ScopeChanged), SetWorldBounds, SetVelocity and SetGravity (the
//! physics queue and its echo), through the feature messages a Rust plugin writes and
//! through the Lua methods (docs/decisions/0015-teleport-and-physics.md).

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::bounds::SetBounds;
use dlmp::player::control::ControlCommand;
use dlmp::player::frame::movement::MAX_PENDING;
use dlmp::player::frame::{Bounds, FrameState};
use dlmp::player::physics::{SetBodyGravity, ThrowPlayer};
use dlmp::player::scope::SetScope;
use dlmp::player::teleport::Teleport;
use dlmp::player::{Body, DeathEpoch, SpawnState};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::roster::PlayerNametag;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::Revision;
use dlmp::protocol::player::control::{SetWorldBounds, TeleportPlayer};
use dlmp::protocol::player::physics::{SetGravity, SetVelocity};
use dlmp::protocol::player::streaming::{PlayerStreamOut, ScopeChanged};
use dlmp::protocol::player::sync::{Frame, RemotePlayerSync};
use dlmp_core::position::{Position, Scope};
use dlmp_core::viewers::Viewers;

const ORIGIN: Vec3 = Vec3::new(100.0, 200.0, 10.0);
const FAR: Vec3 = Vec3::new(2000.0, -1500.0, 20.0);

/// Alice and Bob at [`ORIGIN`], each shown to the other, with one living frame each (the
/// new life confirmed).
fn pair() -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(ORIGIN);
    h.sync(a, 1, Frame::standing(ORIGIN));
    h.sync(b, 1, Frame::standing(ORIGIN));
    (h, a, b)
}

fn teleport(player: dlmp::harness::ClientId, h: &Harness, pos: Vec3) -> Teleport {
    Teleport {
        player: h.entity(player),
        pos,
        heading: Some(45.0),
        interior: None,
        ground: false,
    }
}

/// Writes a feature message as a Rust plugin would and runs one tick.
fn write<M: bevy_ecs::message::Message>(h: &mut Harness, make: impl FnOnce(&Harness) -> M) {
    let message = make(h);
    h.world_mut().write_message(message);
    h.step();
}

/// Index of the first packet of type `P` `c` applied.
fn index_of<P: TryFrom<ServerPacket>>(h: &Harness, c: ClientId) -> Option<usize> {
    h.received(c)
        .iter()
        .position(|p| P::try_from(p.clone()).is_ok())
}

#[test]
fn a_teleport_sends_the_packet_and_moves_the_server_position_and_the_check() {
    let (mut h, a, _) = pair();
    h.clear(a);
    write(&mut h, |h| teleport(a, h, FAR));
    let sent = h.packets::<TeleportPlayer>(a);
    assert_eq!(sent.len(), 1);
    let t = &sent[0];
    assert_eq!((t.pos, t.heading, t.area, t.ground), (FAR, 45.0, 0, false));
    assert_eq!(h.get::<Position>(a).0, FAR);
    assert!(
        h.packets::<ScopeChanged>(a).is_empty(),
        "the same interior is no scope change"
    );
    // The check starts at the point: walking on from it is taken, the origin is far.
    let near = Vec3::new(FAR.x + 1.0, FAR.y, FAR.z);
    h.sync(a, 2, Frame::standing(near));
    assert_eq!(h.get::<Position>(a).0, near);
    h.sync(a, 3, Frame::standing(ORIGIN));
    assert!(h.get::<Position>(a).0.x > 1900.0, "held near the point");
}

#[test]
fn refused_teleports_send_nothing() {
    let (mut h, a, _) = pair();
    h.clear(a);
    let mut t = teleport(a, &h, FAR);
    t.heading = Some(f32::NAN);
    write(&mut h, |_| t);
    write(&mut h, |h| teleport(a, h, Vec3::new(7000.0, 0.0, 10.0)));
    let mut t = teleport(a, &h, FAR);
    t.pos.z = f32::INFINITY;
    write(&mut h, |_| t);
    // Not spawned.
    let c = h.connect("carol");
    h.step();
    write(&mut h, |h| teleport(c, h, FAR));
    assert!(h.packets::<TeleportPlayer>(a).is_empty());
    assert!(h.packets::<TeleportPlayer>(c).is_empty());
    assert_eq!(h.get::<Position>(a).0, ORIGIN);
}

#[test]
fn a_teleport_into_another_interior_changes_the_scope_and_streaming_in_the_same_step() {
    let (mut h, a, b) = pair();
    let c = h.connect("carol");
    h.step();
    h.spawn(c, FAR);
    h.set_scope(c, None, Some(3));
    h.sync(c, 1, Frame::standing(FAR));
    h.steps(2);
    let (ida, idb, idc) = (h.player_id(a), h.player_id(b), h.player_id(c));
    assert!(!h.get::<Viewers>(c).contains(ida));
    h.clear(a);
    h.clear(b);

    let mut t = teleport(a, &h, FAR);
    t.interior = Some(3);
    write(&mut h, |_| t);

    assert_eq!(h.get::<Scope>(a).interior, 3);
    let teleport_at = index_of::<TeleportPlayer>(&h, a).expect("TeleportPlayer");
    let scope_at = index_of::<ScopeChanged>(&h, a).expect("ScopeChanged");
    assert!(teleport_at < scope_at, "ScopeChanged follows the teleport");
    assert_eq!(h.packets::<TeleportPlayer>(a)[0].area, 3);
    // Same step: Bob (at the origin) is hidden both ways, Carol (at the point) shown.
    assert!(!h.get::<Viewers>(a).contains(idb));
    assert!(!h.get::<Viewers>(b).contains(ida));
    assert!(h.get::<Viewers>(c).contains(ida));
    assert!(h.get::<Viewers>(a).contains(idc));
    assert!(
        h.packets::<PlayerStreamOut>(a)
            .iter()
            .any(|o| o.player_id == idb)
    );
    assert!(
        h.packets::<PlayerStreamOut>(b)
            .iter()
            .any(|o| o.player_id == ida)
    );
    assert!(h.packets::<PlayerNametag>(a).iter().any(|n| n.id == idc));
}

#[test]
fn the_scope_setters_send_scope_changed_only_on_a_real_change() {
    let (mut h, a, b) = pair();
    let (ida, idb) = (h.player_id(a), h.player_id(b));
    h.clear(a);
    let set = |h: &Harness, world: Option<u32>, interior: Option<u8>| SetScope {
        player: h.entity(a),
        virtual_world: world,
        interior,
    };
    write(&mut h, |h| set(h, Some(0), Some(0)));
    assert!(h.packets::<ScopeChanged>(a).is_empty());

    write(&mut h, |h| set(h, Some(7), None));
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 1);
    assert_eq!(
        h.get::<Scope>(a),
        Scope {
            virtual_world: 7,
            interior: 0
        }
    );
    assert!(
        !h.get::<Viewers>(a).contains(idb),
        "hidden in the same step"
    );
    assert!(!h.get::<Viewers>(b).contains(ida));

    write(&mut h, |h| set(h, None, Some(2)));
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 2);
    assert_eq!(h.get::<Scope>(a).interior, 2);
    assert!(h.packets::<TeleportPlayer>(a).is_empty(), "the body stays");
}

/// A frame in the air at `pos`.
fn airborne(pos: Vec3) -> Frame {
    Frame {
        on_ground: false,
        ..Frame::standing(pos)
    }
}

#[test]
fn in_ground_mode_z_is_a_guess_until_the_landing() {
    let (mut h, a, _) = pair();
    let mut t = teleport(a, &h, FAR);
    t.ground = true;
    write(&mut h, |_| t);
    assert!(h.packets::<TeleportPlayer>(a)[0].ground);
    assert!(h.get::<FrameState>(a).landing.is_some());

    // Held in the air 60 m above the guess: not held down.
    let above = Vec3::new(FAR.x, FAR.y, FAR.z + 60.0);
    h.sync(a, 2, airborne(above));
    assert_eq!(h.get::<Position>(a).0, above);
    // On the ground, but more than 25 m away: not the landing.
    let aside = Vec3::new(FAR.x + 26.0, FAR.y, FAR.z + 90.0);
    h.steps(30);
    h.sync(a, 3, Frame::standing(aside));
    assert!(h.get::<FrameState>(a).landing.is_some());
    h.steps(30);
    // The landing: on the ground within 25 m, 100 m above the guess.
    let ground = Vec3::new(FAR.x + 24.0, FAR.y, FAR.z + 100.0);
    h.sync(a, 4, Frame::standing(ground));
    assert_eq!(h.get::<Position>(a).0, ground);
    assert!(h.get::<FrameState>(a).landing.is_none());
    // From now on a rise is held again.
    h.sync(
        a,
        5,
        Frame::standing(Vec3::new(ground.x, ground.y, ground.z + 50.0)),
    );
    assert!(h.get::<Position>(a).0.z < ground.z + 10.0);
}

#[test]
fn the_ground_wait_ends_30_seconds_after_the_ack() {
    let (mut h, a, _) = pair();
    let mut t = teleport(a, &h, FAR);
    t.ground = true;
    write(&mut h, |_| t);
    // The harness client acks on its next step.
    h.step();
    let acked = h.now();
    let mut seq = 2;
    while h.now() < acked + Duration::from_secs(29) {
        h.sync(a, seq, airborne(Vec3::new(FAR.x, FAR.y, FAR.z + 5.0)));
        seq += 1;
        h.advance(Duration::from_secs(1));
    }
    assert!(h.get::<FrameState>(a).landing.is_some(), "still waiting");
    h.advance(Duration::from_secs(2));
    assert!(h.get::<FrameState>(a).landing.is_none());
    assert!(!h.get::<FrameState>(a).movement.z_guess);
}

#[test]
fn world_bounds_are_sent_and_clamp_frames_until_cleared() {
    let (mut h, a, _) = pair();
    let bounds = Bounds::new(0.0, 0.0, 101.0, 250.0).expect("a rectangle");
    write(&mut h, |h| SetBounds {
        player: h.entity(a),
        bounds: Some(bounds),
    });
    let sent = h.packets::<SetWorldBounds>(a);
    assert_eq!(sent.len(), 1);
    let s = &sent[0];
    assert_eq!(
        (s.enabled, s.min_x, s.min_y, s.max_x, s.max_y),
        (true, 0.0, 0.0, 101.0, 250.0)
    );
    let outside = Vec3::new(101.8, 200.0, 10.0);
    h.sync(a, 2, Frame::standing(Vec3::new(100.5, 200.0, 10.0)));
    h.sync(a, 3, Frame::standing(outside));
    assert_eq!(h.get::<Position>(a).0.x, 101.0, "on the edge");

    // A death and a respawn keep them.
    h.die_and_respawn(a);
    let new_life = |at| Frame {
        death_epoch: 1,
        ..Frame::standing(at)
    };
    assert_eq!(h.get::<FrameState>(a).bounds, Some(bounds));
    h.live(a);
    h.sync(a, 5, new_life(outside));
    assert_eq!(h.get::<Position>(a).0.x, 101.0, "held in the new life");

    write(&mut h, |h| SetBounds {
        player: h.entity(a),
        bounds: None,
    });
    let off = h
        .packets::<SetWorldBounds>(a)
        .pop()
        .expect("a second packet");
    assert_eq!(
        (off.enabled, off.min_x, off.min_y, off.max_x, off.max_y),
        (false, 0.0, 0.0, 0.0, 0.0)
    );
    h.sync(a, 6, new_life(outside));
    assert_eq!(h.get::<Position>(a).0, outside);
}

/// [`ORIGIN`] lies 1 m inside the east edge of this rectangle.
fn around_origin() -> Bounds {
    Bounds::new(0.0, 0.0, 101.0, 250.0).expect("a rectangle")
}

fn freeze(h: &mut Harness, c: ClientId) {
    write(h, |h| ControlCommand::Freeze {
        player: h.entity(c),
        frozen: true,
    });
    assert!(h.get::<FrameState>(c).frozen.is_some());
}

#[test]
fn a_teleport_outside_the_world_bounds_is_held_at_the_edge_frozen_or_not() {
    let (mut h, a, _) = pair();
    write(&mut h, |h| SetBounds {
        player: h.entity(a),
        bounds: Some(around_origin()),
    });
    freeze(&mut h, a);
    let outside = Vec3::new(130.0, 200.0, 10.0);
    let edge = Vec3::new(101.0, 200.0, 10.0);
    write(&mut h, |h| teleport(a, h, outside));
    assert_eq!(
        h.packets::<TeleportPlayer>(a)[0].pos,
        outside,
        "the client returns the body to the edge itself"
    );
    assert_eq!(h.get::<Position>(a).0, edge);
    assert_eq!(h.get::<FrameState>(a).frozen, Some(edge), "the hold point");
    // A frame from before the client's own return: the freeze does not pull it back out.
    h.sync(a, 2, Frame::standing(outside));
    assert_eq!(h.get::<Position>(a).0, edge);
}

#[test]
fn new_world_bounds_hold_a_frozen_players_hold_point_inside() {
    let (mut h, a, _) = pair();
    freeze(&mut h, a);
    let bounds = Bounds::new(0.0, 0.0, 80.0, 250.0).expect("a rectangle");
    write(&mut h, |h| SetBounds {
        player: h.entity(a),
        bounds: Some(bounds),
    });
    let edge = Vec3::new(80.0, 200.0, 10.0);
    assert_eq!(h.get::<FrameState>(a).frozen, Some(edge));
    h.sync(a, 2, Frame::standing(ORIGIN));
    assert_eq!(h.get::<Position>(a).0, edge);
}

#[test]
fn new_bounds_that_leave_the_body_outside_start_the_check_from_the_edge_and_keep_throws() {
    let (mut h, a, _) = pair();
    h.set_auto_ack(a, false);
    write(&mut h, |h| throw(h, a, Vec3::new(0.0, 0.0, 1.2)));
    let rev = h.packets::<SetVelocity>(a)[0].rev;
    let bounds = Bounds::new(0.0, 0.0, 50.0, 250.0).expect("a rectangle");
    write(&mut h, |h| SetBounds {
        player: h.entity(a),
        bounds: Some(bounds),
    });
    // The body stands 50 m outside: the check goes on from the edge.
    let edge = Vec3::new(50.0, 200.0, 10.0);
    h.sync(a, 2, Frame::standing(edge));
    assert_eq!(h.get::<Position>(a).0, edge);
    assert_eq!(
        h.get::<FrameState>(a).movement.throws_unechoed(),
        1,
        "the throw awaits its echo"
    );
    // Its echo still widens the check: 10 m up, beyond the base rise.
    h.steps(4);
    let up = Vec3::new(edge.x, edge.y, edge.z + 10.0);
    let mut f = Frame::standing(up);
    f.physics_rev = rev;
    h.sync(a, 3, f);
    assert_eq!(h.get::<Position>(a).0, up);
}

#[test]
fn bad_bounds_are_refused() {
    assert!(Bounds::new(10.0, 0.0, 10.0, 5.0).is_err(), "min = max");
    assert!(Bounds::new(0.0, 0.0, 6001.0, 5.0).is_err());
    assert!(Bounds::new(f32::NAN, 0.0, 1.0, 5.0).is_err());
    let (mut h, a, _) = pair();
    write(&mut h, |h| SetBounds {
        player: h.entity(a),
        bounds: Some(Bounds {
            min_x: 5.0,
            min_y: 0.0,
            max_x: 1.0,
            max_y: 5.0,
        }),
    });
    assert!(h.packets::<SetWorldBounds>(a).is_empty());
    assert_eq!(h.get::<FrameState>(a).bounds, None);
}

#[test]
fn a_new_connection_has_the_whole_world_and_the_game_gravity() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.step();
    assert_eq!(h.get::<FrameState>(a).bounds, None);
    assert_eq!(h.get::<Body>(a).gravity, 0.008);
    assert_eq!(h.get::<FrameState>(a).movement.gravity_set(), 0.008);
    assert_eq!(h.get::<FrameState>(a).movement.pending(), 0);
}

fn throw(h: &Harness, c: ClientId, vel: Vec3) -> ThrowPlayer {
    ThrowPlayer {
        player: h.entity(c),
        vel,
    }
}

#[test]
fn a_throw_carries_the_life_and_a_revision_and_its_echo_widens_the_check() {
    let (mut h, a, _) = pair();
    h.with::<DeathEpoch>(a, |e| e.0 = 4);
    write(&mut h, |h| throw(h, a, Vec3::new(0.0, 0.0, 1.2)));
    let sent = h.packets::<SetVelocity>(a);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (sent[0].vel, sent[0].life, sent[0].rev),
        (Vec3::new(0.0, 0.0, 1.2), 4, Revision(1))
    );
    h.steps(4);
    // 10 m up within a few ticks: beyond the base rise, within the 60 m/s throw.
    let up = Vec3::new(ORIGIN.x, ORIGIN.y, ORIGIN.z + 10.0);
    let mut f = Frame::standing(up);
    f.physics_rev = sent[0].rev;
    h.sync(a, 2, f);
    assert_eq!(h.get::<Position>(a).0, up);
}

#[test]
fn a_throw_goes_only_to_a_living_player_whose_new_life_is_confirmed() {
    let mut h = Harness::new();
    let (a, _) = h.connect_pair_at(ORIGIN);
    write(&mut h, |h| throw(h, a, Vec3::new(0.0, 0.0, 1.0)));
    assert!(
        h.packets::<SetVelocity>(a).is_empty(),
        "no living frame yet"
    );
    h.sync(a, 1, Frame::standing(ORIGIN));
    assert!(h.get::<SpawnState>(a).life_confirmed);
    write(&mut h, |h| throw(h, a, Vec3::new(0.0, 0.0, 2.5)));
    assert!(
        h.packets::<SetVelocity>(a).is_empty(),
        "over 2 units a step"
    );
    write(&mut h, |h| throw(h, a, Vec3::new(0.0, 0.0, 1.0)));
    assert_eq!(h.packets::<SetVelocity>(a).len(), 1);
}

#[test]
fn at_most_32_physics_commands_await_their_echo() {
    let (mut h, a, _) = pair();
    for _ in 0..=MAX_PENDING {
        let t = throw(&h, a, Vec3::new(0.0, 0.0, 0.5));
        h.world_mut().write_message(t);
    }
    h.step();
    assert_eq!(h.packets::<SetVelocity>(a).len(), MAX_PENDING);
    assert_eq!(h.get::<FrameState>(a).movement.pending(), MAX_PENDING);
}

#[test]
fn a_respawn_grant_discards_throws_awaiting_their_echo_but_not_gravity() {
    let (mut h, a, _) = pair();
    // No ClientAck: nothing counts as applied before the respawn (15 s stall limit).
    h.set_auto_ack(a, false);
    let t = throw(&h, a, Vec3::new(0.0, 0.0, 1.5));
    h.world_mut().write_message(t);
    write(&mut h, |h| SetBodyGravity {
        player: h.entity(a),
        gravity: 0.004,
    });
    assert_eq!(h.get::<FrameState>(a).movement.pending(), 2);
    h.die_and_respawn(a);
    let m = h.get::<FrameState>(a).movement;
    assert_eq!(m.pending(), 1, "the gravity stays");
    assert_eq!(m.gravity_set(), 0.004);
    // A late echo of the throw allows nothing beyond the base limits.
    let rev = h.packets::<SetVelocity>(a)[0].rev;
    let mut f = Frame::standing(Vec3::new(ORIGIN.x, ORIGIN.y, ORIGIN.z + 40.0));
    f.physics_rev = rev;
    h.sync(a, 2, f);
    assert!(h.get::<Position>(a).0.z < ORIGIN.z + 30.0);
}

#[test]
fn gravity_is_sent_stored_and_reaches_the_relay_on_its_echo() {
    let (mut h, a, b) = pair();
    write(&mut h, |h| SetBodyGravity {
        player: h.entity(a),
        gravity: -0.002,
    });
    let sent = h.packets::<SetGravity>(a);
    assert_eq!(
        (sent.len(), sent[0].gravity, sent[0].rev),
        (1, -0.002, Revision(1))
    );
    write(&mut h, |h| SetBodyGravity {
        player: h.entity(a),
        gravity: 0.2,
    });
    assert_eq!(h.packets::<SetGravity>(a).len(), 1, "beyond 0.1 refused");
    let mut f = Frame::standing(ORIGIN);
    f.physics_rev = sent[0].rev;
    h.sync(a, 2, f);
    assert_eq!(h.get::<Body>(a).gravity, -0.002);
    let relays = h.packets::<RemotePlayerSync>(b);
    assert_eq!(relays.last().expect("a relay").gravity, -0.002);
    h.die_and_respawn(a);
    assert_eq!(h.get::<Body>(a).gravity, -0.002, "survives the respawn");
    h.sync(a, 3, Frame::standing(ORIGIN));
    let relays = h.packets::<RemotePlayerSync>(b);
    assert_eq!(relays.last().expect("a relay").gravity, -0.002);
}

#[test]
fn without_an_echo_gravity_counts_2_seconds_after_the_ack() {
    let (mut h, a, _) = pair();
    write(&mut h, |h| SetBodyGravity {
        player: h.entity(a),
        gravity: 0.02,
    });
    h.step();
    h.advance(Duration::from_millis(1900));
    assert_eq!(h.get::<Body>(a).gravity, 0.008);
    h.advance(Duration::from_millis(200));
    assert_eq!(h.get::<Body>(a).gravity, 0.02);
}

/// Runs `/lua CODE` with `p` the player: answers `ok RESULT` or the error's first line.
const RUNNER: &str = r#"
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_interior_change", function(p, i, prev)
    dlmp.send_chat("interior " .. i .. " " .. prev, nil, { p })
end)
dlmp.on("player_command", function(p, name, args)
    if name ~= "lua" then return end
    local f = assert(load("local p = ...; " .. table.concat(args, " ")))
    local ok, res = pcall(f, p)
    local text = (tostring(res):match("^[^\n]*"):gsub("runtime error: ", ""))
    if ok then text = "ok " .. text end
    dlmp.send_chat(text, nil, { p })
    return true
end)
"#;

/// Runs `code` for `c` and returns the answer.
fn lua(h: &mut Harness, c: ClientId, code: &str) -> String {
    let before = h.chat_lines(c).len();
    h.chat(c, &format!("/lua {code}"));
    h.steps(2);
    let got = h.chat_lines(c).split_off(before);
    // One line a second at most (the chat limit).
    h.advance(Duration::from_secs(1));
    got.join(" | ")
}

/// A Lua runner in its own folder `test` with Alice spawned at [`ORIGIN`] and her new life confirmed.
fn scripted(test: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(test);
    s.resource("runner", RUNNER);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.spawn(a, ORIGIN);
    h.sync(a, 1, Frame::standing(ORIGIN));
    h.clear(a);
    (s, h, a)
}

#[test]
fn lua_set_position_teleports_with_the_current_heading_and_shows_at_once() {
    let (_s, mut h, a) = scripted("ctl-position");
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:set_position(2000, -1500, 20, 4) local x, y, z = p:position() return x .. ' ' .. p:interior()"
        ),
        "ok 2000.0 4 | interior 4 0",
        "the runner's player_interior_change handler answers too"
    );
    let t = h.packets::<TeleportPlayer>(a);
    assert_eq!(t.len(), 1);
    assert_eq!(
        (t[0].pos, t[0].heading, t[0].area, t[0].ground),
        (FAR, 90.0, 4, false)
    );
    assert_eq!(h.get::<Scope>(a).interior, 4);
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 1);

    assert_eq!(
        lua(
            &mut h,
            a,
            "p:teleport(2000, -1500, 20, { heading = 180, ground = true }) return p:interior()"
        ),
        "ok 4"
    );
    let t = h
        .packets::<TeleportPlayer>(a)
        .pop()
        .expect("a second teleport");
    assert_eq!((t.heading, t.area, t.ground), (180.0, 4, true));
}

#[test]
fn lua_refusals_are_errors_naming_the_rule() {
    let (_s, mut h, a) = scripted("ctl-refusals");
    for (code, error) in [
        (
            "p:set_position(0/0, 0, 0)",
            "set_position: x must be finite, got NaN",
        ),
        (
            "p:set_position(9000, 0, 0)",
            "set_position: x 9000 is outside the world (-6000..=6000)",
        ),
        (
            "p:set_position(1, 2, 3, 256)",
            "set_position: interior 256 is outside 0..=255",
        ),
        (
            "p:set_interior(-1)",
            "set_interior: interior -1 is outside 0..=255",
        ),
        (
            "p:set_world_bounds(10, 0, 5, 5)",
            "set_world_bounds: min must be below max on both axes",
        ),
        (
            "p:set_velocity(0, 0, 101)",
            "set_velocity: z 101 is outside -100..=100",
        ),
        (
            "p:set_velocity(80, 0, 80)",
            "set_velocity: speed 113.1 m/s is above 100 m/s",
        ),
        (
            "p:set_gravity(0.2)",
            "set_gravity: gravity 0.2 is outside -0.1..=0.1",
        ),
    ] {
        assert_eq!(lua(&mut h, a, code), error, "{code}");
    }
    assert!(h.packets::<TeleportPlayer>(a).is_empty());
}

#[test]
fn lua_set_velocity_is_refused_with_queue_full_at_the_33rd() {
    let (_s, mut h, a) = scripted("ctl-queue");
    assert_eq!(
        lua(
            &mut h,
            a,
            "for i = 1, 33 do local ok, e = pcall(p.set_velocity, p, 0, 0, 10) if not ok then return i .. ' ' .. tostring(e) end end"
        ),
        "ok 33 set_velocity: queue full (32 physics commands await their echo)"
    );
    assert_eq!(h.packets::<SetVelocity>(a).len(), 32);
    let v = h.packets::<SetVelocity>(a)[0].clone();
    assert!((v.vel.z - 0.2).abs() < 1e-6, "m/s / 50: {v:?}");
}

#[test]
fn lua_gravity_bounds_and_scope_read_back_in_the_same_call() {
    let (_s, mut h, a) = scripted("ctl-reads");
    assert_eq!(lua(&mut h, a, "return p:gravity()"), "ok 0.008");
    assert_eq!(
        lua(&mut h, a, "p:set_gravity(0.004) return p:gravity()"),
        "ok 0.004"
    );
    assert_eq!(lua(&mut h, a, "return p:gravity()"), "ok 0.004", "stored");
    assert_eq!(h.packets::<SetGravity>(a).len(), 1);
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:set_world_bounds(-10, -20, 30, 40) local a, b, c, d = p:world_bounds() return a .. b .. c .. d"
        ),
        "ok -10.0-20.030.040.0"
    );
    assert_eq!(
        lua(&mut h, a, "p:clear_world_bounds() return p:world_bounds()"),
        "ok nil"
    );
    assert_eq!(h.packets::<SetWorldBounds>(a).len(), 2);
    assert_eq!(
        lua(&mut h, a, "p:set_virtual_world(9) return p:virtual_world()"),
        "ok 9"
    );
    assert_eq!(h.get::<Scope>(a).virtual_world, 9);
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 1);
}

#[test]
fn lua_set_interior_and_a_teleport_into_an_area_raise_player_interior_change() {
    let (_s, mut h, a) = scripted("ctl-interior");
    lua(&mut h, a, "p:set_interior(5)");
    assert!(h.chat_lines(a).contains(&"interior 5 0".to_owned()));
    assert!(h.packets::<TeleportPlayer>(a).is_empty());
    lua(&mut h, a, "p:set_position(2000, -1500, 20, 0)");
    assert!(h.chat_lines(a).contains(&"interior 0 5".to_owned()));
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 2);
}
