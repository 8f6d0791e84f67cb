//! RemoteVehicleFrame (vehicles.md): each frame accepted this tick goes, unreliable, to
//! everyone the vehicle is streamed to as reconciled this tick, except the sender, in
//! [`StreamingSystems::Relay`], with the vehicle's relay serial, the server's health and
//! revisions, and the sender's relation per recipient (connection.md §6, "Damage groups
//! and relations"). A relay to a recipient whose show of the vehicle has not left yet
//! waits for it, in the same bundle ([`Relays`], as the player relays).
//! A siren the frame switched goes to the same audience, the sender included, as
//! VehicleParams (critical: nothing repeats it).
//!
//! [`StreamingSystems::Relay`]: dlmp_core::tick::StreamingSystems::Relay

use bevy_ecs::prelude::*;

use super::VehicleFrameAccepted;
use crate::params::notify::params_packet;
use crate::{Params, Revisions, VehicleStream};
use dlmp_core::session::{Connection, Player, PlayerIndex, RelayPacket, Relays};
use dlmp_net::lane::Delivery;
use dlmp_player::Team;
use dlmp_player::relay::{Recipient, Recipients, Relayed};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::vehicle::frame::RemoteVehicleFrame;

/// Vehicle relays sent and refused by encoding (a refusal is a server bug: it is logged).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VehicleRelayStats {
    pub sent: u64,
    pub refused: u64,
}

#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn relay_vehicle_frames(
    mut accepted: MessageReader<VehicleFrameAccepted>,
    stream: Res<VehicleStream>,
    teams: Query<&Team>,
    mut shows: Query<&mut Relayed>,
    vehicles: Query<(&Params, &Revisions)>,
    mut recipients: Query<(Entity, &Player, &Team, &mut Connection)>,
    mut relays: ResMut<Relays>,
    mut stats: ResMut<VehicleRelayStats>,
    index: Res<PlayerIndex>,
    mut by_slot: Local<Recipients>,
) {
    let frames: Vec<VehicleFrameAccepted> = accepted.read().copied().collect();
    if frames.is_empty() {
        return;
    }
    by_slot.refresh(&index, recipients.iter().map(|(e, p, t, _)| (e, p, t)));
    // Dereferenced once, as the player relay does (ADR 0084): through `ResMut` each
    // queued relay would mark the resource changed again.
    let relays = &mut *relays;
    let (mut sent, mut refused) = (0u64, 0u64);
    for a in &frames {
        let key = a.vehicle_id.0;
        let team = teams.get(a.sender).copied().unwrap_or_default();
        // Looked up once a frame, not once a recipient.
        let mut shown = shows.get_mut(a.vehicle).ok().map(Mut::into_inner);
        // The same bytes go to every recipient but for `teammate`: each variant is encoded
        // once, when a recipient first needs it (as the player relay does).
        // `None` inside: the variant was refused (warned once, counted per recipient).
        let mut encoded: [Option<Option<RelayPacket>>; 2] = [None, None];
        for recipient in stream.shown().viewers(key) {
            let Some(Recipient {
                entity,
                team: their_team,
            }) = by_slot.get(recipient)
            else {
                continue;
            };
            if a.outcome.siren_switched
                && let Ok((params, revs)) = vehicles.get(a.vehicle)
                && let Ok((_, player, _, mut conn)) = recipients.get_mut(entity)
            {
                let packet = params_packet(
                    a.vehicle_id,
                    params,
                    revs.siren,
                    (player.id, player.token),
                    0,
                );
                if let Err(e) = conn.send_event(ServerPacket::from(packet), Delivery::Critical) {
                    dlmp_net::log_limited!(warn, vehicle = key, "VehicleParams not queued: {e}");
                }
            }
            if entity == a.sender {
                continue;
            }
            let teammate = team.is_teammate_of(&their_team);
            let packet = *encoded[usize::from(teammate)].get_or_insert_with(|| {
                let packet = relays.encode(RemoteVehicleFrame {
                    source_id: a.source_id,
                    source_token: a.source_token,
                    seq: a.serial,
                    vehicle_id: a.vehicle_id,
                    state: a.state,
                    relation_rev: team.relation_rev,
                    teammate,
                });
                packet
                    .inspect_err(|e| {
                        dlmp_net::log_limited!(
                            warn,
                            vehicle = key,
                            teammate,
                            "RemoteVehicleFrame refused: {e}"
                        )
                    })
                    .ok()
            });
            match packet {
                Some(packet) => {
                    let barrier = shown.as_mut().and_then(|r| {
                        r.show_barrier(recipient, || recipients.get(entity).ok().map(|(.., c)| c))
                    });
                    relays.queue(recipient, packet, barrier);
                    sent += 1;
                }
                None => refused += 1,
            }
        }
    }
    stats.sent += sent;
    stats.refused += refused;
}
