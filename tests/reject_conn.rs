//! connection.md, lanes to damage: every packet refuses a wrong length and each range,
//! enum, finiteness, text and combination rule the page states for it; the boundary
//! values are accepted.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::connection::chat::*;
use dlmp::protocol::connection::damage::*;
use dlmp::protocol::connection::lane::*;
use dlmp::protocol::connection::rewind::ShotRewind;
use dlmp::protocol::connection::roster::*;
use dlmp::protocol::connection::samples::{chat, damage, lane, roster, weapons};
use dlmp::protocol::connection::weapons::*;
use dlmp::protocol::ids::*;
use dlmp::protocol::text::FixedText;
use dlmp::protocol::{Packet, Wire};
use rstest::rstest;
use support::*;

/// `valid` changed by `mutate` decodes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(valid: &P, mutate: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    mutate(&mut p);
    assert_eq!(P::decode(&raw(&p)).as_ref(), Ok(&p));
    assert_eq!(p.to_bytes().map_err(|e| e.to_string()), Ok(raw(&p)));
}

fn name(s: &str) -> FixedText<24> {
    FixedText::new(s).expect("valid test value")
}

fn chat_text(s: &str) -> ChatText {
    ChatText::new(s).expect("valid test value")
}

#[rstest]
#[case::client_ack(|| assert_exact_length(&lane::client_ack()))]
#[case::server_ack(|| assert_exact_length(&lane::server_ack()))]
#[case::client_chat(|| assert_exact_length(&chat::client_chat()))]
#[case::chat_message(|| assert_exact_length(&chat::chat_message()))]
#[case::player_nametag(|| assert_exact_length(&roster::player_nametag()))]
#[case::player_join(|| assert_exact_length(&roster::player_join()))]
#[case::player_leave(|| assert_exact_length(&roster::player_leave()))]
#[case::give_weapon(|| assert_exact_length(&weapons::give_weapon()))]
#[case::give_health(|| assert_exact_length(&weapons::give_health()))]
#[case::give_armor(|| assert_exact_length(&weapons::give_armor()))]
#[case::weapon_shot(|| assert_exact_length(&weapons::weapon_shot()))]
#[case::remote_weapon_shot(|| assert_exact_length(&weapons::remote_weapon_shot()))]
#[case::damage_report(|| assert_exact_length(&damage::damage_report()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::client_ack(1 + ClientAck::SIZE, 13)]
#[case::server_ack(1 + ServerAck::SIZE, 5)]
#[case::player_nametag(1 + PlayerNametag::SIZE, 41)]
#[case::player_join(1 + PlayerJoin::SIZE, 37)]
#[case::player_leave(1 + PlayerLeave::SIZE, 14)]
#[case::give_weapon(1 + GiveWeapon::SIZE, 10)]
#[case::give_health(1 + GiveHealth::SIZE, 11)]
#[case::give_armor(1 + GiveArmor::SIZE, 11)]
#[case::weapon_shot(1 + WeaponShot::SIZE, 45)]
#[case::remote_weapon_shot(1 + RemoteWeaponShot::SIZE, 82)]
#[case::damage_report(1 + DamageReport::SIZE, 32)]
fn totals_match_the_page(#[case] size: usize, #[case] total: usize) {
    assert_eq!(size, total);
}

// --- chat -------------------------------------------------------------------------------

#[rstest]
#[case::empty(|p: &mut ClientChat| p.text = chat_text(""), "text", Text)]
#[case::bell(|p: &mut ClientChat| p.text = chat_text("ding\u{7}"), "text", Text)]
#[case::newline(|p: &mut ClientChat| p.text = chat_text("two\nlines"), "text", Text)]
#[case::nul(|p: &mut ClientChat| p.text = chat_text("a\0b"), "text", Text)]
#[case::delete(|p: &mut ClientChat| p.text = chat_text("x\u{7F}"), "text", Text)]
#[case::c1_control(|p: &mut ClientChat| p.text = chat_text("x\u{85}y"), "text", Text)]
fn client_chat_rejects(
    #[case] m: fn(&mut ClientChat),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&chat::client_chat(), m, field, kind);
}

