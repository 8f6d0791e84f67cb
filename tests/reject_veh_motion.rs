//! vehicles.md, the motion packets (seats, frames, shots, towing, winch, trains, RC):
//! every packet refuses a wrong length and each range, enum, finiteness and combination
//! rule the page states for it; the boundary values are accepted.

mod support;

use core::f32::consts::{FRAC_PI_2, PI};

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::connection::rewind::RewindTarget;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::*;
use dlmp::protocol::vehicle::frame::*;
use dlmp::protocol::vehicle::remote::*;
use dlmp::protocol::vehicle::samples::{frame, remote, seats, shot, towing, train};
use dlmp::protocol::vehicle::seats::*;
use dlmp::protocol::vehicle::shot::*;
use dlmp::protocol::vehicle::state::{VehicleState, flag};
use dlmp::protocol::vehicle::towing::*;
use dlmp::protocol::vehicle::train::*;
use rstest::rstest;
use support::*;

/// `valid` changed by `mutate` still decodes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(valid: &P, mutate: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    mutate(&mut p);
    assert_eq!(P::decode(&raw(&p)).as_ref(), Ok(&p));
    assert!(p.to_bytes().is_ok(), "encoding must succeed: {p:?}");
}

/// Offset of a VehicleState field inside a packet that carries the state as `state`.
fn state_at<P: Packet>(field: &str) -> usize {
    offset::<P>("state")
        + VehicleState::offset_of(field).unwrap_or_else(|| panic!("no state field {field}"))
}

#[rstest]
#[case::vehicle_enter(|| assert_exact_length(&seats::vehicle_enter()))]
#[case::vehicle_exit(|| assert_exact_length(&seats::vehicle_exit()))]
#[case::vehicle_occupancy(|| assert_exact_length(&seats::vehicle_occupancy()))]
#[case::vehicle_frame(|| assert_exact_length(&frame::vehicle_frame()))]
#[case::remote_vehicle_frame(|| assert_exact_length(&frame::remote_vehicle_frame()))]
#[case::vehicle_shot(|| assert_exact_length(&shot::vehicle_shot()))]
#[case::remote_vehicle_shot(|| assert_exact_length(&shot::remote_vehicle_shot()))]
#[case::vehicle_tow(|| assert_exact_length(&towing::vehicle_tow()))]
#[case::vehicle_trailer(|| assert_exact_length(&towing::vehicle_trailer()))]
#[case::vehicle_winch(|| assert_exact_length(&towing::vehicle_winch()))]
#[case::vehicle_lift(|| assert_exact_length(&towing::vehicle_lift()))]
#[case::train_state(|| assert_exact_length(&train::train_state()))]
#[case::vehicle_remote(|| assert_exact_length(&remote::vehicle_remote()))]
#[case::vehicle_remote_exit(|| assert_exact_length(&remote::vehicle_remote_exit()))]
#[case::vehicle_remote_enter(|| assert_exact_length(&remote::vehicle_remote_enter()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[test]
fn totals_match_the_page() {
    let sizes = [
        (raw(&seats::vehicle_enter()).len(), 18),
        (raw(&seats::vehicle_exit()).len(), 17),
        (raw(&seats::vehicle_occupancy()).len(), 19),
        (raw(&frame::vehicle_frame()).len(), 173),
        (raw(&frame::remote_vehicle_frame()).len(), 178),
        (raw(&shot::vehicle_shot()).len(), 68),
        (raw(&shot::remote_vehicle_shot()).len(), 107),
        (raw(&towing::vehicle_tow()).len(), 23),
        (raw(&towing::vehicle_trailer()).len(), 14),
        (raw(&towing::vehicle_winch()).len(), 23),
        (raw(&towing::vehicle_lift()).len(), 13),
        (raw(&train::train_state()).len(), 14),
        (raw(&remote::vehicle_remote()).len(), 10),
        (raw(&remote::vehicle_remote_exit()).len(), 17),
        (raw(&remote::vehicle_remote_enter()).len(), 17),
    ];
    for (actual, page) in sizes {
        assert_eq!(actual, page);
    }
    assert_eq!(
        <VehicleState as dlmp::protocol::Wire>::SIZE,
        156,
        "VehicleState"
    );
}

// VehicleState: the coarse bounds table under VehicleFrame "Acceptance".

