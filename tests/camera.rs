//! player.md, SetFrozen, SetCamera and SetOnFire in the harness: the combined freeze and
//! its order on the lane, the camera's stream center and its transition, spectating and
//! its loss, what death and a respawn grant do, the fire command's refusals, and the
//! Lua methods.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::Life;
use dlmp::player::control::camera::CameraSetting;
use dlmp::player::control::{Control, ControlCommand};
use dlmp::player::frame::FrameState;
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::PlayerToken;
use dlmp::protocol::player::control::{CameraMode, SetCamera, SetFrozen, SetOnFire};
use dlmp::protocol::player::streaming::PlayerStreamOut;
use dlmp::protocol::player::sync::Frame;
use dlmp::session::Player;
use dlmp_core::position::StreamCenter;
use dlmp_core::viewers::Viewers;

const HERE: Vec3 = Vec3::new(100.0, 200.0, 10.0);
const FAR: Vec3 = Vec3::new(2100.0, 200.0, 10.0);

fn apply(h: &mut Harness, command: ControlCommand) {
    h.world_mut().write_message(command);
    h.step();
}

fn freeze(h: &mut Harness, c: ClientId, frozen: bool) {
    let player = h.entity(c);
    apply(h, ControlCommand::Freeze { player, frozen });
}

fn camera(h: &mut Harness, c: ClientId, camera: CameraSetting) {
    let player = h.entity(c);
    apply(h, ControlCommand::Camera { player, camera });
}

fn fixed(pos: Vec3, transition_ms: u32) -> CameraSetting {
    let look_at = Vec3::new(pos.x + 10.0, pos.y, pos.z);
    CameraSetting::fixed(pos, look_at, transition_ms).expect("a valid camera")
}

fn spectating(h: &Harness, target: ClientId) -> CameraSetting {
    CameraSetting::Spectate {
        target: h.entity(target),
        id: h.player_id(target),
        token: h.get::<Player>(target).token,
        prev_action: 0,
        next_action: 0,
    }
}

/// The control packets the client applied since the last call, in lane order, in words.
fn log(h: &mut Harness, c: ClientId) -> Vec<String> {
    let words = h
        .received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::SetFrozen(p) => Some(format!("frozen {}", u8::from(p.frozen))),
            ServerPacket::SetCamera(p) => Some(format!("camera {:?}", p.mode)),
            ServerPacket::SetOnFire(p) => Some(format!("fire {}", u8::from(p.on_fire))),
            _ => None,
        })
        .collect();
    h.clear(c);
    words
}

/// Alice alone, spawned at [`HERE`].
fn alone() -> (Harness, ClientId) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.step();
    h.spawn(a, HERE);
    h.step();
    log(&mut h, a);
    (h, a)
}

/// Alice at [`HERE`] and Bob at `bob`, both spawned, not set to see each other.
fn two(bob: Vec3) -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    h.spawn(a, HERE);
    h.spawn(b, bob);
    h.steps(2);
    log(&mut h, a);
    log(&mut h, b);
    (h, a, b)
}

fn sees(h: &Harness, viewer: ClientId, subject: ClientId) -> bool {
    h.get::<Viewers>(subject).contains(h.player_id(viewer))
}

#[test]
fn a_new_connection_starts_unfrozen_with_its_own_camera() {
    let (mut h, a) = alone();
    h.steps(3);
    assert_eq!(h.get::<Control>(a), Control::default());
    assert!(!h.get::<Control>(a).control_taken());
    assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
    assert_eq!(h.get::<FrameState>(a).frozen, None);
    assert!(
        log(&mut h, a).is_empty(),
        "nothing is sent for the defaults"
    );
}

#[test]
fn set_frozen_goes_once_per_change_and_holds_frames_at_the_anchor() {
    let (mut h, a) = alone();
    freeze(&mut h, a, true);
    assert_eq!(
        h.packets::<SetFrozen>(a)
            .iter()
            .map(|p| p.frozen)
            .collect::<Vec<_>>(),
        [true]
    );
    assert_eq!(h.get::<FrameState>(a).frozen, Some(HERE));
    log(&mut h, a);
    freeze(&mut h, a, true);
    assert!(log(&mut h, a).is_empty(), "no change, no packet");

    // A frame 20 m away counts on the 8 m boundary.
    h.sync(
        a,
        1,
        Frame::standing(Vec3::new(HERE.x + 20.0, HERE.y, HERE.z)),
    );
    let at = h.get::<dlmp_core::position::Position>(a).0;
    assert!((at.x - (HERE.x + 8.0)).abs() < 1e-3, "{at:?}");

    freeze(&mut h, a, false);
    assert_eq!(log(&mut h, a), ["frozen 0"]);
    assert_eq!(h.get::<FrameState>(a).frozen, None);
}

