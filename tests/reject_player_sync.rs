//! player.md, sync, streaming and life cycle: every packet refuses a wrong length and each
//! range, enum, finiteness and combination rule the page states for it; what the server
//! clamps or maps (rather than drops) decodes.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::*;
use dlmp::protocol::player::action::SpecialAction;
use dlmp::protocol::player::life::*;
use dlmp::protocol::player::samples::{life as l, streaming as st, sync as s};
use dlmp::protocol::player::sync::*;
use rstest::rstest;
use support::*;

/// `valid` changed by `mutate` decodes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(valid: &P, mutate: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    mutate(&mut p);
    assert_eq!(P::decode(&raw(&p)).as_ref(), Ok(&p));
    assert!(p.to_bytes().is_ok(), "encoding must succeed: {p:?}");
}

/// Offset of a Frame field inside packet `P`.
#[track_caller]
fn frame<P: Packet>(field: &str) -> usize {
    offset::<P>("frame") + Frame::offset_of(field).expect("a Frame field")
}

/// Offset of a component of a top-level Vec3 field of packet `P`.
#[track_caller]
fn vec_at<P: Packet>(field: &str, axis: &str) -> usize {
    offset::<P>(field) + Vec3::offset_of(axis).expect("x, y or z")
}

/// Offset of a Vec3 component of a Frame field inside packet `P`.
#[track_caller]
fn frame_vec<P: Packet>(field: &str, axis: &str) -> usize {
    frame::<P>(field) + Vec3::offset_of(axis).expect("x, y or z")
}

/// The remote sample without its jetpack: every jet_* field 0.
fn remote_on_foot() -> RemotePlayerSync {
    let mut p = s::remote_player_sync();
    p.frame.special_action = SpecialAction::None;
    p.frame.jet_thrust = 0;
    p.frame.jet_stop = false;
    p.frame.jet_strafe = 0.0;
    p.frame.jet_angle = 0.0;
    p
}

#[rstest]
#[case::player_sync(|| assert_exact_length(&s::player_sync()))]
#[case::remote_player_sync(|| assert_exact_length(&s::remote_player_sync()))]
#[case::player_stream_out(|| assert_exact_length(&st::player_stream_out()))]
#[case::scope_changed(|| assert_exact_length(&st::scope_changed()))]
#[case::respawn_request(|| assert_exact_length(&l::respawn_request()))]
#[case::respawn_player(|| assert_exact_length(&l::respawn_player()))]
#[case::death_report(|| assert_exact_length(&l::death_report()))]
#[case::player_wasted(|| assert_exact_length(&l::player_wasted()))]
#[case::player_spawned(|| assert_exact_length(&l::player_spawned()))]
#[case::request_spawn(|| assert_exact_length(&l::request_spawn()))]
#[case::spawn_player(|| assert_exact_length(&l::spawn_player()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[test]
fn the_frame_is_102_bytes() {
    assert_eq!(raw(&s::player_sync()).len(), 1 + 8 + 4 + 102);
    assert_eq!(offset::<RemotePlayerSync>("skin"), 1 + 4 + 4 + 4 + 102);
}

// PlayerSync (0x03)

#[rstest]
#[case::x_east(|p: &mut PlayerSync| p.frame.pos.x = 6000.5, "x", Range)]
#[case::x_west(|p: &mut PlayerSync| p.frame.pos.x = -6000.5, "x", Range)]
#[case::y_north(|p: &mut PlayerSync| p.frame.pos.y = 6001.0, "y", Range)]
#[case::y_south(|p: &mut PlayerSync| p.frame.pos.y = -7000.0, "y", Range)]
#[case::z_below(|p: &mut PlayerSync| p.frame.pos.z = -200.5, "z", Range)]
#[case::z_above(|p: &mut PlayerSync| p.frame.pos.z = 4000.5, "z", Range)]
#[case::parachute_4(|p: &mut PlayerSync| p.frame.parachute_stage = 4, "parachute_stage", Enum)]
#[case::parachute_255(|p: &mut PlayerSync| p.frame.parachute_stage = 255, "parachute_stage", Enum)]
#[case::jet_thrust_2(|p: &mut PlayerSync| p.frame.jet_thrust = 2, "jet_thrust", Range)]
#[case::jet_thrust_minus_2(|p: &mut PlayerSync| p.frame.jet_thrust = -2, "jet_thrust", Range)]
fn player_sync_rejects(
    #[case] m: fn(&mut PlayerSync),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::player_sync(), m, field, kind);
}

