//! world.md's clock, weather and garages through the Lua API and the console: SetTime to
//! one player or all (all freezes the global clock, critical), the running clock (RunClock
//! on connect, on a mode or rate change as critical, a droppable resync every 45 s), real
//! time at a UTC offset from the injected wall clock, ServerHello's time, weather and
//! garage mask, and GarageDoors to everyone on a change.

mod world_support;

use std::time::Duration;

use dlmp::harness::{ClientId, Harness};
use dlmp::lane::Delivery;
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::handshake::ServerHello;
use dlmp::protocol::world::environment::{GarageDoors, RunClock, SetTime, SetWeather};
use dlmp::world::clock::WallClock;
use world_support::{lua, scripts, spawned, told};

/// The ServerHello a new connection named `name` gets.
fn hello_of(h: &mut Harness, name: &str) -> ServerHello {
    let c = h.connect(name);
    h.hello(c).clone()
}

fn set_time(hours: u8, minutes: u8) -> SetTime {
    SetTime {
        event_id: dlmp::protocol::ids::EventId(0),
        hours,
        minutes,
    }
}

/// The environment packets the client applied, event ids zeroed, in order.
fn environment(h: &Harness, c: ClientId) -> Vec<ServerPacket> {
    h.received(c)
        .iter()
        .filter(|p| {
            matches!(
                p,
                ServerPacket::SetTime(_)
                    | ServerPacket::SetWeather(_)
                    | ServerPacket::RunClock(_)
                    | ServerPacket::GarageDoors(_)
            )
        })
        .cloned()
        .map(|mut p| {
            p.set_event_id(dlmp::protocol::ids::EventId(0));
            p
        })
        .collect()
}

fn run(hours: u8, minutes: u8, minute_ms: u32) -> ServerPacket {
    RunClock {
        event_id: dlmp::protocol::ids::EventId(0),
        hours,
        minutes,
        minute_ms,
    }
    .into()
}

/// Alice and Bob, spawned, with nothing received yet.
fn pair(test: &str) -> (world_support::Scripts, Harness, ClientId, ClientId) {
    let s = scripts(test, "");
    let mut h = world_support::harness(&s);
    let a = spawned(&mut h, "alice");
    let b = spawned(&mut h, "bob");
    h.clear(a);
    h.clear(b);
    (s, h, a, b)
}

#[test]
fn the_hello_carries_the_time_weather_and_garage_mask_the_gamemode_set() {
    let s = scripts(
        "clock-hello",
        "dlmp.set_time(7, 45) dlmp.set_weather(9) dlmp.set_garage_open(3, true)",
    );
    let mut h = world_support::harness(&s);
    h.step();
    let a = h.connect("alice");
    let hello = h.hello(a);
    assert_eq!(
        (hello.hours, hello.minutes, hello.weather, hello.garage_open),
        (7, 45, 9, 1 << 3)
    );
    h.step();
    assert_eq!(environment(&h, a), [], "a frozen clock sends no RunClock");
}

#[test]
fn set_time_to_everyone_freezes_the_global_clock_as_critical() {
    let (_s, mut h, a, b) = pair("clock-freeze");
    lua(&mut h, a, "dlmp.run_clock(6, 0)");
    h.clear(a);
    h.clear(b);
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 0);
    lua(
        &mut h,
        a,
        "dlmp.set_time(20, 15) local hh, mm, ms = dlmp.clock() say(hh .. ':' .. mm .. ' ' .. tostring(ms))",
    );
    assert_eq!(
        told(&mut h, a),
        ["20:15 nil"],
        "dlmp.clock() shows the freeze at once"
    );
    h.release_lane(b);
    assert_eq!(
        environment(&h, b),
        [set_time(20, 15).into()],
        "critical: past the droppable limit"
    );
    h.clear(b);
    h.advance(Duration::from_secs(50));
    assert_eq!(environment(&h, b), [], "a frozen clock has no resync");
    let hello = hello_of(&mut h, "carol");
    assert_eq!((hello.hours, hello.minutes), (20, 15));
}

#[test]
fn set_time_to_players_holds_only_theirs_and_leaves_the_global_clock() {
    let (_s, mut h, a, b) = pair("clock-one");
    lua(
        &mut h,
        a,
        "dlmp.set_time(3, 5, { G.bob or dlmp.players()[2] }) local hh, mm = dlmp.clock() say(hh .. ':' .. mm)",
    );
    assert_eq!(told(&mut h, a), ["12:0"]);
    assert_eq!(environment(&h, a), []);
    assert_eq!(environment(&h, b), [set_time(3, 5).into()]);
    let hello = hello_of(&mut h, "carol");
    assert_eq!((hello.hours, hello.minutes), (12, 0));
}

