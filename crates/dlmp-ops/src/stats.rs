//! The periodic stats log line: traffic, drops by reason, players.

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::info;

use dlmp_core::session::PlayerIndex;
use dlmp_core::tick::{ServerSystems, Transport};

/// How often the stats line is logged; zero turns it off. Default 60 s.
#[derive(Resource, Debug, Clone, Copy)]
pub struct StatsSettings {
    pub interval: Duration,
}

/// Adds the periodic stats line.
pub struct StatsPlugin {
    pub settings: StatsSettings,
}

impl Plugin for StatsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings)
            .add_systems(FixedUpdate, log_stats.after(ServerSystems::Outbound));
    }
}

fn log_stats(
    settings: Res<StatsSettings>,
    time: Res<Time>,
    transport: Res<Transport>,
    players: Res<PlayerIndex>,
    mut last: Local<Duration>,
) {
    if settings.interval.is_zero() || time.elapsed() < *last + settings.interval {
        return;
    }
    *last = time.elapsed();
    info!(
        players = players.len(),
        "stats: {}",
        transport.stats.summary()
    );
}
