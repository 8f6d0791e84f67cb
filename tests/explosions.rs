//! Explosions the gamemode creates (weapons.md §5 CreateExplosion, §7 Limits, §8 Lua;
//! lua-api.md `dlmp.create_explosion`), through the script path in the harness at the
//! default tick: exactly the CreateExplosion packets each client gets. Every spawned player
//! of the explosion's scope whose stream center is within 420 m gets it, with the type, the
//! radius (the type's default without one), the harmless bit and the creator; a full lane
//! misses it and the call counts only the players it reached; 64 a tick at most; a bad
//! argument is an error naming it.

mod world_support;

use dlmp::harness::{ClientId, Harness};
use dlmp::net::lane::Delivery;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::weapons::explosion::{CreateExplosion, ExplosionType, flag};
use rstest::rstest;
use world_support::{SPAWN, go, lua, scripts, spawned, told};

const HELPERS: &str = r#"
function who(n) for _, q in ipairs(dlmp.players()) do if q:name() == n then return q end end end
NAMES = { "grenade", "molotov", "rocket", "weak_rocket", "car", "quick_car", "boat", "aircraft",
    "mine", "object", "tank_shell", "small", "rc_vehicle" }
"#;

fn two(test: &str) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let s = scripts(test, HELPERS);
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    (s, h, a, b)
}

fn explosions(h: &Harness, c: ClientId) -> Vec<CreateExplosion> {
    h.packets::<CreateExplosion>(c)
}

#[test]
fn an_explosion_reaches_every_spawned_player_nearby_with_every_field_and_counts_them() {
    let (_s, mut h, a, b) = two("ex-fields");
    lua(
        &mut h,
        a,
        "say(dlmp.create_explosion(5, -5, 10.5, 'object', { creator = who('bob') }))",
    );
    let of_alice = explosions(&h, a);
    assert_eq!(told(&mut h, a), ["2"]);
    let bob = (h.player_id(b), h.get::<dlmp::session::Player>(b).token);
    for got in [of_alice, explosions(&h, b)] {
        assert_eq!(got.len(), 1, "one explosion each");
        let e = &got[0];
        assert_eq!(
            (e.center, e.kind, e.radius, e.flags),
            (Vec3::new(5.0, -5.0, 10.5), ExplosionType::Object, 6.0, 0)
        );
        assert_eq!(
            (e.has_creator, e.creator_id, e.creator_token),
            (true, bob.0, bob.1)
        );
    }
}

#[test]
fn a_harmless_explosion_of_a_numbered_type_with_its_radius_has_no_creator_fields() {
    let (_s, mut h, a, b) = two("ex-harmless");
    lua(
        &mut h,
        a,
        "say(dlmp.create_explosion(0, 0, 10, 11, { harmless = true, radius = 0.1 }))",
    );
    assert_eq!(told(&mut h, a), ["2"]);
    let e = &explosions(&h, b)[0];
    assert_eq!(
        (
            e.kind,
            e.radius,
            e.flags,
            e.has_creator,
            e.creator_id.0,
            e.creator_token.0
        ),
        (ExplosionType::Small, 0.1, flag::HARMLESS, false, 0, 0)
    );
}

#[test]
fn every_type_by_name_carries_its_number_and_default_radius() {
    let (_s, mut h, a, b) = two("ex-types");
    lua(
        &mut h,
        a,
        "for _, t in ipairs(NAMES) do dlmp.create_explosion(0, 0, 10, t) end",
    );
    let got: Vec<(ExplosionType, f32)> = explosions(&h, b)
        .iter()
        .map(|e| (e.kind, e.radius))
        .collect();
    let page = [
        (ExplosionType::Grenade, 6.0),
        (ExplosionType::Molotov, 4.0),
        (ExplosionType::Rocket, 8.0),
        (ExplosionType::WeakRocket, 5.0),
        (ExplosionType::Car, 8.0),
        (ExplosionType::QuickCar, 8.0),
        (ExplosionType::Boat, 8.0),
        (ExplosionType::Aircraft, 12.0),
        (ExplosionType::Mine, 6.0),
        (ExplosionType::Object, 6.0),
        (ExplosionType::TankShell, 8.0),
        (ExplosionType::Small, 3.0),
        (ExplosionType::RcVehicle, 4.0),
    ];
    assert_eq!(got, page);
}

#[test]
fn a_player_farther_than_420_m_from_the_center_does_not_get_it() {
    let (_s, mut h, a, b) = two("ex-reach");
    go(&mut h, b, Vec3::new(SPAWN.x + 1000.0, SPAWN.y, SPAWN.z));
    h.clear(b);
    // Bob stands 420 m from the first center and 420.5 m from the second; alice 420 m
    // from the third.
    lua(
        &mut h,
        a,
        "say(dlmp.create_explosion(580, 0, 10, 0)); say(dlmp.create_explosion(579.5, 0, 10, 1)); \
         say(dlmp.create_explosion(420, 0, 10, 2))",
    );
    let centers = |c| -> Vec<f32> { explosions(&h, c).iter().map(|e| e.center.x).collect() };
    assert_eq!(centers(b), [580.0]);
    assert_eq!(centers(a), [420.0]);
    assert_eq!(told(&mut h, a), ["1", "0", "1"]);
}

