//! player.md, PlayerSync and RemotePlayerSync in the harness: frame admission (spawn
//! gating, seq, life, paused, on_fire, special action, weapons, the movement check) and the
//! relay to the subject's viewers, field by field. Players stand together at [`SPAWN`], so
//! player streaming shows them to each other; a player in another virtual world is not.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::animation::{AnimationCommand, AnimationOrder};
use dlmp::player::frame::{FrameDrops, FrameState};
use dlmp::player::physics::{SetBodyGravity, ThrowPlayer};
use dlmp::player::{Body, Inventory, LastFrame, Ledger, Life, SpawnState};
use dlmp::protocol::connection::weapons::{GiveArmor, GiveHealth};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Revision, Seq};
use dlmp::protocol::player::action::SpecialAction;
use dlmp::protocol::player::control::SetSpecialAction;
use dlmp::protocol::player::physics::{SetGravity, SetVelocity};
use dlmp::protocol::player::sync::{Frame, Keys, MoveState, RemotePlayerSync};
use dlmp::serial::Serial;
use dlmp_core::position::Position;
use dlmp_core::viewers::Viewers;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);

/// Alice and Bob at [`SPAWN`], each shown to the other.
fn two() -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(SPAWN);
    (h, a, b)
}

/// [`two`] with the gamemode's commands of [`SETUP`] (`/give weapon ammo` among them).
fn armed(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", SETUP);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(SPAWN);
    (scripts, h, a, b)
}

/// The gamemode's `give_weapon(weapon, ammo)` to `c` (GiveWeapon, the next weapon_rev).
fn give(h: &mut Harness, c: ClientId, weapon: u8, ammo: u16) {
    h.chat(c, &format!("/give {weapon} {ammo}"));
    h.steps(2);
}

/// A living frame standing at [`SPAWN`].
fn frame() -> Frame {
    Frame::standing(SPAWN)
}

fn relays(h: &Harness, c: ClientId) -> Vec<RemotePlayerSync> {
    h.packets::<RemotePlayerSync>(c)
}

#[track_caller]
fn last_relay(h: &Harness, c: ClientId) -> RemotePlayerSync {
    relays(h, c).pop().expect("a RemotePlayerSync")
}

/// The gamemode's commands the relay table test sets its subject up with.
const SETUP: &str = r#"
dlmp.add_command("team", function(p, args) p:set_team(tonumber(args[1])) end)
dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
dlmp.add_command("setup", function(p)
    p:set_skin(7, 2)
    p:set_walking_style(127)
    p:set_fighting_style("kung_fu")
    p:set_headless(true)
    p:set_health(80)
    p:set_armor(20)
    p:give_weapon(24, 30)
    p:set_gravity(0.005)
    p:set_special_action("jetpack")
end)
"#;

#[test]
fn a_frame_is_relayed_to_a_viewer_with_every_field_by_the_table() {
    let scripts = TempScripts::new("relay-table");
    scripts.resource("gm", SETUP);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(SPAWN);
    // Three lives lost and granted again, each confirmed by a living frame (as
    // SetSpecialAction requires): the server's death_epoch is 3.
    for _ in 0..3 {
        h.die_and_respawn(a);
        h.live(a);
    }
    h.chat(a, "/team 5");
    h.chat(b, "/team 5");
    h.chat(a, "/setup");
    h.steps(2);
    let health = h.packets::<GiveHealth>(a);
    let armor = h.packets::<GiveArmor>(a);
    assert_eq!(
        (health.len(), armor.len()),
        (1, 1),
        "GiveHealth and GiveArmor"
    );
    assert_eq!((health[0].health, armor[0].armor), (80.0, 20.0));
    assert_eq!(
        armor[0].vital_rev,
        health[0].vital_rev.next(),
        "each health or armor command raises vital_rev (connection.md §6)"
    );
    let gravity = h.packets::<SetGravity>(a);
    assert_eq!(gravity.len(), 1);
    assert_eq!(
        (gravity[0].gravity, gravity[0].rev),
        (0.005, Revision(1)),
        "the first physics command of the connection"
    );
    let action = h.packets::<SetSpecialAction>(a);
    assert_eq!(action.len(), 1);
    assert_eq!(action[0].action, SpecialAction::Jetpack);
    h.clear(b);

    let sent = Frame {
        pos: Vec3::new(100.5, 200.0, 10.0),
        yaw: 45.0,
        keys: Keys(0xFFFF),
        ducked: true,
        cam: Vec3::new(0.0, 3.0, 4.0),
        vel: Vec3::new(10.0, 0.0, 0.0),
        shift_x: 0.25,
        shift_y: 0.5,
        move_state: MoveState::Run,
        on_ground: false,
        hp: 150.0,
        armor: 99.0,
        alive: true,
        death_epoch: 9,
        weapon: 24,
        state: 9,
        clip: 50,
        total: 500,
        cam_yaw: 1.25,
        weapon_rev: Revision(0),
        parachute_stage: 2,
        paused: false,
        on_fire: true,
        special_action: SpecialAction::Jetpack,
        // The echo of SetSpecialAction: the owner's value, relayed as it is.
        special_rev: action[0].rev,
        jet_thrust: 1,
        jet_stop: true,
        jet_strafe: 5.0,
        jet_angle: -2.0,
        aim_target: 3,
        // SetGravity applied: its echo makes the server take the gravity (player.md,
        // physics_rev).
        physics_rev: gravity[0].rev,
        // The current vital_rev: the frame is in the client's order, but its hp and
        // armor are above the ledger, which a frame can only lower (connection.md §6).
        vital_rev: armor[0].vital_rev,
        damage_seq: h.get::<Ledger>(a).damage_seq,
    };
    h.sync(a, 11, sent);

    assert!(relays(&h, a).is_empty(), "not to the subject itself");
    let r = relays(&h, b);
    assert_eq!(r.len(), 1);
    let r = r[0].clone();
    assert_eq!(r.player_id, h.player_id(a));
    assert_eq!(r.player_token, h.hello(a).player_token);
    assert_eq!(r.seq, Seq(11));
    let f = r.frame;
    assert_eq!(f.pos, Vec3::new(100.5, 200.0, 10.0), "the checked position");
    assert_eq!(f.yaw, 45.0);
    assert_eq!(
        f.keys,
        Keys::KNOWN,
        "bits 0..8; fire kept, the weapon has ammo"
    );
    assert!(f.ducked);
    assert_eq!(f.cam, Vec3::new(0.0, 0.6, 0.8), "normalised");
    assert!(
        (f.vel.x - 5.0).abs() < 1e-4 && f.vel.length() <= 5.0,
        "capped"
    );
    assert_eq!((f.shift_x, f.shift_y), (0.25, 0.5));
    assert_eq!(f.move_state, MoveState::Run);
    assert!(!f.on_ground);
    assert_eq!((f.hp, f.armor), (80.0, 20.0), "the ledger's");
    assert!(f.alive);
    assert_eq!(f.death_epoch, 3, "the server's");
    assert_eq!(f.weapon, 24, "held by the inventory");
    assert_eq!(f.state, 0, "above 4 becomes 0");
    assert_eq!((f.clip, f.total), (30, 30), "from the inventory");
    assert_eq!(f.cam_yaw, 1.25);
    assert_eq!(f.weapon_rev, Revision(0));
    assert_eq!(f.parachute_stage, 2);
    assert!(!f.paused);
    assert!(f.on_fire, "the server took the first change");
    assert_eq!(f.special_action, SpecialAction::Jetpack, "the server's");
    assert_eq!(f.special_rev, action[0].rev, "the owner's");
    assert_eq!((f.jet_thrust, f.jet_stop), (1, true));
    assert_eq!((f.jet_strafe, f.jet_angle), (3.0, -1.5), "clamped");
    assert_eq!(f.aim_target, 0xFFFF);
    assert_eq!(
        (f.physics_rev, f.vital_rev, f.damage_seq),
        (Revision(0), Revision(0), Seq(0))
    );
    assert_eq!((r.skin, r.variant), (7, 2));
    assert_eq!((r.walk_style, r.fight_style, r.headless), (127, 6, true));
    assert_eq!(
        (r.damage_group, r.relation_rev),
        (5, 1),
        "one change of group"
    );
    assert!(r.teammate, "same group as the recipient");
    assert_eq!(r.gravity, 0.005, "taken with the echo");

    // Bob's frame goes to Alice; Alice's group is not 0 but Bob's differs now.
    h.chat(b, "/team 6");
    h.steps(2);
    h.sync(a, 12, frame());
    assert!(!last_relay(&h, b).teammate);
}

