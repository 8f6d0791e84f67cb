//! The two credit tables of weapons.md §6: which action of the attacker's log explains a
//! player's DamageReport 51 / 37 / 17 (the ledger asks before it credits the attacker), and
//! which explains a vehicle's explosion (vehicles.md "The vehicle's killer"; the vehicle
//! crate asks, ADR 0133). An action explains only for its own generation and scope.

use std::time::Duration;

use dlmp_core::position::Scope;
use dlmp_protocol::connection::damage::{WEAPON_EXPLOSION, WEAPON_FIRE};
use dlmp_protocol::geometry::{Vec3, distance};
use dlmp_protocol::ids::{PlayerToken, VehicleEpoch, VehicleId};
use dlmp_protocol::weapons::projectile::ProjectileWeapon;

use super::actions::{
    Action, ActionKind, ActionLog, FIRE_REACH, GRENADE_REACH, VehicleOfLife, rocket_reach,
};

const fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// What a DamageReport's weapon counts as for the credit (§6, step 2: 16, 19, 20, 35, 36,
/// 39 and 40 count as 51, 18 as 37).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// 51: a projectile's, a satchel's, the gamemode's, a vehicle's or a shell's blast.
    Explosion,
    /// 37: fire.
    Fire,
    /// 17: teargas.
    Gas,
}

impl Cause {
    /// The cause a reported weapon counts as; `None` for a means the log does not judge.
    pub fn of(weapon: u8) -> Option<Cause> {
        match weapon {
            WEAPON_EXPLOSION | 16 | 19 | 20 | 35 | 36 | 39 | 40 => Some(Cause::Explosion),
            WEAPON_FIRE | 18 => Some(Cause::Fire),
            17 => Some(Cause::Gas),
            _ => None,
        }
    }
}

/// The player a DamageReport's credit asks about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DamagedPlayer {
    /// Its last position.
    pub position: Vec3,
    pub scope: Scope,
    /// The vehicle it sits in, if any (a heat-seeker credits its target's occupants at any
    /// distance).
    pub seat: Option<VehicleOfLife>,
}

/// The vehicle whose explosion a credit asks about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExplodedVehicle {
    pub id: VehicleId,
    pub epoch: VehicleEpoch,
    /// Its server position at the explosion.
    pub position: Vec3,
    pub scope: Scope,
}

impl ActionLog {
    /// Whether an action of the generation `token` explains damage of `cause` to `victim`
    /// reported at `now` (§6 "Credit of a DamageReport").
    pub fn explains_damage(
        &self,
        token: PlayerToken,
        cause: Cause,
        victim: &DamagedPlayer,
        now: Duration,
    ) -> bool {
        self.of(token, victim.scope)
            .any(|a| damage_row(a, cause, victim, now))
    }

    /// Whether an action of the generation `token` explains the explosion of `vehicle` at
    /// `now` (§6 "Credit of a vehicle's explosion").
    pub fn explains_vehicle(
        &self,
        token: PlayerToken,
        vehicle: &ExplodedVehicle,
        now: Duration,
    ) -> bool {
        self.of(token, vehicle.scope)
            .any(|a| vehicle_row(a, vehicle, now))
    }
}

/// One row of the players' table: the window before the report, the distance of the
/// victim's last position from the place.
fn damage_row(a: &Action, cause: Cause, v: &DamagedPlayer, now: Duration) -> bool {
    let age = now.saturating_sub(a.at);
    let near = |window: Duration, reach: f32| {
        age <= window && a.place.is_some_and(|p| distance(p, v.position) <= reach)
    };
    let blast = secs(10);
    match (cause, a.kind) {
        (Cause::Explosion, ActionKind::SatchelDetonation) => age <= blast,
        (Cause::Explosion, ActionKind::GamemodeExplosion { radius }) => near(blast, radius + 10.0),
        (Cause::Explosion, ActionKind::VehicleExplosion { .. } | ActionKind::TankShell { .. }) => {
            near(blast, 30.0)
        }
        (
            Cause::Explosion,
            ActionKind::Launch {
                weapon,
                from_vehicle,
                target,
            },
        ) => match weapon {
            ProjectileWeapon::Grenade => near(blast, GRENADE_REACH),
            ProjectileWeapon::Rocket | ProjectileWeapon::HeatSeeker => {
                let locked = weapon == ProjectileWeapon::HeatSeeker
                    && target.is_some()
                    && target == v.seat
                    && age <= blast;
                locked || near(blast, rocket_reach(from_vehicle))
            }
            _ => false,
        },
        (
            Cause::Fire,
            ActionKind::Flamethrower
            | ActionKind::GamemodeExplosion { .. }
            | ActionKind::VehicleExplosion { .. }
            | ActionKind::Launch {
                weapon: ProjectileWeapon::Molotov,
                ..
            },
        ) => near(secs(85), FIRE_REACH),
        (
            Cause::Gas,
            ActionKind::Launch {
                weapon: ProjectileWeapon::Teargas,
                ..
            },
        ) => near(secs(30), 60.0),
        _ => false,
    }
}