#[rstest]
#[case::x_beyond_6000(|p: &mut VehicleFrame| p.state.pos.x = 6000.5, "pos")]
#[case::y_beyond_minus_6000(|p: &mut VehicleFrame| p.state.pos.y = -6000.5, "pos")]
#[case::z_below_minus_200(|p: &mut VehicleFrame| p.state.pos.z = -200.5, "pos")]
#[case::z_above_4000(|p: &mut VehicleFrame| p.state.pos.z = 4000.5, "pos")]
#[case::rot_norm_1_11(|p: &mut VehicleFrame| p.state.rot = [0.0, 0.0, 0.0, 1.11], "rot")]
#[case::rot_norm_0_89(|p: &mut VehicleFrame| p.state.rot = [0.0, 0.0, 0.0, 0.89], "rot")]
#[case::rot_zero(|p: &mut VehicleFrame| p.state.rot = [0.0; 4], "rot")]
#[case::move_speed_above_5(|p: &mut VehicleFrame| p.state.move_speed = Vec3::new(3.0, 4.0, 0.1), "move_speed")]
#[case::turn_speed_above_1(|p: &mut VehicleFrame| p.state.turn_speed = Vec3::new(0.0, 0.6, 0.81), "turn_speed")]
#[case::raw_steer(|p: &mut VehicleFrame| p.state.raw_steer = -1.02, "raw_steer")]
#[case::steer(|p: &mut VehicleFrame| p.state.steer = 1.58, "steer")]
#[case::gas(|p: &mut VehicleFrame| p.state.gas = 1.02, "gas")]
#[case::brake_negative(|p: &mut VehicleFrame| p.state.brake = -0.01, "brake")]
#[case::brake_high(|p: &mut VehicleFrame| p.state.brake = 1.02, "brake")]
#[case::health(|p: &mut VehicleFrame| p.state.health = -100_001.0, "health")]
#[case::lean(|p: &mut VehicleFrame| p.state.lean = 1.02, "lean")]
#[case::lean_angle(|p: &mut VehicleFrame| p.state.lean_angle = -1.58, "lean_angle")]
#[case::pedal_negative(|p: &mut VehicleFrame| p.state.pedal = -0.5, "pedal")]
#[case::pedal_high(|p: &mut VehicleFrame| p.state.pedal = 100.5, "pedal")]
#[case::hop_negative(|p: &mut VehicleFrame| p.state.hop = -1.0, "hop")]
#[case::hop_high(|p: &mut VehicleFrame| p.state.hop = 25.5, "hop")]
#[case::yaw(|p: &mut VehicleFrame| p.state.yaw = 2.01, "yaw")]
#[case::pitch(|p: &mut VehicleFrame| p.state.pitch = -2.01, "pitch")]
#[case::roll(|p: &mut VehicleFrame| p.state.roll = 2.01, "roll")]
#[case::throttle(|p: &mut VehicleFrame| p.state.throttle = -2.01, "throttle")]
#[case::rotor_negative(|p: &mut VehicleFrame| p.state.rotor = -0.01, "rotor")]
#[case::rotor_high(|p: &mut VehicleFrame| p.state.rotor = 2.01, "rotor")]
#[case::part(|p: &mut VehicleFrame| p.state.part = 20_001, "part")]
#[case::turret_yaw(|p: &mut VehicleFrame| p.state.turret_yaw = -(PI + 0.02), "turret_yaw")]
#[case::turret_pitch(|p: &mut VehicleFrame| p.state.turret_pitch = 1.58, "turret_pitch")]
#[case::rail_negative(|p: &mut VehicleFrame| p.state.rail = -0.5, "rail")]
#[case::rail_high(|p: &mut VehicleFrame| p.state.rail = 100_001.0, "rail")]
#[case::rail_speed(|p: &mut VehicleFrame| p.state.rail_speed = -4.01, "rail_speed")]
#[case::track(|p: &mut VehicleFrame| p.state.track = 4, "track")]
#[case::rope_negative(|p: &mut VehicleFrame| p.state.rope = -0.01, "rope")]
#[case::rope_high(|p: &mut VehicleFrame| p.state.rope = 1.01, "rope")]
#[case::nitro(|p: &mut VehicleFrame| p.state.nitro = -1.02, "nitro")]
#[case::hydraulics_61(|p: &mut VehicleFrame| p.state.hydraulics = 61, "hydraulics")]
#[case::hydraulics_499(|p: &mut VehicleFrame| p.state.hydraulics = 499, "hydraulics")]
#[case::hydraulics_505(|p: &mut VehicleFrame| p.state.hydraulics = 505, "hydraulics")]
#[case::hydraulic_lr(|p: &mut VehicleFrame| p.state.hydraulic_lr = -129, "hydraulic_lr")]
#[case::hydraulic_ud(|p: &mut VehicleFrame| p.state.hydraulic_ud = 129, "hydraulic_ud")]
fn vehicle_state_out_of_bounds(#[case] m: fn(&mut VehicleFrame), #[case] field: &str) {
    assert_rejects(&frame::vehicle_frame(), m, field, Range);
}

