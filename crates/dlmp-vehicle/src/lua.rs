//! The vehicles in the script pass: what vehicles.md adds to the Lua API, registered with
//! the script host ([`ScriptApi`]), and the vehicle events, queued as notifications or
//! asked with their answer awaited (docs/architecture.md, "The script registry").

use bevy_app::{App, FixedUpdate, Plugin};
use std::time::Duration;

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_protocol::ids::VehicleId;
use dlmp_script::{
    ScriptApi, ScriptEvent, ScriptEvents, ScriptHost, ScriptSystems, id_event_handle,
};
use mlua::UserDataMethods;

use super::frame::VehicleFrameRefused;
use super::life::VehicleDied;
use super::params::control::PendingControls;
use super::remote::RemoteQueue;
use super::script::LuaVehicle;
use super::seats::{PendingEnters, SeatChanged};
use super::syncer::SyncerChanged;
use super::tow::flow::PendingLinks;
use dlmp_player::script::animation::SeatedInView;
use dlmp_player::script::events::REFUSALS_PER_SECOND;
use dlmp_player::script::{LuaPlayer, PlayerAsk};

id_event_handle!(LuaVehicle, dlmp_core::vehicle::VEHICLE_HANDLE, VehicleId);

/// Where the vehicles' notifications stand among a tick's notifications.
pub mod place {
    use dlmp_script::EventPlace;

    pub const SEAT: EventPlace = EventPlace(80);
    pub const SYNCER: EventPlace = EventPlace(90);
    pub const DEATH: EventPlace = EventPlace(100);
    pub const FRAME_REFUSED: EventPlace = EventPlace(145);
}

/// Every vehicle event name (lua-api.md, "Events").
pub const NAMES: &[&str] = &[
    // (player, vehicle): a handler returning false refuses it
    "player_remote_enter",
    // (player, vehicle, how): "exit" or "range"
    "player_remote_exit",
    // (vehicle, player, seat, jacked or nil): false denies it
    "vehicle_start_enter",
    // (vehicle, jacker, victim): false denies it
    "vehicle_jack",
    // (player, vehicle, seat)
    "player_enter_vehicle",
    "player_exit_vehicle",
    // (vehicle, syncer or nil, previous or nil)
    "vehicle_syncer",
    // (vehicle, cause, killer or nil)
    "vehicle_death",
    // (trailer, tractor, player): false refuses an attach
    "trailer_attach",
    "trailer_detach",
    // (vehicle, heli, player): false refuses an attach
    "winch_attach",
    "winch_detach",
    // (vehicle, player, control, on): false refuses it
    "vehicle_control",
    // (player, vehicle, reason): a VehicleFrame refused whole, at most 4 a second a player
    "vehicle_frame_refused",
];

/// What the vehicles add to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, resource| {
        super::script::install(lua, dlmp, resource.id)?;
        super::damage::script::install(lua, dlmp)?;
        super::transform::script::install(lua, dlmp)?;
        super::train::script::install(lua, dlmp)?;
        super::remote::script::install(lua, dlmp, resource.id)?;
        super::life::script::install(lua, dlmp)?;
        super::tow::script::install(lua, dlmp)?;
        super::tuning::script::install(lua, dlmp)?;
        super::model_script::install(lua, dlmp)?;
        super::params::script::install(lua, dlmp)
    })
    .methods::<LuaPlayer>(|methods| {
        // lua-api.md, the core: `player:vehicle() --> Vehicle or nil, seat`.
        methods.add_method("vehicle", |lua, this, ()| {
            this.with(lua, "vehicle", |_| ())?;
            super::script::player_vehicle(lua, this.entity)
        });
    })
    .events(NAMES)
    .handle::<LuaVehicle>()
    .setup(|lua, _| {
        lua.set_app_data(SeatedInView(super::script::is_seated));
    });
}

/// Registers the vehicles' Lua API and adds their systems to the script pass.
pub struct VehicleScriptPlugin;

impl Plugin for VehicleScriptPlugin {
    fn build(&self, app: &mut App) {
        register(&mut app.world_mut().get_resource_or_init::<ScriptApi>());
        app.add_systems(
            FixedUpdate,
            (collect, collect_refusals).in_set(ScriptSystems::Collect),
        )
        .add_systems(FixedUpdate, ask.in_set(ScriptSystems::Ask).after(PlayerAsk));
    }
}

/// Queues the vehicles' notifications of this tick: seats, syncers, deaths.
fn collect(
    mut seats: MessageReader<SeatChanged>,
    mut syncers: MessageReader<SyncerChanged>,
    mut deaths: MessageReader<VehicleDied>,
    players: Query<(), With<dlmp_core::session::Player>>,
    mut events: ResMut<ScriptEvents>,
) {
    events.extend(
        place::SEAT,
        seats
            .read()
            .filter(|c| players.contains(c.player.entity))
            .map(super::seats::seat_event),
    );
    events.extend(
        place::SYNCER,
        syncers.read().map(super::syncer::syncer_event),
    );
    events.extend(
        place::DEATH,
        deaths.read().map(super::life::script::death_event),
    );
}

/// `vehicle_frame_refused(player, vehicle, reason)` for this tick's refused VehicleFrames,
/// at most [`REFUSALS_PER_SECOND`] a second a player as the on-foot refusals; the rest are
/// counted (`ScriptStats::refusals_dropped`).
fn collect_refusals(
    mut host: NonSendMut<ScriptHost>,
    time: Res<Time>,
    mut refused: MessageReader<VehicleFrameRefused>,
    mut windows: Local<EntityHashMap<(Duration, u32)>>,
    players: Query<&dlmp_core::session::Player>,
    mut events: ResMut<ScriptEvents>,
) {
    let now = time.elapsed();
    windows.retain(|entity, _| players.contains(*entity));
    for r in refused.read() {
        let Ok(p) = players.get(r.player) else {
            continue;
        };
        let window = windows.entry(r.player).or_insert((now, 0));
        if now.saturating_sub(window.0) >= Duration::from_secs(1) {
            *window = (now, 0);
        }
        if window.1 >= REFUSALS_PER_SECOND {
            host.count_dropped_refusal();
            continue;
        }
        window.1 += 1;
        let player = LuaPlayer {
            entity: r.player,
            token: p.token,
        };
        events.push(
            place::FRAME_REFUSED,
            ScriptEvent::new(
                "vehicle_frame_refused",
                [
                    player.into(),
                    LuaVehicle { id: r.vehicle }.into(),
                    r.reason.name().into(),
                ],
            ),
        );
    }
}

/// The vehicle events whose answer a feature waits for, in this order: seat requests,
/// remote vehicles, links, engine and lights keys.
fn ask(
    mut host: NonSendMut<ScriptHost>,
    mut enters: ResMut<PendingEnters>,
    mut remote: ResMut<RemoteQueue>,
    mut links: ResMut<PendingLinks>,
    mut controls: ResMut<PendingControls>,
) {
    super::seats::emit_start_enters(&mut host, &mut enters);
    super::remote::script::emit(&mut host, &mut remote);
    super::tow::flow::emit_link_events(&mut host, &mut links);
    super::params::control::emit_controls(&mut host, &mut controls);
}
