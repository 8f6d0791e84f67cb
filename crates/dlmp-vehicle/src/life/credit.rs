//! The vehicle's killer (vehicles.md VehicleExplode, "The vehicle's killer"): the attacker
//! a VehicleExplode names is credited only if it is not the sender, is the same player of
//! the same generation, in the vehicle's scope, and an accepted action of it explains the
//! explosion: a shot whose ray passed within [`PASS_DISTANCE`] of the vehicle's center in
//! the last [`PASS_WINDOW`] (WeaponShot, and the machine-gun rays of vehicle weapons, both
//! in [`RecentShots`]), or an action of its action log (weapons.md §6, ADR 0133), the one
//! source of the other rows: launches and satchel detonations (the weapons feature),
//! credited explosions of other vehicles (`explode`), shells of a vehicle cannon
//! (`note_shells`: logged for the players' credit, weapons.md §9; they explain no
//! vehicle's explosion, §6) and the flamethrower (an accepted frame of weapon 37 with the fire key,
//! `note_flames`), judged by [`ActionLog::explains_vehicle`].
//!
//! A shot is judged where the vehicle stood when the shot was accepted: `note_passes`
//! reads the rays of each tick and remembers, per vehicle, the last pass of each shooter.
//! An action of the log likewise: `note_nearby` notes with each new action the vehicles
//! within its row's distance then (weapons.md §6; ADR 0122).

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use crate::weapon::SalvoAccepted;
use crate::{Vehicle, VehicleScope};
use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_core::vehicle::{Life, Pose, Seated};
use dlmp_player::ledger::RecentShots;
use dlmp_player::weapons::actions::{Action, ActionKind, ActionLog, NEAR_CAP, VehicleOfLife};
use dlmp_player::weapons::explains::ExplodedVehicle;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;

/// A shot passing this close to the vehicle's center explains its explosion, m.
pub const PASS_DISTANCE: f32 = 8.0;
/// ... for this long before the explosion.
pub const PASS_WINDOW: Duration = Duration::from_secs(20);

pub use dlmp_player::credit::Who;

/// On a vehicle: the last shot of each shooter that passed by it in this epoch (a respawn
/// clears it), at most one entry per shooter, none older than [`PASS_WINDOW`].
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct PassingShots(Vec<(Who, Duration)>);

impl PassingShots {
    /// `who`'s shot passed by at `now`.
    pub fn note(&mut self, who: Who, now: Duration) {
        self.0
            .retain(|(w, at)| *w != who && now.saturating_sub(*at) <= PASS_WINDOW);
        self.0.push((who, now));
    }

