//! world.md: every packet refuses a wrong length and each range, enum, finiteness,
//! combination and placeholder rule the page states for it; hides (active = 0) carry only
//! their id.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::*;
use dlmp::protocol::text::FixedText;
use dlmp::protocol::world::environment::*;
use dlmp::protocol::world::label::*;
use dlmp::protocol::world::markers::*;
use dlmp::protocol::world::object::*;
use dlmp::protocol::world::pickup::*;
use dlmp::protocol::world::samples::{
    environment as env, label as lab, markers as mk, object as obj, pickup as pk, waypoint as wp,
};
use dlmp::protocol::world::shared::{AttachKind, MarkerId};
use dlmp::protocol::world::waypoint::*;
use dlmp::protocol::{Packet, Wire};
use rstest::rstest;
use support::*;

/// `p` changed by `m` still decodes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(valid: &P, m: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    m(&mut p);
    assert_eq!(P::decode(&raw(&p)).as_ref(), Ok(&p));
    assert_eq!(p.to_bytes().map(|b| b.len()), Ok(1 + P::SIZE));
}

#[rstest]
#[case::pickup_sync(|| assert_exact_length(&pk::pickup_sync()))]
#[case::pickup_touch(|| assert_exact_length(&pk::pickup_touch()))]
#[case::set_time(|| assert_exact_length(&env::set_time()))]
#[case::set_weather(|| assert_exact_length(&env::set_weather()))]
#[case::run_clock(|| assert_exact_length(&env::run_clock()))]
#[case::garage_doors(|| assert_exact_length(&env::garage_doors()))]
#[case::label_3d(|| assert_exact_length(&lab::label_3d()))]
#[case::checkpoint(|| assert_exact_length(&mk::checkpoint()))]
#[case::blip(|| assert_exact_length(&mk::blip()))]
#[case::gang_zone(|| assert_exact_length(&mk::gang_zone()))]
#[case::colshape_shape(|| assert_exact_length(&mk::colshape_shape()))]
#[case::object_state(|| assert_exact_length(&obj::object_state()))]
#[case::player_waypoint(|| assert_exact_length(&wp::player_waypoint()))]
#[case::set_waypoint(|| assert_exact_length(&wp::set_waypoint()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[test]
fn totals_match_the_page() {
    let totals = [
        (PickupSync::SIZE, 35),
        (PickupTouch::SIZE, 17),
        (SetTime::SIZE, 7),
        (SetWeather::SIZE, 6),
        (RunClock::SIZE, 11),
        (GarageDoors::SIZE, 13),
        (Label3D::SIZE, 291),
        (Checkpoint::SIZE, 43),
        (Blip::SIZE, 37),
        (GangZone::SIZE, 40),
        (ColshapeShape::SIZE, 39),
        (ObjectState::SIZE, 79),
        (PlayerWaypoint::SIZE, 22),
        (SetWaypoint::SIZE, 14),
    ];
    for (size, total) in totals {
        assert_eq!(1 + size, total);
    }
}

// PickupSync

#[rstest]
#[case::x_over_4095(|p: &mut PickupSync| p.pos.x = 4095.5, "pos", Range)]
#[case::y_under_4095(|p: &mut PickupSync| p.pos.y = -4096.0, "pos", Range)]
#[case::z_below_200(|p: &mut PickupSync| p.pos.z = -200.5, "pos", Range)]
#[case::z_over_4000(|p: &mut PickupSync| p.pos.z = 4000.5, "pos", Range)]
#[case::scale_small(|p: &mut PickupSync| p.scale = 0.09, "scale", Range)]
#[case::scale_zero(|p: &mut PickupSync| p.scale = 0.0, "scale", Range)]
#[case::scale_big(|p: &mut PickupSync| p.scale = 10.5, "scale", Range)]
fn pickup_sync_rejects(
    #[case] m: fn(&mut PickupSync),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&pk::pickup_sync(), m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::highlight_2("highlight", 0, &[2], "highlight", Enum)]
#[case::x_nan("pos", 0, &NAN, "x", NonFinite)]
#[case::z_inf("pos", 8, &INF, "z", NonFinite)]
#[case::scale_nan("scale", 0, &NAN, "scale", NonFinite)]
fn pickup_sync_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<PickupSync>(at) + inner;
    assert_rejects_bytes(&pk::pickup_sync(), at, patch, field, kind);
}

