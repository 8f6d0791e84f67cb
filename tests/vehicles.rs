//! vehicles.md VehicleSync ("Streaming", "Revisions", "Attached state") and player.md's
//! "a seated player is shown exactly when its vehicle is shown", in the harness: vehicles
//! made through the Rust API, players moved by the harness, and exactly the VehicleSync,
//! VehicleOccupancy and player streaming packets each client gets, in order.

mod vehicle_support;

use dlmp::harness::{Harness, TempScripts};
use dlmp::lane::Delivery;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Revision, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::vehicle::damage::VehicleDamageStatus;
use dlmp::protocol::vehicle::params::param;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::session::Player;
use dlmp::vehicle::{Params, PlayerParams, RelaySerial, Revisions, VehicleScope, destroy_vehicle};
use dlmp_core::vehicle::Pose;
use vehicle_support::*;

#[test]
fn a_vehicle_within_200_m_is_shown_with_every_field_and_hidden_beyond_it() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = vehicle(&mut h, 411, at(150.0));
    h.step();
    assert!(syncs(&h, a).is_empty(), "nothing before the spawn");
    stand(&mut h, a, at(0.0));
    h.step();
    let shows = h.packets::<VehicleSync>(a);
    assert_eq!(
        shows,
        [VehicleSync {
            event_id: shows[0].event_id,
            vehicle_id: id,
            active: true,
            model: 411,
            pos: at(150.0),
            heading: 0.0,
            color1: 1,
            color2: 2,
            health: 1000.0,
            flags: 0,
            epoch: VehicleEpoch(0),
            damage: VehicleDamageStatus::INTACT,
            params: 0,
            doors: 0,
            relay_seq: Seq(0),
            health_rev: Revision(0),
            damage_rev: Revision(0),
            tractor_id: VehicleId::NONE,
            lifter_id: VehicleId::NONE,
            part: 0,
            siren_rev: Revision(0),
            pose_rev: Revision(0),
        }]
    );
    walk(&mut h, a, at(-49.0)); // 199 m
    h.step();
    assert_eq!(syncs(&h, a), [(id.0, true)]);
    walk(&mut h, a, at(-51.0)); // 201 m
    h.step();
    assert_eq!(syncs(&h, a), [(id.0, true), (id.0, false)]);
    walk(&mut h, a, at(0.0));
    h.step();
    assert_eq!(syncs(&h, a), [(id.0, true), (id.0, false), (id.0, true)]);
}

/// ADR 0079: a recipient whose answer holds is not decided again, yet a vehicle driving
/// in steps too small to be a jump crosses 200 m in the tick it reaches it, both ways
/// (the vehicle stream has no hysteresis).
#[test]
fn a_vehicle_moving_in_small_steps_is_hidden_and_shown_the_tick_it_crosses_200_m() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = vehicle(&mut h, 411, at(150.0));
    stand(&mut h, a, at(0.0));
    h.step();
    assert_eq!(syncs(&h, a), [(id.0, true)]);
    for x in 151..=210 {
        with_vehicle::<Pose>(&mut h, id, |p| p.position = at(x as f32));
        h.step();
        let expected: &[(u32, bool)] = if x <= 200 {
            &[(id.0, true)]
        } else {
            &[(id.0, true), (id.0, false)]
        };
        assert_eq!(syncs(&h, a), expected, "the vehicle at {x} m");
    }
    for x in (195..=209).rev() {
        with_vehicle::<Pose>(&mut h, id, |p| p.position = at(x as f32));
        h.step();
        let shows = if x <= 200 { 2 } else { 1 };
        let got = syncs(&h, a);
        assert_eq!(got.iter().filter(|s| s.1).count(), shows, "back at {x} m");
    }
}

