//! The app's side of the server query (query.md): player scores, the rules resources
//! publish, the game mode text, and the [`QuerySnapshot`](dlmp_net::query::QuerySnapshot) published on the network thread's
//! [`QueryBoard`] at the end of a tick. The thread answers from it (`net::query`); nothing
//! here sees a query datagram. Choices: docs/decisions/0033-server-query.md.

pub mod client;
mod publish;
mod rules;
pub mod script;

use std::sync::Arc;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

pub use rules::{GameModeText, ServerRules, SetGameModeText, SetRule, VERSION_RULE};

use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_net::query::QueryBoard;

pub use dlmp_player::Score;

/// `player:set_score(n)`.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetScore {
    pub player: Entity,
    pub score: i32,
}

/// What ServerInfo says about the server (config `name`, `gamemode`, `language`,
/// `website`); reloadable.
#[derive(Resource, Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerIdentity {
    pub name: String,
    pub gamemode: String,
    pub language: String,
    pub website: String,
}

impl From<&crate::config::Config> for ServerIdentity {
    fn from(config: &crate::config::Config) -> Self {
        ServerIdentity {
            name: config.name.clone(),
            gamemode: config.gamemode.clone(),
            language: config.language.clone(),
            website: config.website.clone(),
        }
    }
}

/// The board the network thread answers from; the harness and tests read it too.
#[derive(Resource, Debug, Clone, Default)]
pub struct QueryPublisher(pub Arc<QueryBoard>);

/// Scores, rules, the game mode text and the snapshot. The identity and the publisher are
/// taken from the app if inserted before (the config, the network thread), else defaults.
pub struct QueryPlugin;

impl Plugin for QueryPlugin {
    fn build(&self, app: &mut App) {
        script::register(
            &mut app
                .world_mut()
                .get_resource_or_init::<dlmp_script::ScriptApi>(),
        );
        app.init_resource::<ServerIdentity>()
            .init_resource::<QueryPublisher>()
            .init_resource::<ServerRules>()
            .init_resource::<GameModeText>()
            .add_message::<SetScore>()
            .add_message::<SetRule>()
            .add_message::<SetGameModeText>()
            .add_systems(
                FixedUpdate,
                (set_scores, rules::apply, rules::forget_stopped)
                    .chain()
                    .in_set(GameplaySystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                publish::publish.in_set(ServerSystems::Outbound),
            );
    }
}

fn set_scores(
    mut commands: Commands,
    mut sets: MessageReader<SetScore>,
    players: Query<(), With<dlmp_core::session::Player>>,
) {
    for set in sets.read() {
        if players.contains(set.player) {
            commands.entity(set.player).insert(Score(set.score));
        }
    }
}