#[rstest]
#[case::corner_of_the_world(|p: &mut VehicleFrame| p.state.pos = Vec3::new(-6000.0, 6000.0, 4000.0))]
#[case::lowest_z(|p: &mut VehicleFrame| p.state.pos.z = -200.0)]
#[case::rot_norm_1_09(|p: &mut VehicleFrame| p.state.rot = [0.0, 0.0, 0.0, 1.09])]
#[case::rot_norm_0_91(|p: &mut VehicleFrame| p.state.rot = [0.0, 0.0, 0.91, 0.0])]
#[case::move_speed_5(|p: &mut VehicleFrame| p.state.move_speed = Vec3::new(3.0, 4.0, 0.0))]
#[case::turn_speed_1(|p: &mut VehicleFrame| p.state.turn_speed = Vec3::new(0.0, 0.6, 0.8))]
#[case::controls_at_bounds(|p: &mut VehicleFrame| {
    p.state.raw_steer = -1.01;
    p.state.steer = FRAC_PI_2;
    p.state.gas = 1.01;
    p.state.brake = 1.01;
})]
#[case::health_limits(|p: &mut VehicleFrame| p.state.health = -100_000.0)]
#[case::bike_at_bounds(|p: &mut VehicleFrame| {
    p.state.lean = -1.01;
    p.state.lean_angle = -FRAC_PI_2;
    p.state.pedal = 100.0;
    p.state.hop = 25.0;
})]
#[case::flight_at_bounds(|p: &mut VehicleFrame| {
    p.state.yaw = -2.0;
    p.state.pitch = 2.0;
    p.state.roll = -2.0;
    p.state.throttle = 2.0;
    p.state.rotor = 2.0;
})]
#[case::part_20000(|p: &mut VehicleFrame| p.state.part = 20_000)]
#[case::turret_at_bounds(|p: &mut VehicleFrame| {
    p.state.turret_yaw = PI + 0.01;
    p.state.turret_pitch = -FRAC_PI_2;
})]
#[case::train_at_bounds(|p: &mut VehicleFrame| {
    p.state.rail = 100_000.0;
    p.state.rail_speed = -4.0;
    p.state.track = 3;
})]
#[case::rope_1(|p: &mut VehicleFrame| p.state.rope = 1.0)]
#[case::nitro_burning(|p: &mut VehicleFrame| p.state.nitro = -1.01)]
#[case::hydraulics_60(|p: &mut VehicleFrame| p.state.hydraulics = 60)]
#[case::hydraulics_1(|p: &mut VehicleFrame| p.state.hydraulics = 1)]
#[case::hydraulics_500(|p: &mut VehicleFrame| p.state.hydraulics = 500)]
#[case::hydraulics_504(|p: &mut VehicleFrame| p.state.hydraulics = 504)]
#[case::hydraulic_axes_128(|p: &mut VehicleFrame| {
    p.state.hydraulic_lr = -128;
    p.state.hydraulic_ud = 128;
})]
#[case::full_u8_doors_and_gear(|p: &mut VehicleFrame| {
    p.state.doors = [255; 6];
    p.state.gear = 255;
})]
#[case::every_defined_flag(|p: &mut VehicleFrame| p.state.flags = flag::DEFINED)]
#[case::unknown_flag_bit_decodes(|p: &mut VehicleFrame| p.state.flags = 0x80 | flag::HANDBRAKE)]
fn vehicle_state_accepts_bounds(#[case] m: fn(&mut VehicleFrame)) {
    assert_accepts(&frame::vehicle_frame(), m);
}

