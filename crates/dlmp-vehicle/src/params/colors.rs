//! Repainting (vehicles.md VehicleColors): `dlmp.set_vehicle_colors` stores the colors and
//! sends VehicleColors, critical, to everyone the vehicle is streamed to; only for a
//! vehicle that is not a wreck, and not without a change. A show carries the current
//! colors; a respawn keeps them.

use bevy_ecs::prelude::*;
use tracing::debug;

use crate::components::Colors;
use crate::stream::VehicleStream;
use dlmp_core::session::{Connection, PlayerIndex};
use dlmp_core::vehicle::Life;
use dlmp_core::vehicle::Vehicles;
use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::vehicle::sync::MAX_COLOR;
use dlmp_protocol::vehicle::transform::VehicleColors;

/// A repaint by the gamemode (the script checked the range).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColorsCommand {
    pub vehicle: VehicleId,
    pub colors: Colors,
}

/// Repaints sent and dropped (a wreck, a vehicle gone, a bad color from a plugin).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ColorStats {
    pub sent: u64,
    pub unchanged: u64,
    pub dropped: u64,
}

impl ColorStats {
    /// The console's `stats` row.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("sent", self.sent),
            ("unchanged", self.unchanged),
            ("dropped", self.dropped),
        ]
    }
}

/// Applies the tick's [`ColorsCommand`]s in order.
pub(super) fn apply(
    mut read: MessageReader<ColorsCommand>,
    registry: Res<Vehicles>,
    stream: Res<VehicleStream>,
    index: Res<PlayerIndex>,
    mut stats: ResMut<ColorStats>,
    mut vehicles: Query<(&mut Colors, &Life)>,
    mut connections: Query<&mut Connection>,
) {
    for c in read.read() {
        let found = registry
            .entity(c.vehicle)
            .and_then(|e| vehicles.get_mut(e).ok());
        let Some((mut colors, life)) = found else {
            stats.dropped += 1;
            continue;
        };
        if life.wrecked || c.colors.color1 > MAX_COLOR || c.colors.color2 > MAX_COLOR {
            stats.dropped += 1;
            debug!(
                vehicle = c.vehicle.0,
                "a repaint of a wreck or out of range dropped"
            );
            continue;
        }
        if *colors == c.colors {
            stats.unchanged += 1;
            continue;
        }
        *colors = c.colors;
        let packet = VehicleColors {
            event_id: EventId(0),
            vehicle_id: c.vehicle,
            color1: colors.color1,
            color2: colors.color2,
        }
        .into();
        stream
            .shown()
            .tell_viewers(c.vehicle.0, &packet, &index, &mut connections);
        stats.sent += 1;
    }
}
