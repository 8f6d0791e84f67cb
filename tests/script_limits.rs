//! lua-api.md, "Resources" (a runaway script never stops the server) and ADR 0021: the
//! memory limit of the Lua VM, the wall-time budget of a tick's scripts, and the back-off
//! of handlers and timers that keep failing.
//!
//! The time budget is tested with an injected clock that advances 1 ms on every reading:
//! the instruction hook reads it once every 1000 instructions, so a call is cut off after
//! a fixed number of instructions whatever the machine's speed. Nothing here can flake.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::{Harness, TempScripts};
use dlmp::script::ScriptHost;

/// A clock that advances `step` on every reading.
fn ticking_clock(h: &mut Harness, step: Duration) {
    let t = Rc::new(Cell::new(Duration::ZERO));
    h.world_mut()
        .get_non_send_mut::<ScriptHost>()
        .expect("the VM")
        .set_clock(move || {
            t.set(t.get() + step);
            t.get()
        });
}

#[test]
fn a_handler_past_the_tick_time_budget_is_cut_off_and_the_tick_goes_on() {
    let s = TempScripts::new("tick-time");
    // 2 million loop turns: far below the instruction budget set here, far above the
    // 20 checks the 20 ms budget allows at 1 ms a check.
    s.resource(
        "slow",
        r#"dlmp.on("player_chat", function() for i = 1, 2000000 do end end)"#,
    );
    s.resource(
        "quick",
        r#"dlmp.on("player_chat", function(p) dlmp.send_chat("quick heard it", nil, { p }) end)"#,
    );
    let mut h = s.harness_with(|c| Config {
        script_instruction_budget: 1_000_000_000,
        script_tick_budget_ms: 20,
        ..c
    });
    ticking_clock(&mut h, Duration::from_millis(1));
    let a = h.connect("alice");
    h.chat(a, "hello");
    h.steps(2);
    let stats = h.script_host().stats();
    assert_eq!(stats.time_cutoffs, 1, "{stats:?}");
    assert_eq!(h.script_host().errors(), 1);
    let lines = h.take_chat_lines(a);
    assert!(lines.contains(&"alice: hello".to_owned()), "{lines:?}");
    assert!(
        lines.contains(&"quick heard it".to_owned()),
        "a short call after the cut-off still runs: {lines:?}"
    );
    // The next tick has a budget of its own.
    h.advance(Duration::from_secs(1));
    h.chat(a, "again");
    h.steps(2);
    assert_eq!(h.script_host().stats().time_cutoffs, 2);
    assert!(h.take_chat_lines(a).contains(&"alice: again".to_owned()));
}

#[test]
fn the_standing_harness_clock_never_cuts_a_call_off() {
    let s = TempScripts::new("tick-time-still");
    s.resource(
        "slow",
        r#"dlmp.on("player_chat", function() for i = 1, 200000 do end end)"#,
    );
    let mut h = s.harness_with(|c| Config {
        script_tick_budget_ms: 0,
        ..c
    });
    let a = h.connect("alice");
    h.chat(a, "hello");
    h.steps(2);
    assert_eq!(h.script_host().stats().time_cutoffs, 0);
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn the_memory_limit_fails_the_call_that_passes_it_and_the_server_goes_on() {
    let s = TempScripts::new("memory");
    s.resource(
        "hog",
        r#"dlmp.on("player_chat", function()
            local t = {}
            for i = 1, 64 do t[i] = string.rep("x", 1 << 20) .. i end
        end)"#,
    );
    let mut h = s.harness_with(|c| Config {
        script_memory_mb: 16,
        ..c
    });
    let a = h.connect("alice");
    h.chat(a, "hello");
    h.steps(2);
    assert_eq!(h.script_host().stats().memory_errors, 1);
    assert_eq!(h.script_host().errors(), 1);
    assert!(h.script_host().used_memory() < 16 << 20);
    assert_eq!(h.take_chat_lines(a), ["alice: hello"]);
}

#[test]
fn a_timer_that_keeps_failing_is_suspended_with_a_doubling_back_off() {
    let s = TempScripts::new("backoff-timer");
    s.resource(
        "broken",
        r#"dlmp.set_timer(20, function() error("boom") end, true)"#,
    );
    let mut h = s.harness();
    // 50 ticks a second: the timer is due every tick.
    h.steps(10);
    let host = h.script_host();
    assert_eq!(host.errors(), 5, "five failures, then the suspension");
    assert_eq!(host.stats().suspensions, 1);
    assert!(host.stats().skipped > 0);
    h.advance(Duration::from_millis(850));
    assert_eq!(h.script_host().errors(), 5, "suspended for 1 s");
    h.advance(Duration::from_millis(200));
    assert_eq!(
        h.script_host().errors(),
        6,
        "one try, failed: suspended again"
    );
    assert_eq!(h.script_host().stats().suspensions, 2);
    h.advance(Duration::from_millis(1800));
    assert_eq!(h.script_host().errors(), 6, "now for 2 s");
    h.advance(Duration::from_millis(400));
    assert_eq!(h.script_host().errors(), 7);
    assert_eq!(h.script_host().stats().suspensions, 3);
}

#[test]
fn a_handler_that_keeps_failing_is_suspended_and_a_success_resets_it() {
    let s = TempScripts::new("backoff-handler");
    s.resource(
        "picky",
        r#"dlmp.on("player_chat", function(p, text)
            if text ~= "ok" then error("not ok") end
            dlmp.send_chat("fine", nil, { p })
        end)"#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    for _ in 0..5 {
        h.chat(a, "bad");
    }
    h.steps(2);
    assert_eq!(h.script_host().stats().suspensions, 1);
    h.advance(Duration::from_millis(500));
    h.take_chat_lines(b);
    h.chat(b, "ok");
    h.steps(2);
    assert_eq!(h.script_host().stats().skipped, 1, "suspended: not called");
    assert_eq!(h.take_chat_lines(b), ["bob: ok"]);
    h.advance(Duration::from_secs(1));
    h.chat(b, "ok");
    h.steps(2);
    assert!(h.take_chat_lines(b).contains(&"fine".to_owned()));
    h.advance(Duration::from_secs(1));
    h.chat(b, "bad");
    h.steps(2);
    assert_eq!(
        h.script_host().stats().suspensions,
        1,
        "the success reset the streak"
    );
    assert_eq!(h.script_host().errors(), 6);
}