#[rstest]
#[case::special_action_9("special_action", 9)]
#[case::move_state_2("move_state", 2)]
#[case::move_state_3("move_state", 3)]
#[case::move_state_8("move_state", 8)]
#[case::ducked_2("ducked", 2)]
#[case::on_ground_2("on_ground", 2)]
#[case::alive_2("alive", 2)]
#[case::paused_2("paused", 2)]
#[case::on_fire_2("on_fire", 2)]
#[case::jet_stop_2("jet_stop", 2)]
fn player_sync_rejects_unknown_bytes(#[case] field: &str, #[case] value: u8) {
    assert_rejects_bytes(
        &s::player_sync(),
        frame::<PlayerSync>(field),
        &[value],
        field,
        Enum,
    );
}

#[rstest]
#[case::pos_x(frame_vec::<PlayerSync>("pos", "x"), NAN, "x")]
#[case::pos_z(frame_vec::<PlayerSync>("pos", "z"), INF, "z")]
#[case::yaw(frame::<PlayerSync>("yaw"), NAN, "yaw")]
#[case::cam_y(frame_vec::<PlayerSync>("cam", "y"), NAN, "y")]
#[case::vel_z(frame_vec::<PlayerSync>("vel", "z"), INF, "z")]
#[case::shift_x(frame::<PlayerSync>("shift_x"), NAN, "shift_x")]
#[case::shift_y(frame::<PlayerSync>("shift_y"), INF, "shift_y")]
#[case::hp(frame::<PlayerSync>("hp"), NAN, "hp")]
#[case::armor(frame::<PlayerSync>("armor"), INF, "armor")]
#[case::cam_yaw(frame::<PlayerSync>("cam_yaw"), NAN, "cam_yaw")]
#[case::jet_strafe(frame::<PlayerSync>("jet_strafe"), NAN, "jet_strafe")]
#[case::jet_angle(frame::<PlayerSync>("jet_angle"), INF, "jet_angle")]
fn player_sync_rejects_non_finite(#[case] at: usize, #[case] bits: [u8; 4], #[case] field: &str) {
    assert_rejects_bytes(&s::player_sync(), at, &bits, field, NonFinite);
}

#[rstest]
#[case::world_corner(|p: &mut PlayerSync| p.frame.pos = Vec3::new(-6000.0, 6000.0, 4000.0))]
#[case::world_floor(|p: &mut PlayerSync| p.frame.pos = Vec3::new(6000.0, -6000.0, -200.0))]
#[case::parachute_canopy(|p: &mut PlayerSync| p.frame.parachute_stage = 3)]
#[case::special_action_carry(|p: &mut PlayerSync| p.frame.special_action = SpecialAction::Carry)]
#[case::jet_thrust_down(|p: &mut PlayerSync| p.frame.jet_thrust = -1)]
#[case::jet_thrust_up(|p: &mut PlayerSync| p.frame.jet_thrust = 1)]
// Mapped or clamped by the server, not dropped:
#[case::state_above_4(|p: &mut PlayerSync| p.frame.state = 5)]
#[case::state_255(|p: &mut PlayerSync| p.frame.state = 255)]
#[case::hp_above_200(|p: &mut PlayerSync| p.frame.hp = 250.0)]
#[case::hp_negative(|p: &mut PlayerSync| p.frame.hp = -12.0)]
#[case::armor_above_200(|p: &mut PlayerSync| p.frame.armor = 300.0)]
#[case::dead_with_hp_0(|p: &mut PlayerSync| { p.frame.alive = true; p.frame.hp = 0.0 })]
#[case::unused_key_bits(|p: &mut PlayerSync| p.frame.keys = Keys(0xFFFF))]
#[case::keys_while_paused(|p: &mut PlayerSync| p.frame.paused = true)]
#[case::fast_vel(|p: &mut PlayerSync| p.frame.vel = Vec3::new(9.0, -4.0, 2.0))]
#[case::wide_jet_strafe(|p: &mut PlayerSync| p.frame.jet_strafe = 7.5)]
#[case::wide_jet_angle(|p: &mut PlayerSync| p.frame.jet_angle = -3.0)]
#[case::jet_without_jetpack(|p: &mut PlayerSync| { p.frame.jet_thrust = 1; p.frame.jet_stop = true })]
#[case::zero_cam(|p: &mut PlayerSync| p.frame.cam = Vec3::ZERO)]
#[case::unknown_weapon(|p: &mut PlayerSync| p.frame.weapon = 200)]
#[case::no_aim_target(|p: &mut PlayerSync| p.frame.aim_target = NO_AIM_TARGET)]
fn player_sync_accepts(#[case] m: fn(&mut PlayerSync)) {
    assert_accepts(&s::player_sync(), m);
}

