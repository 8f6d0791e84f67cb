//! The action log of weapons.md §6: per player, the weapon actions the server accepted in
//! the last [`LOG_WINDOW`] (at most [`LOG_CAP`], the oldest leaving first), each with its
//! kind, time, place, the player's generation and scope, and the vehicles near its place
//! then. The two credit tables of §6 read it ([`super::explains`]): a player's DamageReport
//! 51 / 37 / 17 in the ledger, and a vehicle's explosion (vehicles.md "The vehicle's
//! killer", judged by the vehicle crate above; ADR 0133).

use std::collections::VecDeque;
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerToken, VehicleEpoch, VehicleId};
use dlmp_protocol::weapons::projectile::ProjectileWeapon;

use super::launch::PendingLaunches;
use super::satchel::PendingDetonations;

/// How long an action stays in the log (the longest window of §6).
pub const LOG_WINDOW: Duration = Duration::from_secs(85);
/// How many actions one player's log holds.
pub const LOG_CAP: usize = 64;

/// The flight path a rocket fired from a vehicle adds to its distance, m (weapons.md §6).
pub const ROCKET_FLIGHT: f32 = 500.0;
/// A grenade's reach for a vehicle and a player's explosion damage, m (§6).
pub const GRENADE_REACH: f32 = 60.0;
/// The reach of a molotov, a flame, a gamemode's or a vehicle's explosion for a vehicle,
/// and of every fire for a player's fire damage, m (§6).
pub const FIRE_REACH: f32 = 80.0;

/// A rocket's reach: 200 m, fired from a vehicle plus the [`ROCKET_FLIGHT`] (§6).
pub fn rocket_reach(from_vehicle: bool) -> f32 {
    if from_vehicle {
        200.0 + ROCKET_FLIGHT
    } else {
        200.0
    }
}

/// A vehicle of one life.
pub type VehicleOfLife = (VehicleId, VehicleEpoch);

/// What the player did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ActionKind {
    /// An accepted, relayed ProjectileCreate.
    Launch {
        weapon: ProjectileWeapon,
        /// A rocket 19 / 20 fired from a vehicle.
        from_vehicle: bool,
        /// A heat-seeker's target as relayed.
        target: Option<VehicleOfLife>,
    },
    /// An accepted, relayed SatchelDetonate (it has no place).
    SatchelDetonation,
    /// An accepted frame firing the flamethrower, at most one a second.
    Flamethrower,
    /// A `dlmp.create_explosion` with this creator, not harmless.
    GamemodeExplosion { radius: f32 },
    /// A vehicle whose explosion the server credited to this player.
    VehicleExplosion { vehicle: VehicleId },
    /// The end of a ray of an accepted cannon salvo of `cannon` (vehicles.md VehicleShot:
    /// "the cannon's ray becomes the cause of the explosion").
    TankShell { cannon: VehicleId },
}

impl ActionKind {
    /// How far from its place a vehicle may stand and be explained by it (its row's
    /// distance in §6 "Credit of a vehicle's explosion"); `None` for an action without a
    /// place or without a row there.
    pub fn vehicle_reach(self) -> Option<f32> {
        match self {
            ActionKind::SatchelDetonation | ActionKind::TankShell { .. } => None,
            ActionKind::Flamethrower
            | ActionKind::GamemodeExplosion { .. }
            | ActionKind::VehicleExplosion { .. } => Some(FIRE_REACH),
            ActionKind::Launch {
                weapon,
                from_vehicle,
                ..
            } => match weapon {
                ProjectileWeapon::Grenade => Some(GRENADE_REACH),
                ProjectileWeapon::Molotov => Some(FIRE_REACH),
                ProjectileWeapon::Rocket | ProjectileWeapon::HeatSeeker => {
                    Some(rocket_reach(from_vehicle))
                }
                ProjectileWeapon::Teargas | ProjectileWeapon::Satchel => None,
            },
        }
    }
}

/// How many vehicles an action notes near its place, the nearest first (ADR 0122: the
/// log's memory stays bounded by its caps).
pub const NEAR_CAP: usize = 16;

/// One accepted action.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub kind: ActionKind,
    pub at: Duration,
    pub place: Option<Vec3>,
    pub token: PlayerToken,
    pub scope: Scope,
    /// The vehicles of its scope within [`ActionKind::vehicle_reach`] of its place when it
    /// was taken, nearest first, at most [`NEAR_CAP`]; `None` until the vehicle feature
    /// notes them at the end of the tick (§6: "a vehicle set alight may drive away before
    /// it blows up").
    pub near: Option<Box<[VehicleOfLife]>>,
}

