//! vehicles.md, vehicle state packets: every packet refuses a wrong length and each range,
//! enum, finiteness and combination rule the page states for it.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::*;
use dlmp::protocol::text::FixedText;
use dlmp::protocol::vehicle::damage::*;
use dlmp::protocol::vehicle::life::*;
use dlmp::protocol::vehicle::params::*;
use dlmp::protocol::vehicle::samples::{
    damage as sd, life as sl, params as sp, sync as ss, transform as st, tuning as stu,
};
use dlmp::protocol::vehicle::sync::*;
use dlmp::protocol::vehicle::transform::*;
use dlmp::protocol::vehicle::tuning::*;
use rstest::rstest;
use support::*;

/// `valid` changed by `mutate` decodes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(valid: &P, mutate: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    mutate(&mut p);
    assert_eq!(P::decode(&raw(&p)), Ok(p.clone()));
    assert!(p.to_bytes().is_ok(), "{p:?} must encode");
}

fn status_at<P: Packet>(field: &str, inner: &str) -> usize {
    offset::<P>(field) + VehicleDamageStatus::offset_of(inner).expect("a status field")
}

#[rstest]
#[case::vehicle_sync(|| assert_exact_length(&ss::vehicle_sync()))]
#[case::vehicle_sync_hide(|| assert_exact_length(&VehicleSync::hide(EventId(9), VehicleId(4))))]
#[case::vehicle_syncer(|| assert_exact_length(&sl::vehicle_syncer()))]
#[case::vehicle_explode(|| assert_exact_length(&sl::vehicle_explode()))]
#[case::vehicle_death(|| assert_exact_length(&sl::vehicle_death()))]
#[case::vehicle_damage(|| assert_exact_length(&sd::vehicle_damage()))]
#[case::remote_vehicle_damage(|| assert_exact_length(&sd::remote_vehicle_damage()))]
#[case::vehicle_health(|| assert_exact_length(&sl::vehicle_health()))]
#[case::vehicle_params(|| assert_exact_length(&sp::vehicle_params()))]
#[case::vehicle_control(|| assert_exact_length(&sp::vehicle_control()))]
#[case::vehicle_tuning(|| assert_exact_length(&stu::vehicle_tuning()))]
#[case::vehicle_handling(|| assert_exact_length(&stu::vehicle_handling()))]
#[case::vehicle_transform(|| assert_exact_length(&st::vehicle_transform()))]
#[case::vehicle_colors(|| assert_exact_length(&st::vehicle_colors()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[test]
fn totals_match_the_page() {
    let sizes = [
        (raw(&ss::vehicle_sync()).len(), 79),
        (raw(&sl::vehicle_syncer()).len(), 10),
        (raw(&sl::vehicle_explode()).len(), 28),
        (raw(&sl::vehicle_death()).len(), 20),
        (raw(&sd::vehicle_damage()).len(), 38),
        (raw(&sd::remote_vehicle_damage()).len(), 30),
        (raw(&sl::vehicle_health()).len(), 16),
        (raw(&sp::vehicle_params()).len(), 15),
        (raw(&sp::vehicle_control()).len(), 19),
        (raw(&stu::vehicle_tuning()).len(), 55),
        (raw(&stu::vehicle_handling()).len(), 97),
        (raw(&st::vehicle_transform()).len(), 69),
        (raw(&st::vehicle_colors()).len(), 11),
    ];
    for (actual, page) in sizes {
        assert_eq!(actual, page);
    }
    assert_eq!(
        <VehicleDamageStatus as dlmp::protocol::Wire>::SIZE,
        18,
        "the status is 18 bytes"
    );
}

// VehicleDamageStatus, as the client reports it (VehicleDamage) and as the server sends it.
// A report decodes whatever its values: it is a reliable event, and a decode failure would
// never be acknowledged (ADR 0007, 0061). The damage feature drops one whose status breaks
// the same rules the server's status keeps (`ReportedStatus::checked`).

#[rstest]
#[case::panel_top_nibble(|p: &mut VehicleDamage| p.status.0.panels |= 1 << 28, "panels", Reserved)]
#[case::panel_bit_31(|p: &mut VehicleDamage| p.status.0.panels |= 1 << 31, "panels", Reserved)]
#[case::panel_0_is_4(|p: &mut VehicleDamage| p.status.0.panels = 0x4, "panels", Range)]
#[case::panel_6_is_15(|p: &mut VehicleDamage| p.status.0.panels = 0x0F00_0000, "panels", Range)]
#[case::door_5(|p: &mut VehicleDamage| p.status.0.doors[5] = 5, "doors", Range)]
#[case::door_255(|p: &mut VehicleDamage| p.status.0.doors[0] = 255, "doors", Range)]
#[case::wheel_3(|p: &mut VehicleDamage| p.status.0.wheels[3] = 3, "wheels", Range)]
fn vehicle_damage_decodes_a_status_out_of_range_and_names_the_broken_rule(
    #[case] m: fn(&mut VehicleDamage),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_accepts(&sd::vehicle_damage(), m);
    let mut p = sd::vehicle_damage();
    m(&mut p);
    let err = p.status.checked().expect_err("out of range");
    assert_eq!((err.field, err.kind()), (field, kind), "{err:?}");
}