#[test]
fn without_ammo_the_fire_bit_is_cleared_and_without_a_jetpack_jet_fields_are_zero() {
    let (_s, mut h, a, b) = armed("no-ammo");
    give(&mut h, a, 24, 0);
    let mut f = frame();
    f.weapon = 24;
    f.keys = Keys::FIRE | Keys::AIM;
    f.jet_strafe = 2.0;
    f.jet_thrust = 1;
    h.sync(a, 1, f);
    let r = last_relay(&h, b).frame;
    assert_eq!(r.keys, Keys::AIM);
    assert_eq!((r.jet_thrust, r.jet_strafe), (0, 0.0));
    // A melee weapon keeps its fire bit.
    f.weapon = 0;
    h.sync(a, 2, f);
    assert_eq!(last_relay(&h, b).frame.keys, Keys::FIRE | Keys::AIM);
}

#[test]
fn a_living_player_is_never_relayed_with_a_lethal_hp() {
    let (mut h, a, b) = two();
    // A lethal fall reported in the frame's tick: the ledger reaches 0 HP and commits
    // the death in that tick, before the relay.
    h.report_damage(a, 1, 54, 200.0);
    h.sync(a, 1, frame());
    let r = last_relay(&h, b).frame;
    assert!(!r.alive || r.hp > 0.0);
    assert!(!r.alive, "the ledger at 0 committed the death");
}

#[test]
fn frames_are_dropped_until_the_connect_spawn_is_granted() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    h.spawn(b, SPAWN);
    h.sync(a, 1, frame());
    assert!(relays(&h, b).is_empty());
    assert_eq!(h.world().resource::<FrameDrops>().not_spawned, 1);
    assert_eq!(h.get::<LastFrame>(a).seq, None);

    h.spawn(a, SPAWN);
    assert!(!h.get::<SpawnState>(a).confirmed);
    let mut dead = frame();
    dead.alive = false;
    h.sync(a, 2, dead);
    assert!(
        !h.get::<SpawnState>(a).confirmed,
        "only a living frame confirms"
    );
    h.sync(a, 3, frame());
    assert!(h.get::<SpawnState>(a).confirmed);
    assert_eq!(relays(&h, b).len(), 2);
}

#[test]
fn duplicate_and_overtaken_frames_are_dropped_whole() {
    let (mut h, a, b) = two();
    let mut f = frame();
    f.paused = true;
    h.sync(a, 5, f);
    h.advance(std::time::Duration::from_secs(2));
    h.sync(a, 5, frame());
    h.sync(a, 4, frame());
    assert!(h.get::<Body>(a).paused, "a stale frame rolls nothing back");
    assert_eq!(relays(&h, b).len(), 1);
    assert_eq!(h.world().resource::<FrameDrops>().stale, 2);
    // Serial arithmetic survives the wrap.
    for seq in [0x4000_0000, 0x8000_0000, 0xC000_0000, u32::MAX, 0] {
        h.sync(a, seq, frame());
    }
    assert_eq!(relays(&h, b).len(), 6);
    assert_eq!(relays(&h, b)[5].seq, Seq(0));
}

#[test]
fn frames_go_only_to_the_subjects_viewers() {
    let (mut h, a, b) = two();
    let c = h.connect("carol");
    h.step();
    h.spawn(c, SPAWN);
    h.set_scope(c, Some(7), None);
    h.sync(a, 1, frame());
    assert_eq!(relays(&h, b).len(), 1);
    assert!(relays(&h, c).is_empty(), "carol is not shown alice");
    h.set_scope(b, Some(7), None);
    h.sync(a, 2, frame());
    assert_eq!(relays(&h, b).len(), 1, "hidden: no more relays");
    assert!(!h.get::<Viewers>(a).contains(h.player_id(b)));
}

