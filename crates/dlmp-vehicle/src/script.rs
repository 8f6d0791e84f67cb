//! The vehicle API (lua-api.md: `dlmp.create_vehicle`, `destroy_vehicle`, `vehicles`,
//! `put_player_in_vehicle`, `remove_player_from_vehicle`, `set_vehicle_jacking`, the
//! `Vehicle` reads, `player:vehicle()`). Scripts read vehicles from [`VehicleBook`], the Lua
//! app data refreshed from the ECS before the scripts run each tick and updated at once by
//! the calls themselves; writes are messages applied in the same tick.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use bevy_ecs::prelude::*;
use mlua::{
    Error, IntoLuaMulti, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value, Variadic,
};

use super::components::{Colors, Frozen, Health, Hitch, Seats, Syncer, Vehicle, VehicleScope};
use super::lifecycle::{VehicleCommand, VehicleSpec};
use super::models::VehicleModels;
use super::seats::{JackingCommand, SeatCommand};
use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_core::streaming::grid::FxHasher;
use dlmp_core::vehicle::{Life, Pose};
use dlmp_core::vehicle::{Vehicles, reserve};
use dlmp_player::script::LuaPlayer;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::VehicleId;
use dlmp_script::api::args;
use dlmp_script::api::queue_message;
use dlmp_script::{ResourceId, ScriptHost};

/// What scripts see of one vehicle.
#[derive(Debug, Clone, PartialEq)]
pub struct VehicleInfo {
    pub model: u16,
    pub pose: Pose,
    pub health: f32,
    pub epoch: u8,
    pub wrecked: bool,
    pub colors: (u8, u8),
    pub scope: Scope,
    pub seats: u8,
    /// Occupied seats in seat order.
    pub occupants: Vec<(u8, LuaPlayer)>,
    pub syncer: Option<LuaPlayer>,
    pub tractor: Option<VehicleId>,
    pub trailer: Option<VehicleId>,
    /// Why it is held (VehicleTransform bit4): `is_frozen()` is the gamemode's cause.
    pub frozen: Frozen,
}

/// The scripts' view of the vehicles (Lua app data).
#[derive(Debug, Default)]
pub struct VehicleBook {
    last: Arc<AtomicU32>,
    /// Rebuilt every tick: the Fx hash (the keys are the server's own).
    pub(crate) vehicles: HashMap<u32, VehicleInfo, BuildHasherDefault<FxHasher>>,
    /// Seated players: their vehicle and seat.
    seated: HashMap<Entity, (VehicleId, u8), BuildHasherDefault<FxHasher>>,
}

/// Whether `player` sits in a vehicle, as the scripts' view says (a seat taken or freed
/// by a call earlier in this pass included).
pub fn is_seated(lua: &Lua, player: Entity) -> bool {
    lua.app_data_ref::<VehicleBook>()
        .is_some_and(|b| b.seated.contains_key(&player))
}

/// A Lua handle to a vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaVehicle {
    pub id: VehicleId,
}

pub(crate) fn book(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, VehicleBook>> {
    lua.app_data_mut::<VehicleBook>()
        .ok_or_else(|| Error::runtime("no vehicle state"))
}

pub(crate) fn gone(method: &str, id: VehicleId) -> Error {
    Error::runtime(format!("{method}: vehicle {} no longer exists", id.0))
}

impl VehicleBook {
    /// The scripts' view of vehicle `id`, for a call that changes it at once.
    pub(crate) fn get_mut(&mut self, id: VehicleId) -> Option<&mut VehicleInfo> {
        self.vehicles.get_mut(&id.0)
    }
}

/// The scripts' view of `v`, for the features' own Lua functions; `func` names the caller
/// in the error of a vehicle that no longer exists.
pub(crate) fn vehicle_info(lua: &Lua, func: &str, v: LuaVehicle) -> Result<VehicleInfo> {
    v.with(lua, func, VehicleInfo::clone)
}

impl LuaVehicle {
    /// `f` of the vehicle as the scripts see it, or the error of a vehicle that is gone.
    pub(crate) fn with<R>(
        &self,
        lua: &Lua,
        method: &str,
        f: impl FnOnce(&VehicleInfo) -> R,
    ) -> Result<R> {
        book(lua)?
            .vehicles
            .get(&self.id.0)
            .map(f)
            .ok_or_else(|| gone(method, self.id))
    }

    /// The scripts' view of the vehicle for a command of `func`, changed at once by `f`
    /// (a later read in the same pass sees it); the error of a vehicle that is gone.
    pub(crate) fn with_mut<R>(
        &self,
        lua: &Lua,
        func: &str,
        f: impl FnOnce(&mut VehicleInfo) -> Result<R>,
    ) -> Result<R> {
        let mut book = book(lua)?;
        let info = book
            .vehicles
            .get_mut(&self.id.0)
            .ok_or_else(|| gone(func, self.id))?;
        f(info)
    }
}

/// A Vehicle handle, or an error naming `func`.
pub(crate) fn vehicle_arg(func: &str, v: &Value) -> Result<LuaVehicle> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaVehicle>()
            .map(|p| *p)
            .map_err(|_| Error::runtime(format!("{func}: vehicle must be a Vehicle"))),
        other => Err(Error::runtime(format!(
            "{func}: vehicle must be a Vehicle, got {}",
            other.type_name()
        ))),
    }
}

