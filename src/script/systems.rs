//! The scripts in the app: the VM as non-send data, boot-time resource starts, and one
//! pass per tick in [`GameplaySystems::Scripts`]: refresh the view, raise the tick's
//! events, fire timers, apply the commands.

use bevy_ecs::entity::EntityHashMap;

use crate::player::admission::{AdmissionRefused, CheatSuspected, RateLimit, RefusalReason};
use std::path::PathBuf;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin, Startup};
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryItem;
use bevy_time::Time;
use tracing::{debug, error};

use super::api::player::LuaPlayer;
use super::api::world::{LuaCheckpoint, LuaColshape};
use super::events::{Counts, ScriptEvent, reason_name};
use super::host::{ScriptHost, ScriptLimits};
use super::ownership::{ResourceStopped, despawn_owned};
use super::state::{PlayerView, ScriptCommand};
use crate::chat::{PendingChat, notify, say};
use crate::player::animation::CurrentAnimation;
use crate::player::control::{Control, SpectateLost};
use crate::player::frame::keys::KEY_NAMES;
use crate::player::frame::{FrameEvent, FrameState, aim_holds};
use crate::player::ledger::{LedgerEvent, LedgerSettings, WeaponRanges};
use crate::player::stream::StreamChange;
use crate::player::stream::StreamingSettings;
use crate::player::{Appearance, Hud, Inventory, Ledger, Skills, Team};
use crate::player::{Body, Life, RespawnGranted, SpawnGranted, SpawnState};
use crate::world::pickup::PickupInteracted;
use crate::world::pickup::script::LuaPickup;
use crate::world::script_view::{WorldEvent, WorldEvents, WorldScriptParts, WorldView};
use crate::world::{ColshapeIds, MarkerIds};
use dlmp_core::owner::command_owner;
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::nametag::NametagColor;
use dlmp_core::session::{
    Connection, EndSession, Name, Player, PlayerConnected, PlayerDisconnected,
};
use dlmp_core::tick::{GameplaySystems, ServerShutdown};
use dlmp_core::viewers::Viewers;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::connection::chat::Color;
use dlmp_protocol::connection::handshake::LeaveReason;
use dlmp_protocol::connection::weapons::{GiveArmor, GiveHealth, GiveWeapon};
use dlmp_protocol::ids::{EventId, PlayerToken};
use dlmp_protocol::serial::Serial;

/// Script settings.
#[derive(Resource, Debug, Clone)]
pub struct ScriptSettings {
    /// The resources folder. Default `scripts/`.
    pub scripts: PathBuf,
    /// Resources started at boot; empty = every resource in the folder.
    pub resources: Vec<String>,
    /// The instruction budget, the VM's memory limit and the tick's time budget (ADR
    /// 0021).
    pub limits: ScriptLimits,
    /// The server's data folder (`data_dir`), which scripts reach as `$data/...` (ADR
    /// 0035); `None` refuses such paths.
    pub data_dir: Option<PathBuf>,
}

impl Default for ScriptSettings {
    fn default() -> Self {
        ScriptSettings {
            scripts: PathBuf::from("scripts"),
            resources: Vec::new(),
            limits: ScriptLimits::default(),
            data_dir: None,
        }
    }
}

/// Adds the Lua VM and its systems.
pub struct ScriptPlugin {
    pub settings: ScriptSettings,
}

impl Plugin for ScriptPlugin {
    fn build(&self, app: &mut App) {
        match ScriptHost::new(self.settings.scripts.clone(), self.settings.limits) {
            Ok(mut host) => {
                host.set_data_dir(self.settings.data_dir.clone());
                // Scripts hand out world ids in the call, from the app's own counters.
                app.init_resource::<MarkerIds>()
                    .init_resource::<ColshapeIds>();
                let marker_ids = app.world().resource::<MarkerIds>().clone();
                let colshape_ids = app.world().resource::<ColshapeIds>().clone();
                host.state_mut().world = WorldView::new(marker_ids, colshape_ids);
                app.insert_non_send(host);
            }
            Err(e) => {
                error!("the Lua VM did not start: {e}");
                return;
            }
        }
        app.insert_resource(self.settings.clone())
            .add_message::<ResourceStopped>()
            .add_message::<CheatSuspected>()
            .add_systems(Startup, start_resources)
            .add_systems(
                FixedUpdate,
                (run_scripts, report_stopped, despawn_owned)
                    .chain()
                    .in_set(GameplaySystems::Scripts),
            );
    }
}