#[test]
fn a_dead_players_position_and_pose_are_not_taken() {
    let (mut h, a, b) = two();
    let living = Frame {
        yaw: 90.0,
        ducked: true,
        move_state: MoveState::Run,
        ..frame()
    };
    h.sync(a, 1, living);
    h.die(a);
    let dead = Frame {
        pos: Vec3::new(105.0, 200.0, 10.0),
        yaw: 270.0,
        ducked: false,
        move_state: MoveState::Sprint,
        alive: false,
        ..frame()
    };
    h.sync(a, 2, dead);
    assert_eq!(h.get::<Position>(a).0, SPAWN);
    let r = last_relay(&h, b);
    assert_eq!(r.seq, Seq(2), "the dead frame's relay");
    let r = r.frame;
    assert_eq!(
        (r.pos, r.alive),
        (SPAWN, false),
        "the server's last position"
    );
    assert_eq!(
        (r.yaw, r.ducked, r.move_state),
        (90.0, true, MoveState::Run),
        "the pose of the last living frame (player.md, Admission)"
    );
}

#[test]
fn a_frame_that_says_dead_moves_and_turns_no_living_player() {
    let (mut h, a, b) = two();
    let claim = Frame {
        pos: Vec3::new(105.0, 200.0, 10.0),
        yaw: 270.0,
        ducked: true,
        move_state: MoveState::Sprint,
        alive: false,
        ..frame()
    };
    // Alive on the server, dead in the frame: neither the position nor the pose is taken.
    h.sync(a, 1, claim);
    assert_eq!(h.get::<Position>(a).0, SPAWN);
    let r = last_relay(&h, b).frame;
    assert_eq!((r.pos, r.alive), (SPAWN, true));
    assert_eq!(
        (r.yaw, r.ducked, r.move_state),
        (0.0, false, MoveState::Unset)
    );
    let living = Frame {
        alive: true,
        ..claim
    };
    h.sync(a, 2, living);
    assert_eq!(h.get::<Position>(a).0, living.pos);
    let r = last_relay(&h, b).frame;
    assert_eq!(
        (r.yaw, r.ducked, r.move_state),
        (270.0, true, MoveState::Sprint)
    );
}

#[test]
fn a_living_frame_sets_the_server_reads() {
    let (mut h, a, _) = two();
    let mut f = frame();
    f.vel = Vec3::new(0.1, 0.0, 0.0);
    f.cam = Vec3::new(0.0, 0.0, 2.0);
    f.keys = Keys(0xFE01);
    f.ducked = true;
    f.on_ground = false;
    h.sync(a, 1, f);
    let body = h.get::<Body>(a);
    assert!((body.velocity.x - 5.0).abs() < 1e-4, "m/s");
    assert_eq!(body.camera_front, Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(body.keys, Keys(0x0001));
    assert!(body.ducked && !body.on_ground);
    // A zero direction is not taken; the speed is capped to 250 m/s.
    f.cam = Vec3::ZERO;
    f.vel = Vec3::new(100.0, 0.0, 0.0);
    h.sync(a, 2, f);
    let body = h.get::<Body>(a);
    assert_eq!(body.camera_front, Vec3::new(0.0, 0.0, 1.0));
    assert!(body.velocity.length() <= 250.0);
}

#[test]
fn paused_zeroes_keys_and_changes_once_a_second() {
    let (mut h, a, b) = two();
    let mut f = frame();
    f.keys = Keys::FORWARD;
    f.paused = true;
    h.sync(a, 1, f);
    let r = last_relay(&h, b).frame;
    assert!(r.paused);
    assert_eq!(r.keys, Keys::NONE);
    assert_eq!(h.get::<Body>(a).keys, Keys::NONE);

    f.paused = false;
    h.sync(a, 2, f);
    let r = last_relay(&h, b).frame;
    assert!(r.paused, "a second has not passed");
    assert_eq!(r.keys, Keys::NONE);

    h.advance(std::time::Duration::from_secs(1));
    h.sync(a, 3, f);
    let r = last_relay(&h, b).frame;
    assert!(!r.paused);
    assert_eq!(r.keys, Keys::FORWARD);
}

#[test]
fn on_fire_comes_from_a_living_body_once_a_second() {
    let (mut h, a, b) = two();
    let mut f = frame();
    f.on_fire = true;
    h.sync(a, 1, f);
    assert!(last_relay(&h, b).frame.on_fire);
    f.on_fire = false;
    h.sync(a, 2, f);
    assert!(
        last_relay(&h, b).frame.on_fire,
        "faster changes keep the value"
    );
    h.advance(std::time::Duration::from_secs(1));
    h.sync(a, 3, f);
    assert!(!last_relay(&h, b).frame.on_fire);

    h.advance(std::time::Duration::from_secs(1));
    f.on_fire = true;
    h.sync(a, 4, f);
    assert!(h.get::<Body>(a).on_fire);
    // A dead frame counts as 0 at once.
    f.alive = false;
    h.sync(a, 5, f);
    assert!(!h.get::<Body>(a).on_fire);
    assert!(!last_relay(&h, b).frame.on_fire);
}

/// The gamemode's SetSpecialAction for `a` (player.md), as `player:set_special_action`
/// queues it, and the tick that sends it.
fn special_action(h: &mut Harness, a: ClientId, action: SpecialAction) {
    let command = AnimationCommand {
        player: h.entity(a),
        order: AnimationOrder::SpecialAction(action),
    };
    h.world_mut().write_message(command);
    h.step();
}

#[test]
fn the_owner_ends_a_special_action_only_with_the_current_echo() {
    let (mut h, a, b) = two();
    h.sync(a, 1, frame());
    special_action(&mut h, a, SpecialAction::Dance1);
    special_action(&mut h, a, SpecialAction::HandsUp);
    assert_eq!(h.get::<FrameState>(a).special_rev, Revision(2));
    let mut f = frame();
    f.special_rev = Revision(1);
    h.sync(a, 2, f);
    assert_eq!(
        last_relay(&h, b).frame.special_action,
        SpecialAction::HandsUp,
        "the frame overtook the command"
    );
    f.special_rev = Revision(2);
    f.special_action = SpecialAction::Dance1;
    h.sync(a, 3, f);
    assert_eq!(
        last_relay(&h, b).frame.special_action,
        SpecialAction::HandsUp,
        "a claimed action changes nothing"
    );
    f.special_action = SpecialAction::None;
    f.alive = false;
    h.sync(a, 4, f);
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::HandsUp);
    f.alive = true;
    h.sync(a, 5, f);
    assert_eq!(last_relay(&h, b).frame.special_action, SpecialAction::None);
}

