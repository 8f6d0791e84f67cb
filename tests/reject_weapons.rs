//! weapons.md, every packet (ProjectileCreate, RemoteProjectileCreate, SatchelDetonate,
//! RemoteSatchelDetonate, StealthKillRequest, RemoteStealthKill, CreateExplosion): a wrong
//! length and each rule of strict decoding the page states are refused, on decoding and on
//! encoding; the boundary values are accepted.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::*;
use dlmp::protocol::weapons::explosion::*;
use dlmp::protocol::weapons::projectile::*;
use dlmp::protocol::weapons::samples::{explosion, projectile, satchel, stealth};
use dlmp::protocol::weapons::satchel::*;
use dlmp::protocol::weapons::stealth::*;
use rstest::rstest;
use support::*;

/// Offset of a Launch field inside ProjectileCreate or RemoteProjectileCreate.
fn launch_at<P: Packet>(field: &str) -> usize {
    offset::<P>("launch") + Launch::offset_of(field).unwrap_or_else(|| panic!("no {field}"))
}

#[rstest]
#[case::projectile_create(|| assert_exact_length(&projectile::projectile_create()))]
#[case::projectile_create_hydra(|| assert_exact_length(&projectile::projectile_create_hydra()))]
#[case::remote_projectile_create(|| assert_exact_length(&projectile::remote_projectile_create()))]
#[case::satchel_detonate(|| assert_exact_length(&satchel::satchel_detonate()))]
#[case::remote_satchel_detonate(|| assert_exact_length(&satchel::remote_satchel_detonate()))]
#[case::stealth_kill_request(|| assert_exact_length(&stealth::stealth_kill_request()))]
#[case::remote_stealth_kill(|| assert_exact_length(&stealth::remote_stealth_kill()))]
#[case::create_explosion(|| assert_exact_length(&explosion::create_explosion()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[test]
fn totals_match_the_page() {
    let sizes = [
        (raw(&projectile::projectile_create()).len(), 51),
        (raw(&projectile::remote_projectile_create()).len(), 47),
        (raw(&satchel::satchel_detonate()).len(), 110),
        (raw(&satchel::remote_satchel_detonate()).len(), 110),
        (raw(&stealth::stealth_kill_request()).len(), 21),
        (raw(&stealth::remote_stealth_kill()).len(), 39),
        (raw(&explosion::create_explosion()).len(), 32),
    ];
    for (actual, page) in sizes {
        assert_eq!(actual, page);
    }
}

#[test]
fn the_ids_are_the_pages() {
    assert_eq!(
        [
            ProjectileCreate::ID,
            RemoteProjectileCreate::ID,
            SatchelDetonate::ID,
            RemoteSatchelDetonate::ID,
            StealthKillRequest::ID,
            RemoteStealthKill::ID,
            CreateExplosion::ID,
        ],
        [0x24, 0x25, 0x26, 0x27, 0x30, 0x31, 0x5A]
    );
}

// ProjectileCreate and its relay: weapon, finiteness, world bounds, speed, the vehicle
// and target fields.

#[rstest]
#[case::origin_x(|p: &mut Launch| p.origin.x = 6000.5, "origin", Range)]
#[case::origin_y(|p: &mut Launch| p.origin.y = -6000.5, "origin", Range)]
#[case::origin_z_low(|p: &mut Launch| p.origin.z = -200.5, "origin", Range)]
#[case::origin_z_high(|p: &mut Launch| p.origin.z = 4000.5, "origin", Range)]
#[case::speed_above_7(|p: &mut Launch| p.velocity = Vec3::new(4.0, 5.0, 3.0), "velocity", Range)]
#[case::rocket_below_0_2(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::Rocket;
    p.velocity = Vec3::new(0.1, 0.1, 0.1);
}, "velocity", Range)]
#[case::heat_seeker_at_rest(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::HeatSeeker;
    p.velocity = Vec3::ZERO;
}, "velocity", Range)]
#[case::grenade_from_a_vehicle(|p: &mut Launch| p.vehicle_id = VehicleId(7), "vehicle_id", Combination)]
#[case::satchel_from_a_vehicle(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::Satchel;
    p.vehicle_id = VehicleId(7);
}, "vehicle_id", Combination)]
#[case::rocket_with_a_target(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::Rocket;
    p.target_id = VehicleId(7);
    p.target_epoch = VehicleEpoch(1);
}, "target_id", Combination)]
#[case::epoch_without_target(|p: &mut Launch| p.target_epoch = VehicleEpoch(1), "target_epoch", Reserved)]
fn a_launch_breaking_a_rule_is_dropped_both_ways(
    #[case] m: fn(&mut Launch),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(
        &projectile::projectile_create(),
        |p| m(&mut p.launch),
        field,
        kind,
    );
    assert_rejects(
        &projectile::remote_projectile_create(),
        |p| {
            // The relay's fixture is a rocket: start from the grenade's launch.
            p.launch = projectile::projectile_create().launch;
            m(&mut p.launch);
        },
        field,
        kind,
    );
}

