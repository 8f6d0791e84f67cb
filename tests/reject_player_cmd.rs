//! player.md, the server's commands to a player (PlayerSkills .. SetAnimationSpeed): every
//! packet refuses a wrong length and each range, enum, finiteness and combination rule the
//! page states for it, and takes the boundary values.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::*;
use dlmp::protocol::player::action::SpecialAction;
use dlmp::protocol::player::animation::*;
use dlmp::protocol::player::appearance::*;
use dlmp::protocol::player::control::*;
use dlmp::protocol::player::hud::*;
use dlmp::protocol::player::physics::*;
use dlmp::protocol::player::samples::{
    animation as anim, appearance as look, control as ctl, hud, physics as phys,
};
use dlmp::protocol::text::FixedText;
use rstest::rstest;
use support::*;

/// `p` decodes from its own bytes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(p: &P) {
    assert_eq!(P::decode(&raw(p)).as_ref(), Ok(p));
    assert!(p.to_bytes().is_ok(), "{} must encode: {p:?}", P::NAME);
}

/// `valid` changed by `m` is still valid.
#[track_caller]
fn assert_accepts_with<P: Packet>(valid: &P, m: fn(&mut P)) {
    let mut p = valid.clone();
    m(&mut p);
    assert_accepts(&p);
}

fn text(s: &str) -> FixedText<32> {
    FixedText::new(s).expect("fits 32 bytes")
}

#[rstest]
#[case::player_skills(|| assert_exact_length(&look::player_skills()))]
#[case::set_skin(|| assert_exact_length(&look::set_skin()))]
#[case::set_walking_style(|| assert_exact_length(&look::set_walking_style()))]
#[case::set_fighting_style(|| assert_exact_length(&look::set_fighting_style()))]
#[case::set_headless(|| assert_exact_length(&look::set_headless()))]
#[case::set_wanted(|| assert_exact_length(&hud::set_wanted()))]
#[case::set_money(|| assert_exact_length(&hud::set_money()))]
#[case::set_drunk_level(|| assert_exact_length(&hud::set_drunk_level()))]
#[case::set_player_stats(|| assert_exact_length(&hud::set_player_stats()))]
#[case::apply_animation(|| assert_exact_length(&anim::apply_animation()))]
#[case::clear_animations(|| assert_exact_length(&anim::clear_animations()))]
#[case::set_animation_progress(|| assert_exact_length(&anim::set_animation_progress()))]
#[case::set_animation_speed(|| assert_exact_length(&anim::set_animation_speed()))]
#[case::teleport_player(|| assert_exact_length(&ctl::teleport_player()))]
#[case::set_frozen(|| assert_exact_length(&ctl::set_frozen()))]
#[case::set_camera(|| assert_exact_length(&ctl::set_camera()))]
#[case::set_on_fire(|| assert_exact_length(&ctl::set_on_fire()))]
#[case::set_special_action(|| assert_exact_length(&ctl::set_special_action()))]
#[case::set_world_bounds(|| assert_exact_length(&ctl::set_world_bounds()))]
#[case::set_world_bounds_off(|| assert_exact_length(&ctl::set_world_bounds_off()))]
#[case::set_velocity(|| assert_exact_length(&phys::set_velocity()))]
#[case::set_gravity(|| assert_exact_length(&phys::set_gravity()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::player_skills(raw(&look::player_skills()).len(), 35)]
#[case::set_skin(raw(&look::set_skin()).len(), 11)]
#[case::set_walking_style(raw(&look::set_walking_style()).len(), 6)]
#[case::set_fighting_style(raw(&look::set_fighting_style()).len(), 6)]
#[case::set_headless(raw(&look::set_headless()).len(), 6)]
#[case::set_wanted(raw(&hud::set_wanted()).len(), 6)]
#[case::set_money(raw(&hud::set_money()).len(), 9)]
#[case::set_drunk_level(raw(&hud::set_drunk_level()).len(), 6)]
#[case::set_player_stats(raw(&hud::set_player_stats()).len(), 9)]
#[case::apply_animation(raw(&anim::apply_animation()).len(), 94)]
#[case::clear_animations(raw(&anim::clear_animations()).len(), 13)]
#[case::set_animation_progress(raw(&anim::set_animation_progress()).len(), 17)]
#[case::set_animation_speed(raw(&anim::set_animation_speed()).len(), 17)]
#[case::teleport_player(raw(&ctl::teleport_player()).len(), 26)]
#[case::set_frozen(raw(&ctl::set_frozen()).len(), 6)]
#[case::set_camera(raw(&ctl::set_camera()).len(), 51)]
#[case::set_on_fire(raw(&ctl::set_on_fire()).len(), 6)]
#[case::set_special_action(raw(&ctl::set_special_action()).len(), 8)]
#[case::set_world_bounds(raw(&ctl::set_world_bounds()).len(), 22)]
#[case::set_velocity(raw(&phys::set_velocity()).len(), 21)]
#[case::set_gravity(raw(&phys::set_gravity()).len(), 11)]
fn length_is_the_page_total(#[case] len: usize, #[case] total: usize) {
    assert_eq!(len, total);
}

