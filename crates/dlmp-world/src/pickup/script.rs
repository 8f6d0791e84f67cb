//! The pickup API (lua-api.md: `dlmp.create_pickup`, `dlmp.collect_pickup`,
//! `dlmp.destroy_pickup`, `pickup:id/position/set_position/model/is_active/exists/destroy`).
//! Scripts read pickups from [`PickupBook`], the Lua app data this module keeps (refreshed
//! from the ECS before the scripts run whenever something changed there, and updated at
//! once by the calls themselves, so a read after a write in the same call sees it). Writes
//! are [`PickupCommand`]s applied in the same tick. Ids come from the server's one counter.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

use bevy_ecs::prelude::*;
use mlua::{Error, Lua, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::models::is_pickup_model;
use super::{Behavior, Pickup, PickupCommand, PickupSpec, Pickups, reserve};
use dlmp_core::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::world::pickup::{PICKUP_XY, PickupId, SCALE_MAX, SCALE_MIN};
use dlmp_protocol::world::shared::{WORLD_Z_MAX, WORLD_Z_MIN};
use dlmp_script::ResourceId;
use dlmp_script::ScriptHost;
use dlmp_script::api::{args, queue_message, queue_messages};

/// What scripts see of one pickup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PickupInfo {
    pub model: u32,
    pub position: Vec3,
    pub active: bool,
}

/// The scripts' view of the pickups (Lua app data).
#[derive(Debug, Default)]
pub struct PickupBook {
    last: Arc<AtomicU32>,
    pickups: HashMap<u32, PickupInfo>,
}

/// A Lua handle to a pickup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaPickup {
    pub id: PickupId,
}

fn book(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, PickupBook>> {
    lua.app_data_mut::<PickupBook>()
        .ok_or_else(|| Error::runtime("no pickup state"))
}

impl LuaPickup {
    fn info(&self, lua: &Lua, method: &str) -> Result<PickupInfo> {
        book(lua)?
            .pickups
            .get(&self.id.0)
            .copied()
            .ok_or_else(|| gone(method, self.id))
    }
}

fn gone(method: &str, id: PickupId) -> Error {
    Error::runtime(format!("{method}: pickup {} no longer exists", id.0))
}

/// A coordinate of a pickup position: |x|, |y| ≤ 4095, z −200..=4000 (world.md PickupSync).
fn position(func: &str, x: &Value, y: &Value, z: &Value) -> Result<Vec3> {
    let mut out = [0.0f32; 3];
    for (i, (name, v, lo, hi)) in [
        ("x", x, -PICKUP_XY, PICKUP_XY),
        ("y", y, -PICKUP_XY, PICKUP_XY),
        ("z", z, WORLD_Z_MIN, WORLD_Z_MAX),
    ]
    .into_iter()
    .enumerate()
    {
        let n = args::number(func, name, v)?;
        if !(f64::from(lo)..=f64::from(hi)).contains(&n) {
            return Err(Error::runtime(format!(
                "{func}: {name} {n} is outside {lo}..={hi}"
            )));
        }
        out[i] = n as f32;
    }
    Ok(Vec3::new(out[0], out[1], out[2]))
}

fn pickup_arg(func: &str, v: &Value) -> Result<LuaPickup> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaPickup>()
            .map(|p| *p)
            .map_err(|_| Error::runtime(format!("{func}: pickup must be a Pickup"))),
        other => Err(Error::runtime(format!(
            "{func}: pickup must be a Pickup, got {}",
            other.type_name()
        ))),
    }
}

/// The option keys of `dlmp.create_pickup`.
const OPTIONS: [&str; 6] = [
    "scale",
    "highlight",
    "behavior",
    "respawn_ms",
    "virtual_world",
    "interior",
];

