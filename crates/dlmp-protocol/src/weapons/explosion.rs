//! CreateExplosion (weapons.md §5): an explosion the gamemode creates, for example a
//! barrel's (world.md, Breaking).

use core::ops::RangeInclusive;

use crate::check;
use crate::connection::roster::check_token;
use crate::error::FieldError;
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken};
use crate::vehicle::life::check_player;
use crate::wire::Validate;
use crate::world::shared::in_world;
use crate::{packet, wire_enum};

/// A damage radius, meters.
pub const RADIUS: RangeInclusive<f32> = 0.1..=50.0;

/// Bits of CreateExplosion's `flags`.
pub mod flag {
    /// Look and sound only: no damage, no fire, no author.
    pub const HARMLESS: u8 = 1 << 0;
    /// Every defined bit; the others are 0.
    pub const DEFINED: u8 = HARMLESS;
}

wire_enum! {
    /// The game's explosion types (weapons.md §5): the look, the sound and whether fire is
    /// left behind.
    pub enum ExplosionType: u8 {
        /// Also satchel charges.
        Grenade = 0,
        Molotov = 1,
        Rocket = 2,
        WeakRocket = 3,
        Car = 4,
        QuickCar = 5,
        Boat = 6,
        Aircraft = 7,
        Mine = 8,
        /// A barrel.
        Object = 9,
        TankShell = 10,
        Small = 11,
        RcVehicle = 12,
    }
}

impl ExplosionType {
    /// The damage radius when the gamemode names none (this page's table), meters.
    pub fn default_radius(self) -> f32 {
        match self {
            ExplosionType::Small => 3.0,
            ExplosionType::Molotov | ExplosionType::RcVehicle => 4.0,
            ExplosionType::WeakRocket => 5.0,
            ExplosionType::Grenade | ExplosionType::Mine | ExplosionType::Object => 6.0,
            ExplosionType::Rocket
            | ExplosionType::Car
            | ExplosionType::QuickCar
            | ExplosionType::Boat
            | ExplosionType::TankShell => 8.0,
            ExplosionType::Aircraft => 12.0,
        }
    }

    /// The name `dlmp.create_explosion` takes for the type.
    pub fn name(self) -> &'static str {
        match self {
            ExplosionType::Grenade => "grenade",
            ExplosionType::Molotov => "molotov",
            ExplosionType::Rocket => "rocket",
            ExplosionType::WeakRocket => "weak_rocket",
            ExplosionType::Car => "car",
            ExplosionType::QuickCar => "quick_car",
            ExplosionType::Boat => "boat",
            ExplosionType::Aircraft => "aircraft",
            ExplosionType::Mine => "mine",
            ExplosionType::Object => "object",
            ExplosionType::TankShell => "tank_shell",
            ExplosionType::Small => "small",
            ExplosionType::RcVehicle => "rc_vehicle",
        }
    }

    /// The type of a name [`ExplosionType::name`] gives.
    pub fn from_name(name: &str) -> Option<ExplosionType> {
        ExplosionType::ALL
            .iter()
            .copied()
            .find(|t| t.name() == name)
    }
}

packet! {
    /// CreateExplosion (0x5A), Server → Client, reliable: to every spawned player in the
    /// explosion's scope whose stream center is within 420 m of the center; neither
    /// critical nor droppable.
    pub struct CreateExplosion = 0x5A, ServerToClient {
        pub event_id: EventId,
        /// Within world bounds.
        pub center: Vec3,
        /// The explosion type (`type` on the page), 0..=12.
        pub kind: ExplosionType,
        /// Damage radius, meters, 0.1..=50.
        pub radius: f32,
        /// bit0 harmless; bits 1..7 are 0.
        pub flags: u8,
        /// A creator follows; without one its fields are zero.
        pub has_creator: bool,
        /// The player the explosion is credited to.
        pub creator_id: PlayerId,
        /// Its generation, never 0 with a creator.
        pub creator_token: PlayerToken,
    }
}

impl Validate for CreateExplosion {
    fn validate(&self) -> Result<(), FieldError> {
        in_world("center", &self.center)?;
        check::range("radius", self.radius, RADIUS)?;
        check::bits_within("flags", self.flags, flag::DEFINED)?;
        check_player(
            self.has_creator,
            "creator_id",
            self.creator_id,
            "creator_token",
            self.creator_token,
        )?;
        if self.has_creator {
            check_token("creator_token", self.creator_token)?;
        }
        Ok(())
    }
}