#[test]
fn the_freeze_and_a_foreign_camera_combine_into_one_set_frozen() {
    let (mut h, a) = alone();
    freeze(&mut h, a, true);
    camera(&mut h, a, fixed(HERE, 0));
    assert_eq!(log(&mut h, a), ["frozen 1", "camera Fixed"]);

    // Removing one cause keeps control taken.
    freeze(&mut h, a, false);
    assert!(log(&mut h, a).is_empty());
    assert!(h.get::<FrameState>(a).frozen.is_some());

    // Removing both returns it: the own camera first.
    camera(&mut h, a, CameraSetting::Own);
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
    assert_eq!(h.get::<FrameState>(a).frozen, None);

    // The other way round: the camera goes, the freeze stays.
    camera(&mut h, a, fixed(HERE, 0));
    freeze(&mut h, a, true);
    camera(&mut h, a, CameraSetting::Own);
    assert_eq!(log(&mut h, a), ["frozen 1", "camera Fixed", "camera Own"]);
    freeze(&mut h, a, false);
    assert_eq!(log(&mut h, a), ["frozen 0"]);
}

#[test]
fn a_foreign_camera_goes_after_set_frozen_and_the_own_one_before_it() {
    let (mut h, a) = alone();
    camera(&mut h, a, fixed(HERE, 0));
    assert_eq!(log(&mut h, a), ["frozen 1", "camera Fixed"]);
    camera(&mut h, a, fixed(FAR, 0));
    assert_eq!(log(&mut h, a), ["camera Fixed"], "foreign to foreign");
    camera(&mut h, a, CameraSetting::Own);
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
}

#[test]
fn a_fixed_camera_carries_its_position_look_at_and_transition() {
    let (mut h, a) = alone();
    let pos = Vec3::new(-99_999.0, 5.5, 40.0);
    let look_at = Vec3::new(0.0, 0.0, 0.0);
    let setting = CameraSetting::fixed(pos, look_at, 60_000).expect("valid");
    camera(&mut h, a, setting);
    let sent = h.packets::<SetCamera>(a);
    assert_eq!(sent.len(), 1);
    let p = &sent[0];
    assert_eq!(p.mode, CameraMode::Fixed);
    assert_eq!((p.pos, p.look_at, p.transition_ms), (pos, look_at, 60_000));
    assert!(!p.target_present);
    assert_eq!((p.target_id.0, p.target_token.0), (0, 0));
    assert_eq!((p.prev_action, p.next_action), (0, 0));
}

#[test]
fn a_fixed_camera_out_of_bounds_is_refused_by_the_server_too() {
    let (mut h, a) = alone();
    let bad = CameraSetting::Fixed {
        pos: HERE,
        look_at: HERE,
        transition_ms: 0,
    };
    camera(&mut h, a, bad);
    assert!(log(&mut h, a).is_empty());
    assert_eq!(h.get::<Control>(a).camera, CameraSetting::Own);
}

#[test]
fn spectate_carries_the_target_and_the_panel_actions() {
    let (mut h, a, b) = two(HERE);
    let CameraSetting::Spectate {
        target, id, token, ..
    } = spectating(&h, b)
    else {
        unreachable!()
    };
    let setting = CameraSetting::Spectate {
        target,
        id,
        token,
        prev_action: 7,
        next_action: 8,
    };
    camera(&mut h, a, setting);
    assert_eq!(log(&mut h, a), ["frozen 1", "camera Spectate"]);
    h.clear(a);
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    let p = &h.packets::<SetCamera>(a)[0];
    assert_eq!(p.mode, CameraMode::Spectate);
    assert!(p.target_present);
    assert_eq!(p.target_id, h.player_id(b));
    assert_eq!(p.target_token, h.get::<Player>(b).token);
    assert_eq!((p.prev_action, p.next_action), (0, 0));
    assert_eq!(
        (p.pos, p.look_at, p.transition_ms),
        (Vec3::ZERO, Vec3::ZERO, 0)
    );
}