/// One row of the vehicles' table. The distance counts from the place to where the vehicle
/// stood at the action (the vehicles it noted) or at the explosion, whichever is smaller.
fn vehicle_row(a: &Action, v: &ExplodedVehicle, now: Duration) -> bool {
    let age = now.saturating_sub(a.at);
    let near = |window: Duration| {
        age <= window
            && a.kind.vehicle_reach().is_some_and(|reach| {
                a.was_near((v.id, v.epoch))
                    || a.place.is_some_and(|p| distance(p, v.position) <= reach)
            })
    };
    match a.kind {
        ActionKind::SatchelDetonation => age <= secs(20),
        ActionKind::Flamethrower | ActionKind::GamemodeExplosion { .. } => near(secs(85)),
        ActionKind::VehicleExplosion { vehicle } => vehicle != v.id && near(secs(85)),
        // weapons.md §6 and §9: the tank shell credits DamageReport 51 at the ray's end,
        // no vehicle's explosion (ADR 0133).
        ActionKind::TankShell { .. } => false,
        ActionKind::Launch { weapon, target, .. } => match weapon {
            ProjectileWeapon::Grenade => near(secs(20)),
            ProjectileWeapon::Molotov => near(secs(85)),
            ProjectileWeapon::Rocket | ProjectileWeapon::HeatSeeker => {
                let locked = weapon == ProjectileWeapon::HeatSeeker
                    && target == Some((v.id, v.epoch))
                    && age <= secs(85);
                locked || near(secs(85))
            }
            ProjectileWeapon::Teargas | ProjectileWeapon::Satchel => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const ME: PlayerToken = PlayerToken(1);

    fn launch(weapon: ProjectileWeapon, at: u64, x: f32) -> Action {
        let kind = ActionKind::Launch {
            weapon,
            from_vehicle: false,
            target: None,
        };
        Action::new(
            kind,
            S(at),
            Some(Vec3::new(x, 0.0, 0.0)),
            (ME, Scope::default()),
        )
    }

    fn with(kind: ActionKind, a: Action) -> Action {
        Action { kind, ..a }
    }

    fn car() -> ExplodedVehicle {
        ExplodedVehicle {
            id: VehicleId(7),
            epoch: VehicleEpoch(2),
            position: Vec3::ZERO,
            scope: Scope::default(),
        }
    }

    fn victim() -> DamagedPlayer {
        DamagedPlayer {
            position: Vec3::ZERO,
            scope: Scope::default(),
            seat: None,
        }
    }

    fn vehicle_row_holds(a: Action, now: u64) -> bool {
        let mut log = ActionLog::default();
        log.push(a);
        log.explains_vehicle(ME, &car(), S(now))
    }

    fn damage_row_holds(a: Action, weapon: u8, now: u64) -> bool {
        let mut log = ActionLog::default();
        log.push(a);
        let cause = Cause::of(weapon).expect("a judged weapon");
        log.explains_damage(ME, cause, &victim(), S(now))
    }

    #[test]
    fn each_vehicle_row_holds_inside_its_window_and_distance_only() {
        use ProjectileWeapon::*;
        let row = vehicle_row_holds;
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
        let from_vehicle = |x| {
            let kind = ActionKind::Launch {
                weapon: Rocket,
                from_vehicle: true,
                target: None,
            };
            with(kind, launch(Rocket, 0, x))
        };
        assert!(row(from_vehicle(700.0), 1));
        assert!(!row(from_vehicle(700.5), 1));
        let locked = |epoch| {
            let kind = ActionKind::Launch {
                weapon: HeatSeeker,
                from_vehicle: false,
                target: Some((VehicleId(7), VehicleEpoch(epoch))),
            };
            with(kind, launch(HeatSeeker, 0, 5000.0))
        };
        assert!(row(locked(2), 85));
        assert!(!row(locked(2), 86));
        assert!(!row(locked(1), 1), "another epoch");
        let satchel = Action {
            place: None,
            ..with(ActionKind::SatchelDetonation, launch(Satchel, 0, 0.0))
        };
        assert!(row(satchel.clone(), 20));
        assert!(!row(satchel, 21));
        for kind in [
            ActionKind::Flamethrower,
            ActionKind::GamemodeExplosion { radius: 4.0 },
            ActionKind::VehicleExplosion {
                vehicle: VehicleId(8),
            },
        ] {
            assert!(row(with(kind, launch(Molotov, 0, 80.0)), 85), "{kind:?}");
            assert!(!row(with(kind, launch(Molotov, 0, 80.0)), 86), "{kind:?}");
            assert!(!row(with(kind, launch(Molotov, 0, 80.5)), 1), "{kind:?}");
        }
        let own = ActionKind::VehicleExplosion {
            vehicle: VehicleId(7),
        };
        assert!(
            !row(with(own, launch(Molotov, 0, 1.0)), 1),
            "its own explosion"
        );
        let shell = ActionKind::TankShell {
            cannon: VehicleId(8),
        };
        assert!(
            !row(with(shell, launch(Molotov, 0, 1.0)), 1),
            "a shell credits no vehicle"
        );
    }

    #[test]
    fn a_vehicle_that_stood_near_the_action_is_explained_wherever_it_blew_up() {
        let far = launch(ProjectileWeapon::Molotov, 0, 500.0);
        assert!(!vehicle_row_holds(far.clone(), 30));
        let noted = |near: Vec<VehicleOfLife>| Action {
            near: Some(near.into_boxed_slice()),
            ..far.clone()
        };
        assert!(vehicle_row_holds(
            noted(vec![(VehicleId(7), VehicleEpoch(2))]),
            30
        ));
        assert!(!vehicle_row_holds(
            noted(vec![(VehicleId(7), VehicleEpoch(2))]),
            86
        ));
        assert!(
            !vehicle_row_holds(noted(vec![(VehicleId(7), VehicleEpoch(1))]), 30),
            "the vehicle's earlier life"
        );
        let shell = with(
            ActionKind::TankShell {
                cannon: VehicleId(8),
            },
            noted(vec![(VehicleId(7), VehicleEpoch(2))]),
        );
        assert!(!vehicle_row_holds(shell, 1));
    }

    #[test]
    fn each_player_row_holds_inside_its_window_and_distance_only() {
        use ProjectileWeapon::*;
        let row = damage_row_holds;
        assert!(row(launch(Grenade, 0, 60.0), 51, 10));
        assert!(row(launch(Grenade, 0, 60.0), 16, 10), "16 counts as 51");
        assert!(!row(launch(Grenade, 0, 60.5), 51, 1));
        assert!(!row(launch(Grenade, 0, 1.0), 51, 11));
        assert!(
            !row(launch(Grenade, 0, 1.0), 37, 1),
            "a grenade leaves no fire"
        );
        for weapon in [51, 19, 35, 36] {
            assert!(row(launch(Rocket, 0, 200.0), weapon, 10), "{weapon}");
        }
        assert!(!row(launch(Rocket, 0, 200.5), 51, 1));
        let from_vehicle = |x| {
            let kind = ActionKind::Launch {
                weapon: Rocket,
                from_vehicle: true,
                target: None,
            };
            with(kind, launch(Rocket, 0, x))
        };
        assert!(row(from_vehicle(700.0), 51, 10));
        assert!(!row(from_vehicle(700.5), 51, 1));
        let satchel = Action {
            place: None,
            ..with(ActionKind::SatchelDetonation, launch(Satchel, 0, 0.0))
        };
        assert!(row(satchel.clone(), 39, 10));
        assert!(row(satchel.clone(), 40, 10));
        assert!(!row(satchel, 51, 11));
        let boom = |radius| ActionKind::GamemodeExplosion { radius };
        assert!(row(with(boom(8.0), launch(Molotov, 0, 18.0)), 51, 10));
        assert!(!row(with(boom(8.0), launch(Molotov, 0, 18.5)), 51, 1));
        let car = ActionKind::VehicleExplosion {
            vehicle: VehicleId(8),
        };
        let shell = ActionKind::TankShell {
            cannon: VehicleId(8),
        };
        for kind in [car, shell] {
            assert!(
                row(with(kind, launch(Molotov, 0, 30.0)), 51, 10),
                "{kind:?}"
            );
            assert!(
                !row(with(kind, launch(Molotov, 0, 30.5)), 51, 1),
                "{kind:?}"
            );
            assert!(
                !row(with(kind, launch(Molotov, 0, 1.0)), 51, 11),
                "{kind:?}"
            );
        }
        for kind in [ActionKind::Flamethrower, boom(4.0), car] {
            assert!(
                row(with(kind, launch(Molotov, 0, 80.0)), 37, 85),
                "{kind:?}"
            );
            assert!(
                !row(with(kind, launch(Molotov, 0, 80.5)), 37, 1),
                "{kind:?}"
            );
            assert!(
                !row(with(kind, launch(Molotov, 0, 1.0)), 37, 86),
                "{kind:?}"
            );
        }
        assert!(row(launch(Molotov, 0, 80.0), 18, 85), "18 counts as 37");
        assert!(
            !row(launch(Molotov, 0, 1.0), 51, 1),
            "a molotov's blast is its fire"
        );
        assert!(
            !row(with(shell, launch(Molotov, 0, 1.0)), 37, 1),
            "a shell leaves no fire"
        );
        assert!(row(launch(Teargas, 0, 60.0), 17, 30));
        assert!(!row(launch(Teargas, 0, 60.5), 17, 1));
        assert!(!row(launch(Teargas, 0, 1.0), 17, 31));
        assert!(!row(launch(Teargas, 0, 1.0), 51, 1));
    }

    #[test]
    fn a_heat_seeker_credits_its_targets_occupants_at_any_distance() {
        let kind = ActionKind::Launch {
            weapon: ProjectileWeapon::HeatSeeker,
            from_vehicle: true,
            target: Some((VehicleId(7), VehicleEpoch(2))),
        };
        let mut log = ActionLog::default();
        log.push(with(kind, launch(ProjectileWeapon::HeatSeeker, 0, 5000.0)));
        let seated = |epoch| DamagedPlayer {
            seat: Some((VehicleId(7), VehicleEpoch(epoch))),
            ..victim()
        };
        assert!(log.explains_damage(ME, Cause::Explosion, &seated(2), S(10)));
        assert!(!log.explains_damage(ME, Cause::Explosion, &seated(2), S(11)));
        assert!(!log.explains_damage(ME, Cause::Explosion, &seated(1), S(1)));
        assert!(!log.explains_damage(ME, Cause::Explosion, &victim(), S(1)));
    }

    #[test]
    fn another_generation_or_scope_explains_nothing() {
        let mut log = ActionLog::default();
        log.push(launch(ProjectileWeapon::Grenade, 0, 1.0));
        let elsewhere = Scope {
            virtual_world: 1,
            interior: 0,
        };
        assert!(!log.explains_vehicle(PlayerToken(2), &car(), S(1)));
        let car_elsewhere = ExplodedVehicle {
            scope: elsewhere,
            ..car()
        };
        assert!(!log.explains_vehicle(ME, &car_elsewhere, S(1)));
        assert!(!log.explains_damage(PlayerToken(2), Cause::Explosion, &victim(), S(1)));
        let victim_elsewhere = DamagedPlayer {
            scope: elsewhere,
            ..victim()
        };
        assert!(!log.explains_damage(ME, Cause::Explosion, &victim_elsewhere, S(1)));
        assert!(log.explains_damage(ME, Cause::Explosion, &victim(), S(1)));
    }

    #[test]
    fn weapons_count_as_the_page_says() {
        for w in [51, 16, 19, 20, 35, 36, 39, 40] {
            assert_eq!(Cause::of(w), Some(Cause::Explosion), "{w}");
        }
        assert_eq!(Cause::of(37), Some(Cause::Fire));
        assert_eq!(Cause::of(18), Some(Cause::Fire));
        assert_eq!(Cause::of(17), Some(Cause::Gas));
        for w in [0, 4, 24, 34, 38, 49, 50, 53, 54] {
            assert_eq!(Cause::of(w), None, "{w}");
        }
    }
}