#[rstest]
#[case::corner_high(|p: &mut PickupSync| p.pos = Vec3::new(4095.0, -4095.0, 4000.0))]
#[case::corner_low(|p: &mut PickupSync| p.pos = Vec3::new(-4095.0, 4095.0, -200.0))]
#[case::scale_min(|p: &mut PickupSync| p.scale = 0.1)]
#[case::scale_max(|p: &mut PickupSync| p.scale = 10.0)]
#[case::no_glow(|p: &mut PickupSync| p.highlight = false)]
#[case::removal_ignores_pose(|p: &mut PickupSync| { p.active = false; p.pos.x = 5000.0; p.scale = 0.0 })]
fn pickup_sync_accepts(#[case] m: fn(&mut PickupSync)) {
    assert_accepts(&pk::pickup_sync(), m);
}

#[test]
fn pickup_removal_round_trips() {
    assert_accepts(&PickupSync::remove(EventId(9), PickupId(42)), |_| {});
}

#[test]
fn a_removal_still_needs_finite_floats() {
    let p = PickupSync::remove(EventId(9), PickupId(42));
    assert_rejects_bytes(&p, offset::<PickupSync>("scale"), &NAN, "scale", NonFinite);
}

// SetTime, SetWeather, RunClock, GarageDoors

#[rstest]
#[case::hours_24(|p: &mut SetTime| p.hours = 24, "hours", Range)]
#[case::minutes_60(|p: &mut SetTime| p.minutes = 60, "minutes", Range)]
#[case::minutes_255(|p: &mut SetTime| p.minutes = 255, "minutes", Range)]
fn set_time_rejects(#[case] m: fn(&mut SetTime), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&env::set_time(), m, field, kind);
}

#[rstest]
#[case::weather_23(|p: &mut SetWeather| p.weather = 23, "weather", Range)]
#[case::weather_255(|p: &mut SetWeather| p.weather = 255, "weather", Range)]
fn set_weather_rejects(
    #[case] m: fn(&mut SetWeather),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&env::set_weather(), m, field, kind);
}

#[rstest]
#[case::hours_24(|p: &mut RunClock| p.hours = 24, "hours", Range)]
#[case::minutes_60(|p: &mut RunClock| p.minutes = 60, "minutes", Range)]
#[case::minute_ms_0(|p: &mut RunClock| p.minute_ms = 0, "minute_ms", Range)]
#[case::minute_ms_9(|p: &mut RunClock| p.minute_ms = 9, "minute_ms", Range)]
#[case::minute_ms_over(|p: &mut RunClock| p.minute_ms = 3_600_001, "minute_ms", Range)]
fn run_clock_rejects(#[case] m: fn(&mut RunClock), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&env::run_clock(), m, field, kind);
}

#[rstest]
#[case::bit_50(|p: &mut GarageDoors| p.open = 1 << 50, "open", Reserved)]
#[case::bit_63(|p: &mut GarageDoors| p.open |= 1 << 63, "open", Reserved)]
fn garage_doors_rejects(
    #[case] m: fn(&mut GarageDoors),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&env::garage_doors(), m, field, kind);
}

