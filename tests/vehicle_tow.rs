//! vehicles.md VehicleTow and VehicleTrailer in the harness: every hitch rule failing on
//! its own and passing, the refusal answered to the sender alone, chains of 4 links and a
//! 5th refused, a loop refused, `trailer_attach` refusing and the second check, unhitching
//! and `trailer_detach`, repeats, the tractor's controller taking the trailer's syncer on
//! the wire, every automatic unhitch without events, `attach_trailer` / `detach_trailer`
//! with place = 1, and the trailer's frames held until the copy hangs as the server says.

mod vehicle_support;
mod vlink_support;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::player::sync::Frame;
use dlmp::protocol::vehicle::frame::VehicleFrame;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::protocol::vehicle::towing::VehicleTow;
use dlmp::vehicle::frame::accept::VehicleFrameDrops;
use dlmp::vehicle::tow::links::{LinkKind, LinkRefusal};
use dlmp::vehicle::{Frozen, ResetKind, VehicleScope, destroy_vehicle};
use dlmp_core::position::Scope;
use dlmp_core::vehicle::Life;
use vehicle_support::{at, put, stand, vehicle, with_vehicle};
use vlink_support::*;

const TRAILER: LinkKind = LinkKind::Trailer;

/// Alice drives a tow truck at x = 0; a car stands 20 m behind it, Bob beside the car
/// (its nearest player, so its syncer).
struct Scene {
    h: Harness,
    a: ClientId,
    b: ClientId,
    truck: VehicleId,
    car: VehicleId,
}

fn scene_with(h: Harness) -> Scene {
    let LinkScene {
        h,
        a,
        b,
        lead: truck,
        car,
    } = link_scene(h, 525, |_, _| {});
    Scene {
        h,
        a,
        b,
        truck,
        car,
    }
}

fn scene() -> Scene {
    scene_with(Harness::new())
}

/// The refusal's marks: the sender alone got the server's (unchanged) hitch, nothing
/// changed, and the reason was counted once.
#[track_caller]
fn refused_alone(s: &Scene, sender: ClientId, other: ClientId, why: LinkRefusal) {
    assert_eq!(trailers(&s.h, sender), [(s.car.0, NONE, false)]);
    assert!(trailers(&s.h, other).is_empty(), "only to the sender");
    assert_eq!(hitch(&s.h, s.car).tractor, None);
    assert_eq!(refused(&s.h, TRAILER, why), 1, "{why:?}");
}

#[test]
fn a_hitch_goes_to_everyone_and_the_tractors_driver_takes_the_trailers_syncer() {
    let mut s = scene();
    assert_eq!(syncer(&s.h, s.car), Some(s.h.player_id(s.b).0));
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    assert_eq!(hitch(&s.h, s.car).tractor, Some(s.truck));
    for c in [s.a, s.b] {
        assert_eq!(trailers(&s.h, c), [(s.car.0, s.truck.0, false)]);
    }
    assert_eq!(syncer(&s.h, s.car), Some(s.h.player_id(s.a).0));
    assert_eq!(told(&s.h, s.b), [(s.car.0, false)]);
    assert_eq!(told(&s.h, s.a), [(s.car.0, true)]);
}

#[test]
fn a_show_carries_the_tractor() {
    let mut s = scene();
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    let c = s.h.connect("carol");
    s.h.step();
    stand(&mut s.h, c, at(60.0));
    s.h.step();
    let show =
        s.h.packets::<VehicleSync>(c)
            .into_iter()
            .find(|v| v.vehicle_id == s.car && v.active)
            .expect("the car's show");
    assert_eq!(show.tractor_id, s.truck);
}

#[test]
fn a_hitch_from_someone_not_controlling_the_tractor_is_refused() {
    let mut s = scene();
    tow(&mut s.h, s.b, s.car, Some(s.truck));
    refused_alone(&s, s.b, s.a, LinkRefusal::NotController);
}

