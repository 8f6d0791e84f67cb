//! The occupants' window ([`ExplosionKiller`], kept with the ledger that reads it): a freed
//! seat ends it, and a window past its time or ended goes (ADR 0059).

use bevy_ecs::prelude::*;
use bevy_time::Time;

use crate::SeatChanged;
use dlmp_player::credit::ExplosionKiller;

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