#[test]
fn environment_boundaries_are_accepted() {
    assert_accepts(&env::set_time(), |p| (p.hours, p.minutes) = (23, 59));
    assert_accepts(&env::set_time(), |p| (p.hours, p.minutes) = (0, 0));
    assert_accepts(&env::set_weather(), |p| p.weather = 22);
    assert_accepts(&env::run_clock(), |p| (p.hours, p.minutes) = (23, 59));
    assert_accepts(&env::run_clock(), |p| p.minute_ms = 10);
    assert_accepts(&env::run_clock(), |p| p.minute_ms = 3_600_000);
    assert_accepts(&env::run_clock(), |p| p.minute_ms = REAL_MINUTE_MS);
    assert_accepts(&env::garage_doors(), |p| p.open = (1 << 50) - 1);
    assert_accepts(&env::garage_doors(), |p| p.open = 0);
}

// Label3D

#[rstest]
#[case::color_top_byte(|p: &mut Label3D| p.color = 0x0100_0000, "color", Range)]
#[case::x_out(|p: &mut Label3D| p.pos.x = 6000.5, "pos", Range)]
#[case::y_out(|p: &mut Label3D| p.pos.y = -6001.0, "pos", Range)]
#[case::z_low(|p: &mut Label3D| p.pos.z = -200.5, "pos", Range)]
#[case::z_high(|p: &mut Label3D| p.pos.z = 4000.5, "pos", Range)]
#[case::distance_zero(|p: &mut Label3D| p.draw_distance = 0.0, "draw_distance", Range)]
#[case::distance_negative(|p: &mut Label3D| p.draw_distance = -5.0, "draw_distance", Range)]
#[case::distance_over(|p: &mut Label3D| p.draw_distance = 300.5, "draw_distance", Range)]
#[case::text_unterminated(|p: &mut Label3D| p.text = FixedText::new(&"a".repeat(256)).expect("fits"), "text", Text)]
#[case::hide_text_unterminated(|p: &mut Label3D| { p.active = false; p.text = FixedText::new(&"a".repeat(256)).expect("fits") }, "text", Text)]
fn label_3d_rejects(#[case] m: fn(&mut Label3D), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&lab::label_3d(), m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::attach_kind_3("attach_kind", 0, &[3], "attach_kind", Enum)]
#[case::y_nan("pos", 4, &NAN, "y", NonFinite)]
#[case::distance_nan("draw_distance", 0, &NAN, "draw_distance", NonFinite)]
#[case::distance_inf("draw_distance", 0, &INF, "draw_distance", NonFinite)]
#[case::text_bad_utf8("text", 0, &[0xFF], "text", Text)]
#[case::text_garbage_after_nul("text", 100, b"x", "text", Text)]
fn label_3d_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<Label3D>(at) + inner;
    assert_rejects_bytes(&lab::label_3d(), at, patch, field, kind);
}

#[rstest]
#[case::distance_max(|p: &mut Label3D| p.draw_distance = 300.0)]
#[case::color_white(|p: &mut Label3D| p.color = 0x00FF_FFFF)]
#[case::bounds_high(|p: &mut Label3D| p.pos = Vec3::new(6000.0, -6000.0, 4000.0))]
#[case::bounds_low(|p: &mut Label3D| p.pos = Vec3::new(-6000.0, 6000.0, -200.0))]
#[case::text_255(|p: &mut Label3D| p.text = FixedText::new(&"a".repeat(255)).expect("fits"))]
#[case::on_a_vehicle(|p: &mut Label3D| { p.attach_kind = AttachKind::Vehicle; p.attach_id = 77; p.pos = Vec3::new(0.0, 0.0, 1.5) })]
#[case::hide_ignores_fields(|p: &mut Label3D| { p.active = false; p.color = u32::MAX; p.pos.z = -999.0; p.draw_distance = 0.0 })]
fn label_3d_accepts(#[case] m: fn(&mut Label3D)) {
    assert_accepts(&lab::label_3d(), m);
}

// Checkpoint