#[rstest]
#[case::pos_x_nan("pos", 0, NAN, "x")]
#[case::pos_z_inf("pos", 8, INF, "z")]
#[case::rot_nan("rot", 12, NAN, "rot")]
#[case::move_speed_inf("move_speed", 4, INF, "y")]
#[case::turn_speed_nan("turn_speed", 8, NAN, "z")]
#[case::raw_steer_nan("raw_steer", 0, NAN, "raw_steer")]
#[case::steer_nan("steer", 0, NAN, "steer")]
#[case::gas_nan("gas", 0, NAN, "gas")]
#[case::brake_nan("brake", 0, NAN, "brake")]
#[case::health_inf("health", 0, INF, "health")]
#[case::lean_nan("lean", 0, NAN, "lean")]
#[case::lean_angle_nan("lean_angle", 0, NAN, "lean_angle")]
#[case::pedal_nan("pedal", 0, NAN, "pedal")]
#[case::hop_nan("hop", 0, NAN, "hop")]
#[case::yaw_nan("yaw", 0, NAN, "yaw")]
#[case::pitch_nan("pitch", 0, NAN, "pitch")]
#[case::roll_nan("roll", 0, NAN, "roll")]
#[case::throttle_nan("throttle", 0, NAN, "throttle")]
#[case::rotor_nan("rotor", 0, NAN, "rotor")]
#[case::turret_yaw_nan("turret_yaw", 0, NAN, "turret_yaw")]
#[case::turret_pitch_nan("turret_pitch", 0, NAN, "turret_pitch")]
#[case::rail_nan("rail", 0, NAN, "rail")]
#[case::rail_speed_inf("rail_speed", 0, INF, "rail_speed")]
#[case::rope_nan("rope", 0, NAN, "rope")]
#[case::nitro_nan("nitro", 0, NAN, "nitro")]
fn vehicle_state_rejects_non_finite(
    #[case] field: &str,
    #[case] inner: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
) {
    let at = state_at::<VehicleFrame>(field) + inner;
    assert_rejects_bytes(&frame::vehicle_frame(), at, &bits, named, NonFinite);
    let at = state_at::<RemoteVehicleFrame>(field) + inner;
    assert_rejects_bytes(&frame::remote_vehicle_frame(), at, &bits, named, NonFinite);
}

#[test]
fn vehicle_state_nan_is_refused_on_encode_too() {
    assert_rejects(
        &frame::vehicle_frame(),
        |p| p.state.health = f32::NAN,
        "health",
        NonFinite,
    );
    assert_rejects(
        &frame::remote_vehicle_frame(),
        |p| p.state.pos.y = f32::NEG_INFINITY,
        "y",
        NonFinite,
    );
}

// RemoteVehicleFrame: the relay is held to the same bounds (the server never sends what a
// client clamps), plus its own teammate flag.

#[rstest]
#[case::pos(|p: &mut RemoteVehicleFrame| p.state.pos.z = 4001.0, "pos", Range)]
#[case::rot(|p: &mut RemoteVehicleFrame| p.state.rot = [0.6; 4], "rot", Range)]
#[case::rope(|p: &mut RemoteVehicleFrame| p.state.rope = 1.5, "rope", Range)]
#[case::hydraulics(|p: &mut RemoteVehicleFrame| p.state.hydraulics = 100, "hydraulics", Range)]
fn remote_vehicle_frame_rejects(
    #[case] m: fn(&mut RemoteVehicleFrame),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&frame::remote_vehicle_frame(), m, field, kind);
}

#[test]
fn remote_vehicle_frame_rejects_teammate_2() {
    let at = offset::<RemoteVehicleFrame>("teammate");
    assert_rejects_bytes(&frame::remote_vehicle_frame(), at, &[2], "teammate", Enum);
}

// VehicleShot / RemoteVehicleShot: count 1..=2, NaN/Inf in a used ray, a non-zero unused
// slot.

const RAY: usize = 24;