// PlayerSkills

#[rstest]
#[case::token_zero(|p: &mut PlayerSkills| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::skill_1001(|p: &mut PlayerSkills| p.skills[4] = 1001, "skills", Range)]
#[case::skill_max(|p: &mut PlayerSkills| p.skills[10] = u16::MAX, "skills", Range)]
fn player_skills_rejects(
    #[case] m: fn(&mut PlayerSkills),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&look::player_skills(), m, field, kind);
}

#[rstest]
#[case::all_max(|p: &mut PlayerSkills| p.skills = [MAX_SKILL; 11])]
#[case::all_zero(|p: &mut PlayerSkills| p.skills = [0; 11])]
fn player_skills_accepts(#[case] m: fn(&mut PlayerSkills)) {
    assert_accepts_with(&look::player_skills(), m);
}

// SetSkin

#[test]
fn set_skin_rejects_variant_zero() {
    assert_rejects(&look::set_skin(), |p| p.variant = 0, "variant", Range);
}

#[rstest]
#[case::variant_one(|p: &mut SetSkin| p.variant = 1)]
#[case::default_model(|p: &mut SetSkin| p.model = 0)]
fn set_skin_accepts(#[case] m: fn(&mut SetSkin)) {
    assert_accepts_with(&look::set_skin(), m);
}

// SetWalkingStyle

#[rstest]
fn set_walking_style_rejects_ids_off_the_allowlist(#[values(1, 53, 71, 117, 139, 255)] style: u8) {
    assert_rejects(
        &look::set_walking_style(),
        |p| p.style = WalkingStyle(style),
        "style",
        Enum,
    );
}

#[rstest]
fn set_walking_style_accepts_the_allowlist_edges(#[values(0, 54, 70, 118, 127, 138)] style: u8) {
    let mut p = look::set_walking_style();
    p.style = WalkingStyle(style);
    assert_accepts(&p);
}

// SetFightingStyle

#[rstest]
fn set_fighting_style_rejects_unknown_styles(#[values(0, 3, 8, 14, 17, 255)] style: u8) {
    let at = offset::<SetFightingStyle>("style");
    assert_rejects_bytes(&look::set_fighting_style(), at, &[style], "style", Enum);
}

#[test]
fn set_fighting_style_accepts_every_style() {
    for &style in FightingStyle::ALL {
        let mut p = look::set_fighting_style();
        p.style = style;
        assert_accepts(&p);
    }
    assert_eq!(FightingStyle::ALL.len(), 6);
}

// The 0/1 flags: SetHeadless, SetFrozen, SetOnFire, TeleportPlayer.ground,
// SetWorldBounds.enabled.

#[rstest]
#[case::headless(|| assert_rejects_bytes(&look::set_headless(), offset::<SetHeadless>("headless"), &[2], "headless", Enum))]
#[case::frozen(|| assert_rejects_bytes(&ctl::set_frozen(), offset::<SetFrozen>("frozen"), &[2], "frozen", Enum))]
#[case::on_fire(|| assert_rejects_bytes(&ctl::set_on_fire(), offset::<SetOnFire>("on_fire"), &[0xFF], "on_fire", Enum))]
#[case::ground(|| assert_rejects_bytes(&ctl::teleport_player(), offset::<TeleportPlayer>("ground"), &[2], "ground", Enum))]
#[case::bounds_enabled(|| assert_rejects_bytes(&ctl::set_world_bounds(), offset::<SetWorldBounds>("enabled"), &[2], "enabled", Enum))]
#[case::target_present(|| assert_rejects_bytes(&ctl::set_camera(), offset::<SetCamera>("target_present"), &[2], "target_present", Enum))]
fn flag_bytes_are_0_or_1(#[case] check: fn()) {
    check();
}