#[rstest]
#[case::x_out(|p: &mut Checkpoint| p.pos.x = -6000.5, "pos", Range)]
#[case::z_high(|p: &mut Checkpoint| p.pos.z = 4001.0, "pos", Range)]
#[case::next_out(|p: &mut Checkpoint| p.next.y = 6000.5, "next", Range)]
#[case::radius_zero(|p: &mut Checkpoint| p.radius = 0.0, "radius", Range)]
#[case::radius_over(|p: &mut Checkpoint| p.radius = 100.5, "radius", Range)]
#[case::color_top_byte(|p: &mut Checkpoint| p.color = 0xFF00_0000, "color", Range)]
fn checkpoint_rejects(
    #[case] m: fn(&mut Checkpoint),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&mk::checkpoint(), m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::kind_5("kind", 0, &[5], "kind", Enum)]
#[case::x_nan("pos", 0, &NAN, "x", NonFinite)]
#[case::next_z_nan("next", 8, &NAN, "z", NonFinite)]
#[case::radius_inf("radius", 0, &INF, "radius", NonFinite)]
fn checkpoint_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<Checkpoint>(at) + inner;
    assert_rejects_bytes(&mk::checkpoint(), at, patch, field, kind);
}

#[rstest]
#[case::radius_max(|p: &mut Checkpoint| p.radius = 100.0)]
#[case::air_finish(|p: &mut Checkpoint| p.kind = CheckpointKind::AirFinish)]
#[case::no_next(|p: &mut Checkpoint| p.next = p.pos)]
#[case::next_at_bounds(|p: &mut Checkpoint| p.next = Vec3::new(6000.0, -6000.0, -200.0))]
#[case::hide_ignores_fields(|p: &mut Checkpoint| { p.active = false; p.radius = 0.0; p.next.x = 9000.0; p.color = u32::MAX })]
fn checkpoint_accepts(#[case] m: fn(&mut Checkpoint)) {
    assert_accepts(&mk::checkpoint(), m);
}

// Blip

#[rstest]
#[case::size_small(|p: &mut Blip| p.size = 0.24, "size", Range)]
#[case::size_big(|p: &mut Blip| p.size = 4.5, "size", Range)]
#[case::hide_size_zero(|p: &mut Blip| { p.active = false; p.size = 0.0 }, "size", Range)]
#[case::flags_bit_2(|p: &mut Blip| p.flags = BlipFlags(0b100), "flags", Reserved)]
#[case::flags_bit_7(|p: &mut Blip| p.flags = BlipFlags(0x81), "flags", Reserved)]
#[case::hide_flags_unknown(|p: &mut Blip| { p.active = false; p.flags = BlipFlags(0x10) }, "flags", Reserved)]
#[case::sprite_64(|p: &mut Blip| { p.attach_kind = AttachKind::None; p.sprite = 64 }, "sprite", Range)]
#[case::sprite_on_vehicle(|p: &mut Blip| p.sprite = 5, "sprite", Combination)]
#[case::sprite_on_player(|p: &mut Blip| { p.attach_kind = AttachKind::Player; p.sprite = 63 }, "sprite", Combination)]
#[case::color_top_byte(|p: &mut Blip| p.color = 0x0100_0000, "color", Range)]
#[case::pos_out(|p: &mut Blip| p.pos.x = 6100.0, "pos", Range)]
fn blip_rejects(#[case] m: fn(&mut Blip), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&mk::blip(), m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::attach_kind_3("attach_kind", 0, &[3], "attach_kind", Enum)]
#[case::size_nan("size", 0, &NAN, "size", NonFinite)]
#[case::z_inf("pos", 8, &INF, "z", NonFinite)]
fn blip_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<Blip>(at) + inner;
    assert_rejects_bytes(&mk::blip(), at, patch, field, kind);
}

#[rstest]
#[case::size_min(|p: &mut Blip| p.size = 0.25)]
#[case::size_max(|p: &mut Blip| p.size = 4.0)]
#[case::both_flags(|p: &mut Blip| p.flags = BlipFlags::KNOWN)]
#[case::icon_63_standing(|p: &mut Blip| { p.attach_kind = AttachKind::None; p.attach_id = 0; p.sprite = 63 })]
#[case::hide_ignores_sprite(|p: &mut Blip| { p.active = false; p.sprite = 200; p.color = u32::MAX })]
fn blip_accepts(#[case] m: fn(&mut Blip)) {
    assert_accepts(&mk::blip(), m);
}