#[test]
fn weapons_reconcile_only_with_the_current_weapon_rev() {
    let (_s, mut h, a, b) = armed("reconcile");
    // Two weapon changes: weapon_rev 2, 30 rounds.
    give(&mut h, a, 24, 30);
    give(&mut h, a, 24, 0);
    let mut f = frame();
    f.weapon = 24;
    f.clip = 7;
    f.total = 5;
    f.weapon_rev = Revision(1);
    h.sync(a, 1, f);
    let inv = h.get::<Inventory>(a);
    assert_eq!((inv.armed, inv.ammo[24]), (0, 30), "an overtaken frame");
    assert_eq!(last_relay(&h, b).frame.total, 30);

    f.weapon_rev = Revision(2);
    f.total = 10;
    h.sync(a, 2, f);
    let inv = h.get::<Inventory>(a);
    assert_eq!((inv.armed, inv.clip, inv.ammo[24]), (24, 7, 10));

    f.total = 50;
    h.sync(a, 3, f);
    assert_eq!(h.get::<Inventory>(a).ammo[24], 10, "only downward");

    f.weapon = 31;
    f.total = 500;
    h.sync(a, 4, f);
    let inv = h.get::<Inventory>(a);
    assert_eq!(inv.armed, 24, "not in the inventory");
    let r = last_relay(&h, b).frame;
    assert_eq!(
        (r.weapon, r.clip, r.total),
        (24, 7, 10),
        "the last confirmed one"
    );
}

#[test]
fn the_movement_check_holds_a_teleporting_frame() {
    let (mut h, a, b) = two();
    h.sync(a, 1, frame());
    let mut f = frame();
    f.pos = Vec3::new(600.0, 200.0, 10.0);
    h.sync(a, 2, f);
    let p = h.get::<Position>(a).0;
    assert!(p.x > 100.0 && p.x < 110.0, "{p:?}");
    assert_eq!(last_relay(&h, b).frame.pos, p);
    // Walking on from the held point is taken.
    f.pos = Vec3::new(p.x + 0.3, 200.0, 10.0);
    h.sync(a, 3, f);
    assert_eq!(h.get::<Position>(a).0, f.pos);
}

#[test]
fn an_echoed_throw_allows_its_flight() {
    let (mut h, a, _) = two();
    h.sync(a, 1, frame());
    // 60 m/s straight up: 1.2 units per step.
    let message = ThrowPlayer {
        player: h.entity(a),
        vel: Vec3::new(0.0, 0.0, 1.2),
    };
    h.world_mut().write_message(message);
    h.steps(5);
    let mut f = frame();
    f.pos = Vec3::new(100.0, 200.0, 20.0);
    f.physics_rev = h.packets::<SetVelocity>(a)[0].rev;
    h.sync(a, 2, f);
    assert_eq!(h.get::<Position>(a).0, f.pos, "10 m up in 0.12 s at 60 m/s");

    // Without the throw the same rise is held.
    let (mut h, a, _) = two();
    h.sync(a, 1, frame());
    h.steps(5);
    f.physics_rev = Revision(0);
    h.sync(a, 2, f);
    assert!(h.get::<Position>(a).0.z < 20.0);
}

/// `a` sends a frame of `f` every 100 ms for `secs`, from seq `first` on; returns the next
/// seq.
fn fly(h: &mut Harness, a: ClientId, f: Frame, first: u32, secs: u32) -> u32 {
    let mut seq = first;
    for _ in 0..secs * 10 {
        h.sync(a, seq, f);
        h.advance(std::time::Duration::from_millis(80));
        seq += 1;
    }
    seq
}

#[test]
fn a_body_that_holds_its_height_past_the_time_in_the_air_is_brought_down() {
    let (mut h, a, b) = two();
    h.sync(a, 1, frame());
    let mut f = frame();
    f.on_ground = false;
    let next = fly(&mut h, a, f, 2, 3);
    assert_eq!(h.get::<Position>(a).0, SPAWN, "within the time in the air");
    fly(&mut h, a, f, next, 4);
    // About 3 s past the 4 s in the air: the ceiling (1 m above) sank 1 m/s.
    let p = h.get::<Position>(a).0;
    assert!(p.z < SPAWN.z - 1.0, "{p:?}");
    assert_eq!(last_relay(&h, b).frame.pos, p);
}

#[test]
fn a_jetpack_may_hover() {
    let (mut h, a, _) = two();
    h.sync(a, 1, frame());
    special_action(&mut h, a, SpecialAction::Jetpack);
    let mut f = frame();
    f.on_ground = false;
    f.special_action = SpecialAction::Jetpack;
    fly(&mut h, a, f, 2, 7);
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::Jetpack);
    assert_eq!(h.get::<Position>(a).0, SPAWN);
}

#[rstest::rstest]
#[case::none(0.0)]
#[case::upward(-0.002)]
fn at_gravity_0_or_below_a_body_hovers_without_limit_but_rises_at_most_12_5_m_s(
    #[case] gravity: f32,
) {
    let (mut h, a, b) = two();
    h.sync(a, 1, frame());
    let message = SetBodyGravity {
        player: h.entity(a),
        gravity,
    };
    h.world_mut().write_message(message);
    h.step();
    let sent = h.packets::<SetGravity>(a);
    assert_eq!((sent.len(), sent[0].gravity), (1, gravity));
    let mut f = frame();
    f.on_ground = false;
    f.physics_rev = sent[0].rev;
    // 10 s holding its height: past the 4 s of the game's gravity, it is not brought
    // down (player.md, physics_rev: "at g <= 0 hovering is unlimited").
    let next = fly(&mut h, a, f, 2, 10);
    assert_eq!(h.get::<Body>(a).gravity, gravity, "the echo took it");
    assert_eq!(h.get::<Position>(a).0, SPAWN);
    assert_eq!(last_relay(&h, b).frame.pos, SPAWN);
    // A rise of 20 m in about 0.1 s is held to 12.5 m/s ("the rise is held"): that
    // speed over the interval, the slack and 0.25 s of carried allowance, about 5 m.
    let mut up = f;
    up.pos = Vec3::new(SPAWN.x, SPAWN.y, SPAWN.z + 20.0);
    h.sync(a, next, up);
    let z = h.get::<Position>(a).0.z - SPAWN.z;
    assert!(z > 3.0 && z < 6.0, "rose {z} m");

    // At the game's gravity the same hover is brought down.
    let (mut h, a, _) = two();
    h.sync(a, 1, frame());
    f.physics_rev = Revision(0);
    fly(&mut h, a, f, 2, 10);
    assert!(h.get::<Position>(a).0.z < SPAWN.z - 1.0);
}