#[test]
fn a_paused_driver_does_not_control_the_tractor() {
    let mut s = scene();
    let paused = Frame {
        paused: true,
        ..Frame::standing(at(0.0))
    };
    s.h.sync(s.a, 80, paused);
    s.h.clear(s.a);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    refused_alone(&s, s.a, s.b, LinkRefusal::NotController);
}

#[test]
fn a_wrecked_trailer_is_not_hitched() {
    let mut s = scene();
    // What an accepted VehicleExplode leaves (the explosion is another feature's).
    with_vehicle::<Life>(&mut s.h, s.car, |l| l.wrecked = true);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    refused_alone(&s, s.a, s.b, LinkRefusal::Wrecked);
}

#[test]
fn a_frozen_vehicle_is_never_hitched_as_trailer_or_tractor() {
    let mut s = scene();
    // What dlmp.set_vehicle_frozen leaves (VehicleTransform is another feature's).
    with_vehicle::<Frozen>(&mut s.h, s.car, |f| f.gamemode = true);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    refused_alone(&s, s.a, s.b, LinkRefusal::Frozen);
    with_vehicle::<Frozen>(&mut s.h, s.car, |f| f.gamemode = false);
    with_vehicle::<Frozen>(&mut s.h, s.truck, |f| f.gamemode = true);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::Frozen), 2);
}

#[test]
fn an_unknown_epoch_is_answered_with_the_servers_hitch() {
    let mut s = scene();
    let packet = VehicleTow {
        session_token: s.h.token(s.a),
        event_id: dlmp::protocol::ids::EventId(0),
        trailer_id: s.car,
        trailer_epoch: VehicleEpoch(1),
        tractor_id: s.truck,
        tractor_epoch: VehicleEpoch(0),
    };
    s.h.send_event(s.a, packet);
    s.h.step();
    refused_alone(&s, s.a, s.b, LinkRefusal::Epoch);
}

#[test]
fn a_trailer_in_another_world_is_not_hitched() {
    let mut s = scene();
    with_vehicle::<VehicleScope>(&mut s.h, s.car, |v| {
        v.0 = Scope {
            virtual_world: 4,
            interior: 0,
        }
    });
    s.h.step();
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    assert_eq!(trailers(&s.h, s.a), [(s.car.0, NONE, false)]);
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::NotStreamed), 1);
}

#[test]
fn a_trailer_with_a_driver_is_not_hitched_but_one_with_a_passenger_is() {
    let mut s = scene();
    put(&mut s.h, s.b, s.car, 0);
    s.h.clear(s.a);
    s.h.clear(s.b);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    refused_alone(&s, s.a, s.b, LinkRefusal::Driven);
    put(&mut s.h, s.b, s.car, 1);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    assert_eq!(hitch(&s.h, s.car).tractor, Some(s.truck));
    assert_eq!(
        syncer(&s.h, s.car),
        Some(s.h.player_id(s.a).0),
        "its passengers do not sync it"
    );
}

#[test]
fn a_trailer_on_another_tractor_and_a_tractor_that_tows_are_refused() {
    let mut s = scene();
    let other = vehicle(&mut s.h, 525, at(25.0));
    let second = vehicle(&mut s.h, 411, at(5.0));
    s.h.step();
    put(&mut s.h, s.b, other, 0);
    tow(&mut s.h, s.b, s.car, Some(other));
    assert_eq!(hitch(&s.h, s.car).tractor, Some(other));
    s.h.clear(s.a);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::Hangs), 1);
    assert_eq!(trailers(&s.h, s.a), [(s.car.0, other.0, false)]);
    tow(&mut s.h, s.a, second, Some(s.truck));
    assert_eq!(hitch(&s.h, second).tractor, Some(s.truck));
    let third = vehicle(&mut s.h, 411, at(3.0));
    s.h.step();
    tow(&mut s.h, s.a, third, Some(s.truck));
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::Busy), 1);
}

