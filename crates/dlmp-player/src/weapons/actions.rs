//! The action log of weapons.md §6: per player, the weapon actions the server accepted in
//! the last [`LOG_WINDOW`] (at most [`LOG_CAP`], the oldest leaving first), each with its
//! kind, time, place, the player's generation and scope. The credit of a vehicle's
//! explosion (vehicles.md "The vehicle's killer", filled by the vehicle crate above) reads
//! it through [`ActionLog::explains_vehicle`] (ADR 0133).

use std::collections::VecDeque;
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_protocol::geometry::{Vec3, distance};
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

/// What the player did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ActionKind {
    /// An accepted, relayed ProjectileCreate.
    Launch {
        weapon: ProjectileWeapon,
        /// A rocket 19 / 20 fired from a vehicle.
        from_vehicle: bool,
        /// A heat-seeker's target as relayed.
        target: Option<(VehicleId, VehicleEpoch)>,
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

/// One accepted action.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Action {
    pub kind: ActionKind,
    pub at: Duration,
    pub place: Option<Vec3>,
    pub token: PlayerToken,
    pub scope: Scope,
}

/// The vehicle whose explosion a credit asks about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExplodedVehicle {
    pub id: VehicleId,
    pub epoch: VehicleEpoch,
    pub position: Vec3,
    pub scope: Scope,
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

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether an action of the generation `token` explains the explosion of `vehicle` at
    /// `now` by weapons.md §6 "Credit of a vehicle's explosion": a grenade for 20 s within
    /// 60 m, a satchel detonation for 20 s, a molotov, a flame, a gamemode explosion or
    /// another vehicle's credited explosion for 85 s within 80 m, a rocket for
    /// 85 s within 200 m (700 m fired from a vehicle; a heat-seeker at any distance for
    /// its target of that epoch), each in the vehicle's scope.
    pub fn explains_vehicle(
        &self,
        token: PlayerToken,
        vehicle: &ExplodedVehicle,
        now: Duration,
    ) -> bool {
        self.0
            .iter()
            .any(|a| a.token == token && a.scope == vehicle.scope && explains(a, vehicle, now))
    }
}