#[rstest]
#[case::weapon_0(0)]
#[case::weapon_15(15)]
#[case::weapon_21(21)]
#[case::weapon_35_the_launcher(35)]
#[case::weapon_38(38)]
#[case::weapon_40_the_detonator(40)]
#[case::weapon_255(255)]
fn a_weapon_that_is_no_projectile_is_dropped(#[case] weapon: u8) {
    let at = launch_at::<ProjectileCreate>("weapon");
    assert_rejects_bytes(
        &projectile::projectile_create(),
        at,
        &[weapon],
        "weapon",
        Enum,
    );
    let at = launch_at::<RemoteProjectileCreate>("weapon");
    assert_rejects_bytes(
        &projectile::remote_projectile_create(),
        at,
        &[weapon],
        "weapon",
        Enum,
    );
}

#[rstest]
#[case::origin_x_nan("origin", 0, NAN, "x")]
#[case::origin_z_inf("origin", 8, INF, "z")]
#[case::velocity_y_nan("velocity", 4, NAN, "y")]
#[case::velocity_z_inf("velocity", 8, INF, "z")]
fn a_launch_with_a_non_finite_float_is_dropped(
    #[case] field: &str,
    #[case] inner: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
) {
    let at = launch_at::<ProjectileCreate>(field) + inner;
    assert_rejects_bytes(
        &projectile::projectile_create(),
        at,
        &bits,
        named,
        NonFinite,
    );
    let at = launch_at::<RemoteProjectileCreate>(field) + inner;
    assert_rejects_bytes(
        &projectile::remote_projectile_create(),
        at,
        &bits,
        named,
        NonFinite,
    );
}

#[rstest]
#[case::corner_of_the_world(|p: &mut Launch| p.origin = Vec3::new(-6000.0, 6000.0, 4000.0))]
#[case::lowest_z(|p: &mut Launch| p.origin.z = -200.0)]
#[case::speed_7(|p: &mut Launch| p.velocity = Vec3::new(0.0, 0.0, 7.0))]
#[case::grenade_dropped_at_rest(|p: &mut Launch| p.velocity = Vec3::ZERO)]
#[case::every_thrown_weapon_on_foot(|p: &mut Launch| p.weapon = ProjectileWeapon::Satchel)]
#[case::teargas(|p: &mut Launch| p.weapon = ProjectileWeapon::Teargas)]
#[case::molotov(|p: &mut Launch| p.weapon = ProjectileWeapon::Molotov)]
#[case::rocket_at_0_2(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::Rocket;
    p.velocity = Vec3::new(0.2, 0.0, 0.0);
})]
#[case::rocket_from_a_hunter(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::Rocket;
    p.vehicle_id = VehicleId(0);
    p.velocity = Vec3::new(0.0, 3.0, 0.0);
})]
#[case::heat_seeker_without_target(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::HeatSeeker;
    p.velocity = Vec3::new(0.0, 3.0, 0.0);
})]
#[case::heat_seeker_with_target_epoch_0(|p: &mut Launch| {
    p.weapon = ProjectileWeapon::HeatSeeker;
    p.velocity = Vec3::new(0.0, 3.0, 0.0);
    p.target_id = VehicleId(0);
})]
fn a_launch_at_the_bounds_is_accepted(#[case] m: fn(&mut Launch)) {
    assert_accepts(&projectile::projectile_create(), |p| m(&mut p.launch));
    assert_accepts(&projectile::remote_projectile_create(), |p| {
        p.launch = projectile::projectile_create().launch;
        m(&mut p.launch);
    });
}

#[test]
fn the_hydras_fixture_is_a_heat_seeker_with_its_target() {
    let p = projectile::projectile_create_hydra();
    assert_eq!(p.launch.weapon, ProjectileWeapon::HeatSeeker);
    assert_ne!(p.launch.vehicle_id, VehicleId::NONE);
    assert_ne!(p.launch.target_id, VehicleId::NONE);
    assert_eq!(ProjectileCreate::decode(&raw(&p)), Ok(p));
}

#[test]
fn a_relay_of_generation_0_is_dropped() {
    assert_rejects(
        &projectile::remote_projectile_create(),
        |p| p.player_token = PlayerToken(0),
        "player_token",
        Range,
    );
}

// SatchelDetonate / RemoteSatchelDetonate: count, finiteness, a used position outside
// world bounds, a non-zero unused slot.