#[test]
fn a_show_carries_the_serial_the_revisions_and_the_recipients_own_lock_and_objective() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 407, at(10.0));
    with_vehicle::<RelaySerial>(&mut h, id, |s| s.0 = Seq(77));
    with_vehicle::<Revisions>(&mut h, id, |r| {
        r.health.0 = Revision(3);
        r.pose.0 = Revision(5);
    });
    let me = (h.player_id(a), h.get::<Player>(a).token);
    with_vehicle::<Params>(&mut h, id, |p| {
        p.bits |= param::LOCKED;
        p.per_player.push((
            me.0,
            me.1,
            PlayerParams {
                locked: Some(false),
                objective: true,
            },
        ));
    });
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(0.0));
    h.step();
    let (sa, sb) = (
        &h.packets::<VehicleSync>(a)[0],
        &h.packets::<VehicleSync>(b)[0],
    );
    assert_eq!(
        (sa.relay_seq, sa.health_rev, sa.pose_rev),
        (Seq(77), Revision(3), Revision(5))
    );
    assert_eq!(
        sa.params,
        param::HAS_SIREN | param::OBJECTIVE,
        "alice's own unlock and marker"
    );
    assert_eq!(
        sb.params,
        param::HAS_SIREN | param::LOCKED,
        "bob sees the vehicle's lock"
    );
}

#[test]
fn only_the_players_scope_sees_a_vehicle() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = vehicle(&mut h, 400, at(10.0));
    with_vehicle::<VehicleScope>(&mut h, id, |s| s.0.virtual_world = 3);
    stand(&mut h, a, at(0.0));
    h.step();
    assert!(syncs(&h, a).is_empty());
    h.set_scope(a, Some(3), None);
    h.step();
    assert_eq!(syncs(&h, a), [(id.0, true)]);
}

#[test]
fn the_recipients_own_vehicle_is_always_shown() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = vehicle(&mut h, 400, at(5.0));
    stand(&mut h, a, at(0.0));
    put(&mut h, a, id, 0);
    // The vehicle drives off (its server pose, as an accepted frame would set it).
    with_vehicle::<Pose>(&mut h, id, |p| p.position = at(900.0));
    h.steps(3);
    assert_eq!(syncs(&h, a), [(id.0, true)], "still shown, never hidden");
}

#[test]
fn the_seat_snapshot_follows_a_show_as_warps_and_a_hide_forgets_the_seats() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(300.0));
    put(&mut h, a, id, 1);
    h.step();
    let ia = h.player_id(a).0;
    assert!(syncs(&h, b).is_empty());
    assert!(
        !h.is_shown(a, b),
        "seated: shown only with the vehicle, not at 300 m"
    );
    h.clear(b);
    walk(&mut h, b, at(150.0));
    h.step();
    assert_eq!(
        transitions(&h, b),
        [
            format!("skills {ia}"),
            format!("show {}", id.0),
            format!("Warp {ia} seat 1"),
        ],
        "one transition: the occupant, the vehicle, its seats"
    );
    assert!(h.is_shown(a, b));
    h.clear(b);
    walk(&mut h, b, at(250.0));
    h.step();
    assert_eq!(
        transitions(&h, b),
        [format!("out {ia}"), format!("hide {}", id.0)],
        "the occupant first, then the vehicle"
    );
    assert!(!h.is_shown(a, b));
    h.clear(b);
    walk(&mut h, b, at(100.0));
    h.step();
    assert_eq!(
        transitions(&h, b),
        [
            format!("skills {ia}"),
            format!("show {}", id.0),
            format!("Warp {ia} seat 1"),
        ],
        "the next show sends whoever sits in it then"
    );
}

#[test]
fn a_show_with_passengers_on_a_nearly_full_lane_waits_as_a_whole() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(300.0));
    put(&mut h, a, id, 0);
    h.step();
    let ia = h.player_id(a).0;
    h.set_auto_ack(b, false);
    // The show is PlayerSkills, PlayerNametag, VehicleSync and one warp: four places.
    h.fill_lane(b, Delivery::Droppable, 3);
    h.clear(b);
    walk(&mut h, b, at(150.0));
    h.steps(2);
    assert!(
        transitions(&h, b).is_empty(),
        "no part of the show goes alone"
    );
    assert!(!h.is_shown(a, b));
    h.release_lane(b);
    assert_eq!(
        transitions(&h, b),
        [
            format!("skills {ia}"),
            format!("show {}", id.0),
            format!("Warp {ia} seat 0"),
        ]
    );
}