/// Turns the resources stopped since the last pass (by the console, by a restart) into
/// [`ResourceStopped`] messages.
fn report_stopped(mut host: NonSendMut<ScriptHost>, mut stopped: MessageWriter<ResourceStopped>) {
    for id in host.take_stopped() {
        stopped.write(ResourceStopped(id));
    }
}

fn start_resources(mut host: NonSendMut<ScriptHost>, settings: Res<ScriptSettings>) {
    host.start_all(&settings.resources);
}

/// What the script view reads of a player.
type PlayerParts = (
    Entity,
    &'static Player,
    &'static Name,
    Option<&'static Life>,
    Option<&'static Position>,
    Option<&'static Scope>,
    Option<&'static Body>,
    Option<&'static FrameState>,
    Option<&'static Viewers>,
    Option<&'static CurrentAnimation>,
);

fn handle(entity: Entity, player: &Player) -> LuaPlayer {
    LuaPlayer {
        entity,
        token: player.token,
    }
}

/// The whole script pass of a tick: refresh the view, raise the tick's events, fire
/// timers, apply the commands.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn run_scripts(
    mut host: NonSendMut<ScriptHost>,
    time: Res<Time>,
    mut pending: ResMut<PendingChat>,
    players: Query<PlayerParts>,
    mut disconnected: MessageReader<PlayerDisconnected>,
    mut messages: TickMessages,
    mut shutdown: MessageReader<ServerShutdown>,
    mut connections: Query<&mut Connection>,
    mut spawn_states: Query<&mut SpawnState>,
    mut ended: MessageWriter<EndSession>,
    mut last_tick: Local<Option<Duration>>,
    mut gm: Gamemode,
    mut enters: ResMut<crate::vehicle::seats::PendingEnters>,
    mut remote: ResMut<crate::vehicle::remote::RemoteQueue>,
    mut links: ResMut<crate::vehicle::tow::flow::PendingLinks>,
    mut controls: ResMut<crate::vehicle::params::control::PendingControls>,
) {
    let now = time.elapsed();
    host.begin_tick();
    let left: Vec<&PlayerDisconnected> = disconnected.read().collect();
    refresh_view(
        &host,
        now,
        &players,
        &ViewSources {
            vitals: &gm.vitals,
            looks: &gm.looks,
            spawn_states: &spawn_states,
            connections: &connections,
            controls: &gm.controls,
            scores: &gm.scores,
        },
        &left,
    );
    gm.world.refresh(&mut host.state_mut().world);

    // What waited from earlier ticks goes first, so the gamemode hears every event in
    // order (ADR 0082).
    host.emit_deferred();
    for event in tick_events(&left, &mut messages, &mut gm.spectate_lost, &players) {
        host.notify(event);
    }
    for event in refusal_events(now, &mut messages, &players, &mut host) {
        host.notify(event);
    }
    {
        let host = &*host;
        host.state_mut()
            .players
            .retain(|entity, view| view.connected || host.awaits_disconnect(*entity));
    }
    for departed in &left {
        if !host.awaits_disconnect(departed.player) {
            host.forget_entity(departed.player);
        }
    }
    emit_chat(&mut host, &mut pending, &players);
    crate::vehicle::seats::emit_start_enters(&mut host, &mut enters);
    crate::vehicle::remote::script::emit(&mut host, &mut remote);
    crate::vehicle::tow::flow::emit_link_events(&mut host, &mut links);
    crate::vehicle::params::control::emit_controls(&mut host, &mut controls);
    if shutdown.read().next().is_some() {
        host.emit(&ScriptEvent::ServerShutdown {});
    }
    host.deliver_fetches();
    host.run_timers(now);
    super::api::db::deliver(&mut host);
    emit_tick(&mut host, now, &mut last_tick);
    host.end_tick();

    apply(
        &mut host,
        &mut connections,
        &mut spawn_states,
        &mut ended,
        &mut gm,
    );
}

