//! The player's events for scripts (lua-api.md, "Events"): connects and disconnects,
//! spawns, frames, the ledger, streaming, spectating, anti-cheat verdicts and admission
//! refusals, queued from this tick's messages at their [places](place) in
//! [`ScriptSystems::Collect`](dlmp_script::ScriptSystems::Collect).

use std::time::Duration;

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::session::{Player, PlayerConnected, PlayerDisconnected};
use dlmp_protocol::connection::handshake::LeaveReason;
use dlmp_script::{Arg, ScriptEvent, ScriptEvents, ScriptHost};

use super::LuaPlayer;
use crate::admission::{AdmissionRefused, CheatSuspected, RateLimit, RefusalReason};
use crate::control::SpectateLost;
use crate::frame::FrameEvent;
use crate::frame::keys::KEY_NAMES;
use crate::ledger::LedgerEvent;
use crate::stream::StreamChange;
use crate::{RespawnGranted, SpawnGranted};

/// Where the player's events stand among a tick's notifications (the other crates' places
/// fall between them: docs/architecture.md, "The script registry").
pub mod place {
    use dlmp_script::EventPlace;

    pub const DISCONNECT: EventPlace = EventPlace(0);
    pub const CONNECT: EventPlace = EventPlace(10);
    pub const SPAWN: EventPlace = EventPlace(20);
    pub const FRAME: EventPlace = EventPlace(30);
    pub const LEDGER: EventPlace = EventPlace(40);
    pub const STREAM: EventPlace = EventPlace(50);
    pub const CHEAT: EventPlace = EventPlace(70);
    pub const SPECTATE: EventPlace = EventPlace(120);
    pub const REFUSAL: EventPlace = EventPlace(140);
}

/// Every event name of this module, with its arguments (lua-api.md, "Events").
pub const NAMES: &[&str] = &[
    // (player)
    "player_connect",
    // (player, reason): "quit", "timeout" or "kicked"
    "player_disconnect",
    // (player): the connect spawn's first grant or a respawn (the tick after the grant)
    "player_spawn",
    // (player, key, pressed)
    "player_key_change",
    // (player, paused)
    "player_pause",
    // (player, weapon)
    "player_weapon_reload",
    // (player, state, previous): "none", "on_foot", "dead"
    "player_state_change",
    // (player, interior, previous)
    "player_interior_change",
    // (victim, attacker or nil, weapon, amount, bodypart)
    "player_damage",
    // (player, killer or nil, weapon)
    "player_death",
    // (player, text): a handler returning false cancels the broadcast
    "player_chat",
    // (player, name, args): a handler returning true has handled it
    "player_command",
    // (player, for_player)
    "player_stream_in",
    "player_stream_out",
    // (player, target)
    "spectate_lost",
    // (player, reason)
    "player_frame_refused",
    "player_shot_refused",
    // (player, verdict, counts)
    "player_cheat_suspected",
];

/// Refusal events a player's scripts hear per second at most; the rest are counted.
pub const REFUSALS_PER_SECOND: u32 = 4;

/// The Lua word for a PlayerLeave reason.
pub fn reason_name(reason: LeaveReason) -> &'static str {
    match reason {
        LeaveReason::Quit => "quit",
        LeaveReason::Timeout => "timeout",
        LeaveReason::Kicked => "kicked",
    }
}

fn handle(entity: Entity, player: &Player) -> LuaPlayer {
    LuaPlayer {
        entity,
        token: player.token,
    }
}

/// `player_chat(player, text)`.
pub fn player_chat(player: LuaPlayer, text: String) -> ScriptEvent {
    ScriptEvent::new("player_chat", [player.into(), text.into()])
}

/// `player_command(player, name, args)`.
pub fn player_command(player: LuaPlayer, name: String, args: Vec<String>) -> ScriptEvent {
    ScriptEvent::new("player_command", [player.into(), name.into(), args.into()])
}

/// The messages of this tick the player's events are raised from.
#[derive(bevy_ecs::system::SystemParam)]
pub(crate) struct TickMessages<'w, 's> {
    disconnected: MessageReader<'w, 's, PlayerDisconnected>,
    connected: MessageReader<'w, 's, PlayerConnected>,
    spawned: MessageReader<'w, 's, SpawnGranted>,
    respawned: MessageReader<'w, 's, RespawnGranted>,
    frame_events: MessageReader<'w, 's, FrameEvent>,
    ledger_events: MessageReader<'w, 's, LedgerEvent>,
    streamed: MessageReader<'w, 's, StreamChange>,
    cheats: MessageReader<'w, 's, CheatSuspected>,
    spectate_lost: MessageReader<'w, 's, SpectateLost>,
}