/// Reads `create_pickup`'s option table.
fn spec(func: &str, model: u32, position: Vec3, opts: Option<Table>) -> Result<PickupSpec> {
    let mut spec = PickupSpec {
        model,
        position,
        scale: 1.0,
        highlight: true,
        behavior: Behavior::Collectible,
        respawn: None,
        scope: Scope::default(),
    };
    let Some(opts) = opts else {
        return Ok(spec);
    };
    for pair in opts.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let known = key
            .as_string()
            .and_then(|k| k.to_str().ok().map(|k| OPTIONS.contains(&&*k)))
            .unwrap_or(false);
        if !known {
            return Err(Error::runtime(format!(
                "{func}: unknown option {}",
                key.to_string()
                    .unwrap_or_else(|_| key.type_name().to_owned())
            )));
        }
    }
    let get = |k: &str| opts.get::<Value>(k);
    let scale = get("scale")?;
    if !scale.is_nil() {
        let s = args::number(func, "scale", &scale)?;
        if !(f64::from(SCALE_MIN)..=f64::from(SCALE_MAX)).contains(&s) {
            return Err(Error::runtime(format!(
                "{func}: scale {s} is outside {SCALE_MIN}..={SCALE_MAX}"
            )));
        }
        spec.scale = s as f32;
    }
    spec.highlight = args::boolean_or(func, "highlight", &get("highlight")?, true)?;
    spec.behavior =
        match args::string_or(func, "behavior", &get("behavior")?, "collectible")?.as_str() {
            "collectible" => Behavior::Collectible,
            "static" => Behavior::Static,
            other => {
                return Err(Error::runtime(format!(
                    "{func}: behavior \"{other}\" is neither \"collectible\" nor \"static\""
                )));
            }
        };
    let respawn = get("respawn_ms")?;
    if !respawn.is_nil() {
        let ms = args::integer(func, "respawn_ms", &respawn, 0..=i64::from(u32::MAX))?;
        spec.respawn = Some(Duration::from_millis(ms.unsigned_abs()));
    }
    spec.scope = Scope {
        virtual_world: args::integer_or(
            func,
            "virtual_world",
            &get("virtual_world")?,
            0..=i64::from(u32::MAX),
            0,
        )? as u32,
        interior: args::integer_or(func, "interior", &get("interior")?, 0..=255, 0)? as u8,
    };
    Ok(spec)
}

/// Adds the pickup functions to `dlmp` for `resource`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    if lua.app_data_ref::<PickupBook>().is_none() {
        lua.set_app_data(PickupBook::default());
    }
    dlmp.set(
        "create_pickup",
        lua.create_function(move |lua, a: Variadic<Value>| {
            const F: &str = "create_pickup";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let model = args::integer(F, "model", &arg(0), 0..=i64::from(u32::MAX))? as u32;
            if !is_pickup_model(model) {
                return Err(Error::runtime(format!(
                    "{F}: model {model} is not a pickup model (a weapon model 321..=373 or an object model of the model table)"
                )));
            }
            let position = position(F, &arg(1), &arg(2), &arg(3))?;
            let opts = args::table_or_nil(F, "options", &arg(4))?;
            let spec = spec(F, model, position, opts)?;
            create_all(lua, F, &[spec], resource)?
                .pop()
                .ok_or_else(|| Error::runtime(format!("{F}: no pickup created")))
        })?,
    )?;
    dlmp.set(
        "collect_pickup",
        lua.create_function(|lua, p: Value| {
            let p = pickup_arg("collect_pickup", &p)?;
            collect(lua, p, "collect_pickup")
        })?,
    )?;
    dlmp.set(
        "destroy_pickup",
        lua.create_function(|lua, p: Value| {
            let p = pickup_arg("destroy_pickup", &p)?;
            destroy(lua, p, "destroy_pickup")
        })?,
    )?;
    Ok(())
}

/// Creates the pickups `specs` (checked by the caller) for `owner`, all or none: every id
/// is taken before any pickup is noted or queued (`dlmp.create_pickup`, `dlmp.load_map`).
pub fn create_all(
    lua: &Lua,
    func: &str,
    specs: &[PickupSpec],
    owner: ResourceId,
) -> Result<Vec<LuaPickup>> {
    let mut book = book(lua)?;
    let ids = specs
        .iter()
        .map(|_| reserve(&book.last))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::runtime(format!("{func}: no pickup ids left")))?;
    let creates = ids
        .iter()
        .zip(specs)
        .map(|(&id, &spec)| PickupCommand::Create {
            id,
            spec,
            owner: Some(owner),
        });
    queue_messages(lua, creates)?;
    for (id, spec) in ids.iter().zip(specs) {
        book.pickups.insert(
            id.0,
            PickupInfo {
                model: spec.model,
                position: spec.position,
                active: true,
            },
        );
    }
    Ok(ids.into_iter().map(|id| LuaPickup { id }).collect())
}