/// The id of the Vehicle `v`, if it is one: an error if that vehicle no longer exists,
/// `None` for a value that is not a Vehicle (an `attach` option takes a Player too).
pub fn existing_vehicle(lua: &Lua, func: &str, v: &Value) -> Result<Option<VehicleId>> {
    let Value::UserData(u) = v else {
        return Ok(None);
    };
    let Ok(handle) = u.borrow::<LuaVehicle>().map(|h| *h) else {
        return Ok(None);
    };
    handle.with(lua, func, |_| ())?;
    Ok(Some(handle.id))
}

/// The vehicle a call names in `v` and the scripts' view of it, for the call `func` (a
/// destroyed vehicle is its Lua error); `f` may change the view, so a set shows at once.
pub(crate) fn with_vehicle_info<R>(
    lua: &Lua,
    func: &str,
    v: &Value,
    f: impl FnOnce(LuaVehicle, &mut VehicleInfo) -> Result<R>,
) -> Result<R> {
    let v = vehicle_arg(func, v)?;
    let mut book = book(lua)?;
    let info = book
        .vehicles
        .get_mut(&v.id.0)
        .ok_or_else(|| gone(func, v.id))?;
    f(v, info)
}

fn triple(v: Vec3) -> (f64, f64, f64) {
    (f64::from(v.x), f64::from(v.y), f64::from(v.z))
}

/// A per-step vector (the wire's, [`Pose`]'s) per second: m/s or rad/s, as the setters
/// take them (`dlmp.set_vehicle_velocity`).
fn per_second(v: Vec3) -> (f64, f64, f64) {
    let k = f64::from(dlmp_player::frame::rules::STEPS_PER_SECOND);
    let (x, y, z) = triple(v);
    (x * k, y * k, z * k)
}

/// The player's view, or the Lua error of a player who left.
pub(crate) fn player_view(lua: &Lua, func: &str, p: &LuaPlayer) -> Result<(bool, Scope)> {
    let state = dlmp_player::script::views(lua)?;
    let view = state
        .player(p.entity, p.token)
        .filter(|v| v.connected)
        .ok_or_else(|| Error::runtime(format!("{func}: the player has left the server")))?;
    Ok((
        view.spawned && view.alive,
        Scope {
            virtual_world: view.virtual_world,
            interior: view.interior,
        },
    ))
}