/// Queues the player's notifications of this tick: the disconnects first, then connects,
/// spawns, frames, the ledger, streaming, verdicts, spectating.
pub(crate) fn collect(
    mut messages: TickMessages,
    players: Query<(Entity, &Player)>,
    mut events: ResMut<ScriptEvents>,
) {
    let lua = |e: Entity| players.get(e).ok().map(|(entity, p)| handle(entity, p));
    events.extend(
        place::DISCONNECT,
        messages.disconnected.read().map(|d| {
            let player = LuaPlayer {
                entity: d.player,
                token: d.token,
            };
            ScriptEvent::new(
                "player_disconnect",
                [player.into(), reason_name(d.reason).into()],
            )
            .releasing(d.player)
        }),
    );
    events.extend(
        place::CONNECT,
        messages.connected.read().map(|c| {
            let player = LuaPlayer {
                entity: c.player,
                token: c.token,
            };
            ScriptEvent::new("player_connect", [player.into()])
        }),
    );
    let spawned = messages.spawned.read().map(|s| s.player);
    let respawned = messages.respawned.read().map(|r| r.player);
    events.extend(
        place::SPAWN,
        spawned
            .chain(respawned)
            .filter_map(lua)
            .map(|player| ScriptEvent::new("player_spawn", [player.into()])),
    );
    events.extend(
        place::FRAME,
        messages
            .frame_events
            .read()
            .filter_map(|e| frame_event(e, &lua)),
    );
    events.extend(
        place::LEDGER,
        messages
            .ledger_events
            .read()
            .filter_map(|e| ledger_event(e, &lua)),
    );
    events.extend(
        place::STREAM,
        messages.streamed.read().filter_map(|change| {
            if !(players.contains(change.subject) && players.contains(change.recipient)) {
                return None;
            }
            let player = LuaPlayer {
                entity: change.subject,
                token: change.subject_token,
            };
            let for_player = LuaPlayer {
                entity: change.recipient,
                token: change.recipient_token,
            };
            let name = if change.shown {
                "player_stream_in"
            } else {
                "player_stream_out"
            };
            Some(ScriptEvent::new(name, [player.into(), for_player.into()]))
        }),
    );
    events.extend(
        place::CHEAT,
        messages.cheats.read().filter_map(|c| {
            let player = lua(c.player)?;
            let counts = c.counts.iter().map(|(k, n)| (k.name(), *n)).collect();
            Some(ScriptEvent::new(
                "player_cheat_suspected",
                [player.into(), c.verdict.name().into(), Arg::Counts(counts)],
            ))
        }),
    );
    events.extend(
        place::SPECTATE,
        messages.spectate_lost.read().filter_map(|lost| {
            let player = lua(lost.player)?;
            let target = LuaPlayer {
                entity: lost.target,
                token: lost.target_token,
            };
            Some(ScriptEvent::new(
                "spectate_lost",
                [player.into(), target.into()],
            ))
        }),
    );
}

/// The script event of a ledger event, for a player still here.
fn ledger_event(
    event: &LedgerEvent,
    lua: &impl Fn(Entity) -> Option<LuaPlayer>,
) -> Option<ScriptEvent> {
    Some(match *event {
        LedgerEvent::Damage {
            victim,
            attacker,
            weapon,
            amount,
            bodypart,
        } => ScriptEvent::new(
            "player_damage",
            [
                lua(victim)?.into(),
                attacker.and_then(lua).into(),
                weapon.into(),
                f64::from(amount).into(),
                bodypart.into(),
            ],
        ),
        LedgerEvent::Death {
            player,
            killer,
            weapon,
        } => ScriptEvent::new(
            "player_death",
            [
                lua(player)?.into(),
                killer.and_then(lua).into(),
                weapon.into(),
            ],
        ),
    })
}

/// The script event of a frame event, for a player still here.
fn frame_event(
    event: &FrameEvent,
    lua: &impl Fn(Entity) -> Option<LuaPlayer>,
) -> Option<ScriptEvent> {
    Some(match *event {
        FrameEvent::KeyChange {
            player,
            key,
            pressed,
        } => ScriptEvent::new(
            "player_key_change",
            [
                lua(player)?.into(),
                KEY_NAMES.get(usize::from(key)).copied()?.into(),
                pressed.into(),
            ],
        ),
        FrameEvent::Pause { player, paused } => {
            ScriptEvent::new("player_pause", [lua(player)?.into(), paused.into()])
        }
        FrameEvent::WeaponReload { player, weapon } => {
            ScriptEvent::new("player_weapon_reload", [lua(player)?.into(), weapon.into()])
        }
        FrameEvent::StateChange {
            player,
            state,
            previous,
        } => ScriptEvent::new(
            "player_state_change",
            [
                lua(player)?.into(),
                state.name().into(),
                previous.name().into(),
            ],
        ),
        FrameEvent::InteriorChange {
            player,
            interior,
            previous,
        } => ScriptEvent::new(
            "player_interior_change",
            [lua(player)?.into(), interior.into(), previous.into()],
        ),
    })
}

/// `player_frame_refused` / `player_shot_refused` for this tick's admission refusals, at
/// most [`REFUSALS_PER_SECOND`] per player in each second; the rest are counted
/// (`ScriptStats::refusals_dropped`).
pub(crate) fn collect_refusals(
    mut host: NonSendMut<ScriptHost>,
    time: Res<Time>,
    mut refused: MessageReader<AdmissionRefused>,
    mut windows: Local<EntityHashMap<(Duration, u32)>>,
    players: Query<(Entity, &Player)>,
    mut events: ResMut<ScriptEvents>,
) {
    let now = time.elapsed();
    windows.retain(|entity, _| players.contains(*entity));
    for refusal in refused.read() {
        let Ok((entity, player)) = players.get(refusal.player) else {
            continue;
        };
        let window = windows.entry(entity).or_insert((now, 0));
        if now.saturating_sub(window.0) >= Duration::from_secs(1) {
            *window = (now, 0);
        }
        if window.1 >= REFUSALS_PER_SECOND {
            host.count_dropped_refusal();
            continue;
        }
        window.1 += 1;
        let player = handle(entity, player);
        let (name, reason) = match refusal.reason {
            RefusalReason::Shot(drop) => ("player_shot_refused", drop.name()),
            RefusalReason::Frame(drop) => ("player_frame_refused", drop.name()),
            RefusalReason::Movement => ("player_frame_refused", "movement"),
            RefusalReason::RateLimit(RateLimit::Pause) => {
                ("player_frame_refused", "rate_limit_pause")
            }
            RefusalReason::RateLimit(RateLimit::OnFire) => {
                ("player_frame_refused", "rate_limit_on_fire")
            }
        };
        events.push(
            place::REFUSAL,
            ScriptEvent::new(name, [player.into(), reason.into()]),
        );
    }
}
