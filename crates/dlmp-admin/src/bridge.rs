//! The tick's side of the panel (ADR 0100), like the network thread's: the HTTP threads
//! hand admin actions over a bounded channel that the tick drains without waiting, and
//! read a [`Snapshot`] the tick publishes about once a second (and right after an action)
//! through a `watch` channel, which never blocks its sender.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use tokio::sync::{oneshot, watch};
use tracing::info;

use crate::history::History;
use crate::snapshot::{BanRow, Health, PlayerRow, ResourceRow, Snapshot, VehicleRow};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Name, Player, PlayerIndex, SessionSettings};
use dlmp_core::tick::{ServerSystems, Transport};
use dlmp_core::vehicle::{Pose, Seated};
use dlmp_ops::bans::{self, Bans};
use dlmp_ops::logs::CHAT_LOG;
use dlmp_ops::restart::{DailyTime, RestartSchedule};
use dlmp_player::{Ledger, Life};
use dlmp_script::ScriptHost;
use dlmp_vehicle::{Seats, Vehicle, VehicleModels, VehicleScope};

/// Actions waiting for the tick, all admins together; one more is refused as busy.
pub const QUEUE: usize = 64;
/// Actions one tick runs at most.
const PER_TICK: usize = 16;

/// A resource command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceOp {
    Start,
    Stop,
    Restart,
}

impl ResourceOp {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceOp::Start => "start",
            ResourceOp::Stop => "stop",
            ResourceOp::Restart => "restart",
        }
    }
}

/// What an admin asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A console line, run as stdin's are.
    Console(String),
    Kick {
        id: u32,
        reason: String,
    },
    /// The address of a connected player.
    Ban {
        id: u32,
        minutes: Option<u32>,
        reason: String,
    },
    BanAddress {
        ip: IpAddr,
        minutes: Option<u32>,
        reason: String,
    },
    Unban {
        ip: IpAddr,
    },
    Resource {
        op: ResourceOp,
        name: String,
    },
    /// The daily restart time, or none.
    SetRestart(Option<DailyTime>),
}

/// An action with who asked and where the answer goes.
#[derive(Debug)]
pub struct Request {
    pub admin: String,
    pub action: Action,
    pub reply: oneshot::Sender<Vec<String>>,
}

/// The HTTP side's ends.
#[derive(Debug, Clone)]
pub struct Link {
    requests: Sender<Request>,
    pub snapshots: watch::Receiver<Arc<Snapshot>>,
}

impl Link {
    /// Hands `action` to the tick; the answer comes on the returned channel. `None` when
    /// the queue is full or the server is gone.
    pub fn ask(&self, admin: &str, action: Action) -> Option<oneshot::Receiver<Vec<String>>> {
        let (reply, answer) = oneshot::channel();
        match self.requests.try_send(Request {
            admin: admin.to_owned(),
            action,
            reply,
        }) {
            Ok(()) => Some(answer),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => None,
        }
    }

    /// The latest snapshot.
    #[must_use]
    pub fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.snapshots.borrow())
    }
}

/// The HTTP side's link, kept in the world by the assembly until the HTTP server starts
/// with it.
#[derive(Resource, Debug, Clone)]
pub struct AdminLink(pub Link);

/// The plugin and the HTTP side's link to it.
#[must_use]
pub fn channel(server_name: &str) -> (AdminPlugin, Link) {
    let (requests, inbox) = bounded(QUEUE);
    let first = Snapshot {
        server_name: server_name.to_owned(),
        ..Snapshot::default()
    };
    let (publish, snapshots) = watch::channel(Arc::new(first));
    (
        AdminPlugin {
            inbox,
            publish: Arc::new(publish),
        },
        Link {
            requests,
            snapshots,
        },
    )
}

/// Runs the admins' actions and publishes the snapshots.
pub struct AdminPlugin {
    inbox: Receiver<Request>,
    publish: Arc<watch::Sender<Arc<Snapshot>>>,
}

/// The tick's end of the channels.
#[derive(Resource)]
struct Bridge {
    inbox: Receiver<Request>,
    publish: Arc<watch::Sender<Arc<Snapshot>>>,
    history: History,
    started: Option<Instant>,
    last_second: Option<i64>,
    version: u64,
}

