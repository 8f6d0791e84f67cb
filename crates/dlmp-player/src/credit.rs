//! Who is credited with a death the ledger commits (connection.md §6; vehicles.md
//! VehicleExplode, "The vehicle's killer"): the player of one generation a feature credits,
//! and the killer an exploded vehicle hands its occupants. The vehicle feature, built
//! above the player, fills them; the ledger reads them (docs/architecture.md).
//!
//! The occupants' window (vehicles.md VehicleExplode: "Everyone alive in the vehicle gets
//! that killer for 5 s: a DeathReport in that window raises player_death with this killer
//! and weapon 51, unless another accepted damage or that player's VehicleExit came
//! first") is a component of each occupant; the ledger reads it on a DeathReport and ends
//! it on another damage; a freed seat ends it too (ADR 0059).

use std::time::Duration;

use bevy_ecs::prelude::*;
use dlmp_protocol::connection::damage::{WEAPON_EXPLOSION, WEAPON_FIRE};
use dlmp_protocol::ids::{PlayerId, PlayerToken, VehicleId};

/// A player of one generation (the page: "the same player of the same generation").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Who {
    pub entity: Entity,
    pub id: PlayerId,
    pub token: PlayerToken,
}

/// How long an occupant of an exploded vehicle keeps its killer.
pub const OCCUPANT_WINDOW: Duration = Duration::from_secs(5);

/// On an occupant of a vehicle whose explosion was credited: the killer of its death in
/// the window.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExplosionKiller {
    pub killer: Who,
    pub vehicle: VehicleId,
    /// The last moment of the window (inclusive).
    pub until: Duration,
    /// Another damage or the player's exit came first.
    pub ended: bool,
}

impl ExplosionKiller {
    /// The window of an explosion accepted at `now`.
    pub fn new(killer: Who, vehicle: VehicleId, now: Duration) -> Self {
        ExplosionKiller {
            killer,
            vehicle,
            until: now + OCCUPANT_WINDOW,
            ended: false,
        }
    }

    /// The killer of a death reported at `now`, if the window still holds.
    pub fn killer_at(&self, now: Duration) -> Option<Who> {
        (!self.ended && now <= self.until).then_some(self.killer)
    }

    /// An accepted DamageReport: anything but the explosion's own ends the window. The
    /// explosion's own is an explosion or fire (51 / 37, which the page makes the killer's
    /// cause) naming the killer or no credited attacker (the ledger credits an attacker
    /// only when it sees the victim).
    pub fn take_damage(&mut self, attacker: Option<Entity>, weapon: u8) {
        let own_cause = matches!(weapon, WEAPON_EXPLOSION | WEAPON_FIRE);
        if !own_cause || attacker.is_some_and(|a| a != self.killer.entity) {
            self.ended = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_holds_5_s_and_other_damage_ends_it() {
        let mut world = World::new();
        let (killer, other) = (world.spawn_empty().id(), world.spawn_empty().id());
        let who = Who {
            entity: killer,
            id: PlayerId(2),
            token: PlayerToken(3),
        };
        let t = Duration::from_secs(10);
        let mut w = ExplosionKiller::new(who, VehicleId(1), t);
        assert_eq!(w.killer_at(t + OCCUPANT_WINDOW), Some(who));
        assert_eq!(
            w.killer_at(t + OCCUPANT_WINDOW + Duration::from_millis(1)),
            None
        );
        w.take_damage(Some(killer), WEAPON_EXPLOSION);
        w.take_damage(None, WEAPON_FIRE);
        assert_eq!(
            w.killer_at(t),
            Some(who),
            "the explosion's own damage and fire"
        );
        w.take_damage(Some(other), WEAPON_EXPLOSION);
        assert_eq!(w.killer_at(t), None);
        let mut w = ExplosionKiller::new(who, VehicleId(1), t);
        w.take_damage(None, 54);
        assert_eq!(w.killer_at(t), None, "a fall");
    }
}
