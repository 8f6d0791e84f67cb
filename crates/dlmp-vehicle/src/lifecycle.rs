//! Creating and destroying vehicles (vehicles.md VehicleSync, "Authority": "The gamemode
//! creates and destroys vehicles (dlmp.create_vehicle / destroy_vehicle); a resource is the
//! cleanup owner of its vehicles"). Ids come from one counter and are never reused during
//! a run (connection.md §5). A Rust plugin calls [`create_vehicle`] / [`destroy_vehicle`]
//! on the world; scripts queue a [`VehicleCommand`] with an id they reserved in the call,
//! applied in [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply). What the
//! clients see follows in the next streaming pass: a destroyed vehicle is hidden like
//! one that left the distance, after its seats were freed.

use bevy_ecs::prelude::*;
use dlmp_core::vehicle::{Life, Pose, Vehicles};

use super::components::{
    Colors, Damage, FULL_HEALTH, Frozen, Health, Hitch, Params, Part, RelaySerial, Revisions,
    Seats, ShowTail, SpawnPoint, Syncer, Train, Vehicle, VehicleScope,
};
use super::models::VehicleModels;
use dlmp_core::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::VehicleId;
use dlmp_protocol::vehicle::params::param;
use dlmp_protocol::vehicle::state::{WORLD_XY, WORLD_Z};
use dlmp_protocol::vehicle::sync::{MAX_COLOR, MODELS};
use dlmp_script::{Owned, ResourceId};

/// What a new vehicle is made of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VehicleSpec {
    pub model: u16,
    pub position: Vec3,
    /// Degrees; a train ignores it.
    pub heading: f32,
    pub color1: u8,
    pub color2: u8,
    pub scope: Scope,
}

impl VehicleSpec {
    /// A vehicle of `model` at `position` facing `heading`, colors 0 / 0, in the main world.
    pub fn new(model: u16, position: Vec3, heading: f32) -> Self {
        VehicleSpec {
            model,
            position,
            heading,
            color1: 0,
            color2: 0,
            scope: Scope::default(),
        }
    }
}

/// Why a vehicle command was refused. The message is what a scripter reads.
#[derive(Debug, Clone, PartialEq)]
pub enum VehicleError {
    Model(u16),
    Carriage(u16),
    Position {
        axis: &'static str,
        value: f32,
        min: f32,
        max: f32,
    },
    Heading(f32),
    Color(u8),
    NoIds,
    Gone(u32),
}

impl std::fmt::Display for VehicleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VehicleError::Model(m) => write!(f, "model {m} is outside 400..=611"),
            VehicleError::Carriage(m) => {
                write!(
                    f,
                    "model {m} is a train carriage: spawn its locomotive (537, 538)"
                )
            }
            VehicleError::Position {
                axis,
                value,
                min,
                max,
            } => write!(f, "{axis} {value} is outside the world ({min}..={max})"),
            VehicleError::Heading(h) => write!(f, "heading {h} is not a finite number"),
            VehicleError::Color(c) => write!(f, "color {c} is outside 0..=127"),
            VehicleError::NoIds => f.write_str("no vehicle ids left"),
            VehicleError::Gone(id) => write!(f, "vehicle {id} no longer exists"),
        }
    }
}

impl std::error::Error for VehicleError {}

impl VehicleSpec {
    /// The page's checks: a spawnable model, a finite position inside the world, a finite
    /// heading, colors 0..=127.
    pub fn check(&self, models: &VehicleModels) -> Result<(), VehicleError> {
        let info = models
            .get(self.model)
            .ok_or(VehicleError::Model(self.model))?;
        if !info.is_spawnable() {
            return Err(VehicleError::Carriage(self.model));
        }
        let p = self.position;
        for (axis, value, min, max) in [
            ("x", p.x, -WORLD_XY, WORLD_XY),
            ("y", p.y, -WORLD_XY, WORLD_XY),
            ("z", p.z, *WORLD_Z.start(), *WORLD_Z.end()),
        ] {
            if !(min..=max).contains(&value) {
                return Err(VehicleError::Position {
                    axis,
                    value,
                    min,
                    max,
                });
            }
        }
        if !self.heading.is_finite() {
            return Err(VehicleError::Heading(self.heading));
        }
        for c in [self.color1, self.color2] {
            if c > MAX_COLOR {
                return Err(VehicleError::Color(c));
            }
        }
        debug_assert!(MODELS.contains(&self.model));
        Ok(())
    }
}