#[test]
fn run_clock_establishes_on_everyone_then_resyncs_every_45_s() {
    let (_s, mut h, a, b) = pair("clock-run");
    lua(
        &mut h,
        a,
        "dlmp.run_clock(6, 0, 1000) local hh, mm, ms = dlmp.clock() say(hh .. ':' .. mm .. ' ' .. ms)",
    );
    assert_eq!(environment(&h, a), [run(6, 0, 1000)]);
    assert_eq!(told(&mut h, a), ["6:0 1000"]);
    assert_eq!(environment(&h, b), [run(6, 0, 1000)]);
    h.clear(a);
    h.clear(b);
    h.advance(Duration::from_secs(44));
    assert_eq!(environment(&h, b), [], "no resync before 45 s");
    h.advance(Duration::from_secs(1));
    assert_eq!(
        environment(&h, b),
        [run(6, 45, 1000)],
        "one game minute a second"
    );
    assert_eq!(environment(&h, a), [run(6, 45, 1000)]);
}

#[test]
fn the_resync_is_droppable_and_the_establish_is_not() {
    let (_s, mut h, a, b) = pair("clock-lanes");
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 0);
    lua(&mut h, a, "dlmp.run_clock(6, 0, 1000)");
    h.release_lane(b);
    assert_eq!(
        environment(&h, b),
        [run(6, 0, 1000)],
        "the establish goes past the droppable limit"
    );
    h.clear(b);
    h.advance(Duration::from_secs(40));
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 0);
    h.advance(Duration::from_secs(5));
    h.release_lane(b);
    assert_eq!(
        environment(&h, b),
        [],
        "the resync past the droppable limit is dropped"
    );
    h.advance(Duration::from_secs(45));
    assert_eq!(environment(&h, b).len(), 1, "the next resync fixes it");
}

#[test]
fn a_new_connection_gets_the_running_clock_after_its_hello() {
    let (_s, mut h, a, _b) = pair("clock-connect");
    lua(&mut h, a, "dlmp.run_clock(6, 0, 500)");
    h.advance(Duration::from_secs(10));
    let now = h.now();
    let c = h.connect("carol");
    h.step();
    let hello = h.hello(c).clone();
    let elapsed_minutes = u8::try_from((h.now() - now).as_millis() / 500).unwrap_or(0);
    assert!(hello.hours == 6 && hello.minutes >= 20 && hello.minutes <= 20 + elapsed_minutes + 1);
    let first = environment(&h, c);
    assert_eq!(first.len(), 1, "{first:?}");
    let ServerPacket::RunClock(r) = &first[0] else {
        panic!("{first:?}")
    };
    assert_eq!(
        (r.hours, r.minutes, r.minute_ms),
        (hello.hours, hello.minutes, 500)
    );
}

#[test]
fn a_rate_change_is_a_critical_establish_to_everyone() {
    let (_s, mut h, a, b) = pair("clock-rate");
    lua(&mut h, a, "dlmp.run_clock(6, 0, 1000)");
    h.clear(b);
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 0);
    lua(&mut h, a, "dlmp.run_clock(9, 30, 2000)");
    h.release_lane(b);
    assert_eq!(environment(&h, b)[0], run(9, 30, 2000));
}

#[test]
fn real_time_is_run_clock_at_60000_from_the_wall_clock_at_the_offset() {
    let s = scripts("clock-real", "");
    // 1970-01-01 22:50:30 UTC.
    let wall = WallClock::manual(Duration::from_secs(22 * 3600 + 50 * 60 + 30));
    let shared = wall.clone();
    let config = dlmp::config::Config {
        session_timeout_ms: 3_600_000,
        ..s.config()
    };
    let mut h = Harness::with_app(config, move |app| {
        app.insert_resource(shared);
    });
    let a = spawned(&mut h, "alice");
    lua(
        &mut h,
        a,
        "dlmp.set_real_time(90) local hh, mm, ms = dlmp.clock() say(hh .. ':' .. mm .. ' ' .. ms)",
    );
    assert_eq!(environment(&h, a), [run(0, 20, 60_000)]);
    assert_eq!(told(&mut h, a), ["0:20 60000"], "22:50 UTC at +01:30");
    h.clear(a);
    wall.set(Duration::from_secs(22 * 3600 + 53 * 60));
    h.advance(Duration::from_secs(45));
    assert_eq!(
        environment(&h, a),
        [run(0, 23, 60_000)],
        "every resync carries the exact real time"
    );
    let hello = hello_of(&mut h, "bob");
    assert_eq!((hello.hours, hello.minutes), (0, 23));
}

#[test]
fn set_weather_to_everyone_is_the_servers_weather_and_to_players_only_theirs() {
    let (_s, mut h, a, b) = pair("clock-weather");
    lua(&mut h, a, "dlmp.set_weather(4, { p })");
    let weather = |w| -> ServerPacket {
        SetWeather {
            event_id: dlmp::protocol::ids::EventId(0),
            weather: w,
        }
        .into()
    };
    assert_eq!(environment(&h, a), [weather(4)]);
    assert_eq!(environment(&h, b), []);
    assert_eq!(hello_of(&mut h, "carol").weather, 0);
    lua(&mut h, a, "dlmp.set_weather(17)");
    assert_eq!(environment(&h, b), [weather(17)]);
    assert_eq!(hello_of(&mut h, "dave").weather, 17);
}