#[test]
fn only_the_games_pairs_hitch() {
    let mut s = scene();
    let bike = vehicle(&mut s.h, 522, at(10.0));
    let farm = vehicle(&mut s.h, 610, at(10.0));
    s.h.step();
    tow(&mut s.h, s.a, bike, Some(s.truck));
    tow(&mut s.h, s.a, farm, Some(s.truck));
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::Pair), 2);
    assert_eq!(hitch(&s.h, bike).tractor, None);
    assert_eq!(hitch(&s.h, farm).tractor, None);
}

#[test]
fn a_hitch_is_made_within_25_m() {
    let mut s = scene();
    let far = vehicle(&mut s.h, 411, at(25.5));
    s.h.step();
    tow(&mut s.h, s.a, far, Some(s.truck));
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::TooFar), 1);
    let edge = vehicle(&mut s.h, 411, Vec3::new(0.0, 25.0, 3.0));
    s.h.step();
    tow(&mut s.h, s.a, edge, Some(s.truck));
    assert_eq!(hitch(&s.h, edge).tractor, Some(s.truck));
}

#[test]
fn a_request_past_the_rate_limit_is_answered_and_changes_nothing() {
    let mut s = scene();
    for _ in 0..30 {
        send_tow(&mut s.h, s.a, s.car, None);
    }
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    refused_alone(&s, s.a, s.b, LinkRefusal::RateLimited);
}

#[test]
fn a_chain_takes_4_links_and_refuses_a_5th() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.step();
    stand(&mut h, a, at(0.0));
    let tug = vehicle(&mut h, 485, at(0.0));
    let models = [606, 607, 606, 607, 608];
    let boxes: Vec<VehicleId> = models
        .iter()
        .enumerate()
        .map(|(i, &m)| vehicle(&mut h, m, at(5.0 * (i as f32 + 1.0))))
        .collect();
    h.step();
    put(&mut h, a, tug, 0);
    let mut tractor = tug;
    for &b in &boxes[..4] {
        tow(&mut h, a, b, Some(tractor));
        assert_eq!(hitch(&h, b).tractor, Some(tractor));
        assert_eq!(syncer(&h, b), Some(h.player_id(a).0), "the head's driver");
        tractor = b;
    }
    tow(&mut h, a, boxes[4], Some(tractor));
    assert_eq!(hitch(&h, boxes[4]).tractor, None);
    assert_eq!(refused(&h, TRAILER, LinkRefusal::TooLong), 1);
}

#[test]
fn a_hitch_closing_a_loop_is_refused() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(150.0));
    let one = vehicle(&mut h, 525, at(0.0));
    let two = vehicle(&mut h, 525, at(8.0));
    h.step();
    assert_eq!(syncer(&h, one), Some(h.player_id(a).0));
    tow(&mut h, a, two, Some(one));
    assert_eq!(hitch(&h, two).tractor, Some(one));
    assert_eq!(syncer(&h, two), Some(h.player_id(a).0));
    tow(&mut h, a, one, Some(two));
    assert_eq!(hitch(&h, one).tractor, None);
    assert_eq!(refused(&h, TRAILER, LinkRefusal::Loop), 1);
}

#[test]
fn trailer_attach_refuses_and_the_hitch_is_checked_again_after_it() {
    let scripts = TempScripts::new("tow_refuse");
    scripts.resource(
        "gm",
        r#"
        dlmp.on("trailer_attach", function(trailer, tractor, player)
            dlmp.send_chat("attach " .. trailer:id() .. " " .. tractor:id() .. " " .. player:name())
            if trailer:model() == 411 then return false end
            -- a driver gets into the other car before the hitch is made
            for _, p in ipairs(dlmp.players()) do
                if p:name() == "bob" then dlmp.put_player_in_vehicle(p, trailer, 0) end
            end
        end)
        "#,
    );
    let mut s = scene_with(scripts.harness());
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    refused_alone(&s, s.a, s.b, LinkRefusal::Refused);
    assert_eq!(
        s.h.chat_lines(s.b)
            .into_iter()
            .filter(|l| l.starts_with("attach"))
            .collect::<Vec<_>>(),
        [format!("attach {} {} alice", s.car.0, s.truck.0)]
    );
    let other = vehicle(&mut s.h, 400, at(15.0));
    s.h.step();
    s.h.clear(s.a);
    tow(&mut s.h, s.a, other, Some(s.truck));
    assert_eq!(hitch(&s.h, other).tractor, None);
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::Driven), 1);
    assert_eq!(trailers(&s.h, s.a), [(other.0, NONE, false)]);
}