#[test]
fn a_spectate_target_must_be_spawned_in_scope_and_not_the_player() {
    let (mut h, a, b) = two(HERE);
    let s = spectating(&h, a);
    camera(&mut h, a, s);
    h.set_scope(b, Some(3), None);
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    h.set_scope(b, Some(0), None);
    // No packet takes a spawned player back to unspawned; the write stands for one.
    h.with::<Life>(b, |l| l.spawned = false);
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    let CameraSetting::Spectate { target, id, .. } = spectating(&h, b) else {
        unreachable!()
    };
    let stale = CameraSetting::Spectate {
        target,
        id,
        token: PlayerToken(999),
        prev_action: 0,
        next_action: 0,
    };
    h.with::<Life>(b, |l| l.spawned = true);
    camera(&mut h, a, stale);
    assert!(log(&mut h, a).is_empty());
    assert_eq!(h.get::<Control>(a).camera, CameraSetting::Own);
}

#[test]
fn a_fixed_camera_moves_the_stream_center_and_the_own_one_brings_it_back() {
    let (mut h, a, b) = two(FAR);
    assert!(!sees(&h, a, b), "2000 m apart");
    camera(&mut h, a, fixed(Vec3::new(FAR.x - 50.0, FAR.y, FAR.z), 0));
    assert!(sees(&h, a, b), "the camera is 50 m from Bob");
    assert!(!sees(&h, b, a), "Alice's body is still far from Bob");
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(FAR.x - 50.0, FAR.y, FAR.z))
    );
    h.clear(a);
    camera(&mut h, a, CameraSetting::Own);
    assert!(!sees(&h, a, b));
    assert_eq!(h.packets::<PlayerStreamOut>(a).len(), 1);
    assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
}

#[test]
fn the_center_follows_the_transition_curve_while_acked_and_framed() {
    let (mut h, a) = alone();
    let to = Vec3::new(HERE.x + 1000.0, HERE.y, HERE.z);
    camera(&mut h, a, fixed(to, 1000));
    let t = *h.get::<Control>(a).transition().expect("a transition");
    assert_eq!((t.from, t.to, t.run), (HERE, to, Duration::ZERO));
    assert_eq!(h.get::<StreamCenter>(a).camera, Some(HERE));

    // The ack arrives with the next tick; from then each tick with frames runs 20 ms.
    let mut seq = 1;
    while h.get::<Control>(a).transition().expect("running").run < Duration::from_millis(500) {
        h.sync(a, seq, Frame::standing(HERE));
        seq += 1;
        assert!(seq < 100, "the transition's time does not run");
    }
    assert_eq!(
        h.get::<Control>(a).transition().expect("running").run,
        Duration::from_millis(500)
    );
    let mid = h.get::<StreamCenter>(a).camera.expect("a center");
    assert!((mid.x - (HERE.x + 500.0)).abs() < 0.01, "{mid:?}");
    assert_eq!((mid.y, mid.z), (HERE.y, HERE.z));

    // Without frames the center stops once the last frame is older than 250 ms.
    h.advance(Duration::from_millis(600));
    let stopped = h.get::<StreamCenter>(a).camera.expect("a center");
    h.advance(Duration::from_millis(600));
    assert_eq!(h.get::<StreamCenter>(a).camera, Some(stopped));
    assert!(stopped.x < HERE.x + 1000.0);

    // Frames again: it arrives and the transition ends.
    for _ in 0..60 {
        h.sync(a, seq, Frame::standing(HERE));
        seq += 1;
    }
    assert!(h.get::<Control>(a).transition().is_none());
    assert_eq!(h.get::<StreamCenter>(a).camera, Some(to));
}

#[test]
fn the_transition_waits_for_the_ack() {
    let (mut h, a) = alone();
    h.set_auto_ack(a, false);
    let to = Vec3::new(HERE.x + 1000.0, HERE.y, HERE.z);
    camera(&mut h, a, fixed(to, 1000));
    for seq in 1..20 {
        h.sync(a, seq, Frame::standing(HERE));
    }
    assert_eq!(
        h.get::<Control>(a).transition().expect("running").run,
        Duration::ZERO
    );
    h.ack(a);
    h.sync(a, 20, Frame::standing(HERE));
    assert_eq!(
        h.get::<Control>(a).transition().expect("running").run,
        h.tick()
    );
}