/// Adds the vehicle functions to `dlmp` for `resource`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    if lua.app_data_ref::<VehicleBook>().is_none() {
        lua.set_app_data(VehicleBook::default());
    }
    dlmp.set(
        "create_vehicle",
        lua.create_function(move |lua, a: Variadic<Value>| {
            const F: &str = "create_vehicle";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let model = args::integer(F, "model", &arg(0), 0..=i64::from(u16::MAX))? as u16;
            let position = args::world_point(F, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
            let heading = args::f32_finite(F, "heading_deg", &arg(4))?;
            let color1 = args::integer_or(F, "color1", &arg(5), 0..=127, 0)? as u8;
            let color2 = args::integer_or(F, "color2", &arg(6), 0..=127, 0)? as u8;
            let spec = VehicleSpec {
                color1,
                color2,
                ..VehicleSpec::new(model, position, heading)
            };
            create_from_spec(lua, F, spec, resource)
        })?,
    )?;
    dlmp.set(
        "destroy_vehicle",
        lua.create_function(|lua, v: Value| {
            let v = vehicle_arg("destroy_vehicle", &v)?;
            destroy(lua, v, "destroy_vehicle")
        })?,
    )?;
    dlmp.set(
        "vehicles",
        lua.create_function(|lua, ()| {
            let mut ids: Vec<u32> = book(lua)?.vehicles.keys().copied().collect();
            ids.sort_unstable();
            lua.create_sequence_from(ids.into_iter().map(|id| LuaVehicle { id: VehicleId(id) }))
        })?,
    )?;
    dlmp.set(
        "put_player_in_vehicle",
        lua.create_function(|lua, (p, v, seat): (Value, Value, Value)| {
            const F: &str = "put_player_in_vehicle";
            let p = dlmp_player::script::player_arg(F, "player", &p)?;
            let v = vehicle_arg(F, &v)?;
            let seat = args::integer(F, "seat", &seat, 0..=255)? as u8;
            let (able, scope) = player_view(lua, F, &p)?;
            {
                let mut book = book(lua)?;
                let info = book.vehicles.get(&v.id.0).ok_or_else(|| gone(F, v.id))?;
                if !able {
                    return Err(Error::runtime(format!(
                        "{F}: the player is not spawned and alive"
                    )));
                }
                if info.wrecked {
                    return Err(Error::runtime(format!(
                        "{F}: vehicle {} is a wreck",
                        v.id.0
                    )));
                }
                if seat >= info.seats {
                    return Err(Error::runtime(format!(
                        "{F}: seat {seat} does not exist on model {} ({} seats)",
                        info.model, info.seats
                    )));
                }
                if info.scope != scope {
                    return Err(Error::runtime(format!(
                        "{F}: vehicle {} is in another world scope than the player",
                        v.id.0
                    )));
                }
                if info
                    .occupants
                    .iter()
                    .any(|(s, o)| *s == seat && o.entity != p.entity)
                {
                    return Err(Error::runtime(format!("{F}: seat {seat} is taken")));
                }
                seat_in_book(&mut book, p, Some((v.id, seat)));
            }
            queue_message(
                lua,
                SeatCommand::Put {
                    player: p.entity,
                    token: p.token,
                    vehicle: v.id,
                    seat,
                },
            )
        })?,
    )?;
    dlmp.set(
        "remove_player_from_vehicle",
        lua.create_function(|lua, p: Value| {
            const F: &str = "remove_player_from_vehicle";
            let p = dlmp_player::script::player_arg(F, "player", &p)?;
            player_view(lua, F, &p)?;
            seat_in_book(&mut *book(lua)?, p, None);
            queue_message(
                lua,
                SeatCommand::Remove {
                    player: p.entity,
                    token: p.token,
                },
            )
        })?,
    )?;
    dlmp.set(
        "set_vehicle_jacking",
        lua.create_function(|lua, on: Value| {
            let on = args::boolean("set_vehicle_jacking", "on", &on)?;
            queue_message(lua, JackingCommand(on))
        })?,
    )?;
    Ok(())
}

/// A seat taken or freed by a call, in the book at once.
fn seat_in_book(book: &mut VehicleBook, p: LuaPlayer, to: Option<(VehicleId, u8)>) {
    if let Some((old, _)) = book.seated.remove(&p.entity)
        && let Some(info) = book.vehicles.get_mut(&old.0)
    {
        info.occupants.retain(|(_, o)| o.entity != p.entity);
    }
    if let Some((id, seat)) = to
        && let Some(info) = book.vehicles.get_mut(&id.0)
    {
        info.occupants.push((seat, p));
        info.occupants.sort_unstable_by_key(|(s, _)| *s);
        book.seated.insert(p.entity, (id, seat));
    }
}

fn destroy(lua: &Lua, v: LuaVehicle, func: &str) -> Result<()> {
    {
        let mut book = book(lua)?;
        let info = book
            .vehicles
            .remove(&v.id.0)
            .ok_or_else(|| gone(func, v.id))?;
        for (_, o) in info.occupants {
            book.seated.remove(&o.entity);
        }
    }
    queue_message(lua, VehicleCommand::Destroy { id: v.id })
}

