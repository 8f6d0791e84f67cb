//! `dlmp.create_colshape`, `dlmp.destroy_colshape` and the `Colshape` handle (lua-api.md;
//! world.md ColshapeShape).

use mlua::{Error, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::args::{float, scope, world_point};
use super::{state, state_mut};
use crate::colshape::{ColshapeCommand, contains};
use dlmp_player::script::LuaPlayer;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::world::markers::{COLSHAPE_EXTENT_MAX, ColshapeId, Shape};
use dlmp_script::ResourceId;
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// A Lua handle to a colshape: its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaColshape {
    pub id: ColshapeId,
}

const OPTIONS: [&str; 2] = ["virtual_world", "interior"];

fn extent(func: &str, arg: &str, v: &Value) -> Result<f32> {
    float(
        func,
        arg,
        v,
        |r| r > 0.0 && r <= COLSHAPE_EXTENT_MAX,
        "(0, 12000]",
    )
}

/// The form and its numbers, and where the option table would be.
fn shape(func: &str, a: &[Value]) -> Result<(Shape, usize)> {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
    let form = args::string(func, "form", &arg(0))?;
    match form.as_str() {
        "sphere" => {
            let center = world_point(func, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
            let radius = extent(func, "radius", &arg(4))?;
            Ok((Shape::Sphere { center, radius }, 5))
        }
        "cylinder" => {
            let base = world_point(func, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
            let radius = extent(func, "radius", &arg(4))?;
            let height = extent(func, "height", &arg(5))?;
            Ok((
                Shape::Cylinder {
                    base,
                    radius,
                    height,
                },
                6,
            ))
        }
        "box" => {
            let min = world_point(
                func,
                ["min_x", "min_y", "min_z"],
                [&arg(1), &arg(2), &arg(3)],
            )?;
            let max = world_point(
                func,
                ["max_x", "max_y", "max_z"],
                [&arg(4), &arg(5), &arg(6)],
            )?;
            for (axis, lo, hi) in [
                ("x", min.x, max.x),
                ("y", min.y, max.y),
                ("z", min.z, max.z),
            ] {
                if lo >= hi {
                    return Err(Error::runtime(format!(
                        "{func}: min_{axis} {lo} must be below max_{axis} {hi}"
                    )));
                }
            }
            Ok((Shape::Box { min, max }, 7))
        }
        other => Err(Error::runtime(format!(
            "{func}: form \"{other}\" is not one of sphere, cylinder, box"
        ))),
    }
}

fn colshape_arg(func: &str, v: &Value) -> Result<LuaColshape> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaColshape>()
            .map(|c| *c)
            .map_err(|_| Error::runtime(format!("{func}: colshape must be a Colshape"))),
        other => Err(Error::runtime(format!(
            "{func}: colshape must be a Colshape, got {}",
            other.type_name()
        ))),
    }
}

/// Removes the colshape; false if it was already gone.
fn destroy(lua: &Lua, id: ColshapeId) -> Result<bool> {
    let existed = state_mut(lua)?.world.remove_colshape(id);
    if existed {
        queue_message(lua, ColshapeCommand::Destroy { id })?;
    }
    Ok(existed)
}

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "create_colshape",
        lua.create_function(move |lua, a: Variadic<Value>| {
            const F: &str = "create_colshape";
            let (shape, at) = shape(F, &a)?;
            let opts = args::table_or_nil(F, "opts", &a.get(at).cloned().unwrap_or(Value::Nil))?;
            if let Some(t) = &opts {
                known_options(F, t, &OPTIONS)?;
            }
            let scope = scope(F, opts.as_ref())?;
            let id = {
                let mut state = state_mut(lua)?;
                let id = state
                    .world
                    .colshape_ids
                    .allocate()
                    .map_err(Error::external)?;
                state.world.add_colshape(id, shape);
                id
            };
            queue_message(
                lua,
                ColshapeCommand::Create {
                    id,
                    shape,
                    scope,
                    owner: Some(resource),
                },
            )?;
            Ok(LuaColshape { id })
        })?,
    )?;

    dlmp.set(
        "destroy_colshape",
        lua.create_function(|lua, c: Value| {
            let c = colshape_arg("destroy_colshape", &c)?;
            destroy(lua, c.id)
        })?,
    )?;
    Ok(())
}

fn gone(method: &str) -> Error {
    Error::runtime(format!("{method}: the colshape no longer exists"))
}

/// The outline to `player` on or off.
fn outline(lua: &Lua, this: &LuaColshape, method: &str, v: &Value, shown: bool) -> Result<()> {
    let player = dlmp_player::script::player_arg(method, "player", v)?;
    player.present(lua, method)?;
    if !state(lua)?.world.colshapes.contains_key(&this.id) {
        return Err(gone(method));
    }
    queue_message(
        lua,
        ColshapeCommand::Outline {
            id: this.id,
            player: player.entity,
            shown,
        },
    )
}

impl UserData for LuaColshape {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(state(lua)?.world.colshapes.contains_key(&this.id))
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, this.id));
        methods.add_method("show", |lua, this, p: Value| {
            outline(lua, this, "show", &p, true)
        });
        methods.add_method("hide", |lua, this, p: Value| {
            outline(lua, this, "hide", &p, false)
        });
        methods.add_method("contains", |lua, this, (x, y, z): (Value, Value, Value)| {
            const M: &str = "contains";
            let any = |_: f32| true;
            let p = Vec3::new(
                float(M, "x", &x, any, "a finite number")?,
                float(M, "y", &y, any, "a finite number")?,
                float(M, "z", &z, any, "a finite number")?,
            );
            let state = state(lua)?;
            let shape = state.world.colshapes.get(&this.id).ok_or_else(|| gone(M))?;
            Ok(contains(&shape.shape, p))
        });
        methods.add_method("players", |lua, this, ()| {
            let list: Vec<LuaPlayer> = {
                let state = state(lua)?;
                let views = dlmp_player::script::views(lua)?;
                let shape = state
                    .world
                    .colshapes
                    .get(&this.id)
                    .ok_or_else(|| gone("players"))?;
                shape
                    .inside
                    .iter()
                    .filter_map(|e| {
                        views.0.get(e).filter(|p| p.connected).map(|p| LuaPlayer {
                            entity: *e,
                            token: p.token,
                        })
                    })
                    .collect()
            };
            lua.create_sequence_from(list)
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<Self>| {
            Ok(*this == *other)
        });
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("Colshape({})", this.id.0))
        });
    }
}
