//! The ordered system sets of one tick (ADR 0005, "One tick"; ADR 0038),
//! configured once, here. Every feature plugin puts its systems into these sets.

use bevy_app::{App, FixedUpdate};
use bevy_ecs::schedule::{IntoScheduleConfigs, SystemSet};

/// One fixed tick, in order. A set may rely on everything the sets before it did in the
/// same tick.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerSystems {
    /// Datagrams the network thread decoded are taken: hellos answered, strangers dropped,
    /// acks applied, client events put in lane order, everything else written as
    /// [`Received`](crate::session::Received) messages. Sessions that ended (quit,
    /// timeout) are queued for closing.
    Ingest,
    /// Frames and requests are checked against the server's state (admission).
    Validation,
    /// Health and armor ledgers settle damage and deaths.
    Ledger,
    /// Scripts and Rust gameplay plugins run; they queue packets on connections.
    Gameplay,
    /// Per-recipient shown sets are reconciled; shows and hides are queued.
    Streaming,
    /// Vehicles without a driver get their syncer.
    SyncerElection,
    /// Sessions that must end are closed (PlayerLeave, Disconnect), then every queued
    /// packet is encoded and handed to the network thread. Datagrams written after this
    /// set go out next tick.
    Outbound,
}

/// The phases inside [`ServerSystems::Gameplay`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameplaySystems {
    /// Features turn this tick's requests into pending decisions (chat lines, commands).
    Intake,
    /// Gamemode scripts run: events, timers; their commands are applied at the end.
    Scripts,
    /// Features act on the decisions: broadcasts, unhandled commands, spawn grants.
    Apply,
}

/// The phases inside [`ServerSystems::Streaming`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamingSystems {
    /// Per-recipient shown sets are reconciled; shows and hides are queued. After it,
    /// `Viewers` says exactly who sees each subject this tick.
    Reconcile,
    /// Relays about subjects (RemotePlayerSync, ...) go to their viewers.
    Relay,
}

/// Chains the sets in [`FixedUpdate`].
pub fn configure(app: &mut App) {
    app.configure_sets(
        FixedUpdate,
        (
            ServerSystems::Ingest,
            ServerSystems::Validation,
            ServerSystems::Ledger,
            ServerSystems::Gameplay,
            ServerSystems::Streaming,
            ServerSystems::SyncerElection,
            ServerSystems::Outbound,
        )
            .chain(),
    );
    app.configure_sets(
        FixedUpdate,
        (
            GameplaySystems::Intake,
            GameplaySystems::Scripts,
            GameplaySystems::Apply,
        )
            .chain()
            .in_set(ServerSystems::Gameplay),
    );
    app.configure_sets(
        FixedUpdate,
        (StreamingSystems::Reconcile, StreamingSystems::Relay)
            .chain()
            .in_set(ServerSystems::Streaming),
    );
}