#[test]
fn only_the_explosions_scope_gets_it() {
    let (_s, mut h, a, b) = two("ex-scope");
    h.set_scope(b, Some(7), Some(3));
    h.clear(b);
    let mut counts = Vec::new();
    for opts in [
        "{ virtual_world = 7, interior = 3 }",
        "{ virtual_world = 7 }",
        "nil",
    ] {
        lua(
            &mut h,
            a,
            &format!("say(dlmp.create_explosion(0, 0, 10, 'mine', {opts}))"),
        );
        counts.push(explosions(&h, a).len());
        counts.extend(
            told(&mut h, a)
                .iter()
                .map(|n| n.parse::<usize>().expect("n")),
        );
    }
    // Per call: alice's explosions, then the count.
    assert_eq!(counts, [0, 1, 0, 0, 1, 1]);
    assert_eq!(explosions(&h, b).len(), 1);
}

#[test]
fn a_player_not_yet_spawned_does_not_get_it() {
    let (_s, mut h, a, b) = two("ex-unspawned");
    let c = h.connect("carol");
    h.step();
    h.clear(c);
    lua(&mut h, a, "say(dlmp.create_explosion(0, 0, 10, 0))");
    assert_eq!(told(&mut h, a), ["2"]);
    assert_eq!(explosions(&h, c), []);
    assert_eq!(explosions(&h, b).len(), 1);
}

#[test]
fn a_full_lane_misses_the_explosion_and_is_not_counted() {
    let (_s, mut h, a, b) = two("ex-full");
    h.advance(std::time::Duration::from_secs(1));
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Normal, 0);
    world_support::lua_now(&mut h, a, "say(dlmp.create_explosion(0, 0, 10, 0))");
    assert_eq!(explosions(&h, a).len(), 1);
    assert_eq!(told(&mut h, a), ["1"]);
    h.release_lane(b);
    assert_eq!(explosions(&h, b), [], "nothing repeats it");
}

#[test]
fn at_most_64_explosions_a_tick_the_next_is_an_error_and_the_next_tick_has_64_again() {
    let (_s, mut h, a, b) = two("ex-cap");
    lua(
        &mut h,
        a,
        "for i = 1, 65 do dlmp.create_explosion(0, 0, 10, 0, { harmless = true }) end",
    );
    let got = told(&mut h, a);
    assert_eq!(got.len(), 1);
    assert!(
        got[0].contains("create_explosion: more than 64 explosions in one tick"),
        "{got:?}"
    );
    assert_eq!(explosions(&h, b).len(), 64);
    h.clear(b);
    lua(&mut h, a, "say(dlmp.create_explosion(0, 0, 10, 0))");
    assert_eq!(told(&mut h, a), ["2"]);
    assert_eq!(explosions(&h, b).len(), 1);
}

#[test]
fn a_creator_who_left_is_an_error() {
    let (_s, mut h, a, b) = two("ex-left");
    lua(&mut h, a, "G.bob = who('bob')");
    h.disconnect(b);
    h.steps(2);
    lua(
        &mut h,
        a,
        "dlmp.create_explosion(0, 0, 10, 0, { creator = G.bob })",
    );
    let got = told(&mut h, a);
    assert!(
        got[0].contains("create_explosion: creator is not a connected player"),
        "{got:?}"
    );
    assert_eq!(explosions(&h, a), []);
}

#[rstest]
#[case("0, 0, 10, 13", "create_explosion: type 13 is outside 0..=12")]
#[case("0, 0, 10, -1", "create_explosion: type -1 is outside 0..=12")]
#[case(
    "0, 0, 10, 'nuke'",
    "create_explosion: type \"nuke\" is not an explosion type"
)]
#[case(
    "0, 0, 10, 0, { radius = 80 }",
    "create_explosion: radius 80 is outside 0.1..=50"
)]
#[case(
    "0, 0, 10, 0, { radius = 0.05 }",
    "create_explosion: radius 0.05 is outside 0.1..=50"
)]
#[case("7000, 0, 10, 0", "create_explosion: position is outside the world")]
#[case("0, 0, 4001, 0", "create_explosion: position is outside the world")]
#[case("0, 0/0, 10, 0", "create_explosion: y must be finite")]
#[case("0, 0, 10, 0, { creator = 5 }", "create_explosion: creator")]
#[case(
    "0, 0, 10, 0, { interior = 256 }",
    "create_explosion: interior 256 is outside 0..=255"
)]
#[case(
    "0, 0, 10, 0, { virtual_world = -1 }",
    "create_explosion: virtual_world -1 is outside"
)]
#[case("0, 0, 10, 0, { harmless = 1 }", "create_explosion: harmless")]
#[case("0, 0, 10, 0, { size = 1 }", "create_explosion: unknown option size")]
fn a_bad_argument_is_an_error_naming_it_and_nothing_explodes(
    #[case] args: &str,
    #[case] error: &str,
) {
    let (_s, mut h, a, b) = two("ex-bad");
    lua(&mut h, a, &format!("dlmp.create_explosion({args})"));
    let got = told(&mut h, a);
    assert_eq!(got.len(), 1);
    assert!(got[0].contains(error), "{got:?}");
    assert_eq!(explosions(&h, b), []);
}
