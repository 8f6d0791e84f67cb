//! The server console: commands typed on stdin (`help`, `resources`, `start`, `stop`,
//! `restart`, `players`, `say`, `kick`, `stats`, `quit`).
//!
//! [`execute`] is the whole command language: it takes the world and one line and returns
//! the lines to print, so tests call it directly. [`ConsolePlugin`] is the thin adapter: a
//! thread blocks on stdin and hands each line over a channel; an exclusive system in
//! [`ServerSystems::Ingest`] takes what arrived (never waiting) and runs it. Only the binary
//! adds the plugin; the test harness never reads stdin (`tests/console.rs` drives
//! [`execute`] through it).

mod environment;
mod reload;
mod vehicles;

pub use reload::ConfigFile;

use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};
use crossbeam_channel::{Receiver, Sender, bounded};
use tracing::{error, info};

use dlmp_core::session::{Connection, EndSession, Name, Player, PlayerIndex, SessionSettings};
use dlmp_core::tick::{ServerSystems, ShutdownFlag, Transport};
use dlmp_player::animation::AnimationDrops;
use dlmp_player::chat::{notify, say};
use dlmp_player::frame::FrameDrops;
use dlmp_player::ledger::{FrozenContactDrops, PreviousLifeDrops};
use dlmp_player::relay::RelayStats;
use dlmp_player::respawn::RespawnDrops;
use dlmp_player::shots::ShotDrops;
use dlmp_player::spawn::SpawnRequestDrops;
use dlmp_protocol::connection::chat::Color;
use dlmp_protocol::connection::handshake::LeaveReason;
use dlmp_protocol::ids::PlayerId;
use dlmp_script::{ResourceError, ScriptHost, ScriptSettings};

/// The color of a `say` line. Gold.
pub const SAY_COLOR: Color = Color(0x00FF_D75F);
/// What a `say` line starts with.
pub const SAY_PREFIX: &str = "* Server: ";
/// Console lines run in one tick at most; the rest wait for the next tick.
const LINES_PER_TICK: usize = 32;
/// Lines read ahead of the app before the reader thread waits.
const QUEUE: usize = 256;

/// Every command: usage and what it does (the `help` output).
const COMMANDS: &[(&str, &str)] = &[
    ("help", "this list"),
    ("resources", "every resource on disk and whether it runs"),
    ("start NAME", "start a resource (and what it depends on)"),
    ("stop NAME", "stop a resource (and what depends on it)"),
    (
        "restart NAME",
        "stop a resource and start it again from disk",
    ),
    ("players", "connected players: id, name, address"),
    (
        "vehicles",
        "every vehicle: id, model, driver, seats taken, health, scope, position",
    ),
    (
        "destroy ID",
        "remove a vehicle as dlmp.destroy_vehicle does (occupants out, then hidden)",
    ),
    ("say TEXT", "a chat line to every player"),
    (
        "kick ID|NAME [REASON]",
        "end a player's session (reason: kicked)",
    ),
    (
        "ban ID|NAME|IP [MINUTES] [REASON]",
        "ban an address (a player's, with its name); kicks who is on it",
    ),
    ("unban NAME|IP", "lift the bans of a name or an address"),
    (
        "bans",
        "every ban: address, name, by whom, when, until, why",
    ),
    (
        "stats",
        "traffic, drops, players, script errors, gameplay drops",
    ),
    ("time HH:MM", "freeze every player's clock at HH:MM"),
    ("weather ID", "the server's weather, 0..=22"),
    (
        "reload",
        "apply the config file's reloadable settings again",
    ),
    ("quit", "disconnect every player and stop the server"),
];

/// Runs one console line against the world and returns the lines to print. An empty line
/// prints nothing; mistakes (unknown command, unknown resource or player) are reported as
/// lines, never as a panic. Effects on clients go out at the next Outbound pass.
pub fn execute(world: &mut World, line: &str) -> Vec<String> {
    execute_as(world, "console", line)
}