#[test]
fn a_hide_with_passengers_on_a_full_lane_stops_the_relays_at_once_and_goes_together() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(100.0));
    put(&mut h, a, id, 0);
    h.steps(2);
    assert!(h.is_shown(a, b));
    let ia = h.player_id(a).0;
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 1);
    h.clear(b);
    walk(&mut h, b, at(250.0));
    assert!(!h.is_shown(a, b), "the bit goes at once");
    assert!(
        transitions(&h, b).is_empty(),
        "the two hides need two places"
    );
    h.release_lane(b);
    assert_eq!(
        transitions(&h, b),
        [format!("out {ia}"), format!("hide {}", id.0)]
    );
}

#[test]
fn a_destroyed_vehicle_frees_its_seats_then_is_hidden() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(50.0));
    put(&mut h, a, id, 0);
    h.step();
    h.clear(a);
    h.clear(b);
    let ia = h.player_id(a).0;
    h.world_mut()
        .write_message(dlmp::vehicle::VehicleCommand::Destroy { id });
    h.step();
    for c in [a, b] {
        assert_eq!(
            transitions(&h, c),
            [format!("Exit {ia} seat 0"), format!("hide {}", id.0)]
        );
    }
    assert!(
        h.world()
            .get::<dlmp_core::vehicle::Seated>(h.entity(a))
            .is_none()
    );
    assert!(destroy_vehicle(h.world_mut(), id).is_err(), "gone");
}