#[test]
fn a_gravity_echo_reaches_the_relay() {
    let (mut h, a, b) = two();
    let message = SetBodyGravity {
        player: h.entity(a),
        gravity: 0.002,
    };
    h.world_mut().write_message(message);
    h.step();
    let mut f = frame();
    f.physics_rev = h.packets::<SetGravity>(a)[0].rev;
    h.sync(a, 1, f);
    assert_eq!(last_relay(&h, b).gravity, 0.002);
}

/// Reports every frame event to the player as a chat line; `/reads` answers the reads.
const REPORTER: &str = r#"
local function say(p, s) dlmp.send_chat(s, nil, { p }) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_key_change", function(p, key, pressed) say(p, "key " .. key .. " " .. tostring(pressed)) end)
dlmp.on("player_pause", function(p, paused) say(p, "pause " .. tostring(paused) .. " " .. tostring(p:is_paused())) end)
dlmp.on("player_weapon_reload", function(p, w) say(p, "reload " .. w) end)
dlmp.on("player_state_change", function(p, s, prev) say(p, "state " .. s .. " " .. prev) end)
dlmp.on("player_interior_change", function(p, i, prev) say(p, "interior " .. i .. " " .. prev) end)
dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
dlmp.on("player_command", function(p, name)
    if name == "target" then
        local t = p:target()
        say(p, "target " .. (t and t:name() or "none"))
        return true
    end
    if name ~= "reads" then return end
    local vx, vy, vz = p:velocity()
    local cx, cy, cz = p:camera_front()
    say(p, string.format("reads %d %.1f %.1f %.1f %.1f %.1f %.1f %s %s", p:keys(),
        vx, vy, vz, cx, cy, cz, tostring(p:is_paused()), tostring(p:is_on_fire())))
    return true
end)
"#;

/// Alice, spawned by the gamemode through RequestSpawn.
fn scripted(test: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", REPORTER);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.steps(4);
    assert_eq!(h.take_chat_lines(a), ["state on_foot none"]);
    (s, h, a)
}

#[test]
fn scripts_read_keys_velocity_camera_pause_and_fire() {
    let (_s, mut h, a) = scripted("reads");
    let mut f = frame();
    f.keys = Keys::FORWARD | Keys::FIRE;
    f.vel = Vec3::new(0.1, 0.0, 0.0);
    f.cam = Vec3::new(0.0, 2.0, 0.0);
    f.on_fire = true;
    h.sync(a, 1, f);
    assert_eq!(h.take_chat_lines(a), ["key forward true", "key fire true"]);
    h.chat(a, "/reads");
    h.steps(2);
    assert_eq!(
        h.take_chat_lines(a),
        ["reads 129 5.0 0.0 0.0 0.0 1.0 0.0 false true"]
    );
}

#[test]
fn key_changes_wait_50_ms_and_a_release_is_never_lost() {
    let (_s, mut h, a) = scripted("keys");
    let mut f = frame();
    f.keys = Keys::JUMP;
    h.sync(a, 1, f);
    assert_eq!(h.take_chat_lines(a), ["key jump true"]);
    f.keys = Keys::NONE;
    h.sync(a, 2, f);
    assert!(h.take_chat_lines(a).is_empty(), "20 ms later: held back");
    h.steps(3);
    h.sync(a, 3, f);
    assert_eq!(h.take_chat_lines(a), ["key jump false"]);
}

#[test]
fn pause_raises_player_pause_and_releases_keys() {
    let (_s, mut h, a) = scripted("pause");
    let mut f = frame();
    f.keys = Keys::SPRINT;
    h.sync(a, 1, f);
    assert_eq!(h.take_chat_lines(a), ["key sprint true"]);
    h.steps(3);
    f.paused = true;
    h.sync(a, 2, f);
    assert_eq!(
        h.take_chat_lines(a),
        ["pause true true", "key sprint false"]
    );
    f.paused = false;
    h.sync(a, 3, f);
    assert!(h.take_chat_lines(a).is_empty(), "one change a second");
}

#[test]
fn a_reload_start_raises_player_weapon_reload_at_most_every_250_ms() {
    let (_s, mut h, a) = scripted("reload");
    give(&mut h, a, 24, 30);
    let mut f = frame();
    f.weapon = 24;
    f.clip = 7;
    f.total = 30;
    f.weapon_rev = Revision(1);
    f.state = 2;
    h.sync(a, 1, f);
    assert_eq!(h.take_chat_lines(a), ["reload 24"]);
    h.sync(a, 2, f);
    f.state = 0;
    h.sync(a, 3, f);
    f.state = 2;
    h.sync(a, 4, f);
    assert!(
        h.take_chat_lines(a).is_empty(),
        "not a start, then within 250 ms"
    );
    f.state = 0;
    h.sync(a, 5, f);
    h.advance(std::time::Duration::from_millis(300));
    f.state = 2;
    h.sync(a, 6, f);
    assert_eq!(h.take_chat_lines(a), ["reload 24"]);
    // A frame that overtook the next weapon change raises nothing.
    give(&mut h, a, 24, 0);
    h.advance(std::time::Duration::from_millis(300));
    f.state = 0;
    h.sync(a, 7, f);
    f.state = 2;
    h.sync(a, 8, f);
    assert!(h.take_chat_lines(a).is_empty());
}