/// [`execute`] on behalf of `who` (an admin of the web panel): the command log and the
/// bans name them.
pub fn execute_as(world: &mut World, who: &str, line: &str) -> Vec<String> {
    let line = line.trim();
    if line.is_empty() {
        return Vec::new();
    }
    tracing::info!(target: crate::logs::CHAT_LOG, who, "command: {line}");
    let (command, args) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(c, a)| (c, a.trim()));
    match command.to_ascii_lowercase().as_str() {
        "help" => help(),
        "resources" => resources(world),
        "start" => resource_op(world, Op::Start, args),
        "stop" => resource_op(world, Op::Stop, args),
        "restart" => resource_op(world, Op::Restart, args),
        "players" => players(world),
        "vehicles" => vehicles::vehicles(world),
        "destroy" => vehicles::destroy(world, args),
        "say" => say_all(world, args),
        "kick" => kick(world, who, args),
        "ban" => {
            crate::bans::console::ban(world, who, args, |w, t| find_player(w, t).map(|(.., e)| e))
        }
        "unban" => crate::bans::console::unban(world, who, args),
        "bans" => crate::bans::console::bans(world),
        "stats" => stats(world),
        "time" => environment::time(world, args),
        "weather" => environment::weather(world, args),
        "reload" => reload::reload(world),
        "quit" => quit(world),
        _ => vec![
            format!("unknown command: {command}"),
            "type `help` for the list of commands".to_owned(),
        ],
    }
}

fn help() -> Vec<String> {
    let width = COMMANDS.iter().map(|(u, _)| u.len()).max().unwrap_or(0);
    std::iter::once("commands:".to_owned())
        .chain(
            COMMANDS
                .iter()
                .map(|(usage, what)| format!("  {usage:<width$}  {what}")),
        )
        .collect()
}

fn usage(command: &str) -> Vec<String> {
    let usage = COMMANDS
        .iter()
        .find(|(u, _)| u.split(' ').next() == Some(command))
        .map_or(command, |(u, _)| u);
    vec![format!("usage: {usage}")]
}

const NO_SCRIPTS: &str = "error: scripting is unavailable (the Lua VM did not start)";

fn resources(world: &mut World) -> Vec<String> {
    let Some(host) = world.get_non_send::<ScriptHost>() else {
        return vec![NO_SCRIPTS.to_owned()];
    };
    let available = host.available();
    if available.is_empty() {
        let folder = world
            .get_resource::<ScriptSettings>()
            .map_or_else(String::new, |s| format!(" in {}", s.scripts.display()));
        return vec![format!("no resources{folder}")];
    }
    let width = available.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let running = available.iter().filter(|(_, on)| *on).count();
    std::iter::once(format!("{} resources, {running} running:", available.len()))
        .chain(available.iter().map(|(name, on)| {
            let state = if *on { "running" } else { "stopped" };
            format!("  {name:<width$}  {state}")
        }))
        .collect()
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Start,
    Stop,
    Restart,
}

/// Starts, stops or restarts one resource and reports every resource whose state changed
/// (dependencies started with it, dependents stopped with it).
fn resource_op(world: &mut World, op: Op, args: &str) -> Vec<String> {
    let command = match op {
        Op::Start => "start",
        Op::Stop => "stop",
        Op::Restart => "restart",
    };
    let mut words = args.split_whitespace();
    let (Some(name), None) = (words.next(), words.next()) else {
        return usage(command);
    };
    let Some(mut host) = world.get_non_send_mut::<ScriptHost>() else {
        return vec![NO_SCRIPTS.to_owned()];
    };
    let before: Vec<String> = host.running().map(str::to_owned).collect();
    let result: Result<(), ResourceError> = match op {
        Op::Start => host.start(name),
        Op::Stop => host.stop(name),
        Op::Restart => host.restart(name),
    };
    let after: Vec<String> = host.running().map(str::to_owned).collect();
    let mut out = Vec::new();
    if result.is_ok() && matches!(op, Op::Restart) {
        out.push(format!("restarted {name}"));
    }
    for gone in before.iter().filter(|n| !after.contains(n)) {
        out.push(format!("stopped {gone}"));
    }
    for new in after.iter().filter(|n| !before.contains(n)) {
        out.push(format!("started {new}"));
    }
    if let Err(e) = result {
        out.push(format!("error: {e}"));
    }
    out
}