#[test]
fn unhitching_from_the_tractors_controller_raises_trailer_detach_and_repeats_do_nothing() {
    let scripts = TempScripts::new("tow_detach");
    scripts.resource(
        "gm",
        r#"
        local function say(what, trailer, tractor, player)
            dlmp.send_chat(what .. " " .. trailer:id() .. " " .. tractor:id() .. " " .. player:name())
        end
        dlmp.on("trailer_attach", function(...) say("attach", ...) end)
        dlmp.on("trailer_detach", function(...) say("detach", ...) end)
        "#,
    );
    let mut s = scene_with(scripts.harness());
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    let mut lines = s.h.take_chat_lines(s.b);
    // Bob neither drives the truck nor syncs it: his unhitch is answered to him alone.
    s.h.clear(s.a);
    s.h.clear(s.b);
    tow(&mut s.h, s.b, s.car, None);
    assert_eq!(trailers(&s.h, s.b), [(s.car.0, s.truck.0, false)]);
    assert!(trailers(&s.h, s.a).is_empty());
    assert_eq!(hitch(&s.h, s.car).tractor, Some(s.truck));
    tow(&mut s.h, s.a, s.car, None);
    tow(&mut s.h, s.a, s.car, None);
    assert_eq!(hitch(&s.h, s.car).tractor, None);
    assert_eq!(trailers(&s.h, s.a), [(s.car.0, NONE, false)]);
    assert_eq!(
        trailers(&s.h, s.b),
        [(s.car.0, s.truck.0, false), (s.car.0, NONE, false)]
    );
    lines.extend(s.h.chat_lines(s.b));
    lines.retain(|l| l.starts_with("attach") || l.starts_with("detach"));
    assert_eq!(
        lines,
        [
            format!("attach {} {} alice", s.car.0, s.truck.0),
            format!("detach {} {} alice", s.car.0, s.truck.0),
        ]
    );
}

/// Alice's truck tows the car; the scripts log detaches.
fn hitched_with_a_detach_log(test: &str) -> (TempScripts, Scene) {
    let scripts = detach_log(test, "trailer_detach");
    let mut s = scene_with(scripts.harness());
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    s.h.clear(s.a);
    s.h.clear(s.b);
    (scripts, s)
}

#[track_caller]
fn unhitched_without_events(s: &Scene) {
    assert_eq!(hitch(&s.h, s.car).tractor, None);
    assert_eq!(trailers(&s.h, s.b), [(s.car.0, NONE, false)]);
    assert!(
        !s.h.chat_lines(s.b).iter().any(|l| l == "detach"),
        "no resource event"
    );
}

#[test]
fn a_driver_getting_in_unhitches_the_trailer() {
    let (_scripts, mut s) = hitched_with_a_detach_log("tow_driver");
    put(&mut s.h, s.b, s.car, 1);
    assert_eq!(
        hitch(&s.h, s.car).tractor,
        Some(s.truck),
        "a passenger does not"
    );
    put(&mut s.h, s.b, s.car, 0);
    unhitched_without_events(&s);
}

#[test]
fn a_wreck_a_respawn_and_a_transform_of_either_end_unhitch() {
    for (kind, of_trailer) in [
        (ResetKind::Wrecked, true),
        (ResetKind::Wrecked, false),
        (ResetKind::Respawned, true),
        (ResetKind::Respawned, false),
        (ResetKind::Transformed, true),
        (ResetKind::Transformed, false),
    ] {
        let (_scripts, mut s) = hitched_with_a_detach_log("tow_reset");
        let which = if of_trailer { s.car } else { s.truck };
        reset(&mut s.h, which, kind);
        unhitched_without_events(&s);
    }
}