#[rstest]
#[case::len_145(&[145])]
#[case::len_255(&[255])]
fn chat_text_longer_than_144_is_refused(#[case] len: &[u8]) {
    assert_rejects_bytes(
        &chat::client_chat(),
        offset::<ClientChat>("text"),
        len,
        "text",
        Text,
    );
    assert_rejects_bytes(
        &chat::chat_message(),
        offset::<ChatMessage>("text"),
        len,
        "text",
        Text,
    );
}

#[test]
fn chat_text_must_be_utf8() {
    let at = offset::<ClientChat>("text") + 1;
    assert_rejects_bytes(&chat::client_chat(), at, &[0xC3, 0x28], "text", Text);
    let at = offset::<ChatMessage>("text") + 1;
    assert_rejects_bytes(&chat::chat_message(), at, &[0xFF], "text", Text);
}

#[rstest]
#[case::one_byte("k")]
#[case::command("/race start")]
#[case::max_144_ascii(&"a".repeat(144))]
#[case::max_144_multibyte(&"é".repeat(72))]
fn client_chat_accepts(#[case] text: &str) {
    assert_accepts(&chat::client_chat(), |p| p.text = chat_text(text));
}

#[rstest]
#[case::empty(|p: &mut ChatMessage| p.text = chat_text(""), "text", Text)]
#[case::alpha_byte(|p: &mut ChatMessage| p.color = Color(0xFF00_0000), "color", Reserved)]
#[case::low_alpha_bit(|p: &mut ChatMessage| p.color = Color(0x0100_0000), "color", Reserved)]
fn chat_message_rejects(
    #[case] m: fn(&mut ChatMessage),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&chat::chat_message(), m, field, kind);
}

#[rstest]
#[case::white(|p: &mut ChatMessage| p.color = Color(0x00FF_FFFF))]
#[case::black(|p: &mut ChatMessage| p.color = Color(0))]
#[case::max_144(|p: &mut ChatMessage| p.text = chat_text(&"z".repeat(144)))]
fn chat_message_accepts(#[case] m: fn(&mut ChatMessage)) {
    assert_accepts(&chat::chat_message(), m);
}

#[test]
fn color_rgb_is_0xrrggbb() {
    assert_eq!(Color::rgb(0x12, 0x34, 0x56), Color(0x0012_3456));
}

// --- roster -----------------------------------------------------------------------------

#[rstest]
#[case::token_zero(|p: &mut PlayerNametag| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::alpha_byte(|p: &mut PlayerNametag| p.color = Color(0x8000_0000), "color", Reserved)]
#[case::name_empty(|p: &mut PlayerNametag| p.name = name(""), "name", Text)]
#[case::name_two_chars(|p: &mut PlayerNametag| p.name = name("CJ"), "name", Text)]
#[case::name_space(|p: &mut PlayerNametag| p.name = name("Carl Johnson"), "name", Text)]
#[case::name_non_ascii(|p: &mut PlayerNametag| p.name = name("Café_Boss"), "name", Text)]
fn player_nametag_rejects(
    #[case] m: fn(&mut PlayerNametag),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&roster::player_nametag(), m, field, kind);
}

#[rstest]
#[case::token_zero(|p: &mut PlayerJoin| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::name_two_chars(|p: &mut PlayerJoin| p.name = name("CJ"), "name", Text)]
#[case::name_dash(|p: &mut PlayerJoin| p.name = name("Big-Smoke"), "name", Text)]
fn player_join_rejects(
    #[case] m: fn(&mut PlayerJoin),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&roster::player_join(), m, field, kind);
}

#[test]
fn roster_names_must_be_padded_utf8() {
    let at = offset::<PlayerNametag>("name");
    assert_rejects_bytes(&roster::player_nametag(), at, &[0xFF], "name", Text);
    assert_rejects_bytes(&roster::player_nametag(), at + 11, b"x", "name", Text);
    let at = offset::<PlayerJoin>("name");
    assert_rejects_bytes(&roster::player_join(), at, &[0xC3], "name", Text);
}