// SetWanted, SetMoney, SetPlayerStats

#[rstest]
#[case::wanted_7(|| assert_rejects(&hud::set_wanted(), |p| p.level = 7, "level", Range))]
#[case::money_over(|| assert_rejects(&hud::set_money(), |p| p.amount = 1_000_000_000, "amount", Range))]
#[case::money_under(|| assert_rejects(&hud::set_money(), |p| p.amount = -1_000_000_000, "amount", Range))]
#[case::money_min(|| assert_rejects(&hud::set_money(), |p| p.amount = i32::MIN, "amount", Range))]
#[case::stamina_1001(|| assert_rejects(&hud::set_player_stats(), |p| p.stamina = 1001, "stamina", Range))]
#[case::lung_1001(|| assert_rejects(&hud::set_player_stats(), |p| p.lung_capacity = 1001, "lung_capacity", Range))]
fn hud_rejects(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::wanted_6(|| assert_accepts_with(&hud::set_wanted(), |p| p.level = MAX_WANTED))]
#[case::wanted_0(|| assert_accepts_with(&hud::set_wanted(), |p| p.level = 0))]
#[case::money_top(|| assert_accepts_with(&hud::set_money(), |p| p.amount = MAX_MONEY))]
#[case::money_bottom(|| assert_accepts_with(&hud::set_money(), |p| p.amount = -MAX_MONEY))]
#[case::drunk_255(|| assert_accepts_with(&hud::set_drunk_level(), |p| p.level = 255))]
#[case::stats_top(|| assert_accepts_with(&hud::set_player_stats(), |p| { p.stamina = MAX_STAT; p.lung_capacity = MAX_STAT; }))]
#[case::stats_zero(|| assert_accepts_with(&hud::set_player_stats(), |p| { p.stamina = 0; p.lung_capacity = 0; }))]
fn hud_accepts(#[case] check: fn()) {
    check();
}

// ApplyAnimation

#[rstest]
#[case::token_zero(|p: &mut ApplyAnimation| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::lib_32_chars(|p: &mut ApplyAnimation| p.lib = text(&"L".repeat(32)), "lib", Text)]
#[case::lib_not_ascii(|p: &mut ApplyAnimation| p.lib = text("DANCÉ"), "lib", Text)]
#[case::name_32_chars(|p: &mut ApplyAnimation| p.name = text(&"n".repeat(32)), "name", Text)]
#[case::name_not_ascii(|p: &mut ApplyAnimation| p.name = text("tänzer"), "name", Text)]
#[case::delta_zero(|p: &mut ApplyAnimation| p.delta = 0.0, "delta", Range)]
#[case::delta_negative(|p: &mut ApplyAnimation| p.delta = -4.1, "delta", Range)]
#[case::delta_nan(|p: &mut ApplyAnimation| p.delta = f32::NAN, "delta", NonFinite)]
#[case::flags_bit6(|p: &mut ApplyAnimation| p.flags = AnimationFlags(0x40), "flags", Reserved)]
#[case::flags_bit7(|p: &mut ApplyAnimation| p.flags = AnimationFlags(0x81), "flags", Reserved)]
#[case::time_over(|p: &mut ApplyAnimation| p.time = MAX_ANIMATION_TIME + 1, "time", Range)]
#[case::speed_over(|p: &mut ApplyAnimation| p.speed = 10.01, "speed", Range)]
#[case::speed_negative(|p: &mut ApplyAnimation| p.speed = -0.5, "speed", Range)]
#[case::speed_inf(|p: &mut ApplyAnimation| p.speed = f32::INFINITY, "speed", NonFinite)]
#[case::replay_expired(|p: &mut ApplyAnimation| p.elapsed_ms = p.time, "elapsed_ms", Combination)]
#[case::replay_past_end(|p: &mut ApplyAnimation| p.elapsed_ms = p.time + 5_000, "elapsed_ms", Combination)]
fn apply_animation_rejects(
    #[case] m: fn(&mut ApplyAnimation),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&anim::apply_animation(), m, field, kind);
}