impl Plugin for AdminPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Bridge {
            inbox: self.inbox.clone(),
            publish: Arc::clone(&self.publish),
            history: History::default(),
            started: None,
            last_second: None,
            version: 0,
        })
        .add_systems(FixedUpdate, tick_started.before(ServerSystems::Ingest))
        .add_systems(FixedUpdate, run_actions.in_set(ServerSystems::Ingest))
        .add_systems(FixedUpdate, tick_ended.after(ServerSystems::Outbound));
    }
}

fn tick_started(mut bridge: ResMut<Bridge>) {
    bridge.started = Some(Instant::now());
}

/// Records the tick's time; each new second of the wall clock, publishes.
fn tick_ended(world: &mut World) {
    let second = bans::now(world);
    let publish = world.resource_scope(|_, mut bridge: Mut<Bridge>| {
        if let Some(started) = bridge.started.take() {
            bridge.history.record_tick(started.elapsed());
        }
        let new = bridge.last_second != Some(second);
        if new {
            if bridge.last_second.is_some() {
                bridge.history.close_second(second);
            }
            bridge.last_second = Some(second);
        }
        new
    });
    if publish {
        publish_snapshot(world);
    }
}

/// Runs what the admins asked, at most [`PER_TICK`] a tick, never waiting for more.
fn run_actions(world: &mut World) {
    let requests: Vec<Request> = world
        .resource::<Bridge>()
        .inbox
        .try_iter()
        .take(PER_TICK)
        .collect();
    if requests.is_empty() {
        return;
    }
    for request in requests {
        let lines = act(world, &request.admin, request.action);
        // An admin who stopped waiting lost nothing the log does not keep.
        let _ = request.reply.send(lines);
    }
    publish_snapshot(world);
}

/// The entity of the connected player `id`.
fn player(world: &mut World, id: u32) -> Option<Entity> {
    world
        .query::<(Entity, &Player)>()
        .iter(world)
        .find(|(_, p)| p.id.0 == id)
        .map(|(e, _)| e)
}

fn act(world: &mut World, admin: &str, action: Action) -> Vec<String> {
    match action {
        Action::Console(line) => dlmp_ops::console::execute_as(world, admin, &line),
        Action::Kick { id, reason } => {
            dlmp_ops::console::execute_as(world, admin, &format!("kick {id} {reason}"))
        }
        Action::Ban {
            id,
            minutes,
            reason,
        } => {
            let Some(entity) = player(world, id) else {
                return vec![format!("error: no player with id {id}")];
            };
            info!(target: CHAT_LOG, who = admin, "admin: ban player {id} minutes={minutes:?} reason={reason:?}");
            match bans::ban_player(world, entity, minutes, reason, admin.to_owned()) {
                Some(ban) => vec![format!("banned {}", ban.describe())],
                None => vec![format!("error: player {id} has no connection")],
            }
        }
        Action::BanAddress {
            ip,
            minutes,
            reason,
        } => {
            info!(target: CHAT_LOG, who = admin, "admin: ban address {ip} minutes={minutes:?} reason={reason:?}");
            let ban =
                bans::ban_address(world, ip, String::new(), minutes, reason, admin.to_owned());
            vec![format!("banned {}", ban.describe())]
        }
        Action::Unban { ip } => dlmp_ops::console::execute_as(world, admin, &format!("unban {ip}")),
        Action::Resource { op, name } => {
            dlmp_ops::console::execute_as(world, admin, &format!("{} {name}", op.as_str()))
        }
        Action::SetRestart(daily) => {
            dlmp_ops::restart::set_daily(world, daily, admin);
            vec![match daily {
                Some(d) => format!("the server restarts every day at {d}"),
                None => "no daily restart".to_owned(),
            }]
        }
    }
}

fn publish_snapshot(world: &mut World) {
    let mut snapshot = snapshot(world);
    world.resource_scope(|_, mut bridge: Mut<Bridge>| {
        bridge.version += 1;
        snapshot.version = bridge.version;
        snapshot.health.history = bridge.history.samples();
        bridge.publish.send_replace(Arc::new(snapshot));
    });
}

