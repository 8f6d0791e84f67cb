//! vehicles.md VehicleWinch and VehicleLift in the harness: every pick-up rule failing on
//! its own and passing, the refusal answered to the sender alone, `winch_attach` refusing
//! and the second check, the release and `winch_detach`, repeats, the helicopter's
//! controller taking the load's syncer on the wire, and every automatic release without
//! events (a player gets in, a remote take-over, a wreck, a respawn, a transform, removal,
//! the winch removed or changed).

mod vehicle_support;
mod vlink_support;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ids::{EventId, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::vehicle::frame::VehicleFrame;
use dlmp::protocol::vehicle::params::param;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::protocol::vehicle::towing::VehicleWinch;
use dlmp::vehicle::frame::accept::VehicleFrameDrops;
use dlmp::vehicle::tow::links::{LinkKind, LinkRefusal};
use dlmp::vehicle::{Frozen, Occupant, Params, Remote, ResetKind, VehicleScope, destroy_vehicle};
use dlmp_core::position::Scope;
use dlmp_core::vehicle::Life;
use vehicle_support::{at, entity, put, stand, vehicle, with_vehicle};
use vlink_support::*;

const LIFT: LinkKind = LinkKind::Lift;

/// Alice pilots a Maverick with a magnet at x = 0; a car stands 20 m off, Bob beside it
/// (its nearest player, so its syncer).
struct Scene {
    h: Harness,
    a: ClientId,
    b: ClientId,
    heli: VehicleId,
    car: VehicleId,
}

/// The winch as `dlmp.set_vehicle_winch` leaves it (VehicleParams bit3 / bit4; the
/// command is the parameters feature's).
fn set_winch(h: &mut Harness, heli: VehicleId, bits: u16) {
    with_vehicle::<Params>(h, heli, |p| {
        p.bits = (p.bits & !(param::MAGNET | param::SMALL_MAGNET)) | bits;
    });
}

fn scene_with(h: Harness) -> Scene {
    let LinkScene {
        h,
        a,
        b,
        lead: heli,
        car,
    } = link_scene(h, 487, |h, heli| set_winch(h, heli, param::MAGNET));
    Scene { h, a, b, heli, car }
}

fn scene() -> Scene {
    scene_with(Harness::new())
}

#[track_caller]
fn refused_alone(s: &Scene, sender: ClientId, other: ClientId, why: LinkRefusal) {
    assert_eq!(lifts(&s.h, sender), [(s.car.0, NONE)]);
    assert!(lifts(&s.h, other).is_empty(), "only to the sender");
    assert_eq!(hitch(&s.h, s.car).lifter, None);
    assert_eq!(refused(&s.h, LIFT, why), 1, "{why:?}");
}

#[test]
fn a_pick_up_goes_to_everyone_and_the_pilot_takes_the_loads_syncer() {
    let mut s = scene();
    assert_eq!(syncer(&s.h, s.car), Some(s.h.player_id(s.b).0));
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(hitch(&s.h, s.car).lifter, Some(s.heli));
    for c in [s.a, s.b] {
        assert_eq!(lifts(&s.h, c), [(s.car.0, s.heli.0)]);
    }
    assert_eq!(syncer(&s.h, s.car), Some(s.h.player_id(s.a).0));
    assert_eq!(told(&s.h, s.b), [(s.car.0, false)]);
    assert_eq!(told(&s.h, s.a), [(s.car.0, true)]);
}

#[test]
fn a_show_carries_the_lifter() {
    let mut s = scene();
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    let c = s.h.connect("carol");
    s.h.step();
    stand(&mut s.h, c, at(60.0));
    s.h.step();
    let show =
        s.h.packets::<VehicleSync>(c)
            .into_iter()
            .find(|v| v.vehicle_id == s.car && v.active)
            .expect("the car's show");
    assert_eq!(show.lifter_id, s.heli);
}

#[test]
fn a_pick_up_from_someone_not_controlling_the_helicopter_is_refused() {
    let mut s = scene();
    winch(&mut s.h, s.b, s.car, Some(s.heli));
    refused_alone(&s, s.b, s.a, LinkRefusal::NotController);
}

#[test]
fn an_unknown_epoch_is_answered() {
    let mut s = scene();
    let packet = VehicleWinch {
        session_token: s.h.token(s.a),
        event_id: EventId(0),
        vehicle_id: s.car,
        vehicle_epoch: VehicleEpoch(0),
        heli_id: s.heli,
        heli_epoch: VehicleEpoch(3),
    };
    s.h.send_event(s.a, packet);
    s.h.step();
    refused_alone(&s, s.a, s.b, LinkRefusal::Epoch);
}

#[test]
fn without_a_winch_or_with_the_small_magnet_a_car_is_not_picked_up() {
    let mut s = scene();
    set_winch(&mut s.h, s.heli, 0);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    refused_alone(&s, s.a, s.b, LinkRefusal::Magnet);
    set_winch(&mut s.h, s.heli, param::SMALL_MAGNET);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Magnet), 2);
}

