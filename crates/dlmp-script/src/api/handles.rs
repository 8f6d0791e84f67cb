//! Entity handles as Lua sees them (ADR 0035): one userdata per entity, so the same
//! entity gives the same handle (`rawequal`, table keys such as `data[player]`), and a
//! data table per entity (`entity:set_data`, `entity:data`) that goes with the entity.
//!
//! Both live in the Lua registry, keyed by the entity's bits (generation included, so a
//! reused slot is another key). The handle cache holds its values weakly: a handle no
//! script keeps is collected and the next one is new, which no script can tell apart.
//! Every entity handle kind converts through [`Cached`] and adds its data methods with
//! [`add_data_methods`]; the host clears an entity with [`forget`] when it goes.

use bevy_ecs::entity::Entity;
use mlua::{AnyUserData, Error, IntoLua, Lua, Result, Table, UserDataMethods, Value};

const HANDLES: &str = "dlmp.handles";
const DATA: &str = "dlmp.entity_data";

/// A handle kind: an entity plus what tells its generation apart. Its methods are
/// registered with [`ScriptApi::methods`](crate::ScriptApi::methods), so that every crate
/// can add its own.
pub trait EntityHandle: Copy + PartialEq + 'static {
    fn entity(&self) -> Entity;
    /// Fails like every method of the kind when the entity is gone (`METHOD: ...`).
    fn check(&self, lua: &Lua, method: &str) -> Result<()>;
}

/// A handle converted to Lua through the cache: the same entity gives the same userdata.
pub struct Cached<T>(pub T);

fn key(entity: Entity) -> i64 {
    entity.to_bits().cast_signed()
}

fn registry_table(lua: &Lua, name: &str, mode: Option<&str>) -> Result<Table> {
    if let Some(t) = lua.named_registry_value::<Option<Table>>(name)? {
        return Ok(t);
    }
    let t = lua.create_table()?;
    if let Some(mode) = mode {
        let meta = lua.create_table()?;
        meta.set("__mode", mode)?;
        t.set_metatable(Some(meta))?;
    }
    lua.set_named_registry_value(name, &t)?;
    Ok(t)
}

impl<T: EntityHandle> IntoLua for Cached<T> {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        let cache = registry_table(lua, HANDLES, Some("v"))?;
        let k = key(self.0.entity());
        if let Some(ud) = cache.raw_get::<Option<AnyUserData>>(k)?
            && ud.borrow::<T>().is_ok_and(|h| *h == self.0)
        {
            return Ok(Value::UserData(ud));
        }
        let ud = lua.create_any_userdata(self.0)?;
        cache.raw_set(k, &ud)?;
        Ok(Value::UserData(ud))
    }
}

/// Forgets `entity`'s handle and data: it left or was despawned.
pub fn forget(lua: &Lua, entity: Entity) -> Result<()> {
    let k = key(entity);
    registry_table(lua, HANDLES, Some("v"))?.raw_set(k, Value::Nil)?;
    registry_table(lua, DATA, None)?.raw_set(k, Value::Nil)
}

/// `entity:set_data(key, value)` and `entity:data(key)` for a handle kind.
pub fn add_data_methods<T: EntityHandle, M: UserDataMethods<T>>(methods: &mut M) {
    methods.add_method("set_data", |lua, this, (k, v): (Value, Value)| {
        this.check(lua, "set_data")?;
        if k.is_nil() {
            return Err(Error::runtime("set_data: key must not be nil"));
        }
        if let Value::Number(n) = k
            && n.is_nan()
        {
            return Err(Error::runtime("set_data: key must not be NaN"));
        }
        let all = registry_table(lua, DATA, None)?;
        let id = key(this.entity());
        let data = match all.raw_get::<Option<Table>>(id)? {
            Some(t) => t,
            None if v.is_nil() => return Ok(()),
            None => {
                let t = lua.create_table()?;
                all.raw_set(id, &t)?;
                t
            }
        };
        data.raw_set(k, v)
    });
    methods.add_method("data", |lua, this, k: Value| {
        this.check(lua, "data")?;
        match registry_table(lua, DATA, None)?.raw_get::<Option<Table>>(key(this.entity()))? {
            Some(t) if !k.is_nil() => t.raw_get::<Value>(k),
            _ => Ok(Value::Nil),
        }
    });
}