/// Light bits outside the mask are masked, not a reason to drop the report's panels,
/// doors and wheels (vehicles.md VehicleDamage).
#[rstest]
#[case::light_high_bit(0x02, 0x00)]
#[case::light_outside_byte(0x155, 0x55)]
fn vehicle_damage_masks_light_bits_outside_the_mask(#[case] lights: u32, #[case] kept: u32) {
    let mut p = sd::vehicle_damage();
    p.status.0.lights = lights;
    assert_accepts(&sd::vehicle_damage(), |q: &mut VehicleDamage| {
        q.status.0.lights = lights
    });
    assert_eq!(p.status.checked().expect("masked").lights, kept);
}

#[rstest]
#[case::every_panel_3(|p: &mut VehicleDamage| p.status.0.panels = 0x0333_3333)]
#[case::doors_4(|p: &mut VehicleDamage| p.status.0.doors = [4; 6])]
#[case::open_bit_in_a_report(|p: &mut VehicleDamage| p.status.0.doors = [1, 3, 0, 2, 4, 3])]
#[case::all_lights(|p: &mut VehicleDamage| p.status.0.lights = LIGHTS_MASK)]
#[case::wheels_2(|p: &mut VehicleDamage| p.status.0.wheels = [2; 4])]
fn vehicle_damage_accepts(#[case] m: fn(&mut VehicleDamage)) {
    assert_accepts(&sd::vehicle_damage(), m);
    let mut p = sd::vehicle_damage();
    m(&mut p);
    assert_eq!(p.status.checked(), Ok(p.status.0), "in range");
}

#[rstest]
#[case::open_damaged_door(|p: &mut RemoteVehicleDamage| p.status.doors[2] = 3, "doors", Reserved)]
#[case::open_intact_door(|p: &mut RemoteVehicleDamage| p.status.doors[0] = 1, "doors", Reserved)]
#[case::door_5(|p: &mut RemoteVehicleDamage| p.status.doors[1] = 5, "doors", Range)]
#[case::panel_4(|p: &mut RemoteVehicleDamage| p.status.panels = 0x0040_0000, "panels", Range)]
#[case::panel_top_nibble(|p: &mut RemoteVehicleDamage| p.status.panels = 0x1000_0000, "panels", Reserved)]
#[case::light_bit_7(|p: &mut RemoteVehicleDamage| p.status.lights = 0x80, "lights", Reserved)]
#[case::wheel_3(|p: &mut RemoteVehicleDamage| p.status.wheels[0] = 3, "wheels", Range)]
fn remote_vehicle_damage_rejects(
    #[case] m: fn(&mut RemoteVehicleDamage),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&sd::remote_vehicle_damage(), m, field, kind);
}

#[test]
fn remote_vehicle_damage_takes_0_2_4_doors_and_full_damage() {
    assert_accepts(&sd::remote_vehicle_damage(), |p| {
        p.status = VehicleDamageStatus {
            panels: 0x0333_3333,
            doors: [0, 2, 4, 4, 2, 0],
            lights: LIGHTS_MASK,
            wheels: [2, 1, 0, 2],
        }
    });
}

#[test]
fn damage_status_bytes_are_checked_in_place() {
    let at = status_at::<RemoteVehicleDamage>("status", "doors");
    assert_rejects_bytes(
        &sd::remote_vehicle_damage(),
        at + 3,
        &[3],
        "doors",
        Reserved,
    );
    // A report's status decodes (ADR 0061); the wheel lands where the offset says.
    let at = status_at::<VehicleDamage>("status", "wheels");
    let mut bytes = raw(&sd::vehicle_damage());
    bytes[at + 1] = 9;
    let p = VehicleDamage::decode(&bytes).expect("decodes");
    assert_eq!(p.status.0.wheels[1], 9);
    assert!(p.status.checked().is_err());
}

// VehicleSync