fn snapshot(world: &mut World) -> Snapshot {
    let now = bans::now(world);
    let players = players(world);
    let vehicles = vehicles(world);
    let (resources, script_errors) = match world.get_non_send::<ScriptHost>() {
        Some(host) => (
            host.available()
                .into_iter()
                .map(|(name, running)| ResourceRow {
                    errors: host.recent_errors(&name),
                    name,
                    running,
                })
                .collect(),
            host.errors(),
        ),
        None => (Vec::new(), 0),
    };
    let (bans, bans_unconfirmed) = world.get_resource::<Bans>().map_or_else(
        || (Vec::new(), 0),
        |b| {
            let rows = b
                .list
                .list()
                .into_iter()
                .filter(|ban| !ban.expired(now))
                .map(|ban| BanRow {
                    ip: ban.ip.to_string(),
                    name: ban.name.clone(),
                    by: ban.by.clone(),
                    reason: ban.reason.clone(),
                    at: bans::list::utc(ban.at),
                    until: ban.until.map(bans::list::utc),
                    server: ban.server.clone(),
                })
                .collect();
            (rows, b.store.unconfirmed())
        },
    );
    let (datagrams_in, datagrams_out) = world
        .get_resource::<Transport>()
        .map_or((0, 0), |t| (t.stats.received_count(), t.stats.sent_count()));
    let restart = world.get_resource::<RestartSchedule>();
    let server_name = world
        .get_resource::<dlmp_ops::query::ServerIdentity>()
        .map(|i| i.name.clone())
        .unwrap_or_default();
    Snapshot {
        version: 0,
        server_name,
        health: Health {
            players: world
                .get_resource::<PlayerIndex>()
                .map_or(0, PlayerIndex::len),
            max_players: world
                .get_resource::<SessionSettings>()
                .map_or(0, |s| s.max_players),
            datagrams_in,
            datagrams_out,
            script_errors,
            db_queue: world
                .get_resource::<dlmp_ops::db::Database>()
                .map_or(0, dlmp_ops::db::Database::queued),
            uptime_secs: world
                .get_resource::<Time>()
                .map_or(0, |t| t.elapsed().as_secs()),
            history: Vec::new(),
        },
        players,
        vehicles,
        resources,
        bans,
        restart_daily: restart.and_then(|r| r.daily()).map(|d| d.to_string()),
        restart_next: restart.and_then(RestartSchedule::next).map(bans::list::utc),
        bans_unconfirmed,
    }
}

/// What a player row reads of a player.
type PlayerData = (
    &'static Player,
    &'static Name,
    &'static Connection,
    Option<&'static Life>,
    Option<&'static Ledger>,
    Option<&'static Position>,
    Option<&'static Scope>,
    Option<&'static Seated>,
);

fn players(world: &mut World) -> Vec<PlayerRow> {
    let mut rows: Vec<PlayerRow> = world
        .query::<PlayerData>()
        .iter(world)
        .map(|(p, name, conn, life, ledger, position, scope, seated)| {
            let scope = scope.copied().unwrap_or_default();
            PlayerRow {
                id: p.id.0,
                name: name.as_str().to_owned(),
                address: conn.addr().to_string(),
                ping_ms: conn
                    .ping()
                    .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                state: match life {
                    Some(l) if l.spawned && l.alive => "alive",
                    Some(l) if l.spawned => "dead",
                    _ => "not spawned",
                },
                health: ledger.map(|l| l.health),
                armor: ledger.map(|l| l.armor),
                position: position.map(|p| [p.0.x, p.0.y, p.0.z]),
                virtual_world: scope.virtual_world,
                interior: scope.interior,
                vehicle: seated.map(|s| s.id.0),
            }
        })
        .collect();
    rows.sort_by_key(|r| r.id);
    rows
}

fn vehicles(world: &mut World) -> Vec<VehicleRow> {
    let models = world
        .get_resource::<VehicleModels>()
        .cloned()
        .unwrap_or_default();
    let list: Vec<(Vehicle, Pose, VehicleScope, Seats)> = world
        .query::<(&Vehicle, &Pose, &VehicleScope, &Seats)>()
        .iter(world)
        .map(|(v, p, s, seats)| (*v, *p, *s, seats.clone()))
        .collect();
    let mut rows: Vec<VehicleRow> = list
        .into_iter()
        .map(|(v, pose, scope, seats)| VehicleRow {
            id: v.id.0,
            model: v.model,
            model_name: models
                .get(v.model)
                .map_or_else(String::new, |m| m.name.clone()),
            position: [pose.position.x, pose.position.y, pose.position.z],
            virtual_world: scope.0.virtual_world,
            interior: scope.0.interior,
            driver: seats
                .driver()
                .and_then(|d| world.get::<Name>(d.entity))
                .map(|n| n.as_str().to_owned()),
        })
        .collect();
    rows.sort_by_key(|r| r.id);
    rows
}

/// How long an HTTP handler waits for the tick's answer.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(5);
