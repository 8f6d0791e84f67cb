//! vehicles.md VehicleEnter, VehicleExit, VehicleOccupancy and player.md's seated rules, in
//! the harness: seat requests through the decoder, the gamemode's `vehicle_start_enter`,
//! `vehicle_jack` and the seat events, and exactly the VehicleOccupancy each client gets.

mod vehicle_support;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::Life as PlayerLife;
use dlmp::protocol::ServerPacket;
use dlmp::protocol::ids::VehicleId;
use dlmp::protocol::vehicle::params::param;
use dlmp::protocol::vehicle::seats::OccupancyKind::{self, *};
use dlmp::vehicle::{Params, Train, VehicleScope};
use dlmp_core::vehicle::{Life, Seated};
use rstest::rstest;
use vehicle_support::*;

/// A gamemode that logs the seat events to every player and refuses a start or a jack
/// while the chat commands `/no_start` and `/no_jack` say so; `/jacking on|off`.
fn gamemode(test: &str) -> TempScripts {
    let s = TempScripts::new(test);
    s.resource(
        "gm",
        r#"
        no_start, no_jack = false, false
        local function say(text) dlmp.send_chat(text) end
        dlmp.on("vehicle_start_enter", function(v, p, seat, jacked)
            say("start " .. p:name() .. " " .. seat .. " " .. (jacked and jacked:name() or "-"))
            if no_start then return false end
        end)
        dlmp.on("vehicle_jack", function(v, jacker, victim)
            say("jack " .. jacker:name() .. " " .. victim:name())
            if no_jack then return false end
        end)
        dlmp.on("player_enter_vehicle", function(p, v, seat) say("enter " .. p:name() .. " " .. seat) end)
        dlmp.on("player_exit_vehicle", function(p, v, seat) say("exit " .. p:name() .. " " .. seat) end)
        dlmp.on("player_command", function(p, name, args)
            if name == "no_start" then no_start = true
            elseif name == "no_jack" then no_jack = true
            elseif name == "jacking" then dlmp.set_vehicle_jacking(args[1] == "on")
            else return false end
            return true
        end)
        "#,
    );
    s
}

/// The seat events the gamemode logged, as `c` heard them.
fn events(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
        .into_iter()
        .filter(|l| {
            ["start", "jack", "enter", "exit"]
                .iter()
                .any(|w| l.starts_with(w))
        })
        .collect()
}

fn seated(h: &Harness, c: ClientId) -> Option<(u32, u8)> {
    h.world()
        .get::<Seated>(h.entity(c))
        .map(|s| (s.id.0, s.seat))
}

/// Alice and Bob at the origin, a 4-seat Landstalker 5 m away, shown to both.
fn scene(h: &mut Harness) -> (ClientId, ClientId, VehicleId) {
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(h, 400, at(5.0));
    stand(h, a, at(0.0));
    stand(h, b, at(0.0));
    h.step();
    assert_eq!(syncs(h, a), [(id.0, true)]);
    (a, b, id)
}

#[test]
fn an_accepted_entry_goes_to_everyone_the_vehicle_is_shown_to_and_raises_the_events() {
    let s = gamemode("seat_enter");
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let ia = h.player_id(a).0;
    enter(&mut h, a, id, 1);
    h.step();
    for c in [a, b] {
        assert_eq!(seats(&h, c), [(id.0, ia, 1, Enter)]);
    }
    assert_eq!(seated(&h, a), Some((id.0, 1)));
    assert_eq!(events(&h, b), ["start alice 1 -", "enter alice 1"]);
}

/// One failing check each (vehicles.md VehicleEnter, the list in order).
#[derive(Debug, Clone, Copy)]
enum Break {
    /// The vehicle moved to another virtual world; the streamed set still has it.
    OtherScope,
    Dead,
    Frozen,
    /// 16 m away.
    TooFar,
    /// Seat 4 of a 4-seat model.
    NoSeat,
    /// Bob holds seat 1.
    Taken,
    /// Alice sits in another vehicle.
    SeatedElsewhere,
    Wrecked,
    Locked,
}