#[rstest]
#[case::model_399(|p: &mut VehicleSync| p.model = 399, "model", Range)]
#[case::model_612(|p: &mut VehicleSync| p.model = 612, "model", Range)]
#[case::color1_128(|p: &mut VehicleSync| p.color1 = 128, "color1", Range)]
#[case::color2_255(|p: &mut VehicleSync| p.color2 = 255, "color2", Range)]
#[case::flags_bit_4(|p: &mut VehicleSync| p.flags = 1 << 4, "flags", Reserved)]
#[case::flags_bit_7(|p: &mut VehicleSync| p.flags = flag::WRECKED | 1 << 7, "flags", Reserved)]
#[case::drowned_not_wrecked(|p: &mut VehicleSync| p.flags = flag::DROWNED, "flags", Combination)]
#[case::train_direction_on_a_car(|p: &mut VehicleSync| p.flags = flag::ALONG_TRACK, "flags", Combination)]
#[case::derailed_car(|p: &mut VehicleSync| p.flags = flag::DERAILED, "flags", Combination)]
#[case::damage_open_door(|p: &mut VehicleSync| p.damage.doors[3] = 1, "doors", Reserved)]
#[case::damage_door_5(|p: &mut VehicleSync| p.damage.doors[3] = 5, "doors", Range)]
#[case::damage_panel_4(|p: &mut VehicleSync| p.damage.panels = 4, "panels", Range)]
#[case::params_bit_9(|p: &mut VehicleSync| p.params = 1 << 9, "params", Reserved)]
#[case::params_bit_15(|p: &mut VehicleSync| p.params |= 1 << 15, "params", Reserved)]
#[case::two_magnets(|p: &mut VehicleSync| p.params = param::MAGNET | param::SMALL_MAGNET, "params", Combination)]
#[case::doors_bit_6(|p: &mut VehicleSync| p.doors = 1 << 6, "doors", Reserved)]
fn vehicle_sync_show_rejects(
    #[case] m: fn(&mut VehicleSync),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&ss::vehicle_sync(), m, field, kind);
}

#[rstest]
#[case::model_400(|p: &mut VehicleSync| p.model = 400)]
#[case::model_611(|p: &mut VehicleSync| p.model = 611)]
#[case::colors_127(|p: &mut VehicleSync| { p.color1 = 127; p.color2 = 127 })]
#[case::drowned_wreck(|p: &mut VehicleSync| { p.flags = flag::WRECKED | flag::DROWNED; p.health = 312.0 })]
#[case::burnt_wreck(|p: &mut VehicleSync| { p.flags = flag::WRECKED; p.health = 0.0 })]
#[case::derailed_freight_train(|p: &mut VehicleSync| { p.model = 537; p.flags = flag::TRAIN })]
#[case::tram_along_track(|p: &mut VehicleSync| { p.model = 449; p.flags = flag::ALONG_TRACK })]
#[case::passenger_train(|p: &mut VehicleSync| { p.model = 538; p.flags = flag::DERAILED })]
#[case::every_param_but_small_magnet(|p: &mut VehicleSync| p.params = param::ALL & !param::SMALL_MAGNET)]
#[case::small_magnet(|p: &mut VehicleSync| p.params = param::SMALL_MAGNET)]
#[case::all_doors(|p: &mut VehicleSync| p.doors = door::ALL)]
#[case::hitched_and_lifted(|p: &mut VehicleSync| { p.tractor_id = VehicleId(7); p.lifter_id = VehicleId(8) })]
#[case::negative_health(|p: &mut VehicleSync| p.health = -120.0)]
fn vehicle_sync_show_accepts(#[case] m: fn(&mut VehicleSync)) {
    assert_accepts(&ss::vehicle_sync(), m);
}

fn hide() -> VehicleSync {
    VehicleSync::hide(EventId(5200), VehicleId(1042))
}

#[test]
fn vehicle_sync_hide_with_zeroed_placeholders_decodes() {
    assert_accepts(&hide(), |_| {});
}

