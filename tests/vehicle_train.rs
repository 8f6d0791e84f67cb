//! vehicles.md, trains in the harness: the seat table of 537 / 538 / 449 with the carriage
//! distances at their edges, derailment at the speed edge from the driver only (VehicleFrame),
//! TrainState to everyone the train is streamed to for the driver's derailment and each
//! gamemode command (lua-api.md `set_train_direction`, `set_train_derailed`,
//! `set_train_speed`), the Lua errors, no entry into a derailed train but
//! `put_player_in_vehicle`, and the show's train flags and speed.

mod vehicle_support;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ids::{Seq, VehicleId};
use dlmp::protocol::vehicle::frame::{RemoteVehicleFrame, VehicleFrame};
use dlmp::protocol::vehicle::seats::OccupancyKind::{self, Deny, Enter, Warp};
use dlmp::protocol::vehicle::state::{VehicleState, flag};
use dlmp::protocol::vehicle::sync::{VehicleSync, flag as show_flag};
use dlmp::protocol::vehicle::train::{TrainState, train_flag};
use dlmp::vehicle::{Syncer, Train};
use rstest::rstest;
use vehicle_support::{at, enter, entity, put, seats, stand, vehicle, walk};

/// (flags, speed) of every TrainState `c` got for `train`.
fn told(h: &Harness, c: ClientId, train: VehicleId) -> Vec<(u8, f32)> {
    h.packets::<TrainState>(c)
        .iter()
        .filter(|t| t.vehicle_id == train)
        .map(|t| (t.flags, t.speed))
        .collect()
}

fn train_of(h: &Harness, id: VehicleId) -> Train {
    *h.world().get::<Train>(entity(h, id)).expect("a train")
}

// --- Seats ---

#[rstest]
#[case::freight_driver(537, 0, 15.0, Enter)]
#[case::freight_locomotive_edge(537, 5, 15.0, Enter)]
#[case::freight_locomotive_past_the_edge(537, 5, 15.1, Deny)]
#[case::freight_first_carriage_edge(537, 6, 40.0, Enter)]
#[case::freight_first_carriage_past(537, 10, 40.1, Deny)]
#[case::freight_second_carriage_edge(537, 11, 65.0, Enter)]
#[case::freight_second_carriage_past(537, 15, 65.1, Deny)]
#[case::freight_last_seat_edge(537, 20, 90.0, Enter)]
#[case::freight_last_seat_past(537, 20, 90.1, Deny)]
#[case::freight_no_seat_21(537, 21, 1.0, Deny)]
#[case::passenger_first_carriage_edge(538, 6, 40.0, Enter)]
#[case::passenger_last_seat_edge(538, 20, 90.0, Enter)]
#[case::passenger_no_seat_21(538, 21, 1.0, Deny)]
#[case::tram_last_seat(449, 5, 15.0, Enter)]
#[case::tram_has_no_carriage(449, 5, 15.1, Deny)]
#[case::tram_no_seat_6(449, 6, 1.0, Deny)]
fn a_trains_seats_and_their_reach(
    #[case] model: u16,
    #[case] seat: u8,
    #[case] away: f32,
    #[case] kind: OccupancyKind,
) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let train = vehicle(&mut h, model, at(0.0));
    stand(&mut h, a, at(away));
    h.step();
    enter(&mut h, a, train, seat);
    h.step();
    assert_eq!(seats(&h, a), [(train.0, h.player_id(a).0, seat, kind)]);
}

// --- Derailment from frames ---

/// Alice drives a freight train at the origin, Bob stands beside it.
fn driven() -> (Harness, ClientId, ClientId, VehicleId) {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let train = vehicle(&mut h, 537, at(0.0));
    stand(&mut h, a, at(2.0));
    stand(&mut h, b, at(4.0));
    h.step();
    put(&mut h, a, train, 0);
    h.step();
    (h, a, b, train)
}

fn rail_frame(rail_speed: f32, derailed: bool) -> VehicleState {
    VehicleState {
        rail: 120.0,
        rail_speed,
        track: 1,
        flags: if derailed { flag::TRAIN_DERAILED } else { 0 },
        ..VehicleState::at_rest(at(0.0))
    }
}

fn send_frame(h: &mut Harness, c: ClientId, seq: u32, train: VehicleId, state: VehicleState) {
    let packet = VehicleFrame {
        session_token: h.token(c),
        seq: Seq(seq),
        vehicle_id: train,
        state,
    };
    h.send(c, packet);
    h.step();
}

/// (derailed bit, rail speed) of every RemoteVehicleFrame `c` got.
fn relayed(h: &Harness, c: ClientId) -> Vec<(bool, f32)> {
    h.packets::<RemoteVehicleFrame>(c)
        .iter()
        .map(|f| {
            (
                f.state.flags & flag::TRAIN_DERAILED != 0,
                f.state.rail_speed,
            )
        })
        .collect()
}