/// Connected players in id order: id, name, address.
fn player_list(world: &mut World) -> Vec<(PlayerId, String, std::net::SocketAddr, Entity)> {
    let mut list: Vec<_> = world
        .query::<(Entity, &Player, &Name, &Connection)>()
        .iter(world)
        .map(|(e, p, n, c)| (p.id, n.as_str().to_owned(), c.addr(), e))
        .collect();
    list.sort_by_key(|(id, ..)| id.0);
    list
}

fn players(world: &mut World) -> Vec<String> {
    let list = player_list(world);
    if list.is_empty() {
        return vec!["no players connected".to_owned()];
    }
    let mut rows = vec![[
        "id".to_owned(),
        "name".to_owned(),
        "address".to_owned(),
        "ping".to_owned(),
        "state".to_owned(),
        "health".to_owned(),
        "position".to_owned(),
    ]];
    for (id, name, addr, e) in list {
        let ping = world
            .get::<Connection>(e)
            .and_then(Connection::ping)
            .map_or_else(|| "-".to_owned(), |d| format!("{} ms", d.as_millis()));
        let state = match world.get::<dlmp_player::Life>(e) {
            Some(l) if l.spawned && l.alive => "alive",
            Some(l) if l.spawned => "dead",
            _ => "not spawned",
        };
        let health = world.get::<dlmp_player::Ledger>(e).map_or_else(
            || "-".to_owned(),
            |l| format!("{:.0} / {:.0}", l.health, l.armor),
        );
        let position = world.get::<dlmp_core::position::Position>(e).map_or_else(
            || "-".to_owned(),
            |p| format!("{:.1} {:.1} {:.1}", p.0.x, p.0.y, p.0.z),
        );
        rows.push([
            id.0.to_string(),
            name,
            addr.to_string(),
            ping,
            state.to_owned(),
            health,
            position,
        ]);
    }
    let count = rows.len() - 1;
    std::iter::once(format!("{}:", count_players(count)))
        .chain(columns(&rows))
        .collect()
}

/// `rows` as aligned columns, two spaces apart (the last column unpadded).
pub(crate) fn columns<const N: usize>(rows: &[[String; N]]) -> Vec<String> {
    let mut widths = [0usize; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    rows.iter()
        .map(|row| {
            let mut line = String::from(" ");
            for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                line.push(' ');
                line.push_str(cell);
                if i + 1 < N {
                    line.push_str(&" ".repeat(w - cell.chars().count() + 1));
                }
            }
            line
        })
        .collect()
}

fn say_all(world: &mut World, text: &str) -> Vec<String> {
    if text.is_empty() {
        return usage("say");
    }
    let line = format!("{SAY_PREFIX}{text}");
    let (mut heard, mut missed) = (0, 0);
    for mut conn in world.query::<&mut Connection>().iter_mut(world) {
        if say(&mut conn, SAY_COLOR, &line) {
            heard += 1;
        } else {
            missed += 1;
        }
    }
    info!(players = heard, missed, "console: {line}");
    let mut out = vec![line];
    // A broadcast reaches every lane with room; the admin learns who missed it (ADR 0020).
    if missed > 0 {
        out.push(format!("{} missed it (queue full)", count_players(missed)));
    }
    out
}

/// The player `target` names: a player id, else a name (case-insensitive, as names are
/// unique that way).
fn find_player(world: &mut World, target: &str) -> Option<(PlayerId, String, Entity)> {
    let list = player_list(world);
    let by_id = target
        .parse::<u32>()
        .ok()
        .and_then(|id| list.iter().find(|(pid, ..)| pid.0 == id));
    by_id
        .or_else(|| {
            list.iter()
                .find(|(_, name, ..)| name.eq_ignore_ascii_case(target))
        })
        .map(|(id, name, _, entity)| (*id, name.clone(), *entity))
}