#[rstest]
#[case::not_in_the_senders_scope(Break::OtherScope)]
#[case::not_alive(Break::Dead)]
#[case::frozen(Break::Frozen)]
#[case::beyond_15_m(Break::TooFar)]
#[case::no_such_seat(Break::NoSeat)]
#[case::seat_taken(Break::Taken)]
#[case::seated_elsewhere(Break::SeatedElsewhere)]
#[case::wrecked(Break::Wrecked)]
#[case::locked(Break::Locked)]
fn each_enter_check_denies_on_its_own(#[case] broken: Break) {
    let mut h = Harness::new();
    let (a, b, id) = scene(&mut h);
    let ia = h.player_id(a).0;
    let mut seat = 1;
    match broken {
        Break::OtherScope => with_vehicle::<VehicleScope>(&mut h, id, |s| s.0.virtual_world = 1),
        Break::Dead => h.with::<PlayerLife>(a, |l| l.alive = false),
        Break::Frozen => h.freeze(a, true),
        Break::TooFar => walk(&mut h, a, at(21.0)),
        Break::NoSeat => seat = 4,
        Break::Taken => put(&mut h, b, id, 1),
        Break::SeatedElsewhere => {
            let other = vehicle(&mut h, 400, at(-5.0));
            put(&mut h, a, other, 0);
        }
        Break::Wrecked => with_vehicle::<Life>(&mut h, id, |l| l.wrecked = true),
        Break::Locked => with_vehicle::<Params>(&mut h, id, |p| p.bits |= param::LOCKED),
    }
    h.clear(a);
    h.clear(b);
    enter(&mut h, a, id, seat);
    h.step();
    assert_eq!(seats(&h, a), [(id.0, ia, seat, Deny)], "{broken:?}");
    assert!(seats(&h, b).is_empty(), "a deny goes to the requester only");
    assert_ne!(seated(&h, a).map(|s| s.0), Some(id.0));
}

#[test]
fn a_derailed_train_seats_nobody_on_request_but_the_server_may() {
    let mut h = Harness::new();
    let (a, _, _) = scene(&mut h);
    let ia = h.player_id(a).0;
    let train = vehicle(&mut h, 538, at(-5.0));
    with_vehicle::<Train>(&mut h, train, |t| t.derailed = true);
    h.step();
    h.clear(a);
    enter(&mut h, a, train, 1);
    h.step();
    assert_eq!(seats(&h, a), [(train.0, ia, 1, Deny)]);
    put(&mut h, a, train, 1);
    assert_eq!(
        seats(&h, a),
        [(train.0, ia, 1, Deny), (train.0, ia, 1, Warp)]
    );
}

#[rstest]
#[case::locomotive_seat_at_30_m(30.0, 1, Deny)]
#[case::first_carriage_at_30_m(30.0, 6, Enter)]
#[case::first_carriage_at_45_m(45.0, 6, Deny)]
#[case::second_carriage_at_45_m(45.0, 11, Enter)]
#[case::third_carriage_at_90_m(90.0, 20, Enter)]
#[case::no_fourth_carriage(30.0, 21, Deny)]
fn a_carriage_seat_reaches_25_m_further_per_carriage(
    #[case] away: f32,
    #[case] seat: u8,
    #[case] kind: OccupancyKind,
) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let train = vehicle(&mut h, 537, at(0.0));
    stand(&mut h, a, at(away));
    h.step();
    enter(&mut h, a, train, seat);
    h.step();
    assert_eq!(seats(&h, a), [(train.0, h.player_id(a).0, seat, kind)]);
}

#[test]
fn a_start_enter_handler_refusal_is_a_deny() {
    let s = gamemode("seat_refuse");
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    h.chat(a, "/no_start");
    h.step();
    enter(&mut h, a, id, 0);
    h.step();
    assert_eq!(seats(&h, a), [(id.0, h.player_id(a).0, 0, Deny)]);
    assert!(seats(&h, b).is_empty());
    assert_eq!(events(&h, a), ["start alice 0 -"]);
    assert_eq!(seated(&h, a), None);
}

