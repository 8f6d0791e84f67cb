//! `dlmp.create_checkpoint`, `dlmp.destroy_checkpoint` and the `Checkpoint` handle
//! (world.md Checkpoint).

use mlua::{Error, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::args::{float, option, rgb_or, scope, world_point};
use super::{state, state_mut};
use crate::checkpoint::{CheckpointCommand, CheckpointSpec, MAX_PER_PLAYER};
use dlmp_protocol::world::markers::{CHECKPOINT_RADIUS_MAX, CheckpointKind};
use dlmp_protocol::world::shared::MarkerId;
use dlmp_script::ResourceId;
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// A Lua handle to a checkpoint: its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaCheckpoint {
    pub id: MarkerId,
}

const KINDS: [(&str, CheckpointKind); 5] = [
    ("normal", CheckpointKind::Normal),
    ("race", CheckpointKind::Race),
    ("race_finish", CheckpointKind::RaceFinish),
    ("air", CheckpointKind::Air),
    ("air_finish", CheckpointKind::AirFinish),
];

const OPTIONS: [&str; 6] = [
    "kind",
    "radius",
    "next",
    "color",
    "virtual_world",
    "interior",
];

fn kind(func: &str, v: &Value) -> Result<CheckpointKind> {
    let name = args::string_or(func, "kind", v, "normal")?;
    KINDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, k)| k)
        .ok_or_else(|| {
            Error::runtime(format!(
                "{func}: kind \"{name}\" is not one of {}",
                KINDS.map(|(n, _)| n).join(", ")
            ))
        })
}

/// Removes the checkpoint; false if it was already gone.
fn destroy(lua: &Lua, id: MarkerId) -> Result<bool> {
    let existed = state_mut(lua)?.world.remove_checkpoint(id);
    if existed {
        queue_message(lua, CheckpointCommand::Destroy { id })?;
    }
    Ok(existed)
}

fn checkpoint_arg(func: &str, v: &Value) -> Result<LuaCheckpoint> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaCheckpoint>()
            .map(|c| *c)
            .map_err(|_| Error::runtime(format!("{func}: checkpoint must be a Checkpoint"))),
        other => Err(Error::runtime(format!(
            "{func}: checkpoint must be a Checkpoint, got {}",
            other.type_name()
        ))),
    }
}

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "create_checkpoint",
        lua.create_function(move |lua, a: Variadic<Value>| {
            const F: &str = "create_checkpoint";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let player = dlmp_player::script::player_arg(F, "player", &arg(0))?;
            let pos = world_point(F, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
            let opts = args::table_or_nil(F, "opts", &arg(4))?;
            if let Some(t) = &opts {
                known_options(F, t, &OPTIONS)?;
            }
            let opts = opts.as_ref();
            let kind = kind(F, &option(opts, "kind")?)?;
            let radius = match option(opts, "radius")? {
                Value::Nil => 3.0,
                v => float(
                    F,
                    "radius",
                    &v,
                    |r| r > 0.0 && r <= CHECKPOINT_RADIUS_MAX,
                    "(0, 100]",
                )?,
            };
            let next = match option(opts, "next")? {
                Value::Nil => pos,
                Value::Table(t) => {
                    let c = |i: usize| t.get::<Value>(i);
                    world_point(F, ["next[1]", "next[2]", "next[3]"], [&c(1)?, &c(2)?, &c(3)?])?
                }
                other => {
                    return Err(Error::runtime(format!(
                        "{F}: next must be a table {{x, y, z}}, got {}",
                        other.type_name()
                    )));
                }
            };
            let color = rgb_or(F, "color", &option(opts, "color")?, 0x00FF_0000)?;
            let scope = scope(F, opts)?;
            player.present(lua, F)?;
            let mut state = state_mut(lua)?;
            let has = state
                .world
                .checkpoints
                .values()
                .filter(|c| c.player == player.entity)
                .count();
            if has >= MAX_PER_PLAYER {
                return Err(Error::runtime(format!(
                    "{F}: the player has {MAX_PER_PLAYER} checkpoints already, the most a player may have"
                )));
            }
            let id = state.world.marker_ids.allocate().map_err(Error::external)?;
            state.world.add_checkpoint(id, player.entity);
            drop(state);
            let spec = CheckpointSpec {
                kind,
                pos,
                next,
                radius,
                color,
                scope,
            };
            queue_message(
                lua,
                CheckpointCommand::Create {
                    id,
                    player: player.entity,
                    spec,
                    owner: Some(resource),
                },
            )?;
            Ok(LuaCheckpoint { id })
        })?,
    )?;

    dlmp.set(
        "destroy_checkpoint",
        lua.create_function(|lua, c: Value| {
            let c = checkpoint_arg("destroy_checkpoint", &c)?;
            destroy(lua, c.id)
        })?,
    )?;
    Ok(())
}

impl UserData for LuaCheckpoint {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(state(lua)?.world.checkpoints.contains_key(&this.id))
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, this.id));
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<Self>| {
            Ok(*this == *other)
        });
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("Checkpoint({})", this.id.0))
        });
    }
}