/// The messages of this tick the script events are raised from.
#[derive(bevy_ecs::system::SystemParam)]
pub(crate) struct TickMessages<'w, 's> {
    connected: MessageReader<'w, 's, PlayerConnected>,
    spawned: LifeStarts<'w, 's>,
    frame_events: MessageReader<'w, 's, FrameEvent>,
    refused: MessageReader<'w, 's, AdmissionRefused>,
    /// Per player: the start of its refusal window and the events raised in it.
    refusal_windows: Local<'s, EntityHashMap<(Duration, u32)>>,
    ledger_events: MessageReader<'w, 's, LedgerEvent>,
    streamed: MessageReader<'w, 's, StreamChange>,
    world: WorldEvents<'w, 's>,
    pickups: MessageReader<'w, 's, PickupInteracted>,
    seats: MessageReader<'w, 's, crate::vehicle::seats::SeatChanged>,
    cheats: MessageReader<'w, 's, CheatSuspected>,
    syncers: MessageReader<'w, 's, crate::vehicle::syncer::SyncerChanged>,
    vehicle_deaths: MessageReader<'w, 's, crate::vehicle::life::VehicleDied>,
    object_moves: MessageReader<'w, 's, crate::world::object::ObjectMoveEnded>,
}

/// The script events of this tick's messages, in the order scripts see them: the
/// disconnects first, then connects, spawns, frames, the ledger, streaming, spectating.
fn tick_events(
    left: &[&PlayerDisconnected],
    messages: &mut TickMessages,
    spectate_lost: &mut MessageReader<SpectateLost>,
    players: &Query<PlayerParts>,
) -> Vec<ScriptEvent> {
    let mut events: Vec<ScriptEvent> = left
        .iter()
        .map(|d| ScriptEvent::PlayerDisconnect {
            player: LuaPlayer {
                entity: d.player,
                token: d.token,
            },
            reason: reason_name(d.reason),
        })
        .collect();
    events.extend(
        messages
            .connected
            .read()
            .map(|c| ScriptEvent::PlayerConnect {
                player: LuaPlayer {
                    entity: c.player,
                    token: c.token,
                },
            }),
    );
    events.extend(
        messages
            .spawned
            .read()
            .filter_map(|player| players.get(player).ok())
            .map(|(entity, player, ..)| ScriptEvent::PlayerSpawn {
                player: handle(entity, player),
            }),
    );
    events.extend(
        messages
            .frame_events
            .read()
            .filter_map(|e| script_event(e, players)),
    );
    events.extend(
        messages
            .ledger_events
            .read()
            .filter_map(|e| ledger_event(e, players)),
    );
    events.extend(
        messages
            .streamed
            .read()
            .filter_map(|c| stream_event(c, players)),
    );
    events.extend(
        messages
            .pickups
            .read()
            .filter(|t| players.contains(t.player))
            .map(|t| ScriptEvent::PickupInteract {
                player: LuaPlayer {
                    entity: t.player,
                    token: t.player_token,
                },
                pickup: LuaPickup { id: t.pickup },
                behavior: t.behavior.name(),
                model: t.model,
            }),
    );
    events.extend(messages.cheats.read().filter_map(|c| {
        let (entity, player, ..) = players.get(c.player).ok()?;
        Some(ScriptEvent::PlayerCheatSuspected {
            player: handle(entity, player),
            verdict: c.verdict.name(),
            counts: Counts(c.counts.iter().map(|(k, n)| (k.name(), *n)).collect()),
        })
    }));
    events.extend(
        messages
            .seats
            .read()
            .filter(|c| players.contains(c.player.entity))
            .map(crate::vehicle::seats::seat_event),
    );
    events.extend(
        messages
            .syncers
            .read()
            .map(crate::vehicle::syncer::syncer_event),
    );
    events.extend(
        messages
            .vehicle_deaths
            .read()
            .map(crate::vehicle::life::script::death_event),
    );
    events.extend(
        messages
            .object_moves
            .read()
            .map(|m| ScriptEvent::ObjectMoveEnd {
                object: super::api::world::LuaObject { id: m.id },
            }),
    );
    events.extend(
        spectate_lost
            .read()
            .filter_map(|l| spectate_lost_event(l, players)),
    );
    events.extend(
        messages
            .world
            .read()
            .into_iter()
            .filter_map(|e| world_event(e, players)),
    );
    events
}

