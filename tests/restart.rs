//! Scheduled restarts (ADR 0103) in the harness: the players are warned in chat 15, 5 and 1
//! minutes before the daily time, then told why and disconnected, and the server stops
//! with the schedule marked, which `Server::run` turns into exit code 75. The wall clock
//! is the bans' clock, moved as a day passes.

use std::time::Duration;

use dlmp::bans::BanClock;
use dlmp::config::Config;
use dlmp::harness::{ClientId, HARNESS_EPOCH, Harness};
use dlmp::protocol::connection::handshake::{LeaveReason, ServerDisconnect};
use dlmp_ops::restart::{RESTART_NOTICE, RestartSchedule};

/// Sets the wall clock to `unix` seconds.
fn set_wall_clock(h: &mut Harness, unix: i64) {
    let elapsed = i64::try_from(h.now().as_secs()).expect("a short test");
    h.world_mut().insert_resource(BanClock::Virtual {
        start: unix - elapsed,
    });
}

/// The chat lines `c` got since the last look.
fn new_lines(h: &mut Harness, c: ClientId, seen: &mut usize) -> Vec<String> {
    let lines = h.chat_lines(c);
    let new = lines[*seen..].to_vec();
    *seen = lines.len();
    new
}

#[test]
fn players_are_warned_15_5_and_1_minutes_before_then_the_server_stops() {
    // The harness's day starts at 00:00 UTC; the restart is at 00:20.
    let restart = HARNESS_EPOCH + 20 * 60;
    let mut h = Harness::with_config(Config {
        restart_at: Some("00:20".to_owned()),
        ..Harness::config()
    });
    let carl = h.connect("Carl_Johnson");
    h.step();
    let mut seen = h.chat_lines(carl).len();
    assert_eq!(
        h.world().resource::<RestartSchedule>().next(),
        Some(restart)
    );

    let mut at = |h: &mut Harness, before: i64| {
        set_wall_clock(h, restart - before);
        h.step();
        new_lines(h, carl, &mut seen)
    };
    assert!(at(&mut h, 15 * 60 + 5).is_empty(), "too early");
    assert_eq!(
        at(&mut h, 15 * 60),
        ["* Server: The server restarts in 15 minutes."]
    );
    assert!(at(&mut h, 14 * 60).is_empty(), "once each");
    assert_eq!(
        at(&mut h, 5 * 60),
        ["* Server: The server restarts in 5 minutes."]
    );
    assert_eq!(
        at(&mut h, 60),
        ["* Server: The server restarts in 1 minute."]
    );
    assert!(at(&mut h, 30).is_empty());
    assert!(!h.world().resource::<RestartSchedule>().restarting());

    assert_eq!(at(&mut h, 0), [RESTART_NOTICE]);
    assert!(h.world().resource::<RestartSchedule>().restarting());
    for _ in 0..20 {
        if h.exited() {
            break;
        }
        h.step();
    }
    assert!(h.exited(), "the server stops");
    let bye = h.packets::<ServerDisconnect>(carl);
    assert!(!bye.is_empty() && bye.iter().all(|d| d.reason == LeaveReason::Quit));
}

#[test]
fn a_schedule_set_late_warns_at_once_and_none_is_the_default() {
    let mut h = Harness::new();
    assert_eq!(h.world().resource::<RestartSchedule>().daily(), None);
    let carl = h.connect("Carl_Johnson");
    h.step();
    let mut seen = h.chat_lines(carl).len();
    h.advance(Duration::from_secs(2));
    assert!(new_lines(&mut h, carl, &mut seen).is_empty());

    // Set at 00:00 for 00:08: eight minutes are left, below the first warning.
    let daily = dlmp_ops::restart::DailyTime::parse("00:08").expect("valid");
    set_wall_clock(&mut h, HARNESS_EPOCH);
    dlmp_ops::restart::set_daily(h.world_mut(), Some(daily), "ann");
    h.step();
    assert_eq!(
        new_lines(&mut h, carl, &mut seen),
        ["* Server: The server restarts in 8 minutes."]
    );
    set_wall_clock(&mut h, HARNESS_EPOCH + 3 * 60);
    h.step();
    assert_eq!(
        new_lines(&mut h, carl, &mut seen),
        ["* Server: The server restarts in 5 minutes."]
    );
}