#[test]
fn a_spectate_target_is_shown_at_any_distance_and_centers_the_stream() {
    let far = Vec3::new(HERE.x + 5000.0, HERE.y, HERE.z);
    let (mut h, a, b) = two(far);
    assert!(!sees(&h, a, b));
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    assert!(sees(&h, a, b));
    let center = h.get::<StreamCenter>(a);
    assert_eq!(center.spectating, Some(h.player_id(b)));
    assert_eq!(center.camera, Some(far));
    // The center follows the target.
    let moved = Vec3::new(far.x + 30.0, far.y, far.z);
    h.teleport(b, moved);
    assert_eq!(h.get::<StreamCenter>(a).camera, Some(moved));
}

#[test]
fn the_targets_scope_change_ends_spectating() {
    let (mut h, a, b) = two(HERE);
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    log(&mut h, a);
    h.set_scope(b, None, Some(5));
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
    assert_eq!(h.get::<Control>(a).camera, CameraSetting::Own);
    assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
}

#[test]
fn the_targets_disconnect_ends_spectating() {
    let (mut h, a, b) = two(HERE);
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    log(&mut h, a);
    h.disconnect(b);
    h.steps(2);
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
    assert_eq!(h.get::<Control>(a).camera, CameraSetting::Own);
}

#[test]
fn death_keeps_the_freeze_and_the_camera_and_a_respawn_grant_clears_both() {
    let (mut h, a) = alone();
    h.sync(a, 1, Frame::standing(HERE));
    freeze(&mut h, a, true);
    camera(&mut h, a, fixed(FAR, 0));
    log(&mut h, a);
    h.die(a);
    h.steps(2);
    assert!(log(&mut h, a).is_empty());
    assert!(h.get::<Control>(a).control_taken());
    assert!(h.get::<FrameState>(a).frozen.is_some());

    h.respawn(a);
    let order: Vec<&'static str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::RespawnPlayer(_) => Some("respawn"),
            ServerPacket::SetFrozen(p) if !p.frozen => Some("frozen 0"),
            ServerPacket::SetCamera(p) if p.mode == CameraMode::Own => Some("camera Own"),
            ServerPacket::SetFrozen(_) | ServerPacket::SetCamera(_) => Some("other"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["respawn", "camera Own", "frozen 0"]);
    let control = h.get::<Control>(a);
    assert!(!control.frozen && control.camera == CameraSetting::Own);
    assert_eq!(h.get::<FrameState>(a).frozen, None);
    assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
}

#[test]
fn a_respawn_grant_of_a_free_player_sends_nothing() {
    let (mut h, a) = alone();
    h.sync(a, 1, Frame::standing(HERE));
    log(&mut h, a);
    h.die_and_respawn(a);
    h.steps(2);
    assert!(log(&mut h, a).is_empty());
}

#[test]
fn set_on_fire_goes_only_to_a_living_spawned_player_with_a_confirmed_life() {
    let (mut h, a) = alone();
    let player = h.entity(a);
    apply(
        &mut h,
        ControlCommand::Fire {
            player,
            on_fire: true,
        },
    );
    assert!(log(&mut h, a).is_empty(), "no living frame yet");
    apply(
        &mut h,
        ControlCommand::Fire {
            player,
            on_fire: false,
        },
    );
    assert_eq!(
        log(&mut h, a),
        ["fire 0"],
        "putting out needs no confirmation"
    );
    h.sync(a, 1, Frame::standing(HERE));
    apply(
        &mut h,
        ControlCommand::Fire {
            player,
            on_fire: true,
        },
    );
    assert_eq!(log(&mut h, a), ["fire 1"]);
    assert!(h.packets::<SetOnFire>(a).is_empty());

    h.die(a);
    apply(
        &mut h,
        ControlCommand::Fire {
            player,
            on_fire: false,
        },
    );
    assert!(log(&mut h, a).is_empty(), "a dead player is sent nothing");

    // A new respawn grant puts out the previous life's fire, after RespawnPlayer, once.
    h.respawn(a);
    let order: Vec<&'static str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::RespawnPlayer(_) => Some("respawn"),
            ServerPacket::SetOnFire(p) if !p.on_fire => Some("fire 0"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["respawn", "fire 0"]);
    log(&mut h, a);
    h.live(a);
    h.die_and_respawn(a);
    assert!(log(&mut h, a).is_empty(), "no fire command in that life");

    let (mut h, c) = {
        let mut h = Harness::new();
        let c = h.connect("carol");
        h.step();
        (h, c)
    };
    let player = h.entity(c);
    apply(
        &mut h,
        ControlCommand::Fire {
            player,
            on_fire: false,
        },
    );
    assert!(log(&mut h, c).is_empty(), "not spawned");
}