#[rstest]
#[case::model(|p: &mut VehicleSync| p.model = 560, "model")]
#[case::pos(|p: &mut VehicleSync| p.pos = Vec3::new(0.0, 1.0, 0.0), "pos")]
#[case::pos_negative_zero(|p: &mut VehicleSync| p.pos.z = -0.0, "pos")]
#[case::heading(|p: &mut VehicleSync| p.heading = 90.0, "heading")]
#[case::color1(|p: &mut VehicleSync| p.color1 = 1, "color1")]
#[case::color2(|p: &mut VehicleSync| p.color2 = 1, "color2")]
#[case::health(|p: &mut VehicleSync| p.health = 1000.0, "health")]
#[case::flags(|p: &mut VehicleSync| p.flags = flag::WRECKED, "flags")]
#[case::epoch(|p: &mut VehicleSync| p.epoch = VehicleEpoch(3), "epoch")]
#[case::damage(|p: &mut VehicleSync| p.damage.wheels[0] = 1, "damage")]
#[case::params(|p: &mut VehicleSync| p.params = param::ENGINE, "params")]
#[case::doors(|p: &mut VehicleSync| p.doors = door::BOOT, "doors")]
#[case::relay_seq(|p: &mut VehicleSync| p.relay_seq = Seq(1), "relay_seq")]
#[case::health_rev(|p: &mut VehicleSync| p.health_rev = Revision(1), "health_rev")]
#[case::damage_rev(|p: &mut VehicleSync| p.damage_rev = Revision(1), "damage_rev")]
#[case::tractor_none(|p: &mut VehicleSync| p.tractor_id = VehicleId::NONE, "tractor_id")]
#[case::lifter_none(|p: &mut VehicleSync| p.lifter_id = VehicleId::NONE, "lifter_id")]
#[case::part(|p: &mut VehicleSync| p.part = 2500, "part")]
#[case::siren_rev(|p: &mut VehicleSync| p.siren_rev = Revision(1), "siren_rev")]
#[case::pose_rev(|p: &mut VehicleSync| p.pose_rev = Revision(1), "pose_rev")]
fn vehicle_sync_hide_rejects_a_non_zero_placeholder(
    #[case] m: fn(&mut VehicleSync),
    #[case] field: &str,
) {
    assert_rejects(&hide(), m, field, Reserved);
}

#[rstest]
#[case::active_2(offset::<VehicleSync>("active"), &[2], "active", Enum)]
#[case::nan_x(offset::<VehicleSync>("pos"), &NAN, "x", NonFinite)]
#[case::inf_z(offset::<VehicleSync>("pos") + 8, &INF, "z", NonFinite)]
#[case::nan_heading(offset::<VehicleSync>("heading"), &NAN, "heading", NonFinite)]
#[case::inf_health(offset::<VehicleSync>("health"), &INF, "health", NonFinite)]
#[case::open_door_byte(status_at::<VehicleSync>("damage", "doors"), &[3], "doors", Reserved)]
fn vehicle_sync_rejects_bytes(
    #[case] at: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects_bytes(&ss::vehicle_sync(), at, patch, field, kind);
}

#[test]
fn vehicle_sync_hide_rejects_nan_placeholder() {
    let at = offset::<VehicleSync>("health");
    assert_rejects_bytes(&hide(), at, &NAN, "health", NonFinite);
}

// VehicleSyncer, VehicleExplode, VehicleDeath, VehicleHealth

#[test]
fn vehicle_syncer_rejects_active_2() {
    let at = offset::<VehicleSyncer>("active");
    assert_rejects_bytes(&sl::vehicle_syncer(), at, &[2], "active", Enum);
    assert_accepts(&sl::vehicle_syncer(), |p| p.active = false);
}

#[rstest]
#[case::id_without_attacker(|p: &mut VehicleExplode| { p.has_attacker = false; p.attacker_token = PlayerToken(0) }, "attacker_id")]
#[case::token_without_attacker(|p: &mut VehicleExplode| { p.has_attacker = false; p.attacker_id = PlayerId(0) }, "attacker_token")]
fn vehicle_explode_rejects_placeholder(#[case] m: fn(&mut VehicleExplode), #[case] field: &str) {
    assert_rejects(&sl::vehicle_explode(), m, field, Reserved);
}

#[rstest]
#[case::no_attacker(|p: &mut VehicleExplode| { p.has_attacker = false; p.attacker_id = PlayerId(0); p.attacker_token = PlayerToken(0) })]
#[case::drowned(|p: &mut VehicleExplode| p.cause = VehicleDeathCause::Drowned)]
#[case::attacker_0(|p: &mut VehicleExplode| p.attacker_id = PlayerId(0))]
fn vehicle_explode_accepts(#[case] m: fn(&mut VehicleExplode)) {
    assert_accepts(&sl::vehicle_explode(), m);
}

#[rstest]
#[case::cause_2(offset::<VehicleExplode>("cause"), 2, "cause")]
#[case::cause_255(offset::<VehicleExplode>("cause"), 255, "cause")]
#[case::has_attacker_2(offset::<VehicleExplode>("has_attacker"), 2, "has_attacker")]
fn vehicle_explode_rejects_unknown(#[case] at: usize, #[case] value: u8, #[case] field: &str) {
    assert_rejects_bytes(&sl::vehicle_explode(), at, &[value], field, Enum);
}