/// Whether pickup `id` still exists and is active in the scripts' view: the guard of a
/// `pickup_interact`, so a collectible pickup an earlier handler collected pays out once
/// (world.md PickupTouch).
pub(crate) fn still_active(lua: &Lua, id: u64) -> bool {
    lua.app_data_ref::<PickupBook>().is_some_and(|book| {
        u32::try_from(id)
            .ok()
            .and_then(|id| book.pickups.get(&id))
            .is_some_and(|p| p.active)
    })
}

fn collect(lua: &Lua, p: LuaPickup, func: &str) -> Result<()> {
    {
        let mut book = book(lua)?;
        let info = book
            .pickups
            .get_mut(&p.id.0)
            .ok_or_else(|| gone(func, p.id))?;
        info.active = false;
    }
    queue_message(lua, PickupCommand::Collect { id: p.id })
}

fn destroy(lua: &Lua, p: LuaPickup, func: &str) -> Result<()> {
    book(lua)?
        .pickups
        .remove(&p.id.0)
        .ok_or_else(|| gone(func, p.id))?;
    queue_message(lua, PickupCommand::Destroy { id: p.id })
}

impl UserData for LuaPickup {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(book(lua)?.pickups.contains_key(&this.id.0))
        });
        methods.add_method("position", |lua, this, ()| {
            let p = this.info(lua, "position")?.position;
            Ok((f64::from(p.x), f64::from(p.y), f64::from(p.z)))
        });
        methods.add_method("model", |lua, this, ()| Ok(this.info(lua, "model")?.model));
        methods.add_method("is_active", |lua, this, ()| {
            Ok(this.info(lua, "is_active")?.active)
        });
        methods.add_method(
            "set_position",
            |lua, this, (x, y, z): (Value, Value, Value)| {
                let to = position("set_position", &x, &y, &z)?;
                book(lua)?
                    .pickups
                    .get_mut(&this.id.0)
                    .ok_or_else(|| gone("set_position", this.id))?
                    .position = to;
                queue_message(
                    lua,
                    PickupCommand::Move {
                        id: this.id,
                        position: to,
                    },
                )
            },
        );
        methods.add_method("destroy", |lua, this, ()| destroy(lua, *this, "destroy"));
    }
}

/// Before the scripts run: the book takes the server's counter and, when the ECS changed
/// pickups since (creations applied, respawns, a resource stop), the pickups as they are.
pub(super) fn refresh_view(
    host: Option<NonSend<ScriptHost>>,
    mut registry: ResMut<Pickups>,
    pickups: Query<&Pickup>,
) {
    let Some(host) = host else { return };
    let lua = host.lua();
    if lua.app_data_ref::<PickupBook>().is_none() {
        lua.set_app_data(PickupBook::default());
    }
    let Some(mut book) = lua.app_data_mut::<PickupBook>() else {
        return;
    };
    if !Arc::ptr_eq(&book.last, &registry.last) {
        // Ids scripts took before the first pass (at boot) stay taken.
        let taken = book.last.load(std::sync::atomic::Ordering::Relaxed);
        registry
            .last
            .fetch_max(taken, std::sync::atomic::Ordering::Relaxed);
        book.last = registry.counter();
        registry.changed = true;
    }
    if !std::mem::take(&mut registry.changed) {
        return;
    }
    book.pickups.clear();
    book.pickups.extend(pickups.iter().map(|p| {
        (
            p.id.0,
            PickupInfo {
                model: p.spec.model,
                position: p.spec.position,
                active: p.active,
            },
        )
    }));
}
