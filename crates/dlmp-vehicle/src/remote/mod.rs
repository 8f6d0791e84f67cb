//! Remote-controlled vehicles (vehicles.md VehicleRemote, VehicleRemoteExit,
//! VehicleRemoteEnter; lua-api.md `set_remote_vehicle`, `remove_remote_vehicle`,
//! `rc_range`, `player_remote_enter`, `player_remote_exit`). A driven RC carries
//! [`Remote`](crate::Remote) and its driver [`RemoteDriving`]; the syncer election makes the driver the
//! RC's syncer. Decisions: docs/decisions/0069-remote-vehicles.md.
//!
//! - [`rules`]: the grant's and the F key's checks, the range.
//! - [`systems`]: the F-key intake, the grants and every release.
//! - [`script`]: the Lua functions and the two events.

pub mod rules;
pub mod script;
pub mod systems;

use std::collections::HashMap;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::components::Occupant;
use super::{VehicleSystems, seats};
use dlmp_core::tick::GameplaySystems;
use dlmp_protocol::ids::{PlayerToken, VehicleEpoch, VehicleId};

pub use rules::{DEFAULT_RC_RANGE, ENTER_DISTANCE, MAX_RC_RANGE, RemoteRefusal};

/// On a player: the RC it drives remotely (the other side of the RC's [`Remote`](crate::Remote)).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteDriving {
    pub vehicle: Entity,
    pub id: VehicleId,
}

/// `rc_range`: the RC is released farther than this from the body, m (at most
/// [`MAX_RC_RANGE`]); `dlmp.set_rc_range` changes it.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct RcSettings {
    pub range: f32,
}

impl Default for RcSettings {
    fn default() -> Self {
        RcSettings {
            range: DEFAULT_RC_RANGE,
        }
    }
}

/// The gamemode's remote commands (`dlmp.set_remote_vehicle`, `remove_remote_vehicle`,
/// `set_rc_range`), applied in order in [`VehicleSystems::Seats`] after the seats.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum RemoteCommand {
    Set {
        player: Entity,
        token: PlayerToken,
        vehicle: VehicleId,
        detonation: bool,
    },
    Remove {
        player: Entity,
        token: PlayerToken,
    },
    Range(f32),
}

/// Why a driver let go of its RC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Release {
    /// VehicleRemoteExit (the F key): `player_remote_exit(..., "exit")`.
    Exit,
    /// Farther than `rc_range`: `player_remote_exit(..., "range")`.
    Range,
    Death,
    /// A change of virtual world or interior.
    Scope,
    /// The driver took a seat in a vehicle.
    Seated,
    /// The RC exploded or drowned (VehicleReset Wrecked).
    Wrecked,
    Respawned,
    /// The RC no longer exists.
    Removed,
    /// `dlmp.remove_remote_vehicle`, or a grant of another RC.
    Gamemode,
    /// The driver left the server (no packet).
    Left,
}

impl Release {
    /// The word of `player_remote_exit`, for the two releases that raise it.
    pub fn event_word(self) -> Option<&'static str> {
        match self {
            Release::Exit => Some("exit"),
            Release::Range => Some("range"),
            _ => None,
        }
    }
}

/// A VehicleRemoteEnter that passed the checks and waits for `player_remote_enter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingRemoteEnter {
    pub player: Occupant,
    pub vehicle: Entity,
    pub id: VehicleId,
    pub epoch: VehicleEpoch,
    /// A handler returned false.
    pub refused: bool,
}

/// What the scripts hear of this tick: the requests waiting for `player_remote_enter`
/// and the releases that raise `player_remote_exit`.
#[derive(Resource, Debug, Default)]
pub struct RemoteQueue {
    pub enters: Vec<PendingRemoteEnter>,
    pub exits: Vec<(Occupant, VehicleId, &'static str)>,
    /// Grants of an RC not streamed to the player yet (one made right after
    /// `create_vehicle`), tried again after each streaming update until [`STREAM_WAIT`]
    /// has passed.
    pub waiting: Vec<(RemoteCommand, std::time::Duration)>,
}

/// How long a grant waits for its RC to be streamed to the player before it is refused:
/// a vehicle created in the player's scope and reach is shown by the next streaming
/// update; one beyond it is never granted.
pub const STREAM_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Refusals and releases, by reason (console `stats`; the tests read them).
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteStats {
    pub refused: HashMap<RemoteRefusal, u64>,
    pub released: HashMap<Release, u64>,
    /// VehicleRemoteExit of another RC or a repeated one: a no-op.
    pub stray_exits: u64,
}

impl RemoteStats {
    /// Grants and F keys refused, releases, and stray exits (console `stats`).
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("refused", self.refused.values().sum()),
            ("released", self.released.values().sum()),
            ("exits of no RC driven", self.stray_exits),
        ]
    }
}

/// Adds remote-controlled vehicles.
pub struct RemotePlugin;

impl Plugin for RemotePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RcSettings>()
            .init_resource::<RemoteQueue>()
            .init_resource::<RemoteStats>()
            .add_message::<RemoteCommand>()
            .add_systems(
                FixedUpdate,
                (
                    (systems::refresh_view, systems::intake)
                        .chain()
                        .before(seats::intake)
                        .in_set(GameplaySystems::Intake),
                    systems::settle
                        .after(seats::apply_commands)
                        .in_set(VehicleSystems::Seats),
                ),
            );
    }
}
