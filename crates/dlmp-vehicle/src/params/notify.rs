//! Who is told of a parameter change (vehicles.md VehicleParams): every recipient the
//! vehicle is streamed to whose own view changed (the lock is its own if the gamemode set
//! one, the objective marker only its own), and everyone on a door command. Critical:
//! nothing repeats it (VehicleOccupancy, "Delivery").

use bevy_ecs::prelude::*;

use crate::components::{Params, SirenRev};
use crate::stream::VehicleStream;
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken, VehicleId};
use dlmp_protocol::vehicle::params::VehicleParams;

/// The full parameter state of `vehicle` as `recipient` sees it; `doors_set`: the doors
/// this packet opens or closes. The one builder of VehicleParams (the frame relay's siren
/// switch uses it too).
pub fn params_packet(
    vehicle: VehicleId,
    params: &Params,
    siren_rev: SirenRev,
    recipient: (PlayerId, PlayerToken),
    doors_set: u8,
) -> VehicleParams {
    VehicleParams {
        event_id: EventId(0),
        vehicle_id: vehicle,
        params: params.for_recipient(recipient.0, recipient.1),
        doors: params.doors,
        doors_set,
        siren_rev: siren_rev.0,
    }
}

/// Sends VehicleParams to each viewer of `vehicle` whose view differs between `before`
/// and `after`, or to all of them when `doors_set` is not empty or `siren_command` (a new
/// siren revision every copy must echo). Returns how many got it.
pub fn tell_changed(
    stream: &VehicleStream,
    index: &PlayerIndex,
    recipients: &mut Query<(&Player, &mut Connection)>,
    vehicle: VehicleId,
    (before, after): (&Params, &Params),
    siren_rev: SirenRev,
    doors_set: u8,
    siren_command: bool,
) -> usize {
    let mut told = 0;
    for viewer in stream.shown().viewers(vehicle.0) {
        let Some((player, mut conn)) = index.get(viewer).and_then(|e| recipients.get_mut(e).ok())
        else {
            continue;
        };
        let me = (player.id, player.token);
        let changed = before.for_recipient(me.0, me.1) != after.for_recipient(me.0, me.1)
            || before.doors != after.doors;
        if !changed && doors_set == 0 && !siren_command {
            continue;
        }
        let packet = params_packet(vehicle, after, siren_rev, me, doors_set);
        match conn.send_event(ServerPacket::from(packet), Delivery::Critical) {
            Ok(_) => told += 1,
            Err(e) => {
                dlmp_net::log_limited!(warn, vehicle = vehicle.0, "VehicleParams not queued: {e}")
            }
        }
    }
    told
}