#[test]
fn the_magnet_takes_only_its_models() {
    let mut s = scene();
    let quad = vehicle(&mut s.h, 471, at(10.0));
    let tiger = vehicle(&mut s.h, 564, at(12.0));
    s.h.step();
    winch(&mut s.h, s.a, quad, Some(s.heli));
    winch(&mut s.h, s.a, tiger, Some(s.heli));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Magnet), 2);
    set_winch(&mut s.h, s.heli, param::SMALL_MAGNET);
    winch(&mut s.h, s.a, tiger, Some(s.heli));
    assert_eq!(
        hitch(&s.h, tiger).lifter,
        Some(s.heli),
        "the small magnet takes RC Tiger"
    );
}

#[test]
fn a_load_with_anyone_in_it_or_driven_remotely_is_not_picked_up() {
    let mut s = scene();
    put(&mut s.h, s.b, s.car, 1);
    s.h.clear(s.a);
    s.h.clear(s.b);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    refused_alone(&s, s.a, s.b, LinkRefusal::Occupied);
    dlmp_remove(&mut s.h, s.b);
    // What dlmp.set_remote_vehicle leaves (the remote feature's).
    let driver = occupant(&s.h, s.b);
    let car = entity(&s.h, s.car);
    s.h.world_mut().entity_mut(car).insert(Remote {
        driver,
        detonation: false,
    });
    s.h.step();
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Occupied), 2);
}

#[test]
fn a_vehicle_in_a_hitch_is_not_picked_up() {
    let mut s = scene();
    let truck = vehicle(&mut s.h, 525, at(25.0));
    s.h.step();
    put(&mut s.h, s.b, truck, 0);
    tow(&mut s.h, s.b, s.car, Some(truck));
    assert_eq!(hitch(&s.h, s.car).tractor, Some(truck));
    s.h.clear(s.a);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(lifts(&s.h, s.a), [(s.car.0, NONE)]);
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Entangled), 1);
}

#[test]
fn a_helicopter_carries_one_load_and_a_load_hangs_on_one_helicopter() {
    let mut s = scene();
    let other = vehicle(&mut s.h, 400, at(10.0));
    let heli2 = vehicle(&mut s.h, 487, at(28.0));
    set_winch(&mut s.h, heli2, param::MAGNET);
    s.h.step();
    winch(&mut s.h, s.a, other, Some(s.heli));
    assert_eq!(hitch(&s.h, other).lifter, Some(s.heli));
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Busy), 1);
    put(&mut s.h, s.b, heli2, 0);
    winch(&mut s.h, s.b, other, Some(heli2));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Hangs), 1);
    assert_eq!(hitch(&s.h, other).lifter, Some(s.heli));
}

#[test]
fn a_load_is_picked_up_within_30_m() {
    let mut s = scene();
    let far = vehicle(&mut s.h, 411, at(30.5));
    let edge = vehicle(&mut s.h, 411, at(30.0));
    s.h.step();
    winch(&mut s.h, s.a, far, Some(s.heli));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::TooFar), 1);
    winch(&mut s.h, s.a, edge, Some(s.heli));
    assert_eq!(hitch(&s.h, edge).lifter, Some(s.heli));
}

