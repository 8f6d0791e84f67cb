//! `dlmp.load_map(path) --> list of the created handles` (lua-api.md, maps): reads a map
//! file of the calling resource (a relative path inside its folder, the sandbox's rules,
//! ADR 0035), checks every entry ([`super::load::plan`]) and only then creates them, all
//! owned by the resource, so stopping it removes them like everything else it made. A
//! map with an error raises a Lua error naming the file and line and creates nothing.
//! Skipped input (unknown elements, attributes, calls) is logged as a warning naming the
//! resource and the file; the editors' attributes the protocol has no field for are one
//! debug line with their count (ADR 0094). ADR 0050.

use std::path::Path;

use mlua::{Error, Lua, Result, Table, Value};
use tracing::{debug, warn};

use super::{Format, MAX_FILE_BYTES, MapError, load};
use dlmp_script::ResourceId;
use dlmp_script::api::{args, queue_messages, resource_dir};
use dlmp_script::sandbox::{DATA_PREFIX, Roots};
use dlmp_vehicle::script::{check_spec, create_from_spec as create_vehicle};
use dlmp_vehicle::tuning::TuningCommand;
use dlmp_world::object::script::book as object_book;
use dlmp_world::object::{Object, ObjectCommand};
use dlmp_world::pickup::script::create_all as create_pickups;
use dlmp_world::script::object::LuaObject;

const F: &str = "load_map";

/// Adds `dlmp.load_map` for `resource`.
pub(crate) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
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
    let (unsupported, skipped): (Vec<_>, Vec<_>) = warnings.iter().partition(|w| w.unsupported);
    for w in skipped {
        warn!(resource = owner, file = path, "map: {w}");
    }
    if !unsupported.is_empty() {
        let count: usize = unsupported.iter().map(|w| w.count).sum();
        let list: Vec<String> = unsupported.iter().map(ToString::to_string).collect();
        debug!(
            resource = owner,
            file = path,
            count,
            "map: {count} attributes the protocol has no field for, ignored: {}",
            list.join(", ")
        );
    }
    for v in &plan.vehicles {
        check_spec(lua, &v.item).map_err(|e| {
            MapError::new(v.line, format!("vehicle: {e}"))
                .in_file(path)
                .to_string()
        })?;
    }

    // Every id first: a failure here has created nothing.
    let object_ids = {
        let book = object_book(lua).map_err(|e| e.to_string())?;
        plan.objects
            .iter()
            .map(|_| book.reserve())
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
    {
        // The scripts' view shows them at once, as after `dlmp.create_object`.
        let mut book = object_book(lua).map_err(|e| e.to_string())?;
        let settings = book.settings;
        for (&id, spec) in object_ids.iter().zip(&plan.objects) {
            book.add(Object::new(id, spec, &settings));
        }
    }

    let vehicles = plan
        .vehicles
        .iter()
        .map(|v| create_vehicle(lua, F, v.item, resource))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.to_string())?;
    // Checked in the plan; applied after the creates, in the same tick.
    let tuning = plan.tuning.iter().filter_map(|&(i, change)| {
        Some(TuningCommand {
            id: vehicles.get(i)?.id,
            change,
        })
    });
    queue_messages(lua, tuning).map_err(|e| e.to_string())?;

    let list = lua.create_table().map_err(|e| e.to_string())?;
    let objects = object_ids.into_iter().map(|id| LuaObject { id });
    let handles = objects
        .map(|o| lua.create_userdata(o))
        .chain(pickups.into_iter().map(|p| lua.create_userdata(p)))
        .chain(vehicles.into_iter().map(|v| lua.create_userdata(v)));
    for handle in handles {
        list.raw_push(handle.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    Ok(list)
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
    dlmp_script::api::resource_name(lua, resource).unwrap_or_default()
}