#[rstest]
#[case::delta_nan(offset::<ApplyAnimation>("delta"), NAN, "delta")]
#[case::delta_inf(offset::<ApplyAnimation>("delta"), INF, "delta")]
#[case::speed_nan(offset::<ApplyAnimation>("speed"), NAN, "speed")]
fn apply_animation_rejects_non_finite(
    #[case] at: usize,
    #[case] bytes: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&anim::apply_animation(), at, &bytes, field, NonFinite);
}

#[rstest]
#[case::lib_bad_utf8(offset::<ApplyAnimation>("lib"), &[0xC3, 0x28], "lib")]
#[case::name_garbage_after_nul(offset::<ApplyAnimation>("name") + 20, b"x", "name")]
fn apply_animation_rejects_bad_text(#[case] at: usize, #[case] patch: &[u8], #[case] field: &str) {
    assert_rejects_bytes(&anim::apply_animation(), at, patch, field, Text);
}

#[rstest]
#[case::names_31_chars(|p: &mut ApplyAnimation| { p.lib = text(&"L".repeat(31)); p.name = text(&"n".repeat(31)); })]
#[case::delta_tiny(|p: &mut ApplyAnimation| p.delta = f32::MIN_POSITIVE)]
#[case::all_flags(|p: &mut ApplyAnimation| p.flags = AnimationFlags::ALL)]
#[case::time_max(|p: &mut ApplyAnimation| p.time = MAX_ANIMATION_TIME)]
#[case::speed_paused(|p: &mut ApplyAnimation| p.speed = 0.0)]
#[case::speed_max(|p: &mut ApplyAnimation| p.speed = MAX_ANIMATION_SPEED)]
#[case::replay_just_in_time(|p: &mut ApplyAnimation| p.elapsed_ms = p.time - 1)]
#[case::untimed_replay(|p: &mut ApplyAnimation| { p.time = 0; p.elapsed_ms = 90_000; })]
#[case::freeze_ignores_time(|p: &mut ApplyAnimation| { p.flags = AnimationFlags::FREEZE; p.elapsed_ms = p.time * 4; })]
fn apply_animation_accepts(#[case] m: fn(&mut ApplyAnimation)) {
    assert_accepts_with(&anim::apply_animation(), m);
}

// ClearAnimations, SetAnimationProgress, SetAnimationSpeed

#[rstest]
#[case::clear_token_zero(|| assert_rejects(&anim::clear_animations(), |p| p.player_token = PlayerToken(0), "player_token", Range))]
#[case::progress_token_zero(|| assert_rejects(&anim::set_animation_progress(), |p| p.player_token = PlayerToken(0), "player_token", Range))]
#[case::progress_over(|| assert_rejects(&anim::set_animation_progress(), |p| p.progress = 1.0001, "progress", Range))]
#[case::progress_negative(|| assert_rejects(&anim::set_animation_progress(), |p| p.progress = -0.01, "progress", Range))]
#[case::progress_nan(|| assert_rejects_bytes(&anim::set_animation_progress(), offset::<SetAnimationProgress>("progress"), &NAN, "progress", NonFinite))]
#[case::progress_inf(|| assert_rejects(&anim::set_animation_progress(), |p| p.progress = f32::INFINITY, "progress", NonFinite))]
#[case::speed_token_zero(|| assert_rejects(&anim::set_animation_speed(), |p| p.player_token = PlayerToken(0), "player_token", Range))]
#[case::speed_over(|| assert_rejects(&anim::set_animation_speed(), |p| p.speed = 10.5, "speed", Range))]
#[case::speed_negative(|| assert_rejects(&anim::set_animation_speed(), |p| p.speed = -1.0, "speed", Range))]
#[case::speed_nan(|| assert_rejects_bytes(&anim::set_animation_speed(), offset::<SetAnimationSpeed>("speed"), &NAN, "speed", NonFinite))]
fn animation_controls_reject(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::progress_start(|| assert_accepts_with(&anim::set_animation_progress(), |p| p.progress = 0.0))]
#[case::progress_end(|| assert_accepts_with(&anim::set_animation_progress(), |p| p.progress = 1.0))]
#[case::speed_pause(|| assert_accepts_with(&anim::set_animation_speed(), |p| p.speed = 0.0))]
#[case::speed_max(|| assert_accepts_with(&anim::set_animation_speed(), |p| p.speed = MAX_ANIMATION_SPEED))]
fn animation_controls_accept(#[case] check: fn()) {
    check();
}