// GangZone

#[rstest]
#[case::color_top_byte(|p: &mut GangZone| p.color = 0x0100_0000, "color", Range)]
#[case::flash_color_top_byte(|p: &mut GangZone| p.flash_color = 0x8000_0000, "flash_color", Range)]
#[case::min_x_out(|p: &mut GangZone| p.min_x = -6000.5, "min_x", Range)]
#[case::min_y_out(|p: &mut GangZone| p.min_y = -6001.0, "min_y", Range)]
#[case::max_x_out(|p: &mut GangZone| p.max_x = 6000.5, "max_x", Range)]
#[case::max_y_out(|p: &mut GangZone| p.max_y = 7000.0, "max_y", Range)]
#[case::flat_x(|p: &mut GangZone| p.max_x = p.min_x, "max_x", Combination)]
#[case::inverted_y(|p: &mut GangZone| p.max_y = p.min_y - 10.0, "max_y", Combination)]
fn gang_zone_rejects(#[case] m: fn(&mut GangZone), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&mk::gang_zone(), m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::flashing_2("flashing", 0, &[2], "flashing", Enum)]
#[case::min_y_nan("min_y", 0, &NAN, "min_y", NonFinite)]
#[case::max_x_inf("max_x", 0, &INF, "max_x", NonFinite)]
fn gang_zone_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<GangZone>(at) + inner;
    assert_rejects_bytes(&mk::gang_zone(), at, patch, field, kind);
}

#[rstest]
#[case::whole_world(|p: &mut GangZone| (p.min_x, p.min_y, p.max_x, p.max_y) = (-6000.0, -6000.0, 6000.0, 6000.0))]
#[case::thin(|p: &mut GangZone| p.max_x = p.min_x + 0.5)]
#[case::steady(|p: &mut GangZone| { p.flashing = false; p.alpha = 255 })]
#[case::hide_ignores_fields(|p: &mut GangZone| { p.active = false; p.max_x = p.min_x; p.color = u32::MAX })]
fn gang_zone_accepts(#[case] m: fn(&mut GangZone)) {
    assert_accepts(&mk::gang_zone(), m);
}

// ColshapeShape

fn sphere() -> ColshapeShape {
    let mut p = mk::colshape_shape();
    p.form = ColshapeForm::Sphere;
    p.b = Vec3::new(25.0, 0.0, 0.0);
    p
}

fn cube() -> ColshapeShape {
    let mut p = mk::colshape_shape();
    p.form = ColshapeForm::Box;
    p.a = Vec3::new(1500.0, -1700.0, 10.0);
    p.b = Vec3::new(1520.0, -1680.0, 18.0);
    p
}

