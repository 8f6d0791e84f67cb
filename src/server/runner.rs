//! The production run loop (issue 11): one fixed step per deadline, the deadlines
//! absolute (start + n × tick), so a late wake-up neither runs two fixed steps in one
//! update (where the first ingest would take both steps' datagrams and the second none)
//! nor shifts every later tick. A runner that falls behind catches up step by step, at
//! most [`MAX_CATCH_UP`] ticks; beyond that the lost time is dropped, counted and logged.
//! Each step takes only the datagrams that arrived before its own deadline
//! ([`StepDeadline`]): steps run back to back after a late wake-up share the backlog out
//! as the ticks would have.

use std::time::{Duration, Instant};

use bevy_app::{App, AppExit, Plugin, PluginsState};
use bevy_time::TimeUpdateStrategy;
use tracing::warn;

use dlmp_core::tick::StepDeadline;

/// Ticks a late runner catches up, back to back, before it drops the rest.
pub const MAX_CATCH_UP: u32 = 5;

/// Runs the app one fixed step per absolute deadline, `tick` apart.
pub struct FixedStepRunner {
    pub tick: Duration,
}

impl Plugin for FixedStepRunner {
    fn build(&self, app: &mut App) {
        let tick = self.tick;
        // Each update advances the fixed clock by exactly one step.
        app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
        app.set_runner(move |app| run(app, tick));
    }
}

/// The next deadline after a step due at `deadline` finished at `now`, and how many
/// ticks were dropped because the runner was more than [`MAX_CATCH_UP`] behind.
fn next_deadline(deadline: Instant, now: Instant, tick: Duration) -> (Instant, u32) {
    let next = deadline + tick;
    let behind = now.saturating_duration_since(next);
    if behind <= tick * MAX_CATCH_UP {
        return (next, 0);
    }
    let dropped = behind.as_nanos() / tick.as_nanos().max(1);
    (now, u32::try_from(dropped).unwrap_or(u32::MAX))
}

fn run(mut app: App, tick: Duration) -> AppExit {
    if app.plugins_state() != PluginsState::Cleaned {
        while app.plugins_state() == PluginsState::Adding {
            std::thread::yield_now();
        }
        app.finish();
        app.cleanup();
    }
    // The first update has no delta and runs no fixed step.
    app.update();
    let mut deadline = Instant::now() + tick;
    loop {
        let now = Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
        app.insert_resource(StepDeadline(deadline));
        app.update();
        if let Some(exit) = app.should_exit() {
            return exit;
        }
        let (next, dropped) = next_deadline(deadline, Instant::now(), tick);
        if dropped > 0 {
            warn!(dropped, "the tick fell behind; dropped ticks");
        }
        deadline = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Duration = Duration::from_millis(20);

    #[test]
    fn on_time_the_next_deadline_is_one_tick_later() {
        let t0 = Instant::now();
        assert_eq!(next_deadline(t0, t0 + TICK / 2, TICK), (t0 + TICK, 0));
    }

    #[test]
    fn a_late_step_keeps_the_absolute_deadlines_to_catch_up() {
        let t0 = Instant::now();
        // 45 ms late: the next two steps are already due and run back to back.
        let (next, dropped) = next_deadline(t0, t0 + Duration::from_millis(65), TICK);
        assert_eq!((next, dropped), (t0 + TICK, 0));
        let (next, _) = next_deadline(next, t0 + Duration::from_millis(66), TICK);
        assert_eq!(next, t0 + 2 * TICK);
    }

    #[test]
    fn far_behind_the_lost_ticks_are_dropped() {
        let t0 = Instant::now();
        let now = t0 + TICK + TICK * (MAX_CATCH_UP + 3);
        assert_eq!(next_deadline(t0, now, TICK), (now, MAX_CATCH_UP + 3));
    }
}