/// The script event of a world event, for a player still here.
fn world_event(event: WorldEvent, players: &Query<PlayerParts>) -> Option<ScriptEvent> {
    let lua = |e: Entity| players.get(e).ok().map(|(entity, p, ..)| handle(entity, p));
    Some(match event {
        WorldEvent::Checkpoint(c) => {
            let (player, checkpoint) = (lua(c.player)?, LuaCheckpoint { id: c.checkpoint });
            if c.entered {
                ScriptEvent::CheckpointEnter { player, checkpoint }
            } else {
                ScriptEvent::CheckpointLeave { player, checkpoint }
            }
        }
        WorldEvent::Colshape(c) => {
            let (player, colshape) = (lua(c.player)?, LuaColshape { id: c.colshape });
            if c.entered {
                ScriptEvent::ColshapeEnter { player, colshape }
            } else {
                ScriptEvent::ColshapeLeave { player, colshape }
            }
        }
        WorldEvent::Waypoint(w) => ScriptEvent::PlayerWaypoint {
            player: lua(w.player)?,
            x: w.point.map(|p| f64::from(p.x)),
            y: w.point.map(|p| f64::from(p.y)),
        },
    })
}

/// `player_frame_refused` / `player_shot_refused` for this tick's admission refusals, at
/// most [`REFUSALS_PER_SECOND`] per player in each second; the rest are counted
/// (`ScriptStats::refusals_dropped`).
fn refusal_events(
    now: Duration,
    messages: &mut TickMessages,
    players: &Query<PlayerParts>,
    host: &mut ScriptHost,
) -> Vec<ScriptEvent> {
    let windows = &mut messages.refusal_windows;
    windows.retain(|entity, _| players.contains(*entity));
    let mut events = Vec::new();
    for refusal in messages.refused.read() {
        let Ok((entity, player, ..)) = players.get(refusal.player) else {
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
        events.push(match refusal.reason {
            RefusalReason::Shot(drop) => ScriptEvent::PlayerShotRefused {
                player,
                reason: drop.name(),
            },
            RefusalReason::Frame(drop) => ScriptEvent::PlayerFrameRefused {
                player,
                reason: drop.name(),
            },
            RefusalReason::Movement => ScriptEvent::PlayerFrameRefused {
                player,
                reason: "movement",
            },
            RefusalReason::RateLimit(RateLimit::Pause) => ScriptEvent::PlayerFrameRefused {
                player,
                reason: "rate_limit_pause",
            },
            RefusalReason::RateLimit(RateLimit::OnFire) => ScriptEvent::PlayerFrameRefused {
                player,
                reason: "rate_limit_on_fire",
            },
        });
    }
    events
}

/// Refusal events a player's scripts hear per second at most; the rest are counted.
pub const REFUSALS_PER_SECOND: u32 = 4;

/// Raises `player_chat` for each pending line and `player_command` for each pending
/// command; the chat system later sends what no handler refused or handled.
fn emit_chat(host: &mut ScriptHost, pending: &mut PendingChat, players: &Query<PlayerParts>) {
    for line in &mut pending.lines {
        let Ok((entity, player, ..)) = players.get(line.player) else {
            continue;
        };
        let event = ScriptEvent::PlayerChat {
            player: handle(entity, player),
            text: line.text.clone(),
        };
        line.refused |= host.emit(&event).refused;
    }
    for command in &mut pending.commands {
        let Ok((entity, player, ..)) = players.get(command.call.player) else {
            continue;
        };
        let player = handle(entity, player);
        let args: Vec<String> = command
            .call
            .args
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let event = ScriptEvent::PlayerCommand {
            player,
            name: command.call.name.clone(),
            args,
        };
        let outcome = host.emit(&event);
        command.handled |= outcome.handled;
        command.failed |= outcome.failed;
        if !command.handled
            && !command.failed
            && let ScriptEvent::PlayerCommand { args, .. } = &event
            && let Some(ok) = host.run_command(&command.call.name, player, args)
        {
            command.handled = true;
            command.failed = !ok;
        }
    }
}

/// Raises `tick` with the time since the last pass (0 on the first), if a script listens.
fn emit_tick(host: &mut ScriptHost, now: Duration, last_tick: &mut Option<Duration>) {
    if host.listens("tick") {
        let dt = last_tick.map_or(Duration::ZERO, |last| now.saturating_sub(last));
        host.emit(&ScriptEvent::Tick {
            dt_ms: dt.as_secs_f64() * 1000.0,
        });
    }
    *last_tick = Some(now);
}

/// The lives that started since the last pass: `player_spawn` fires for the connect
/// spawn's first grant and for every respawn grant (ADR 0012).
#[derive(bevy_ecs::system::SystemParam)]
pub(crate) struct LifeStarts<'w, 's> {
    spawned: MessageReader<'w, 's, SpawnGranted>,
    respawned: MessageReader<'w, 's, RespawnGranted>,
}

impl LifeStarts<'_, '_> {
    fn read(&mut self) -> impl Iterator<Item = Entity> + '_ {
        let spawned = self.spawned.read().map(|s| s.player);
        let respawned = self.respawned.read().map(|r| r.player);
        spawned.chain(respawned)
    }
}