fn kick(world: &mut World, who: &str, args: &str) -> Vec<String> {
    let (target, reason) = args
        .split_once(char::is_whitespace)
        .map_or((args, ""), |(t, r)| (t, r.trim()));
    if target.is_empty() {
        return usage("kick");
    }
    let Some((id, name, player)) = find_player(world, target) else {
        return vec![format!("error: no player with id or name {target}")];
    };
    if let Some(mut conn) = world.get_mut::<Connection>(player) {
        if reason.is_empty() {
            notify(&mut conn, "You were kicked.");
        } else {
            notify(&mut conn, &format!("You were kicked: {reason}"));
        }
    }
    world.write_message(EndSession {
        player,
        leave: LeaveReason::Kicked,
        disconnect: Some(LeaveReason::Kicked),
    });
    info!(
        id = id.0,
        name = name.as_str(),
        reason,
        by = who,
        "kicked from the console"
    );
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!(": {reason}")
    };
    vec![format!("kicked {name} (id {}){why}", id.0)]
}

fn stats(world: &mut World) -> Vec<String> {
    let connected = world
        .get_resource::<PlayerIndex>()
        .map_or(0, PlayerIndex::len);
    let max = world
        .get_resource::<SessionSettings>()
        .map(|s| format!(" / {}", s.max_players))
        .unwrap_or_default();
    let mut out = vec![format!("players: {connected}{max}")];
    if let Some(transport) = world.get_resource::<Transport>() {
        out.push(format!("net: {}", transport.stats.summary()));
    }
    match world.get_non_send::<ScriptHost>() {
        Some(host) => {
            let limits = host.stats();
            out.push(format!(
                "scripts: {} running, {} errors, {} cut off by the tick's time, {} memory errors, {} suspensions ({} calls skipped), {} KiB in use, {} notifications waited for a later tick ({} waiting, {} dropped), {} events moot when their turn came",
                host.running().count(),
                host.errors(),
                limits.time_cutoffs,
                limits.memory_errors,
                limits.suspensions,
                limits.skipped,
                host.used_memory() >> 10,
                limits.deferred,
                host.notifications_waiting(),
                limits.deferred_dropped,
                limits.moot
            ));
        }
        None => out.push("scripts: unavailable".to_owned()),
    }
    if let Some(time) = world.get_resource::<Time<Fixed>>() {
        out.push(format!("uptime: {:.1} s", time.elapsed().as_secs_f64()));
    }
    gameplay_counters(world, &mut out);
    out
}