#[test]
fn a_reload_is_raised_only_for_a_firearm_held_with_ammo_by_a_player_in_control() {
    let (_s, mut h, a) = scripted("reload-rules");
    // The inventory by the gamemode's GiveWeapon (weapon_rev 1, 2); frames echo it.
    h.chat(a, "/give 4 1");
    h.chat(a, "/give 24 30");
    h.steps(2);
    // The next seq of Alice's frames.
    let next = |h: &Harness| h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
    // A reload start of `f`'s weapon, 300 ms after the last: what the script heard.
    let reload = |h: &mut Harness, mut f: Frame| {
        h.advance(std::time::Duration::from_millis(300));
        f.state = 0;
        h.sync(a, next(h), f);
        f.state = 2;
        h.sync(a, next(h), f);
        h.take_chat_lines(a)
    };
    let mut f = frame();
    f.weapon = 24;
    f.clip = 7;
    f.total = 30;
    f.weapon_rev = Revision(2);
    assert_eq!(reload(&mut h, f), ["reload 24"]);

    let mut knife = f;
    knife.weapon = 4;
    assert!(reload(&mut h, knife).is_empty(), "a melee weapon");

    // The client's own count at the current echo lowers the inventory to no ammo.
    let mut empty = f;
    (empty.clip, empty.total) = (0, 0);
    assert!(reload(&mut h, empty).is_empty(), "no ammo by the inventory");
    assert_eq!(h.get::<Inventory>(a).ammo[24], 0);
    h.chat(a, "/give 24 30");
    h.steps(2);
    f.weapon_rev = Revision(3);
    assert!(
        reload(&mut h, {
            let mut stale = f;
            stale.weapon_rev = Revision(2);
            stale
        })
        .is_empty(),
        "a frame that overtook the last weapon change"
    );

    h.freeze(a, true);
    assert!(reload(&mut h, f).is_empty(), "frozen");
    h.freeze(a, false);

    // Paused by the frames themselves: the first paused frame is an accepted change.
    let mut paused = f;
    paused.paused = true;
    assert_eq!(
        reload(&mut h, paused),
        ["pause true true"],
        "paused: no reload"
    );
    // A second later the return is accepted.
    h.advance(std::time::Duration::from_secs(1));
    h.sync(a, next(&h), f);
    assert_eq!(h.take_chat_lines(a), ["pause false false"]);

    let mut old_life = f;
    old_life.death_epoch = 1;
    assert!(
        reload(&mut h, old_life).is_empty(),
        "a frame of another life"
    );
    assert_eq!(reload(&mut h, f), ["reload 24"]);
}

/// player.md, paused: "A paused frame has its keys zeroed before every consumer", and a
/// reload counts only "while the player is in control (not paused, not frozen)". A paused
/// frame within a second of the last accepted change leaves the server's pause state as it
/// was, but the player is in its menu all the same: no reload (ADR 0041).
#[test]
fn a_paused_frame_raises_no_reload_while_its_pause_waits_for_the_rate_limit() {
    let (_s, mut h, a) = scripted("reload-paused-rate");
    h.chat(a, "/give 24 30");
    h.steps(2);
    let mut f = frame();
    f.weapon = 24;
    (f.clip, f.total) = (7, 30);
    f.weapon_rev = Revision(1);
    let mut paused = f;
    paused.paused = true;
    h.sync(a, 1, paused);
    h.advance(std::time::Duration::from_secs(1));
    h.sync(a, 2, f);
    assert_eq!(
        h.take_chat_lines(a),
        ["pause true true", "pause false false"]
    );
    // Within the second: the pause is refused, the frames still say the menu is open.
    h.advance(std::time::Duration::from_millis(300));
    h.sync(a, 3, paused);
    paused.state = 2;
    h.sync(a, 4, paused);
    assert!(
        !h.get::<Body>(a).paused,
        "the change waits for the rate limit"
    );
    assert!(
        h.take_chat_lines(a).is_empty(),
        "no reload from a paused frame"
    );
    // In control again: the reload counts.
    h.advance(std::time::Duration::from_millis(300));
    h.sync(a, 5, f);
    f.state = 2;
    h.sync(a, 6, f);
    assert_eq!(h.take_chat_lines(a), ["reload 24"]);
}

#[test]
fn state_and_interior_changes_come_from_the_server_pass() {
    let (_s, mut h, a) = scripted("state");
    h.die(a);
    h.steps(4);
    assert_eq!(h.take_chat_lines(a), ["state dead on_foot"]);

    h.set_scope(a, None, Some(3));
    let mut seen = h.take_chat_lines(a);
    for _ in 0..4 {
        if !seen.is_empty() {
            break;
        }
        h.step();
        seen = h.take_chat_lines(a);
    }
    assert_eq!(seen, ["interior 3 0"]);
    // That tick was a pass; the next comes 50 ms later. A change and its reversal before it
    // raise nothing.
    h.set_scope(a, None, Some(5));
    h.set_scope(a, None, Some(3));
    h.steps(4);
    assert!(h.take_chat_lines(a).is_empty());
}

#[test]
fn world_bounds_hold_a_frame_on_the_edge_without_outward_velocity() {
    use dlmp::player::bounds::SetBounds;
    use dlmp::player::frame::Bounds;
    let (mut h, a, b) = two();
    let bounds = SetBounds {
        player: h.entity(a),
        bounds: Some(Bounds {
            min_x: 90.0,
            min_y: 190.0,
            max_x: 101.0,
            max_y: 210.0,
        }),
    };
    h.world_mut().write_message(bounds);
    h.step();
    let mut f = frame();
    f.pos = Vec3::new(102.0, 200.0, 10.0);
    f.vel = Vec3::new(0.2, 0.1, 0.0);
    f.shift_y = 0.4;
    h.sync(a, 1, f);
    let r = last_relay(&h, b).frame;
    assert_eq!(r.pos, Vec3::new(101.0, 200.0, 10.0));
    assert_eq!((r.vel.x, r.vel.y), (0.0, 0.1));
    assert_eq!(r.shift_y, 0.0);
}

#[test]
fn a_frozen_player_keeps_no_keys_and_stays_near_its_anchor() {
    let (mut h, a, b) = two();
    h.freeze(a, true);
    let mut f = frame();
    f.keys = Keys::FORWARD;
    f.pos = Vec3::new(100.0, 210.0, 9.0);
    f.vel = Vec3::new(0.0, 0.2, 0.0);
    h.sync(a, 1, f);
    let r = last_relay(&h, b).frame;
    assert_eq!(r.keys, Keys::NONE);
    assert_eq!(r.pos, Vec3::new(100.0, 208.0, 9.0), "8 m, falling free");
    assert_eq!(r.vel, Vec3::ZERO);
    assert_eq!(h.get::<Body>(a).keys, Keys::NONE);
}

