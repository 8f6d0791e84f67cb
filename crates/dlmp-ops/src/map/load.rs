//! What `dlmp.load_map` creates, checked before anything is (lua-api.md, maps; issue 13:
//! "a map with errors loads nothing"). Every entry passes the rules of the matching
//! creator: an object those of `dlmp.create_object` ([`ObjectSpec::check`]: the model
//! table, world bounds, rotation up to 3600, the stream distance), a pickup those of
//! `dlmp.create_pickup` (the model, |x|, |y| ≤ 4095). The first entry that fails is an
//! error naming the file and its line.

use std::time::Duration;

use super::{At, MapError, MapFile, MapVehicle};
use dlmp_core::position::Scope;
use dlmp_vehicle::lifecycle::VehicleSpec;
use dlmp_vehicle::tuning::{Tuning, TuningChange, TuningData};
use dlmp_world::object::ObjectSpec;
use dlmp_world::pickup::PickupSpec;

/// What a checked map creates, in file order per kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub objects: Vec<ObjectSpec>,
    pub pickups: Vec<PickupSpec>,
    /// With the line each came from: their model is checked against the model table by
    /// `dlmp.load_map`, which holds it, still before anything is created. A color the map
    /// leaves to the game (SA-MP's -1) is 0.
    pub vehicles: Vec<At<VehicleSpec>>,
    /// The paintjobs and plates of the vehicles, by index in `vehicles`, checked against
    /// each model as `dlmp.set_vehicle_paintjob` and `set_vehicle_plate` check them.
    pub tuning: Vec<(usize, TuningChange)>,
}

/// Checks every entry of `map`; `file` names it in an error.
pub fn plan(map: &MapFile, file: &str) -> Result<Plan, MapError> {
    let at = |line: usize, kind: &str, e: String| {
        MapError::new(line, format!("{kind}: {e}")).in_file(file)
    };
    let mut plan = Plan::default();
    for At { line, item: o } in &map.objects {
        let spec = ObjectSpec {
            model: u32::from(o.model),
            position: o.position,
            rotation: o.rotation,
            interior: o.interior,
            virtual_world: o.virtual_world,
            stream_distance: o.stream_distance,
            viewer: None,
        };
        spec.check()
            .map_err(|e| at(*line, "object", e.to_string()))?;
        plan.objects.push(spec);
    }
    for At { line, item: p } in &map.pickups {
        let spec = PickupSpec {
            model: p.model,
            position: p.position,
            scale: 1.0,
            highlight: true,
            behavior: p.behavior,
            respawn: p.respawn_ms.map(|ms| Duration::from_millis(u64::from(ms))),
            scope: Scope {
                virtual_world: p.virtual_world,
                interior: p.interior,
            },
        };
        spec.check()
            .map_err(|e| at(*line, "pickup", e.to_string()))?;
        plan.pickups.push(spec);
    }
    plan.vehicles = map
        .vehicles
        .iter()
        .map(|&At { line, item: v }| At {
            line,
            item: vehicle_spec(&v),
        })
        .collect();
    for (i, At { line, item: v }) in map.vehicles.iter().enumerate() {
        let changes = [
            v.paintjob.map(|n| TuningChange::Paintjob(Some(n))),
            v.plate.map(|p| TuningChange::Plate(Some(p))),
        ];
        let mut tuning = Tuning::default();
        for change in changes.into_iter().flatten() {
            tuning
                .apply(change, v.model, TuningData::get())
                .map_err(|e| at(*line, "vehicle", e.to_string()))?;
            plan.tuning.push((i, change));
        }
    }
    Ok(plan)
}

fn vehicle_spec(v: &MapVehicle) -> VehicleSpec {
    VehicleSpec {
        color1: v.colors[0].unwrap_or(0),
        color2: v.colors[1].unwrap_or(0),
        scope: Scope {
            virtual_world: v.virtual_world,
            interior: v.interior,
        },
        ..VehicleSpec::new(v.model, v.position, v.heading)
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::map::Format;
    use dlmp_world::pickup::Behavior;

    #[test]
    fn a_good_map_plans_every_entry_with_its_scope_and_respawn() {
        let (map, _) = Format::Mta
            .parse(
                r#"<map>
<object model="1225" posX="1" posY="2" posZ="3" rotZ="90" interior="4" dimension="5"/>
<pickup type="health" posX="10" posY="20" posZ="3" respawn="5000" dimension="2"/>
<vehicle model="411" posX="0" posY="0" posZ="3"/>
</map>"#,
            )
            .expect("parses");
        let plan = plan(&map, "m.map").expect("plans");
        assert_eq!(plan.objects.len(), 1);
        let o = plan.objects[0];
        assert_eq!((o.model, o.interior, o.virtual_world), (1225, 4, 5));
        assert_eq!(o.rotation.z, 90.0);
        let p = plan.pickups[0];
        assert_eq!(p.model, 1240);
        assert_eq!(p.behavior, Behavior::Collectible);
        assert_eq!(p.respawn, Some(Duration::from_millis(5000)));
        assert_eq!(p.scope.virtual_world, 2);
        assert_eq!(plan.vehicles.len(), 1);
    }

    #[rstest]
    #[case::not_an_object_model(
        "CreateObject(400, 0, 0, 3, 0, 0, 0);",
        "m.pwn line 2: object: model 400 is not an object model"
    )]
    #[case::outside_the_world(
        "CreateObject(1225, 6000.5, 0, 3, 0, 0, 0);",
        "m.pwn line 2: object: the point (6000.5, 0, 3) is outside the world"
    )]
    #[case::rotation(
        "CreateObject(1225, 0, 0, 3, 0, 3600.5, 0);",
        "m.pwn line 2: object: the rotation (0, 3600.5, 0) is outside -3600..=3600"
    )]
    #[case::stream_distance(
        "CreateDynamicObject(1225, 0, 0, 3, 0, 0, 0, -1, -1, -1, 7000.0);",
        "m.pwn line 2: object: stream_distance 7000 is outside (0, 6000]"
    )]
    #[case::pickup_model(
        "CreatePickup(5, 2, 0, 0, 3);",
        "m.pwn line 2: pickup: model 5 is not a pickup model"
    )]
    #[case::pickup_bounds(
        "CreatePickup(1240, 2, 4095.5, 0, 3);",
        "m.pwn line 2: pickup: x 4095.5 is outside -4095..=4095"
    )]
    fn a_bad_entry_refuses_the_whole_map_naming_file_and_line(
        #[case] bad: &str,
        #[case] message: &str,
    ) {
        let text = format!("CreateObject(1225, 0, 0, 3, 0, 0, 0);\n{bad}\n");
        let (map, _) = Format::Pawn.parse(&text).expect("parses");
        let e = plan(&map, "m.pwn").expect_err("refused").to_string();
        assert!(e.starts_with(message), "{e} is not {message:?}");
    }
}