/// The script event of a ledger event, for a player still here.
fn ledger_event(event: &LedgerEvent, players: &Query<PlayerParts>) -> Option<ScriptEvent> {
    let lua = |e: Entity| players.get(e).ok().map(|(entity, p, ..)| handle(entity, p));
    Some(match *event {
        LedgerEvent::Damage {
            victim,
            attacker,
            weapon,
            amount,
            bodypart,
        } => ScriptEvent::PlayerDamage {
            victim: lua(victim)?,
            attacker: attacker.and_then(lua),
            weapon,
            amount: f64::from(amount),
            bodypart,
        },
        LedgerEvent::Death {
            player,
            killer,
            weapon,
        } => ScriptEvent::PlayerDeath {
            player: lua(player)?,
            killer: killer.and_then(lua),
            weapon,
        },
    })
}

/// The script event of a frame event, for a player still here.
fn script_event(event: &FrameEvent, players: &Query<PlayerParts>) -> Option<ScriptEvent> {
    let lua = |entity: Entity| players.get(entity).ok().map(|(e, p, ..)| handle(e, p));
    Some(match *event {
        FrameEvent::KeyChange {
            player,
            key,
            pressed,
        } => ScriptEvent::PlayerKeyChange {
            player: lua(player)?,
            key: KEY_NAMES.get(usize::from(key)).copied()?,
            pressed,
        },
        FrameEvent::Pause { player, paused } => ScriptEvent::PlayerPause {
            player: lua(player)?,
            paused,
        },
        FrameEvent::WeaponReload { player, weapon } => ScriptEvent::PlayerWeaponReload {
            player: lua(player)?,
            weapon,
        },
        FrameEvent::StateChange {
            player,
            state,
            previous,
        } => ScriptEvent::PlayerStateChange {
            player: lua(player)?,
            state: state.name(),
            previous: previous.name(),
        },
        FrameEvent::InteriorChange {
            player,
            interior,
            previous,
        } => ScriptEvent::PlayerInteriorChange {
            player: lua(player)?,
            interior,
            previous,
        },
    })
}

/// The script event of a streaming change of the previous tick, unless either player has
/// left since (a disconnect raises no stream event).
fn stream_event(change: &StreamChange, players: &Query<PlayerParts>) -> Option<ScriptEvent> {
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
    Some(if change.shown {
        ScriptEvent::PlayerStreamIn { player, for_player }
    } else {
        ScriptEvent::PlayerStreamOut { player, for_player }
    })
}