#[rstest]
#[case::a_out(mk::colshape_shape(), |p: &mut ColshapeShape| p.a.z = -250.0, "a", Range)]
#[case::cylinder_radius_zero(mk::colshape_shape(), |p: &mut ColshapeShape| p.b.x = 0.0, "b", Range)]
#[case::cylinder_height_negative(mk::colshape_shape(), |p: &mut ColshapeShape| p.b.y = -1.0, "b", Range)]
#[case::cylinder_height_over(mk::colshape_shape(), |p: &mut ColshapeShape| p.b.y = 12000.5, "b", Range)]
#[case::cylinder_b_z_used(mk::colshape_shape(), |p: &mut ColshapeShape| p.b.z = 1.0, "b", Reserved)]
#[case::sphere_radius_zero(sphere(), |p: &mut ColshapeShape| p.b.x = 0.0, "b", Range)]
#[case::sphere_radius_over(sphere(), |p: &mut ColshapeShape| p.b.x = 12001.0, "b", Range)]
#[case::sphere_b_y_used(sphere(), |p: &mut ColshapeShape| p.b.y = 3.0, "b", Reserved)]
#[case::sphere_b_z_negative_zero(sphere(), |p: &mut ColshapeShape| p.b.z = -0.0, "b", Reserved)]
#[case::box_flat_z(cube(), |p: &mut ColshapeShape| p.b.z = p.a.z, "b", Combination)]
#[case::box_inverted_x(cube(), |p: &mut ColshapeShape| p.b.x = p.a.x - 1.0, "b", Combination)]
#[case::box_max_out(cube(), |p: &mut ColshapeShape| p.b.z = 4000.5, "b", Range)]
#[case::box_min_out(cube(), |p: &mut ColshapeShape| p.a.x = -6000.5, "a", Range)]
fn colshape_shape_rejects(
    #[case] valid: ColshapeShape,
    #[case] m: fn(&mut ColshapeShape),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&valid, m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::form_3("form", 0, &[3], "form", Enum)]
#[case::a_x_nan("a", 0, &NAN, "x", NonFinite)]
#[case::b_y_inf("b", 4, &INF, "y", NonFinite)]
fn colshape_shape_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<ColshapeShape>(at) + inner;
    assert_rejects_bytes(&mk::colshape_shape(), at, patch, field, kind);
}

#[rstest]
#[case::cylinder_max(mk::colshape_shape(), |p: &mut ColshapeShape| p.b = Vec3::new(12000.0, 12000.0, 0.0))]
#[case::sphere_max(sphere(), |p: &mut ColshapeShape| p.b.x = 12000.0)]
#[case::box_world(cube(), |p: &mut ColshapeShape| { p.a = Vec3::new(-6000.0, -6000.0, -200.0); p.b = Vec3::new(6000.0, 6000.0, 4000.0) })]
#[case::hide_ignores_fields(cube(), |p: &mut ColshapeShape| { p.active = false; p.b = p.a; p.a.z = -900.0 })]
fn colshape_shape_accepts(#[case] valid: ColshapeShape, #[case] m: fn(&mut ColshapeShape)) {
    assert_accepts(&valid, m);
}

#[test]
fn colshape_shape_reads_back_its_form() {
    let shape = Shape::Box {
        min: Vec3::new(1.0, 2.0, 3.0),
        max: Vec3::new(4.0, 5.0, 6.0),
    };
    let p = ColshapeShape::show(EventId(3), ColshapeId(9), shape, Default::default());
    assert_eq!(p.form, ColshapeForm::Box);
    assert_eq!(p.shape(), shape);
    let Shape::Cylinder { radius, height, .. } = mk::colshape_shape().shape() else {
        panic!("the fixture is a cylinder");
    };
    assert_eq!((radius, height), (6.5, 4.0));
}

// ObjectState

fn on_player() -> ObjectState {
    let mut p = obj::object_state();
    p.attach_kind = ObjectAttachKind::Player;
    p.attach_id = 7;
    p.pos = Vec3::new(0.1, 0.05, -0.02);
    p.move_ms = 0;
    p.bone = Bone::RightHand;
    p
}