impl Action {
    /// An action of the generation `token` in `scope`, whose vehicles are not noted yet.
    pub fn new(
        kind: ActionKind,
        at: Duration,
        place: Option<Vec3>,
        (token, scope): (PlayerToken, Scope),
    ) -> Self {
        Action {
            kind,
            at,
            place,
            token,
            scope,
            near: None,
        }
    }

    /// Whether `vehicle` stood within its row's distance when the action was taken.
    pub fn was_near(&self, vehicle: VehicleOfLife) -> bool {
        self.near.as_deref().is_some_and(|n| n.contains(&vehicle))
    }
}

/// On a player: its action log, oldest first.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct ActionLog(VecDeque<Action>);

impl ActionLog {
    /// Notes `action`; what is older than [`LOG_WINDOW`] leaves, and past [`LOG_CAP`] the
    /// oldest.
    pub fn push(&mut self, action: Action) {
        while self
            .0
            .front()
            .is_some_and(|a| action.at.saturating_sub(a.at) > LOG_WINDOW || self.0.len() >= LOG_CAP)
        {
            self.0.pop_front();
        }
        self.0.push_back(action);
    }

    /// The latest action of `kind`.
    pub fn last(&self, kind: ActionKind) -> Option<&Action> {
        self.0.iter().rev().find(|a| a.kind == kind)
    }

    /// The actions of the generation `token` in `scope`, newest first.
    pub fn of(&self, token: PlayerToken, scope: Scope) -> impl Iterator<Item = &Action> {
        self.0
            .iter()
            .rev()
            .filter(move |a| a.token == token && a.scope == scope)
    }

    /// The newest actions whose nearby vehicles are not noted yet.
    pub fn unnoted(&mut self) -> impl Iterator<Item = &mut Action> {
        self.0.iter_mut().rev().take_while(|a| a.near.is_none())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// This tick's accepted launches and detonations that no handler refused enter their
/// launchers' logs (every player has one from its connection on), before the detonations'
/// relay drains them.
pub(super) fn log_actions(
    time: Res<Time>,
    launches: Res<PendingLaunches>,
    detonations: Res<PendingDetonations>,
    mut players: Query<(&Player, &Scope, &mut ActionLog)>,
) {
    let now = time.elapsed();
    for a in launches.0.iter().filter(|a| !a.refused) {
        let Ok((p, scope, mut log)) = players.get_mut(a.launcher) else {
            continue;
        };
        let l = &a.launch;
        let target = (l.weapon == ProjectileWeapon::HeatSeeker && l.target_id != VehicleId::NONE)
            .then_some((l.target_id, l.target_epoch));
        let kind = ActionKind::Launch {
            weapon: l.weapon,
            from_vehicle: l.vehicle_id != VehicleId::NONE,
            target,
        };
        log.push(Action::new(kind, now, Some(l.origin), (p.token, *scope)));
    }
    for d in detonations.0.iter().filter(|d| !d.refused) {
        let Ok((p, scope, mut log)) = players.get_mut(d.thrower) else {
            continue;
        };
        let kind = ActionKind::SatchelDetonation;
        log.push(Action::new(kind, now, None, (p.token, *scope)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    fn grenade(at: u64) -> Action {
        let kind = ActionKind::Launch {
            weapon: ProjectileWeapon::Grenade,
            from_vehicle: false,
            target: None,
        };
        let by = (PlayerToken(1), Scope::default());
        Action::new(kind, S(at), Some(Vec3::ZERO), by)
    }

    #[test]
    fn the_log_holds_85_s_and_64_actions() {
        let mut log = ActionLog::default();
        for i in 0..100 {
            log.push(grenade(i));
        }
        assert_eq!(log.len(), LOG_CAP);
        log.push(grenade(200));
        assert_eq!(log.len(), 1, "everything older than 85 s left");
    }

    #[test]
    fn only_the_newest_actions_wait_for_their_vehicles() {
        let mut log = ActionLog::default();
        log.push(grenade(1));
        for a in log.unnoted() {
            a.near = Some(Box::new([]));
        }
        log.push(grenade(2));
        log.push(grenade(3));
        let waiting: Vec<_> = log.unnoted().map(|a| a.at).collect();
        assert_eq!(waiting, [S(3), S(2)]);
    }
}