/// The player features' counted drops and refusals, one line each in plain words, the
/// titles in one column: what the network sent that the pages say to drop or refuse, after
/// decoding (player.md, connection.md §5-§6, world.md).
fn gameplay_counters(world: &World, out: &mut Vec<String>) {
    use dlmp_player::chat::ChatDrops;
    use dlmp_world::pickup::PickupStats;
    use dlmp_world::waypoint::WaypointDrops;
    let mut rows: Vec<(&str, Vec<(&str, u64)>)> = Vec::new();
    let mut row = |title, counts: Option<Vec<(&'static str, u64)>>| {
        if let Some(counts) = counts {
            rows.push((title, counts));
        }
    };
    row(
        "frames dropped",
        world.get_resource::<FrameDrops>().map(|d| {
            vec![
                ("not spawned", d.not_spawned),
                ("stale", d.stale),
                ("past the frame rate", d.rate_limited),
            ]
        }),
    );
    row(
        "vehicle frames",
        world
            .get_resource::<dlmp_vehicle::frame::accept::VehicleFrameDrops>()
            .map(|d| {
                vec![
                    ("accepted", d.accepted),
                    ("no such vehicle", d.unknown_vehicle),
                    ("not the controller", d.not_controller),
                    ("another epoch", d.epoch),
                    ("before a transform", d.pose_rev),
                    ("stale", d.stale),
                    ("over the driven rate", d.rate_driven),
                    ("over the synced rate", d.rate_synced),
                    ("over the total rate", d.rate_total),
                    ("not on the server's hitch", d.hitch),
                    ("farther than its top speed", d.motion_travel),
                    ("falling faster than a fall", d.motion_fall),
                ]
            }),
    );
    row(
        "vehicle damage",
        world
            .get_resource::<dlmp_vehicle::damage::DamageStats>()
            .map(dlmp_vehicle::damage::DamageStats::rows),
    );
    row(
        "vehicle shots",
        world
            .get_resource::<dlmp_vehicle::weapon::VehicleShotDrops>()
            .map(|d| d.counts()),
    );
    row(
        "vehicle parameters",
        world
            .get_resource::<dlmp_vehicle::params::command::ParamStats>()
            .map(|d| d.counts()),
    );
    row(
        "vehicle keys",
        world
            .get_resource::<dlmp_vehicle::params::control::ControlStats>()
            .map(|d| d.counts()),
    );
    row(
        "vehicle colors",
        world
            .get_resource::<dlmp_vehicle::params::colors::ColorStats>()
            .map(|d| d.counts()),
    );
    row(
        "vehicle transforms",
        world
            .get_resource::<dlmp_vehicle::transform::TransformStats>()
            .map(|d| d.counts()),
    );
    row(
        "trains",
        world
            .get_resource::<dlmp_vehicle::train::announce::TrainStats>()
            .map(|d| d.counts()),
    );
    row(
        "hitches",
        world
            .get_resource::<dlmp_vehicle::tow::links::LinkStats>()
            .map(|d| d.counts(dlmp_vehicle::tow::links::LinkKind::Trailer)),
    );
    row(
        "winch loads",
        world
            .get_resource::<dlmp_vehicle::tow::links::LinkStats>()
            .map(|d| d.counts(dlmp_vehicle::tow::links::LinkKind::Lift)),
    );
    row(
        "RC vehicles",
        world
            .get_resource::<dlmp_vehicle::remote::RemoteStats>()
            .map(|d| d.counts()),
    );
    row(
        "vehicle explosions",
        world
            .get_resource::<dlmp_vehicle::life::ExplodeStats>()
            .map(|d| {
                vec![
                    ("accepted", d.accepted),
                    ("no such vehicle", d.unknown_vehicle),
                    ("another epoch", d.stale),
                    ("a wreck already", d.repeated),
                    ("not the controller", d.not_controller),
                    ("a train", d.train),
                    ("not burning long enough", d.not_burning),
                ]
            }),
    );
    row(
        "chat lines",
        world
            .get_resource::<ChatDrops>()
            .map(|d| vec![("a full lane refused", d.line_queue_full)]),
    );
    row(
        "reshows",
        world
            .get_resource::<dlmp_core::streaming::Reshows>()
            .map(|r| vec![("for viewers whose full lane missed a change", r.made())]),
    );
    row(
        "relays",
        world
            .get_resource::<RelayStats>()
            .map(|r| vec![("sent", r.sent), ("refused", r.refused)]),
    );
    row(
        "shots",
        world.get_resource::<ShotDrops>().map(|d| {
            vec![
                ("accepted", d.accepted),
                ("not in control", d.not_in_control),
                ("a weapon without rays (35-37)", d.no_ray),
                ("no ammo", d.no_ammo),
                ("stale", d.stale),
                ("origin too far", d.origin),
                ("beyond range", d.range),
            ]
        }),
    );
    row(
        "projectile launches",
        world
            .get_resource::<dlmp_player::weapons::launch::LaunchStats>()
            .map(dlmp_player::weapons::launch::LaunchStats::counts),
    );
    row(
        "satchel detonations",
        world
            .get_resource::<dlmp_player::weapons::satchel::DetonationStats>()
            .map(dlmp_player::weapons::satchel::DetonationStats::counts),
    );
    row(
        "stealth kills",
        world
            .get_resource::<dlmp_player::weapons::stealth::StealthStats>()
            .map(dlmp_player::weapons::stealth::StealthStats::counts),
    );
    row(
        "previous life",
        world
            .get_resource::<PreviousLifeDrops>()
            .map(|d| vec![("deaths", d.deaths), ("damage reports", d.damage)]),
    );
    row(
        "frozen contact damage",
        world
            .get_resource::<FrozenContactDrops>()
            .map(|d| vec![("refused", d.0)]),
    );
    row(
        "spawn requests",
        world.get_resource::<SpawnRequestDrops>().map(|d| {
            vec![
                ("after the life was confirmed", d.confirmed),
                ("while dead", d.dead),
                ("while respawning", d.respawned),
            ]
        }),
    );
    row(
        "respawn requests",
        world.get_resource::<RespawnDrops>().map(|d| {
            vec![
                ("not spawned", d.not_spawned),
                ("alive", d.alive),
                ("too early", d.too_early),
                ("no spawn point", d.no_point),
            ]
        }),
    );
    row(
        "animations",
        world.get_resource::<AnimationDrops>().map(|d| {
            vec![
                ("refused", d.refused),
                ("a viewer's full lane", d.viewer_queue_full),
            ]
        }),
    );
    row(
        "waypoint reports",
        world.get_resource::<WaypointDrops>().map(|d| {
            vec![
                ("not spawned", d.not_spawned),
                ("malformed", d.malformed),
                ("repeated", d.repeated),
            ]
        }),
    );
    row(
        "pickup touches refused",
        world.get_resource::<PickupStats>().map(|d| {
            vec![
                ("not alive", d.not_alive),
                ("no such pickup", d.no_pickup),
                ("too far", d.too_far),
                ("not shown", d.not_shown),
                ("latched", d.latched),
            ]
        }),
    );
    row(
        "edits dropped",
        world
            .get_resource::<dlmp_world::edit::EditDrops>()
            .map(|d| d.counts()),
    );
    row(
        "world commands refused",
        world
            .get_resource::<dlmp_world::check::WorldRefusals>()
            .filter(|r| r.total() > 0)
            .map(|r| r.by_kind.iter().map(|(k, n)| (*k, *n)).collect()),
    );
    let width = rows.iter().map(|(title, _)| title.len()).max().unwrap_or(0);
    for (title, counts) in rows {
        let counts: Vec<String> = counts
            .iter()
            .map(|(what, n)| format!("{what} {n}"))
            .collect();
        out.push(format!("{title:<width$}  {}", counts.join(", ")));
    }
}