/// The components of a new vehicle `id` of a checked `spec`.
pub fn bundle(id: VehicleId, spec: &VehicleSpec, models: &VehicleModels) -> impl Bundle + use<> {
    let info = models.get(spec.model);
    let seats = info.map_or(0, |i| i.seats);
    let siren = info.is_some_and(|i| i.siren);
    (
        (
            Vehicle {
                id,
                model: spec.model,
            },
            VehicleScope(spec.scope),
            SpawnPoint {
                position: spec.position,
                heading: spec.heading,
            },
            Pose::level(spec.position, spec.heading),
            Health(FULL_HEALTH),
            Life::default(),
            RelaySerial::default(),
            Revisions::default(),
        ),
        (
            Damage::default(),
            Colors {
                color1: spec.color1,
                color2: spec.color2,
            },
            Frozen::default(),
            Part::default(),
            Params {
                bits: if siren { param::HAS_SIREN } else { 0 },
                ..Params::default()
            },
            Hitch::default(),
            Train::default(),
            Seats::new(seats),
            Syncer::default(),
            ShowTail::default(),
            super::frame::fields::HeldFields::default(),
            super::tuning::Tuning::default(),
        ),
        (
            super::life::bundle(),
            super::frame::motion::MotionBudget::default(),
            super::weapon::rocket_pods(spec.model),
        ),
    )
}

/// Creates a vehicle now (a Rust plugin's or a test's call). `owner`: the resource that
/// cleans it up when it stops, if any.
pub fn create_vehicle(
    world: &mut World,
    spec: VehicleSpec,
    owner: Option<ResourceId>,
) -> Result<Entity, VehicleError> {
    world.init_resource::<VehicleModels>();
    world.init_resource::<Vehicles>();
    spec.check(world.resource::<VehicleModels>())?;
    let id = world
        .resource::<Vehicles>()
        .reserve()
        .ok_or(VehicleError::NoIds)?;
    let bundle = bundle(id, &spec, world.resource::<VehicleModels>());
    let mut entity = world.spawn(bundle);
    if let Some(owner) = owner {
        entity.insert(Owned(owner));
    }
    let entity = entity.id();
    world.resource_mut::<Vehicles>().insert(id, entity);
    Ok(entity)
}

/// Destroys a vehicle exactly as `dlmp.destroy_vehicle` does (lua-api.md): a
/// [`VehicleCommand::Destroy`] applied in the next tick's apply, where every viewer gets
/// each occupant's exit before the hide. An id that does not exist (or is already being
/// destroyed) is an error.
pub fn destroy_vehicle(world: &mut World, id: VehicleId) -> Result<(), VehicleError> {
    world.init_resource::<Vehicles>();
    world.init_resource::<Messages<VehicleCommand>>();
    if world.resource::<Vehicles>().entity(id).is_none()
        || world
            .resource::<Messages<VehicleCommand>>()
            .iter_current_update_messages()
            .any(|c| *c == VehicleCommand::Destroy { id })
    {
        return Err(VehicleError::Gone(id.0));
    }
    world.write_message(VehicleCommand::Destroy { id });
    Ok(())
}

/// A change of the vehicle set from a script (ids from [`Vehicles::reserve`]), applied in
/// order in [`GameplaySystems::Apply`](dlmp_core::tick::GameplaySystems::Apply).
#[derive(Message, Debug, Clone, PartialEq)]
pub enum VehicleCommand {
    /// A new vehicle; the script checked the spec.
    Create {
        id: VehicleId,
        spec: VehicleSpec,
        owner: Option<ResourceId>,
    },
    Destroy {
        id: VehicleId,
    },
}

