//! Bans (issue 17; connection.md ConnectRefused reason 4): by address, with who, when, why
//! and until; from the console (`ban`, `unban`, `bans`) and from scripts
//! (`player:ban`, `dlmp.ban_ip`, `dlmp.unban`). The in-memory [`BanList`] is authoritative
//! and mirrored into the session registry's ban set, which the hello gate consults (so a
//! hello never waits on the database); the database row is written behind it
//! ([`BanStore`]). ADR 0032.

pub mod console;
pub mod list;
pub mod script;
pub mod shared;
pub mod store;

use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bevy_app::{App, FixedUpdate, Plugin, Startup};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::{error, info};

pub use list::{Ban, BanList, UnixSeconds};
pub use store::BanStore;

use crate::db::Database;
use dlmp_core::session::{Connection, EndSession, Name, SessionState};
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_player::chat::notify;
use dlmp_protocol::connection::handshake::LeaveReason;

/// The wall clock bans are dated by.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BanClock {
    /// The system clock (a server).
    #[default]
    System,
    /// `start` plus the server clock's elapsed time (the harness's manual clock).
    Virtual { start: UnixSeconds },
}

impl BanClock {
    #[must_use]
    pub fn now(self, elapsed: Duration) -> UnixSeconds {
        match self {
            BanClock::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
            BanClock::Virtual { start } => {
                start.saturating_add(i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
            }
        }
    }
}

/// The bans and their write-behind.
#[derive(Resource, Debug)]
pub struct Bans {
    pub list: BanList,
    pub store: BanStore,
}

/// A ban or unban a script asked for; applied in [`GameplaySystems::Apply`] of the tick.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub enum BanCommand {
    /// `player:ban`: the player's address, with its name.
    Player {
        player: Entity,
        minutes: Option<u32>,
        reason: String,
        by: String,
    },
    /// `dlmp.ban_ip`.
    Address {
        ip: IpAddr,
        minutes: Option<u32>,
        reason: String,
        by: String,
    },
    /// `dlmp.unban(name or ip)`.
    Lift { what: String, by: String },
}

/// This server's name on the bans it makes (`server_id`; ADR 0104).
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct BanServer(pub String);

/// Adds bans. Add it after the session and database plugins. On PostgreSQL the bans are
/// shared with every server of the database (ADR 0104).
pub struct BansPlugin {
    /// This server's name on its bans.
    pub server: String,
}

impl Plugin for BansPlugin {
    fn build(&self, app: &mut App) {
        let client = app.world().get_resource::<Database>().map(Database::client);
        let mut store = BanStore::new(client);
        let postgres = app
            .world()
            .get_resource::<crate::db::DbSettings>()
            .and_then(|s| match &s.target {
                crate::db::DbTarget::Postgres(url) => Some(url.clone()),
                _ => None,
            });
        if let Some(url) = postgres
            && store.has_database()
        {
            match shared::SharedBans::listen(&url) {
                Ok(shared) => store = store.shared(shared),
                Err(e) => error!("bans are not shared with the other servers: {e}"),
            }
        }
        script::register(
            &mut app
                .world_mut()
                .get_resource_or_init::<dlmp_script::ScriptApi>(),
        );
        app.insert_resource(Bans {
            list: BanList::default(),
            store,
        })
        .insert_resource(BanServer(self.server.clone()))
        .init_resource::<BanClock>()
        .add_message::<BanCommand>()
        .add_systems(Startup, load)
        .add_systems(
            FixedUpdate,
            (apply_commands, apply_shared)
                .chain()
                .in_set(GameplaySystems::Apply),
        )
        .add_systems(FixedUpdate, maintain.in_set(ServerSystems::Outbound));
    }
}

/// The current wall time of `world`.
#[must_use]
pub fn now(world: &World) -> UnixSeconds {
    let clock = world
        .get_resource::<BanClock>()
        .copied()
        .unwrap_or_default();
    clock.now(
        world
            .get_resource::<Time>()
            .map_or(Duration::ZERO, Time::elapsed),
    )
}

/// Boot: the table and the bans from the database, mirrored into the session registry.
fn load(world: &mut World) {
    let now = now(world);
    world.resource_scope(|world, mut bans: Mut<Bans>| {
        let loaded = match bans.store.load() {
            Ok(loaded) => loaded,
            Err(e) => {
                error!("bans not loaded from the database (none in force): {e}");
                return;
            }
        };
        let mut state = world.resource_mut::<SessionState>();
        let mut in_force = 0;
        for ban in loaded {
            if ban.expired(now) {
                bans.store.touch(ban.ip);
                continue;
            }
            state.sessions.ban(ban.ip);
            bans.list.insert(ban);
            in_force += 1;
        }
        info!(bans = in_force, "bans loaded");
    });
}

/// Records a ban of `ip`, refuses its hellos from now on, and kicks every player at it
/// with the reason. `name` is the player banned, or empty.
pub fn ban_address(
    world: &mut World,
    ip: IpAddr,
    name: String,
    minutes: Option<u32>,
    reason: String,
    by: String,
) -> Ban {
    let at = now(world);
    let until = minutes.map(|m| at.saturating_add(i64::from(m) * 60));
    let server = world
        .get_resource::<BanServer>()
        .map(|s| s.0.clone())
        .unwrap_or_default();
    let ban = Ban {
        ip: ip.to_canonical(),
        name,
        by,
        reason,
        at,
        until,
        server,
    };
    let ip = ban.ip;
    let recorded = {
        let mut bans = world.resource_mut::<Bans>();
        let recorded = bans.list.insert(ban).clone();
        bans.store.touch(ip);
        recorded
    };
    world.resource_mut::<SessionState>().sessions.ban(ip);
    kick_banned(world, &recorded);
    info!("banned: {}", recorded.describe());
    recorded
}