#[test]
fn a_respawned_trailers_show_hangs_on_nothing() {
    let (_scripts, mut s) = hitched_with_a_detach_log("tow_respawn_show");
    dlmp::vehicle::life::respawn_vehicle(s.h.world_mut(), s.car).expect("a vehicle");
    s.h.step();
    assert_eq!(
        shows(&s.h, s.b, s.car),
        [(1, NONE, NONE)],
        "the new epoch, not hitched"
    );
    unhitched_without_events(&s);
}

#[rstest::rstest]
#[case::freeze("dlmp.set_vehicle_frozen(car, true)")]
#[case::position("dlmp.set_vehicle_position(car, 40, 0, 10)")]
fn a_gamemode_transform_of_the_trailer_unhitches_it_before_its_transform(#[case] call: &str) {
    let scripts = TempScripts::new("tow_transform");
    scripts.resource(
        "gm",
        &format!(
            r#"dlmp.add_command("go", function(p)
                for _, car in ipairs(dlmp.vehicles()) do
                    if car:model() == 411 then {call} end
                end
                return true
            end)"#
        ),
    );
    let mut s = scene_with(scripts.harness());
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    s.h.clear(s.b);
    s.h.chat(s.a, "/go");
    s.h.steps(2);
    let order: Vec<&str> =
        s.h.received(s.b)
            .iter()
            .filter_map(|p| match p {
                ServerPacket::VehicleTrailer(t) if t.trailer_id == s.car => Some("unhitch"),
                ServerPacket::VehicleTransform(t) if t.vehicle_id == s.car => Some("transform"),
                _ => None,
            })
            .collect();
    assert_eq!(order, ["unhitch", "transform"]);
    assert_eq!(hitch(&s.h, s.car).tractor, None);
}

#[test]
fn removing_the_tractor_unhitches_the_trailer() {
    let (_scripts, mut s) = hitched_with_a_detach_log("tow_removal");
    destroy_vehicle(s.h.world_mut(), s.truck).expect("destroyed");
    s.h.step();
    unhitched_without_events(&s);
}

#[test]
fn attach_trailer_places_the_trailer_and_detach_trailer_unhitches_it() {
    let scripts = TempScripts::new("tow_lua");
    scripts.resource(
        "gm",
        r#"
        local function find(model)
            for _, v in ipairs(dlmp.vehicles()) do if v:model() == model then return v end end
        end
        dlmp.add_command("hitch", function(player)
            local truck, car = find(525), find(411)
            local ok, err = pcall(dlmp.attach_trailer, find(522), truck)
            dlmp.send_chat(tostring(err))
            dlmp.attach_trailer(car, truck)
            dlmp.send_chat("tows " .. truck:trailer():id() .. " by " .. car:tractor():id())
            return true
        end)
        dlmp.add_command("unhitch", function(player)
            local car = find(411)
            dlmp.detach_trailer(car)
            dlmp.send_chat("after " .. tostring(car:tractor()))
            return true
        end)
        "#,
    );
    let mut h = scripts.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(20.0));
    let truck = vehicle(&mut h, 525, at(0.0));
    let car = vehicle(&mut h, 411, at(20.0));
    let bike = vehicle(&mut h, 522, at(5.0));
    h.step();
    h.clear(a);
    h.clear(b);
    h.chat(a, "/hitch");
    h.step();
    assert_eq!(hitch(&h, car).tractor, Some(truck));
    for c in [a, b] {
        assert_eq!(trailers(&h, c), [(car.0, truck.0, true)]);
    }
    let lines = h.chat_lines(b);
    assert!(
        lines.contains(&format!("tows {} by {}", car.0, truck.0)),
        "{lines:?}"
    );
    let error = format!(
        "attach_trailer: vehicle {} (model 522) to {} (model 525): the game does not hitch these models",
        bike.0, truck.0
    );
    assert!(lines.iter().any(|l| l.contains(&error)), "{lines:?}");
    h.chat(a, "/unhitch");
    h.step();
    assert_eq!(hitch(&h, car).tractor, None);
    assert_eq!(
        trailers(&h, b),
        [(car.0, truck.0, true), (car.0, NONE, false)]
    );
    assert!(h.chat_lines(b).contains(&"after nil".to_owned()));
}