// TeleportPlayer

#[rstest]
#[case::area_negative(|p: &mut TeleportPlayer| p.area = -1, "area", Range)]
#[case::area_256(|p: &mut TeleportPlayer| p.area = 256, "area", Range)]
#[case::x_nan(|p: &mut TeleportPlayer| p.pos.x = f32::NAN, "x", NonFinite)]
#[case::heading_inf(|p: &mut TeleportPlayer| p.heading = f32::NEG_INFINITY, "heading", NonFinite)]
fn teleport_player_rejects(
    #[case] m: fn(&mut TeleportPlayer),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&ctl::teleport_player(), m, field, kind);
}

#[rstest]
#[case::x_nan(offset::<TeleportPlayer>("pos"), NAN, "x")]
#[case::z_inf(offset::<TeleportPlayer>("pos") + 8, INF, "z")]
#[case::heading_nan(offset::<TeleportPlayer>("heading"), NAN, "heading")]
fn teleport_player_rejects_non_finite(
    #[case] at: usize,
    #[case] bytes: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&ctl::teleport_player(), at, &bytes, field, NonFinite);
}

#[rstest]
#[case::outside(|p: &mut TeleportPlayer| { p.area = 0; p.ground = false; })]
#[case::area_255(|p: &mut TeleportPlayer| p.area = MAX_AREA)]
fn teleport_player_accepts(#[case] m: fn(&mut TeleportPlayer)) {
    assert_accepts_with(&ctl::teleport_player(), m);
}

// SetCamera

fn spectate() -> SetCamera {
    SetCamera {
        event_id: EventId(95),
        mode: CameraMode::Spectate,
        pos: Vec3::ZERO,
        look_at: Vec3::ZERO,
        transition_ms: 0,
        target_present: true,
        target_id: PlayerId(3),
        target_token: PlayerToken(17),
        prev_action: 4,
        next_action: 5,
    }
}

fn own_camera() -> SetCamera {
    SetCamera {
        mode: CameraMode::Own,
        target_present: false,
        target_id: PlayerId(0),
        target_token: PlayerToken(0),
        prev_action: 0,
        next_action: 0,
        ..spectate()
    }
}

#[rstest]
#[case::pos_beyond(|p: &mut SetCamera| p.pos.x = 100_001.0, "pos", Range)]
#[case::look_at_beyond(|p: &mut SetCamera| p.look_at.z = -100_001.0, "look_at", Range)]
#[case::look_at_is_pos(|p: &mut SetCamera| p.look_at = p.pos, "look_at", Combination)]
#[case::look_at_too_close(|p: &mut SetCamera| p.look_at = Vec3::new(p.pos.x, p.pos.y + 0.005, p.pos.z), "look_at", Combination)]
#[case::transition_over(|p: &mut SetCamera| p.transition_ms = 60_001, "transition_ms", Range)]
#[case::target_without_spectate(|p: &mut SetCamera| p.target_present = true, "target_present", Combination)]
#[case::pos_nan(|p: &mut SetCamera| p.pos.y = f32::NAN, "y", NonFinite)]
fn set_camera_fixed_rejects(
    #[case] m: fn(&mut SetCamera),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&ctl::set_camera(), m, field, kind);
}

#[rstest]
#[case::pos_not_zero(|p: &mut SetCamera| p.pos.x = 1.0, "pos", Reserved)]
#[case::pos_negative_zero(|p: &mut SetCamera| p.pos.z = -0.0, "pos", Reserved)]
#[case::look_at_not_zero(|p: &mut SetCamera| p.look_at.y = 5.0, "look_at", Reserved)]
#[case::transition_not_zero(|p: &mut SetCamera| p.transition_ms = 1, "transition_ms", Reserved)]
#[case::target_present(|p: &mut SetCamera| p.target_present = true, "target_present", Combination)]
fn set_camera_own_rejects(
    #[case] m: fn(&mut SetCamera),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&own_camera(), m, field, kind);
}