/// One row of the vehicle credit table.
fn explains(a: &Action, v: &ExplodedVehicle, now: Duration) -> bool {
    let age = now.saturating_sub(a.at);
    let within = |window: u64, reach: f32| {
        age <= Duration::from_secs(window)
            && a.place.is_some_and(|p| distance(p, v.position) <= reach)
    };
    match a.kind {
        ActionKind::SatchelDetonation => age <= Duration::from_secs(20),
        ActionKind::Flamethrower | ActionKind::GamemodeExplosion { .. } => within(85, 80.0),
        ActionKind::VehicleExplosion { vehicle } => vehicle != v.id && within(85, 80.0),
        // weapons.md §6 and §9: the tank shell credits DamageReport 51 at the ray's end,
        // no vehicle's explosion (ADR 0133).
        ActionKind::TankShell { .. } => false,
        ActionKind::Launch {
            weapon,
            from_vehicle,
            target,
        } => match weapon {
            ProjectileWeapon::Grenade => within(20, 60.0),
            ProjectileWeapon::Molotov => within(85, 80.0),
            ProjectileWeapon::Rocket | ProjectileWeapon::HeatSeeker => {
                let reach = if from_vehicle {
                    200.0 + ROCKET_FLIGHT
                } else {
                    200.0
                };
                let locked = weapon == ProjectileWeapon::HeatSeeker
                    && target == Some((v.id, v.epoch))
                    && age <= Duration::from_secs(85);
                locked || within(85, reach)
            }
            _ => false,
        },
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
        log.push(Action {
            kind: ActionKind::Launch {
                weapon: l.weapon,
                from_vehicle: l.vehicle_id != VehicleId::NONE,
                target,
            },
            at: now,
            place: Some(l.origin),
            token: p.token,
            scope: *scope,
        });
    }
    for d in detonations.0.iter().filter(|d| !d.refused) {
        let Ok((p, scope, mut log)) = players.get_mut(d.thrower) else {
            continue;
        };
        log.push(Action {
            kind: ActionKind::SatchelDetonation,
            at: now,
            place: None,
            token: p.token,
            scope: *scope,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    fn launch(weapon: ProjectileWeapon, at: u64, x: f32) -> Action {
        Action {
            kind: ActionKind::Launch {
                weapon,
                from_vehicle: false,
                target: None,
            },
            at: S(at),
            place: Some(Vec3::new(x, 0.0, 0.0)),
            token: PlayerToken(1),
            scope: Scope::default(),
        }
    }

    fn car() -> ExplodedVehicle {
        ExplodedVehicle {
            id: VehicleId(7),
            epoch: VehicleEpoch(2),
            position: Vec3::ZERO,
            scope: Scope::default(),
        }
    }

    #[test]
    fn the_log_holds_85_s_and_64_actions() {
        let mut log = ActionLog::default();
        for i in 0..100 {
            log.push(launch(ProjectileWeapon::Grenade, i, 0.0));
        }
        assert_eq!(log.len(), LOG_CAP);
        log.push(launch(ProjectileWeapon::Grenade, 200, 0.0));
        assert_eq!(log.len(), 1, "everything older than 85 s left");
    }

    #[test]
    fn each_row_holds_inside_its_window_and_distance_only() {
        let row = |a: Action, now: u64| {
            let mut log = ActionLog::default();
            log.push(a);
            log.explains_vehicle(PlayerToken(1), &car(), S(now))
        };
        use ProjectileWeapon::*;
        assert!(row(launch(Grenade, 0, 60.0), 20));
        assert!(!row(launch(Grenade, 0, 60.5), 1));
        assert!(!row(launch(Grenade, 0, 1.0), 21));
        assert!(row(launch(Molotov, 0, 80.0), 85));
        assert!(!row(launch(Molotov, 0, 80.5), 1));
        assert!(row(launch(Rocket, 0, 200.0), 85));
        assert!(!row(launch(Rocket, 0, 200.5), 1));
        assert!(
            !row(launch(Teargas, 0, 1.0), 1),
            "teargas credits no vehicle"
        );
        let from_vehicle = |x| Action {
            kind: ActionKind::Launch {
                weapon: Rocket,
                from_vehicle: true,
                target: None,
            },
            ..launch(Rocket, 0, x)
        };
        assert!(row(from_vehicle(700.0), 1));
        assert!(!row(from_vehicle(700.5), 1));
        let locked = |epoch| Action {
            kind: ActionKind::Launch {
                weapon: HeatSeeker,
                from_vehicle: false,
                target: Some((VehicleId(7), VehicleEpoch(epoch))),
            },
            ..launch(HeatSeeker, 0, 5000.0)
        };
        assert!(row(locked(2), 85));
        assert!(!row(locked(1), 1), "another epoch");
        let satchel = Action {
            kind: ActionKind::SatchelDetonation,
            place: None,
            ..launch(Satchel, 0, 0.0)
        };
        assert!(row(satchel, 20));
        assert!(!row(satchel, 21));
        let of = |kind| Action {
            kind,
            ..launch(Molotov, 0, 80.0)
        };
        for kind in [
            ActionKind::Flamethrower,
            ActionKind::GamemodeExplosion { radius: 4.0 },
            ActionKind::VehicleExplosion {
                vehicle: VehicleId(8),
            },
        ] {
            assert!(row(of(kind), 85), "{kind:?}");
            assert!(!row(of(kind), 86), "{kind:?}");
            assert!(!row(
                Action {
                    place: Some(Vec3::new(80.5, 0.0, 0.0)),
                    ..of(kind)
                },
                1
            ));
        }
        let own = ActionKind::VehicleExplosion {
            vehicle: VehicleId(7),
        };
        assert!(!row(of(own), 1), "its own explosion");
        let shell = ActionKind::TankShell {
            cannon: VehicleId(8),
        };
        assert!(!row(of(shell), 1), "a tank shell credits no vehicle");
    }

    #[test]
    fn another_generation_or_scope_explains_nothing() {
        let mut log = ActionLog::default();
        log.push(launch(ProjectileWeapon::Grenade, 0, 1.0));
        assert!(!log.explains_vehicle(PlayerToken(2), &car(), S(1)));
        let elsewhere = ExplodedVehicle {
            scope: Scope {
                virtual_world: 1,
                interior: 0,
            },
            ..car()
        };
        assert!(!log.explains_vehicle(PlayerToken(1), &elsewhere, S(1)));
    }
}
