//! `dlmp.create_blip`, `dlmp.destroy_blip` and the `Blip` handle (lua-api.md; world.md
//! Blip).

use mlua::{Error, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value};

use super::args::{attach, float, option, rgb_or, scope, viewer, world_point};
use super::{state, state_mut};
use crate::blip::{BlipCommand, BlipSpec, DRAW_DISTANCE_MAX};
use dlmp_protocol::world::markers::{BLIP_SIZE_MAX, BLIP_SIZE_MIN, BLIP_SPRITE_MAX, BlipFlags};
use dlmp_protocol::world::shared::MarkerId;
use dlmp_script::ResourceId;
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// A Lua handle to a blip: its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaBlip {
    pub id: MarkerId,
}

const OPTIONS: [&str; 9] = [
    "sprite",
    "color",
    "size",
    "flags",
    "draw_distance",
    "attach",
    "viewer",
    "virtual_world",
    "interior",
];

fn blip_arg(func: &str, v: &Value) -> Result<LuaBlip> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaBlip>()
            .map(|b| *b)
            .map_err(|_| Error::runtime(format!("{func}: blip must be a Blip"))),
        other => Err(Error::runtime(format!(
            "{func}: blip must be a Blip, got {}",
            other.type_name()
        ))),
    }
}

/// Removes the blip; false if it was already gone.
fn destroy(lua: &Lua, id: MarkerId) -> Result<bool> {
    let existed = state_mut(lua)?.world.remove_blip(id);
    if existed {
        queue_message(lua, BlipCommand::Destroy { id })?;
    }
    Ok(existed)
}

/// The blip of `x, y, z` and `opts`, every field checked against world.md Blip.
fn spec(lua: &Lua, x: &Value, y: &Value, z: &Value, opts: &Value) -> Result<BlipSpec> {
    const F: &str = "create_blip";
    let position = world_point(F, ["x", "y", "z"], [x, y, z])?;
    let opts = args::table_or_nil(F, "opts", opts)?;
    if let Some(t) = &opts {
        known_options(F, t, &OPTIONS)?;
    }
    let opts = opts.as_ref();
    let sprite = args::integer_or(
        F,
        "sprite",
        &option(opts, "sprite")?,
        0..=i64::from(BLIP_SPRITE_MAX),
        0,
    )?;
    let flags = args::integer_or(
        F,
        "flags",
        &option(opts, "flags")?,
        0..=i64::from(BlipFlags::KNOWN.0),
        0,
    )?;
    let size = match option(opts, "size")? {
        Value::Nil => 1.0,
        v => float(
            F,
            "size",
            &v,
            |s| (BLIP_SIZE_MIN..=BLIP_SIZE_MAX).contains(&s),
            "0.25..=4",
        )?,
    };
    let draw_distance = match option(opts, "draw_distance")? {
        Value::Nil => None,
        v => Some(float(
            F,
            "draw_distance",
            &v,
            |d| d > 0.0 && d <= DRAW_DISTANCE_MAX,
            "(0, 17000]",
        )?),
    };
    let attach = attach(lua, F, opts)?;
    if attach.is_some() && sprite != 0 {
        return Err(Error::runtime(format!(
            "{F}: sprite {sprite} must be 0 for an attached blip"
        )));
    }
    Ok(BlipSpec {
        sprite: u8::try_from(sprite).map_err(Error::external)?,
        color: rgb_or(F, "color", &option(opts, "color")?, 0x00FF_FFFF)?,
        position,
        size,
        flags: BlipFlags(u8::try_from(flags).map_err(Error::external)?),
        draw_distance,
        attach,
        scope: scope(F, opts)?,
        viewer: viewer(lua, F, opts)?,
    })
}

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "create_blip",
        lua.create_function(move |lua, (x, y, z, opts): (Value, Value, Value, Value)| {
            let spec = spec(lua, &x, &y, &z, &opts)?;
            let id = {
                let mut state = state_mut(lua)?;
                let id = state.world.marker_ids.allocate().map_err(Error::external)?;
                state.world.add_blip(id);
                id
            };
            queue_message(
                lua,
                BlipCommand::Create {
                    id,
                    spec,
                    owner: Some(resource),
                },
            )?;
            Ok(LuaBlip { id })
        })?,
    )?;

    dlmp.set(
        "destroy_blip",
        lua.create_function(|lua, b: Value| {
            let b = blip_arg("destroy_blip", &b)?;
            destroy(lua, b.id)
        })?,
    )?;
    Ok(())
}

impl UserData for LuaBlip {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(state(lua)?.world.blips.contains_key(&this.id))
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, this.id));
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<Self>| {
            Ok(*this == *other)
        });
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("Blip({})", this.id.0))
        });
    }
}