/// Changes the scripts' view of vehicle `id` at once, from a call of another vehicle
/// feature (`func` names it in the error of a vehicle that is gone); a seat `f` frees
/// leaves the seated players' view too.
pub(crate) fn edit_view(
    lua: &Lua,
    func: &str,
    id: VehicleId,
    f: impl FnOnce(&mut VehicleInfo),
) -> Result<()> {
    let mut book = book(lua)?;
    let info = book.vehicles.get_mut(&id.0).ok_or_else(|| gone(func, id))?;
    f(info);
    let still: Vec<Entity> = info.occupants.iter().map(|(_, p)| p.entity).collect();
    book.seated
        .retain(|player, (v, _)| *v != id || still.contains(player));
    Ok(())
}

impl UserData for LuaVehicle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(book(lua)?.vehicles.contains_key(&this.id.0))
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, *this, "destroy"));
        methods.add_method("model", |lua, this, ()| {
            this.with(lua, "model", |v| v.model)
        });
        methods.add_method("position", |lua, this, ()| {
            this.with(lua, "position", |v| triple(v.pose.position))
        });
        methods.add_method("heading", |lua, this, ()| {
            this.with(lua, "heading", |v| f64::from(v.pose.heading()))
        });
        methods.add_method("rotation", |lua, this, ()| {
            this.with(lua, "rotation", |v| {
                let [x, y, z, w] = v.pose.rotation.map(f64::from);
                (x, y, z, w)
            })
        });
        methods.add_method("velocity", |lua, this, ()| {
            this.with(lua, "velocity", |v| per_second(v.pose.velocity))
        });
        methods.add_method("turn_velocity", |lua, this, ()| {
            this.with(lua, "turn_velocity", |v| per_second(v.pose.turn_velocity))
        });
        methods.add_method("is_frozen", |lua, this, ()| {
            this.with(lua, "is_frozen", |v| v.frozen.gamemode)
        });
        methods.add_method("health", |lua, this, ()| {
            this.with(lua, "health", |v| f64::from(v.health))
        });
        methods.add_method("epoch", |lua, this, ()| {
            this.with(lua, "epoch", |v| v.epoch)
        });
        methods.add_method("is_wrecked", |lua, this, ()| {
            this.with(lua, "is_wrecked", |v| v.wrecked)
        });
        methods.add_method("colors", |lua, this, ()| {
            this.with(lua, "colors", |v| v.colors)
        });
        methods.add_method("driver", |lua, this, ()| {
            this.with(lua, "driver", |v| {
                v.occupants
                    .first()
                    .filter(|(s, _)| *s == 0)
                    .map(|(_, p)| *p)
            })
        });
        methods.add_method("syncer", |lua, this, ()| {
            this.with(lua, "syncer", |v| v.syncer)
        });
        methods.add_method("occupants", |lua, this, ()| {
            let list = this.with(lua, "occupants", |v| v.occupants.clone())?;
            let out = lua.create_table()?;
            for (i, (seat, p)) in list.into_iter().enumerate() {
                let pair = lua.create_table()?;
                pair.set("player", p)?;
                pair.set("seat", seat)?;
                out.raw_set(i + 1, pair)?;
            }
            Ok(out)
        });
        methods.add_method("trailer", |lua, this, ()| {
            this.with(lua, "trailer", |v| v.trailer.map(|id| LuaVehicle { id }))
        });
        methods.add_method("tractor", |lua, this, ()| {
            this.with(lua, "tractor", |v| v.tractor.map(|id| LuaVehicle { id }))
        });
        methods.add_meta_method(
            MetaMethod::Eq,
            |_, this, other: mlua::UserDataRef<LuaVehicle>| Ok(*this == *other),
        );
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("Vehicle({})", this.id.0))
        });
    }
}

/// `player:vehicle()`: the vehicle and seat, or a single nil on foot (lua-api.md: "Vehicle
/// or nil, seat"; ADR 0022).
pub(crate) fn player_vehicle(lua: &Lua, player: Entity) -> Result<mlua::MultiValue> {
    let seated = book(lua)?.seated.get(&player).copied();
    match seated {
        Some((id, seat)) => (LuaVehicle { id }, seat).into_lua_multi(lua),
        None => Value::Nil.into_lua_multi(lua),
    }
}

/// What the view reads of a vehicle.
type Parts = (
    &'static Vehicle,
    &'static VehicleScope,
    &'static Pose,
    &'static Health,
    &'static Life,
    &'static Colors,
    &'static Seats,
    &'static Syncer,
    &'static Hitch,
    &'static Frozen,
);

