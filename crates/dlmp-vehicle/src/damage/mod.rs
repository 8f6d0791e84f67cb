//! Vehicle damage and health (vehicles.md VehicleDamage, RemoteVehicleDamage,
//! VehicleHealth; lua-api.md `dlmp.set_vehicle_health`, `repair_vehicle`,
//! `set_vehicle_damage_status`). The stored status ([`Damage`](super::Damage)) and health
//! ([`Health`](super::Health)) with their revisions are the components every show carries;
//! this feature changes them:
//!
//! - [`intake`]: the controlling player's VehicleDamage, merged into the stored status and
//!   relayed to the others when it changed.
//! - [`command`]: the gamemode's health, status and repair commands, with new revisions, to
//!   everyone the vehicle is streamed to.
//! - [`status`]: the status rules (which models have one, the checks, the merge).
//! - `script`: the Lua functions.
//!
//! A frame's health (only lowered, only with the current health revision) is the frame
//! feature's (`frame::apply::take_health`). Decisions: docs/decisions/0061-vehicle-damage.md.

pub mod command;
pub mod intake;
pub(crate) mod script;
pub mod status;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

pub use command::{DamageCommand, HEALTH_RANGE};
pub use intake::DamageDrop;
pub use status::{Shape, StatusParts};

use super::VehicleSystems;
use dlmp_core::tick::GameplaySystems;

/// VehicleDamage reports taken and dropped by reason, and the commands refused.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DamageStats {
    /// Reports that changed the stored status (relayed).
    pub accepted: u64,
    /// Reports that passed every check but added nothing (not relayed).
    pub unchanged: u64,
    pub rate_limit: u64,
    pub unknown_vehicle: u64,
    pub not_controller: u64,
    pub epoch: u64,
    pub wrecked: u64,
    pub no_status: u64,
    pub range: u64,
    pub motorbike_form: u64,
    pub damage_rev: u64,
    /// [`DamageCommand`]s that did not apply (a Rust plugin's bad one, a wreck by then).
    pub commands_refused: u64,
}

impl DamageStats {
    pub fn count(&mut self, why: DamageDrop) {
        let n = match why {
            DamageDrop::RateLimit => &mut self.rate_limit,
            DamageDrop::UnknownVehicle => &mut self.unknown_vehicle,
            DamageDrop::NotController => &mut self.not_controller,
            DamageDrop::Epoch => &mut self.epoch,
            DamageDrop::Wrecked => &mut self.wrecked,
            DamageDrop::NoStatus => &mut self.no_status,
            DamageDrop::Range => &mut self.range,
            DamageDrop::MotorbikeForm => &mut self.motorbike_form,
            DamageDrop::DamageRev => &mut self.damage_rev,
        };
        *n += 1;
    }

    /// The console's words for each count.
    pub fn rows(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("accepted", self.accepted),
            ("adding nothing", self.unchanged),
            ("over the event limit", self.rate_limit),
            ("no such vehicle", self.unknown_vehicle),
            ("not the controller", self.not_controller),
            ("another epoch", self.epoch),
            ("a wreck", self.wrecked),
            ("a model without a status", self.no_status),
            ("out of range", self.range),
            ("a motorbike's beyond its wheels", self.motorbike_form),
            ("before a damage command", self.damage_rev),
            ("commands refused", self.commands_refused),
        ]
    }
}

/// Adds vehicle damage and health.
pub struct VehicleDamagePlugin;

impl Plugin for VehicleDamagePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DamageStats>()
            .add_message::<DamageCommand>()
            .add_systems(
                FixedUpdate,
                (
                    // Judged in lane order with the exits (ADR 0120): before the seat
                    // intake frees the seats of this tick's exits.
                    intake::intake
                        .in_set(GameplaySystems::Intake)
                        .before(super::seats::intake),
                    command::apply
                        .in_set(GameplaySystems::Apply)
                        .after(VehicleSystems::Lifecycle),
                ),
            );
    }
}
