//! The model table in the Lua API (lua-api.md, "Vehicles"): `dlmp.vehicle_model_name(model)`
//! and its reverse `dlmp.vehicle_model(name)`, from [`VehicleModels`], so a gamemode's `/v
//! infernus` and its messages need no table of their own. An unknown model or name is `nil`,
//! not an error: a lookup a script makes of a player's word is expected to miss; a value of
//! the wrong type is an error naming the argument.

use mlua::{Lua, Result, Table, Value};

use crate::models::VehicleModels;
use dlmp_script::api::args;

/// `f` of the model table the scripts' view holds (before the first tick, the shipped one).
fn with_models<R>(lua: &Lua, f: impl FnOnce(&VehicleModels) -> R) -> R {
    match lua.app_data_ref::<VehicleModels>() {
        Some(models) => f(&models),
        None => f(&VehicleModels::default()),
    }
}

/// Adds the functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "vehicle_model_name",
        lua.create_function(|lua, model: Value| {
            let model = args::integer("vehicle_model_name", "model", &model, i64::MIN..=i64::MAX)?;
            let Ok(model) = u16::try_from(model) else {
                return Ok(None);
            };
            Ok(with_models(lua, |m| {
                m.get(model).map(|row| row.name.clone())
            }))
        })?,
    )?;
    dlmp.set(
        "vehicle_model",
        lua.create_function(|lua, name: Value| {
            let name = args::string("vehicle_model", "name", &name)?;
            Ok(with_models(lua, |m| m.by_name(&name).map(|row| row.model)))
        })?,
    )?;
    Ok(())
}