#[rstest]
#[case::count_0(|p: &mut VehicleShot| p.count = 0, "count", Range)]
#[case::count_3(|p: &mut VehicleShot| p.count = 3, "count", Range)]
#[case::unused_slot_end(|p: &mut VehicleShot| p.rays[1].end.z = 1.0, "rays", Reserved)]
#[case::unused_slot_start(|p: &mut VehicleShot| p.rays[1].start.x = 1102.5, "rays", Reserved)]
#[case::unused_slot_negative_zero(|p: &mut VehicleShot| p.rays[1].start.y = -0.0, "rays", Reserved)]
#[case::used_ray_nan(|p: &mut VehicleShot| p.rays[0].end.y = f32::NAN, "y", NonFinite)]
fn vehicle_shot_rejects(
    #[case] m: fn(&mut VehicleShot),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&shot::vehicle_shot(), m, field, kind);
}

#[rstest]
#[case::used_ray_start_nan(0, NAN, "x")]
#[case::used_ray_end_inf(12 + 8, INF, "z")]
#[case::unused_ray_nan(RAY + 4, NAN, "y")]
fn vehicle_shot_rejects_non_finite(
    #[case] inner: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
) {
    let at = offset::<VehicleShot>("rays") + inner;
    assert_rejects_bytes(&shot::vehicle_shot(), at, &bits, named, NonFinite);
}

#[test]
fn vehicle_shot_takes_two_used_rays() {
    assert_accepts(&shot::vehicle_shot(), |p| {
        p.count = 2;
        p.rays[1] = Ray {
            start: Vec3::new(1103.5, -2036.25, 108.75),
            end: Vec3::new(1142.0, -1991.5, 69.25),
        };
    });
}

#[rstest]
#[case::count_0(|p: &mut RemoteVehicleShot| p.count = 0, "count", Range)]
#[case::count_255(|p: &mut RemoteVehicleShot| p.count = 255, "count", Range)]
#[case::unused_slot(|p: &mut RemoteVehicleShot| { p.count = 1; p.rays[1].end.x = 0.5 }, "rays", Reserved)]
#[case::used_ray_inf(|p: &mut RemoteVehicleShot| p.rays[1].start.z = f32::INFINITY, "z", NonFinite)]
#[case::rewind_not_zeroed(|p: &mut RemoteVehicleShot| p.rewind.rewound = false, "rewound", Reserved)]
fn remote_vehicle_shot_rejects(
    #[case] m: fn(&mut RemoteVehicleShot),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&shot::remote_vehicle_shot(), m, field, kind);
}

#[rstest]
#[case::ray_nan(offset::<RemoteVehicleShot>("rays") + RAY + 12, NAN, "x", NonFinite)]
#[case::rewind_pos_nan(
    offset::<RemoteVehicleShot>("rewind") + 10, NAN, "x", NonFinite
)]
fn remote_vehicle_shot_rejects_bytes(
    #[case] at: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects_bytes(&shot::remote_vehicle_shot(), at, &bits, named, kind);
}

#[rstest]
#[case::teammate_2(offset::<RemoteVehicleShot>("teammate"), 2, "teammate")]
#[case::rewound_2(offset::<RemoteVehicleShot>("rewind"), 2, "rewound")]
#[case::rewind_target_3(offset::<RemoteVehicleShot>("rewind") + 1, 3, "target_kind")]
fn remote_vehicle_shot_rejects_unknown_bytes(
    #[case] at: usize,
    #[case] value: u8,
    #[case] named: &str,
) {
    assert_rejects_bytes(&shot::remote_vehicle_shot(), at, &[value], named, Enum);
}

#[test]
fn remote_vehicle_shot_takes_a_cannon_ray_without_rewind() {
    assert_accepts(&shot::remote_vehicle_shot(), |p| {
        p.count = 1;
        p.rays[1] = Ray::ZERO;
        p.rewind = Default::default();
    });
    assert_accepts(&shot::remote_vehicle_shot(), |p| {
        p.rewind.target_kind = RewindTarget::Vehicle;
        p.rewind.target_token = 3;
    });
}

// Seats.

#[rstest]
#[case::kind_5(5)]
#[case::kind_255(255)]
fn vehicle_occupancy_rejects_unknown_kind(#[case] value: u8) {
    let at = offset::<VehicleOccupancy>("kind");
    assert_rejects_bytes(&seats::vehicle_occupancy(), at, &[value], "kind", Enum);
}

#[test]
fn vehicle_occupancy_takes_every_kind() {
    for &kind in OccupancyKind::ALL {
        assert_accepts(&seats::vehicle_occupancy(), |p| p.kind = kind);
    }
}

// Towing and winch.

