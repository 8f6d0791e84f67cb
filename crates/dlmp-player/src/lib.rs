//! Players on the DLMP server (player.md, and connection.md's chat, ledger and shots):
//! their state, the connect spawn and respawns, frame admission, player streaming and the
//! relay, the ledger and shots, looks, HUD, control, animations, physics, and chat, each a
//! bevy plugin ([`PlayerPlugin`] adds them all), with their Lua API ([`script`]).
//!
//! This crate knows the core and the script host below it, never the vehicles, the world
//! or operations above it: what it reads of a vehicle is in the core
//! ([`dlmp_core::vehicle`]), and what the crates above credit or count they fill into its
//! components and Lua app data ([`credit`], [`script::movement::FloorPlaces`]).

pub mod admission;
pub mod animation;
pub mod bounds;
pub mod chat;
pub mod control;
pub mod credit;
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
pub mod weapons;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::viewers::Viewers;

use dlmp_core::session::PlayerConnected;
use dlmp_core::tick::ServerSystems;

pub use hud::Hud;
pub use refusal::Refusal;
pub use spawn::{RespawnGranted, SpawnGranted, SpawnInfo, SpawnState, SpawnSystems};
pub use state::{
    Appearance, Body, DeathEpoch, Inventory, LastFrame, Ledger, ReportedPosition, Score, Skills,
    Team,
};

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
            weapons::WeaponsPlugin,
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
            ReportedPosition::default(),
        ));
    }
}
