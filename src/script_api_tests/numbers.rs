//! Every Lua number the API puts on the wire as an f32 is finite as an f32 and inside its
//! page's range, or the call raises an error naming the argument (lua-api.md: "Bad
//! arguments raise a Lua error naming the argument"; ADR 0022). A Lua number is an f64:
//! 1e300 is finite in Lua and infinite as an f32.

use bevy_ecs::entity::Entity;
use mlua::{Lua, Value};
use rstest::rstest;

use dlmp_protocol::ids::PlayerToken;

use crate::harness::Harness;
use dlmp_player::script::{LuaPlayer, PlayerView, set_players};

/// A Lua state with `dlmp` and `p`, a connected, spawned, living player with room on its
/// lane, so that each call below succeeds with a good value.
fn lua() -> Lua {
    let host = Harness::api_host();
    let lua = host.lua().clone();
    let entity = Entity::PLACEHOLDER;
    set_players(
        &lua,
        [(
            entity,
            PlayerView {
                name: "alice".into(),
                connected: true,
                spawned: true,
                alive: true,
                life_confirmed: true,
                lane_room: 100,
                ..PlayerView::default()
            },
        )],
    );
    let dlmp = host.api_table("numbers").expect("the dlmp table");
    lua.globals().set("dlmp", dlmp).expect("a global");
    let p = LuaPlayer {
        entity,
        token: PlayerToken(0),
    };
    lua.globals().set("p", p).expect("a global");
    lua
}

/// Runs `call` with `V` replaced by `value`: the error, or `None` if it succeeded.
fn error_of(call: &str, value: &str) -> Option<String> {
    let lua = lua();
    let chunk = format!("return pcall(function() {} end)", call.replace('V', value));
    let (ok, err): (bool, Value) = lua.load(&chunk).eval().expect("the chunk runs");
    (!ok).then(|| err.to_string().unwrap_or_default())
}

/// The values no f32 field takes.
const NOT_F32: [&str; 5] = ["1e300", "-1e300", "0/0", "math.huge", "-math.huge"];

