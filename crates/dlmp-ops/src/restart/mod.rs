//! Scheduled restarts (ADR 0103): a daily time from the config (`restart_at`) or the admin
//! panel. The players are told in chat 15, 5 and 1 minutes before; then the server stops
//! as on `quit` (the gamemode hears `server_shutdown` and saves, the bans and the database
//! queue are written, everyone gets a Disconnect after a line saying why) and exits with
//! [`RESTART_EXIT_CODE`], which the shipped service unit restarts on.

use std::sync::atomic::Ordering;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::info;

use crate::bans::{BanClock, UnixSeconds};
use crate::console::SAY_COLOR;
use dlmp_core::session::Connection;
use dlmp_core::tick::{ServerSystems, ShutdownFlag};
use dlmp_player::chat::{notify, say};

pub mod daily;

pub use daily::DailyTime;

/// The exit code of a scheduled restart (EX_TEMPFAIL): `deploy/dlmp.service` restarts on
/// it.
pub const RESTART_EXIT_CODE: u8 = 75;

/// Minutes before the restart at which the players are told.
pub const WARNINGS: [i64; 3] = [15, 5, 1];

/// What every player reads just before the Disconnect.
pub const RESTART_NOTICE: &str = "The server is restarting now; reconnect in a minute.";

/// The schedule and where it stands.
#[derive(Resource, Debug, Clone, Default)]
pub struct RestartSchedule {
    daily: Option<DailyTime>,
    next: Option<UnixSeconds>,
    /// The warnings (minutes) already given for `next`.
    warned: Vec<i64>,
    restarting: bool,
}

impl RestartSchedule {
    #[must_use]
    pub fn daily(&self) -> Option<DailyTime> {
        self.daily
    }

    /// The wall time of the next restart.
    #[must_use]
    pub fn next(&self) -> Option<UnixSeconds> {
        self.next
    }

    /// Whether the scheduled restart began: the process exits with [`RESTART_EXIT_CODE`].
    #[must_use]
    pub fn restarting(&self) -> bool {
        self.restarting
    }
}

/// Sets (or with `None` clears) the daily restart, `by` an admin; logged in the command log.
pub fn set_daily(world: &mut World, daily: Option<DailyTime>, by: &str) {
    let mut schedule = world.get_resource_or_init::<RestartSchedule>();
    schedule.daily = daily;
    schedule.next = None;
    schedule.warned.clear();
    let text = daily.map_or_else(|| "none".to_owned(), |d| d.to_string());
    info!(target: crate::logs::CHAT_LOG, who = by, "daily restart set to {text}");
}

/// Adds the schedule; without a time it waits for one from the panel.
pub struct RestartPlugin {
    pub daily: Option<DailyTime>,
}

impl Plugin for RestartPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(RestartSchedule {
            daily: self.daily,
            ..RestartSchedule::default()
        })
        .add_systems(FixedUpdate, keep_schedule.in_set(ServerSystems::Ingest));
    }
}

/// "1 minute", "5 minutes".
fn minutes(n: i64) -> String {
    if n == 1 {
        "1 minute".to_owned()
    } else {
        format!("{n} minutes")
    }
}

fn keep_schedule(
    time: Res<Time>,
    clock: Option<Res<BanClock>>,
    flag: Option<Res<ShutdownFlag>>,
    mut schedule: ResMut<RestartSchedule>,
    mut players: Query<&mut Connection>,
) {
    if schedule.restarting {
        return;
    }
    let Some(daily) = schedule.daily else {
        return;
    };
    let now = clock.map(|c| *c).unwrap_or_default().now(time.elapsed());
    let next = *schedule.next.get_or_insert_with(|| daily.next_after(now));
    let left = next - now;
    if left <= 0 {
        schedule.restarting = true;
        info!(target: crate::logs::CHAT_LOG, who = "schedule", "scheduled restart: stopping");
        for mut conn in &mut players {
            notify(&mut conn, RESTART_NOTICE);
        }
        if let Some(flag) = flag {
            flag.0.store(true, Ordering::Relaxed);
        }
        return;
    }
    let due = WARNINGS
        .iter()
        .copied()
        .filter(|m| left <= m * 60 && !schedule.warned.contains(m))
        .min();
    if let Some(warning) = due {
        schedule
            .warned
            .extend(WARNINGS.iter().filter(|m| **m >= warning));
        let line = format!(
            "{}The server restarts in {}.",
            crate::console::SAY_PREFIX,
            minutes((left + 59) / 60)
        );
        info!(target: crate::logs::CHAT_LOG, who = "schedule", "{line}");
        for mut conn in &mut players {
            say(&mut conn, SAY_COLOR, &line);
        }
    }
}