#[rstest]
#[case::no_target(|p: &mut SetCamera| p.target_present = false, "target_present", Combination)]
#[case::target_token_zero(|p: &mut SetCamera| p.target_token = PlayerToken(0), "target_token", Range)]
#[case::pos_not_zero(|p: &mut SetCamera| p.pos.z = 10.0, "pos", Reserved)]
#[case::transition_not_zero(|p: &mut SetCamera| p.transition_ms = 500, "transition_ms", Reserved)]
fn set_camera_spectate_rejects(
    #[case] m: fn(&mut SetCamera),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&spectate(), m, field, kind);
}

#[rstest]
fn set_camera_rejects_unknown_modes(#[values(4, 5, 255)] mode: u8) {
    let at = offset::<SetCamera>("mode");
    assert_rejects_bytes(&ctl::set_camera(), at, &[mode], "mode", Enum);
}

#[rstest]
#[case::pos_x_nan(offset::<SetCamera>("pos"), NAN, "x")]
#[case::look_at_z_inf(offset::<SetCamera>("look_at") + 8, INF, "z")]
fn set_camera_rejects_non_finite(#[case] at: usize, #[case] bytes: [u8; 4], #[case] field: &str) {
    assert_rejects_bytes(&ctl::set_camera(), at, &bytes, field, NonFinite);
}

#[rstest]
#[case::edges(|p: &mut SetCamera| { p.pos = Vec3::new(100_000.0, -100_000.0, 100_000.0); p.look_at = Vec3::new(-100_000.0, 100_000.0, -100_000.0); })]
#[case::closest(|p: &mut SetCamera| { p.pos = Vec3::ZERO; p.look_at = Vec3::new(MIN_CAMERA_LOOK, 0.0, 0.0); })]
#[case::transition_max(|p: &mut SetCamera| p.transition_ms = MAX_CAMERA_TRANSITION_MS)]
#[case::at_once(|p: &mut SetCamera| p.transition_ms = 0)]
fn set_camera_fixed_accepts(#[case] m: fn(&mut SetCamera)) {
    assert_accepts_with(&ctl::set_camera(), m);
}

#[test]
fn set_camera_accepts_own_spectate_and_free() {
    assert_accepts(&own_camera());
    assert_accepts(&spectate());
    assert_accepts(&SetCamera {
        mode: CameraMode::Free,
        ..own_camera()
    });
}

// SetSpecialAction

#[rstest]
fn set_special_action_rejects_above_8(#[values(9, 10, 255)] action: u8) {
    let at = offset::<SetSpecialAction>("action");
    assert_rejects_bytes(&ctl::set_special_action(), at, &[action], "action", Enum);
}

#[test]
fn set_special_action_accepts_0_to_8() {
    for &action in SpecialAction::ALL {
        let mut p = ctl::set_special_action();
        p.action = action;
        assert_accepts(&p);
    }
    assert_eq!(SpecialAction::ALL.len(), 9);
}

// SetWorldBounds

#[rstest]
#[case::min_x_beyond(|p: &mut SetWorldBounds| p.min_x = -6000.5, "min_x", Range)]
#[case::max_y_beyond(|p: &mut SetWorldBounds| p.max_y = 6001.0, "max_y", Range)]
#[case::empty_x(|p: &mut SetWorldBounds| p.max_x = p.min_x, "max_x", Combination)]
#[case::inverted_y(|p: &mut SetWorldBounds| { p.min_y = 500.0; p.max_y = -500.0; }, "max_y", Combination)]
#[case::max_x_nan(|p: &mut SetWorldBounds| p.max_x = f32::NAN, "max_x", NonFinite)]
fn set_world_bounds_rejects(
    #[case] m: fn(&mut SetWorldBounds),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&ctl::set_world_bounds(), m, field, kind);
}

#[rstest]
#[case::min_x(|p: &mut SetWorldBounds| p.min_x = 1.0, "min_x")]
#[case::min_y(|p: &mut SetWorldBounds| p.min_y = -250.0, "min_y")]
#[case::max_x(|p: &mut SetWorldBounds| p.max_x = -0.0, "max_x")]
#[case::max_y(|p: &mut SetWorldBounds| p.max_y = 6000.0, "max_y")]
fn set_world_bounds_off_rejects_non_zero_bounds(
    #[case] m: fn(&mut SetWorldBounds),
    #[case] field: &str,
) {
    assert_rejects(&ctl::set_world_bounds_off(), m, field, Reserved);
}

