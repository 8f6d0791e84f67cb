//! The edit session's Lua API (editing.md §5): `dlmp.start_edit`, `dlmp.stop_edit`,
//! `dlmp.edit_select` and `player:edit_session()`, `edit_selection()`, `edit_camera()`.
//! Each call checks what the view can answer, shows its effect in the view at once and
//! queues an [`EditCommand`] applied in the same tick.

use bevy_ecs::entity::{Entity, EntityHashMap};
use bevy_ecs::prelude::*;
use mlua::{Error, IntoLuaMulti, Lua, Result, Table, UserDataMethods, Value};

use super::admit::handle;
use super::{EditCommand, EditIds, EditOptions, EditSession, Target};
use crate::pickup::script::LuaPickup;
use crate::script::LuaObject;
use crate::script::{LuaColshape, LuaGangZone, LuaLabel};
use dlmp_player::control::SessionCamera;
use dlmp_player::control::camera::CameraSetting;
use dlmp_player::script::{LuaPlayer, player_arg};
use dlmp_protocol::edit::state::{RANGE_MAX, RANGE_MIN};
use dlmp_protocol::edit::{EditKind, EditKinds};
use dlmp_protocol::geometry::Vec3;
use dlmp_script::api::args::{self, known_options};
use dlmp_script::api::queue_message;
use dlmp_script::{ResourceId, ScriptHost};

/// A session as scripts see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionView {
    pub id: u32,
    pub selection: Option<Target>,
    /// The camera point, with the free camera.
    pub camera: Option<Vec3>,
}

/// The sessions as scripts see them, and the id counter.
#[derive(Debug, Clone, Default)]
pub struct EditView {
    pub ids: EditIds,
    pub sessions: EntityHashMap<SessionView>,
}

fn view(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, EditView>> {
    lua.app_data_mut::<EditView>()
        .ok_or_else(|| Error::runtime("no edit view"))
}

const OPTIONS: [&str; 8] = [
    "camera",
    "pick",
    "kinds",
    "entities",
    "any_resource",
    "anchor",
    "range",
    "select",
];

/// The editable entity a handle names.
pub fn target_arg(func: &str, arg: &str, v: &Value) -> Result<Target> {
    let t = |kind, id| Ok(Target { kind, id });
    if let Value::UserData(u) = v {
        if let Ok(o) = u.borrow::<LuaObject>() {
            return t(EditKind::Object, o.id.0);
        }
        if let Ok(p) = u.borrow::<LuaPickup>() {
            return t(EditKind::Pickup, p.id.0);
        }
        if let Ok(l) = u.borrow::<LuaLabel>() {
            return t(EditKind::Label, l.id.0);
        }
        if let Ok(z) = u.borrow::<LuaGangZone>() {
            return t(EditKind::GangZone, z.id.0);
        }
        if let Ok(c) = u.borrow::<LuaColshape>() {
            return t(EditKind::Colshape, c.id.0);
        }
    }
    Err(Error::runtime(format!(
        "{func}: {arg} must be an Object, a Pickup, a Label, a GangZone or a Colshape, got {}",
        args::type_name(v)
    )))
}

fn kinds_arg(func: &str, v: &Value) -> Result<EditKinds> {
    let Some(list) = args::table_or_nil(func, "kinds", v)? else {
        return Ok(EditKinds::ALL);
    };
    let mut kinds = EditKinds(0);
    for name in list.sequence_values::<Value>() {
        let name = args::string(func, "kinds", &name?)?;
        let kind = EditKind::from_name(&name).ok_or_else(|| {
            Error::runtime(format!(
                "{func}: kinds: \"{name}\" is not one of object, pickup, label, zone, colshape"
            ))
        })?;
        kinds = kinds.with(kind);
    }
    if kinds.0 == 0 {
        return Err(Error::runtime(format!("{func}: kinds is empty")));
    }
    Ok(kinds)
}

fn options(lua: &Lua, func: &str, v: &Value) -> Result<EditOptions> {
    let mut o = EditOptions::default();
    let Some(t) = args::table_or_nil(func, "options", v)? else {
        return Ok(o);
    };
    known_options(func, &t, &OPTIONS)?;
    let get = |k: &str| t.get::<Value>(k);
    o.camera = match args::string_or(func, "camera", &get("camera")?, "own")?.as_str() {
        "own" => SessionCamera::Own,
        "free" => SessionCamera::Free,
        other => {
            return Err(Error::runtime(format!(
                "{func}: camera \"{other}\" is not \"own\" or \"free\""
            )));
        }
    };
    o.pick = args::boolean_or(func, "pick", &get("pick")?, true)?;
    o.kinds = kinds_arg(func, &get("kinds")?)?;
    o.any_resource = args::boolean_or(func, "any_resource", &get("any_resource")?, false)?;
    if let Some(list) = args::table_or_nil(func, "entities", &get("entities")?)? {
        let mut entities = Vec::new();
        for v in list.sequence_values::<Value>() {
            entities.push(target_arg(func, "entities", &v?)?);
        }
        o.entities = Some(entities);
    }
    if let Some(a) = args::table_or_nil(func, "anchor", &get("anchor")?)? {
        let (x, y, z): (Value, Value, Value) = (a.get(1)?, a.get(2)?, a.get(3)?);
        o.anchor = Some(args::world_point(
            func,
            ["anchor x", "anchor y", "anchor z"],
            [&x, &y, &z],
        )?);
    }
    let range = get("range")?;
    if !range.is_nil() {
        o.range = args::f32_in(func, "range", &range, RANGE_MIN..=RANGE_MAX)?;
    }
    let select = get("select")?;
    if !select.is_nil() {
        o.select = Some(target_arg(func, "select", &select)?);
    }
    let _ = lua;
    Ok(o)
}

fn start(lua: &Lua, player: &Value, opts: &Value, resource: ResourceId) -> Result<u32> {
    const F: &str = "start_edit";
    let p = player_arg(F, "player", player)?;
    let options = options(lua, F, opts)?;
    let (id, alive) = p.with(lua, F, |v| (v.id, v.spawned && v.alive))?;
    if !alive {
        return Err(Error::runtime(format!("{F}: player {} is not alive", id.0)));
    }
    if view(lua)?.sessions.contains_key(&p.entity) {
        return Err(Error::runtime(format!(
            "{F}: player {} is already editing",
            id.0
        )));
    }
    let session = view(lua)?
        .ids
        .next()
        .ok_or_else(|| Error::runtime(format!("{F}: no session ids left")))?;
    let free = options.camera == SessionCamera::Free;
    p.with_mut(lua, F, |v| {
        v.camera_held = true;
        if free {
            v.camera = CameraSetting::Free;
        }
        Ok(())
    })?;
    view(lua)?.sessions.insert(
        p.entity,
        SessionView {
            id: session.0,
            selection: options.select,
            camera: None,
        },
    );
    queue_message(
        lua,
        EditCommand::Start {
            player: p.entity,
            session,
            resource,
            options,
        },
    )?;
    Ok(session.0)
}

/// The player of a session, or "FUNC: player N is not editing".
fn editing(lua: &Lua, func: &str, player: &Value) -> Result<LuaPlayer> {
    let p = player_arg(func, "player", player)?;
    let id = p.with(lua, func, |v| v.id)?;
    if !view(lua)?.sessions.contains_key(&p.entity) {
        return Err(Error::runtime(format!(
            "{func}: player {} is not editing",
            id.0
        )));
    }
    Ok(p)
}

fn stop(lua: &Lua, player: &Value) -> Result<()> {
    const F: &str = "stop_edit";
    let p = editing(lua, F, player)?;
    view(lua)?.sessions.remove(&p.entity);
    p.with_mut(lua, F, |v| {
        v.camera_held = false;
        if v.camera == CameraSetting::Free {
            v.camera = CameraSetting::Own;
        }
        Ok(())
    })?;
    queue_message(lua, EditCommand::Stop { player: p.entity })
}

fn select(lua: &Lua, player: &Value, entity: &Value) -> Result<()> {
    const F: &str = "edit_select";
    let p = editing(lua, F, player)?;
    let target = match entity {
        Value::Nil => None,
        v => Some(target_arg(F, "entity", v)?),
    };
    if let Some(t) = target {
        let other = view(lua)?
            .sessions
            .iter()
            .find(|(e, s)| **e != p.entity && s.selection == Some(t))
            .map(|(e, _)| *e);
        if let Some(other) = other {
            let views = dlmp_player::script::views(lua)?;
            let other_id = views.0.get(&other).map_or(0, |v| v.id.0);
            return Err(Error::runtime(format!(
                "{F}: {} {} is selected by player {other_id}",
                t.kind.name(),
                t.id
            )));
        }
    }
    if let Some(s) = view(lua)?.sessions.get_mut(&p.entity) {
        s.selection = target;
    }
    queue_message(
        lua,
        EditCommand::Select {
            player: p.entity,
            target,
        },
    )
}

/// Adds the session functions to `dlmp` of `resource`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "start_edit",
        lua.create_function(move |lua, (player, opts): (Value, Value)| {
            start(lua, &player, &opts, resource)
        })?,
    )?;
    dlmp.set(
        "stop_edit",
        lua.create_function(|lua, player: Value| stop(lua, &player))?,
    )?;
    dlmp.set(
        "edit_select",
        lua.create_function(|lua, (player, entity): (Value, Value)| select(lua, &player, &entity))?,
    )?;
    Ok(())
}