/// Ends the sessions at a banned address, each told the reason.
fn kick_banned(world: &mut World, ban: &Ban) {
    let ip = ban.ip;
    let notice = if ban.reason.is_empty() {
        "You are banned from this server.".to_owned()
    } else {
        format!("You are banned from this server: {}", ban.reason)
    };
    let at_ip: Vec<Entity> = world
        .query::<(Entity, &Connection)>()
        .iter(world)
        .filter(|(_, c)| c.addr().ip().to_canonical() == ip)
        .map(|(e, _)| e)
        .collect();
    for player in at_ip {
        if let Some(mut conn) = world.get_mut::<Connection>(player) {
            notify(&mut conn, &notice);
        }
        world.write_message(EndSession {
            player,
            leave: LeaveReason::Kicked,
            disconnect: Some(LeaveReason::Kicked),
        });
    }
}

/// Bans the address of connected `player`, recording its name.
pub fn ban_player(
    world: &mut World,
    player: Entity,
    minutes: Option<u32>,
    reason: String,
    by: String,
) -> Option<Ban> {
    let (ip, name) = {
        let entity = world.get_entity(player).ok()?;
        let ip = entity.get::<Connection>()?.addr().ip();
        let name = entity
            .get::<Name>()
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default();
        (ip, name)
    };
    Some(ban_address(world, ip, name, minutes, reason, by))
}

/// Lifts the bans `what` names (an address, or a player name).
pub fn lift(world: &mut World, what: &str, by: &str) -> Vec<Ban> {
    let lifted = {
        let mut bans = world.resource_mut::<Bans>();
        let lifted = bans.list.remove(what);
        for b in &lifted {
            bans.store.touch(b.ip);
        }
        lifted
    };
    let mut state = world.resource_mut::<SessionState>();
    for b in &lifted {
        state.sessions.unban(b.ip);
        info!(by, "unbanned: {}", b.describe());
    }
    lifted
}

/// The scripts' bans of this tick.
fn apply_commands(world: &mut World) {
    let commands: Vec<BanCommand> = world
        .resource_mut::<Messages<BanCommand>>()
        .drain()
        .collect();
    for command in commands {
        match command {
            BanCommand::Player {
                player,
                minutes,
                reason,
                by,
            } => {
                ban_player(world, player, minutes, reason, by);
            }
            BanCommand::Address {
                ip,
                minutes,
                reason,
                by,
            } => {
                ban_address(world, ip, String::new(), minutes, reason, by);
            }
            BanCommand::Lift { what, by } => {
                lift(world, &what, &by);
            }
        }
    }
}

/// The other servers' bans and unbans (a shared PostgreSQL table; ADR 0104): the list is
/// brought to each snapshot of the table, except for the addresses whose own latest change
/// the snapshot may not have seen yet.
fn apply_shared(world: &mut World) {
    let snapshots = world.resource_mut::<Bans>().store.take_snapshots();
    let Some(snapshot) = snapshots.into_iter().last() else {
        return;
    };
    let now = now(world);
    let (added, lifted) = {
        let bans = world.resource::<Bans>();
        let settled = |ip| bans.store.settled(ip, snapshot.read_at);
        let remote: std::collections::BTreeMap<IpAddr, &Ban> =
            snapshot.bans.iter().map(|b| (b.ip, b)).collect();
        let added: Vec<Ban> = snapshot
            .bans
            .iter()
            .filter(|b| !b.expired(now) && settled(b.ip) && bans.list.get(b.ip) != Some(*b))
            .cloned()
            .collect();
        let lifted: Vec<IpAddr> = bans
            .list
            .list()
            .into_iter()
            .filter(|b| !remote.contains_key(&b.ip) && settled(b.ip))
            .map(|b| b.ip)
            .collect();
        (added, lifted)
    };
    for ban in added {
        world.resource_mut::<Bans>().list.insert(ban.clone());
        world.resource_mut::<SessionState>().sessions.ban(ban.ip);
        kick_banned(world, &ban);
        info!("banned on {}: {}", ban.server, ban.describe());
    }
    for ip in lifted {
        let gone = world.resource_mut::<Bans>().list.remove(&ip.to_string());
        world.resource_mut::<SessionState>().sessions.unban(ip);
        for b in gone {
            info!("unbanned on another server: {}", b.describe());
        }
    }
}

/// Lifts the bans whose time is up and writes the changed rows behind.
/// Expiry is checked once a second.
fn maintain(
    time: Res<Time>,
    clock: Res<BanClock>,
    mut bans: ResMut<Bans>,
    mut state: ResMut<SessionState>,
    mut checked: Local<Option<UnixSeconds>>,
) {
    let now = clock.now(time.elapsed());
    let Bans { list, store } = &mut *bans;
    let expired = if *checked == Some(now) {
        Vec::new()
    } else {
        list.expire(now)
    };
    *checked = Some(now);
    for ban in expired {
        state.sessions.unban(ban.ip);
        store.touch(ban.ip);
        info!("ban expired: {}", ban.describe());
    }
    store.flush(list, time.elapsed());
}