#[test]
fn garage_doors_go_to_everyone_as_critical_and_only_on_a_change() {
    let (_s, mut h, a, b) = pair("clock-garages");
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Droppable, 0);
    lua(
        &mut h,
        a,
        "dlmp.set_garage_open(3, true) dlmp.set_garage_open(3, true) dlmp.set_garage_open(49, true)",
    );
    lua(
        &mut h,
        a,
        "dlmp.set_garage_open(3, false) dlmp.set_garage_open(7, false)",
    );
    h.release_lane(b);
    let doors = |open| -> ServerPacket {
        GarageDoors {
            event_id: dlmp::protocol::ids::EventId(0),
            open,
        }
        .into()
    };
    let expected = [doors(1 << 3), doors(1 << 3 | 1 << 49), doors(1 << 49)];
    assert_eq!(environment(&h, b), expected);
    assert_eq!(environment(&h, a), expected);
    assert_eq!(hello_of(&mut h, "carol").garage_open, 1 << 49);
}

#[test]
fn bad_arguments_name_the_argument_and_the_range() {
    let (_s, mut h, a, _b) = pair("clock-args");
    for (code, error) in [
        (
            "dlmp.set_time(24, 0)",
            "set_time: hours 24 is outside 0..=23",
        ),
        (
            "dlmp.set_time(1, 60)",
            "set_time: minutes 60 is outside 0..=59",
        ),
        (
            "dlmp.run_clock(1, 0, 9)",
            "run_clock: minute_ms 9 is outside 10..=3600000",
        ),
        (
            "dlmp.set_real_time(841)",
            "set_real_time: utc_offset_minutes 841 is outside -720..=840",
        ),
        (
            "dlmp.set_weather(23)",
            "set_weather: id 23 is outside 0..=22",
        ),
        (
            "dlmp.set_garage_open(50, true)",
            "set_garage_open: garage_id 50 is outside 0..=49",
        ),
        (
            "dlmp.set_garage_open(1, 1)",
            "set_garage_open: open must be a boolean, got 1",
        ),
        (
            "dlmp.set_time(1, 0, 5)",
            "set_time: players must be a list of Player, got 5",
        ),
    ] {
        lua(&mut h, a, code);
        let lines = told(&mut h, a);
        assert_eq!(lines.len(), 1, "{code}: {lines:?}");
        assert!(lines[0].contains(error), "{code}: {lines:?}");
    }
    assert_eq!(environment(&h, a), [], "a refused call sends nothing");
}

#[test]
fn the_console_sets_the_time_and_the_weather_for_everyone() {
    let (_s, mut h, a, b) = pair("clock-console");
    assert_eq!(
        dlmp::console::execute(h.world_mut(), "time 08:30"),
        ["time set to 08:30 (clock frozen)"]
    );
    assert_eq!(
        dlmp::console::execute(h.world_mut(), "weather 5"),
        ["weather set to 5"]
    );
    for bad in [
        "time 24:00",
        "time 8:3",
        "time noon",
        "weather 23",
        "weather",
    ] {
        assert!(
            dlmp::console::execute(h.world_mut(), bad)[0].starts_with("usage:"),
            "{bad}"
        );
    }
    h.step();
    let weather = SetWeather {
        event_id: dlmp::protocol::ids::EventId(0),
        weather: 5,
    };
    for c in [a, b] {
        assert_eq!(
            environment(&h, c),
            [set_time(8, 30).into(), weather.clone().into()]
        );
    }
    let hello = hello_of(&mut h, "carol");
    assert_eq!((hello.hours, hello.minutes, hello.weather), (8, 30, 5));
}

#[test]
fn set_time_and_set_weather_to_players_are_all_or_none_on_a_full_lane() {
    let (_s, mut h, a, b) = pair("clock-full");
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Normal, 0);
    lua(&mut h, a, "dlmp.set_time(3, 5, dlmp.players())");
    assert_eq!(environment(&h, a), [], "nothing to alice either");
    let lines = told(&mut h, a);
    assert!(
        lines.len() == 1
            && lines[0].contains(
                "set_time: queue full (the reliable lane of bob (id 1) is full); nothing was sent"
            ),
        "{lines:?}"
    );
    lua(&mut h, a, "dlmp.set_weather(3, dlmp.players())");
    assert_eq!(environment(&h, a), []);
    assert!(told(&mut h, a)[0].contains("set_weather: queue full"));
    h.release_lane(b);
    assert_eq!(environment(&h, b), []);
}