fn session_of(lua: &Lua, this: &LuaPlayer, method: &str) -> Result<Option<SessionView>> {
    this.with(lua, method, |_| ())?;
    Ok(view(lua)?.sessions.get(&this.entity).copied())
}

/// `player:edit_session()`, `edit_selection()` and `edit_camera()`.
pub(crate) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("edit_session", |lua, this, ()| {
        Ok(session_of(lua, this, "edit_session")?.map(|s| s.id))
    });
    methods.add_method("edit_selection", |lua, this, ()| {
        match session_of(lua, this, "edit_selection")?.and_then(|s| s.selection) {
            Some(t) => (&handle(t)).into_lua_multi(lua),
            None => Value::Nil.into_lua_multi(lua),
        }
    });
    methods.add_method("edit_camera", |lua, this, ()| {
        match session_of(lua, this, "edit_camera")?.and_then(|s| s.camera) {
            Some(p) => (f64::from(p.x), f64::from(p.y), f64::from(p.z)).into_lua_multi(lua),
            None => Value::Nil.into_lua_multi(lua),
        }
    });
}

/// Puts the view into the Lua app data, sharing the app's id counter.
pub(crate) fn setup(lua: &Lua, world: &mut World) {
    let ids = world.get_resource_or_init::<EditIds>().clone();
    lua.set_app_data(EditView {
        ids,
        sessions: EntityHashMap::default(),
    });
}

/// Rebuilds the view from the sessions before the scripts run.
pub(crate) fn refresh_view(host: NonSend<ScriptHost>, sessions: Query<(Entity, &EditSession)>) {
    if let Some(mut view) = host.lua().app_data_mut::<EditView>() {
        view.sessions = sessions
            .iter()
            .map(|(e, s)| {
                (
                    e,
                    SessionView {
                        id: s.id.0,
                        selection: s.selection,
                        camera: s.camera_point,
                    },
                )
            })
            .collect();
    }
}