#[rstest]
#[case::three_chars("Ryd")]
#[case::all_symbols("a_[]().$@=Z9")]
#[case::full_24_without_nul("ABCDEFGHIJKLMNOPQRSTUVWX")]
fn roster_accepts_valid_names(#[case] n: &str) {
    assert_accepts(&roster::player_nametag(), |p| p.name = name(n));
    assert_accepts(&roster::player_join(), |p| p.name = name(n));
}

#[test]
fn player_nametag_accepts_the_full_color_range() {
    assert_accepts(&roster::player_nametag(), |p| p.color = Color(0x00FF_FFFF));
}

#[test]
fn player_leave_rejects() {
    let valid = roster::player_leave();
    assert_rejects(
        &valid,
        |p| p.player_token = PlayerToken(0),
        "player_token",
        Range,
    );
    let at = offset::<PlayerLeave>("reason");
    assert_rejects_bytes(&valid, at, &[3], "reason", Enum);
    assert_rejects_bytes(&valid, at, &[0xFF], "reason", Enum);
}

// --- weapon grants ----------------------------------------------------------------------

#[test]
fn give_weapon_rejects_a_weapon_past_46() {
    assert_rejects(&weapons::give_weapon(), |p| p.weapon = 47, "weapon", Range);
    assert_rejects(&weapons::give_weapon(), |p| p.weapon = 255, "weapon", Range);
}

#[rstest]
#[case::unarmed(0, 0)]
#[case::last_weapon(46, 1)]
#[case::full_ammo(31, u16::MAX)]
fn give_weapon_accepts(#[case] weapon: u8, #[case] ammo: u16) {
    assert_accepts(&weapons::give_weapon(), |p| {
        p.weapon = weapon;
        p.ammo = ammo;
    });
}

#[rstest]
#[case::negative(-0.5)]
#[case::past_200(200.01)]
#[case::huge(f32::MAX)]
fn give_health_and_armor_reject_out_of_range(#[case] v: f32) {
    assert_rejects(&weapons::give_health(), |p| p.health = v, "health", Range);
    assert_rejects(&weapons::give_armor(), |p| p.armor = v, "armor", Range);
}

#[rstest]
#[case::nan(NAN)]
#[case::inf(INF)]
#[case::minus_inf(f32::NEG_INFINITY.to_le_bytes())]
fn give_health_and_armor_reject_non_finite(#[case] bytes: [u8; 4]) {
    let at = offset::<GiveHealth>("health");
    assert_rejects_bytes(&weapons::give_health(), at, &bytes, "health", NonFinite);
    let at = offset::<GiveArmor>("armor");
    assert_rejects_bytes(&weapons::give_armor(), at, &bytes, "armor", NonFinite);
}

#[rstest]
#[case::zero(0.0)]
#[case::max(200.0)]
fn give_health_and_armor_accept_bounds(#[case] v: f32) {
    assert_accepts(&weapons::give_health(), |p| p.health = v);
    assert_accepts(&weapons::give_armor(), |p| p.armor = v);
}

// --- shots ------------------------------------------------------------------------------

#[rstest]
#[case::weapon_21(|p: &mut WeaponShot| p.weapon = 21, "weapon", Range)]
#[case::weapon_39(|p: &mut WeaponShot| p.weapon = 39, "weapon", Range)]
#[case::unarmed(|p: &mut WeaponShot| p.weapon = 0, "weapon", Range)]
#[case::nothing_with_id(|p: &mut WeaponShot| { p.hit_kind = HitKind::Nothing; p.hit_id = 12 }, "hit_id", Combination)]
#[case::nothing_with_zero_id(|p: &mut WeaponShot| { p.hit_kind = HitKind::Nothing; p.hit_id = 0 }, "hit_id", Combination)]
#[case::player_without_id(|p: &mut WeaponShot| p.hit_id = NO_HIT, "hit_id", Combination)]
#[case::object_without_id(|p: &mut WeaponShot| { p.hit_kind = HitKind::Object; p.hit_id = NO_HIT }, "hit_id", Combination)]
fn weapon_shot_rejects(
    #[case] m: fn(&mut WeaponShot),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&weapons::weapon_shot(), m, field, kind);
}