#[rstest]
#[case::min_y_nan(offset::<SetWorldBounds>("min_y"), NAN, "min_y")]
#[case::max_x_inf(offset::<SetWorldBounds>("max_x"), INF, "max_x")]
fn set_world_bounds_rejects_non_finite(
    #[case] at: usize,
    #[case] bytes: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&ctl::set_world_bounds(), at, &bytes, field, NonFinite);
}

#[test]
fn set_world_bounds_off_rejects_nan() {
    let at = offset::<SetWorldBounds>("min_x");
    assert_rejects_bytes(&ctl::set_world_bounds_off(), at, &NAN, "min_x", NonFinite);
}

#[test]
fn set_world_bounds_accepts_the_whole_world_as_a_rectangle() {
    assert_accepts_with(&ctl::set_world_bounds(), |p| {
        p.min_x = -MAX_WORLD_COORD;
        p.min_y = -MAX_WORLD_COORD;
        p.max_x = MAX_WORLD_COORD;
        p.max_y = MAX_WORLD_COORD;
    });
}

// SetVelocity, SetGravity

#[rstest]
#[case::throw_too_fast(|| assert_rejects(&phys::set_velocity(), |p| p.vel = Vec3::new(1.5, 1.5, 0.0), "vel", Range))]
#[case::throw_huge(|| assert_rejects(&phys::set_velocity(), |p| p.vel = Vec3::new(f32::MAX, 0.0, 0.0), "vel", Range))]
#[case::throw_nan(|| assert_rejects(&phys::set_velocity(), |p| p.vel.z = f32::NAN, "z", NonFinite))]
#[case::throw_y_nan(|| assert_rejects_bytes(&phys::set_velocity(), offset::<SetVelocity>("vel") + 4, &NAN, "y", NonFinite))]
#[case::gravity_over(|| assert_rejects(&phys::set_gravity(), |p| p.gravity = 0.1001, "gravity", Range))]
#[case::gravity_under(|| assert_rejects(&phys::set_gravity(), |p| p.gravity = -0.2, "gravity", Range))]
#[case::gravity_nan(|| assert_rejects_bytes(&phys::set_gravity(), offset::<SetGravity>("gravity"), &NAN, "gravity", NonFinite))]
#[case::gravity_inf(|| assert_rejects(&phys::set_gravity(), |p| p.gravity = f32::INFINITY, "gravity", NonFinite))]
fn physics_rejects(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::throw_up_max(|| assert_accepts_with(&phys::set_velocity(), |p| p.vel = Vec3::new(0.0, 0.0, MAX_THROW)))]
#[case::throw_down_max(|| assert_accepts_with(&phys::set_velocity(), |p| p.vel = Vec3::new(0.0, -MAX_THROW, 0.0)))]
#[case::still(|| assert_accepts_with(&phys::set_velocity(), |p| p.vel = Vec3::ZERO))]
#[case::gravity_top(|| assert_accepts_with(&phys::set_gravity(), |p| p.gravity = MAX_GRAVITY))]
#[case::gravity_bottom(|| assert_accepts_with(&phys::set_gravity(), |p| p.gravity = -MAX_GRAVITY))]
#[case::gravity_game(|| assert_accepts_with(&phys::set_gravity(), |p| p.gravity = GAME_GRAVITY))]
#[case::gravity_zero(|| assert_accepts_with(&phys::set_gravity(), |p| p.gravity = 0.0))]
fn physics_accepts(#[case] check: fn()) {
    check();
}

/// player.md SetCamera: "pos equal to look_at" is dropped for a fixed camera (mode 1) only;
/// the other modes carry zeros in both and pass (issue: where the pages disagree).
#[test]
fn set_camera_pos_equal_to_look_at_is_dropped_only_in_mode_1() {
    assert_accepts_with(&own_camera(), |p: &mut SetCamera| {
        assert_eq!(p.pos, p.look_at);
    });
    assert_accepts_with(&spectate(), |p: &mut SetCamera| {
        assert_eq!(p.pos, p.look_at);
    });
    assert_rejects(
        &ctl::set_camera(),
        |p: &mut SetCamera| p.look_at = p.pos,
        "look_at",
        Combination,
    );
}
