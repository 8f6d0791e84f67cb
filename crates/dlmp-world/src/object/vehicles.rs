//! Vehicles as object parents (world.md ObjectState: attach_kind 2; lua-api.md
//! `object:attach_to(parent, ...)`): an object on a vehicle takes the vehicle's pose
//! (position and full rotation) times its own, is shown exactly while the vehicle is shown
//! to the recipient, and goes with the vehicle; a respawn keeps the vehicle and so the
//! attachment (world.md: "a vehicle's respawn does not detach").

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use super::pose::Pose;
use dlmp_core::position::Scope;
use dlmp_core::streaming::shown::ShownSets;
use dlmp_core::vehicle::{Pose as VehiclePose, Vehicles};
use dlmp_protocol::ids::VehicleId;
use dlmp_vehicle::{VehicleScope, VehicleStream};

/// The vehicles an object pass may hang objects from.
#[derive(SystemParam)]
pub struct VehicleParents<'w, 's> {
    registry: Option<Res<'w, Vehicles>>,
    vehicles: Query<'w, 's, (&'static VehiclePose, &'static VehicleScope)>,
    stream: Option<Res<'w, VehicleStream>>,
}

impl VehicleParents<'_, '_> {
    /// The vehicle's pose as an object parent, and its scope; `None` once it is gone.
    pub fn pose(&self, id: VehicleId) -> Option<(Pose, Scope)> {
        let entity = self.registry.as_ref()?.entity(id)?;
        let (pose, scope) = self.vehicles.get(entity).ok()?;
        Some((Pose::of_vehicle(pose.position, pose.rotation), scope.0))
    }

    /// Whether the vehicle exists (its entity may still be on its way this tick).
    pub fn exists(&self, id: VehicleId) -> bool {
        self.registry
            .as_ref()
            .is_some_and(|r| r.entity(id).is_some())
    }

    /// Who each vehicle is shown to now (the vehicle stream runs before the objects').
    pub fn shown(&self) -> Option<&ShownSets> {
        self.stream.as_ref().map(|s| s.shown())
    }
}