#[test]
fn a_jack_tells_the_driver_then_the_jackers_enter_goes_to_everyone() {
    let s = gamemode("seat_jack");
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let (ia, ib) = (h.player_id(a).0, h.player_id(b).0);
    put(&mut h, b, id, 0);
    h.clear(a);
    h.clear(b);
    enter(&mut h, a, id, 0);
    h.step();
    assert_eq!(seats(&h, b), [(id.0, ib, 0, Jacked), (id.0, ia, 0, Enter)]);
    assert_eq!(seats(&h, a), [(id.0, ia, 0, Enter)]);
    assert_eq!((seated(&h, a), seated(&h, b)), (Some((id.0, 0)), None));
    assert_eq!(
        events(&h, a),
        [
            "enter bob 0",
            "start alice 0 bob",
            "jack alice bob",
            "exit bob 0",
            "enter alice 0"
        ]
    );
}

#[test]
fn a_jack_refused_by_a_handler_or_with_jacking_off_is_a_deny() {
    let s = gamemode("seat_jack_refused");
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let ia = h.player_id(a).0;
    put(&mut h, b, id, 0);
    h.chat(a, "/no_jack");
    h.step();
    h.clear(a);
    h.clear(b);
    enter(&mut h, a, id, 0);
    h.step();
    assert_eq!(seats(&h, a), [(id.0, ia, 0, Deny)]);
    assert!(seats(&h, b).is_empty());
    assert_eq!(events(&h, a), ["start alice 0 bob", "jack alice bob"]);
    h.chat(a, "/jacking off");
    h.steps(2);
    h.clear(a);
    enter(&mut h, a, id, 0);
    h.step();
    assert_eq!(seats(&h, a), [(id.0, ia, 0, Deny)]);
    assert!(
        events(&h, a).is_empty(),
        "jacking off: denied at once, no events"
    );
    assert_eq!(seated(&h, b), Some((id.0, 0)));
}

#[test]
fn an_exit_counts_only_from_the_vehicle_the_sender_sits_in() {
    let s = gamemode("seat_exit");
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let ia = h.player_id(a).0;
    let other = vehicle(&mut h, 400, at(-5.0));
    put(&mut h, a, id, 2);
    h.clear(a);
    h.clear(b);
    exit(&mut h, a, other);
    h.step();
    assert!(seats(&h, b).is_empty(), "another vehicle: a no-op");
    exit(&mut h, a, id);
    h.step();
    assert_eq!(seats(&h, b), [(id.0, ia, 2, Exit)]);
    exit(&mut h, a, id);
    h.step();
    assert_eq!(seats(&h, b), [(id.0, ia, 2, Exit)], "a duplicate: a no-op");
    assert_eq!(events(&h, b), ["enter alice 2", "exit alice 2"]);
}

#[test]
fn a_disconnect_frees_the_seat_without_a_broadcast() {
    let mut h = Harness::new();
    let (a, b, id) = scene(&mut h);
    put(&mut h, a, id, 0);
    h.clear(b);
    h.disconnect(a);
    h.steps(2);
    assert!(seats(&h, b).is_empty());
    let c = h.connect("carol");
    stand(&mut h, c, at(0.0));
    enter(&mut h, c, id, 0);
    h.step();
    assert_eq!(
        seats(&h, b),
        [(id.0, h.player_id(c).0, 0, Enter)],
        "the seat is free"
    );
}

#[test]
fn a_death_frees_the_seat() {
    let mut h = Harness::new();
    let (a, b, id) = scene(&mut h);
    let ia = h.player_id(a).0;
    put(&mut h, a, id, 3);
    h.clear(b);
    h.die(a);
    h.step();
    assert_eq!(seats(&h, b), [(id.0, ia, 3, Exit)]);
    assert_eq!(seated(&h, a), None);
}