/// Applies the tick's [`VehicleCommand`]s.
pub(super) fn apply(
    mut commands: Commands,
    mut read: MessageReader<VehicleCommand>,
    mut registry: ResMut<Vehicles>,
    models: Res<VehicleModels>,
) {
    for command in read.read() {
        match *command {
            VehicleCommand::Create { id, spec, owner } => {
                if registry.entity(id).is_some() || spec.check(&models).is_err() {
                    tracing::debug!(id = id.0, "a vehicle create refused");
                    continue;
                }
                let mut entity = commands.spawn(bundle(id, &spec, &models));
                if let Some(owner) = owner {
                    entity.insert(Owned(owner));
                }
                registry.insert(id, entity.id());
            }
            VehicleCommand::Destroy { id } => {
                if let Some(entity) = registry.remove(id) {
                    commands.entity(entity).despawn();
                }
            }
        }
    }
}

/// A stopped resource's vehicles were despawned (`despawn_owned`); their ids go too.
pub(super) fn forget_despawned(
    mut registry: ResMut<Vehicles>,
    vehicles: Query<(), With<Vehicle>>,
    mut removed: RemovedComponents<Vehicle>,
) {
    if removed.read().count() == 0 {
        return;
    }
    registry.retain(|e| vehicles.contains(e));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(model: u16) -> VehicleSpec {
        VehicleSpec::new(model, Vec3::new(1.0, 2.0, 3.0), 90.0)
    }

    #[test]
    fn create_checks_the_spec_and_ids_are_never_reused() {
        let mut world = World::new();
        let a = create_vehicle(&mut world, spec(411), None).ok();
        let b = create_vehicle(&mut world, spec(537), None).ok();
        let ids: Vec<u32> = [a, b]
            .into_iter()
            .flatten()
            .filter_map(|e| world.get::<Vehicle>(e).map(|v| v.id.0))
            .collect();
        assert_eq!(ids, [1, 2]);
        assert_eq!(
            world
                .get::<Seats>(b.unwrap_or(Entity::PLACEHOLDER))
                .map(|s| s.0.len()),
            Some(21)
        );
        assert_eq!(destroy_vehicle(&mut world, VehicleId(1)), Ok(()));
        assert_eq!(
            destroy_vehicle(&mut world, VehicleId(1)),
            Err(VehicleError::Gone(1))
        );
        let c = create_vehicle(&mut world, spec(400), None).ok();
        assert_eq!(
            c.and_then(|e| world.get::<Vehicle>(e)).map(|v| v.id.0),
            Some(3)
        );
    }

    #[test]
    fn the_pages_limits_refuse_a_spec() {
        let models = VehicleModels::load();
        assert_eq!(spec(399).check(&models), Err(VehicleError::Model(399)));
        assert_eq!(spec(612).check(&models), Err(VehicleError::Model(612)));
        assert_eq!(spec(570).check(&models), Err(VehicleError::Carriage(570)));
        let mut s = spec(400);
        s.color2 = 128;
        assert_eq!(s.check(&models), Err(VehicleError::Color(128)));
        s = spec(400);
        s.position.x = f32::NAN;
        assert!(matches!(
            s.check(&models),
            Err(VehicleError::Position { axis: "x", .. })
        ));
        s = spec(400);
        s.heading = f32::INFINITY;
        assert!(s.check(&models).is_err());
        assert_eq!(spec(400).check(&models), Ok(()));
    }

    #[test]
    fn a_siren_model_has_its_siren_by_default() {
        let mut world = World::new();
        let e = create_vehicle(&mut world, spec(407), None).unwrap_or(Entity::PLACEHOLDER);
        assert!(
            world
                .get::<Params>(e)
                .is_some_and(|p| p.bits & param::HAS_SIREN != 0)
        );
    }
}
