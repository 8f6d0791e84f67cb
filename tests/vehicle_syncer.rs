//! vehicles.md, VehicleSyncer in the harness: the election's order (the first passenger,
//! the previous syncer within 130 m, the nearest player the vehicle is streamed to within
//! 130 m), paused and frozen players never syncing, a paused driver not counting,
//! VehicleSyncer 0 to the old syncer and 1 to the new, and `vehicle_syncer` for scripts.

mod vframe_support;

use bevy_ecs::prelude::*;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::sync::Frame;
use dlmp::protocol::vehicle::life::VehicleSyncer;
use dlmp::vehicle::Syncer;
use vframe_support::{HERE, seat, vehicle};

fn syncer(h: &Harness, v: Entity) -> Option<Entity> {
    h.world()
        .get::<Syncer>(v)
        .expect("a syncer")
        .0
        .map(|o| o.entity)
}

/// (vehicle, active) of every VehicleSyncer the client got.
fn told(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<VehicleSyncer>(c)
        .iter()
        .map(|s| (s.vehicle_id.0, s.active))
        .collect()
}

/// Moves the client to `at` (a gamemode teleport) and sends a living frame there.
fn walk(h: &mut Harness, c: ClientId, at: Vec3) {
    h.teleport(c, at);
    h.live(c);
}

fn x(dx: f32) -> Vec3 {
    Vec3::new(HERE.x + dx, HERE.y, HERE.z)
}

#[test]
fn the_nearest_player_syncs_an_empty_vehicle_and_is_told() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(x(50.0));
    walk(&mut h, b, x(20.0));
    let (v, id) = vehicle(&mut h, 411, HERE);
    assert_eq!(syncer(&h, v), Some(h.entity(b)));
    assert_eq!(told(&h, b), [(id.0, true)]);
    assert!(told(&h, a).is_empty(), "only to the syncer");
}

#[test]
fn the_syncer_hands_over_at_130_m() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(x(100.0));
    walk(&mut h, a, x(10.0));
    let (v, id) = vehicle(&mut h, 411, HERE);
    assert_eq!(syncer(&h, v), Some(h.entity(a)));
    // Alice walks off but stays within 130 m: she keeps it though Bob is nearer.
    walk(&mut h, a, x(129.0));
    h.step();
    assert_eq!(
        syncer(&h, v),
        Some(h.entity(a)),
        "the previous syncer within 130 m"
    );
    // Beyond 130 m: Bob, the nearest within 130 m, takes over.
    h.clear(a);
    walk(&mut h, a, x(131.0));
    h.step();
    assert_eq!(syncer(&h, v), Some(h.entity(b)));
    assert_eq!(told(&h, a), [(id.0, false)]);
    assert_eq!(told(&h, b), [(id.0, true)]);
    // Nobody within 130 m: no syncer.
    walk(&mut h, b, x(135.0));
    h.step();
    assert_eq!(syncer(&h, v), None);
}

#[test]
fn the_first_passenger_syncs_before_anyone_nearer() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(x(3.0));
    let (v, id) = vehicle(&mut h, 411, HERE);
    let first = syncer(&h, v).expect("a syncer");
    let (passenger, other) = if first == h.entity(a) { (b, a) } else { (a, b) };
    h.clear(other);
    seat(&mut h, passenger, v, 1);
    h.step();
    assert_eq!(syncer(&h, v), Some(h.entity(passenger)));
    assert_eq!(told(&h, other), [(id.0, false)]);
}

#[test]
fn the_passengers_sync_while_the_driver_is_paused_and_not_while_it_drives() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(x(3.0));
    let (v, _) = vehicle(&mut h, 411, HERE);
    seat(&mut h, a, v, 0);
    seat(&mut h, b, v, 1);
    assert_eq!(syncer(&h, v), None, "a vehicle with a driver has no syncer");
    let paused = Frame {
        paused: true,
        ..Frame::standing(HERE)
    };
    h.sync(a, 50, paused);
    assert_eq!(syncer(&h, v), Some(h.entity(b)));
    h.sync(a, 51, Frame::standing(HERE));
    h.steps(50);
    let unpaused = Frame {
        paused: false,
        ..Frame::standing(HERE)
    };
    h.sync(a, 52, unpaused);
    assert_eq!(
        syncer(&h, v),
        None,
        "after the pause the driver takes it over"
    );
}