/// A VehicleFrame of `vehicle` from `c` at rest where the server has it, one tick.
fn car_frame(h: &mut Harness, c: ClientId, seq: u32, vehicle: VehicleId) {
    let packet = VehicleFrame {
        session_token: h.token(c),
        seq: Seq(seq),
        vehicle_id: vehicle,
        state: VehicleState::at_rest(at(19.0)),
    };
    h.send(c, packet);
    h.step();
}

fn frame_counts(h: &Harness) -> (u64, u64) {
    let d = *h.world().resource::<VehicleFrameDrops>();
    (d.accepted, d.hitch)
}

#[test]
fn the_trailers_frames_count_at_once_from_the_player_whose_game_made_the_hitch() {
    let mut s = scene();
    s.h.set_auto_ack(s.a, false);
    tow(&mut s.h, s.a, s.car, Some(s.truck));
    car_frame(&mut s.h, s.a, 1, s.car);
    assert_eq!(frame_counts(&s.h), (1, 0));
}

#[test]
fn the_trailers_frames_wait_until_the_copy_took_a_hitch_its_game_did_not_make() {
    let mut s = scene();
    s.h.set_auto_ack(s.a, false);
    // What dlmp.attach_trailer queues.
    s.h.world_mut()
        .write_message(dlmp::vehicle::tow::flow::LinkCommand::Attach {
            kind: TRAILER,
            child: s.car,
            parent: s.truck,
        });
    s.h.step();
    assert_eq!(hitch(&s.h, s.car).tractor, Some(s.truck));
    assert_eq!(syncer(&s.h, s.car), Some(s.h.player_id(s.a).0));
    car_frame(&mut s.h, s.a, 1, s.car);
    assert_eq!(
        frame_counts(&s.h),
        (0, 1),
        "before the copy hangs on the hitch"
    );
    s.h.ack(s.a);
    s.h.step();
    car_frame(&mut s.h, s.a, 2, s.car);
    assert_eq!(frame_counts(&s.h), (1, 1));
}

/// VehicleExit from `c` without a tick: the next packets share the tick's lane with it.
fn send_exit(h: &mut Harness, c: ClientId, id: VehicleId) {
    let packet = dlmp::protocol::vehicle::seats::VehicleExit {
        session_token: h.token(c),
        event_id: dlmp::protocol::ids::EventId(0),
        vehicle_id: id,
    };
    h.send_event(c, packet);
}

#[test]
fn a_tow_then_the_drivers_exit_in_one_tick_hitches_the_trailer() {
    let mut s = scene();
    send_tow(&mut s.h, s.a, s.car, Some(s.truck));
    send_exit(&mut s.h, s.a, s.truck);
    s.h.step();
    assert_eq!(
        hitch(&s.h, s.car).tractor,
        Some(s.truck),
        "judged as it came"
    );
    assert_eq!(trailers(&s.h, s.b), [(s.car.0, s.truck.0, false)]);
    assert!(
        s.h.world()
            .get::<dlmp_core::vehicle::Seated>(s.h.entity(s.a))
            .is_none(),
        "and the driver got out"
    );
}

#[test]
fn the_drivers_exit_then_a_tow_in_one_tick_is_refused() {
    let mut s = scene();
    send_exit(&mut s.h, s.a, s.truck);
    send_tow(&mut s.h, s.a, s.car, Some(s.truck));
    s.h.step();
    assert_eq!(hitch(&s.h, s.car).tractor, None);
    assert_eq!(refused(&s.h, TRAILER, LinkRefusal::NotController), 1);
}