#[rstest]
#[case::origin_x_nan("origin", 0, NAN, "x")]
#[case::origin_z_inf("origin", 8, INF, "z")]
#[case::hit_y_nan("hit", 4, NAN, "y")]
fn weapon_shot_rejects_non_finite(
    #[case] vec: &str,
    #[case] inner: usize,
    #[case] bytes: [u8; 4],
    #[case] field: &str,
) {
    let at = offset::<WeaponShot>(vec) + inner;
    assert_rejects_bytes(&weapons::weapon_shot(), at, &bytes, field, NonFinite);
}

#[rstest]
#[case::kind_4(4)]
#[case::kind_255(255)]
fn shots_reject_unknown_hit_kind(#[case] v: u8) {
    let at = offset::<WeaponShot>("hit_kind");
    assert_rejects_bytes(&weapons::weapon_shot(), at, &[v], "hit_kind", Enum);
    let at = offset::<RemoteWeaponShot>("hit_kind");
    assert_rejects_bytes(&weapons::remote_weapon_shot(), at, &[v], "hit_kind", Enum);
}

#[rstest]
#[case::first_firearm(|p: &mut WeaponShot| p.weapon = 22)]
#[case::last_firearm(|p: &mut WeaponShot| p.weapon = 38)]
#[case::nothing(|p: &mut WeaponShot| { p.hit_kind = HitKind::Nothing; p.hit_id = NO_HIT })]
#[case::vehicle_id_0(|p: &mut WeaponShot| { p.hit_kind = HitKind::Vehicle; p.hit_id = 0 })]
#[case::object(|p: &mut WeaponShot| { p.hit_kind = HitKind::Object; p.hit_id = 0xFFFF_FFFE })]
fn weapon_shot_accepts(#[case] m: fn(&mut WeaponShot)) {
    assert_accepts(&weapons::weapon_shot(), m);
}

#[rstest]
#[case::token_zero(|p: &mut RemoteWeaponShot| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::weapon_21(|p: &mut RemoteWeaponShot| p.weapon = 21, "weapon", Range)]
#[case::weapon_39(|p: &mut RemoteWeaponShot| p.weapon = 39, "weapon", Range)]
#[case::nothing_with_id(|p: &mut RemoteWeaponShot| { p.hit_kind = HitKind::Nothing; p.hit_id = 12 }, "hit_id", Combination)]
#[case::player_without_id(|p: &mut RemoteWeaponShot| p.hit_id = NO_HIT, "hit_id", Combination)]
#[case::rewind_not_zeroed(|p: &mut RemoteWeaponShot| p.rewind.rewound = false, "rewound", Reserved)]
fn remote_weapon_shot_rejects(
    #[case] m: fn(&mut RemoteWeaponShot),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&weapons::remote_weapon_shot(), m, field, kind);
}

#[rstest]
#[case::origin_x_nan(offset::<RemoteWeaponShot>("origin"), NAN, "x")]
#[case::hit_z_inf(offset::<RemoteWeaponShot>("hit") + 8, INF, "z")]
#[case::rewind_target_y_nan(
    offset::<RemoteWeaponShot>("rewind") + ShotRewind::offset_of("target_pos").unwrap() + 4,
    NAN,
    "y"
)]
fn remote_weapon_shot_rejects_non_finite(
    #[case] at: usize,
    #[case] bytes: [u8; 4],
    #[case] field: &str,
) {
    assert_rejects_bytes(&weapons::remote_weapon_shot(), at, &bytes, field, NonFinite);
}

#[test]
fn remote_weapon_shot_rejects_a_teammate_byte_past_1() {
    let at = offset::<RemoteWeaponShot>("teammate");
    assert_rejects_bytes(&weapons::remote_weapon_shot(), at, &[2], "teammate", Enum);
}