#[test]
fn a_teleport_unseats_its_player_first() {
    let mut h = Harness::new();
    let (a, b, id) = scene(&mut h);
    let ia = h.player_id(a).0;
    put(&mut h, a, id, 0);
    h.clear(a);
    h.clear(b);
    let player = h.entity(a);
    h.world_mut()
        .write_message(dlmp::player::teleport::Teleport {
            player,
            pos: at(1000.0),
            heading: None,
            interior: Some(3),
            ground: false,
        });
    h.step();
    let order: Vec<&str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::VehicleOccupancy(_) => Some("exit"),
            ServerPacket::TeleportPlayer(_) => Some("teleport"),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        ["exit", "teleport"],
        "the exit precedes TeleportPlayer"
    );
    assert_eq!(seats(&h, b), [(id.0, ia, 0, Exit)]);
    assert_eq!(seated(&h, a), None);
}

#[test]
fn the_server_seats_with_a_warp_ignoring_the_lock_but_never_in_a_wreck() {
    let s = TempScripts::new("seat_put");
    s.resource(
        "gm",
        r#"
        car = dlmp.create_vehicle(400, 5, 0, 3, 0)
        dlmp.on("player_command", function(p, name)
            if name == "put" then
                local ok, err = pcall(dlmp.put_player_in_vehicle, p, car, 1)
                local v, seat = p:vehicle()
                dlmp.send_chat((ok and "ok" or string.sub(tostring(err), 1, 80)) .. " " .. tostring(seat))
            elseif name == "out" then dlmp.remove_player_from_vehicle(p)
            else return false end
            return true
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, at(0.0));
    h.step();
    let id = VehicleId(1);
    with_vehicle::<Params>(&mut h, id, |p| p.bits |= param::LOCKED);
    h.chat(a, "/put");
    h.steps(2);
    let ia = h.player_id(a).0;
    assert_eq!(seats(&h, a), [(id.0, ia, 1, Warp)]);
    h.chat(a, "/out");
    h.steps(2);
    assert_eq!(seats(&h, a), [(id.0, ia, 1, Warp), (id.0, ia, 1, Exit)]);
    with_vehicle::<Life>(&mut h, id, |l| l.wrecked = true);
    h.step();
    h.chat(a, "/put");
    h.steps(2);
    assert_eq!(seats(&h, a).len(), 2);
    let lines = h.chat_lines(a);
    assert!(lines.iter().any(|l| l == "ok 1"), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("is a wreck")), "{lines:?}");
}

#[test]
fn vehicle_events_past_30_at_once_and_15_a_second_are_dropped() {
    let mut h = Harness::new();
    let (a, _, id) = scene(&mut h);
    h.clear(a);
    let burst = |h: &mut Harness, n: usize| {
        for _ in 0..n {
            let packet = dlmp::protocol::vehicle::seats::VehicleEnter {
                session_token: h.token(a),
                event_id: dlmp::protocol::ids::EventId(0),
                vehicle_id: id,
                seat: 9,
            };
            h.send_event(a, packet);
        }
        h.step();
    };
    burst(&mut h, 31);
    assert_eq!(
        seats(&h, a).len(),
        30,
        "the 31st is acknowledged but dropped"
    );
    h.advance(std::time::Duration::from_secs(1));
    h.clear(a);
    burst(&mut h, 16);
    assert_eq!(seats(&h, a).len(), 15, "15 a second");
}

/// vehicles.md VehicleEnter refuses "another vehicle" only: a free seat of the vehicle the
/// sender sits in is a seat change (the old seat's exit, the new seat's enter, to everyone,
/// with the events); an occupied seat from inside (its own, or the driver's) is a deny.
#[test]
fn a_request_for_another_free_seat_of_the_own_vehicle_is_a_seat_change() {
    let s = gamemode("seat_change");
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let (ia, ib) = (h.player_id(a).0, h.player_id(b).0);
    enter(&mut h, a, id, 1);
    h.step();
    for c in [a, b] {
        h.clear(c);
    }
    enter(&mut h, a, id, 0);
    h.step();
    for c in [a, b] {
        assert_eq!(seats(&h, c), [(id.0, ia, 1, Exit), (id.0, ia, 0, Enter)]);
    }
    assert_eq!(seated(&h, a), Some((id.0, 0)));
    assert_eq!(
        events(&h, b),
        ["start alice 0 -", "exit alice 1", "enter alice 0"]
    );
    // Bob takes seat 2; from inside, Alice may take neither his seat nor her own.
    enter(&mut h, b, id, 2);
    h.step();
    h.clear(a);
    for seat in [2, 0] {
        enter(&mut h, a, id, seat);
        h.step();
    }
    assert_eq!(seats(&h, a), [(id.0, ia, 2, Deny), (id.0, ia, 0, Deny)]);
    // Bob moves to the free seat 1 and back to 3.
    enter(&mut h, b, id, 1);
    h.step();
    assert_eq!(seated(&h, b), Some((id.0, 1)));
    assert_eq!(
        seats(&h, a)[2..],
        [(id.0, ib, 2, Exit), (id.0, ib, 1, Enter)]
    );
}