#[rstest]
#[case::model_20000(obj::object_state(), |p: &mut ObjectState| p.model = 20000, "model", Range)]
#[case::pos_out(obj::object_state(), |p: &mut ObjectState| p.pos.y = -6000.5, "pos", Range)]
#[case::pos_low(obj::object_state(), |p: &mut ObjectState| p.pos.z = -201.0, "pos", Range)]
#[case::offset_over_1000(on_player(), |p: &mut ObjectState| p.pos.z = -1000.5, "pos", Range)]
#[case::rot_over(obj::object_state(), |p: &mut ObjectState| p.rot.x = 3600.5, "rot", Range)]
#[case::to_rot_under(obj::object_state(), |p: &mut ObjectState| p.to_rot.z = -3601.0, "to_rot", Range)]
#[case::interior_negative(obj::object_state(), |p: &mut ObjectState| p.interior = -1, "interior", Range)]
#[case::interior_256(obj::object_state(), |p: &mut ObjectState| p.interior = 256, "interior", Range)]
#[case::attach_id_without_parent(obj::object_state(), |p: &mut ObjectState| p.attach_id = 7, "attach_id", Reserved)]
#[case::move_ms_over(obj::object_state(), |p: &mut ObjectState| p.move_ms = 3_600_001, "move_ms", Range)]
#[case::attached_moving(on_player(), |p: &mut ObjectState| p.move_ms = 1000, "move_ms", Combination)]
#[case::target_out(obj::object_state(), |p: &mut ObjectState| p.to.x = 6500.0, "to", Range)]
#[case::bone_on_vehicle(on_player(), |p: &mut ObjectState| p.attach_kind = ObjectAttachKind::Vehicle, "bone", Combination)]
#[case::bone_unattached(obj::object_state(), |p: &mut ObjectState| p.bone = Bone::Neck, "bone", Combination)]
#[case::broken_on_bone(on_player(), |p: &mut ObjectState| p.broken = true, "broken", Combination)]
fn object_state_rejects(
    #[case] valid: ObjectState,
    #[case] m: fn(&mut ObjectState),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&valid, m, field, kind);
}

#[rstest]
#[case::active_2("active", 0, &[2], "active", Enum)]
#[case::attach_kind_4("attach_kind", 0, &[4], "attach_kind", Enum)]
#[case::bone_18("bone", 0, &[18], "bone", Enum)]
#[case::broken_2("broken", 0, &[2], "broken", Enum)]
#[case::pos_nan("pos", 0, &NAN, "x", NonFinite)]
#[case::rot_nan("rot", 8, &NAN, "z", NonFinite)]
#[case::to_inf("to", 4, &INF, "y", NonFinite)]
fn object_state_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<ObjectState>(at) + inner;
    assert_rejects_bytes(&obj::object_state(), at, patch, field, kind);
}

#[rstest]
#[case::model_max(obj::object_state(), |p: &mut ObjectState| p.model = 19999)]
#[case::interior_max(obj::object_state(), |p: &mut ObjectState| p.interior = 255)]
#[case::move_ms_max(obj::object_state(), |p: &mut ObjectState| p.move_ms = 3_600_000)]
#[case::standing(obj::object_state(), |p: &mut ObjectState| { p.move_ms = 0; p.to = p.pos })]
#[case::rot_max(obj::object_state(), |p: &mut ObjectState| { p.rot = Vec3::new(3600.0, -3600.0, 0.0); p.to_rot = p.rot })]
#[case::broken_standing(obj::object_state(), |p: &mut ObjectState| p.broken = true)]
#[case::neck_on_player(on_player(), |p: &mut ObjectState| p.bone = Bone::Neck)]
#[case::offset_max(on_player(), |p: &mut ObjectState| { p.bone = Bone::Root; p.pos = Vec3::new(1000.0, -1000.0, -1000.0) })]
#[case::attached_target_unchecked(on_player(), |p: &mut ObjectState| p.to.x = 9000.0)]
#[case::on_object_broken(on_player(), |p: &mut ObjectState| { p.attach_kind = ObjectAttachKind::Object; p.bone = Bone::Root; p.broken = true })]
#[case::hide_ignores_fields(on_player(), |p: &mut ObjectState| { p.active = false; p.move_ms = 5; p.model = u16::MAX; p.broken = true })]
fn object_state_accepts(#[case] valid: ObjectState, #[case] m: fn(&mut ObjectState)) {
    assert_accepts(&valid, m);
}

// Hides

#[test]
fn hides_carry_only_their_id_and_round_trip() {
    let e = EventId(400);
    assert_accepts(&Label3D::hide(e, MarkerId(1)), |_| {});
    assert_accepts(&Checkpoint::hide(e, MarkerId(2)), |_| {});
    assert_accepts(&Blip::hide(e, MarkerId(3)), |_| {});
    assert_accepts(&GangZone::hide(e, MarkerId(4)), |_| {});
    assert_accepts(&ColshapeShape::hide(e, ColshapeId(5)), |_| {});
    assert_accepts(&ObjectState::hide(e, ObjectId(6)), |_| {});
}

