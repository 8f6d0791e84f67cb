//! The vehicle events of one connection, judged in lane order (vehicles.md VehicleControl,
//! "Vehicle event rate limit"; ADR 0120): VehicleEnter, VehicleExit, VehicleControl,
//! VehicleDamage, VehicleTow, VehicleWinch, VehicleRemoteExit and VehicleRemoteEnter share
//! one bucket of 30 at once and 15 a second. `judge` reads the tick's events once, in the
//! order the lane delivered them, before any feature takes its own kind: the bucket drops
//! the later events whatever their kind, and an event after the sender's VehicleExit is
//! judged as coming from outside that vehicle though the seat is freed later in the tick.
//! Each feature asks [`VehicleLane::judged`] for its events.

use std::collections::HashMap;
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use dlmp_core::session::{PlayerConnected, RateLimit, Received, TokenBucket};
use dlmp_core::vehicle::Seated;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::ids::{EventId, VehicleId};

/// 30 at once, 15 a second, per connection.
pub const VEHICLE_EVENTS: RateLimit = RateLimit::per_second(30, 15);

/// One connection's bucket of vehicle events, and the events it dropped.
#[derive(Component, Debug, Clone, Copy)]
pub struct VehicleEvents {
    bucket: TokenBucket,
    pub dropped: u64,
}

impl VehicleEvents {
    pub fn new(now: Duration) -> Self {
        VehicleEvents {
            bucket: TokenBucket::new(VEHICLE_EVENTS, now),
            dropped: 0,
        }
    }

    /// Whether an event at `now` is within the limit (it takes a token); counts a drop.
    fn take(&mut self, now: Duration) -> bool {
        let ok = self.bucket.try_take(now);
        if !ok {
            self.dropped += 1;
        }
        ok
    }
}

/// How the lane judged one vehicle event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// Past the shared limit: acknowledged (the lane did) and dropped.
    Limited,
    /// Within the limit. `exited` is the vehicle the sender left by a VehicleExit earlier
    /// in this tick's lane: the event is judged as from a player no longer in it.
    Taken { exited: Option<VehicleId> },
}

impl Judged {
    /// The sender's seat as the event finds it in lane order: none if an exit came first.
    pub fn seat(self, seated: Option<&Seated>) -> Option<&Seated> {
        match self {
            Judged::Taken { exited: Some(v) } => seated.filter(|s| s.id != v),
            _ => seated,
        }
    }
}

/// This tick's verdicts, by sender and event id, and each sender's exit of the tick.
#[derive(Resource, Debug, Default)]
pub struct VehicleLane {
    verdicts: HashMap<(Entity, EventId), Judged>,
    exits: HashMap<Entity, VehicleId>,
}

impl VehicleLane {
    /// The vehicle `player` left by a VehicleExit this tick, if any.
    pub fn exited(&self, player: Entity) -> Option<VehicleId> {
        self.exits.get(&player).copied()
    }

    /// The verdict on `packet` from `player`; an event `judge` did not see (none in a
    /// running server) is taken as from the sender's current seat.
    pub fn judged(&self, player: Entity, packet: &ClientPacket) -> Judged {
        packet
            .event_id()
            .and_then(|id| self.verdicts.get(&(player, id)).copied())
            .unwrap_or(Judged::Taken { exited: None })
    }
}

fn is_vehicle_event(packet: &ClientPacket) -> bool {
    matches!(
        packet,
        ClientPacket::VehicleEnter(_)
            | ClientPacket::VehicleExit(_)
            | ClientPacket::VehicleControl(_)
            | ClientPacket::VehicleDamage(_)
            | ClientPacket::VehicleTow(_)
            | ClientPacket::VehicleWinch(_)
            | ClientPacket::VehicleRemoteExit(_)
            | ClientPacket::VehicleRemoteEnter(_)
    )
}

/// Judges the tick's vehicle events in lane order: the shared bucket, then the exits.
pub(super) fn judge(
    time: Res<Time>,
    mut received: MessageReader<Received>,
    mut lane: ResMut<VehicleLane>,
    mut limits: Query<&mut VehicleEvents>,
    seated: Query<&Seated>,
) {
    let lane = &mut *lane;
    lane.verdicts.clear();
    lane.exits.clear();
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        if !is_vehicle_event(packet) {
            continue;
        }
        let Some(id) = packet.event_id() else {
            continue;
        };
        let within = limits.get_mut(*player).map_or(true, |mut l| l.take(now));
        let verdict = if within {
            Judged::Taken {
                exited: lane.exits.get(player).copied(),
            }
        } else {
            Judged::Limited
        };
        if let (Judged::Taken { .. }, ClientPacket::VehicleExit(exit)) = (verdict, packet)
            && verdict
                .seat(seated.get(*player).ok())
                .is_some_and(|s| s.id == exit.vehicle_id)
        {
            lane.exits.insert(*player, exit.vehicle_id);
        }
        lane.verdicts.insert((*player, id), verdict);
    }
}

/// Every new connection gets its bucket.
pub(super) fn give(
    mut commands: Commands,
    time: Res<Time>,
    mut connected: MessageReader<PlayerConnected>,
) {
    for c in connected.read() {
        if let Ok(mut e) = commands.get_entity(c.player) {
            e.insert(VehicleEvents::new(time.elapsed()));
        }
    }
}