#[test]
fn the_syncer_goes_away_from_a_paused_player() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(x(100.0));
    walk(&mut h, a, x(10.0));
    let (v, id) = vehicle(&mut h, 411, HERE);
    assert_eq!(syncer(&h, v), Some(h.entity(a)));
    h.clear(a);
    let paused = Frame {
        paused: true,
        ..Frame::standing(x(10.0))
    };
    h.sync(a, 90, paused);
    assert_eq!(
        syncer(&h, v),
        Some(h.entity(b)),
        "a paused player is never a syncer"
    );
    assert_eq!(told(&h, a), [(id.0, false)]);
}

#[test]
fn a_frozen_player_never_syncs() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(x(100.0));
    walk(&mut h, a, x(10.0));
    let (v, _) = vehicle(&mut h, 411, HERE);
    assert_eq!(syncer(&h, v), Some(h.entity(a)));
    h.freeze(a, true);
    assert_eq!(syncer(&h, v), Some(h.entity(b)));
}

#[test]
fn a_vehicle_not_streamed_to_a_player_is_not_synced_by_it() {
    let mut h = Harness::new();
    let (a, _) = h.connect_pair_at(x(10.0));
    h.with::<dlmp_core::position::Scope>(a, |s| s.virtual_world = 3);
    h.step();
    let (v, _) = vehicle(&mut h, 411, HERE);
    h.step();
    assert_ne!(syncer(&h, v), Some(h.entity(a)));
}

#[test]
fn vehicle_syncer_reaches_scripts_once_per_change() {
    let scripts = TempScripts::new("vehicle_syncer_event");
    scripts.resource(
        "gm",
        r#"
        dlmp.on("vehicle_syncer", function(vehicle, syncer, previous)
            local s = syncer and syncer:name() or "nil"
            local p = previous and previous:name() or "nil"
            dlmp.send_chat("syncer " .. vehicle:id() .. " " .. s .. " " .. p)
        end)
        "#,
    );
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(x(100.0));
    walk(&mut h, a, x(10.0));
    let (_, id) = vehicle(&mut h, 411, HERE);
    h.step();
    walk(&mut h, a, x(131.0));
    h.steps(2);
    let lines: Vec<String> = h
        .chat_lines(b)
        .into_iter()
        .filter(|l| l.starts_with("syncer"))
        .collect();
    assert_eq!(
        lines,
        [
            format!("syncer {} alice nil", id.0),
            format!("syncer {} bob alice", id.0),
        ]
    );
}

/// vehicles.md VehicleSyncer: `previous` is nil when the previous syncer left, and
/// `vehicle:syncer()` never answers a player who left, not even in `player_disconnect` before the
/// next election.
#[test]
fn a_syncer_who_left_is_nil_to_scripts() {
    let scripts = TempScripts::new("vehicle_syncer_left");
    scripts.resource(
        "gm",
        r#"
        dlmp.on("vehicle_syncer", function(vehicle, syncer, previous)
            local s = syncer and syncer:name() or "nil"
            local p = previous and tostring(previous:exists()) or "nil"
            dlmp.send_chat("syncer " .. vehicle:id() .. " " .. s .. " " .. p)
        end)
        dlmp.on("player_disconnect", function(player)
            for _, v in ipairs(dlmp.vehicles()) do
                local s = v:syncer()
                dlmp.send_chat("left " .. v:id() .. " " .. (s and s:name() or "nil"))
            end
        end)
        "#,
    );
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(x(100.0));
    walk(&mut h, a, x(10.0));
    let (v, id) = vehicle(&mut h, 411, HERE);
    h.step();
    assert_eq!(syncer(&h, v), Some(h.entity(a)));
    h.disconnect(a);
    h.steps(3);
    assert_eq!(syncer(&h, v), Some(h.entity(b)), "Bob takes over");
    let lines: Vec<String> = h
        .chat_lines(b)
        .into_iter()
        .filter(|l| l.starts_with("syncer") || l.starts_with("left"))
        .collect();
    assert_eq!(
        lines,
        [
            format!("syncer {} alice nil", id.0),
            format!("left {} nil", id.0),
            format!("syncer {} bob nil", id.0),
        ]
    );
}