#[rstest]
#[case::id_without_killer(|p: &mut VehicleDeath| { p.has_killer = false; p.killer_token = PlayerToken(0) }, "killer_id", Reserved)]
#[case::token_without_killer(|p: &mut VehicleDeath| { p.has_killer = false; p.killer_id = PlayerId(0) }, "killer_token", Reserved)]
#[case::killer_of_a_drowning(|p: &mut VehicleDeath| p.cause = VehicleDeathCause::Drowned, "has_killer", Combination)]
fn vehicle_death_rejects(
    #[case] m: fn(&mut VehicleDeath),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&sl::vehicle_death(), m, field, kind);
}

#[test]
fn vehicle_death_of_a_drowning_without_killer_decodes() {
    assert_accepts(&sl::vehicle_death(), |p| {
        p.cause = VehicleDeathCause::Drowned;
        p.has_killer = false;
        p.killer_id = PlayerId(0);
        p.killer_token = PlayerToken(0);
    });
}

#[rstest]
#[case::cause_2(offset::<VehicleDeath>("cause"), 2, "cause")]
#[case::has_killer_2(offset::<VehicleDeath>("has_killer"), 2, "has_killer")]
fn vehicle_death_rejects_unknown(#[case] at: usize, #[case] value: u8, #[case] field: &str) {
    assert_rejects_bytes(&sl::vehicle_death(), at, &[value], field, Enum);
}

#[rstest]
#[case::negative(|p: &mut VehicleHealth| p.health = -0.5)]
#[case::above_max(|p: &mut VehicleHealth| p.health = 100_000.5)]
#[case::huge(|p: &mut VehicleHealth| p.health = f32::MAX)]
fn vehicle_health_rejects(#[case] m: fn(&mut VehicleHealth)) {
    assert_rejects(&sl::vehicle_health(), m, "health", Range);
}

#[rstest]
#[case::zero(|p: &mut VehicleHealth| p.health = 0.0)]
#[case::burning(|p: &mut VehicleHealth| p.health = 249.0)]
#[case::max(|p: &mut VehicleHealth| p.health = 100_000.0)]
fn vehicle_health_accepts(#[case] m: fn(&mut VehicleHealth)) {
    assert_accepts(&sl::vehicle_health(), m);
}

#[rstest]
#[case::nan(&NAN)]
#[case::inf(&INF)]
fn vehicle_health_rejects_non_finite(#[case] patch: &[u8]) {
    let at = offset::<VehicleHealth>("health");
    assert_rejects_bytes(&sl::vehicle_health(), at, patch, "health", NonFinite);
}

// VehicleParams, VehicleControl

#[rstest]
#[case::params_bit_9(|p: &mut VehicleParams| p.params = 1 << 9, "params", Reserved)]
#[case::params_bit_15(|p: &mut VehicleParams| p.params |= 1 << 15, "params", Reserved)]
#[case::two_magnets(|p: &mut VehicleParams| p.params |= param::SMALL_MAGNET, "params", Combination)]
#[case::doors_bit_6(|p: &mut VehicleParams| p.doors = 1 << 6, "doors", Reserved)]
#[case::doors_set_bit_7(|p: &mut VehicleParams| p.doors_set = 1 << 7, "doors_set", Reserved)]
fn vehicle_params_rejects(
    #[case] m: fn(&mut VehicleParams),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&sp::vehicle_params(), m, field, kind);
}

#[rstest]
#[case::every_bit_with_magnet(|p: &mut VehicleParams| p.params = param::ALL & !param::SMALL_MAGNET)]
#[case::small_magnet(|p: &mut VehicleParams| p.params = param::SMALL_MAGNET | param::HAS_SIREN)]
#[case::all_doors(|p: &mut VehicleParams| { p.doors = door::ALL; p.doors_set = door::ALL })]
#[case::nothing(|p: &mut VehicleParams| { p.params = 0; p.doors = 0; p.doors_set = 0 })]
fn vehicle_params_accepts(#[case] m: fn(&mut VehicleParams)) {
    assert_accepts(&sp::vehicle_params(), m);
}

#[rstest]
#[case::control_3(offset::<VehicleControl>("control"), 3, "control")]
#[case::value_2(offset::<VehicleControl>("value"), 2, "value")]
fn vehicle_control_rejects_unknown(#[case] at: usize, #[case] value: u8, #[case] field: &str) {
    assert_rejects_bytes(&sp::vehicle_control(), at, &[value], field, Enum);
}

#[test]
fn vehicle_control_lock_decodes_for_the_handler_to_drop() {
    assert_accepts(&sp::vehicle_control(), |p| {
        p.control = VehicleControlKind::Lock;
        p.value = false;
    });
}

// VehicleTuning, VehicleHandling

