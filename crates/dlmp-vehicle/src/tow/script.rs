//! The hitch API (lua-api.md: `dlmp.attach_trailer(trailer, tractor)`,
//! `dlmp.detach_trailer(trailer)`; `vehicle:trailer()` / `vehicle:tractor()` read the
//! vehicles' view). A gamemode hitch is checked like a VehicleTow except for the player
//! (vehicles.md VehicleTow): the call checks the scripts' view at once and raises a Lua
//! error naming the broken rule; the hitch is made in the same tick (checked again) and
//! goes out as VehicleTrailer with place = 1. The gamemode's own hitches raise no events.

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use mlua::{Error, Lua, Result, Table, Value};

use super::admit::check_hitch;
use super::flow::LinkCommand;
use super::links::{LinkFacts, LinkKind, Links, WINCH_BITS};
use crate::script::{VehicleBook, book, gone, vehicle_arg};
use crate::{Frozen, Hitch, Params, Remote, Vehicle, VehicleModels};
use dlmp_protocol::ids::{VehicleEpoch, VehicleId};
use dlmp_script::ScriptHost;
use dlmp_script::api::queue_message;

/// What the hitch rules read that the vehicles' view does not hold (Lua app data); a
/// vehicle created in this pass is missing and has the defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Extras {
    frozen: bool,
    remote: bool,
    lifter: Option<VehicleId>,
    winch: u16,
}

#[derive(Debug, Default)]
struct LinkBook(HashMap<VehicleId, Extras>);

/// Before the scripts run: the extras as they are.
pub(super) fn refresh_book(
    host: Option<NonSend<ScriptHost>>,
    vehicles: Query<(&Vehicle, &Frozen, &Hitch, &Params, Option<&Remote>)>,
) {
    let Some(host) = host else { return };
    let lua = host.lua();
    let book: HashMap<VehicleId, Extras> = vehicles
        .iter()
        .map(|(v, frozen, hitch, params, remote)| {
            let extras = Extras {
                frozen: frozen.held(),
                remote: remote.is_some(),
                lifter: hitch.lifter,
                winch: params.bits & WINCH_BITS,
            };
            (v.id, extras)
        })
        .collect();
    lua.set_app_data(LinkBook(book));
}

/// The facts of every vehicle of the view, and the index of their links.
fn view(lua: &Lua) -> Result<(HashMap<VehicleId, LinkFacts>, Links)> {
    let vehicles = book(lua)?;
    let extras = lua.app_data_ref::<LinkBook>();
    let mut all = HashMap::new();
    for (&id, info) in &vehicles.vehicles {
        let id = VehicleId(id);
        let x = extras
            .as_ref()
            .and_then(|b| b.0.get(&id).copied())
            .unwrap_or_default();
        all.insert(
            id,
            LinkFacts {
                id,
                model: info.model,
                epoch: VehicleEpoch(info.epoch),
                wrecked: info.wrecked,
                frozen: x.frozen,
                scope: info.scope,
                position: info.pose.position,
                driven: info.occupants.iter().any(|(s, _)| *s == 0),
                seated: !info.occupants.is_empty(),
                remote: x.remote,
                hitch: Hitch {
                    tractor: info.tractor,
                    lifter: x.lifter,
                },
                winch: x.winch,
            },
        );
    }
    let links = Links::from_hitches(all.values().map(|f| (f.id, f.hitch)));
    Ok((all, links))
}

/// The hitch in the vehicles' view at once (`vehicle:trailer()` / `tractor()`).
fn hitch_in_book(book: &mut VehicleBook, trailer: VehicleId, tractor: Option<VehicleId>) {
    let old = book.vehicles.get(&trailer.0).and_then(|i| i.tractor);
    if let Some(info) = old.and_then(|o| book.vehicles.get_mut(&o.0)) {
        info.trailer = None;
    }
    if let Some(info) = book.vehicles.get_mut(&trailer.0) {
        info.tractor = tractor;
    }
    if let Some(info) = tractor.and_then(|t| book.vehicles.get_mut(&t.0)) {
        info.trailer = Some(trailer);
    }
}

/// Adds the hitch functions to `dlmp`.
pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        "attach_trailer",
        lua.create_function(|lua, (trailer, tractor): (Value, Value)| {
            const F: &str = "attach_trailer";
            let trailer = vehicle_arg(F, &trailer)?;
            let tractor = vehicle_arg(F, &tractor)?;
            let (all, links) = view(lua)?;
            let t = all.get(&trailer.id).ok_or_else(|| gone(F, trailer.id))?;
            let r = all.get(&tractor.id).ok_or_else(|| gone(F, tractor.id))?;
            if links.parent(LinkKind::Trailer, t.id) == Some(r.id) {
                return Ok(());
            }
            let outcome = match lua.app_data_ref::<VehicleModels>() {
                Some(models) => check_hitch(t, r, &links, &models),
                None => check_hitch(t, r, &links, &VehicleModels::default()),
            };
            outcome.map_err(|why| {
                Error::runtime(format!(
                    "{F}: vehicle {} (model {}) to {} (model {}): {}",
                    t.id.0,
                    t.model,
                    r.id.0,
                    r.model,
                    why.describe()
                ))
            })?;
            hitch_in_book(&mut *book(lua)?, trailer.id, Some(tractor.id));
            queue_message(
                lua,
                LinkCommand::Attach {
                    kind: LinkKind::Trailer,
                    child: trailer.id,
                    parent: tractor.id,
                },
            )
        })?,
    )?;
    dlmp.set(
        "detach_trailer",
        lua.create_function(|lua, trailer: Value| {
            const F: &str = "detach_trailer";
            let trailer = vehicle_arg(F, &trailer)?;
            let hitched = {
                let mut book = book(lua)?;
                let info = book
                    .vehicles
                    .get(&trailer.id.0)
                    .ok_or_else(|| gone(F, trailer.id))?;
                let hitched = info.tractor.is_some();
                hitch_in_book(&mut book, trailer.id, None);
                hitched
            };
            if !hitched {
                return Ok(());
            }
            queue_message(
                lua,
                LinkCommand::Detach {
                    kind: LinkKind::Trailer,
                    child: trailer.id,
                },
            )
        })?,
    )?;
    Ok(())
}
