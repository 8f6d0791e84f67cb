//! Builds the [`QuerySnapshot`] at the end of a tick (query.md: "the state at the end of the
//! last tick") and publishes it: in a tick where a player came or went, a score, a rule,
//! the identity or the world clock changed, and at least once a second for the pings.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::{GameModeText, QueryPublisher, Score, ServerIdentity, ServerRules, VERSION_RULE};
use dlmp_core::session::{Connection, HelloWorld, Name, Player, SessionSettings, SessionState};
use dlmp_net::query::{QuerySnapshot, ServerFacts};
use dlmp_protocol::query::{MAX_RULE_VALUE, PlayerEntry, RuleEntry};
use dlmp_protocol::text::{FixedText, Text};

/// How stale the pings may get when nothing else changes.
const PING_REFRESH: Duration = Duration::from_secs(1);

/// A player came or its score changed this tick.
type Touched = Or<(Added<Player>, Changed<Score>)>;

type Listed = (
    &'static Player,
    &'static Name,
    Option<&'static Score>,
    Option<&'static Connection>,
);

#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn publish(
    publisher: Res<QueryPublisher>,
    identity: Res<ServerIdentity>,
    rules: Res<ServerRules>,
    mode: Res<GameModeText>,
    world: Res<HelloWorld>,
    settings: Res<SessionSettings>,
    sessions: Res<SessionState>,
    time: Res<Time>,
    players: Query<Listed>,
    changed: Query<(), Touched>,
    mut removed: RemovedComponents<Player>,
    mut last: Local<Option<Duration>>,
) {
    let now = time.elapsed();
    let left = removed.read().count() > 0;
    let dirty = identity.is_changed()
        || rules.is_changed()
        || mode.is_changed()
        || world.is_changed()
        || !changed.is_empty()
        || left;
    let due = last.is_none_or(|t| now.saturating_sub(t) >= PING_REFRESH);
    if !dirty && !due {
        return;
    }
    *last = Some(now);
    let gamemode = mode
        .0
        .as_ref()
        .map_or(identity.gamemode.as_str(), |(_, text)| text.as_str());
    let facts = ServerFacts {
        players: u16::try_from(sessions.sessions.len()).unwrap_or(u16::MAX),
        max_players: settings.max_players,
        tick_hz: world.0.tick_hz,
        hours: world.0.hours,
        minutes: world.0.minutes,
        weather: world.0.weather,
        closed: sessions.sessions.is_full(),
        name: fixed(&identity.name),
        gamemode: fixed(gamemode),
        language: fixed(&identity.language),
        website: fixed(&identity.website),
    };
    let entries = players
        .iter()
        .filter_map(|(player, name, score, connection)| {
            Some(PlayerEntry {
                player_id: u16::try_from(player.id.0).ok()?,
                score: score.map_or(0, |s| s.0),
                ping_ms: connection
                    .and_then(Connection::ping)
                    .map_or(0, |rtt| u16::try_from(rtt.as_millis()).unwrap_or(u16::MAX)),
                name: Text::new(name.as_str()).ok()?,
            })
        })
        .collect();
    let version = std::iter::once((VERSION_RULE, env!("CARGO_PKG_VERSION")));
    let published = rules
        .0
        .iter()
        .map(|(key, (_, value))| (key.as_str(), value.as_str()));
    let rules = version
        .chain(published)
        .filter_map(|(key, value)| {
            Some(RuleEntry {
                key: Text::new(key).ok()?,
                value: Text::<MAX_RULE_VALUE>::new(value).ok()?,
            })
        })
        .collect();
    publisher
        .0
        .publish(QuerySnapshot::new(facts, entries, rules));
}

/// `text` cut to `N` bytes at a character boundary, without NUL (a config value or a
/// game mode text checked where it was set; this only keeps the snapshot valid).
fn fixed<const N: usize>(text: &str) -> FixedText<N> {
    let mut end = text.len().min(N);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    FixedText::new(&text[..end].replace('\0', "")).unwrap_or_default()
}