#[rstest]
#[case::part_999(|p: &mut VehicleTuning| p.components[0] = 999, "components", Range)]
#[case::part_1194(|p: &mut VehicleTuning| p.components[16] = 1194, "components", Range)]
#[case::part_1(|p: &mut VehicleTuning| p.components[12] = 1, "components", Range)]
#[case::paintjob_8(|p: &mut VehicleTuning| p.paintjob = 8, "paintjob", Range)]
#[case::paintjob_254(|p: &mut VehicleTuning| p.paintjob = 0xFE, "paintjob", Range)]
#[case::plate_lowercase(|p: &mut VehicleTuning| p.plate = FixedText::new("grove 92").unwrap(), "plate", Text)]
#[case::plate_dash(|p: &mut VehicleTuning| p.plate = FixedText::new("GROVE-92").unwrap(), "plate", Text)]
#[case::plate_partly_set(|p: &mut VehicleTuning| p.plate = FixedText::new("GROVE").unwrap(), "plate", Text)]
#[case::plate_7_chars(|p: &mut VehicleTuning| p.plate = FixedText::new("GROVE 9").unwrap(), "plate", Text)]
#[case::dirt_16(|p: &mut VehicleTuning| p.dirt = 16, "dirt", Range)]
#[case::dirt_254(|p: &mut VehicleTuning| p.dirt = 0xFE, "dirt", Range)]
#[case::flags_bit_1(|p: &mut VehicleTuning| p.flags = 1 << 1, "flags", Reserved)]
#[case::flags_bit_7(|p: &mut VehicleTuning| p.flags = TAXI_LIGHT | 1 << 7, "flags", Reserved)]
#[case::nitro_101(|p: &mut VehicleTuning| p.nitro = 101, "nitro", Range)]
#[case::charges_without_nitro(|p: &mut VehicleTuning| p.components[kind::NITRO] = 0, "nitro", Combination)]
fn vehicle_tuning_rejects(
    #[case] m: fn(&mut VehicleTuning),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&stu::vehicle_tuning(), m, field, kind);
}

#[rstest]
#[case::parts_1000_and_1193(|p: &mut VehicleTuning| { p.components[0] = 1000; p.components[16] = 1193 })]
#[case::paintjob_7(|p: &mut VehicleTuning| p.paintjob = 7)]
#[case::plain_colors(|p: &mut VehicleTuning| p.paintjob = NO_PAINTJOB)]
#[case::game_plate(|p: &mut VehicleTuning| p.plate = FixedText::EMPTY)]
#[case::plate_all_spaces(|p: &mut VehicleTuning| p.plate = FixedText::new("        ").unwrap())]
#[case::plate_digits(|p: &mut VehicleTuning| p.plate = FixedText::new("0123AZ89").unwrap())]
#[case::dirt_15(|p: &mut VehicleTuning| p.dirt = 15)]
#[case::dirt_not_set(|p: &mut VehicleTuning| p.dirt = NO_DIRT)]
#[case::taxi_light(|p: &mut VehicleTuning| p.flags = TAXI_LIGHT)]
#[case::nitro_100(|p: &mut VehicleTuning| p.nitro = 100)]
#[case::nitro_part_without_charges(|p: &mut VehicleTuning| p.nitro = 0)]
#[case::untuned(|p: &mut VehicleTuning| { p.components = [0; kind::COUNT]; p.nitro = 0 })]
fn vehicle_tuning_accepts(#[case] m: fn(&mut VehicleTuning)) {
    assert_accepts(&stu::vehicle_tuning(), m);
}

#[rstest]
#[case::invalid_utf8(0, &[0xFF])]
#[case::byte_after_nul(3, &[0, b'X'])]
fn vehicle_tuning_rejects_plate_bytes(#[case] inner: usize, #[case] patch: &[u8]) {
    let at = offset::<VehicleTuning>("plate") + inner;
    assert_rejects_bytes(&stu::vehicle_tuning(), at, patch, "plate", Text);
}

/// The sample with property `i` set to `v`.
fn handling_with(i: usize, v: f32) -> VehicleHandling {
    let mut p = stu::vehicle_handling();
    p.mask |= 1 << i;
    p.values[i] = v;
    p
}