/// A resource whose `/lua CODE` runs CODE with `p` the caller and `others` the players,
/// and says what it returned or the error; and reports `spectate_lost`.
const RUNNER: &str = r#"
local function say(p, s) dlmp.send_chat(string.sub(s, 1, 144), nil, { p }) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_command", function(p, name, args)
    if name ~= "lua" then return end
    local f, err = load("local p, others = ...; " .. table.concat(args, " "), "cmd", "t", _ENV)
    if not f then say(p, "compile " .. err) return true end
    local ok, r = pcall(f, p, dlmp.players())
    say(p, ok and ("ok " .. tostring(r))
        or ("error " .. tostring(r):match("^[^\n]*"):gsub("^runtime error: ", "")))
    return true
end)
dlmp.on("spectate_lost", function(p, t)
    say(p, "lost " .. (t:exists() and t:name() or "a player who left"))
end)
"#;

fn scripted(test: &str) -> (TempScripts, Harness) {
    let s = TempScripts::new(test);
    s.resource("gm", RUNNER);
    let h = s.harness();
    (s, h)
}

/// Alice and Bob, connected and spawned by the runner's gamemode.
fn spawned_pair(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let (s, mut h) = scripted(test);
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    for c in [a, b] {
        h.request_spawn(c);
        h.step();
    }
    (s, h, a, b)
}

/// Runs `/lua CODE` as `c` and returns what the script said. A second passes first: chat
/// lines are limited to one a second.
fn lua(h: &mut Harness, c: ClientId, code: &str) -> String {
    h.advance(Duration::from_secs(1));
    h.clear(c);
    h.chat(c, &format!("/lua {code}"));
    h.step();
    let said = h.chat_lines(c);
    assert_eq!(said.len(), 1, "{said:?}");
    said[0].clone()
}

#[test]
fn lua_reads_and_sets_the_freeze_and_the_camera() {
    let (_s, mut h, a, _b) = spawned_pair("control-lua");
    assert_eq!(lua(&mut h, a, "return p:is_frozen()"), "ok false");
    assert_eq!(lua(&mut h, a, "return p:camera()"), "ok own");
    assert_eq!(
        lua(&mut h, a, "p:set_frozen(true) return p:is_frozen()"),
        "ok true"
    );
    assert_eq!(h.packets::<SetFrozen>(a).len(), 1);
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:set_camera_fixed(1, 2, 3, 4, 5, 6, 500) return select(8, p:camera())"
        ),
        "ok 500"
    );
    let p = &h.packets::<SetCamera>(a)[0];
    assert_eq!(
        (p.pos, p.look_at),
        (Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0))
    );
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:spectate(others[2], 3) local m, t, prev, next = p:camera() return m .. ' ' .. t:name() .. ' ' .. prev .. ' ' .. next"
        ),
        "ok spectate bob 3 0"
    );
    assert_eq!(
        lua(&mut h, a, "p:reset_camera() return p:camera()"),
        "ok own"
    );
    assert_eq!(
        lua(&mut h, a, "p:set_frozen(false) return p:is_frozen()"),
        "ok false"
    );
    assert!(!h.get::<Control>(a).control_taken());
}

