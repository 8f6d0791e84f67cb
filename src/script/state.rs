//! What the Lua side of the server holds between calls (Lua app data): the handlers,
//! timers and exports of every resource, the read-only view of the world the API answers
//! from, and the commands scripts issued, applied by the app after the call.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use bevy_ecs::entity::{Entity, EntityHashMap};
use bevy_ecs::prelude::{Commands, Message};
use mlua::Function;

use crate::player::animation::Animation;
use crate::player::control::camera::CameraSetting;
use crate::player::frame::Bounds;
use crate::player::{Appearance, Hud, Skills, SpawnInfo};
use dlmp_protocol::connection::chat::Color;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, PlayerToken};
use dlmp_protocol::player::action::SpecialAction;

/// A running resource's number; never reused during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub u32);

/// `dlmp.on` registration.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub(crate) handle: u64,
    pub(crate) resource: ResourceId,
    pub(crate) func: Function,
}

/// `dlmp.add_command` registration.
#[derive(Debug, Clone)]
pub(crate) struct ChatCommand {
    pub(crate) handle: u64,
    pub(crate) resource: ResourceId,
    pub(crate) func: Function,
}

/// `dlmp.set_timer` registration.
#[derive(Debug, Clone)]
pub(crate) struct Timer {
    pub(crate) id: u64,
    pub(crate) resource: ResourceId,
    pub(crate) due: Duration,
    pub(crate) interval: Duration,
    /// Firings left; `None` = until stopped.
    pub(crate) remaining: Option<u32>,
    pub(crate) func: Function,
    /// The extra arguments of `dlmp.set_timer`, passed on every firing.
    pub(crate) args: Vec<mlua::Value>,
}

/// A player as scripts see it this tick.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlayerView {
    pub id: PlayerId,
    pub token: PlayerToken,
    pub name: String,
    /// The name tag's color, 0xRRGGBB (`player:set_color`).
    pub nametag_color: u32,
    pub spawned: bool,
    pub alive: bool,
    pub position: Vec3,
    pub virtual_world: u32,
    pub interior: u8,
    /// Keys held by the last frame (bits 0..8), 0 while paused or frozen.
    pub keys: u16,
    /// m/s, by the last living frame.
    pub velocity: Vec3,
    /// Unit aim direction by the last living frame (zero before one).
    pub camera_front: Vec3,
    pub paused: bool,
    pub on_fire: bool,
    /// The player under its aim, checked again at this tick's view (aim_target).
    pub target: Option<(Entity, PlayerToken)>,
    /// False once the session ended (inside `player_disconnect`).
    pub connected: bool,
    /// The ledger's health and armor (a set in this call shows at once).
    pub health: f32,
    pub armor: f32,
    /// The damage group (`player:set_team`; a set in this call shows at once).
    pub team: u32,
    /// The query's score (`player:set_score`; a set in this call shows at once).
    pub score: i32,
    /// Skin, styles, hidden head (a set in this call shows at once).
    pub appearance: Appearance,
    /// Weapon skills (a set in this call shows at once).
    pub skills: Skills,
    /// Money, wanted level, drunkenness, stamina and lung capacity (a set in this call
    /// shows at once).
    pub hud: Hud,
    /// A living frame arrived since the last spawn or respawn grant (SetVelocity,
    /// SetOnFire).
    pub life_confirmed: bool,
    /// SetVelocity / SetGravity commands awaiting their echo, at most 32.
    pub physics_pending: usize,
    /// The body gravity the gamemode set last (`player:gravity()`).
    pub gravity: f32,
    /// SetWorldBounds; `None` = the whole world.
    pub world_bounds: Option<Bounds>,
    /// Normal events the reliable lane still takes before "queue full", less those this
    /// call queued.
    pub lane_room: usize,
    /// The gamemode's freeze (a set in this call shows at once).
    pub frozen: bool,
    /// The gamemode's camera (a set in this call shows at once).
    pub camera: CameraSetting,
    /// The animation playing (a command in this call shows at once).
    pub animation: Option<Animation>,
    /// The server's special action (a set in this call shows at once).
    pub special_action: SpecialAction,
}

/// A bevy message a script queued for a feature plugin (see [`ScriptCommand::Message`]).
pub struct QueuedMessage(Box<dyn FnOnce(&mut Commands) + Send + Sync>);

impl QueuedMessage {
    pub fn new<M: Message>(message: M) -> Self {
        QueuedMessage(Box::new(move |commands: &mut Commands| {
            commands.write_message(message);
        }))
    }

    /// Writes the message; the feature's systems in [`GameplaySystems::Apply`] read it.
    ///
    /// [`GameplaySystems::Apply`]: dlmp_core::tick::GameplaySystems::Apply
    pub fn write(self, commands: &mut Commands) {
        (self.0)(commands);
    }
}