// PlayerWaypoint: bad content is dropped after the ack, so it decodes.

#[track_caller]
fn assert_dropped_but_acked(m: impl FnOnce(&mut Vec<u8>), field: &str, kind: ErrorKind) {
    let mut bytes = raw(&wp::player_waypoint());
    m(&mut bytes);
    let p = PlayerWaypoint::decode(&bytes).expect("decodes, so the lane acknowledges it");
    let err = p.waypoint().expect_err("the content is dropped");
    assert_eq!((err.field, err.kind()), (field, kind), "{err:?}");
}

fn patch(field: &str, with: &[u8]) -> impl FnOnce(&mut Vec<u8>) {
    let at = offset::<PlayerWaypoint>(field);
    let with = with.to_vec();
    move |b| b[at..at + with.len()].copy_from_slice(&with)
}

#[rstest]
#[case::active_2("active", &[2], "active", Enum)]
#[case::active_255("active", &[255], "active", Enum)]
#[case::x_nan("x", &NAN, "x", NonFinite)]
#[case::y_inf("y", &INF, "y", NonFinite)]
#[case::x_out("x", &3000.5f32.to_le_bytes(), "x", Range)]
#[case::y_out("y", &(-3001.0f32).to_le_bytes(), "y", Range)]
fn player_waypoint_drops(
    #[case] at: &str,
    #[case] with: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_dropped_but_acked(patch(at, with), field, kind);
}

#[test]
fn player_waypoint_reads_a_point_or_none() {
    let p = wp::player_waypoint();
    assert_eq!(
        p.waypoint(),
        Ok(Some(MapPoint {
            x: 1245.5,
            y: -912.25
        }))
    );
    let mut none = p.clone();
    none.active = 0;
    assert_eq!(none.waypoint(), Ok(None));
    let mut edge = p;
    (edge.x, edge.y) = (AnyF32(3000.0), AnyF32(-3000.0));
    assert_eq!(PlayerWaypoint::decode(&raw(&edge)).as_ref(), Ok(&edge));
    assert_eq!(
        edge.waypoint(),
        Ok(Some(MapPoint {
            x: 3000.0,
            y: -3000.0
        }))
    );
}

#[test]
fn player_waypoint_keeps_nan_bits() {
    let mut p = wp::player_waypoint();
    p.x = AnyF32(f32::NAN);
    assert_eq!(PlayerWaypoint::decode(&raw(&p)), Ok(p));
}

// SetWaypoint

#[rstest]
#[case::x_out(|p: &mut SetWaypoint| p.x = 3000.5, "x", Range)]
#[case::y_out(|p: &mut SetWaypoint| p.y = -3001.0, "y", Range)]
#[case::removal_out(|p: &mut SetWaypoint| { p.active = false; p.x = 4000.0 }, "x", Range)]
fn set_waypoint_rejects(
    #[case] m: fn(&mut SetWaypoint),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&wp::set_waypoint(), m, field, kind);
}

#[rstest]
#[case::active_2("active", &[2], "active", Enum)]
#[case::x_nan("x", &NAN, "x", NonFinite)]
#[case::y_inf("y", &INF, "y", NonFinite)]
fn set_waypoint_rejects_bytes(
    #[case] at: &str,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<SetWaypoint>(at);
    assert_rejects_bytes(&wp::set_waypoint(), at, patch, field, kind);
}

#[test]
fn set_waypoint_boundaries_are_accepted() {
    assert_accepts(&wp::set_waypoint(), |p| (p.x, p.y) = (3000.0, -3000.0));
    assert_accepts(&wp::set_waypoint(), |p| {
        p.active = false;
        (p.x, p.y) = (0.0, 0.0)
    });
}