#[test]
fn owner_state_above_4_reads_as_ready() {
    let mut p = s::player_sync();
    p.frame.state = 9;
    assert_eq!(p.frame.weapon_state(), WeaponState::Ready);
    p.frame.state = 2;
    assert_eq!(p.frame.weapon_state(), WeaponState::Reloading);
}

// RemotePlayerSync (0x04)

#[rstest]
#[case::token_zero(|p: &mut RemotePlayerSync| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::key_bit_9(|p: &mut RemotePlayerSync| p.frame.keys = Keys(1 << 9), "keys", Reserved)]
#[case::key_bit_15(|p: &mut RemotePlayerSync| p.frame.keys = Keys::FIRE | Keys(1 << 15), "keys", Reserved)]
#[case::keys_while_paused(|p: &mut RemotePlayerSync| p.frame.paused = true, "keys", Combination)]
#[case::vel_over_cap(|p: &mut RemotePlayerSync| p.frame.vel = Vec3::new(5.01, 0.0, 0.0), "vel", Range)]
#[case::vel_length_over_cap(|p: &mut RemotePlayerSync| p.frame.vel = Vec3::new(3.0, 4.0, 0.1), "vel", Range)]
#[case::hp_above_200(|p: &mut RemotePlayerSync| p.frame.hp = 200.5, "hp", Range)]
#[case::hp_negative(|p: &mut RemotePlayerSync| p.frame.hp = -1.0, "hp", Range)]
#[case::armor_above_200(|p: &mut RemotePlayerSync| p.frame.armor = 201.0, "armor", Range)]
#[case::armor_negative(|p: &mut RemotePlayerSync| p.frame.armor = -0.5, "armor", Range)]
#[case::alive_with_hp_0(|p: &mut RemotePlayerSync| p.frame.hp = 0.0, "hp", Combination)]
#[case::weapon_47(|p: &mut RemotePlayerSync| p.frame.weapon = 47, "weapon", Range)]
#[case::state_5(|p: &mut RemotePlayerSync| p.frame.state = 5, "state", Enum)]
#[case::jet_thrust_2(|p: &mut RemotePlayerSync| p.frame.jet_thrust = 2, "jet_thrust", Range)]
#[case::jet_strafe_over(|p: &mut RemotePlayerSync| p.frame.jet_strafe = 3.01, "jet_strafe", Range)]
#[case::jet_strafe_under(|p: &mut RemotePlayerSync| p.frame.jet_strafe = -3.5, "jet_strafe", Range)]
#[case::jet_angle_over(|p: &mut RemotePlayerSync| p.frame.jet_angle = 1.51, "jet_angle", Range)]
#[case::jet_angle_under(|p: &mut RemotePlayerSync| p.frame.jet_angle = -2.0, "jet_angle", Range)]
#[case::aim_target_set(|p: &mut RemotePlayerSync| p.frame.aim_target = 12, "aim_target", Reserved)]
#[case::physics_rev_set(|p: &mut RemotePlayerSync| p.frame.physics_rev = Revision(1), "physics_rev", Reserved)]
#[case::vital_rev_set(|p: &mut RemotePlayerSync| p.frame.vital_rev = Revision(4), "vital_rev", Reserved)]
#[case::damage_seq_set(|p: &mut RemotePlayerSync| p.frame.damage_seq = Seq(9), "damage_seq", Reserved)]
#[case::variant_0(|p: &mut RemotePlayerSync| p.variant = 0, "variant", Range)]
#[case::teammate_without_group(|p: &mut RemotePlayerSync| p.damage_group = 0, "teammate", Combination)]
#[case::gravity_over(|p: &mut RemotePlayerSync| p.gravity = 0.11, "gravity", Range)]
#[case::gravity_under(|p: &mut RemotePlayerSync| p.gravity = -0.2, "gravity", Range)]
fn remote_player_sync_rejects(
    #[case] m: fn(&mut RemotePlayerSync),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::remote_player_sync(), m, field, kind);
}