/// Before the scripts run: the book takes the server's counter and the vehicles as they
/// are (poses change with every frame, so every tick).
pub(super) fn refresh_view(
    host: Option<NonSend<ScriptHost>>,
    mut registry: ResMut<Vehicles>,
    models: Res<VehicleModels>,
    vehicles: Query<Parts>,
    players: Query<&Player>,
) {
    let Some(host) = host else { return };
    let lua = host.lua();
    if lua.app_data_ref::<VehicleModels>().is_none() {
        lua.set_app_data(models.clone());
    }
    if lua.app_data_ref::<VehicleBook>().is_none() {
        lua.set_app_data(VehicleBook::default());
    }
    let Some(mut book) = lua.app_data_mut::<VehicleBook>() else {
        return;
    };
    if !Arc::ptr_eq(&book.last, &registry.counter()) {
        // Ids scripts took before the first pass (at boot) stay taken.
        registry.adopt_counter(&book.last);
        book.last = registry.counter();
    }
    registry.changed = false;
    let handle = |o: &super::Occupant| LuaPlayer {
        entity: o.entity,
        token: o.token,
    };
    book.vehicles.clear();
    book.seated.clear();
    let mut trailers: Vec<(VehicleId, VehicleId)> = Vec::new();
    for (v, scope, pose, health, life, colors, seats, syncer, hitch, frozen) in &vehicles {
        let here = |o: &super::Occupant| players.get(o.entity).is_ok_and(|p| p.token == o.token);
        let occupants: Vec<(u8, LuaPlayer)> = seats
            .occupied()
            .filter(|(_, o)| here(o))
            .map(|(s, o)| (s, handle(&o)))
            .collect();
        for (seat, p) in &occupants {
            book.seated.insert(p.entity, (v.id, *seat));
        }
        if let Some(t) = hitch.tractor {
            trailers.push((t, v.id));
        }
        book.vehicles.insert(
            v.id.0,
            VehicleInfo {
                model: v.model,
                pose: *pose,
                health: health.0,
                epoch: life.epoch.0,
                wrecked: life.wrecked,
                colors: (colors.color1, colors.color2),
                scope: scope.0,
                seats: models.get(v.model).map_or(0, |m| m.seats),
                occupants,
                // A syncer who left is not one (vehicles.md VehicleSyncer).
                syncer: syncer.0.as_ref().filter(|o| here(o)).map(handle),
                tractor: hitch.tractor,
                trailer: None,
                frozen: *frozen,
            },
        );
    }
    for (tractor, trailer) in trailers {
        if let Some(info) = book.vehicles.get_mut(&tractor.0) {
            info.trailer = Some(trailer);
        }
    }
}

/// Checks `spec` against the model table; its model's seat count.
pub fn check_spec(
    lua: &Lua,
    spec: &VehicleSpec,
) -> std::result::Result<u8, super::lifecycle::VehicleError> {
    let check = |models: &VehicleModels| {
        spec.check(models)?;
        Ok(models.get(spec.model).map_or(0, |m| m.seats))
    };
    match lua.app_data_ref::<VehicleModels>() {
        Some(models) => check(&models),
        None => check(&VehicleModels::default()),
    }
}

/// Checks `spec` and creates its vehicle for `resource` from inside a Lua call: the id and
/// the scripts' view at once, the entity when the command is applied (`dlmp.create_vehicle`,
/// `dlmp.load_map`). `func` names the caller in an error.
pub fn create_from_spec(
    lua: &Lua,
    func: &str,
    spec: VehicleSpec,
    resource: ResourceId,
) -> Result<LuaVehicle> {
    let seats = check_spec(lua, &spec).map_err(|e| Error::runtime(format!("{func}: {e}")))?;
    let id = {
        let mut book = book(lua)?;
        let id = reserve(&book.last)
            .ok_or_else(|| Error::runtime(format!("{func}: no vehicle ids left")))?;
        book.vehicles.insert(
            id.0,
            VehicleInfo {
                model: spec.model,
                pose: Pose::level(spec.position, spec.heading),
                health: super::components::FULL_HEALTH,
                epoch: 0,
                wrecked: false,
                colors: (spec.color1, spec.color2),
                scope: spec.scope,
                seats,
                occupants: Vec::new(),
                syncer: None,
                tractor: None,
                trailer: None,
                frozen: Frozen::default(),
            },
        );
        id
    };
    queue_message(
        lua,
        VehicleCommand::Create {
            id,
            spec,
            owner: Some(resource),
        },
    )?;
    Ok(LuaVehicle { id })
}
