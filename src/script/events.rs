//! The events the server raises to scripts (lua-api.md, "Events"). Each is one line of
//! `script_events!`: its name, its arguments in order; a feature adds an event with one
//! line here and its emit site.

use mlua::{Function, IntoLua, Lua, Result, Value};

use super::api::handles::Cached;
use super::api::player::LuaPlayer;
use super::api::world::LuaObject;
use super::api::world::{LuaCheckpoint, LuaColshape};
use crate::vehicle::script::LuaVehicle;
use crate::world::pickup::script::LuaPickup;
use dlmp_protocol::connection::handshake::LeaveReason;

/// An event argument handed to a handler without an owned copy: strings go to Lua
/// straight from the event's borrow.
trait EventArg {
    type Lua<'a>: IntoLua
    where
        Self: 'a;
    fn lua_arg(&self) -> Self::Lua<'_>;
}

impl EventArg for LuaPlayer {
    type Lua<'a> = Cached<LuaPlayer>;
    fn lua_arg(&self) -> Cached<LuaPlayer> {
        Cached(*self)
    }
}

impl EventArg for Option<LuaPlayer> {
    type Lua<'a> = Option<Cached<LuaPlayer>>;
    fn lua_arg(&self) -> Option<Cached<LuaPlayer>> {
        self.map(Cached)
    }
}

impl EventArg for &'static str {
    type Lua<'a> = &'static str;
    fn lua_arg(&self) -> &'static str {
        self
    }
}

impl EventArg for String {
    type Lua<'a> = &'a str;
    fn lua_arg(&self) -> &str {
        self
    }
}

/// Plain values are copied.
macro_rules! copied_arg {
    ($($t:ty),*) => {$(
        impl EventArg for $t {
            type Lua<'a> = $t;
            fn lua_arg(&self) -> $t {
                *self
            }
        }
    )*};
}
copied_arg!(
    f64,
    bool,
    u8,
    u32,
    Option<f64>,
    LuaCheckpoint,
    LuaColshape,
    LuaPickup,
    LuaVehicle,
    LuaObject
);

impl EventArg for Vec<String> {
    type Lua<'a> = StrList<'a>;
    fn lua_arg(&self) -> StrList<'_> {
        StrList(self)
    }
}

/// Counts by name (an anti-cheat's refusals by kind), as a Lua table `{ movement = 3 }`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Counts(pub Vec<(&'static str, u32)>);

impl EventArg for Counts {
    type Lua<'a> = &'a Counts;
    fn lua_arg(&self) -> &Counts {
        self
    }
}

impl IntoLua for &Counts {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        lua.create_table_from(self.0.iter().copied())
            .map(Value::Table)
    }
}

/// A list of strings, as a Lua sequence.
struct StrList<'a>(&'a [String]);

impl IntoLua for StrList<'_> {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        lua.create_sequence_from(self.0.iter().map(String::as_str))
            .map(Value::Table)
    }
}

macro_rules! script_events {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal ( $($arg:ident : $ty:ty),* ) ),* $(,)?) => {
        /// An event for the scripts' handlers.
        #[derive(Debug, Clone, PartialEq)]
        pub enum ScriptEvent {
            $( $(#[$doc])* $variant { $($arg: $ty),* }, )*
        }

        impl ScriptEvent {
            /// Every event's name, in the order of declaration.
            pub const NAMES: &[&str] = &[$($name),*];

            /// The name handlers register with `dlmp.on`.
            pub fn name(&self) -> &'static str {
                match self {
                    $( ScriptEvent::$variant { .. } => $name, )*
                }
            }

            /// Calls `handler` with the event's arguments, in order, pushed straight onto
            /// the Lua stack.
            pub(crate) fn call(&self, handler: &Function) -> Result<Value> {
                match self {
                    $( ScriptEvent::$variant { $($arg),* } => handler.call(($($arg.lua_arg(),)*)), )*
                }
            }
        }
    };
}

