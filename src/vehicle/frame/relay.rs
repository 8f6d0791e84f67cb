//! RemoteVehicleFrame (vehicles.md): each frame accepted this tick goes, unreliable, to
//! everyone the vehicle is streamed to as reconciled this tick, except the sender, in
//! [`StreamingSystems::Relay`], with the vehicle's relay serial, the server's health and
//! revisions, and the sender's relation per recipient (connection.md §6, "Damage groups
//! and relations"). A relay to a recipient whose show of the vehicle has not left yet
//! waits for it, in the same bundle ([`Relays`], as the player relays).
//! A siren the frame switched goes to the same audience, the sender included, as
//! VehicleParams (critical: nothing repeats it).
//!
//! [`StreamingSystems::Relay`]: crate::tick::StreamingSystems::Relay

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use bevy_ecs::prelude::*;
use tracing::warn;

use super::VehicleFrameAccepted;
use crate::lane::Delivery;
use crate::player::Team;
use crate::player::relay::Relayed;
use crate::protocol::ServerPacket;
use crate::protocol::ids::PlayerId;
use crate::protocol::vehicle::frame::RemoteVehicleFrame;
use crate::session::{Connection, Player, RelayPacket, Relays, SendError};
use crate::streaming::grid::FxHasher;
use crate::vehicle::params::notify::params_packet;
use crate::vehicle::{Params, Revisions, VehicleStream};

/// Vehicle relays sent and refused by encoding (a refusal is a server bug: it is logged).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VehicleRelayStats {
    pub sent: u64,
    pub refused: u64,
}

/// A recipient of a vehicle's relay: its slot, its entity and its team.
type Member = (PlayerId, Entity, Team);

/// Every recipient of each vehicle with a frame this tick, by vehicle: one pass over the
/// shown sets (what the recipients are shown), so a relay costs its viewers, not all
/// players, and a counting sort groups them (the pairs are tens of thousands in a crowd).
/// Kept between ticks: a fresh table every tick is memory the allocator gives back and
/// faults in again.
#[derive(Debug, Default)]
pub(super) struct Audiences {
    /// A framed vehicle's key to its group.
    group: HashMap<u32, u32, BuildHasherDefault<FxHasher>>,
    /// Each group's first member in `members`, and one past the last group's end.
    starts: Vec<u32>,
    /// (group, member) as found, before grouping.
    found: Vec<(u32, Member)>,
    members: Vec<Member>,
}

impl Audiences {
    fn gather(
        &mut self,
        keys: impl IntoIterator<Item = u32>,
        stream: &VehicleStream,
        recipients: &Query<(Entity, &Player, &Team, &mut Connection)>,
    ) {
        self.group.clear();
        for key in keys {
            let next = u32::try_from(self.group.len()).unwrap_or(u32::MAX);
            self.group.entry(key).or_insert(next);
        }
        self.found.clear();
        self.starts.clear();
        self.starts.resize(self.group.len() + 1, 0);
        for (entity, player, &team, _) in recipients.iter() {
            for key in stream.shown().of(player.id) {
                if let Some(&g) = self.group.get(key) {
                    self.found.push((g, (player.id, entity, team)));
                    self.starts[g as usize + 1] += 1;
                }
            }
        }
        for g in 1..self.starts.len() {
            self.starts[g] += self.starts[g - 1];
        }
        self.members.clear();
        self.members.resize(
            self.found.len(),
            (PlayerId(0), Entity::PLACEHOLDER, Team::default()),
        );
        let mut next = self.starts.clone();
        for &(g, member) in &self.found {
            let at = &mut next[g as usize];
            self.members[*at as usize] = member;
            *at += 1;
        }
    }

    /// The recipients `key` is shown to (empty if it had no frame this tick).
    fn of(&self, key: u32) -> &[Member] {
        self.group.get(&key).map_or(&[], |&g| {
            let g = g as usize;
            &self.members[self.starts[g] as usize..self.starts[g + 1] as usize]
        })
    }
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
    mut audiences: Local<Audiences>,
) {
    let frames: Vec<VehicleFrameAccepted> = accepted.read().copied().collect();
    if frames.is_empty() {
        return;
    }
    audiences.gather(frames.iter().map(|f| f.vehicle_id.0), &stream, &recipients);
    let (mut sent, mut refused) = (0u64, 0u64);
    for a in &frames {
        let key = a.vehicle_id.0;
        let team = teams.get(a.sender).copied().unwrap_or_default();
        // The same bytes go to every recipient but for `teammate`: each variant is encoded
        // once, when a recipient first needs it (as the player relay does).
        let mut encoded: [Option<Result<RelayPacket, SendError>>; 2] = [None, None];
        for &(recipient, entity, their_team) in audiences.of(key) {
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
                    warn!(vehicle = key, "VehicleParams not queued: {e}");
                }
            }
            if entity == a.sender {
                continue;
            }
            let teammate = team.is_teammate_of(&their_team);
            let packet = *encoded[usize::from(teammate)].get_or_insert_with(|| {
                relays.encode(RemoteVehicleFrame {
                    source_id: a.source_id,
                    source_token: a.source_token,
                    seq: a.serial,
                    vehicle_id: a.vehicle_id,
                    state: a.state,
                    relation_rev: team.relation_rev,
                    teammate,
                })
            });
            match packet {
                Ok(packet) => {
                    let barrier = shows.get_mut(a.vehicle).ok().and_then(|mut r| {
                        r.show_barrier(recipient, || recipients.get(entity).ok().map(|(.., c)| c))
                    });
                    relays.queue(recipient, packet, barrier);
                    sent += 1;
                }
                Err(e) => {
                    refused += 1;
                    warn!(vehicle = key, ?recipient, "RemoteVehicleFrame refused: {e}");
                }
            }
        }
    }
    stats.sent += sent;
    stats.refused += refused;
}