/// vehicles.md: after the handlers "the server checks everything again and seats the
/// player": a `put_player_in_vehicle` a handler makes in the same tick goes first, and the
/// waiting request for that seat is denied, never the gamemode's call undone.
#[test]
fn the_gamemodes_seat_call_goes_before_a_waiting_request_for_that_seat() {
    let s = TempScripts::new("seat_put_first");
    s.resource(
        "gm",
        r#"
        dlmp.on("vehicle_start_enter", function(v, p, seat)
            for _, other in ipairs(dlmp.players()) do
                if other ~= p then dlmp.put_player_in_vehicle(other, v, seat) end
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let (ia, ib) = (h.player_id(a).0, h.player_id(b).0);
    h.clear(a);
    enter(&mut h, a, id, 1);
    h.step();
    assert_eq!(seated(&h, b), Some((id.0, 1)), "the gamemode's call");
    assert_eq!(seated(&h, a), None);
    assert_eq!(seats(&h, a), [(id.0, ib, 1, Warp), (id.0, ia, 1, Deny)]);
}

/// player.md `player_state_change`: "driver" and "passenger" besides "on_foot", computed
/// from the seat the server holds the player in.
#[test]
fn player_state_change_reports_driver_and_passenger() {
    let s = TempScripts::new("seat_state");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_state_change", function(p, state, previous)
            dlmp.send_chat("state " .. p:name() .. " " .. state .. " " .. previous)
        end)
        "#,
    );
    let mut h = s.harness();
    let (a, b, id) = scene(&mut h);
    let states = |h: &Harness| -> Vec<String> {
        h.chat_lines(b)
            .into_iter()
            .filter(|l| l.starts_with("state alice"))
            .collect()
    };
    let before = states(&h).len();
    enter(&mut h, a, id, 0);
    h.steps(3);
    enter(&mut h, a, id, 2);
    h.steps(3);
    exit(&mut h, a, id);
    h.steps(3);
    assert_eq!(
        states(&h)[before..],
        [
            "state alice driver on_foot",
            "state alice passenger driver",
            "state alice on_foot passenger"
        ]
    );
}

#[test]
fn a_seat_change_never_reaches_a_viewer_before_the_seated_players_join() {
    let mut h = Harness::new();
    let y = h.connect("yara");
    stand(&mut h, y, at(0.0));
    let v = vehicle(&mut h, 400, at(5.0));
    h.steps(3);
    assert!(
        h.packets::<dlmp::protocol::vehicle::sync::VehicleSync>(y)
            .iter()
            .any(|s| s.vehicle_id == v && s.active),
        "Yara sees the car"
    );
    // Yara's lane holds more than the roster window unacknowledged: the next PlayerJoin
    // waits outside the lane.
    h.set_auto_ack(y, false);
    h.fill_lane(y, dlmp::net::lane::Delivery::Critical, 150);
    let x = h.connect("xavi");
    stand(&mut h, x, at(4.0));
    put(&mut h, x, v, 0);
    h.release_lane(y);
    let xid = h.player_id(x);
    let got = h.received(y);
    let join = got
        .iter()
        .position(|p| matches!(p, ServerPacket::PlayerJoin(j) if j.id == xid))
        .expect("Xavi's join");
    let seat = got
        .iter()
        .position(|p| matches!(p, ServerPacket::VehicleOccupancy(o) if o.player_id == xid))
        .expect("Xavi's seat change");
    assert!(join < seat, "join at {join}, seat change at {seat}");
}