#[rstest]
#[case::jet_thrust(|p: &mut RemotePlayerSync| p.frame.jet_thrust = -1, "jet_thrust")]
#[case::jet_stop(|p: &mut RemotePlayerSync| p.frame.jet_stop = true, "jet_stop")]
#[case::jet_strafe(|p: &mut RemotePlayerSync| p.frame.jet_strafe = 0.5, "jet_strafe")]
#[case::jet_angle_negative_zero(|p: &mut RemotePlayerSync| p.frame.jet_angle = -0.0, "jet_angle")]
fn remote_player_sync_without_jetpack_has_zero_jet_fields(
    #[case] m: fn(&mut RemotePlayerSync),
    #[case] field: &str,
) {
    assert_rejects(&remote_on_foot(), m, field, Reserved);
}

#[rstest]
#[case::special_action_9(frame::<RemotePlayerSync>("special_action"), 9, "special_action")]
#[case::move_state_3(frame::<RemotePlayerSync>("move_state"), 3, "move_state")]
#[case::alive_2(frame::<RemotePlayerSync>("alive"), 2, "alive")]
#[case::on_fire_2(frame::<RemotePlayerSync>("on_fire"), 2, "on_fire")]
#[case::headless_2(offset::<RemotePlayerSync>("headless"), 2, "headless")]
#[case::teammate_2(offset::<RemotePlayerSync>("teammate"), 2, "teammate")]
fn remote_player_sync_rejects_unknown_bytes(
    #[case] at: usize,
    #[case] value: u8,
    #[case] field: &str,
) {
    assert_rejects_bytes(&s::remote_player_sync(), at, &[value], field, Enum);
}

#[rstest]
#[case::gravity_nan(offset::<RemotePlayerSync>("gravity"), NAN, "gravity")]
#[case::gravity_inf(offset::<RemotePlayerSync>("gravity"), INF, "gravity")]
#[case::hp(frame::<RemotePlayerSync>("hp"), NAN, "hp")]
#[case::pos_y(frame_vec::<RemotePlayerSync>("pos", "y"), NAN, "y")]
#[case::cam_x(frame_vec::<RemotePlayerSync>("cam", "x"), INF, "x")]
#[case::jet_angle(frame::<RemotePlayerSync>("jet_angle"), NAN, "jet_angle")]
fn remote_player_sync_rejects_non_finite(
    #[case] at: usize,
    #[case] bits: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&s::remote_player_sync(), at, &bits, field, NonFinite);
}

