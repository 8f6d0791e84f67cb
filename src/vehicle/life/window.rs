//! The occupants' window (vehicles.md VehicleExplode: "Everyone alive in the vehicle gets
//! that killer for 5 s: a DeathReport in that window raises player_death with this killer
//! and weapon 51, unless another accepted damage or that player's VehicleExit came
//! first"). The window is a component of each occupant; the ledger reads it on a
//! DeathReport and ends it on another damage; a freed seat ends it too (ADR 0059).

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use super::credit::Who;
use crate::vehicle::SeatChanged;
use dlmp_protocol::connection::damage::{WEAPON_EXPLOSION, WEAPON_FIRE};
use dlmp_protocol::ids::VehicleId;

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

/// A freed seat of the window's vehicle ends the window (the player's VehicleExit, and
/// also the server putting the player out: a destroy, a respawn, a removal).
pub(super) fn end_on_exit(
    mut changed: MessageReader<SeatChanged>,
    mut windows: Query<&mut ExplosionKiller>,
) {
    for c in changed.read() {
        if c.entered {
            continue;
        }
        if let Ok(mut w) = windows.get_mut(c.player.entity)
            && w.vehicle == c.vehicle
            && !w.ended
        {
            w.ended = true;
        }
    }
}

/// Windows past their time or ended are removed.
pub(super) fn forget(
    time: Res<Time>,
    mut commands: Commands,
    windows: Query<(Entity, &ExplosionKiller)>,
) {
    let now = time.elapsed();
    for (entity, w) in &windows {
        if w.ended || now > w.until {
            commands.entity(entity).remove::<ExplosionKiller>();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::ids::{PlayerId, PlayerToken};

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
