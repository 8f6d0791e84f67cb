//! DamageReport (connection.md §6): the victim reports damage its own game applied; the
//! server's health ledger takes it.

use core::ops::RangeInclusive;

use super::roster::check_token;
use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, PlayerId, PlayerToken, Seq, SessionToken};
use crate::packet;
use crate::wire::Validate;

/// Means of damage: 0..=54 (weapons, then 37 fire, 49 vehicle, 51 explosion, 53 drowning,
/// 54 fall).
pub const DAMAGE_WEAPONS: RangeInclusive<u8> = 0..=54;
/// Fire: lowers health only.
pub const WEAPON_FIRE: u8 = 37;
/// Hit by a vehicle.
pub const WEAPON_VEHICLE: u8 = 49;
/// Hit by a helicopter's rotor.
pub const WEAPON_ROTOR: u8 = 50;
/// An explosion.
pub const WEAPON_EXPLOSION: u8 = 51;
/// Drowning: lowers health only.
pub const WEAPON_DROWNING: u8 = 53;
/// A fall: lowers health only.
pub const WEAPON_FALL: u8 = 54;
/// The most health + armor one report may take.
pub const MAX_DAMAGE: f32 = 200.0;
/// Body parts the game names: 3..=9.
pub const BODYPARTS: RangeInclusive<u8> = 3..=9;

packet! {
    /// DamageReport (0x1E), Client → Server, reliable.
    pub struct DamageReport = 0x1E, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The victim's report counter, from 1.
        pub damage_seq: Seq,
        pub has_attacker: bool,
        /// [`PlayerId::NONE`] exactly when there is no attacker.
        pub attacker_id: PlayerId,
        /// The attacker's generation (never 0) with an attacker; not read without one.
        pub attacker_token: PlayerToken,
        /// Means of damage, 0..=54.
        pub weapon: u8,
        /// Health + armor lost: 0 < amount <= 200.
        pub amount: f32,
        /// 3..=9.
        pub bodypart: u8,
    }
}

impl Validate for DamageReport {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(
            self.has_attacker == (self.attacker_id != PlayerId::NONE),
            "attacker_id",
            Rule::Combination,
        )?;
        if self.has_attacker {
            check_token("attacker_token", self.attacker_token)?;
        }
        check::range("weapon", self.weapon, DAMAGE_WEAPONS)?;
        check::ensure(
            self.amount > 0.0 && self.amount <= MAX_DAMAGE,
            "amount",
            Rule::OutOfRange,
        )?;
        check::range("bodypart", self.bodypart, BODYPARTS)
    }
}