#[test]
fn death_releases_the_keys_on_the_next_server_pass() {
    let (_s, mut h, a) = scripted("death-keys");
    let mut f = frame();
    f.keys = Keys::AIM;
    h.sync(a, 1, f);
    assert_eq!(h.take_chat_lines(a), ["key aim true"]);
    h.steps(3);
    h.die(a);
    h.steps(4);
    assert_eq!(
        h.take_chat_lines(a),
        ["key aim false", "state dead on_foot"]
    );
    assert_eq!(h.get::<Body>(a).keys, Keys::NONE);
}

#[test]
fn freezing_releases_the_keys_on_the_next_server_pass_and_unfreezing_restores_nothing() {
    let (_s, mut h, a) = scripted("freeze-keys");
    let mut f = frame();
    f.keys = Keys::AIM | Keys::FORWARD;
    h.sync(a, 1, f);
    assert_eq!(h.take_chat_lines(a), ["key forward true", "key aim true"]);
    h.steps(3);
    h.freeze(a, true);
    h.steps(4);
    assert_eq!(
        h.take_chat_lines(a),
        ["key forward false", "key aim false"],
        "once, without a frame"
    );
    assert_eq!(h.get::<Body>(a).keys, Keys::NONE);
    h.freeze(a, false);
    h.steps(4);
    assert!(
        h.take_chat_lines(a).is_empty(),
        "nothing until a fresh frame"
    );
    assert_eq!(h.get::<Body>(a).keys, Keys::NONE);
    h.sync(a, 2, f);
    assert_eq!(h.take_chat_lines(a), ["key forward true", "key aim true"]);
}

#[test]
fn new_bounds_that_leave_the_body_outside_start_the_check_from_the_edge() {
    use dlmp::player::bounds::SetBounds;
    use dlmp::player::frame::Bounds;
    let (mut h, a, _) = two();
    h.sync(a, 1, frame());
    let bounds = SetBounds {
        player: h.entity(a),
        bounds: Some(Bounds {
            min_x: 500.0,
            min_y: 0.0,
            max_x: 600.0,
            max_y: 400.0,
        }),
    };
    h.world_mut().write_message(bounds);
    h.step();
    let mut f = frame();
    f.pos = Vec3::new(500.0, 200.0, 10.0);
    h.sync(a, 2, f);
    assert_eq!(h.get::<Position>(a).0, f.pos, "on the edge, not 400 m away");
}

/// Alice (scripted) and Bob 15 m ahead of her along +x, shown to her.
fn aim_pair(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let (s, mut h, a) = scripted(test);
    let b = h.connect("bob");
    h.step();
    h.request_spawn(b);
    h.steps(4);
    let mut fb = frame();
    fb.pos = Vec3::new(115.0, 200.0, 10.0);
    h.sync(b, 1, fb);
    assert!(h.is_shown(b, a), "15 m apart: streaming shows Bob");
    h.take_chat_lines(a);
    (s, h, a, b)
}

/// What `player:target()` reads for `a` now.
fn target_of(h: &mut Harness, a: ClientId) -> Vec<String> {
    h.chat(a, "/target");
    h.steps(2);
    h.take_chat_lines(a)
}

#[test]
fn an_aim_target_is_accepted_near_the_camera_ray_and_checked_again_on_reading() {
    let (_s, mut h, a, b) = aim_pair("aim");
    let target = |h: &mut Harness| target_of(h, a);
    let mut f = frame();
    f.aim_target = u16::try_from(h.player_id(b).0).expect("a small id");
    h.sync(a, 1, f);
    assert_eq!(target(&mut h), ["target bob"], "on the ray");

    // A hide and a show with no move between them: nothing but a write produces them.
    h.with::<Viewers>(b, |v| v.0.clear());
    assert_eq!(target(&mut h), ["target none"], "no longer shown");
    h.show(b, a);
    assert_eq!(target(&mut h), ["target bob"]);

    f.cam = Vec3::new(0.0, 1.0, 0.0);
    h.sync(a, 2, f);
    assert_eq!(target(&mut h), ["target none"], "15 m off the ray");

    f.cam = Vec3::new(1.0, 0.0, 0.0);
    f.paused = true;
    h.sync(a, 3, f);
    h.take_chat_lines(a);
    assert_eq!(
        target(&mut h),
        ["target none"],
        "a paused sender has no target"
    );
}

#[test]
fn a_fast_target_widens_the_aim_reach_by_half_a_second_of_its_speed() {
    let (_s, mut h, a, b) = aim_pair("aim-speed");
    let mut f = frame();
    f.aim_target = u16::try_from(h.player_id(b).0).expect("a small id");
    f.cam = Vec3::new(0.0, 1.0, 0.0);
    // 15 m off the ray: 10 m + 12 m/s × 0.5 s reaches it.
    // Bob's own frames carry his velocity, in units per 1/50 s step (player.md, vel).
    let mut fb = frame();
    fb.pos = Vec3::new(115.0, 200.0, 10.0);
    fb.vel = Vec3::new(0.0, 0.24, 0.0);
    h.sync(b, 2, fb);
    h.sync(a, 1, f);
    assert_eq!(target_of(&mut h, a), ["target bob"]);
    // 10 m + 8 m/s × 0.5 s does not.
    fb.vel = Vec3::new(0.0, 0.16, 0.0);
    h.sync(b, 3, fb);
    h.sync(a, 2, f);
    assert_eq!(target_of(&mut h, a), ["target none"]);
}

#[test]
fn the_aim_target_needs_a_living_target_and_a_sender_in_control() {
    let (_s, mut h, a, b) = aim_pair("aim-life");
    let mut f = frame();
    f.aim_target = u16::try_from(h.player_id(b).0).expect("a small id");
    h.sync(a, 1, f);
    assert_eq!(target_of(&mut h, a), ["target bob"]);

    h.die(b);
    assert_eq!(
        target_of(&mut h, a),
        ["target none"],
        "checked again on reading"
    );
    h.sync(a, 2, f);
    assert_eq!(
        target_of(&mut h, a),
        ["target none"],
        "a dead target is refused"
    );
    h.respawn(b);
    h.live(b);
    h.sync(a, 3, f);
    assert_eq!(target_of(&mut h, a), ["target bob"]);

    // The chat limit: five lines a second.
    h.advance(std::time::Duration::from_secs(1));
    h.freeze(a, true);
    h.sync(a, 4, f);
    assert_eq!(target_of(&mut h, a), ["target none"], "a frozen sender");
    h.freeze(a, false);
    h.sync(a, 5, f);
    assert_eq!(target_of(&mut h, a), ["target bob"]);

    // The target is remembered with its generation: a newcomer in the same slot is not it.
    h.advance(std::time::Duration::from_secs(1));
    h.disconnect(b);
    h.steps(2);
    let c = h.connect("carol");
    h.step();
    h.request_spawn(c);
    h.steps(4);
    assert_eq!(h.player_id(c), h.player_id(b), "the slot is reused");
    assert!(h.get::<Life>(c).alive);
    assert!(h.is_shown(c, a));
    h.take_chat_lines(a);
    assert_eq!(target_of(&mut h, a), ["target none"]);
}