impl std::fmt::Debug for QueuedMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QueuedMessage")
    }
}

/// What a script asked the server to do; applied in order after the call, in the same tick.
#[derive(Debug)]
pub enum ScriptCommand {
    /// A command a feature plugin owns (teleport, skin, animation, ...): the Lua function
    /// checks what it can answer from the view and queues the feature's message, exactly
    /// what a Rust gameplay plugin would write itself (lua-api.md, "Besides Lua").
    Message(QueuedMessage),
    /// `dlmp.send_chat`: the recipients whose lane places the call took.
    SendChat {
        text: String,
        color: Color,
        to: Vec<Entity>,
    },
    SpawnPlayer {
        player: Entity,
        info: SpawnInfo,
    },
    Kick {
        player: Entity,
        reason: String,
    },
    /// `player:set_health(v)`, 0..=200.
    SetHealth {
        player: Entity,
        value: f32,
    },
    /// `player:set_armor(v)`, 0..=200.
    SetArmor {
        player: Entity,
        value: f32,
    },
    /// `player:give_weapon(weapon, ammo)`.
    GiveWeapon {
        player: Entity,
        weapon: u8,
        ammo: u16,
    },
    /// `player:set_team(n)`.
    SetTeam {
        player: Entity,
        group: u32,
    },
    /// `dlmp.set_team_damage(on)`.
    SetTeamDamage(bool),
    /// `dlmp.set_weapon_range(weapon, meters)`.
    SetWeaponRange {
        weapon: u8,
        meters: f32,
    },
}

/// The Lua app data.
#[derive(Debug, Default)]
pub(crate) struct ScriptState {
    pub(crate) handlers: HashMap<String, Vec<Handler>>,
    pub(crate) timers: Vec<Timer>,
    pub(crate) exports: HashMap<(String, String), Function>,
    /// `dlmp.add_command`, by command name.
    pub(crate) chat_commands: HashMap<String, ChatCommand>,
    pub(crate) resource_names: BTreeMap<ResourceId, String>,
    /// The folder of each running resource (`dlmp.load_map` reads its files).
    pub(crate) resource_dirs: BTreeMap<ResourceId, std::path::PathBuf>,
    pub(crate) next_handle: u64,
    pub(crate) now: Duration,
    pub(crate) players: EntityHashMap<PlayerView>,
    pub(crate) commands: Vec<ScriptCommand>,
    /// The clock, checkpoints, colshapes, waypoints and id counters (world.md).
    pub(crate) world: crate::world::script_view::WorldView,
    /// `player:uid()` of each entity that was asked for one (ADR 0035).
    pub(crate) uids: EntityHashMap<u64>,
    /// The fetch worker, started by the first `dlmp.fetch`.
    pub(crate) fetch: Option<super::fetch::Client>,
    /// Pending `dlmp.fetch` callbacks, by request id.
    pub(crate) fetches: HashMap<u64, (ResourceId, Function)>,
    /// Answers taken from the worker, not yet delivered.
    pub(crate) answers: Vec<super::fetch::Answer>,
    pub(crate) last_uid: u64,
    /// Errors of handlers that `dlmp.emit` ran inside another call, where the host's own
    /// count cannot be reached; [`ScriptHost::errors`] adds them (ADR 0042).
    ///
    /// [`ScriptHost::errors`]: super::host::ScriptHost::errors
    pub(crate) emit_errors: u64,
}

impl ScriptState {
    pub(crate) fn next_handle(&mut self) -> u64 {
        self.next_handle += 1;
        self.next_handle
    }

    /// The entity's unique id, never given to another during the run.
    pub(crate) fn uid(&mut self, entity: Entity) -> u64 {
        let next = self.last_uid + 1;
        let uid = *self.uids.entry(entity).or_insert(next);
        self.last_uid = self.last_uid.max(uid);
        uid
    }

    /// Removes everything `resource` registered.
    pub(crate) fn forget(&mut self, resource: ResourceId) {
        for list in self.handlers.values_mut() {
            list.retain(|h| h.resource != resource);
        }
        self.handlers.retain(|_, list| !list.is_empty());
        self.timers.retain(|t| t.resource != resource);
        self.chat_commands.retain(|_, c| c.resource != resource);
        self.fetches.retain(|_, (owner, _)| *owner != resource);
        self.resource_dirs.remove(&resource);
        if let Some(name) = self.resource_names.remove(&resource) {
            self.exports.retain(|(owner, _), _| *owner != name);
        }
    }

    /// The player behind a handle, if it still exists as that generation.
    pub(crate) fn player(&self, entity: Entity, token: PlayerToken) -> Option<&PlayerView> {
        self.players.get(&entity).filter(|p| p.token == token)
    }
}
