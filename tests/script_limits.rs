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

/// ADR 0082: a join storm's `player_connect` past the tick's script time waits for the
/// next ticks, in order, instead of being cut off and backed off; a waiting
/// `player_disconnect` still reads its player's name.
#[test]
fn notifications_past_the_tick_time_wait_for_later_ticks_in_order() {
    const STORM: usize = 30;
    let s = TempScripts::new("tick-time-storm");
    s.resource(
        "greeter",
        r#"
        local n, watcher = 0, nil
        dlmp.on("player_connect", function(p)
            n = n + 1
            if p:name() == "watcher" then watcher = p end
            dlmp.send_chat("you are " .. n, nil, { p })
        end)
        dlmp.on("player_disconnect", function(p)
            if watcher then dlmp.send_chat("bye " .. p:name(), nil, { watcher }) end
        end)
        "#,
    );
    let mut h = s.harness_with(|c| Config {
        script_tick_budget_ms: 20,
        ..c
    });
    let watcher = h.connect("watcher");
    ticking_clock(&mut h, Duration::from_millis(1));
    let storm: Vec<_> = (0..STORM).map(|_| h.add_client()).collect();
    for (i, &c) in storm.iter().enumerate() {
        let hello = h.client_hello(c, &format!("p{i:02}"));
        h.send(c, hello);
    }
    h.step();
    for &c in &storm {
        h.prove(c);
    }
    h.steps(30);
    let stats = h.script_host().stats();
    assert!(
        stats.deferred > 0,
        "the storm outlasted one tick: {stats:?}"
    );
    assert_eq!(stats.suspensions, 0, "{stats:?}");
    assert_eq!(h.script_host().notifications_waiting(), 0);
    let mut heard = Vec::new();
    for &c in &storm {
        let lines = h.take_chat_lines(c);
        if let Some(n) = lines.iter().find_map(|l| l.strip_prefix("you are ")) {
            heard.push(n.parse::<usize>().expect("a number"));
        }
    }
    assert!(
        heard.windows(2).all(|w| w[0] < w[1]),
        "heard in connect order: {heard:?}"
    );
    let cut = usize::try_from(stats.time_cutoffs).expect("fits");
    assert_eq!(heard.len() + cut, STORM, "none lost: {heard:?} {stats:?}");
    assert!(heard.len() > STORM / 2, "{heard:?}");

    h.take_chat_lines(watcher);
    let before = h.script_host().stats();
    for &c in &storm {
        h.disconnect(c);
    }
    h.steps(30);
    let stats = h.script_host().stats();
    assert!(stats.deferred > before.deferred, "{stats:?}");
    let byes: Vec<String> = h
        .take_chat_lines(watcher)
        .into_iter()
        .filter_map(|l| l.strip_prefix("bye ").map(str::to_owned))
        .collect();
    let cut = usize::try_from(stats.time_cutoffs - before.time_cutoffs).expect("fits");
    assert_eq!(byes.len() + cut, STORM, "{byes:?} {stats:?}");
    let mut sorted = byes.clone();
    sorted.sort();
    assert_eq!(byes, sorted, "heard in leave order, each with its name");
    assert!(byes.len() > STORM / 2, "{byes:?}");
}

/// ADR 0082: a timer due once the tick's script time is spent stays due and fires in the
/// next tick.
#[test]
fn a_timer_due_past_the_tick_time_fires_in_the_next_tick() {
    let s = TempScripts::new("tick-time-timer");
    s.resource(
        "clock",
        r#"
        local n = 0
        dlmp.on("player_chat", function() for i = 1, 2000000 do end end)
        dlmp.set_timer(20, function()
            n = n + 1
            dlmp.send_chat("ding " .. n)
        end, true)
        "#,
    );
    let mut h = s.harness_with(|c| Config {
        script_instruction_budget: 1_000_000_000,
        script_tick_budget_ms: 20,
        ..c
    });
    let a = h.connect("alice");
    ticking_clock(&mut h, Duration::from_millis(1));
    let dings = |h: &mut Harness| -> Vec<String> {
        h.take_chat_lines(a)
            .into_iter()
            .filter(|l| l.starts_with("ding "))
            .collect()
    };
    dings(&mut h);
    h.step();
    let before = dings(&mut h);
    assert_eq!(
        before.len(),
        1,
        "a tick with time fires the timer: {before:?}"
    );
    h.chat(a, "slow");
    h.step();
    assert_eq!(h.script_host().stats().time_cutoffs, 1);
    assert!(dings(&mut h).is_empty(), "no time left for the timer");
    h.step();
    let after = dings(&mut h);
    let next = before[0]
        .strip_prefix("ding ")
        .and_then(|n| n.parse::<u32>().ok())
        .expect("a count")
        + 1;
    assert_eq!(after, [format!("ding {next}")], "it fired in the next tick");
}