#[test]
fn a_continuous_weapon_spends_ten_rounds_a_second_of_fire_held() {
    let (_s, mut h, a, _) = armed("spray");
    give(&mut h, a, 37, 100);
    let mut f = frame();
    f.weapon = 37;
    f.total = 100;
    f.weapon_rev = Revision(1);
    f.keys = Keys::FIRE;
    for seq in 1..=11 {
        h.sync(a, seq, f);
        h.steps(4);
    }
    let ammo = h.get::<Inventory>(a).ammo[37];
    assert!((85..=90).contains(&ammo), "{ammo}");
    f.keys = Keys::NONE;
    h.sync(a, 12, f);
    h.advance(std::time::Duration::from_secs(1));
    h.sync(a, 13, f);
    assert_eq!(h.get::<Inventory>(a).ammo[37], ammo, "nothing without fire");
}

#[test]
fn a_frozen_player_rises_at_most_3_m_above_its_anchor_and_falls_free() {
    let (mut h, a, b) = two();
    h.freeze(a, true);
    let mut f = frame();
    f.pos = Vec3::new(100.0, 202.0, 11.5);
    f.vel = Vec3::new(0.0, 0.0, 0.1);
    f.on_ground = false;
    h.sync(a, 1, f);
    let r = last_relay(&h, b).frame;
    assert_eq!(r.pos, f.pos, "within 8 m and 3 m up: taken as sent");
    assert_eq!(r.vel, f.vel);

    h.steps(50);
    f.pos = Vec3::new(100.0, 202.0, 14.0);
    h.sync(a, 2, f);
    let r = last_relay(&h, b).frame;
    assert_eq!(r.pos, Vec3::new(100.0, 202.0, 13.0), "3 m above the anchor");
    assert_eq!(r.vel, Vec3::ZERO, "on the boundary");
    assert_eq!(h.get::<Position>(a).0, r.pos);

    h.steps(50);
    f.pos = Vec3::new(100.0, 202.0, 4.0);
    f.vel = Vec3::new(0.0, 0.0, -0.3);
    h.sync(a, 3, f);
    let r = last_relay(&h, b).frame;
    assert_eq!(r.pos, f.pos, "falling is free");
    assert_eq!(r.vel, f.vel);
}

/// Sends `per_tick[i]` PlayerSync frames from `c` in tick `i`, each a step along x, with
/// seqs from `seq`; the next seq.
fn burst_frames(h: &mut Harness, c: ClientId, mut seq: u32, per_tick: &[usize]) -> u32 {
    for &n in per_tick {
        for _ in 0..n {
            let x = SPAWN.x + (seq % 200) as f32 * 0.01;
            let packet = dlmp::protocol::player::sync::PlayerSync {
                session_token: h.token(c),
                seq: Seq(seq),
                frame: Frame::standing(Vec3::new(x, SPAWN.y, SPAWN.z)),
            };
            h.send(c, packet);
            seq += 1;
        }
        h.step();
    }
    seq
}

#[test]
fn three_hundred_frames_a_second_are_cut_to_the_frame_rate_and_the_sender_stays() {
    let (mut h, a, b) = two();
    let seq = h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
    let before = h.world().resource::<FrameDrops>().rate_limited;
    // One second at the default tick (50 Hz): 6 frames a tick is 300 a second.
    let ticks = (Duration::from_secs(1).as_millis() / h.tick().as_millis()) as usize;
    assert_eq!(ticks, 50, "the default tick");
    burst_frames(&mut h, a, seq, &vec![6; ticks]);
    let relayed = h.packets::<RemotePlayerSync>(b).len();
    // 35 at once and 70 a second: at most 105 in the first second.
    assert!(
        (70..=106).contains(&relayed),
        "relayed {relayed} of 300 frames in one second"
    );
    let dropped = h.world().resource::<FrameDrops>().rate_limited - before;
    assert_eq!(
        dropped as usize + relayed,
        300,
        "every frame relayed or counted"
    );
    assert!(
        h.packets::<dlmp::protocol::connection::handshake::ServerDisconnect>(a)
            .is_empty(),
        "a burst never ends the session"
    );
    // Back to an honest rate, every frame goes through again.
    h.clear(b);
    let seq = h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
    h.advance(Duration::from_secs(1));
    burst_frames(&mut h, a, seq, &[1; 25]);
    assert_eq!(h.packets::<RemotePlayerSync>(b).len(), 25);
}

#[test]
fn an_honest_client_at_its_fastest_with_jitter_is_never_cut() {
    let (mut h, a, b) = two();
    let seq = h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
    let before = h.world().resource::<FrameDrops>().rate_limited;
    // A frame every 16 ms (62.5 a second, player.md's sampling) for 5 s, 1 or 2 a 20 ms
    // tick; from the second second on, each second's frames of 300 ms are held back by the
    // network and arrive together with the next tick's.
    let mut per_tick = Vec::new();
    let mut owed = 0.0f32;
    for second in 0..5 {
        let mut held = 0;
        for tick in 0..50 {
            owed += 20.0 / 16.0;
            let n = owed.floor() as usize;
            owed -= n as f32;
            if second > 0 && (10..25).contains(&tick) {
                held += n;
                per_tick.push(0);
            } else {
                per_tick.push(n + std::mem::take(&mut held));
            }
        }
    }
    let sent: usize = per_tick.iter().sum();
    assert_eq!(sent, 312, "62.5 a second for 5 s");
    burst_frames(&mut h, a, seq, &per_tick);
    assert_eq!(h.world().resource::<FrameDrops>().rate_limited - before, 0);
    assert_eq!(
        h.packets::<RemotePlayerSync>(b).len(),
        sent,
        "every frame relayed"
    );
}