#[rstest]
#[case::at_the_threshold(0.9, true)]
#[case::backwards_at_the_threshold(-0.9, true)]
#[case::just_below(0.89, false)]
fn the_driver_derails_the_train_at_speed_and_everyone_streamed_is_told(
    #[case] speed: f32,
    #[case] derails: bool,
) {
    let (mut h, a, b, train) = driven();
    h.clear(a);
    h.clear(b);
    send_frame(&mut h, a, 1, train, rail_frame(speed, true));
    assert_eq!(train_of(&h, train).derailed, derails);
    let expected: Vec<(u8, f32)> = if derails {
        vec![(train_flag::DERAILED, 0.0)]
    } else {
        vec![]
    };
    assert_eq!(
        told(&h, a, train),
        expected,
        "the driver's copy is confirmed"
    );
    assert_eq!(told(&h, b, train), expected);
    assert_eq!(
        relayed(&h, b),
        [(derails, speed)],
        "the relay has the server's bit"
    );
}

#[test]
fn a_fast_frame_before_lets_a_slow_one_derail_and_a_repeat_tells_nothing() {
    let (mut h, a, b, train) = driven();
    send_frame(&mut h, a, 1, train, rail_frame(0.95, false));
    send_frame(&mut h, a, 2, train, rail_frame(0.1, true));
    assert!(
        train_of(&h, train).derailed,
        "the previous frame was at speed"
    );
    send_frame(&mut h, a, 3, train, rail_frame(2.0, true));
    send_frame(&mut h, a, 4, train, rail_frame(0.0, false));
    assert!(train_of(&h, train).derailed, "a frame cannot put it back");
    assert_eq!(told(&h, b, train), [(train_flag::DERAILED, 0.0)], "once");
}

#[test]
fn a_passengers_frame_is_dropped_and_the_syncer_of_an_empty_train_cannot_derail_it() {
    let (mut h, a, b, train) = driven();
    put(&mut h, b, train, 7);
    send_frame(&mut h, b, 1, train, rail_frame(2.0, true));
    assert!(
        !train_of(&h, train).derailed,
        "a passenger does not control it"
    );
    // Alice leaves: Bob, the first passenger, syncs the empty train.
    vehicle_support::exit(&mut h, a, train);
    h.step();
    let syncer = h
        .world()
        .get::<Syncer>(entity(&h, train))
        .and_then(|s| s.0)
        .map(|o| o.entity);
    assert_eq!(syncer, Some(h.entity(b)));
    h.clear(a);
    send_frame(&mut h, b, 2, train, rail_frame(2.0, true));
    assert!(!train_of(&h, train).derailed);
    assert!(told(&h, a, train).is_empty() && told(&h, b, train).is_empty());
    assert_eq!(
        relayed(&h, a),
        [(false, 2.0)],
        "accepted, on its rails, the speed taken"
    );
}

// --- The gamemode commands ---

const GAMEMODE: &str = r#"
train = dlmp.create_vehicle(537, 0, 0, 3, 0)
car = dlmp.create_vehicle(411, 10, 0, 3, 0)
local function say(p, s) dlmp.send_chat(s, nil, {p}) end
dlmp.on("player_command", function(p, name, args)
    if name == "dir" then dlmp.set_train_direction(train, args[1] == "1") return true end
    if name == "derail" then dlmp.set_train_derailed(train, args[1] == "1") return true end
    if name == "respawn" then dlmp.respawn_vehicle(train) return true end
    if name == "speed" then dlmp.set_train_speed(train, tonumber(args[1])) return true end
    if name == "sit" then dlmp.put_player_in_vehicle(p, train, tonumber(args[1])) return true end
    if name == "bad" then
        local gone = dlmp.create_vehicle(449, 0, 0, 3, 0)
        dlmp.destroy_vehicle(gone)
        local calls = {
            function() dlmp.set_train_speed(car, 1) end,
            function() dlmp.set_train_direction(car, true) end,
            function() dlmp.set_train_speed(train, 4.5) end,
            function() dlmp.set_train_speed(train, -4.01) end,
            function() dlmp.set_train_speed(train, 0/0) end,
            function() dlmp.set_train_speed(train, math.huge) end,
            function() dlmp.set_train_speed(train) end,
            function() dlmp.set_train_direction(train, "yes") end,
            function() dlmp.set_train_derailed(train, nil) end,
            function() dlmp.set_train_derailed(42, true) end,
            function() dlmp.set_train_derailed(gone, true) end,
        }
        for _, call in ipairs(calls) do
            local ok, err = pcall(call)
            say(p, tostring(ok) .. " " .. tostring(err))
        end
        return true
    end
end)
"#;