#[rstest]
#[case::hp_200(|p: &mut RemotePlayerSync| { p.frame.hp = 200.0; p.frame.armor = 200.0 })]
#[case::dead_with_hp_0(|p: &mut RemotePlayerSync| { p.frame.alive = false; p.frame.hp = 0.0 })]
#[case::weapon_46(|p: &mut RemotePlayerSync| p.frame.weapon = 46)]
#[case::unarmed(|p: &mut RemotePlayerSync| p.frame.weapon = 0)]
#[case::state_4(|p: &mut RemotePlayerSync| p.frame.state = 4)]
#[case::all_named_keys(|p: &mut RemotePlayerSync| p.frame.keys = Keys::KNOWN)]
#[case::paused_without_keys(|p: &mut RemotePlayerSync| { p.frame.paused = true; p.frame.keys = Keys::NONE })]
#[case::vel_at_cap(|p: &mut RemotePlayerSync| p.frame.vel = Vec3::new(3.0, -4.0, 0.0))]
#[case::vel_scaled_to_cap(|p: &mut RemotePlayerSync| {
    let v = Vec3::new(1.3, -2.9, 0.7);
    let k = MAX_RELAY_VEL / v.length();
    p.frame.vel = Vec3::new(v.x * k, v.y * k, v.z * k);
})]
#[case::jet_edges_high(|p: &mut RemotePlayerSync| { p.frame.jet_strafe = 3.0; p.frame.jet_angle = 1.5 })]
#[case::jet_edges_low(|p: &mut RemotePlayerSync| { p.frame.jet_strafe = -3.0; p.frame.jet_angle = -1.5 })]
#[case::gravity_high(|p: &mut RemotePlayerSync| p.gravity = 0.1)]
#[case::gravity_low(|p: &mut RemotePlayerSync| p.gravity = -0.1)]
#[case::variant_1(|p: &mut RemotePlayerSync| p.variant = 1)]
#[case::not_teammate_without_group(|p: &mut RemotePlayerSync| { p.teammate = false; p.damage_group = 0 })]
// A receiver treats a parachute_stage above 3 as 0 and skips unknown styles on apply.
#[case::parachute_above_3(|p: &mut RemotePlayerSync| p.frame.parachute_stage = 200)]
#[case::unknown_walk_style(|p: &mut RemotePlayerSync| p.walk_style = 255)]
#[case::unknown_fight_style(|p: &mut RemotePlayerSync| p.fight_style = 9)]
fn remote_player_sync_accepts(#[case] m: fn(&mut RemotePlayerSync)) {
    assert_accepts(&s::remote_player_sync(), m);
}

#[test]
fn remote_player_sync_on_foot_accepts_zero_jet_fields() {
    assert_accepts(&remote_on_foot(), |_| {});
}

#[test]
fn relayed_parachute_stage_above_3_reads_as_none() {
    let mut p = s::remote_player_sync();
    p.frame.parachute_stage = 4;
    assert_eq!(p.frame.parachute(), ParachuteStage::None);
    p.frame.parachute_stage = 2;
    assert_eq!(p.frame.parachute(), ParachuteStage::Open);
}

// PlayerStreamOut (0x45), ScopeChanged (0x5D)

#[test]
fn player_stream_out_rejects_token_zero() {
    assert_rejects(
        &st::player_stream_out(),
        |p| p.player_token = PlayerToken(0),
        "player_token",
        Range,
    );
}

#[test]
fn player_stream_out_accepts_no_frame_and_no_shot() {
    assert_accepts(&st::player_stream_out(), |p| {
        p.last_seq = Seq(0);
        p.last_shot_order = Seq(0);
    });
}

#[test]
fn scope_changed_accepts_a_wrapped_event_id() {
    assert_accepts(&st::scope_changed(), |p| p.event_id = EventId(0));
}

// RespawnPlayer (0x0D), SpawnPlayer (0x2A)

#[rstest]
#[case::area_negative(|p: &mut RespawnPlayer| p.area = -1, "area", Range)]
#[case::area_256(|p: &mut RespawnPlayer| p.area = 256, "area", Range)]
fn respawn_player_rejects(
    #[case] m: fn(&mut RespawnPlayer),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&l::respawn_player(), m, field, kind);
}

