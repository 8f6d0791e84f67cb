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
pub mod script;
pub mod shots;
pub mod skins;
pub mod spawn;
pub mod state;
pub mod stream;
pub mod teleport;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::viewers::Viewers;

use dlmp_core::session::PlayerConnected;
use dlmp_core::tick::ServerSystems;

pub use hud::Hud;
pub use refusal::Refusal;
pub use spawn::{RespawnGranted, SpawnGranted, SpawnInfo, SpawnState, SpawnSystems};
pub use state::{Appearance, Body, DeathEpoch, Inventory, LastFrame, Ledger, Score, Skills, Team};

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
            script::PlayerScriptPlugin,
        ))
        .add_message::<admission::CheatSuspected>()
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
