//! Idle kicker: a player whose position and keys have not changed for `idle_secs` is
//! warned `warn_secs` before, then kicked; a slot held by an away player is a slot a
//! playing one cannot have. An away player sitting in a vehicle is taken out of it after
//! `seat_secs`, so it holds no seat a playing one wants (a bus, a taxi, a getaway car).
//! Enabled by a `[plugins.idle_kick]` table (see README.md).

use std::time::Duration;

use bevy_time::Time;
use dlmp::prelude::*;
use serde::Deserialize;
use tracing::info;

/// `[plugins.idle_kick]`.
#[derive(Resource, Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IdleKickSettings {
    /// Seconds without moving or pressing a key before the kick.
    pub idle_secs: u64,
    /// Seconds before the kick the player is warned; 0 = no warning.
    pub warn_secs: u64,
    /// Seconds idle in a vehicle seat before the player is taken out of the vehicle; 0 =
    /// never.
    pub seat_secs: u64,
}

impl Default for IdleKickSettings {
    fn default() -> Self {
        IdleKickSettings {
            idle_secs: 300,
            warn_secs: 30,
            seat_secs: 120,
        }
    }
}

/// What the player did last, and since when it has not changed.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Activity {
    pub position: Vec3,
    pub keys: Keys,
    pub since: Duration,
    pub warned: bool,
    /// The player was taken out of its vehicle in this idle stretch.
    pub unseated: bool,
}

pub struct IdleKickPlugin;

impl Plugin for IdleKickPlugin {
    fn build(&self, app: &mut App) {
        let Some(settings) = plugin_settings::<IdleKickSettings>(app, "idle_kick") else {
            return;
        };
        app.insert_resource(settings)
            .add_systems(FixedUpdate, watch.in_set(GameplaySystems::Apply));
    }
}

/// What the watch reads and writes of each player.
type Watched = (
    Entity,
    &'static Player,
    Option<&'static Seated>,
    &'static Name,
    &'static Position,
    &'static Body,
    &'static mut Connection,
    Option<&'static mut Activity>,
);

fn watch(
    time: Res<Time>,
    settings: Res<IdleKickSettings>,
    mut players: Query<Watched>,
    mut commands: Commands,
    mut ends: MessageWriter<EndSession>,
    mut seats: MessageWriter<SeatCommand>,
) {
    let now = time.elapsed();
    let idle = Duration::from_secs(settings.idle_secs);
    let warn = idle.saturating_sub(Duration::from_secs(settings.warn_secs));
    let seat = Duration::from_secs(settings.seat_secs);
    for (player, who, seated, name, position, body, mut conn, activity) in &mut players {
        let keys = body.keys;
        let Some(mut a) = activity else {
            commands.entity(player).try_insert(Activity {
                position: position.0,
                keys,
                since: now,
                warned: false,
                unseated: false,
            });
            continue;
        };
        if a.position != position.0 || a.keys != keys {
            *a = Activity {
                position: position.0,
                keys,
                since: now,
                warned: false,
                unseated: false,
            };
            continue;
        }
        let away = now.saturating_sub(a.since);
        if let Some(seated) = seated
            && settings.seat_secs > 0
            && away >= seat
            && !a.unseated
        {
            a.unseated = true;
            seats.write(SeatCommand::Remove {
                player,
                token: who.token,
            });
            notify(
                &mut conn,
                "You were taken out of the vehicle for being idle.",
            );
            info!(
                name = name.as_str(),
                vehicle = seated.id.0,
                "taken out of a vehicle for being idle"
            );
        }
        if away >= idle {
            notify(&mut conn, "Kicked for being idle.");
            ends.write(EndSession {
                player,
                leave: LeaveReason::Kicked,
                disconnect: Some(LeaveReason::Kicked),
            });
            info!(name = name.as_str(), "kicked for being idle");
            // Counted again from now if the session outlives this tick.
            a.since = now;
        } else if settings.warn_secs > 0 && away >= warn && !a.warned {
            a.warned = true;
            notify(
                &mut conn,
                &format!(
                    "You will be kicked for being idle in {} s: move to stay.",
                    settings.warn_secs
                ),
            );
        }
    }
}