#[rstest]
#[case::spawn_x(vec_at::<RespawnPlayer>("spawn", "x"), NAN, "x")]
#[case::spawn_z(vec_at::<RespawnPlayer>("spawn", "z"), INF, "z")]
#[case::heading(offset::<RespawnPlayer>("heading"), NAN, "heading")]
fn respawn_player_rejects_non_finite(
    #[case] at: usize,
    #[case] bits: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&l::respawn_player(), at, &bits, field, NonFinite);
}

#[rstest]
#[case::outside(|p: &mut RespawnPlayer| p.area = 0)]
#[case::area_255(|p: &mut RespawnPlayer| p.area = 255)]
fn respawn_player_accepts(#[case] m: fn(&mut RespawnPlayer)) {
    assert_accepts(&l::respawn_player(), m);
}

#[rstest]
#[case::area_negative(|p: &mut SpawnPlayer| p.area = -1, "area", Range)]
#[case::area_256(|p: &mut SpawnPlayer| p.area = 256, "area", Range)]
#[case::variant_0(|p: &mut SpawnPlayer| p.variant = 0, "variant", Range)]
fn spawn_player_rejects(
    #[case] m: fn(&mut SpawnPlayer),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&l::spawn_player(), m, field, kind);
}

#[rstest]
#[case::spawn_y(vec_at::<SpawnPlayer>("spawn", "y"), NAN, "y")]
#[case::heading(offset::<SpawnPlayer>("heading"), INF, "heading")]
fn spawn_player_rejects_non_finite(#[case] at: usize, #[case] bits: [u8; 4], #[case] field: &str) {
    assert_rejects_bytes(&l::spawn_player(), at, &bits, field, NonFinite);
}

#[rstest]
#[case::outside(|p: &mut SpawnPlayer| p.area = 0)]
#[case::area_255(|p: &mut SpawnPlayer| p.area = 255)]
#[case::variant_1(|p: &mut SpawnPlayer| p.variant = 1)]
fn spawn_player_accepts(#[case] m: fn(&mut SpawnPlayer)) {
    assert_accepts(&l::spawn_player(), m);
}

// DeathReport (0x1B), PlayerWasted (0x1C), PlayerSpawned (0x1D)

#[test]
fn death_report_decodes_a_pose_the_game_does_not_produce() {
    // The server replaces it with the default pose; it does not drop the death.
    assert_accepts(&l::death_report(), |p| {
        p.weapon = 200;
        p.anim_group = 5;
        p.anim = 999;
    });
    let mut p = l::death_report();
    p.weapon = 55;
    assert_eq!(p.pose().or_default(), DeathPose::DEFAULT);
    assert_eq!(
        l::death_report().pose().or_default(),
        l::death_report().pose()
    );
}

#[test]
fn player_wasted_rejects_token_zero() {
    assert_rejects(
        &l::player_wasted(),
        |p| p.player_token = PlayerToken(0),
        "player_token",
        Range,
    );
}

#[test]
fn player_wasted_decodes_a_pose_the_game_does_not_produce() {
    // A receiver replaces it with the default pose.
    assert_accepts(&l::player_wasted(), |p| {
        p.anim_group = 33;
        p.anim = 15;
    });
}

#[test]
fn player_spawned_rejects_token_zero() {
    assert_rejects(
        &l::player_spawned(),
        |p| p.player_token = PlayerToken(0),
        "player_token",
        Range,
    );
}

#[rstest]
#[case::spawn_x(vec_at::<PlayerSpawned>("spawn", "x"), NAN, "x")]
#[case::spawn_z(vec_at::<PlayerSpawned>("spawn", "z"), INF, "z")]
#[case::heading(offset::<PlayerSpawned>("heading"), NAN, "heading")]
fn player_spawned_rejects_non_finite(
    #[case] at: usize,
    #[case] bits: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&l::player_spawned(), at, &bits, field, NonFinite);
}

#[test]
fn a_client_packet_is_not_its_servers_answer() {
    let bytes = raw(&l::request_spawn());
    assert_eq!(
        SpawnPlayer::decode(&bytes).unwrap_err().kind(),
        UnknownPacket
    );
    assert_eq!(
        RespawnRequest::decode(&bytes).unwrap_err().kind(),
        UnknownPacket
    );
}