#[rstest]
#[case::count_0(|p: &mut SatchelDetonate| p.count = 0, "count", Range)]
#[case::count_9(|p: &mut SatchelDetonate| p.count = 9, "count", Range)]
#[case::used_outside_the_world(|p: &mut SatchelDetonate| p.pos[1].x = 6000.5, "pos", Range)]
#[case::used_below_the_world(|p: &mut SatchelDetonate| p.pos[0].z = -200.5, "pos", Range)]
#[case::unused_slot(|p: &mut SatchelDetonate| p.pos[2].y = 1.0, "pos", Reserved)]
#[case::unused_last_slot(|p: &mut SatchelDetonate| p.pos[7].z = 0.5, "pos", Reserved)]
#[case::unused_negative_zero(|p: &mut SatchelDetonate| p.pos[5].x = -0.0, "pos", Reserved)]
fn satchel_detonate_rejects(
    #[case] m: fn(&mut SatchelDetonate),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&satchel::satchel_detonate(), m, field, kind);
}

#[rstest]
#[case::count_9(|p: &mut RemoteSatchelDetonate| p.count = 9, "count", Range)]
#[case::count_0_with_a_position(|p: &mut RemoteSatchelDetonate| p.count = 0, "pos", Reserved)]
#[case::used_outside_the_world(|p: &mut RemoteSatchelDetonate| p.pos[2].y = -6000.5, "pos", Range)]
#[case::unused_slot(|p: &mut RemoteSatchelDetonate| p.pos[3].x = 2.0, "pos", Reserved)]
#[case::token_0(|p: &mut RemoteSatchelDetonate| p.player_token = PlayerToken(0), "player_token", Range)]
fn remote_satchel_detonate_rejects(
    #[case] m: fn(&mut RemoteSatchelDetonate),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&satchel::remote_satchel_detonate(), m, field, kind);
}

const SLOT: usize = 12;

#[rstest]
#[case::used_nan(0, NAN, "x")]
#[case::used_inf(SLOT + 8, INF, "z")]
#[case::unused_nan(7 * SLOT + 4, NAN, "y")]
fn a_detonation_with_a_non_finite_float_is_dropped(
    #[case] inner: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
) {
    let at = offset::<SatchelDetonate>("pos") + inner;
    assert_rejects_bytes(&satchel::satchel_detonate(), at, &bits, named, NonFinite);
    let at = offset::<RemoteSatchelDetonate>("pos") + inner;
    assert_rejects_bytes(
        &satchel::remote_satchel_detonate(),
        at,
        &bits,
        named,
        NonFinite,
    );
}

#[test]
fn eight_satchels_at_the_world_corners_are_accepted() {
    let corners = |pos: &mut [Vec3; 8]| {
        for (i, p) in pos.iter_mut().enumerate() {
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            *p = Vec3::new(6000.0 * s, -6000.0 * s, if i < 4 { -200.0 } else { 4000.0 });
        }
    };
    assert_accepts(&satchel::satchel_detonate(), |p| {
        p.count = 8;
        corners(&mut p.pos);
    });
    assert_accepts(&satchel::remote_satchel_detonate(), |p| {
        p.count = 8;
        corners(&mut p.pos);
    });
}

#[test]
fn a_relay_without_a_kept_position_is_accepted() {
    assert_accepts(&satchel::remote_satchel_detonate(), |p| {
        p.count = 0;
        p.pos = [Vec3::ZERO; 8];
    });
}

// StealthKillRequest / RemoteStealthKill.

#[test]
fn a_request_naming_generation_0_is_dropped() {
    assert_rejects(
        &stealth::stealth_kill_request(),
        |p| p.victim_token = PlayerToken(0),
        "victim_token",
        Range,
    );
}

#[rstest]
#[case::killer_is_the_victim(|p: &mut RemoteStealthKill| p.victim_id = p.id, "victim_id", Combination)]
#[case::pos_outside_the_world(|p: &mut RemoteStealthKill| p.pos.x = -6000.5, "pos", Range)]
#[case::pos_above_the_world(|p: &mut RemoteStealthKill| p.pos.z = 4000.5, "pos", Range)]
#[case::killer_token_0(|p: &mut RemoteStealthKill| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::victim_token_0(|p: &mut RemoteStealthKill| p.victim_token = PlayerToken(0), "victim_token", Range)]
fn remote_stealth_kill_rejects(
    #[case] m: fn(&mut RemoteStealthKill),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&stealth::remote_stealth_kill(), m, field, kind);
}

#[rstest]
#[case::pos_nan("pos", 4, NAN, "y")]
#[case::heading_nan("heading", 0, NAN, "heading")]
#[case::heading_inf("heading", 0, INF, "heading")]
fn a_stealth_kill_with_a_non_finite_float_is_dropped(
    #[case] field: &str,
    #[case] inner: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
) {
    let at = offset::<RemoteStealthKill>(field) + inner;
    assert_rejects_bytes(&stealth::remote_stealth_kill(), at, &bits, named, NonFinite);
}