/// The `spectate_lost` of a spectator still here; the target may have left.
fn spectate_lost_event(lost: &SpectateLost, players: &Query<PlayerParts>) -> Option<ScriptEvent> {
    let (entity, player, ..) = players.get(lost.player).ok()?;
    Some(ScriptEvent::SpectateLost {
        player: handle(entity, player),
        target: LuaPlayer {
            entity: lost.target,
            token: lost.target_token,
        },
    })
}

/// What the players' view reads besides [`PlayerParts`].
struct ViewSources<'a, 'w, 's, 'l, 'c> {
    vitals: &'a Query<'w, 's, Vitals>,
    looks: &'a Query<'w, 's, Looks>,
    spawn_states: &'a Query<'w, 's, &'l mut SpawnState>,
    connections: &'a Query<'w, 's, &'c mut Connection>,
    controls: &'a Query<'w, 's, &'static Control>,
    scores: &'a Query<'w, 's, &'static crate::query::Score>,
}

/// The players scripts see: everyone connected, plus those who left this tick (for their
/// `player_disconnect`). Each view is written whole every tick, in place: a view keeps
/// its entry and its name's room, so a crowd costs no allocation a tick.
fn refresh_view(
    host: &ScriptHost,
    now: Duration,
    players: &Query<PlayerParts>,
    sources: &ViewSources,
    left: &[&PlayerDisconnected],
) {
    let mut state = host.state_mut();
    state.now = now;
    // A view stays for a `player_disconnect` that still waits for a tick (ADR 0082).
    state.players.retain(|entity, view| {
        players.contains(*entity) || (!view.connected && host.awaits_disconnect(*entity))
    });
    for parts in players {
        let entity = parts.0;
        let view = state.players.entry(entity).or_default();
        let mut name = std::mem::take(&mut view.name);
        // A name seldom changes: the copy (and its UTF-8 check) only when it did.
        if name.as_bytes() != parts.2.0.as_bytes() {
            name.clear();
            name.push_str(parts.2.as_str());
        }
        *view = player_view(players, parts, name, now, sources);
    }
    for d in left {
        state.players.insert(d.player, departed_view(d));
    }
}

/// The view of one connected player, its name already written into `name`.
fn player_view(
    players: &Query<PlayerParts>,
    (entity, player, _, life, position, scope, body, frame_state, _, animation): QueryItem<
        PlayerParts,
    >,
    name: String,
    now: Duration,
    sources: &ViewSources,
) -> PlayerView {
    let life = life.copied().unwrap_or_default();
    let body = body.copied().unwrap_or_default();
    let target = aim_target(players, (player, &life, &body), frame_state);
    let scope = scope.copied().unwrap_or_default();
    let vitals = sources.vitals.get(entity).ok();
    let looks = sources.looks.get(entity).ok();
    let control = sources.controls.get(entity).ok();
    let mut view = PlayerView {
        id: player.id,
        token: player.token,
        name,
        spawned: life.spawned,
        alive: life.alive,
        position: position.map(|p| p.0).unwrap_or_default(),
        virtual_world: scope.virtual_world,
        interior: scope.interior,
        keys: body.keys.0,
        velocity: body.velocity,
        camera_front: body.camera_front,
        paused: body.paused,
        on_fire: body.on_fire,
        target,
        connected: true,
        health: vitals.as_ref().map_or(0.0, |(l, ..)| l.health),
        armor: vitals.as_ref().map_or(0.0, |(l, ..)| l.armor),
        team: vitals.as_ref().map_or(0, |(.., t)| t.group),
        appearance: looks.map(|(a, ..)| *a).unwrap_or_default(),
        skills: looks.map(|(_, s, ..)| *s).unwrap_or_default(),
        hud: looks.map(|(_, _, h, _)| *h).unwrap_or_default(),
        nametag_color: looks.and_then(|(.., c)| c).copied().unwrap_or_default().0.0,
        animation: animation
            .and_then(|a| a.playing(now))
            .copied()
            .filter(|_| life.alive),
        special_action: body.special_action,
        score: sources.scores.get(entity).map_or(0, |s| s.0),
        frozen: control.is_some_and(|c| c.frozen),
        camera: control.map(|c| c.camera).unwrap_or_default(),
        ..PlayerView::default()
    };
    super::api::movement::fill_view(
        &mut view,
        frame_state,
        sources.spawn_states.get(entity).ok(),
        sources.connections.get(entity).ok(),
    );
    view
}

