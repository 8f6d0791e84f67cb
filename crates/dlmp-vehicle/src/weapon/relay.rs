//! RemoteVehicleShot (vehicles.md): an accepted salvo goes, unreliable, to those the
//! shooter is shown to, through the WeaponShot relay (`relay_to_viewers`) with its
//! rewind (`player_rewind`, `vehicle_rewind`). A machine-gun salvo is rewound to the
//! target its first ray ended on that the server can name (ADR 0070): a player within
//! [`SHOT_REACH`] of the ray's end, otherwise a vehicle within [`VEHICLE_HIT_REACH`] of
//! it; the cannon's is never rewound.

use bevy_ecs::prelude::*;

use super::SalvoAccepted;
use crate::Vehicle;
use dlmp_core::position::Position;
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_core::vehicle::Pose;
use dlmp_player::ledger::SHOT_REACH;
use dlmp_player::shots::{Party, VehicleTargets, player_rewind, relay_to_viewers, vehicle_rewind};
use dlmp_protocol::connection::rewind::ShotRewind;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;
use dlmp_protocol::ids::{PlayerId, VehicleId};
use dlmp_protocol::vehicle::shot::RemoteVehicleShot;

/// A vehicle counts as the target a ray ended on within this distance of its center, m
/// (the page's reach of a shot passing a vehicle, VehicleExplode).
pub const VEHICLE_HIT_REACH: f32 = 8.0;

/// What a ray ended on, by the server's positions now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    Player(PlayerId),
    Vehicle(VehicleId),
}

/// The nearest player (not the shooter) within [`SHOT_REACH`] of `end`, otherwise the
/// nearest vehicle (not the shooting one) within [`VEHICLE_HIT_REACH`].
fn hit(
    end: Vec3,
    shooter: Entity,
    own: Entity,
    players: &Query<(Entity, &Player, &Position)>,
    vehicles: &Query<(Entity, &Vehicle, &Pose)>,
) -> Option<Hit> {
    let nearest = |d: f32, best: &mut Option<(f32, Hit)>, h: Hit| {
        if best.is_none_or(|(b, _)| d < b) {
            *best = Some((d, h));
        }
    };
    let mut best = None;
    for (e, p, pos) in players {
        let d = distance(end, pos.0);
        if e != shooter && d <= SHOT_REACH {
            nearest(d, &mut best, Hit::Player(p.id));
        }
    }
    if best.is_none() {
        for (e, v, pose) in vehicles {
            let d = distance(end, pose.position);
            if e != own && d <= VEHICLE_HIT_REACH {
                nearest(d, &mut best, Hit::Vehicle(v.id));
            }
        }
    }
    best.map(|(_, h)| h)
}

/// Sends this tick's accepted salvos, in admission order, to their shooters' viewers as
/// reconciled this tick, with the relation per recipient.
pub(super) fn relay_salvos(
    index: Res<PlayerIndex>,
    mut accepted: MessageReader<SalvoAccepted>,
    parties: Query<Party>,
    targets: VehicleTargets,
    players: Query<(Entity, &Player, &Position)>,
    vehicles: Query<(Entity, &Vehicle, &Pose)>,
    mut connections: Query<&mut Connection>,
) {
    for a in accepted.read() {
        let shot = &a.shot;
        let rewind = if a.weapon.kind.fires_bullets() {
            match hit(shot.rays[0].end, a.shooter, a.vehicle, &players, &vehicles) {
                Some(Hit::Player(id)) => {
                    player_rewind(id, a.frame_at, a.vehicle_pos, &index, &parties)
                }
                Some(Hit::Vehicle(id)) => vehicle_rewind(id, a.frame_at, a.vehicle_pos, &targets),
                None => ShotRewind::NONE,
            }
        } else {
            ShotRewind::NONE
        };
        relay_to_viewers(
            a.shooter,
            &index,
            &parties,
            &mut connections,
            |me, team, teammate| RemoteVehicleShot {
                id: me.id,
                player_token: me.token,
                order: shot.order,
                vehicle_id: shot.vehicle_id,
                count: shot.count,
                rays: shot.rays,
                props_rev: shot.props_rev,
                relation_rev: team.relation_rev,
                teammate,
                rewind,
            },
        );
    }
}