script_events! {
    /// A session opened: the player is connected, not spawned.
    PlayerConnect => "player_connect" (player: LuaPlayer),
    /// A session closed; `reason` is "quit", "timeout" or "kicked".
    PlayerDisconnect => "player_disconnect" (player: LuaPlayer, reason: &'static str),
    /// A life started: the connect spawn was granted for the first time, or a respawn
    /// (the tick after the grant).
    PlayerSpawn => "player_spawn" (player: LuaPlayer),
    /// A key of the player's frames changed (50 ms per key); `key` is its name, see
    /// `player:keys()`.
    PlayerKeyChange => "player_key_change" (player: LuaPlayer, key: &'static str, pressed: bool),
    /// The player's game menu opened or closed (at most one change a second).
    PlayerPause => "player_pause" (player: LuaPlayer, paused: bool),
    /// The player started reloading `weapon` (at most once per 250 ms).
    PlayerWeaponReload => "player_weapon_reload" (player: LuaPlayer, weapon: u8),
    /// The player's state changed: "none", "on_foot" or "dead" (20 passes a second).
    PlayerStateChange => "player_state_change" (player: LuaPlayer, state: &'static str, previous: &'static str),
    /// The player's interior changed (20 passes a second).
    PlayerInteriorChange => "player_interior_change" (player: LuaPlayer, interior: u8, previous: u8),
    /// The ledger took a DamageReport of the living `victim`: `attacker` is nil unless
    /// credited (connection.md §6); `amount` is health + armor lost.
    PlayerDamage => "player_damage" (victim: LuaPlayer, attacker: Option<LuaPlayer>, weapon: u8, amount: f64, bodypart: u8),
    /// The server committed the player's death (a DeathReport or its ledger); `killer` is
    /// the last credited attacker or nil.
    PlayerDeath => "player_death" (player: LuaPlayer, killer: Option<LuaPlayer>, weapon: u8),
    /// A chat line; a handler returning false cancels the broadcast.
    PlayerChat => "player_chat" (player: LuaPlayer, text: String),
    /// A `/command`; a handler returning true has handled it.
    PlayerCommand => "player_command" (player: LuaPlayer, name: String, args: Vec<String>),
    /// `player` became shown to `for_player` (player streaming's decision, the tick before;
    /// not raised by a disconnect).
    PlayerStreamIn => "player_stream_in" (player: LuaPlayer, for_player: LuaPlayer),
    /// `player` is no longer shown to `for_player` (distance, scope; not a disconnect).
    PlayerStreamOut => "player_stream_out" (player: LuaPlayer, for_player: LuaPlayer),
    /// The spectate target of `player` changed scope or left; the server returned the
    /// player's own camera (SetCamera mode 0). `target` may no longer exist.
    SpectateLost => "spectate_lost" (player: LuaPlayer, target: LuaPlayer),
    /// The player entered one of its checkpoints (world.md Checkpoint).
    CheckpointEnter => "checkpoint_enter" (player: LuaPlayer, checkpoint: LuaCheckpoint),
    /// The player left one of its checkpoints, died in it or changed scope.
    CheckpointLeave => "checkpoint_leave" (player: LuaPlayer, checkpoint: LuaCheckpoint),
    /// The player entered a colshape.
    ColshapeEnter => "colshape_enter" (player: LuaPlayer, colshape: LuaColshape),
    /// The player left a colshape, died in it or changed scope.
    ColshapeLeave => "colshape_leave" (player: LuaPlayer, colshape: LuaColshape),
    /// The player's map waypoint changed (x, y nil: removed); 5 at once, 2 a second.
    PlayerWaypoint => "player_waypoint" (player: LuaPlayer, x: Option<f64>, y: Option<f64>),
    /// A VehicleRemoteEnter (the F key near an RC) passed the checks (vehicles.md
    /// VehicleRemoteEnter); a handler returning false refuses it.
    PlayerRemoteEnter => "player_remote_enter" (player: LuaPlayer, vehicle: LuaVehicle),
    /// The player let go of its RC by key (`how` = "exit") or the RC left `rc_range`
    /// ("range"); the other releases (death, scope, a seat, the RC's explosion, respawn or
    /// removal, `remove_remote_vehicle`) raise nothing.
    PlayerRemoteExit => "player_remote_exit" (player: LuaPlayer, vehicle: LuaVehicle, how: &'static str),
    /// An admitted PickupTouch (world.md): `behavior` is "collectible" (the gamemode may
    /// consume it with `dlmp.collect_pickup`; fires again while the player stays) or
    /// "static" (once per entry).
    PickupInteract => "pickup_interact" (player: LuaPlayer, pickup: LuaPickup, behavior: &'static str, model: u32),
    /// A seat request passed the checks (vehicles.md VehicleEnter); `jacked` is the driver a
    /// jack would pull out, or nil. A handler returning false denies it.
    VehicleStartEnter => "vehicle_start_enter" (vehicle: LuaVehicle, player: LuaPlayer, seat: u8, jacked: Option<LuaPlayer>),
    /// A jack passed the checks; a handler returning false denies it.
    VehicleJack => "vehicle_jack" (vehicle: LuaVehicle, jacker: LuaPlayer, victim: LuaPlayer),
    /// The player took a seat: its request, a jack, or `dlmp.put_player_in_vehicle`.
    PlayerEnterVehicle => "player_enter_vehicle" (player: LuaPlayer, vehicle: LuaVehicle, seat: u8),
    /// The player's seat was freed: an exit, a death, a jack, the server (not a disconnect).
    PlayerExitVehicle => "player_exit_vehicle" (player: LuaPlayer, vehicle: LuaVehicle, seat: u8),
    /// The vehicle's syncer changed in the last election pass (nil: no syncer / the previous
    /// one left); once per vehicle per pass, a return to the previous syncer not reported.
    VehicleSyncer => "vehicle_syncer" (vehicle: LuaVehicle, syncer: Option<LuaPlayer>, previous: Option<LuaPlayer>),
    /// The vehicle became a wreck (vehicles.md VehicleExplode): `cause` is "explosion" or
    /// "water"; `killer` the credited player, nil without one (always nil for "water").
    VehicleDeath => "vehicle_death" (vehicle: LuaVehicle, cause: &'static str, killer: Option<LuaPlayer>),
    /// The tractor's controlling player's game hitched the trailer (vehicles.md VehicleTow);
    /// a handler returning false refuses it.
    TrailerAttach => "trailer_attach" (trailer: LuaVehicle, tractor: LuaVehicle, player: LuaPlayer),
    /// The controlling player's game unhitched the trailer (never for the server's own
    /// unhitches).
    TrailerDetach => "trailer_detach" (trailer: LuaVehicle, tractor: LuaVehicle, player: LuaPlayer),
    /// The helicopter's magnet picked up the vehicle (VehicleWinch); false refuses it.
    WinchAttach => "winch_attach" (vehicle: LuaVehicle, heli: LuaVehicle, player: LuaPlayer),
    /// The helicopter's controlling player released the load.
    WinchDetach => "winch_detach" (vehicle: LuaVehicle, heli: LuaVehicle, player: LuaPlayer),
    /// The driver pressed the engine or lights key (vehicles.md VehicleControl; `control` is
    /// "engine" or "lights", `on` the asked state); a handler returning false refuses it.
    VehicleControl => "vehicle_control" (vehicle: LuaVehicle, player: LuaPlayer, control: &'static str, on: bool),
    /// A movement of `object` (`object:move_to`) reached its target on the server's clock.
    ObjectMoveEnd => "object_move_end" (object: LuaObject),
    /// The server refused a PlayerSync frame of the player (`reason`: "not_spawned",
    /// "stale"); at most [`REFUSALS_PER_SECOND`] a second per player, the rest counted.
    ///
    /// [`REFUSALS_PER_SECOND`]: crate::script::REFUSALS_PER_SECOND
    PlayerFrameRefused => "player_frame_refused" (player: LuaPlayer, reason: &'static str),
    /// The server refused a WeaponShot of the player (`reason`: "not_in_control",
    /// "no_ammo", "stale", "origin", "range"); rate-limited like frames.
    PlayerShotRefused => "player_shot_refused" (player: LuaPlayer, reason: &'static str),
    /// An anti-cheat plugin judged the player past a threshold of its refused input
    /// (`verdict`: "warned" or "kicked"; a kicked player leaves after the handlers ran);
    /// `counts` are the window's refusals by kind (`frame`, `movement`, `rate_limit`,
    /// `shot`). Raised only while such a plugin is enabled.
    PlayerCheatSuspected => "player_cheat_suspected" (player: LuaPlayer, verdict: &'static str, counts: Counts),
    /// A resource started (sent to every resource, the new one included).
    ResourceStart => "resource_start" (name: String),
    /// A resource is stopping (sent before its handlers are removed).
    ResourceStop => "resource_stop" (name: String),
    /// The server is shutting down.
    ServerShutdown => "server_shutdown" (),
    /// Once per server tick, for handlers that asked for it.
    Tick => "tick" (dt_ms: f64),
}

/// The Lua word for a PlayerLeave reason.
pub fn reason_name(reason: LeaveReason) -> &'static str {
    match reason {
        LeaveReason::Quit => "quit",
        LeaveReason::Timeout => "timeout",
        LeaveReason::Kicked => "kicked",
    }
}

/// What the handlers of one event decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    /// A handler returned false (refusable events).
    pub refused: bool,
    /// A handler returned true (commands).
    pub handled: bool,
    /// A handler failed (a Lua error) or was suspended for failing.
    pub failed: bool,
    /// Handlers that ran.
    pub handlers: usize,
}