#[rstest]
#[case::no_trailer(|p: &mut VehicleTow| p.trailer_id = VehicleId::NONE, "trailer_id", Range)]
#[case::epoch_on_unhitch(|p: &mut VehicleTow| p.tractor_id = VehicleId::NONE, "tractor_epoch", Reserved)]
fn vehicle_tow_rejects(
    #[case] m: fn(&mut VehicleTow),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&towing::vehicle_tow(), m, field, kind);
}

#[test]
fn vehicle_tow_takes_an_unhitch() {
    assert_accepts(&towing::vehicle_tow(), |p| {
        p.tractor_id = VehicleId::NONE;
        p.tractor_epoch = VehicleEpoch(0);
    });
}

#[rstest]
#[case::no_load(|p: &mut VehicleWinch| p.vehicle_id = VehicleId::NONE, "vehicle_id", Range)]
#[case::epoch_on_release(|p: &mut VehicleWinch| p.heli_id = VehicleId::NONE, "heli_epoch", Reserved)]
fn vehicle_winch_rejects(
    #[case] m: fn(&mut VehicleWinch),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&towing::vehicle_winch(), m, field, kind);
}

#[test]
fn vehicle_winch_takes_a_release() {
    assert_accepts(&towing::vehicle_winch(), |p| {
        p.heli_id = VehicleId::NONE;
        p.heli_epoch = VehicleEpoch(0);
    });
}

#[test]
fn vehicle_trailer_place_needs_a_tractor() {
    assert_rejects(
        &towing::vehicle_trailer(),
        |p| p.tractor_id = VehicleId::NONE,
        "place",
        Combination,
    );
    let at = offset::<VehicleTrailer>("place");
    assert_rejects_bytes(&towing::vehicle_trailer(), at, &[2], "place", Enum);
    assert_accepts(&towing::vehicle_trailer(), |p| {
        p.tractor_id = VehicleId::NONE;
        p.place = false;
    });
}

// TrainState.

#[rstest]
#[case::flag_bit_3(|p: &mut TrainState| p.flags |= 1 << 3, "flags", Reserved)]
#[case::flag_bit_7(|p: &mut TrainState| p.flags = 0x80, "flags", Reserved)]
#[case::speed_above_4(|p: &mut TrainState| p.speed = 4.01, "speed", Range)]
#[case::speed_below_minus_4(|p: &mut TrainState| p.speed = -4.5, "speed", Range)]
#[case::speed_without_bit2(|p: &mut TrainState| p.flags = train_flag::DERAILED, "speed", Reserved)]
#[case::negative_zero_without_bit2(|p: &mut TrainState| { p.flags = 0; p.speed = -0.0 }, "speed", Reserved)]
#[case::speed_nan(|p: &mut TrainState| p.speed = f32::NAN, "speed", NonFinite)]
fn train_state_rejects(
    #[case] m: fn(&mut TrainState),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&train::train_state(), m, field, kind);
}

#[rstest]
#[case::nan(NAN)]
#[case::inf(INF)]
fn train_state_rejects_non_finite_speed(#[case] bits: [u8; 4]) {
    let at = offset::<TrainState>("speed");
    assert_rejects_bytes(&train::train_state(), at, &bits, "speed", NonFinite);
}

#[rstest]
#[case::speed_4(|p: &mut TrainState| p.speed = 4.0)]
#[case::speed_minus_4(|p: &mut TrainState| p.speed = -4.0)]
#[case::stop(|p: &mut TrainState| p.speed = 0.0)]
#[case::no_speed(|p: &mut TrainState| { p.flags = train_flag::ALONG | train_flag::DERAILED; p.speed = 0.0 })]
fn train_state_accepts(#[case] m: fn(&mut TrainState)) {
    assert_accepts(&train::train_state(), m);
}

// RC.

#[test]
fn vehicle_remote_detonation_needs_a_vehicle() {
    assert_rejects(
        &remote::vehicle_remote(),
        |p| p.vehicle_id = VehicleId::NONE,
        "detonation",
        Combination,
    );
    let at = offset::<VehicleRemote>("detonation");
    assert_rejects_bytes(&remote::vehicle_remote(), at, &[2], "detonation", Enum);
    assert_accepts(&remote::vehicle_remote(), |p| {
        p.vehicle_id = VehicleId::NONE;
        p.detonation = false;
    });
}