#[rstest]
#[case::spawn_x(
    "dlmp.spawn_player(p, V, 0, 10, 0)",
    "spawn_player: x",
    "6000.5",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::spawn_y(
    "dlmp.spawn_player(p, 0, V, 10, 0)",
    "spawn_player: y",
    "-6001",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::spawn_z(
    "dlmp.spawn_player(p, 0, 0, V, 0)",
    "spawn_player: z",
    "4001",
    "outside the world (-200..=4000)",
    "1"
)]
#[case::spawn_heading(
    "dlmp.spawn_player(p, 0, 0, 10, V)",
    "spawn_player: heading",
    "1e39",
    "not finite as a 32-bit float",
    "1"
)]
#[case::respawn_x(
    "p:set_respawn_point(V, 0, 10, 0)",
    "set_respawn_point: x",
    "7000",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::respawn_y(
    "p:set_respawn_point(0, V, 10, 0)",
    "set_respawn_point: y",
    "7000",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::respawn_z(
    "p:set_respawn_point(0, 0, V, 0)",
    "set_respawn_point: z",
    "-200.5",
    "outside the world (-200..=4000)",
    "1"
)]
#[case::respawn_heading(
    "p:set_respawn_point(0, 0, 10, V)",
    "set_respawn_point: heading",
    "-1e39",
    "not finite as a 32-bit float",
    "1"
)]
#[case::position_x(
    "p:set_position(V, 0, 10)",
    "set_position: x",
    "6001",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::position_y(
    "p:set_position(0, V, 10)",
    "set_position: y",
    "6001",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::position_z(
    "p:set_position(0, 0, V)",
    "set_position: z",
    "5000",
    "outside the world (-200..=4000)",
    "1"
)]
#[case::teleport_x(
    "p:teleport(V, 0, 10)",
    "teleport: x",
    "-6001",
    "outside the world (-6000..=6000)",
    "1"
)]
#[case::teleport_z(
    "p:teleport(0, 0, V)",
    "teleport: z",
    "-201",
    "outside the world (-200..=4000)",
    "1"
)]
#[case::teleport_heading(
    "p:teleport(0, 0, 10, { heading = V })",
    "teleport: heading",
    "1e39",
    "not finite as a 32-bit float",
    "1"
)]
#[case::bounds_min_x(
    "p:set_world_bounds(V, -10, 10, 10)",
    "set_world_bounds: min_x",
    "-6001",
    "outside -6000..=6000",
    "1"
)]
#[case::bounds_min_y(
    "p:set_world_bounds(-10, V, 10, 10)",
    "set_world_bounds: min_y",
    "-6001",
    "outside -6000..=6000",
    "1"
)]
#[case::bounds_max_x(
    "p:set_world_bounds(-10, -10, V, 10)",
    "set_world_bounds: max_x",
    "6001",
    "outside -6000..=6000",
    "1"
)]
#[case::bounds_max_y(
    "p:set_world_bounds(-10, -10, 10, V)",
    "set_world_bounds: max_y",
    "6001",
    "outside -6000..=6000",
    "1"
)]
#[case::velocity_x(
    "p:set_velocity(V, 0, 0)",
    "set_velocity: x",
    "101",
    "outside -100..=100",
    "1"
)]
#[case::velocity_y(
    "p:set_velocity(0, V, 0)",
    "set_velocity: y",
    "-101",
    "outside -100..=100",
    "1"
)]
#[case::velocity_z(
    "p:set_velocity(0, 0, V)",
    "set_velocity: z",
    "101",
    "outside -100..=100",
    "1"
)]
#[case::gravity(
    "p:set_gravity(V)",
    "set_gravity: gravity",
    "0.2",
    "outside -0.1..=0.1",
    "0.01"
)]
#[case::health("p:set_health(V)", "set_health: value", "250", "outside 0..=200", "1")]
#[case::armor("p:set_armor(V)", "set_armor: value", "-1", "outside 0..=200", "1")]
#[case::camera_x(
    "p:set_camera_fixed(V, 0, 0, 1, 1, 1)",
    "set_camera_fixed: x",
    "100001",
    "outside -100000..=100000",
    "1"
)]
#[case::camera_y(
    "p:set_camera_fixed(0, V, 0, 1, 1, 1)",
    "set_camera_fixed: y",
    "100001",
    "outside -100000..=100000",
    "1"
)]
#[case::camera_z(
    "p:set_camera_fixed(0, 0, V, 1, 1, 1)",
    "set_camera_fixed: z",
    "100001",
    "outside -100000..=100000",
    "1"
)]
#[case::camera_look_x(
    "p:set_camera_fixed(0, 0, 0, V, 1, 1)",
    "set_camera_fixed: look_x",
    "-100001",
    "outside -100000..=100000",
    "1"
)]
#[case::camera_look_y(
    "p:set_camera_fixed(0, 0, 0, 1, V, 1)",
    "set_camera_fixed: look_y",
    "-100001",
    "outside -100000..=100000",
    "1"
)]
#[case::camera_look_z(
    "p:set_camera_fixed(0, 0, 0, 1, 1, V)",
    "set_camera_fixed: look_z",
    "-100001",
    "outside -100000..=100000",
    "1"
)]
#[case::weapon_range(
    "dlmp.set_weapon_range(31, V)",
    "set_weapon_range: meters",
    "10001",
    "outside 0..=10000",
    "1"
)]
#[case::animation_delta(
    "p:apply_animation(\"ped\", \"walk\", { delta = V })",
    "apply_animation: delta",
    "1e39",
    "not finite as a 32-bit float",
    "1"
)]
#[case::animation_speed(
    "p:apply_animation(\"ped\", \"walk\", { speed = V })",
    "apply_animation: speed",
    "10.5",
    "outside 0..=10",
    "1"
)]
#[case::progress(
    "p:apply_animation(\"ped\", \"walk\"); p:set_animation_progress(V)",
    "set_animation_progress: progress",
    "1.5",
    "outside 0..=1",
    "1"
)]
#[case::speed(
    "p:apply_animation(\"ped\", \"walk\"); p:set_animation_speed(V)",
    "set_animation_speed: speed",
    "11",
    "outside 0..=10",
    "1"
)]
#[case::explosion_x(
    "dlmp.create_explosion(V, 0, 10, 0)",
    "create_explosion: ",
    "6000.5",
    "position is outside the world",
    "1"
)]
#[case::explosion_z(
    "dlmp.create_explosion(0, 0, V, 0)",
    "create_explosion: ",
    "-200.5",
    "position is outside the world",
    "1"
)]
#[case::explosion_radius(
    "dlmp.create_explosion(0, 0, 10, 0, { radius = V })",
    "create_explosion: radius",
    "50.5",
    "outside 0.1..=50",
    "0.1"
)]
fn a_number_for_an_f32_field_is_finite_as_an_f32_and_in_range(
    #[case] call: &str,
    #[case] names: &str,
    #[case] outside: &str,
    #[case] rule: &str,
    #[case] good: &str,
) {
    assert_eq!(error_of(call, good), None, "a good value is taken: {call}");
    for bad in NOT_F32 {
        let err = error_of(call, bad).unwrap_or_else(|| panic!("{call} took {bad}"));
        assert!(err.contains(names), "{bad}: {err}");
    }
    let err = error_of(call, outside).unwrap_or_else(|| panic!("{call} took {outside}"));
    assert!(
        err.contains(names) && err.contains(rule),
        "{outside}: {err}"
    );
}