/// The gamemode's train (id 1) at the origin; Alice and Bob beside it.
fn scripted(test: &str) -> (TempScripts, Harness, ClientId, ClientId, VehicleId) {
    let s = TempScripts::new(test);
    s.resource("gm", GAMEMODE);
    let mut h = s.harness();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    stand(&mut h, a, at(5.0));
    stand(&mut h, b, at(8.0));
    h.step();
    let train = VehicleId(1);
    assert_eq!(
        h.world()
            .get::<dlmp::vehicle::Vehicle>(entity(&h, train))
            .map(|v| v.model),
        Some(537)
    );
    (s, h, a, b, train)
}

/// A chat command one second after the last (the chat rate limit), and two ticks.
fn say(h: &mut Harness, c: ClientId, line: &str) {
    h.advance(std::time::Duration::from_secs(1));
    h.chat(c, line);
    h.steps(2);
}

#[test]
fn each_gamemode_command_sends_train_state_to_everyone_streamed() {
    let (_s, mut h, a, b, train) = scripted("train_cmds");
    let far = h.connect("carol");
    stand(&mut h, far, at(500.0));
    h.step();
    say(&mut h, a, "/dir 1");
    say(&mut h, a, "/dir 1");
    say(&mut h, a, "/speed -2.5");
    say(&mut h, a, "/speed 4");
    say(&mut h, a, "/derail 1");
    say(&mut h, a, "/derail 1");
    say(&mut h, a, "/dir 0");
    say(&mut h, a, "/derail 0");
    say(&mut h, a, "/derail 0");
    use train_flag::{ALONG, DERAILED, SETS_SPEED};
    let expected = [
        (ALONG, 0.0),
        (ALONG | SETS_SPEED, -2.5),
        (ALONG | SETS_SPEED, 4.0),
        (ALONG | DERAILED, 0.0),
        (DERAILED, 0.0),
        (0, 0.0),
        (0, 0.0),
    ];
    assert_eq!(
        told(&h, a, train),
        expected,
        "a repeat of the same state tells nothing; a return always"
    );
    assert_eq!(told(&h, b, train), expected);
    assert!(
        told(&h, far, train).is_empty(),
        "only where the train is streamed"
    );
    assert_eq!(
        train_of(&h, train),
        Train {
            along: false,
            derailed: false
        }
    );
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn bad_values_and_non_trains_are_lua_errors_naming_them() {
    let (_s, mut h, a, _, train) = scripted("train_bad");
    h.clear(a);
    say(&mut h, a, "/bad");
    let lines = h.chat_lines(a);
    let expected = [
        "set_train_speed: vehicle 2 (model 411) is not a train",
        "set_train_direction: vehicle 2 (model 411) is not a train",
        "set_train_speed: speed 4.5 is outside -4..=4",
        "set_train_speed: speed -4.01 is outside -4..=4",
        "set_train_speed: speed",
        "set_train_speed: speed",
        "set_train_speed: speed",
        "set_train_direction: along",
        "set_train_derailed: on",
        "set_train_derailed: train must be a Vehicle, got integer",
        "set_train_derailed: vehicle 3 no longer exists",
    ];
    assert_eq!(lines.len(), expected.len(), "{lines:?}");
    for (line, want) in lines.iter().zip(expected) {
        assert!(line.starts_with("false "), "{line}");
        assert!(line.contains(want), "{line:?} should say {want:?}");
    }
    assert!(told(&h, a, train).is_empty(), "nothing was sent");
    assert_eq!(train_of(&h, train), Train::default());
}

#[test]
fn a_derailed_train_denies_entry_but_the_gamemode_may_seat_a_player() {
    let (_s, mut h, a, b, train) = scripted("train_entry");
    say(&mut h, a, "/derail 1");
    h.clear(a);
    h.clear(b);
    enter(&mut h, b, train, 1);
    h.step();
    let ib = h.player_id(b).0;
    assert_eq!(seats(&h, b), [(train.0, ib, 1, Deny)]);
    say(&mut h, b, "/sit 1");
    assert_eq!(
        seats(&h, b),
        [(train.0, ib, 1, Deny), (train.0, ib, 1, Warp)]
    );
    assert_eq!(seats(&h, a), [(train.0, ib, 1, Warp)]);
    assert_eq!(h.script_host().errors(), 0);
    // Back on its rails, a request is taken again.
    say(&mut h, a, "/derail 0");
    enter(&mut h, a, train, 2);
    h.step();
    assert_eq!(seats(&h, a).last().map(|s| s.3), Some(Enter));
}

#[test]
fn a_rerail_ignores_the_derailed_bit_until_a_frame_without_it() {
    let (_s, mut h, a, b, train) = scripted("train_rerail");
    say(&mut h, a, "/sit 0");
    send_frame(&mut h, a, 1, train, rail_frame(1.0, true));
    assert!(train_of(&h, train).derailed);
    say(&mut h, b, "/derail 0");
    assert!(!train_of(&h, train).derailed);
    send_frame(&mut h, a, 2, train, rail_frame(1.0, true));
    assert!(
        !train_of(&h, train).derailed,
        "a frame sent before the return"
    );
    send_frame(&mut h, a, 3, train, rail_frame(1.0, false));
    send_frame(&mut h, a, 4, train, rail_frame(1.0, true));
    assert!(train_of(&h, train).derailed, "a new derailment");
    assert_eq!(
        told(&h, b, train),
        [
            (train_flag::DERAILED, 0.0),
            (0, 0.0),
            (train_flag::DERAILED, 0.0)
        ]
    );
}

// --- The show ---

#[test]
fn a_show_carries_the_direction_and_derailment_flags() {
    let (_s, mut h, a, _, train) = scripted("train_show");
    let late = h.connect("carol");
    stand(&mut h, late, at(500.0));
    h.step();
    say(&mut h, a, "/dir 1");
    say(&mut h, a, "/derail 1");
    walk(&mut h, late, at(20.0));
    h.step();
    let shows: Vec<VehicleSync> = h
        .packets::<VehicleSync>(late)
        .into_iter()
        .filter(|s| s.vehicle_id == train)
        .collect();
    assert_eq!(shows.len(), 1);
    assert_eq!(shows[0].flags, show_flag::ALONG_TRACK | show_flag::DERAILED);
    assert!(
        told(&h, late, train).is_empty(),
        "a show has no speed to follow it"
    );
    let first = h.packets::<VehicleSync>(a);
    assert_eq!(
        first[0].flags, 0,
        "the first show: against the track, on its rails"
    );
}

#[test]
fn a_respawn_puts_a_derailed_train_back_on_its_rails_facing_the_same_way() {
    let (_s, mut h, a, _, train) = scripted("train_respawn");
    say(&mut h, a, "/dir 1");
    say(&mut h, a, "/derail 1");
    h.clear(a);
    say(&mut h, a, "/respawn");
    let shows: Vec<VehicleSync> = h
        .packets::<VehicleSync>(a)
        .into_iter()
        .filter(|s| s.vehicle_id == train)
        .collect();
    assert_eq!(
        shows
            .iter()
            .map(|s| (s.epoch.0, s.flags))
            .collect::<Vec<_>>(),
        [(1, show_flag::ALONG_TRACK)]
    );
    assert!(!train_of(&h, train).derailed);
}

#[test]
fn a_gamemode_speed_follows_a_later_show_until_the_next_frame() {
    let (_s, mut h, a, b, train) = scripted("train_speed_show");
    let (late, later) = (h.connect("carol"), h.connect("dave"));
    stand(&mut h, late, at(500.0));
    stand(&mut h, later, at(-500.0));
    h.step();
    say(&mut h, a, "/dir 1");
    say(&mut h, a, "/speed 1.5");
    walk(&mut h, late, at(20.0));
    h.step();
    let got: Vec<String> = h
        .received(late)
        .iter()
        .filter_map(|p| match p {
            dlmp::protocol::ServerPacket::VehicleSync(s) if s.vehicle_id == train => {
                Some("show".to_owned())
            }
            dlmp::protocol::ServerPacket::TrainState(t) if t.vehicle_id == train => {
                Some(format!("train {} {}", t.flags, t.speed))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        got,
        [
            "show".to_owned(),
            format!("train {} 1.5", train_flag::ALONG | train_flag::SETS_SPEED)
        ]
    );
    // A frame of the train: its speed rides the relay from now on.
    say(&mut h, b, "/sit 0");
    send_frame(&mut h, b, 1, train, rail_frame(1.4, false));
    walk(&mut h, later, at(-20.0));
    h.step();
    let shows = h.packets::<VehicleSync>(later);
    assert_eq!(shows.iter().filter(|s| s.vehicle_id == train).count(), 1);
    assert!(told(&h, later, train).is_empty());
}

#[test]
fn a_train_spawned_with_a_speed_in_the_same_tick_takes_it_with_its_show() {
    let s = TempScripts::new("train_same_tick");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_command", function(p, name)
            if name == "go" then
                local t = dlmp.create_vehicle(449, 0, 0, 3, 0)
                dlmp.set_train_speed(t, 0.5)
                return true
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, at(5.0));
    h.step();
    say(&mut h, a, "/go");
    h.step();
    assert_eq!(h.packets::<VehicleSync>(a).len(), 1);
    assert_eq!(told(&h, a, VehicleId(1)), [(train_flag::SETS_SPEED, 0.5)]);
}
