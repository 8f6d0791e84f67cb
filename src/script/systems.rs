//! The scripts in the app: the VM as non-send data, boot-time resource starts, and one
//! pass per tick in [`GameplaySystems::Scripts`]: refresh the view, raise the tick's
//! events, fire timers, apply the commands.

use std::path::PathBuf;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin, Startup};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::{debug, error};

use super::api::player::LuaPlayer;
use super::events::{ScriptEvent, reason_name};
use super::host::ScriptHost;
use super::ownership::{ResourceStopped, despawn_owned};
use super::state::{PlayerView, ScriptCommand};
use crate::chat::{PendingChat, notify, say};
use crate::player::animation::CurrentAnimation;
use crate::player::control::{Control, SpectateLost};
use crate::player::frame::keys::KEY_NAMES;
use crate::player::frame::{FrameEvent, FrameState, aim_holds};
use crate::player::ledger::{LedgerEvent, LedgerSettings, WeaponRanges};
use crate::player::{Appearance, Hud, Inventory, Ledger, Skills, Team, command_owner};
use crate::player::{
    Body, Life, Position, RespawnGranted, Scope, SpawnGranted, SpawnState, Viewers,
};
use crate::protocol::ServerPacket;
use crate::protocol::connection::handshake::LeaveReason;
use crate::protocol::connection::weapons::{GiveArmor, GiveHealth, GiveWeapon};
use crate::protocol::ids::EventId;
use crate::serial::Serial;
use crate::server::{GameplaySystems, ServerShutdown};
use crate::session::{Connection, EndSession, Name, Player, PlayerConnected, PlayerDisconnected};
use crate::streaming::StreamChange;
use crate::streaming::StreamingSettings;

/// Script settings.
#[derive(Resource, Debug, Clone)]
pub struct ScriptSettings {
    /// The resources folder. Default `scripts/`.
    pub scripts: PathBuf,
    /// Resources started at boot; empty = every resource in the folder.
    pub resources: Vec<String>,
    /// Lua instructions one call may run before it is cut off. Default 5 000 000.
    pub instruction_budget: u64,
}

impl Default for ScriptSettings {
    fn default() -> Self {
        ScriptSettings {
            scripts: PathBuf::from("scripts"),
            resources: Vec::new(),
            instruction_budget: 5_000_000,
        }
    }
}

/// Adds the Lua VM and its systems.
pub struct ScriptPlugin {
    pub settings: ScriptSettings,
}

impl Plugin for ScriptPlugin {
    fn build(&self, app: &mut App) {
        match ScriptHost::new(
            self.settings.scripts.clone(),
            self.settings.instruction_budget,
        ) {
            Ok(host) => {
                app.insert_non_send(host);
            }
            Err(e) => {
                error!("the Lua VM did not start: {e}");
                return;
            }
        }
        app.insert_resource(self.settings.clone())
            .add_message::<ResourceStopped>()
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

/// The whole script pass of a tick.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn run_scripts(
    mut host: NonSendMut<ScriptHost>,
    time: Res<Time>,
    mut pending: ResMut<PendingChat>,
    players: Query<PlayerParts>,
    mut connected: MessageReader<PlayerConnected>,
    mut spawned: LifeStarts,
    mut frame_events: MessageReader<FrameEvent>,
    mut ledger_events: MessageReader<LedgerEvent>,
    mut disconnected: MessageReader<PlayerDisconnected>,
    mut shutdown: MessageReader<ServerShutdown>,
    mut streamed: MessageReader<StreamChange>,
    mut connections: Query<&mut Connection>,
    mut spawn_states: Query<&mut SpawnState>,
    mut ended: MessageWriter<EndSession>,
    mut last_tick: Local<Option<Duration>>,
    mut gm: Gamemode,
) {
    let now = time.elapsed();
    let left: Vec<&PlayerDisconnected> = disconnected.read().collect();
    refresh_view(&host, now, &players, &gm.vitals, &gm.looks, &left);
    {
        let mut state = host.state_mut();
        for (entity, view) in state.players.iter_mut() {
            let frame = players.get(*entity).ok().and_then(|(.., f, _, _)| f);
            super::api::movement::fill_view(
                view,
                frame,
                spawn_states.get(*entity).ok(),
                connections.get(*entity).ok(),
            );
        }
    }
    refresh_control_view(&host, &gm.controls);

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
    events.extend(connected.read().map(|c| ScriptEvent::PlayerConnect {
        player: LuaPlayer {
            entity: c.player,
            token: c.token,
        },
    }));
    events.extend(
        spawned
            .read()
            .filter_map(|player| players.get(player).ok())
            .map(|(entity, player, ..)| ScriptEvent::PlayerSpawn {
                player: handle(entity, player),
            }),
    );
    events.extend(
        frame_events
            .read()
            .filter_map(|e| script_event(e, &players)),
    );
    events.extend(
        ledger_events
            .read()
            .filter_map(|e| ledger_event(e, &players)),
    );
    events.extend(streamed.read().filter_map(|c| stream_event(c, &players)));
    events.extend(
        gm.spectate_lost
            .read()
            .filter_map(|l| spectate_lost_event(l, &players)),
    );
    for event in &events {
        host.emit(event);
    }
    host.state_mut().players.retain(|_, view| view.connected);

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
        let event = ScriptEvent::PlayerCommand {
            player: handle(entity, player),
            name: command.call.name.clone(),
            args: command
                .call
                .args
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        };
        command.handled |= host.emit(&event).handled;
    }
    if shutdown.read().next().is_some() {
        host.emit(&ScriptEvent::ServerShutdown {});
    }

