//! The vehicle's killer (vehicles.md VehicleExplode, "The vehicle's killer"): the attacker
//! a VehicleExplode names is credited only if it is not the sender, is the same player of
//! the same generation, in the vehicle's scope, and an accepted action of it explains the
//! explosion. The actions this server knows: a shot whose ray passed within
//! [`PASS_DISTANCE`] of the vehicle's center in the last [`PASS_WINDOW`] (WeaponShot, and
//! the machine-gun rays of vehicle weapons, both in [`RecentShots`]), a credited
//! explosion of another vehicle, and the shell of a vehicle cannon (vehicles.md
//! VehicleShot: "the cannon's ray becomes the cause of the explosion"), both within
//! [`BLAST_WINDOW`] and [`BLAST_DISTANCE`] of where they went off (`note_shells`), and the
//! flamethrower (an accepted frame of weapon 37 with the fire key, `note_flames`) within
//! the same window and distance of where the flamer stood. The projectile rows (grenade,
//! satchel detonation, molotov, rocket) are read from the attacker's action log, which the
//! player crate keeps ([`ActionLog::explains_vehicle`], weapons.md §6, ADR 0133).
//!
//! A shot is judged where the vehicle stood when the shot was accepted: `note_passes`
//! reads the rays of each tick and remembers, per vehicle, the last pass of each shooter.

use std::collections::VecDeque;
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;

use crate::VehicleScope;
use crate::weapon::SalvoAccepted;
use dlmp_core::position::Scope;
use dlmp_core::session::Player;
use dlmp_core::vehicle::{Pose, Seated};
use dlmp_player::ledger::RecentShots;
use dlmp_player::weapons::actions::{ActionLog, ExplodedVehicle};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;

/// A shot passing this close to the vehicle's center explains its explosion, m.
pub const PASS_DISTANCE: f32 = 8.0;
/// ... for this long before the explosion.
pub const PASS_WINDOW: Duration = Duration::from_secs(20);
/// A credited explosion of another vehicle explains this one for this long ...
pub const BLAST_WINDOW: Duration = Duration::from_secs(85);
/// ... within this distance of it, m.
pub const BLAST_DISTANCE: f32 = 80.0;

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

/// A credited vehicle explosion: it explains other vehicles' explosions nearby.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blast {
    pub killer: Who,
    pub at: Duration,
    pub position: Vec3,
    pub scope: Scope,
    pub vehicle: Entity,
}

/// The credited explosions of the last [`BLAST_WINDOW`], oldest first.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct Blasts(VecDeque<Blast>);

impl Blasts {
    pub fn push(&mut self, blast: Blast) {
        while self
            .0
            .front()
            .is_some_and(|b| blast.at.saturating_sub(b.at) > BLAST_WINDOW)
        {
            self.0.pop_front();
        }
        self.0.push_back(blast);
    }