#[test]
fn lua_refuses_bad_cameras_with_clear_errors() {
    let (_s, mut h) = scripted("control-lua-refusals");
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    h.request_spawn(a);
    h.step();
    let cases = [
        (
            "p:set_camera_fixed(1, 2, 3, 1, 2, 3)",
            "error set_camera_fixed: the camera and its look-at point are closer than 0.01",
        ),
        (
            "p:set_camera_fixed(100001, 2, 3, 1, 2, 3)",
            "error set_camera_fixed: x 100001 is outside -100000..=100000",
        ),
        (
            "p:set_camera_fixed(1, 2, 3, 4, 5, 6, 60001)",
            "error set_camera_fixed: transition_ms 60001 is outside 0..=60000",
        ),
        (
            "p:set_camera_fixed(1, 2, 3, 4, 5)",
            "error set_camera_fixed: look_z must be a number, got nil",
        ),
        (
            "p:spectate(p)",
            "error spectate: a player cannot spectate itself",
        ),
        (
            "p:spectate(others[2])",
            "error spectate: target bob is not spawned",
        ),
        (
            "p:set_camera_free()",
            "error set_camera_free: a free camera exists only in a map editing session (dlmp.start_edit with camera = \"free\")",
        ),
        (
            "p:set_frozen(1)",
            "error set_frozen: frozen must be a boolean, got 1",
        ),
    ];
    for (code, said) in cases {
        assert_eq!(lua(&mut h, a, code), said, "{code}");
    }
    h.request_spawn(b);
    h.step();
    h.set_scope(b, Some(2), None);
    assert_eq!(
        lua(&mut h, a, "p:spectate(others[2])"),
        "error spectate: target bob is in virtual world 2 interior 0, not in the player's (virtual world 0 interior 0)"
    );
    assert!(log(&mut h, a).is_empty());
}

#[test]
fn lua_set_on_fire_refuses_what_the_spec_refuses() {
    let (_s, mut h) = scripted("control-lua-fire");
    let a = h.connect("alice");
    h.step();
    assert_eq!(
        lua(&mut h, a, "p:set_on_fire(true)"),
        "error set_on_fire: the player has not spawned"
    );
    h.request_spawn(a);
    h.step();
    assert_eq!(
        lua(&mut h, a, "p:set_on_fire(true)"),
        "error set_on_fire: the player's new life is not confirmed yet (no living frame since its spawn)"
    );
    h.sync(a, 1, Frame::standing(HERE));
    assert_eq!(lua(&mut h, a, "p:set_on_fire(true)"), "ok nil");
    assert_eq!(
        h.packets::<SetOnFire>(a)
            .iter()
            .map(|p| p.on_fire)
            .collect::<Vec<_>>(),
        [true]
    );
    h.die(a);
    assert_eq!(
        lua(&mut h, a, "p:set_on_fire(false)"),
        "error set_on_fire: the player is dead"
    );
}

#[test]
fn set_before_the_first_spawn_the_freeze_and_camera_go_out_at_the_spawn() {
    let (_s, mut h) = scripted("control-before-spawn");
    let a = h.connect("alice");
    h.step();
    lua(
        &mut h,
        a,
        "p:set_frozen(true) p:set_camera_fixed(1, 2, 3, 4, 5, 6)",
    );
    h.steps(3);
    assert!(log(&mut h, a).is_empty(), "nothing before the spawn");
    assert_eq!(h.get::<FrameState>(a).frozen, None);
    h.request_spawn(a);
    h.step();
    let order: Vec<&'static str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::SpawnPlayer(_) => Some("spawn"),
            ServerPacket::SetFrozen(_) => Some("frozen"),
            ServerPacket::SetCamera(_) => Some("camera"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["spawn", "frozen", "camera"]);
    assert_eq!(h.get::<FrameState>(a).frozen, Some(HERE));
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(1.0, 2.0, 3.0))
    );
}

#[test]
fn spectate_lost_fires_on_the_targets_scope_change_and_disconnect() {
    let (_s, mut h, a, b) = spawned_pair("control-spectate-lost");
    lua(&mut h, a, "p:spectate(others[2])");
    h.clear(a);
    h.set_scope(b, Some(9), None);
    h.step();
    let said = h.chat_lines(a);
    assert_eq!(said, ["lost bob"]);
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
    assert_eq!(lua(&mut h, a, "return p:camera()"), "ok own");

    h.set_scope(b, Some(0), None);
    lua(&mut h, a, "p:spectate(others[2])");
    h.clear(a);
    h.disconnect(b);
    h.steps(3);
    let said = h.chat_lines(a);
    assert_eq!(said, ["lost a player who left"]);
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
}

#[test]
fn spectate_after_moving_the_scope_in_the_same_call_sees_the_new_scope() {
    let (_s, mut h, a, b) = spawned_pair("control-spectate-scope-order");
    lua(&mut h, b, "p:set_virtual_world(5)");
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:set_virtual_world(5) p:spectate(others[2]) return p:camera()"
        ),
        "ok spectate"
    );
    assert!(
        matches!(h.get::<Control>(a).camera, CameraSetting::Spectate { .. }),
        "the server applies the scope before the camera, as the script saw it"
    );
    assert_eq!(log(&mut h, a), ["frozen 1", "camera Spectate"]);
}