    host.run_timers(now);
    if host.listens("tick") {
        let dt = last_tick.map_or(Duration::ZERO, |last| now.saturating_sub(last));
        host.emit(&ScriptEvent::Tick {
            dt_ms: dt.as_secs_f64() * 1000.0,
        });
    }
    *last_tick = Some(now);

    apply(
        &mut host,
        &mut connections,
        &mut spawn_states,
        &mut ended,
        &mut gm,
    );
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

/// The control state of the players in the view (freeze, camera, life confirmed).
fn refresh_control_view(host: &ScriptHost, controls: &Query<&Control>) {
    let mut state = host.state_mut();
    for (entity, view) in &mut state.players {
        if let Ok(control) = controls.get(*entity) {
            view.frozen = control.frozen;
            view.camera = control.camera;
        }
    }
}

/// Rebuilds the players scripts see: everyone connected, plus those who left this tick
/// (for their `player_disconnect`).
fn refresh_view(
    host: &ScriptHost,
    now: Duration,
    players: &Query<PlayerParts>,
    vitals: &Query<Vitals>,
    looks: &Query<Looks>,
    left: &[&PlayerDisconnected],
) {
    let mut state = host.state_mut();
    state.now = now;
    state.players.clear();
    for (entity, player, name, life, position, scope, body, frame_state, _, animation) in players {
        let life = life.copied().unwrap_or_default();
        let body = body.copied().unwrap_or_default();
        let frozen = frame_state.is_some_and(|s| s.frozen.is_some());
        let target = frame_state.and_then(|s| s.aim).filter(|aim| {
            players
                .get(aim.entity)
                .is_ok_and(|(_, tp, _, tl, _, _, _, _, tv, _)| {
                    tp.token == aim.token
                        && tl.is_some_and(|tl| {
                            tv.is_some_and(|tv| aim_holds((player, &life, &body), frozen, (tl, tv)))
                        })
                })
        });
        let scope = scope.copied().unwrap_or_default();
        state.players.insert(
            entity,
            PlayerView {
                id: player.id,
                token: player.token,
                name: name.as_str().to_owned(),
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
                target: target.map(|aim| (aim.entity, aim.token)),
                connected: true,
                health: vitals.get(entity).map_or(0.0, |(l, ..)| l.health),
                armor: vitals.get(entity).map_or(0.0, |(l, ..)| l.armor),
                team: vitals.get(entity).map_or(0, |(.., t)| t.group),
                appearance: looks.get(entity).map(|(a, ..)| *a).unwrap_or_default(),
                skills: looks.get(entity).map(|(_, s, _)| *s).unwrap_or_default(),
                hud: looks.get(entity).map(|(.., h)| *h).unwrap_or_default(),
                animation: animation
                    .and_then(|a| a.playing(now))
                    .copied()
                    .filter(|_| life.alive),
                special_action: body.special_action,
                ..PlayerView::default()
            },
        );
    }
    for d in left {
        state.players.insert(
            d.player,
            PlayerView {
                id: d.id,
                token: d.token,
                name: d.name.as_str().to_owned(),
                connected: false,
                ..PlayerView::default()
            },
        );
    }
}

/// What the gamemode's commands change on players and in the settings.
type Vitals = (
    &'static mut Ledger,
    &'static mut Inventory,
    &'static mut Team,
);

/// What the script view reads of a player's look and HUD values.
type Looks = (&'static Appearance, &'static Skills, &'static Hud);

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
    spectate_lost: MessageReader<'w, 's, SpectateLost>,
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
                if let Ok((mut ledger, ..)) = gm.vitals.get_mut(player) {
                    let vital_rev = ledger.vital_rev.next();
                    let packet = GiveHealth {
                        event_id: EventId(0),
                        health: value,
                        vital_rev,
                    };
                    grant(connections, player, packet, || {
                        ledger.health = value;
                        ledger.vital_rev = vital_rev;
                    });
                }
            }
            ScriptCommand::SetArmor { player, value } => {
                if let Ok((mut ledger, ..)) = gm.vitals.get_mut(player) {
                    let vital_rev = ledger.vital_rev.next();
                    let packet = GiveArmor {
                        event_id: EventId(0),
                        armor: value,
                        vital_rev,
                    };
                    grant(connections, player, packet, || {
                        ledger.armor = value;
                        ledger.vital_rev = vital_rev;
                    });
                }
            }
            ScriptCommand::GiveWeapon {
                player,
                weapon,
                ammo,
            } => {
                if let Ok((_, mut inv, _)) = gm.vitals.get_mut(player) {
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
            }
            ScriptCommand::SetTeam { player, group } => {
                if let Ok((_, _, mut team)) = gm.vitals.get_mut(player)
                    && team.group != group
                {
                    team.group = group;
                    team.relation_rev = team.relation_rev.wrapping_add(1);
                }
            }
            ScriptCommand::SetTeamDamage(on) => gm.ledger.team_damage = on,
            ScriptCommand::SetWeaponRange { weapon, meters } => {
                gm.ranges.set(weapon, meters);
                gm.streaming.weapon_range = gm.ranges.largest();
            }
            ScriptCommand::SendChat {
                text,
                color,
                to: None,
            } => {
                for mut conn in connections.iter_mut() {
                    say(&mut conn, color, &text);
                }
            }
            ScriptCommand::SendChat {
                text,
                color,
                to: Some(to),
            } => {
                for player in to {
                    if let Ok(mut conn) = connections.get_mut(player) {
                        say(&mut conn, color, &text);
                    }
                }
            }
            ScriptCommand::SpawnPlayer { player, info } => {
                if let Ok(mut state) = spawn_states.get_mut(player) {
                    state.info = Some(info);
                }
            }
            ScriptCommand::Kick { player, reason } => {
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
        }
    }
}