fn quit(world: &mut World) -> Vec<String> {
    let Some(flag) = world.get_resource::<ShutdownFlag>() else {
        return vec!["error: this app has no shutdown flag".to_owned()];
    };
    flag.0.store(true, Ordering::Relaxed);
    let connected = world
        .get_resource::<PlayerIndex>()
        .map_or(0, PlayerIndex::len);
    vec![format!(
        "stopping: disconnecting {}",
        count_players(connected)
    )]
}

/// "1 player", "3 players".
fn count_players(n: usize) -> String {
    if n == 1 {
        "1 player".to_owned()
    } else {
        format!("{n} players")
    }
}

/// Adds the console: lines from stdin (or from a channel, for tests) run in
/// [`ServerSystems::Ingest`], their output goes to stdout (or to a channel).
pub struct ConsolePlugin {
    input: Option<Receiver<String>>,
    output: Option<Sender<String>>,
}

impl ConsolePlugin {
    /// Reads stdin on a thread of its own and prints to stdout. At the end of stdin (none
    /// at all, a closed pipe) the console goes quiet and the server runs on.
    pub fn stdin() -> Self {
        ConsolePlugin {
            input: None,
            output: None,
        }
    }

    /// Takes lines from `input` and sends every output line to `output`.
    pub fn with_channels(input: Receiver<String>, output: Sender<String>) -> Self {
        ConsolePlugin {
            input: Some(input),
            output: Some(output),
        }
    }
}