    /// Whether a shot of `who` passed by within [`PASS_WINDOW`] of `now`.
    pub fn explains(&self, who: Who, now: Duration) -> bool {
        self.0
            .iter()
            .any(|(w, at)| *w == who && now.saturating_sub(*at) <= PASS_WINDOW)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// The distance from `p` to the segment `a`..`b`.
pub fn distance_to_ray(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let d = Vec3::new(b.x - a.x, b.y - a.y, b.z - a.z);
    let w = Vec3::new(p.x - a.x, p.y - a.y, p.z - a.z);
    let len2 = d.x * d.x + d.y * d.y + d.z * d.z;
    let t = if len2 > 0.0 {
        ((w.x * d.x + w.y * d.y + w.z * d.z) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    distance(p, Vec3::new(a.x + d.x * t, a.y + d.y * t, a.z + d.z * t))
}

/// What the credit reads of the vehicle that blew up.
pub struct Exploded<'a> {
    pub entity: Entity,
    /// Its id, epoch, position and scope, for the action log's rows.
    pub vehicle: ExplodedVehicle,
    pub passes: &'a PassingShots,
}

/// Whether `attacker` (alive or not, the page only asks for its identity), whose current
/// scope is `attacker_scope` and whose action log is `log`, is credited with the explosion
/// `sender` reported at `now`.
pub fn credited(
    (attacker, attacker_scope, log): (Who, Scope, Option<&ActionLog>),
    sender: Entity,
    vehicle: &Exploded,
    now: Duration,
) -> bool {
    let v = &vehicle.vehicle;
    attacker.entity != sender
        && attacker_scope == v.scope
        && (vehicle.passes.explains(attacker, now)
            || log.is_some_and(|l| l.explains_vehicle(attacker.token, v, now)))
}

/// What [`note_passes`] reads of a shooter.
type Shooter = (
    Entity,
    &'static Player,
    &'static Scope,
    &'static RecentShots,
    Option<&'static Seated>,
);

/// The rays of this tick's accepted shots (their `at` is now) pass by vehicles: each
/// vehicle in the shooter's scope whose center is within [`PASS_DISTANCE`] of a ray,
/// other than the one the shooter sits in, remembers the shooter.
pub(super) fn note_passes(
    time: Res<Time>,
    shooters: Query<Shooter, Changed<RecentShots>>,
    mut vehicles: Query<(Entity, &VehicleScope, &Pose, &mut PassingShots)>,
) {
    let now = time.elapsed();
    for (entity, player, scope, shots, seated) in &shooters {
        let who = Who {
            entity,
            id: player.id,
            token: player.token,
        };
        let own = seated.map(|s| s.vehicle);
        for shot in shots.0.iter().rev().take_while(|s| s.at == now) {
            for (v, v_scope, pose, mut passes) in &mut vehicles {
                if v_scope.0 != *scope || Some(v) == own {
                    continue;
                }
                if distance_to_ray(pose.position, shot.origin, shot.hit) <= PASS_DISTANCE {
                    passes.note(who, now);
                }
            }
        }
    }
}

/// Each accepted cannon salvo leaves a tank shell in its shooter's action log where each
/// ray ends (the shell explodes on the aim ray, vehicles.md VehicleShot), in the cannon
/// vehicle's scope; the shell never explains the explosion of the vehicle that fired it.
/// Machine-gun rays go through [`RecentShots`] and [`note_passes`] instead.
pub(super) fn note_shells(
    mut salvos: MessageReader<SalvoAccepted>,
    mut shooters: Query<(&Player, &mut ActionLog)>,
    vehicles: Query<(&Vehicle, &VehicleScope)>,
) {
    for salvo in salvos.read() {
        if salvo.weapon.kind.fires_bullets() {
            continue;
        }
        let (Ok((player, mut log)), Ok((cannon, scope))) =
            (shooters.get_mut(salvo.shooter), vehicles.get(salvo.vehicle))
        else {
            continue;
        };
        for ray in &salvo.shot.rays[..usize::from(salvo.shot.count)] {
            let kind = ActionKind::TankShell { cannon: cannon.id };
            log.push(Action::new(
                kind,
                salvo.at,
                Some(ray.end),
                (player.token, scope.0),
            ));
        }
    }
}

/// The flamethrower's weapon id (PlayerSync weapon 37 with the fire key: weapons.md §1,
/// "the flamethrower's flame is read from the frames").
pub const FLAMETHROWER: u8 = 37;

/// How often one player's flame enters its action log (weapons.md §6: "at most one a
/// second per player").
const FLAME_NOTE_EVERY: Duration = Duration::from_secs(1);

/// An accepted frame with the flamethrower firing enters the flamer's action log where it
/// stands, at most once a [`FLAME_NOTE_EVERY`].
pub(super) fn note_flames(
    time: Res<Time>,
    mut frames: MessageReader<dlmp_player::frame::FrameAccepted>,
    mut players: Query<(&Player, &Scope, &mut ActionLog)>,
) {
    let now = time.elapsed();
    for f in frames.read() {
        let fire = f
            .frame
            .keys
            .contains(dlmp_protocol::player::sync::Keys::FIRE);
        if f.frame.weapon != FLAMETHROWER || !fire {
            continue;
        }
        let Ok((player, scope, mut log)) = players.get_mut(f.player) else {
            continue;
        };
        if log
            .last(ActionKind::Flamethrower)
            .is_some_and(|a| a.token == player.token && now.saturating_sub(a.at) < FLAME_NOTE_EVERY)
        {
            continue;
        }
        let kind = ActionKind::Flamethrower;
        log.push(Action::new(
            kind,
            now,
            Some(f.position),
            (player.token, *scope),
        ));
    }
}

/// Each action taken this tick notes the vehicles of its scope, not wrecked, within its
/// row's distance of its place ([`ActionKind::vehicle_reach`]), the nearest
/// [`NEAR_CAP`] by their server pose now (weapons.md §6: "the vehicles of that scope
/// within its row's distance of vehicles.md at that time"; ADR 0122).
pub(super) fn note_nearby(
    mut logs: Query<&mut ActionLog, Changed<ActionLog>>,
    vehicles: Query<(&Vehicle, &VehicleScope, &Pose, &Life)>,
    mut found: Local<Vec<(f32, VehicleOfLife)>>,
) {
    for mut log in &mut logs {
        for action in log.bypass_change_detection().unnoted() {
            found.clear();
            if let (Some(reach), Some(place)) = (action.kind.vehicle_reach(), action.place) {
                found.extend(
                    vehicles
                        .iter()
                        .filter(|(_, scope, _, life)| scope.0 == action.scope && !life.wrecked)
                        .map(|(v, _, pose, life)| {
                            (distance(place, pose.position), (v.id, life.epoch))
                        })
                        .filter(|(d, _)| *d <= reach),
                );
                found.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            }
            action.near = Some(found.iter().take(NEAR_CAP).map(|(_, v)| *v).collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::ids::{PlayerId, PlayerToken};

    const S: fn(u64) -> Duration = Duration::from_secs;

    fn who(n: u32) -> Who {
        let mut world = World::new();
        let mut entity = world.spawn_empty().id();
        for _ in 1..n {
            entity = world.spawn_empty().id();
        }
        Who {
            entity,
            id: PlayerId(n),
            token: PlayerToken(n),
        }
    }

    #[test]
    fn the_distance_to_a_ray_is_to_its_nearest_point_between_the_ends() {
        let (a, b) = (Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0));
        assert_eq!(distance_to_ray(Vec3::new(5.0, 8.0, 0.0), a, b), 8.0);
        assert_eq!(distance_to_ray(Vec3::new(13.0, 4.0, 0.0), a, b), 5.0);
        assert_eq!(distance_to_ray(Vec3::new(-3.0, 0.0, 4.0), a, b), 5.0);
        assert_eq!(distance_to_ray(Vec3::new(0.0, 2.0, 0.0), a, a), 2.0);
    }

    #[test]
    fn a_pass_explains_for_20_s_and_only_its_shooters_generation() {
        let mut p = PassingShots::default();
        p.note(who(1), S(10));
        assert!(p.explains(who(1), S(30)));
        assert!(!p.explains(who(1), S(31)));
        let other_generation = Who {
            token: PlayerToken(9),
            ..who(1)
        };
        assert!(!p.explains(other_generation, S(11)));
        p.note(who(1), S(20));
        assert_eq!(p.0.len(), 1, "one entry per shooter");
    }
}
