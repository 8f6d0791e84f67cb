//! A clean stop (Ctrl-C, SIGTERM, the console's `quit`): every client gets Disconnect, the
//! gameplay hears [`ServerShutdown`], then the app exits once the Disconnect burst is out.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bevy_app::{App, AppExit, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::info;

use super::ServerSystems;
use crate::session::{Connection, EndSession, Farewells};
use dlmp_protocol::connection::handshake::LeaveReason;

/// Set from outside the app (a signal handler, the console) to stop the server.
#[derive(Resource, Debug, Clone, Default)]
pub struct ShutdownFlag(pub Arc<AtomicBool>);

/// The server is stopping: written once, in the tick the stop begins.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerShutdown;

/// Longest wait for the Disconnect burst before exiting anyway.
const GRACE: Duration = Duration::from_millis(500);

/// Adds the clean stop: `flag` is the one a signal handler or the console sets.
pub struct ShutdownPlugin {
    pub flag: ShutdownFlag,
}

impl Plugin for ShutdownPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.flag.clone())
            .add_message::<ServerShutdown>()
            .add_systems(FixedUpdate, begin_shutdown.in_set(ServerSystems::Ingest))
            .add_systems(FixedUpdate, finish_shutdown.after(ServerSystems::Outbound));
    }
}

/// When the stop began.
#[derive(Resource, Debug, Clone, Copy)]
struct Stopping(Duration);

fn begin_shutdown(
    mut commands: Commands,
    flag: Res<ShutdownFlag>,
    stopping: Option<Res<Stopping>>,
    time: Res<Time>,
    players: Query<Entity, With<Connection>>,
    mut ended: MessageWriter<EndSession>,
    mut shutdown: MessageWriter<ServerShutdown>,
) {
    if stopping.is_some() || !flag.0.load(Ordering::Relaxed) {
        return;
    }
    info!(players = players.iter().count(), "shutting down");
    commands.insert_resource(Stopping(time.elapsed()));
    shutdown.write(ServerShutdown);
    for player in &players {
        ended.write(EndSession {
            player,
            leave: LeaveReason::Quit,
            disconnect: Some(LeaveReason::Quit),
        });
    }
}

fn finish_shutdown(
    stopping: Option<Res<Stopping>>,
    time: Res<Time>,
    farewells: Res<Farewells>,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(since) = stopping
        && (farewells.is_empty() || time.elapsed() >= since.0 + GRACE)
    {
        exit.write(AppExit::Success);
    }
}
