//! The rules resources publish (`dlmp.set_rule`) and the game mode text
//! (`dlmp.set_game_mode_text`); both go with their resource when it stops (query.md).

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;

use dlmp_script::ResourceId;
use dlmp_script::ResourceStopped;

/// The rule the server itself publishes: its version. Resources cannot set it.
pub const VERSION_RULE: &str = "version";

/// Rules by key, each with the resource that set it.
#[derive(Resource, Debug, Default, Clone, PartialEq, Eq)]
pub struct ServerRules(pub BTreeMap<String, (ResourceId, String)>);

/// The game mode text a resource set, overriding config `gamemode` while it runs.
#[derive(Resource, Debug, Default, Clone, PartialEq, Eq)]
pub struct GameModeText(pub Option<(ResourceId, String)>);

/// `dlmp.set_rule(key, value)`; `None` removes the key.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct SetRule {
    pub resource: ResourceId,
    pub key: String,
    pub value: Option<String>,
}

/// `dlmp.set_game_mode_text(text)`; an empty text goes back to config `gamemode`.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct SetGameModeText {
    pub resource: ResourceId,
    pub text: String,
}

pub(super) fn apply(
    mut rules: ResMut<ServerRules>,
    mut mode: ResMut<GameModeText>,
    mut set_rules: MessageReader<SetRule>,
    mut set_modes: MessageReader<SetGameModeText>,
) {
    for set in set_rules.read() {
        match &set.value {
            Some(value) => {
                rules
                    .0
                    .insert(set.key.clone(), (set.resource, value.clone()));
            }
            None => {
                rules.0.remove(&set.key);
            }
        }
    }
    for set in set_modes.read() {
        mode.0 = (!set.text.is_empty()).then(|| (set.resource, set.text.clone()));
    }
}

pub(super) fn forget_stopped(
    mut rules: ResMut<ServerRules>,
    mut mode: ResMut<GameModeText>,
    mut stopped: MessageReader<ResourceStopped>,
) {
    for ResourceStopped(id) in stopped.read() {
        rules.0.retain(|_, (owner, _)| owner != id);
        if mode.0.as_ref().is_some_and(|(owner, _)| owner == id) {
            mode.0 = None;
        }
    }
}