/// The player `shooter` aims at, while the aim still holds (the target is here, the same
/// player, and [`aim_holds`] says so).
fn aim_target(
    players: &Query<PlayerParts>,
    shooter: (&Player, &Life, &Body),
    frame_state: Option<&FrameState>,
) -> Option<(Entity, PlayerToken)> {
    let frozen = frame_state.is_some_and(|s| s.frozen.is_some());
    let aim = frame_state.and_then(|s| s.aim)?;
    let (_, target, _, life, _, _, _, _, viewers, _) = players.get(aim.entity).ok()?;
    let holds = target.token == aim.token
        && life.is_some_and(|l| viewers.is_some_and(|v| aim_holds(shooter, frozen, (l, v))));
    holds.then_some((aim.entity, aim.token))
}

/// The view of a player who left this tick, for its `player_disconnect`.
fn departed_view(d: &PlayerDisconnected) -> PlayerView {
    PlayerView {
        id: d.id,
        token: d.token,
        name: d.name.as_str().to_owned(),
        connected: false,
        ..PlayerView::default()
    }
}

/// What the gamemode's commands change on players and in the settings.
type Vitals = (
    &'static mut Ledger,
    &'static mut Inventory,
    &'static mut Team,
);

/// What the script view reads of a player's look and HUD values.
type Looks = (
    &'static Appearance,
    &'static Skills,
    &'static Hud,
    Option<&'static NametagColor>,
);

/// The state gamemode commands write (ledger, inventory, team, weapon settings), and the
/// control state and spectate losses the script pass reads (a system has at most 16
/// parameters).
#[derive(bevy_ecs::system::SystemParam)]
pub(crate) struct Gamemode<'w, 's> {
    vitals: Query<'w, 's, Vitals>,
    looks: Query<'w, 's, Looks>,
    ledger: ResMut<'w, LedgerSettings>,
    ranges: ResMut<'w, WeaponRanges>,
    streaming: ResMut<'w, StreamingSettings>,
    commands: Commands<'w, 's>,
    controls: Query<'w, 's, &'static Control>,
    scores: Query<'w, 's, &'static crate::query::Score>,
    spectate_lost: MessageReader<'w, 's, SpectateLost>,
    world: WorldScriptParts<'w, 's>,
}

/// Sends a vital or weapon grant as a normal event (connection.md §3) and, only if the
/// lane took it, stores it with `store`: a raised vital_rev or weapon_rev whose packet
/// never went would keep the frames' echo from ever matching (ADR 0010). The Lua call
/// already said "queue full" for a lane without room.
fn grant(
    connections: &mut Query<&mut Connection>,
    player: Entity,
    packet: impl Into<ServerPacket>,
    store: impl FnOnce(),
) {
    let Ok(mut conn) = connections.get_mut(player) else {
        return;
    };
    if command_owner(&mut conn, packet).is_ok() {
        store();
    }
}

/// Applies the commands the scripts queued this pass, in their order.
fn apply(
    host: &mut ScriptHost,
    connections: &mut Query<&mut Connection>,
    spawn_states: &mut Query<&mut SpawnState>,
    ended: &mut MessageWriter<EndSession>,
    gm: &mut Gamemode,
) {
    for command in host.take_commands() {
        match command {
            ScriptCommand::Message(message) => message.write(&mut gm.commands),
            ScriptCommand::SetHealth { player, value } => {
                set_vital(&mut gm.vitals, connections, player, Vital::Health, value);
            }
            ScriptCommand::SetArmor { player, value } => {
                set_vital(&mut gm.vitals, connections, player, Vital::Armor, value);
            }
            ScriptCommand::GiveWeapon {
                player,
                weapon,
                ammo,
            } => give_weapon(&mut gm.vitals, connections, player, weapon, ammo),
            ScriptCommand::SetTeam { player, group } => set_team(&mut gm.vitals, player, group),
            ScriptCommand::SetTeamDamage(on) => gm.ledger.team_damage = on,
            ScriptCommand::SetWeaponRange { weapon, meters } => {
                gm.ranges.set(weapon, meters);
                gm.streaming.weapon_range = gm.ranges.largest();
            }
            ScriptCommand::SendChat { text, color, to } => {
                send_chat(connections, &to, color, &text);
            }
            ScriptCommand::SpawnPlayer { player, info } => {
                if let Ok(mut state) = spawn_states.get_mut(player) {
                    state.info = Some(info);
                }
            }
            ScriptCommand::Kick { player, reason } => kick(connections, ended, player, &reason),
        }
    }
}