    /// Whether a credited explosion by `who` of another vehicle than `vehicle` explains
    /// one at `position` in `scope` at `now`.
    pub fn explains(
        &self,
        who: Who,
        vehicle: Entity,
        position: Vec3,
        scope: Scope,
        now: Duration,
    ) -> bool {
        self.0.iter().any(|b| {
            b.killer == who
                && b.vehicle != vehicle
                && b.scope == scope
                && now.saturating_sub(b.at) <= BLAST_WINDOW
                && distance(b.position, position) <= BLAST_DISTANCE
        })
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
    blasts: &Blasts,
    now: Duration,
) -> bool {
    let v = &vehicle.vehicle;
    attacker.entity != sender
        && attacker_scope == v.scope
        && (vehicle.passes.explains(attacker, now)
            || blasts.explains(attacker, vehicle.entity, v.position, v.scope, now)
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

/// Each accepted cannon salvo leaves a [`Blast`] by its shooter where its ray ends (the
/// shell explodes on the aim ray, vehicles.md VehicleShot), in the cannon vehicle's scope;
/// the vehicle that fired is `vehicle`, so the shell never explains its own explosion.
/// Machine-gun rays go through [`RecentShots`] and [`note_passes`] instead.
pub(super) fn note_shells(
    mut salvos: MessageReader<SalvoAccepted>,
    shooters: Query<&Player>,
    vehicles: Query<&VehicleScope>,
    mut blasts: ResMut<Blasts>,
) {
    for salvo in salvos.read() {
        if salvo.weapon.kind.fires_bullets() {
            continue;
        }
        let (Ok(player), Ok(scope)) = (shooters.get(salvo.shooter), vehicles.get(salvo.vehicle))
        else {
            continue;
        };
        let killer = Who {
            entity: salvo.shooter,
            id: player.id,
            token: player.token,
        };
        for ray in &salvo.shot.rays[..usize::from(salvo.shot.count)] {
            blasts.push(Blast {
                killer,
                at: salvo.at,
                position: ray.end,
                scope: scope.0,
                vehicle: salvo.vehicle,
            });
        }
    }
}

/// The flamethrower's weapon id (PlayerSync weapon 37 with the fire key: weapons.md §1,
/// "the flamethrower's flame is read from the frames").
pub const FLAMETHROWER: u8 = 37;

/// How often one player's flame is noted, and how far it must move to be noted sooner: a
/// flamer's 30 frames a second become at most a few actions a second.
const FLAME_NOTE_EVERY: Duration = Duration::from_secs(1);
const FLAME_NOTE_MOVE: f32 = 5.0;

/// An accepted frame with the flamethrower firing is the credit table's "flamethrower" row
/// (85 s, 80 m: [`BLAST_WINDOW`], [`BLAST_DISTANCE`]): a [`Blast`] by the flamer where it
/// stands, of no vehicle, so it explains any vehicle's explosion nearby.
pub(super) fn note_flames(
    time: Res<Time>,
    mut frames: MessageReader<dlmp_player::frame::FrameAccepted>,
    players: Query<(&Player, &Scope)>,
    mut last: Local<std::collections::HashMap<Entity, (Duration, Vec3)>>,
    mut blasts: ResMut<Blasts>,
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
        let Ok((player, scope)) = players.get(f.player) else {
            continue;
        };
        if last.get(&f.player).is_some_and(|(at, p)| {
            now.saturating_sub(*at) < FLAME_NOTE_EVERY && distance(*p, f.position) < FLAME_NOTE_MOVE
        }) {
            continue;
        }
        last.insert(f.player, (now, f.position));
        blasts.push(Blast {
            killer: Who {
                entity: f.player,
                id: player.id,
                token: player.token,
            },
            at: now,
            position: f.position,
            scope: *scope,
            vehicle: Entity::PLACEHOLDER,
        });
    }
    if last.len() > 4096 {
        last.retain(|_, (at, _)| now.saturating_sub(*at) < FLAME_NOTE_EVERY);
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

    #[test]
    fn a_blast_explains_another_vehicle_within_85_s_and_80_m() {
        let (a, b) = (who(1), who(2));
        let (v1, v2) = (b.entity, a.entity);
        let mut blasts = Blasts::default();
        blasts.push(Blast {
            killer: a,
            at: S(100),
            position: Vec3::ZERO,
            scope: Scope::default(),
            vehicle: v1,
        });
        let near = Vec3::new(80.0, 0.0, 0.0);
        let s = Scope::default();
        assert!(blasts.explains(a, v2, near, s, S(185)));
        assert!(!blasts.explains(a, v2, near, s, S(186)), "85 s");
        assert!(
            !blasts.explains(a, v2, Vec3::new(80.5, 0.0, 0.0), s, S(101)),
            "80 m"
        );
        assert!(
            !blasts.explains(a, v1, near, s, S(101)),
            "its own explosion"
        );
        assert!(!blasts.explains(b, v2, near, s, S(101)), "another killer");
        let other = Scope {
            virtual_world: 1,
            interior: 0,
        };
        assert!(
            !blasts.explains(a, v2, near, other, S(101)),
            "another scope"
        );
    }
}
