//! Weapons (connection.md §6): the grants on the reliable lane (GiveWeapon, GiveHealth,
//! GiveArmor) and the unreliable shots (WeaponShot and its relay RemoteWeaponShot).

use core::ops::RangeInclusive;

use super::rewind::ShotRewind;
use super::roster::check_token;
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken, Revision, Seq, SessionToken};
use crate::packet;
use crate::wire::Validate;
use crate::wire_enum;

/// Weapons a player can hold: 0 (unarmed) ..= 46.
pub const HELD_WEAPONS: RangeInclusive<u8> = 0..=46;
/// Firearms, the weapons a WeaponShot may carry.
pub const FIREARMS: RangeInclusive<u8> = 22..=38;
/// Health and armor a grant may set.
pub const VITAL_RANGE: RangeInclusive<f32> = 0.0..=200.0;
/// `hit_id` of a ray that hit nothing.
pub const NO_HIT: u32 = u32::MAX;

packet! {
    /// GiveWeapon (0x16), Server → Client, reliable: adds `ammo` to `weapon`.
    pub struct GiveWeapon = 0x16, ServerToClient {
        pub event_id: EventId,
        /// 0..=46, 0 unarmed.
        pub weapon: u8,
        /// Added to that weapon's ammo.
        pub ammo: u16,
        /// Raised by each gamemode weapon change; echoed in PlayerSync.
        pub weapon_rev: Revision,
    }
}

impl Validate for GiveWeapon {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("weapon", self.weapon, HELD_WEAPONS)
    }
}

packet! {
    /// GiveHealth (0x17), Server → Client, reliable: the new absolute health.
    pub struct GiveHealth = 0x17, ServerToClient {
        pub event_id: EventId,
        /// 0..=200.
        pub health: f32,
        /// Raised by each health or armor command; echoed in PlayerSync.
        pub vital_rev: Revision,
    }
}

impl Validate for GiveHealth {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("health", self.health, VITAL_RANGE)
    }
}

packet! {
    /// GiveArmor (0x18), Server → Client, reliable: the new absolute armor.
    pub struct GiveArmor = 0x18, ServerToClient {
        pub event_id: EventId,
        /// 0..=200.
        pub armor: f32,
        /// Raised by each health or armor command; echoed in PlayerSync.
        pub vital_rev: Revision,
    }
}

impl Validate for GiveArmor {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("armor", self.armor, VITAL_RANGE)
    }
}

wire_enum! {
    /// What a shot's ray ended on.
    pub enum HitKind: u8 {
        Nothing = 0,
        Player = 1,
        Vehicle = 2,
        Object = 3,
    }
}

/// `hit_id` is [`NO_HIT`] exactly when the ray hit nothing.
fn check_hit(kind: HitKind, id: u32) -> Result<(), FieldError> {
    check::ensure(
        (kind == HitKind::Nothing) == (id == NO_HIT),
        "hit_id",
        Rule::Combination,
    )
}

packet! {
    /// WeaponShot (0x19), Client → Server, unreliable: one firearm ray.
    pub struct WeaponShot = 0x19, ClientToServer {
        pub session_token: SessionToken,
        /// The shooter's shot counter, shared with VehicleShot; +1 per ray.
        pub order: Seq,
        /// 22..=38 (firearms).
        pub weapon: u8,
        pub origin: Vec3,
        /// Where the ray ended.
        pub hit: Vec3,
        pub hit_kind: HitKind,
        /// The id of what was hit; 0xFFFFFFFF with `hit_kind` Nothing.
        pub hit_id: u32,
        /// Weapon properties revision, 0 until the gamemode changes them.
        pub props_rev: Revision,
    }
}

impl Validate for WeaponShot {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("weapon", self.weapon, FIREARMS)?;
        check_hit(self.hit_kind, self.hit_id)
    }
}

packet! {
    /// RemoteWeaponShot (0x1A), Server → Client, unreliable: an accepted WeaponShot,
    /// relayed to the players the shooter is shown to, in order of `order`.
    pub struct RemoteWeaponShot = 0x1A, ServerToClient {
        /// The shooter.
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub order: Seq,
        /// 22..=38, as accepted from the WeaponShot.
        pub weapon: u8,
        pub origin: Vec3,
        pub hit: Vec3,
        pub hit_kind: HitKind,
        /// 0xFFFFFFFF with `hit_kind` Nothing.
        pub hit_id: u32,
        /// The shooter's relation revision (Damage groups and relations).
        pub relation_rev: u32,
        /// The shooter is a teammate of this recipient.
        pub teammate: bool,
        pub rewind: ShotRewind,
    }
}

impl Validate for RemoteWeaponShot {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)?;
        check::range("weapon", self.weapon, FIREARMS)?;
        check_hit(self.hit_kind, self.hit_id)
    }
}
