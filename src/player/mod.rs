//! A player's server-side state that several features read (player.md): where it is, its
//! world scope, its life, and its connect spawn.

pub mod admission;
pub mod animation;
pub mod bounds;
pub mod control;
pub mod floor;
pub mod frame;
pub mod history;
pub mod hud;
pub mod ledger;
pub mod looks;
pub mod physics;
mod refusal;
pub mod relay;
pub mod respawn;
pub mod scope;
pub mod shots;
pub mod skins;
pub mod spawn;
pub mod state;
pub mod teleport;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use crate::lane::Delivery;
use crate::protocol::geometry::Vec3;
use crate::protocol::ids::EventId;
use crate::protocol::player::streaming::ScopeChanged;
use crate::session::{Connection, PlayerConnected, PlayerIndex, SendError};
use crate::streaming::Reshows;
use crate::tick::ServerSystems;

pub use hud::Hud;
pub use refusal::Refusal;
pub use spawn::{RespawnGranted, SpawnGranted, SpawnInfo, SpawnState, SpawnSystems};
pub use state::{
    Appearance, Body, DeathEpoch, Inventory, LastFrame, Ledger, Skills, StreamCenter, Team,
    ViewerSlots, Viewers,
};

/// The server's position of the player, in world units.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Position(pub Vec3);

/// The world scope: only players (and things) in the same virtual world and interior see
/// each other (player.md, "Player streaming"). Never on the wire.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scope {
    pub virtual_world: u32,
    /// 0 = outside.
    pub interior: u8,
}

impl Scope {
    /// Moves the player to `new`. A change tells the owner with ScopeChanged, a critical
    /// event (player.md, ScopeChanged): the virtual world setter, a teleport into another
    /// interior and a respawn grant into another interior use it; the connect spawn sets
    /// the scope without it. Streaming reconciles the new scope in the same tick
    /// ([`ServerSystems::Streaming`] runs after the gameplay).
    pub fn change(&mut self, new: Scope, conn: &mut Connection) -> bool {
        if *self == new {
            return false;
        }
        *self = new;
        if let Err(e) = conn.send_event(
            ScopeChanged {
                event_id: EventId(0),
            },
            Delivery::Critical,
        ) {
            tracing::debug!(?e, "ScopeChanged not queued");
        }
        true
    }
}

/// Queues what the server sends the owner on its own: what a new respawn grant resets
/// (SetSpecialAction(0), SetHeadless(0), SetDrunkLevel(0), the freeze and the camera),
/// the stored control at the connect spawn grant, the own camera after a lost spectate
/// target. Critical: no caller can be refused, and a dropped reset would let the previous
/// state hold on the client (player.md: "sends ... after it"; ADR 0013, 0014, 0016).
/// The event id, if the lane took it.
pub(crate) fn reset_owner(
    conn: &mut Connection,
    packet: impl Into<crate::protocol::ServerPacket>,
) -> Option<EventId> {
    conn.send_event(packet, Delivery::Critical)
        .map_err(|e| tracing::debug!(?e, "server reset not queued"))
        .ok()
}

/// Queues a gamemode command to the owner's own player: a normal event (connection.md
/// §3, the pages do not call it critical). The caller checked the lane's room first and
/// stores the new state only on `Ok`, so a refused command changes nothing ("queue full").
/// A refusal is logged here, naming the packet; the caller only decides its state.
pub(crate) fn command_owner(
    conn: &mut Connection,
    packet: impl Into<crate::protocol::ServerPacket>,
) -> Result<EventId, SendError> {
    let packet = packet.into();
    let name = packet.name();
    conn.send_event(packet, Delivery::Normal)
        .inspect_err(|e| tracing::debug!(peer = %conn.addr(), "{name} not queued: {e}"))
}

/// Queues `packet` for every recipient `subject` is shown to, the subject excepted: a
/// change of the subject its viewers see (PlayerSpawned, PlayerWasted, the animation
/// packets, PlayerSkills, a rename's PlayerNametag). A normal event (connection.md §3,
/// none of these pages calls it critical): a viewer whose lane is full does not get it,
/// and is marked for a fresh show of the subject instead ([`Reshows`], ADR 0020), so its
/// copy is rebuilt from a whole snapshot once the lane has room. The number of viewers
/// that missed it, for the feature's counter.
pub(crate) fn tell_viewers(
    subject: Entity,
    viewers: &Viewers,
    index: &PlayerIndex,
    connections: &mut Query<&mut Connection>,
    reshows: &mut Reshows,
    packet: impl Into<crate::protocol::ServerPacket>,
) -> u64 {
    let packet = packet.into();
    let mut missed = 0;
    for (id, recipient) in viewers.iter().filter_map(|id| Some((id, index.get(id)?))) {
        if recipient == subject {
            continue;
        }
        if let Ok(mut conn) = connections.get_mut(recipient)
            && let Err(e) = conn.send_event(packet.clone(), Delivery::Normal)
        {
            tracing::debug!(?subject, ?recipient, ?e, "event to a viewer not queued");
            reshows.request(subject, id);
            missed += 1;
        }
    }
    missed
}

/// The life state: spawned once the connect spawn is granted, alive until a death.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Life {
    pub spawned: bool,
    pub alive: bool,
}

/// Gives every new player its state components and handles the connect spawn.
pub struct PlayerPlugin;

impl Plugin for PlayerPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            spawn::SpawnPlugin,
            frame::FramePlugin,
            relay::RelayPlugin,
            ledger::LedgerPlugin,
            shots::ShotsPlugin,
            looks::LooksPlugin,
            hud::HudPlugin,
            respawn::RespawnPlugin,
            (
                teleport::TeleportPlugin,
                scope::ScopePlugin,
                bounds::BoundsPlugin,
                physics::PhysicsPlugin,
            ),
            control::ControlPlugin,
            animation::AnimationPlugin,
            history::HistoryPlugin,
        ))
        .add_systems(
            FixedUpdate,
            give_player_state.in_set(ServerSystems::Validation),
        );
    }
}

fn give_player_state(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands.entity(c.player).insert((
            (
                Position::default(),
                Scope::default(),
                Life::default(),
                SpawnState::default(),
            ),
            (
                LastFrame::default(),
                Ledger::default(),
                Inventory::default(),
                Appearance::default(),
            ),
            (
                Team::default(),
                Body::default(),
                DeathEpoch::default(),
                Skills::default(),
            ),
            (
                StreamCenter::default(),
                Viewers::default(),
                Hud::default(),
                relay::Relayed::default(),
            ),
        ));
    }
}
