//! Anti-cheat reporter: counts each player's admission refusals
//! ([`AdmissionRefused`]: frames dropped, movement held back, toggles past their rate
//! limit, shots dropped) over a window, warns the player and the log past `warn_at`, kicks
//! past `kick_at`, and announces both as [`CheatSuspected`] for other plugins and, as the
//! Lua event `player_cheat_suspected(player, verdict, counts)`, for gamemodes. Enabled by a
//! `[plugins.anticheat]` table (see README.md).

use std::collections::BTreeMap;
use std::time::Duration;

use bevy_time::Time;
use dlmp::prelude::*;
use serde::Deserialize;
use tracing::warn;

/// `[plugins.anticheat]`.
#[derive(Resource, Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AntiCheatSettings {
    /// Refusals are counted over windows this long; a new window starts from zero.
    pub window_secs: u64,
    /// Refusals in one window that warn (the player and the log); 0 = never.
    pub warn_at: u32,
    /// Refusals in one window that kick; 0 = never.
    pub kick_at: u32,
    /// The refusal kinds counted: `frame`, `movement`, `rate_limit`, `shot`.
    pub count: Vec<String>,
}

impl Default for AntiCheatSettings {
    fn default() -> Self {
        AntiCheatSettings {
            window_secs: 10,
            warn_at: 20,
            kick_at: 60,
            count: ["movement", "rate_limit", "shot"]
                .map(String::from)
                .to_vec(),
        }
    }
}

/// A player's refusals in the current window, by kind.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct RefusalCounts {
    pub window_start: Duration,
    pub by_kind: BTreeMap<RefusalKind, u32>,
    pub warned: bool,
}

impl RefusalCounts {
    pub fn total(&self) -> u32 {
        self.by_kind.values().sum()
    }
}

/// The verdicts and their message are the server's, so that gamemodes hear them
/// (`player_cheat_suspected`) and other plugins read them without this crate.
pub use dlmp::prelude::{CheatSuspected, CheatVerdict};

pub struct AntiCheatPlugin;

impl Plugin for AntiCheatPlugin {
    fn build(&self, app: &mut App) {
        let Some(settings) = plugin_settings::<AntiCheatSettings>(app, "anticheat") else {
            return;
        };
        app.insert_resource(settings)
            .add_message::<CheatSuspected>()
            .add_systems(FixedUpdate, judge.in_set(GameplaySystems::Intake));
    }
}

fn kind_counted(settings: &AntiCheatSettings, kind: RefusalKind) -> bool {
    settings.count.iter().any(|k| k == kind.name())
}

fn judge(
    time: Res<Time>,
    settings: Res<AntiCheatSettings>,
    mut refused: MessageReader<AdmissionRefused>,
    mut players: Query<(&Name, &mut Connection, Option<&mut RefusalCounts>)>,
    mut commands: Commands,
    mut ends: MessageWriter<EndSession>,
    mut suspected: MessageWriter<CheatSuspected>,
) {
    let now = time.elapsed();
    let window = Duration::from_secs(settings.window_secs.max(1));
    let mut seen: BTreeMap<Entity, RefusalCounts> = BTreeMap::new();
    for r in refused.read() {
        if !kind_counted(&settings, r.reason.kind()) {
            continue;
        }
        let Ok((_, _, counts)) = players.get(r.player) else {
            continue;
        };
        let c = seen
            .entry(r.player)
            .or_insert_with(|| counts.cloned().unwrap_or_default());
        if now.saturating_sub(c.window_start) >= window {
            *c = RefusalCounts {
                window_start: now,
                ..RefusalCounts::default()
            };
        }
        *c.by_kind.entry(r.reason.kind()).or_default() += 1;
    }
    for (player, mut c) in seen {
        let Ok((name, mut conn, _)) = players.get_mut(player) else {
            continue;
        };
        let total = c.total();
        let verdict = if settings.kick_at > 0 && total >= settings.kick_at {
            Some(CheatVerdict::Kicked)
        } else if settings.warn_at > 0 && total >= settings.warn_at && !c.warned {
            c.warned = true;
            Some(CheatVerdict::Warned)
        } else {
            None
        };
        if let Some(verdict) = verdict {
            let counts = c.by_kind.clone();
            warn!(name = name.as_str(), ?verdict, ?counts, "anti-cheat");
            match verdict {
                CheatVerdict::Warned => {
                    notify(&mut conn, "Anti-cheat: your game's input is being refused.")
                }
                CheatVerdict::Kicked => {
                    notify(&mut conn, "Kicked by the anti-cheat.");
                    ends.write(EndSession {
                        player,
                        leave: LeaveReason::Kicked,
                        disconnect: Some(LeaveReason::Kicked),
                    });
                }
            }
            suspected.write(CheatSuspected {
                player,
                verdict,
                counts,
            });
        }
        commands.entity(player).try_insert(c);
    }
}