#[test]
fn a_frozen_or_wrecked_end_is_never_picked_up() {
    let mut s = scene();
    with_vehicle::<Frozen>(&mut s.h, s.heli, |f| f.gamemode = true);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    refused_alone(&s, s.a, s.b, LinkRefusal::Frozen);
    with_vehicle::<Frozen>(&mut s.h, s.heli, |f| f.gamemode = false);
    with_vehicle::<Life>(&mut s.h, s.car, |l| l.wrecked = true);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Wrecked), 1);
}

#[test]
fn a_load_in_another_world_is_not_picked_up() {
    let mut s = scene();
    with_vehicle::<VehicleScope>(&mut s.h, s.car, |v| {
        v.0 = Scope {
            virtual_world: 0,
            interior: 3,
        }
    });
    s.h.step();
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(lifts(&s.h, s.a), [(s.car.0, NONE)]);
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::NotStreamed), 1);
}

#[test]
fn a_pick_up_past_the_rate_limit_is_answered() {
    let mut s = scene();
    for _ in 0..30 {
        send_tow(&mut s.h, s.a, s.car, None);
    }
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    refused_alone(&s, s.a, s.b, LinkRefusal::RateLimited);
}

#[test]
fn winch_attach_refuses_winch_detach_follows_a_release_and_repeats_do_nothing() {
    let scripts = TempScripts::new("winch_events");
    scripts.resource(
        "gm",
        r#"
        local function say(what, vehicle, heli, player)
            dlmp.send_chat(what .. " " .. vehicle:id() .. " " .. heli:id() .. " " .. player:name())
        end
        dlmp.on("winch_attach", function(vehicle, ...)
            say("attach", vehicle, ...)
            if vehicle:model() == 400 then return false end
        end)
        dlmp.on("winch_detach", function(...) say("detach", ...) end)
        "#,
    );
    let mut s = scene_with(scripts.harness());
    let refused_one = vehicle(&mut s.h, 400, at(10.0));
    s.h.step();
    s.h.clear(s.a);
    winch(&mut s.h, s.a, refused_one, Some(s.heli));
    assert_eq!(lifts(&s.h, s.a), [(refused_one.0, NONE)]);
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Refused), 1);
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    let mut lines = s.h.take_chat_lines(s.b);
    // Bob does not control the helicopter: his release is answered to him alone.
    s.h.clear(s.a);
    winch(&mut s.h, s.b, s.car, None);
    assert_eq!(lifts(&s.h, s.b), [(s.car.0, s.heli.0)]);
    assert!(lifts(&s.h, s.a).is_empty());
    winch(&mut s.h, s.a, s.car, None);
    winch(&mut s.h, s.a, s.car, None);
    assert_eq!(hitch(&s.h, s.car).lifter, None);
    assert_eq!(lifts(&s.h, s.a), [(s.car.0, NONE)]);
    lines.extend(s.h.chat_lines(s.b));
    lines.retain(|l| l.starts_with("attach") || l.starts_with("detach"));
    assert_eq!(
        lines,
        [
            format!("attach {} {} alice", refused_one.0, s.heli.0),
            format!("attach {} {} alice", s.car.0, s.heli.0),
            format!("detach {} {} alice", s.car.0, s.heli.0),
        ]
    );
}

#[test]
fn the_pick_up_is_checked_again_after_winch_attach() {
    let scripts = TempScripts::new("winch_recheck");
    scripts.resource(
        "gm",
        r#"
        dlmp.on("winch_attach", function(vehicle)
            for _, p in ipairs(dlmp.players()) do
                if p:name() == "bob" then dlmp.put_player_in_vehicle(p, vehicle, 1) end
            end
        end)
        "#,
    );
    let mut s = scene_with(scripts.harness());
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(hitch(&s.h, s.car).lifter, None);
    assert_eq!(refused(&s.h, LIFT, LinkRefusal::Occupied), 1);
    assert_eq!(lifts(&s.h, s.a), [(s.car.0, NONE)]);
}

/// Alice's helicopter carries the car; the scripts log releases.
fn lifted(test: &str) -> (TempScripts, Scene) {
    let scripts = detach_log(test, "winch_detach");
    let mut s = scene_with(scripts.harness());
    winch(&mut s.h, s.a, s.car, Some(s.heli));
    assert_eq!(hitch(&s.h, s.car).lifter, Some(s.heli));
    s.h.clear(s.a);
    s.h.clear(s.b);
    (scripts, s)
}

