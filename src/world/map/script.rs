//! `dlmp.load_map(path) --> list of the created handles` (lua-api.md, maps): reads a map
//! file of the calling resource (a relative path inside its folder, the sandbox's rules,
//! ADR 0035), checks every entry ([`super::load::plan`]) and only then creates them, all
//! owned by the resource, so stopping it removes them like everything else it made. A
//! map with an error raises a Lua error naming the file and line and creates nothing.
//! Skipped input (unknown elements, attributes, calls; vehicles until they exist) is
//! logged as a warning naming the resource and the file. ADR 0050.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bevy_ecs::prelude::*;
use mlua::{Error, Lua, Result, Table, Value};
use tracing::warn;

use super::{Format, MAX_FILE_BYTES, MapError, load};
use crate::script::ResourceId;
use crate::script::ScriptHost;
use crate::script::api::{args, queue_messages, resource_dir};
use crate::script::sandbox::{DATA_PREFIX, Roots};
use crate::world::object::{ObjectCommand, ObjectId, ObjectSpec, Objects};
use crate::world::pickup::script::create_all as create_pickups;

const F: &str = "load_map";

/// The object id counter the scripts take ids from: the server's own ([`Objects`]),
/// shared once the first pass ran ([`refresh_object_ids`]).
#[derive(Debug, Default)]
pub struct ObjectIds(Arc<AtomicU32>);

impl ObjectIds {
    fn reserve(&self) -> Option<ObjectId> {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
            .ok()
            .map(|n| ObjectId(n + 1))
    }
}

/// Before the scripts run: the scripts' object counter is the server's; ids taken at boot,
/// before the first pass, stay taken.
pub(crate) fn refresh_object_ids(host: Option<NonSend<ScriptHost>>, objects: Res<Objects>) {
    let Some(host) = host else { return };
    let lua = host.lua();
    if lua.app_data_ref::<ObjectIds>().is_none() {
        lua.set_app_data(ObjectIds::default());
    }
    let Some(mut ids) = lua.app_data_mut::<ObjectIds>() else {
        return;
    };
    let server = objects.counter();
    if !Arc::ptr_eq(&ids.0, &server) {
        server.fetch_max(ids.0.load(Ordering::Relaxed), Ordering::Relaxed);
        ids.0 = server;
    }
}

/// Adds `dlmp.load_map` for `resource`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    if lua.app_data_ref::<ObjectIds>().is_none() {
        lua.set_app_data(ObjectIds::default());
    }
    dlmp.set(
        "load_map",
        lua.create_function(move |lua, path: Value| {
            let path = args::string(F, "path", &path)?;
            load_map(lua, &path, resource).map_err(|e| Error::runtime(format!("{F}: {e}")))
        })?,
    )
}

fn load_map(lua: &Lua, path: &str, resource: ResourceId) -> std::result::Result<Table, String> {
    let format = Format::of_path(path).ok_or_else(|| {
        format!("{path}: a map file ends in .map (element XML) or .pwn, .inc, .txt (exported script lines)")
    })?;
    if path.starts_with(DATA_PREFIX) {
        return Err(format!(
            "{path}: a map is a file of the resource's own folder"
        ));
    }
    let roots = Roots {
        resource: resource_dir(lua, resource).map_err(|e| e.to_string())?,
        data: None,
    };
    let real = roots.resolve(path)?;
    let text = read(&real).map_err(|e| e.in_file(path).to_string())?;
    let (map, warnings) = format
        .parse(&text)
        .map_err(|e| e.in_file(path).to_string())?;
    let plan = load::plan(&map, path).map_err(|e| e.to_string())?;

    let owner = resource_name(lua, resource);
    for w in warnings.iter() {
        warn!(resource = owner, file = path, "map: {w}");
    }
    if !plan.vehicles.is_empty() {
        warn!(
            resource = owner,
            file = path,
            "map: {} vehicles skipped (first at line {}): this server has no vehicles yet",
            plan.vehicles.len(),
            plan.vehicles[0].line
        );
    }

    // Every id first: a failure here has created nothing.
    let object_ids = {
        let ids = lua
            .app_data_ref::<ObjectIds>()
            .ok_or_else(|| "no object state".to_owned())?;
        plan.objects
            .iter()
            .map(|_| ids.reserve())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| "no object ids left".to_owned())?
    };
    let pickups = create_pickups(lua, F, &plan.pickups, resource).map_err(|e| e.to_string())?;
    let creates = object_ids
        .iter()
        .zip(&plan.objects)
        .map(|(&id, &spec)| ObjectCommand::Create {
            id,
            spec,
            owner: Some(resource),
        });
    queue_messages(lua, creates).map_err(|e| e.to_string())?;

    let list = lua.create_table().map_err(|e| e.to_string())?;
    let handles = object_handles(lua, &object_ids, &plan.objects)
        .into_iter()
        .chain(
            pickups
                .into_iter()
                .map(|p| lua.create_userdata(p).map(Value::UserData)),
        );
    for handle in handles {
        list.raw_push(handle.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    Ok(list)
}

/// The seam where objects get their Lua handles: once the object API (`dlmp.create_object`
/// and its `Object` handle) lands, each id becomes that handle. Until then the list
/// carries no handle for the objects (they are created, streamed and owned all the same).
fn object_handles(_lua: &Lua, _ids: &[ObjectId], _specs: &[ObjectSpec]) -> Vec<Result<Value>> {
    Vec::new()
}

/// The file at `real`, as text: at most [`MAX_FILE_BYTES`], UTF-8 (a byte order mark is
/// dropped).
fn read(real: &Path) -> std::result::Result<String, MapError> {
    let len = std::fs::metadata(real)
        .map_err(|e| MapError::new(0, e.to_string()))?
        .len();
    if len > MAX_FILE_BYTES as u64 {
        return Err(MapError::new(
            0,
            format!("the file is {len} bytes, more than {MAX_FILE_BYTES}"),
        ));
    }
    let bytes = std::fs::read(real).map_err(|e| MapError::new(0, e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        MapError::new(line, "the text is not UTF-8")
    })?;
    Ok(match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

fn resource_name(lua: &Lua, resource: ResourceId) -> String {
    crate::script::api::resource_name(lua, resource).unwrap_or_default()
}