#[rstest]
#[case::teammate(|p: &mut RemoteWeaponShot| p.teammate = true)]
#[case::first_firearm(|p: &mut RemoteWeaponShot| p.weapon = 22)]
#[case::last_firearm(|p: &mut RemoteWeaponShot| p.weapon = 38)]
#[case::nothing_unrewound(|p: &mut RemoteWeaponShot| {
    p.hit_kind = HitKind::Nothing;
    p.hit_id = NO_HIT;
    p.rewind = ShotRewind::NONE;
})]
fn remote_weapon_shot_accepts(#[case] m: fn(&mut RemoteWeaponShot)) {
    assert_accepts(&weapons::remote_weapon_shot(), m);
}

// --- damage -----------------------------------------------------------------------------

#[rstest]
#[case::no_attacker_with_id(|p: &mut DamageReport| p.has_attacker = false, "attacker_id", Combination)]
#[case::attacker_without_id(|p: &mut DamageReport| p.attacker_id = PlayerId::NONE, "attacker_id", Combination)]
#[case::attacker_token_zero(|p: &mut DamageReport| p.attacker_token = PlayerToken(0), "attacker_token", Range)]
#[case::weapon_55(|p: &mut DamageReport| p.weapon = 55, "weapon", Range)]
#[case::amount_zero(|p: &mut DamageReport| p.amount = 0.0, "amount", Range)]
#[case::amount_minus_zero(|p: &mut DamageReport| p.amount = -0.0, "amount", Range)]
#[case::amount_negative(|p: &mut DamageReport| p.amount = -5.0, "amount", Range)]
#[case::amount_past_200(|p: &mut DamageReport| p.amount = 200.01, "amount", Range)]
#[case::bodypart_2(|p: &mut DamageReport| p.bodypart = 2, "bodypart", Range)]
#[case::bodypart_10(|p: &mut DamageReport| p.bodypart = 10, "bodypart", Range)]
fn damage_report_rejects(
    #[case] m: fn(&mut DamageReport),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&damage::damage_report(), m, field, kind);
}

#[rstest]
#[case::amount_nan(offset::<DamageReport>("amount"), NAN, "amount", NonFinite)]
#[case::amount_inf(offset::<DamageReport>("amount"), INF, "amount", NonFinite)]
fn damage_report_rejects_non_finite(
    #[case] at: usize,
    #[case] bytes: [u8; 4],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects_bytes(&damage::damage_report(), at, &bytes, field, kind);
}

#[test]
fn damage_report_rejects_a_has_attacker_byte_past_1() {
    let at = offset::<DamageReport>("has_attacker");
    assert_rejects_bytes(&damage::damage_report(), at, &[2], "has_attacker", Enum);
}

#[rstest]
#[case::fall_without_attacker(|p: &mut DamageReport| {
    p.has_attacker = false;
    p.attacker_id = PlayerId::NONE;
    p.attacker_token = PlayerToken(0);
    p.weapon = WEAPON_FALL;
})]
#[case::unarmed(|p: &mut DamageReport| p.weapon = 0)]
#[case::amount_max(|p: &mut DamageReport| p.amount = 200.0)]
#[case::amount_tiny(|p: &mut DamageReport| p.amount = f32::MIN_POSITIVE)]
#[case::bodypart_3(|p: &mut DamageReport| p.bodypart = 3)]
#[case::bodypart_9(|p: &mut DamageReport| p.bodypart = 9)]
#[case::attacker_id_0(|p: &mut DamageReport| p.attacker_id = PlayerId(0))]
fn damage_report_accepts(#[case] m: fn(&mut DamageReport)) {
    assert_accepts(&damage::damage_report(), m);
}

#[test]
fn acks_take_any_event_id() {
    assert_accepts(&lane::client_ack(), |p| p.event_id = EventId(0));
    assert_accepts(&lane::server_ack(), |p| p.event_id = EventId(u32::MAX));
}

#[test]
fn an_ack_of_the_other_direction_is_refused() {
    let bytes = raw(&lane::server_ack());
    assert_eq!(ClientAck::decode(&bytes).unwrap_err().kind(), UnknownPacket);
}