impl Plugin for ConsolePlugin {
    fn build(&self, app: &mut App) {
        let input = match &self.input {
            Some(input) => input.clone(),
            None => match spawn_stdin_reader() {
                Ok(input) => input,
                Err(e) => {
                    error!("the console did not start: {e}");
                    return;
                }
            },
        };
        let output = self
            .output
            .clone()
            .map_or(ConsoleOutput::Stdout, ConsoleOutput::Channel);
        app.insert_resource(Console { input, output })
            .add_systems(FixedUpdate, run_console.in_set(ServerSystems::Ingest));
    }
}

/// The app's end of the console.
#[derive(Resource, Debug)]
struct Console {
    input: Receiver<String>,
    output: ConsoleOutput,
}

#[derive(Debug, Clone)]
enum ConsoleOutput {
    Stdout,
    Channel(Sender<String>),
}

impl ConsoleOutput {
    fn write(&self, lines: Vec<String>) {
        match self {
            ConsoleOutput::Stdout => {
                let mut out = std::io::stdout().lock();
                for line in lines {
                    // A closed stdout must not stop the server.
                    let _ = writeln!(out, "{line}");
                }
                let _ = out.flush();
            }
            ConsoleOutput::Channel(tx) => {
                for line in lines {
                    let _ = tx.send(line);
                }
            }
        }
    }
}

/// Runs the console lines that arrived since the last tick; never waits for input.
fn run_console(world: &mut World) {
    let Some(console) = world.get_resource::<Console>() else {
        return;
    };
    let lines: Vec<String> = console.input.try_iter().take(LINES_PER_TICK).collect();
    if lines.is_empty() {
        return;
    }
    let output = console.output.clone();
    for line in lines {
        output.write(execute(world, &line));
    }
}

/// Starts the thread that reads stdin into the returned channel.
fn spawn_stdin_reader() -> std::io::Result<Receiver<String>> {
    let (tx, rx) = bounded(QUEUE);
    std::thread::Builder::new()
        .name("console".to_owned())
        .spawn(move || read_lines(std::io::stdin().lock(), &tx))?;
    Ok(rx)
}

/// Sends every line of `reader` (without its line ending, invalid UTF-8 replaced) until
/// the end of input, a read error (logged) or the app is gone.
fn read_lines(mut reader: impl BufRead, tx: &Sender<String>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                let line = line.trim_end_matches(['\n', '\r']).to_owned();
                if tx.send(line).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                error!("console input closed: {e}");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::unbounded;

    #[test]
    fn lines_are_read_until_the_end_of_input_without_their_endings() {
        let (tx, rx) = unbounded();
        read_lines(&b"help\r\nsay h\xffi\n\nquit"[..], &tx);
        let lines: Vec<String> = rx.try_iter().collect();
        assert_eq!(lines, ["help", "say h\u{fffd}i", "", "quit"]);
    }

    #[test]
    fn reading_stops_when_the_app_is_gone() {
        let (tx, rx) = unbounded();
        drop(rx);
        read_lines(&b"help\nhelp\n"[..], &tx);
    }

    #[test]
    fn an_empty_line_prints_nothing() {
        let mut world = World::new();
        assert!(execute(&mut world, "").is_empty());
        assert!(execute(&mut world, "  \t ").is_empty());
    }

    #[test]
    fn help_names_every_command() {
        let mut world = World::new();
        let out = execute(&mut world, "HELP").join("\n");
        for (usage, _) in COMMANDS {
            assert!(out.contains(usage), "{usage} missing from {out}");
        }
    }

    #[test]
    fn commands_without_their_argument_print_their_usage() {
        let mut world = World::new();
        assert_eq!(execute(&mut world, "start"), ["usage: start NAME"]);
        assert_eq!(execute(&mut world, "stop a b"), ["usage: stop NAME"]);
        assert_eq!(execute(&mut world, "say   "), ["usage: say TEXT"]);
        assert_eq!(
            execute(&mut world, "kick"),
            ["usage: kick ID|NAME [REASON]"]
        );
    }
}
