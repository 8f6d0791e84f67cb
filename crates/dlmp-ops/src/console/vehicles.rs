//! The console's vehicle commands: `vehicles` (every vehicle in aligned columns, like
//! `players`) and `destroy ID`.

use bevy_ecs::prelude::*;

use dlmp_core::session::{Name, Player};
use dlmp_core::vehicle::{Life, Pose, Vehicles};
use dlmp_protocol::ids::VehicleId;
use dlmp_vehicle::{Health, Seats, Vehicle, VehicleModels, VehicleScope, destroy_vehicle};

/// What the command reads of a vehicle.
type Row = (
    &'static Vehicle,
    &'static Pose,
    &'static Health,
    &'static Life,
    &'static Seats,
    &'static VehicleScope,
);

/// `vehicles`: id, model and name, driver, seats taken of the model's, health (or the
/// wreck), epoch, virtual world / interior, position; by id.
pub(super) fn vehicles(world: &mut World) -> Vec<String> {
    let models = world
        .get_resource::<VehicleModels>()
        .cloned()
        .unwrap_or_default();
    let mut query = world.query::<Row>();
    let mut list: Vec<_> = query
        .iter(world)
        .map(|(v, pose, health, life, seats, scope)| {
            (*v, *pose, *health, *life, seats.clone(), *scope)
        })
        .collect();
    if list.is_empty() {
        return vec!["no vehicles".to_owned()];
    }
    list.sort_unstable_by_key(|(v, ..)| v.id);
    let mut rows = vec![[
        "id".to_owned(),
        "model".to_owned(),
        "driver".to_owned(),
        "seats".to_owned(),
        "health".to_owned(),
        "epoch".to_owned(),
        "world".to_owned(),
        "position".to_owned(),
    ]];
    for (v, pose, health, life, seats, scope) in &list {
        let name = models.get(v.model).map_or("?", |m| m.name.as_str());
        let driver = seats
            .driver()
            .and_then(|d| {
                world
                    .get::<Player>(d.entity)
                    .filter(|p| p.token == d.token)
                    .and(world.get::<Name>(d.entity))
            })
            .map_or_else(|| "-".to_owned(), |n| n.as_str().to_owned());
        let health = if life.wrecked {
            if life.drowned { "drowned" } else { "wreck" }.to_owned()
        } else {
            format!("{:.0}", health.0)
        };
        rows.push([
            v.id.0.to_string(),
            format!("{} {name}", v.model),
            driver,
            format!("{}/{}", seats.occupied().count(), seats.0.len()),
            health,
            life.epoch.0.to_string(),
            format!("{}/{}", scope.0.virtual_world, scope.0.interior),
            format!(
                "{:.1} {:.1} {:.1}",
                pose.position.x, pose.position.y, pose.position.z
            ),
        ]);
    }
    let n = rows.len() - 1;
    std::iter::once(format!("{n} vehicle{}:", if n == 1 { "" } else { "s" }))
        .chain(super::columns(&rows))
        .collect()
}

/// `destroy ID`: removes the vehicle exactly as `dlmp.destroy_vehicle` does
/// ([`destroy_vehicle`]: applied later in this tick, its occupants get out first, then every
/// viewer gets its hide); the resource that made it forgets it like any destroyed vehicle.
pub(super) fn destroy(world: &mut World, args: &str) -> Vec<String> {
    let Ok(id) = args.parse::<u32>().map(VehicleId) else {
        return super::usage("destroy");
    };
    let model = world
        .get_resource::<Vehicles>()
        .and_then(|v| v.entity(id))
        .and_then(|e| world.get::<Vehicle>(e))
        .map(|v| v.model);
    let (Some(model), Ok(())) = (model, destroy_vehicle(world, id)) else {
        return vec![format!("error: no vehicle with id {}", id.0)];
    };
    let name = world
        .get_resource::<VehicleModels>()
        .and_then(|m| m.get(model))
        .map_or_else(String::new, |m| format!(" {}", m.name));
    tracing::info!(id = id.0, model, "vehicle destroyed from the console");
    vec![format!("destroyed vehicle {} ({model}{name})", id.0)]
}
