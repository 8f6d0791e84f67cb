//! `dlmp.create_gang_zone`, `dlmp.destroy_gang_zone` and the `GangZone` handle (lua-api.md;
//! world.md GangZone).

use mlua::{Error, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value};

use super::args::{float, option, rgb_or, scope, viewer};
use super::{state, state_mut};
use crate::gang_zone::{GangZoneCommand, GangZoneSpec};
use dlmp_protocol::world::shared::{MarkerId, WORLD_XY};
use dlmp_script::ResourceId;
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// A Lua handle to a gang zone: its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaGangZone {
    pub id: MarkerId,
}

const OPTIONS: [&str; 5] = ["color", "alpha", "viewer", "virtual_world", "interior"];

fn corner(func: &str, arg: &str, v: &Value) -> Result<f32> {
    float(func, arg, v, |c| c.abs() <= WORLD_XY, "-6000..=6000")
}

fn alpha(func: &str, v: &Value, default: u8) -> Result<u8> {
    let a = args::integer_or(func, "alpha", v, 0..=255, i64::from(default))?;
    u8::try_from(a).map_err(Error::external)
}

fn zone_arg(func: &str, v: &Value) -> Result<LuaGangZone> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaGangZone>()
            .map(|z| *z)
            .map_err(|_| Error::runtime(format!("{func}: zone must be a GangZone"))),
        other => Err(Error::runtime(format!(
            "{func}: zone must be a GangZone, got {}",
            other.type_name()
        ))),
    }
}

/// Removes the zone; false if it was already gone.
fn destroy(lua: &Lua, id: MarkerId) -> Result<bool> {
    let existed = state_mut(lua)?.world.remove_gang_zone(id);
    if existed {
        queue_message(lua, GangZoneCommand::Destroy { id })?;
    }
    Ok(existed)
}

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "create_gang_zone",
        lua.create_function(
            move |lua, (x0, y0, x1, y1, opts): (Value, Value, Value, Value, Value)| {
                const F: &str = "create_gang_zone";
                let min = [corner(F, "min_x", &x0)?, corner(F, "min_y", &y0)?];
                let max = [corner(F, "max_x", &x1)?, corner(F, "max_y", &y1)?];
                for (axis, lo, hi) in [("x", min[0], max[0]), ("y", min[1], max[1])] {
                    if lo >= hi {
                        return Err(Error::runtime(format!(
                            "{F}: min_{axis} {lo} must be below max_{axis} {hi}"
                        )));
                    }
                }
                let opts = args::table_or_nil(F, "opts", &opts)?;
                if let Some(t) = &opts {
                    known_options(F, t, &OPTIONS)?;
                }
                let opts = opts.as_ref();
                let color = rgb_or(F, "color", &option(opts, "color")?, 0x00FF_FFFF)?;
                let alpha = alpha(F, &option(opts, "alpha")?, 128)?;
                let viewer = viewer(lua, F, opts)?;
                let spec = GangZoneSpec {
                    min,
                    max,
                    color,
                    alpha,
                    flash: None,
                    scope: scope(F, opts)?,
                    viewer,
                };
                let id = {
                    let mut state = state_mut(lua)?;
                    let id = state.world.marker_ids.allocate().map_err(Error::external)?;
                    state.world.add_gang_zone(id);
                    id
                };
                queue_message(
                    lua,
                    GangZoneCommand::Create {
                        id,
                        spec,
                        owner: Some(resource),
                    },
                )?;
                Ok(LuaGangZone { id })
            },
        )?,
    )?;

    dlmp.set(
        "destroy_gang_zone",
        lua.create_function(|lua, z: Value| {
            let z = zone_arg("destroy_gang_zone", &z)?;
            destroy(lua, z.id)
        })?,
    )?;
    Ok(())
}

/// Queues `command` for this zone, or "METHOD: the gang zone no longer exists".
fn change(lua: &Lua, this: &LuaGangZone, method: &str, command: GangZoneCommand) -> Result<()> {
    if !state(lua)?.world.gang_zones.contains_key(&this.id) {
        return Err(Error::runtime(format!(
            "{method}: the gang zone no longer exists"
        )));
    }
    queue_message(lua, command)
}

impl UserData for LuaGangZone {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(state(lua)?.world.gang_zones.contains_key(&this.id))
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, this.id));
        methods.add_method("flash", |lua, this, c: Value| {
            let color = rgb_or("flash", "flash_color", &c, 0)?;
            if c.is_nil() {
                return Err(Error::runtime(
                    "flash: flash_color must be a number 0..=16777215, got nil",
                ));
            }
            let command = GangZoneCommand::Flash {
                id: this.id,
                color: Some(color),
            };
            change(lua, this, "flash", command)
        });
        methods.add_method("stop_flash", |lua, this, ()| {
            let command = GangZoneCommand::Flash {
                id: this.id,
                color: None,
            };
            change(lua, this, "stop_flash", command)
        });
        methods.add_method("set_color", |lua, this, (c, a): (Value, Value)| {
            const M: &str = "set_color";
            if c.is_nil() || a.is_nil() {
                let arg = if c.is_nil() { "rgb" } else { "alpha" };
                return Err(Error::runtime(format!("{M}: {arg} is required")));
            }
            let command = GangZoneCommand::SetColor {
                id: this.id,
                color: rgb_or(M, "rgb", &c, 0)?,
                alpha: alpha(M, &a, 0)?,
            };
            change(lua, this, M, command)
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<Self>| {
            Ok(*this == *other)
        });
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("GangZone({})", this.id.0))
        });
    }
}