#[test]
fn the_targets_teleport_into_another_interior_ends_spectating() {
    let (_s, mut h, a, b) = spawned_pair("control-spectate-target-teleport");
    lua(&mut h, a, "p:spectate(others[2])");
    h.clear(a);
    lua(&mut h, b, "p:teleport(1, 2, 3, { interior = 5 })");
    h.step();
    let said = h.chat_lines(a);
    assert_eq!(said, ["lost bob"]);
    assert_eq!(log(&mut h, a), ["camera Own", "frozen 0"]);
}

#[test]
fn the_spectators_own_scope_change_ends_spectating() {
    let (_s, mut h, a, _b) = spawned_pair("control-spectate-own-scope");
    lua(&mut h, a, "p:spectate(others[2])");
    h.clear(a);
    lua(&mut h, a, "p:set_virtual_world(3)");
    h.clear(a);
    h.step();
    let said = h.chat_lines(a);
    assert_eq!(said, ["lost bob"]);
    assert_eq!(h.get::<Control>(a).camera, CameraSetting::Own);
    assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
}

#[test]
fn the_targets_real_death_and_respawn_do_not_end_spectating() {
    let (mut h, a, b) = two(HERE);
    h.sync(b, 1, Frame::standing(HERE));
    let s = spectating(&h, b);
    camera(&mut h, a, s);
    log(&mut h, a);
    h.die_and_respawn(b);
    h.steps(3);
    assert!(log(&mut h, a).is_empty());
    assert!(matches!(
        h.get::<Control>(a).camera,
        CameraSetting::Spectate { .. }
    ));
}

#[test]
fn a_teleport_moves_the_freeze_anchor() {
    let (mut h, a) = alone();
    h.sync(a, 1, Frame::standing(HERE));
    freeze(&mut h, a, true);
    let there = Vec3::new(HERE.x + 1000.0, HERE.y, HERE.z);
    let player = h.entity(a);
    h.world_mut()
        .write_message(dlmp::player::teleport::Teleport {
            player,
            pos: there,
            heading: None,
            interior: None,
            ground: false,
        });
    h.step();
    assert_eq!(h.get::<FrameState>(a).frozen, Some(there));
    // Held 8 m from the new point, not from the old one.
    h.sync(
        a,
        2,
        Frame::standing(Vec3::new(there.x + 20.0, there.y, there.z)),
    );
    let at = h.get::<dlmp_core::position::Position>(a).0;
    assert!((at.x - (there.x + 8.0)).abs() < 1e-3, "{at:?}");
}

/// connection.md §3: a gamemode command's SetFrozen, SetCamera and SetOnFire are normal
/// events. On a lane without room for all of a command's packets the call raises "queue
/// full" and nothing changes; the respawn grant's resets are critical (ADR 0016).
mod lane {
    use super::*;
    use dlmp::lane::Delivery;
    use dlmp::protocol::connection::handshake::{LeaveReason, ServerDisconnect};

    /// Alice spawned by the runner, her new life confirmed, what she got forgotten.
    fn spawned(test: &str) -> (TempScripts, Harness, ClientId) {
        let (s, mut h) = scripted(test);
        let a = h.connect("alice");
        h.step();
        h.request_spawn(a);
        h.step();
        h.sync(a, 1, Frame::standing(HERE));
        log(&mut h, a);
        (s, h, a)
    }

    /// Runs `code` on a lane left with `leave` normal places and keeps its error in the
    /// global `name` (the answer line may find no room).
    fn on_the_lane(h: &mut Harness, c: ClientId, leave: usize, name: &str, code: &str) {
        h.advance(Duration::from_secs(1));
        h.set_auto_ack(c, false);
        h.fill_lane(c, Delivery::Normal, leave);
        h.clear(c);
        h.chat(
            c,
            &format!("/lua {name} = select(2, pcall(function() {code} end))"),
        );
        h.step();
    }

    /// What the global `name` holds once the lane has room again.
    fn kept(h: &mut Harness, c: ClientId, name: &str) -> String {
        h.release_lane(c);
        lua(h, c, &format!("return {name}"))
    }