#[track_caller]
fn released_without_events(s: &Scene) {
    assert_eq!(hitch(&s.h, s.car).lifter, None);
    assert_eq!(lifts(&s.h, s.b), [(s.car.0, NONE)]);
    assert!(
        !s.h.chat_lines(s.b).iter().any(|l| l == "detach"),
        "no resource event"
    );
}

#[test]
fn a_player_getting_into_any_seat_releases_the_load() {
    let (_scripts, mut s) = lifted("winch_seat");
    put(&mut s.h, s.b, s.car, 1);
    released_without_events(&s);
}

#[test]
fn a_remote_take_over_a_wreck_a_respawn_and_a_transform_release() {
    for (kind, of_load) in [
        (ResetKind::RemoteTaken, true),
        (ResetKind::Wrecked, true),
        (ResetKind::Wrecked, false),
        (ResetKind::Respawned, true),
        (ResetKind::Respawned, false),
        (ResetKind::Transformed, true),
        (ResetKind::Transformed, false),
    ] {
        let (_scripts, mut s) = lifted("winch_reset");
        let which = if of_load { s.car } else { s.heli };
        reset(&mut s.h, which, kind);
        released_without_events(&s);
    }
}

#[test]
fn a_respawned_loads_show_hangs_on_nothing() {
    let (_scripts, mut s) = lifted("winch_respawn_show");
    dlmp::vehicle::life::respawn_vehicle(s.h.world_mut(), s.car).expect("a vehicle");
    s.h.step();
    assert_eq!(
        shows(&s.h, s.b, s.car),
        [(1, NONE, NONE)],
        "the new epoch, not lifted"
    );
    released_without_events(&s);
}

#[test]
fn removing_the_helicopter_releases_the_load() {
    let (_scripts, mut s) = lifted("winch_removal");
    destroy_vehicle(s.h.world_mut(), s.heli).expect("destroyed");
    s.h.step();
    released_without_events(&s);
}

#[test]
fn a_winch_removed_or_changed_releases_the_load() {
    for bits in [0, param::SMALL_MAGNET] {
        let (_scripts, mut s) = lifted("winch_changed");
        set_winch(&mut s.h, s.heli, bits);
        s.h.step();
        released_without_events(&s);
    }
}

#[test]
fn a_refused_senders_frames_of_the_load_wait_until_its_copy_returns() {
    let mut s = scene();
    s.h.set_auto_ack(s.b, false);
    // Bob syncs the car; his game claims a pick-up the server refuses: his copy returns to
    // the server's state only with the VehicleLift it answers.
    assert_eq!(syncer(&s.h, s.car), Some(s.h.player_id(s.b).0));
    winch(&mut s.h, s.b, s.car, Some(s.heli));
    assert_eq!(lifts(&s.h, s.b), [(s.car.0, NONE)]);
    let send = |h: &mut Harness, seq: u32| {
        let packet = VehicleFrame {
            session_token: h.token(s.b),
            seq: Seq(seq),
            vehicle_id: s.car,
            state: VehicleState::at_rest(at(20.0)),
        };
        h.send(s.b, packet);
        h.step();
    };
    send(&mut s.h, 1);
    let d = *s.h.world().resource::<VehicleFrameDrops>();
    assert_eq!((d.accepted, d.hitch), (0, 1));
    s.h.ack(s.b);
    s.h.step();
    send(&mut s.h, 2);
    let d = *s.h.world().resource::<VehicleFrameDrops>();
    assert_eq!((d.accepted, d.hitch), (1, 1));
}

fn occupant(h: &Harness, c: ClientId) -> Occupant {
    Occupant {
        entity: h.entity(c),
        id: h.player_id(c),
        token: h.hello(c).player_token,
    }
}

/// The server takes the client's player out of its seat (`remove_player_from_vehicle`).
fn dlmp_remove(h: &mut Harness, c: ClientId) {
    let player = h.entity(c);
    let token = h.get::<dlmp::session::Player>(c).token;
    h.world_mut()
        .write_message(dlmp::vehicle::SeatCommand::Remove { player, token });
    h.step();
}