#[rstest]
#[case::mass_below_1(0, 0.5)]
#[case::mass_above(0, 100_000.5)]
#[case::turn_mass_0(1, 0.0)]
#[case::turn_mass_above(1, 10_000_001.0)]
#[case::drag_negative(2, -0.1)]
#[case::drag_above(2, 200.5)]
#[case::center_x_below(3, -10.5)]
#[case::center_y_above(4, 10.5)]
#[case::center_z_above(5, 11.0)]
#[case::traction_multiplier_below(6, -100.5)]
#[case::traction_loss_above(7, 100.5)]
#[case::traction_bias_above(8, 1.01)]
#[case::brake_deceleration_above(9, 1000.5)]
#[case::brake_bias_negative(10, -0.01)]
#[case::abs_2(11, 2.0)]
#[case::abs_half(11, 0.5)]
#[case::steering_lock_above(12, 360.5)]
#[case::suspension_force_above(13, 100.5)]
#[case::suspension_damping_negative(14, -1.0)]
#[case::high_speed_damping_above(15, 600.5)]
#[case::collision_damage_above(16, 10.5)]
#[case::max_velocity_below(17, 0.05)]
#[case::engine_acceleration_above(18, 1000.5)]
#[case::engine_inertia_below(19, 0.005)]
#[case::gears_0(20, 0.0)]
#[case::gears_6(20, 6.0)]
#[case::gears_fractional(20, 2.5)]
fn vehicle_handling_rejects_a_set_value(#[case] i: usize, #[case] v: f32) {
    let valid = stu::vehicle_handling();
    assert_rejects(
        &valid,
        |p| {
            *p = handling_with(i, v);
        },
        "values",
        Range,
    );
}

#[rstest]
#[case::mass_1(0, 1.0)]
#[case::mass_max(0, 100_000.0)]
#[case::turn_mass_max(1, 10_000_000.0)]
#[case::drag_0(2, 0.0)]
#[case::center_min(3, -10.0)]
#[case::traction_multiplier_min(6, -100.0)]
#[case::traction_bias_1(8, 1.0)]
#[case::abs_0(11, 0.0)]
#[case::steering_lock_360(12, 360.0)]
#[case::high_speed_damping_600(15, 600.0)]
#[case::max_velocity_min(17, 0.1)]
#[case::engine_inertia_min(19, 0.01)]
#[case::gears_1(20, 1.0)]
fn vehicle_handling_accepts_a_boundary(#[case] i: usize, #[case] v: f32) {
    assert_accepts(&handling_with(i, v), |_| {});
}

#[rstest]
#[case::mask_bit_21(|p: &mut VehicleHandling| p.mask |= 1 << 21, "mask", Reserved)]
#[case::mask_bit_31(|p: &mut VehicleHandling| p.mask |= 1 << 31, "mask", Reserved)]
#[case::value_not_set(|p: &mut VehicleHandling| p.values[1] = 5000.0, "values", Reserved)]
#[case::negative_zero_not_set(|p: &mut VehicleHandling| p.values[2] = -0.0, "values", Reserved)]
#[case::bit_cleared(|p: &mut VehicleHandling| p.mask &= !1, "values", Reserved)]
fn vehicle_handling_rejects(
    #[case] m: fn(&mut VehicleHandling),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&stu::vehicle_handling(), m, field, kind);
}

#[test]
fn vehicle_handling_without_properties_decodes() {
    assert_accepts(&stu::vehicle_handling(), |p| {
        p.mask = 0;
        p.values = [0.0; 21];
    });
}

#[rstest]
#[case::nan_set(0, &NAN)]
#[case::inf_set(20, &INF)]
#[case::nan_not_set(1, &NAN)]
fn vehicle_handling_rejects_non_finite(#[case] i: usize, #[case] patch: &[u8]) {
    let at = offset::<VehicleHandling>("values") + 4 * i;
    assert_rejects_bytes(&stu::vehicle_handling(), at, patch, "values", NonFinite);
}

// VehicleTransform, VehicleColors

fn unfreeze() -> VehicleTransform {
    let mut p = st::vehicle_transform();
    p.flags = 0;
    p.pos = Vec3::ZERO;
    p.rot = [0.0; 4];
    p
}

#[rstest]
#[case::flags_bit_5(|p: &mut VehicleTransform| p.flags |= 1 << 5, "flags", Reserved)]
#[case::flags_bit_7(|p: &mut VehicleTransform| p.flags |= 1 << 7, "flags", Reserved)]
#[case::freeze_without_rotation(|p: &mut VehicleTransform| { p.flags &= !transform_flag::ROTATION; p.rot = [0.0; 4] }, "flags", Combination)]
#[case::freeze_without_position(|p: &mut VehicleTransform| { p.flags &= !transform_flag::POSITION; p.pos = Vec3::ZERO }, "flags", Combination)]
#[case::x_outside(|p: &mut VehicleTransform| p.pos.x = 6000.5, "pos", Range)]
#[case::y_outside(|p: &mut VehicleTransform| p.pos.y = -6001.0, "pos", Range)]
#[case::z_below(|p: &mut VehicleTransform| p.pos.z = -200.5, "pos", Range)]
#[case::z_above(|p: &mut VehicleTransform| p.pos.z = 4000.5, "pos", Range)]
#[case::rot_norm_big(|p: &mut VehicleTransform| p.rot = [0.0, 0.0, 0.0, 1.11], "rot", Range)]
#[case::rot_zero(|p: &mut VehicleTransform| p.rot = [0.0; 4], "rot", Range)]
#[case::move_speed_not_set(|p: &mut VehicleTransform| p.move_speed.x = 0.1, "move_speed", Reserved)]
#[case::turn_speed_not_set(|p: &mut VehicleTransform| p.turn_speed.z = -0.0, "turn_speed", Reserved)]
fn vehicle_transform_rejects(
    #[case] m: fn(&mut VehicleTransform),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&st::vehicle_transform(), m, field, kind);
}