#[test]
fn a_stopped_resource_takes_its_vehicles_with_it() {
    let s = TempScripts::new("veh_stop");
    s.resource(
        "gm",
        r#"
        car = dlmp.create_vehicle(411, 10, 0, 3, 0)
        dlmp.on("player_command", function(p, name)
            if name == "count" then dlmp.send_chat("n " .. #dlmp.vehicles(), nil, {p}) return true end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, at(0.0));
    h.step();
    assert_eq!(syncs(&h, a), [(1, true)]);
    h.world_mut()
        .non_send_mut::<dlmp::script::ScriptHost>()
        .stop("gm")
        .expect("stops");
    h.steps(2);
    assert_eq!(syncs(&h, a), [(1, true), (1, false)]);
    assert_eq!(
        h.world().resource::<dlmp_core::vehicle::Vehicles>().len(),
        0
    );
}

/// lua-api.md, Resources: a stopped (or restarted) resource removes its occupied vehicles
/// "exactly as `dlmp.destroy_vehicle`": every viewer gets each occupant's exit before the
/// hide, and nobody sees an occupant streamed out and in; the Rust `destroy_vehicle` too.
#[test]
fn a_stopped_resource_and_the_rust_call_empty_a_vehicle_as_destroy_vehicle_does() {
    let s = TempScripts::new("veh_stop_occupied");
    s.resource(
        "gm",
        r#"
        car = dlmp.create_vehicle(400, 0, 0, 3, 0)
        dlmp.on("player_command", function(p, name)
            if name == "sit" then dlmp.put_player_in_vehicle(p, car, 0) return true end
        end)
        "#,
    );
    let mut h = s.harness();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(50.0));
    h.chat(a, "/sit");
    h.steps(2);
    let ia = h.player_id(a).0;
    assert_eq!(
        h.world()
            .get::<dlmp_core::vehicle::Seated>(h.entity(a))
            .map(|s| s.seat),
        Some(0)
    );
    h.clear(a);
    h.clear(b);
    h.world_mut()
        .non_send_mut::<dlmp::script::ScriptHost>()
        .stop("gm")
        .expect("stops");
    h.steps(2);
    for c in [a, b] {
        assert_eq!(
            transitions(&h, c),
            [format!("Exit {ia} seat 0"), "hide 1".to_string()]
        );
    }
    assert!(
        h.packets::<dlmp::protocol::player::streaming::PlayerStreamOut>(b)
            .is_empty(),
        "alice stays shown to bob"
    );

    // A Rust plugin's destroy_vehicle: the same.
    let id = vehicle(&mut h, 400, at(0.0));
    put(&mut h, a, id, 0);
    h.step();
    h.clear(a);
    h.clear(b);
    destroy_vehicle(h.world_mut(), id).expect("exists");
    assert!(destroy_vehicle(h.world_mut(), id).is_err(), "already going");
    h.steps(2);
    for c in [a, b] {
        assert_eq!(
            transitions(&h, c),
            [format!("Exit {ia} seat 0"), format!("hide {}", id.0)]
        );
    }
}

#[test]
fn the_lua_reads_answer_from_the_server() {
    let s = TempScripts::new("veh_reads");
    s.resource(
        "gm",
        r#"
        car = dlmp.create_vehicle(411, 10, 20, 3, 90, 5, 6)
        ok, err = pcall(dlmp.create_vehicle, 570, 0, 0, 0, 0)
        dlmp.on("player_command", function(p, name)
            if name == "read" then
                local x, y, z = car:position()
                local c1, c2 = car:colors()
                local v, seat = p:vehicle()
                dlmp.send_chat(string.format("%d %d %.0f %.0f %.0f %.0f %.0f %d %s %d %d %d %s %s %s",
                    car:id(), car:model(), x, y, z, car:heading(), car:health(), car:epoch(),
                    tostring(car:is_wrecked()), c1, c2, #car:occupants(),
                    tostring(v and v:id()), tostring(seat), tostring(car:driver() and car:driver():name())), nil, {p})
                return true
            elseif name == "sit" then
                dlmp.put_player_in_vehicle(p, car, 0)
                return true
            elseif name == "err" then
                dlmp.send_chat(string.sub(tostring(err), 1, 100), nil, {p})
                return true
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, Vec3::new(10.0, 18.0, 3.0));
    h.chat(a, "/read");
    h.step();
    h.chat(a, "/sit");
    h.steps(2);
    h.chat(a, "/read");
    h.step();
    h.chat(a, "/err");
    h.step();
    let lines = h.chat_lines(a);
    let lines: Vec<&String> = lines.iter().filter(|l| !l.starts_with('*')).collect();
    assert!(
        lines
            .iter()
            .any(|l| *l == "1 411 10 20 3 90 1000 0 false 5 6 0 nil nil nil"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| *l == "1 411 10 20 3 90 1000 0 false 5 6 1 1 0 alice"),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("570 is a train carriage")),
        "{lines:?}"
    );
}

#[test]
fn the_console_lists_every_vehicle_in_aligned_columns() {
    let mut h = Harness::new();
    assert_eq!(
        dlmp::console::execute(h.world_mut(), "vehicles"),
        ["no vehicles"]
    );
    let a = h.connect("alice");
    let car = vehicle(&mut h, 411, Vec3::new(1.0, 2.0, 3.0));
    let train = vehicle(&mut h, 537, at(40.0));
    stand(&mut h, a, at(0.0));
    put(&mut h, a, car, 0);
    with_vehicle::<dlmp_core::vehicle::Life>(&mut h, train, |l| l.wrecked = true);
    let out = dlmp::console::execute(h.world_mut(), "vehicles");
    assert_eq!(out[0], "2 vehicles:");
    let words = |l: &str| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        words(&out[1]),
        [
            "id", "model", "driver", "seats", "health", "epoch", "world", "position"
        ]
    );
    assert_eq!(
        words(&out[2]),
        [
            "1", "411", "Infernus", "alice", "1/2", "1000", "0", "0/0", "1.0", "2.0", "3.0"
        ]
    );
    assert_eq!(
        words(&out[3]),
        [
            "2", "537", "Freight", "-", "0/21", "wreck", "0", "0/0", "40.0", "0.0", "3.0"
        ]
    );
    let driver_at = out[1].find("driver").expect("a driver column");
    assert_eq!(&out[2][driver_at..driver_at + 5], "alice", "aligned");
    assert_eq!(&out[3][driver_at..driver_at + 1], "-");
}