#[test]
fn any_heading_and_life_are_accepted() {
    assert_accepts(&stealth::remote_stealth_kill(), |p| {
        p.heading = -720.0;
        p.victim_life = u16::MAX;
        p.pos = Vec3::new(6000.0, -6000.0, -200.0);
    });
}

// CreateExplosion: type, finiteness, center, radius, flags, has_creator, creator fields.

#[rstest]
#[case::center_outside(|p: &mut CreateExplosion| p.center.y = 6000.5, "center", Range)]
#[case::center_below(|p: &mut CreateExplosion| p.center.z = -200.5, "center", Range)]
#[case::radius_below(|p: &mut CreateExplosion| p.radius = 0.09, "radius", Range)]
#[case::radius_above(|p: &mut CreateExplosion| p.radius = 50.5, "radius", Range)]
#[case::radius_negative(|p: &mut CreateExplosion| p.radius = -6.0, "radius", Range)]
#[case::flag_bit_1(|p: &mut CreateExplosion| p.flags = 0b10, "flags", Reserved)]
#[case::flag_bit_7(|p: &mut CreateExplosion| p.flags = 0x81, "flags", Reserved)]
#[case::creator_id_without_creator(|p: &mut CreateExplosion| {
    p.has_creator = false;
    p.creator_token = PlayerToken(0);
}, "creator_id", Reserved)]
#[case::creator_token_without_creator(|p: &mut CreateExplosion| {
    p.has_creator = false;
    p.creator_id = PlayerId(0);
}, "creator_token", Reserved)]
#[case::creator_of_generation_0(|p: &mut CreateExplosion| p.creator_token = PlayerToken(0), "creator_token", Range)]
fn create_explosion_rejects(
    #[case] m: fn(&mut CreateExplosion),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&explosion::create_explosion(), m, field, kind);
}

#[rstest]
#[case::type_13("kind", 13, "kind")]
#[case::type_255("kind", 255, "kind")]
#[case::has_creator_2("has_creator", 2, "has_creator")]
fn create_explosion_rejects_unknown_bytes(
    #[case] field: &str,
    #[case] value: u8,
    #[case] named: &str,
) {
    let at = offset::<CreateExplosion>(field);
    assert_rejects_bytes(&explosion::create_explosion(), at, &[value], named, Enum);
}

#[rstest]
#[case::center_x_nan("center", 0, NAN, "x")]
#[case::center_z_inf("center", 8, INF, "z")]
#[case::radius_nan("radius", 0, NAN, "radius")]
fn create_explosion_rejects_non_finite(
    #[case] field: &str,
    #[case] inner: usize,
    #[case] bits: [u8; 4],
    #[case] named: &str,
) {
    let at = offset::<CreateExplosion>(field) + inner;
    assert_rejects_bytes(&explosion::create_explosion(), at, &bits, named, NonFinite);
}

#[test]
fn every_type_radius_bound_and_harmless_without_creator_is_accepted() {
    for &kind in ExplosionType::ALL {
        assert_accepts(&explosion::create_explosion(), |p| p.kind = kind);
    }
    assert_eq!(ExplosionType::ALL.len(), 13);
    assert_accepts(&explosion::create_explosion(), |p| p.radius = 0.1);
    assert_accepts(&explosion::create_explosion(), |p| p.radius = 50.0);
    assert_accepts(&explosion::create_explosion(), |p| {
        p.flags = flag::HARMLESS;
        p.has_creator = false;
        p.creator_id = PlayerId(0);
        p.creator_token = PlayerToken(0);
    });
}

#[test]
fn every_type_has_the_pages_name_and_default_radius() {
    let page = [
        ("grenade", 6.0),
        ("molotov", 4.0),
        ("rocket", 8.0),
        ("weak_rocket", 5.0),
        ("car", 8.0),
        ("quick_car", 8.0),
        ("boat", 8.0),
        ("aircraft", 12.0),
        ("mine", 6.0),
        ("object", 6.0),
        ("tank_shell", 8.0),
        ("small", 3.0),
        ("rc_vehicle", 4.0),
    ];
    for (i, (name, radius)) in page.into_iter().enumerate() {
        let kind =
            ExplosionType::from_repr(u8::try_from(i).expect("13 types")).expect("0..=12 are types");
        assert_eq!((kind.name(), kind.default_radius()), (name, radius));
        assert_eq!(ExplosionType::from_name(name), Some(kind));
    }
    assert_eq!(ExplosionType::from_name("nuke"), None);
}