#[rstest]
#[case::pos_not_set(|p: &mut VehicleTransform| p.pos.x = 1.0, "pos", Reserved)]
#[case::rot_not_set(|p: &mut VehicleTransform| p.rot[3] = 1.0, "rot", Reserved)]
#[case::move_speed_too_fast(|p: &mut VehicleTransform| { p.flags = transform_flag::VELOCITY; p.move_speed = Vec3::new(3.0, 4.0, 0.1) }, "move_speed", Range)]
#[case::turn_speed_too_fast(|p: &mut VehicleTransform| { p.flags = transform_flag::ANGULAR_VELOCITY; p.turn_speed = Vec3::new(0.0, 0.0, 1.01) }, "turn_speed", Range)]
fn vehicle_transform_without_fields_rejects(
    #[case] m: fn(&mut VehicleTransform),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&unfreeze(), m, field, kind);
}

#[rstest]
#[case::unfreeze(|_: &mut VehicleTransform| {})]
#[case::world_corner(|p: &mut VehicleTransform| { p.flags = transform_flag::POSITION; p.pos = Vec3::new(-6000.0, 6000.0, 4000.0) })]
#[case::world_floor(|p: &mut VehicleTransform| { p.flags = transform_flag::POSITION; p.pos = Vec3::new(0.0, 0.0, -200.0) })]
#[case::rotation_norm_0_91(|p: &mut VehicleTransform| { p.flags = transform_flag::ROTATION; p.rot = [0.0, 0.0, 0.0, 0.91] })]
#[case::velocity_5(|p: &mut VehicleTransform| { p.flags = transform_flag::VELOCITY; p.move_speed = Vec3::new(3.0, 4.0, 0.0) })]
#[case::angular_velocity_1(|p: &mut VehicleTransform| { p.flags = transform_flag::ANGULAR_VELOCITY; p.turn_speed = Vec3::new(0.0, 0.0, -1.0) })]
#[case::every_field(|p: &mut VehicleTransform| {
    p.flags = transform_flag::ALL & !transform_flag::FROZEN;
    p.pos = Vec3::new(1200.0, -800.0, 15.0);
    p.rot = [0.0, 0.0, 0.0, 1.0];
    p.move_speed = Vec3::new(0.2, 0.1, 0.0);
    p.turn_speed = Vec3::new(0.0, 0.0, 0.05);
})]
fn vehicle_transform_accepts(#[case] m: fn(&mut VehicleTransform)) {
    assert_accepts(&unfreeze(), m);
}

#[rstest]
#[case::nan_pos_x(offset::<VehicleTransform>("pos"), &NAN, "x")]
#[case::inf_pos_z(offset::<VehicleTransform>("pos") + 8, &INF, "z")]
#[case::nan_rot_w(offset::<VehicleTransform>("rot") + 12, &NAN, "rot")]
#[case::nan_move_speed_y(offset::<VehicleTransform>("move_speed") + 4, &NAN, "y")]
#[case::inf_turn_speed_x(offset::<VehicleTransform>("turn_speed"), &INF, "x")]
fn vehicle_transform_rejects_non_finite(
    #[case] at: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
) {
    assert_rejects_bytes(&st::vehicle_transform(), at, patch, field, NonFinite);
}

#[rstest]
#[case::color1_128(|p: &mut VehicleColors| p.color1 = 128, "color1")]
#[case::color2_128(|p: &mut VehicleColors| p.color2 = 128, "color2")]
#[case::color1_255(|p: &mut VehicleColors| p.color1 = 255, "color1")]
fn vehicle_colors_rejects(#[case] m: fn(&mut VehicleColors), #[case] field: &str) {
    assert_rejects(&st::vehicle_colors(), m, field, Range);
}

#[test]
fn vehicle_colors_accepts_0_and_127() {
    assert_accepts(&st::vehicle_colors(), |p| {
        p.color1 = 0;
        p.color2 = 127;
    });
}
