//! `dlmp.create_label`, `dlmp.destroy_label` and the `Label` handle (lua-api.md; world.md
//! Label3D).

use mlua::{Error, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value};

use super::args::{attach, float, label_text, option, rgb_or, scope, viewer, world_point};
use super::{state, state_mut};
use crate::label::{DEFAULT_DRAW_DISTANCE, LabelCommand, LabelSpec};
use dlmp_protocol::world::label::LABEL_DRAW_MAX;
use dlmp_protocol::world::shared::MarkerId;
use dlmp_script::ResourceId;
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// A Lua handle to a 3D label: its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaLabel {
    pub id: MarkerId,
}

const OPTIONS: [&str; 7] = [
    "raw",
    "color",
    "draw_distance",
    "attach",
    "viewer",
    "virtual_world",
    "interior",
];

fn label_arg(func: &str, v: &Value) -> Result<LuaLabel> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaLabel>()
            .map(|l| *l)
            .map_err(|_| Error::runtime(format!("{func}: label must be a Label"))),
        other => Err(Error::runtime(format!(
            "{func}: label must be a Label, got {}",
            other.type_name()
        ))),
    }
}

/// Removes the label; false if it was already gone.
fn destroy(lua: &Lua, id: MarkerId) -> Result<bool> {
    let existed = state_mut(lua)?.world.remove_label(id);
    if existed {
        queue_message(lua, LabelCommand::Destroy { id })?;
    }
    Ok(existed)
}

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "create_label",
        lua.create_function(
            move |lua, (text, x, y, z, opts): (Value, Value, Value, Value, Value)| {
                const F: &str = "create_label";
                let position = world_point(F, ["x", "y", "z"], [&x, &y, &z])?;
                let opts = args::table_or_nil(F, "opts", &opts)?;
                if let Some(t) = &opts {
                    known_options(F, t, &OPTIONS)?;
                }
                let opts = opts.as_ref();
                let raw = args::boolean_or(F, "raw", &option(opts, "raw")?, false)?;
                let text = label_text(F, &text, raw)?;
                let draw_distance = match option(opts, "draw_distance")? {
                    Value::Nil => DEFAULT_DRAW_DISTANCE,
                    v => float(
                        F,
                        "draw_distance",
                        &v,
                        |d| d > 0.0 && d <= LABEL_DRAW_MAX,
                        "(0, 300]",
                    )?,
                };
                let spec = LabelSpec {
                    text,
                    color: rgb_or(F, "color", &option(opts, "color")?, 0x00FF_FFFF)?,
                    position,
                    draw_distance,
                    attach: attach(lua, F, opts)?,
                    scope: scope(F, opts)?,
                    viewer: viewer(lua, F, opts)?,
                };
                let id = {
                    let mut state = state_mut(lua)?;
                    let id = state.world.marker_ids.allocate().map_err(Error::external)?;
                    state.world.add_label(id);
                    id
                };
                queue_message(
                    lua,
                    LabelCommand::Create {
                        id,
                        spec,
                        owner: Some(resource),
                    },
                )?;
                Ok(LuaLabel { id })
            },
        )?,
    )?;

    dlmp.set(
        "destroy_label",
        lua.create_function(|lua, l: Value| {
            let l = label_arg("destroy_label", &l)?;
            destroy(lua, l.id)
        })?,
    )?;
    Ok(())
}

/// Queues `command` for this label, or "METHOD: label N no longer exists".
fn change(lua: &Lua, this: &LuaLabel, method: &str, command: LabelCommand) -> Result<()> {
    if !state(lua)?.world.labels.contains_key(&this.id) {
        return Err(Error::runtime(format!(
            "{method}: label {} no longer exists",
            this.id.0
        )));
    }
    queue_message(lua, command)
}

impl UserData for LuaLabel {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(state(lua)?.world.labels.contains_key(&this.id))
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, this.id));
        methods.add_method("set_text", |lua, this, (t, raw): (Value, Value)| {
            let raw = args::boolean_or("set_text", "raw", &raw, false)?;
            let text = label_text("set_text", &t, raw)?;
            change(
                lua,
                this,
                "set_text",
                LabelCommand::SetText { id: this.id, text },
            )
        });
        methods.add_method("set_color", |lua, this, c: Value| {
            if c.is_nil() {
                return Err(Error::runtime("set_color: rgb is required"));
            }
            let color = rgb_or("set_color", "rgb", &c, 0)?;
            change(
                lua,
                this,
                "set_color",
                LabelCommand::SetColor { id: this.id, color },
            )
        });
        methods.add_method(
            "set_position",
            |lua, this, (x, y, z): (Value, Value, Value)| {
                let position = world_point("set_position", ["x", "y", "z"], [&x, &y, &z])?;
                let command = LabelCommand::SetPosition {
                    id: this.id,
                    position,
                };
                change(lua, this, "set_position", command)
            },
        );
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<Self>| {
            Ok(*this == *other)
        });
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("Label({})", this.id.0))
        });
    }
}