    #[test]
    fn lua_control_setters_on_a_full_lane_raise_queue_full_and_change_nothing() {
        let (_s, mut h, a) = spawned("control-lane-full");
        let calls = [
            ("F", "p:set_frozen(true)", "set_frozen"),
            (
                "C",
                "p:set_camera_fixed(1, 2, 3, 4, 5, 6)",
                "set_camera_fixed",
            ),
            ("O", "p:set_on_fire(true)", "set_on_fire"),
        ];
        for (name, code, _) in calls {
            on_the_lane(&mut h, a, 0, name, code);
        }
        h.steps(2);
        let control = h.get::<Control>(a);
        assert!(!control.frozen && !control.told_frozen());
        assert_eq!(control.camera, CameraSetting::Own);
        assert_eq!(h.get::<FrameState>(a).frozen, None);
        assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
        for (name, _, method) in calls {
            let error = kept(&mut h, a, name);
            assert!(error.contains(&format!("{method}: queue full")), "{error}");
        }
        assert!(log(&mut h, a).is_empty(), "nothing went later");
        assert_eq!(lua(&mut h, a, "return p:is_frozen()"), "ok false");
        assert_eq!(lua(&mut h, a, "return p:camera()"), "ok own");
    }

    #[test]
    fn a_camera_change_takes_a_lane_place_per_packet_it_sends() {
        let (_s, mut h, a) = spawned("control-lane-places");
        // Own to fixed sends SetFrozen(1) and SetCamera: one place is not enough.
        on_the_lane(&mut h, a, 1, "C", "p:set_camera_fixed(1, 2, 3, 4, 5, 6)");
        assert_eq!(h.get::<Control>(a).camera, CameraSetting::Own);
        assert!(!h.get::<Control>(a).told_frozen());
        assert!(kept(&mut h, a, "C").contains("set_camera_fixed: queue full"));
        assert!(log(&mut h, a).is_empty());
        // Frozen already, the same change sends only SetCamera: one place for it, one for
        // the answer line.
        lua(&mut h, a, "p:set_frozen(true)");
        assert_eq!(log(&mut h, a), ["frozen 1"]);
        on_the_lane(&mut h, a, 2, "C", "p:set_camera_fixed(1, 2, 3, 4, 5, 6)");
        assert!(matches!(
            h.get::<Control>(a).camera,
            CameraSetting::Fixed { .. }
        ));
        h.release_lane(a);
        assert_eq!(log(&mut h, a), ["camera Fixed"]);
        assert_eq!(lua(&mut h, a, "return C"), "ok nil");
    }

    #[test]
    fn a_rust_control_command_without_room_for_its_packets_stores_nothing() {
        let (mut h, a) = alone();
        h.sync(a, 1, Frame::standing(HERE));
        h.set_auto_ack(a, false);
        h.fill_lane(a, Delivery::Normal, 1);
        camera(&mut h, a, fixed(FAR, 0));
        let control = h.get::<Control>(a);
        assert_eq!(control.camera, CameraSetting::Own);
        assert!(!control.told_frozen());
        assert_eq!(h.get::<StreamCenter>(a), StreamCenter::default());
        // The freeze needs one place: it goes.
        freeze(&mut h, a, true);
        assert!(h.get::<Control>(a).told_frozen());
        assert_eq!(h.get::<FrameState>(a).frozen, Some(HERE));
        let player = h.entity(a);
        apply(
            &mut h,
            ControlCommand::Fire {
                player,
                on_fire: true,
            },
        );
        h.release_lane(a);
        assert_eq!(log(&mut h, a), ["frozen 1"]);
    }

    #[test]
    fn the_respawn_grants_resets_are_queued_even_on_a_full_lane() {
        let (mut h, a) = alone();
        h.sync(a, 1, Frame::standing(HERE));
        freeze(&mut h, a, true);
        camera(&mut h, a, fixed(FAR, 0));
        h.die(a);
        h.steps(2);
        h.advance(Duration::from_secs(3));
        h.set_auto_ack(a, false);
        h.fill_lane(a, Delivery::Normal, 0);
        h.clear(a);
        h.request_respawn(a);
        h.step();
        // A normal SetCamera(0) / SetFrozen(0) would be refused here and leave the client
        // frozen behind a fixed camera. The critical resets are queued past the 512 waiting
        // events, which overflows the lane and ends the session (connection.md §3).
        h.advance(Duration::from_millis(150));
        let bye = h.packets::<ServerDisconnect>(a);
        assert!(!bye.is_empty(), "the lane overflowed");
        assert!(bye.iter().all(|d| d.reason == LeaveReason::Kicked));
    }
}