/// Which ledger value a gamemode command sets (connection.md §6, rule 3).
#[derive(Debug, Clone, Copy)]
enum Vital {
    Health,
    Armor,
}

/// `player:set_health` / `set_armor`: GiveHealth / GiveArmor with the next vital_rev;
/// stored once the lane took it.
fn set_vital(
    vitals: &mut Query<Vitals>,
    connections: &mut Query<&mut Connection>,
    player: Entity,
    vital: Vital,
    value: f32,
) {
    let Ok((mut ledger, ..)) = vitals.get_mut(player) else {
        return;
    };
    let vital_rev = ledger.vital_rev.next();
    let event_id = EventId(0);
    let packet: ServerPacket = match vital {
        Vital::Health => GiveHealth {
            event_id,
            health: value,
            vital_rev,
        }
        .into(),
        Vital::Armor => GiveArmor {
            event_id,
            armor: value,
            vital_rev,
        }
        .into(),
    };
    grant(connections, player, packet, || {
        match vital {
            Vital::Health => ledger.health = value,
            Vital::Armor => ledger.armor = value,
        }
        ledger.vital_rev = vital_rev;
    });
}

/// `player:give_weapon`: GiveWeapon with the next weapon_rev; once the lane took it the
/// weapon is held and its ammo added (saturating).
fn give_weapon(
    vitals: &mut Query<Vitals>,
    connections: &mut Query<&mut Connection>,
    player: Entity,
    weapon: u8,
    ammo: u16,
) {
    let Ok((_, mut inv, _)) = vitals.get_mut(player) else {
        return;
    };
    let weapon_rev = inv.weapon_rev.next();
    let packet = GiveWeapon {
        event_id: EventId(0),
        weapon,
        ammo,
        weapon_rev,
    };
    grant(connections, player, packet, || {
        let i = usize::from(weapon);
        inv.held.set(i, true);
        inv.ammo[i] = inv.ammo[i].saturating_add(ammo);
        inv.weapon_rev = weapon_rev;
    });
}

/// `player:set_team`: a new group raises relation_rev; the same group changes nothing.
fn set_team(vitals: &mut Query<Vitals>, player: Entity, group: u32) {
    if let Ok((_, _, mut team)) = vitals.get_mut(player)
        && team.group != group
    {
        team.group = group;
        team.relation_rev = team.relation_rev.wrapping_add(1);
    }
}

/// `dlmp.send_chat`: the line to the players in `to`, whose lane places the call took.
fn send_chat(connections: &mut Query<&mut Connection>, to: &[Entity], color: Color, text: &str) {
    for &player in to {
        if let Ok(mut conn) = connections.get_mut(player) {
            // The call took the place; a refusal here is a bug of the reservation.
            if !say(&mut conn, color, text) {
                debug!(
                    ?player,
                    "send_chat line refused after the call reserved its place"
                );
            }
        }
    }
}

/// `player:kick`: the reason as a notice (if any), then the session ends as Kicked.
fn kick(
    connections: &mut Query<&mut Connection>,
    ended: &mut MessageWriter<EndSession>,
    player: Entity,
    reason: &str,
) {
    if !reason.is_empty()
        && let Ok(mut conn) = connections.get_mut(player)
    {
        notify(&mut conn, &format!("You were kicked: {reason}"));
    }
    debug!(?player, "kicked by a script");
    ended.write(EndSession {
        player,
        leave: LeaveReason::Kicked,
        disconnect: Some(LeaveReason::Kicked),
    });
}
