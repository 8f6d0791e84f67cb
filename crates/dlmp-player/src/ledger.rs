//! The health ledger (connection.md §6, "The ledger"; player.md, "hp and armor", DeathReport,
//! PlayerWasted): DamageReports lower armor then health, frames lower it in the client's
//! order (frame admission, [`take_frame_vitals`]), and a health of 0 commits the death in
//! the same tick, unless a DeathReport committed it first. Runs in
//! [`ServerSystems::Ledger`]. Decisions: docs/decisions/0010-ledger-and-shots.md and
//! 0017-shot-history.md (kill credit).

use std::collections::VecDeque;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::frame::FrameState;
use super::{Ledger, Life, SpawnState, Team};
use crate::credit::ExplosionKiller;
use crate::weapons::actions::ActionLog;
use crate::weapons::explains::{Cause, DamagedPlayer};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player, PlayerConnected, PlayerIndex, Received};
use dlmp_core::streaming::Reshows;
use dlmp_core::tick::{GameplaySystems, ServerSystems};
use dlmp_core::vehicle::{Life as VehicleLife, Seated};
use dlmp_core::viewers::{Viewers, tell_viewers};
use dlmp_protocol::ClientPacket;
use dlmp_protocol::connection::damage::{
    DamageReport, WEAPON_DROWNING, WEAPON_EXPLOSION, WEAPON_FALL, WEAPON_FIRE, WEAPON_ROTOR,
    WEAPON_VEHICLE,
};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::player::life::{DeathPose, PlayerWasted};
use dlmp_protocol::player::sync::{Frame, MAX_VITAL};
use dlmp_protocol::serial::Serial;

/// Firearms (WeaponShot's weapons): credited only with a recent accepted shot, but for
/// the launchers and the flamethrower, whose damage the action log explains
/// ([`crate::weapons::explains::Cause`]).
pub fn is_firearm(weapon: u8) -> bool {
    (22..=38).contains(&weapon)
}

/// Means of damage that lower health only (fire, drowning, a fall).
pub fn health_only(weapon: u8) -> bool {
    matches!(weapon, WEAPON_FIRE | WEAPON_DROWNING | WEAPON_FALL)
}

/// Contact damage (player.md, SetFrozen): melee (the fist and the melee weapons 0..=15),
/// ramming and a rotor. A frozen attacker cannot deal it.
pub fn is_contact(weapon: u8) -> bool {
    matches!(weapon, 0..=15 | WEAPON_VEHICLE | WEAPON_ROTOR)
}

/// A firearm attacker is credited with a shot this recent, ...
pub const SHOT_MEMORY: Duration = Duration::from_secs(1);
/// ... whose ray ended this close to the victim, m.
pub const SHOT_REACH: f32 = 3.0;

/// A death the victim's own game reports (DeathReport) names the attacker of the last
/// DamageReport as its killer only this long after that report (ADR 0017, 0022): the
/// page leaves the killer of a reported death to the server, and a hit long before it is
/// not that attacker's kill. A ledger death (rule 4) names the last report's weapon and
/// attacker, however old. A new life forgets the report at once.
pub const KILL_CREDIT: Duration = Duration::from_secs(10);

impl Ledger {
    /// The weapon and the credited attacker of the last DamageReport of this life: what a
    /// ledger death names (connection.md §6, rule 4: "the weapon and attacker of the last
    /// report").
    pub fn last_report(&self) -> Option<(u8, Option<Entity>)> {
        self.last_report_at
            .is_some()
            .then_some((self.last_weapon, self.last_attacker))
    }

    /// The attacker of the last DamageReport of this life if it is within
    /// [`KILL_CREDIT`] of `now`: the killer of a death the victim reports.
    pub fn recent_attacker(&self, now: Duration) -> Option<Entity> {
        self.last_report_at
            .is_some_and(|t| now.saturating_sub(t) <= KILL_CREDIT)
            .then_some(self.last_attacker)
            .flatten()
    }

    /// A lethal blow the server decided (weapons.md §4, a stealth kill): health to 0 as a
    /// damage of `weapon` by `attacker`, armor unchanged, recorded as the last report so
    /// rule 4 commits the death with that weapon and killer. The health it took.
    pub fn take_lethal_blow(&mut self, weapon: u8, attacker: Entity, now: Duration) -> f32 {
        let amount = self.health;
        self.health = 0.0;
        self.last_weapon = weapon;
        self.last_attacker = Some(attacker);
        self.last_report_at = Some(now);
        amount
    }

    /// A new life: no report describes its death yet.
    pub fn forget_last_report(&mut self) {
        self.last_weapon = 0;
        self.last_attacker = None;
        self.last_report_at = None;
    }
}

/// Who a committed death names as its killer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Killer {
    /// A ledger death: the attacker of the last report of this life.
    LastReport,
    /// A death the victim reported: that attacker only within [`KILL_CREDIT`].
    Recent(Duration),
    /// A death the victim reported in its window after the explosion of the vehicle it sat
    /// in (vehicles.md VehicleExplode): the vehicle's killer (nil if it left), weapon 51.
    Explosion(Option<Entity>),
}

/// Whether the gamemode allows team damage (`dlmp.set_team_damage`).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LedgerSettings {
    pub team_damage: bool,
}

/// The range of a firearm's ray when the gamemode set none, m.
pub const DEFAULT_WEAPON_RANGE: f32 = 400.0;

/// Firearm ranges the gamemode set (`dlmp.set_weapon_range`), by weapon id.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct WeaponRanges(pub [Option<f32>; 47]);

impl Default for WeaponRanges {
    fn default() -> Self {
        WeaponRanges([None; 47])
    }
}

impl WeaponRanges {
    pub fn set(&mut self, weapon: u8, meters: f32) {
        if let Some(r) = self.0.get_mut(usize::from(weapon)) {
            *r = Some(meters);
        }
    }

    /// The ray range of `weapon`, m.
    pub fn range(&self, weapon: u8) -> f32 {
        self.0
            .get(usize::from(weapon))
            .copied()
            .flatten()
            .unwrap_or(DEFAULT_WEAPON_RANGE)
    }

    /// The largest range the gamemode set (for streaming's show distance).
    pub fn largest(&self) -> Option<f32> {
        self.0.iter().flatten().copied().reduce(f32::max)
    }
}

/// A shot the server accepted (WeaponShot admission writes it; so does a vehicle
/// weapon's machine-gun salvo, one per ray). The ray runs from `origin` to `hit`: the
/// vehicle life feature reads the rays of each tick for the shots passing by vehicles
/// (vehicles.md VehicleExplode, "The vehicle's killer").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecentShot {
    pub at: Duration,
    pub weapon: u8,
    pub origin: Vec3,
    pub hit: Vec3,
}

/// The shooter's accepted shots of the last [`SHOT_MEMORY`], oldest first.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct RecentShots(pub VecDeque<RecentShot>);

impl RecentShots {
    /// Remembers a shot and forgets those older than [`SHOT_MEMORY`].
    pub fn push(&mut self, shot: RecentShot) {
        self.forget(shot.at);
        self.0.push_back(shot);
    }

    pub fn forget(&mut self, now: Duration) {
        while self
            .0
            .front()
            .is_some_and(|s| now.saturating_sub(s.at) > SHOT_MEMORY)
        {
            self.0.pop_front();
        }
    }

    /// An accepted shot with `weapon` within [`SHOT_MEMORY`] ending within [`SHOT_REACH`]
    /// of `victim`.
    pub fn supports(&self, now: Duration, weapon: u8, victim: Vec3) -> bool {
        self.0.iter().any(|s| {
            s.weapon == weapon
                && now.saturating_sub(s.at) <= SHOT_MEMORY
                && Vec3::new(s.hit.x - victim.x, s.hit.y - victim.y, s.hit.z - victim.z).length()
                    <= SHOT_REACH
        })
    }
}

/// What the ledger decided, for the scripts.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum LedgerEvent {
    /// `player_damage(victim, attacker, weapon, amount, bodypart)`.
    Damage {
        victim: Entity,
        attacker: Option<Entity>,
        weapon: u8,
        amount: f32,
        bodypart: u8,
    },
    /// `player_death(player, killer, weapon)`.
    Death {
        player: Entity,
        killer: Option<Entity>,
        weapon: u8,
    },
}

/// Reports of the previous life that arrived in the respawn window
/// ([`SpawnState::in_respawn_window`]), delayed past the grant, and were dropped (ADR 0012).
/// A DeathReport for a player already dead or not spawned is not a drop: the page commits
/// "once per life" and the report is simply answered by the state.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PreviousLifeDrops {
    pub deaths: u64,
    /// DamageReports: their damage_seq still counts (frames are taken in the client's
    /// order), their damage does not.
    pub damage: u64,
}

/// DamageReports refused because they name a frozen attacker with contact damage
/// (player.md, SetFrozen: "such a report of the victim is refused"). Like a report of the
/// previous life, its damage_seq still counts (frames are taken in the client's order),
/// its damage does not.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrozenContactDrops(pub u64);

/// The ledger's second commit of deaths, after the gamemode's commands: a feature that
/// lowers health in [`GameplaySystems::Apply`] (a stealth kill, weapons.md §4) runs before
/// it, so rule 4 commits that death in the same tick.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommitGameplayDeaths;

/// PlayerWasted held back behind the tick's weapon relays (weapons.md §1: launches and
/// detonations reach a viewer "in order with ... PlayerWasted"; ADR 0136). A launch or a
/// detonation accepted before its sender's death in the same tick is relayed only after
/// `player_projectile` / `player_satchel_detonate` ran in the script pass, later than the
/// ledger commits the death; so the weapons feature names the senders of the tick's weapon
/// events here, the ledger holds the PlayerWasted of such a sender, and the weapons
/// feature releases it after its relays, to the viewers of the moment of the death.
#[derive(Resource, Debug, Default)]
pub struct WastedHold {
    /// Players with a launch or a detonation of this tick still to relay.
    pub awaiting: bevy_ecs::entity::EntityHashSet,
    held: Vec<(Entity, Viewers, PlayerWasted)>,
}

impl WastedHold {
    /// Sends the held PlayerWasted, in the order of the deaths, and forgets the tick's
    /// senders.
    pub fn release(
        &mut self,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
        reshows: &mut Reshows,
    ) {
        for (player, viewers, wasted) in self.held.drain(..) {
            tell_viewers(player, &viewers, index, connections, reshows, wasted);
        }
        self.awaiting.clear();
    }
}

/// The ledger plugin.
pub struct LedgerPlugin;

impl Plugin for LedgerPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<LedgerSettings>()
            .init_resource::<WastedHold>()
            .init_resource::<WeaponRanges>()
            .init_resource::<PreviousLifeDrops>()
            .init_resource::<FrozenContactDrops>()
            .add_message::<LedgerEvent>()
            .add_systems(FixedUpdate, give_shots.in_set(ServerSystems::Validation))
            .add_systems(
                FixedUpdate,
                (settle, commit_deaths)
                    .chain()
                    .in_set(ServerSystems::Ledger),
            )
            .add_systems(
                FixedUpdate,
                commit_deaths
                    .in_set(GameplaySystems::Apply)
                    .in_set(CommitGameplayDeaths),
            );
    }
}

fn give_shots(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands.entity(c.player).insert(RecentShots::default());
    }
}

/// Rule 2: a frame's hp and armor, taken only in the client's order and only downward.
pub fn take_frame_vitals(ledger: &mut Ledger, f: &Frame) {
    if f.vital_rev != ledger.vital_rev || f.damage_seq != ledger.damage_seq {
        return;
    }
    let hp = f.hp.clamp(0.0, MAX_VITAL);
    let armor = f.armor.clamp(0.0, MAX_VITAL);
    if hp < ledger.health {
        ledger.health = hp;
    }
    if armor < ledger.armor {
        ledger.armor = armor;
    }
}

/// Rule 1: lowers armor first, then health (health only for fire, drowning, a fall).
pub fn apply_damage(ledger: &mut Ledger, weapon: u8, amount: f32) {
    let from_armor = if health_only(weapon) {
        0.0
    } else {
        amount.min(ledger.armor).max(0.0)
    };
    ledger.armor -= from_armor;
    ledger.health = (ledger.health - (amount - from_armor)).max(0.0);
}

type Victim = (
    Entity,
    &'static Player,
    &'static SpawnState,
    &'static mut Life,
    &'static mut Ledger,
    &'static Position,
    &'static Scope,
    &'static Team,
    &'static Viewers,
    Option<&'static RecentShots>,
);

/// Takes this tick's DamageReports and DeathReports in arrival order, then commits the
/// deaths of players whose health a frame brought to 0.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn settle(
    time: Res<Time>,
    settings: Res<LedgerSettings>,
    index: Res<PlayerIndex>,
    mut received: MessageReader<Received>,
    mut victims: Query<Victim>,
    mut connections: Query<&mut Connection>,
    mut events: MessageWriter<LedgerEvent>,
    mut drops: ResMut<PreviousLifeDrops>,
    (frames, mut contact_drops): (Query<&FrameState>, ResMut<FrozenContactDrops>),
    (mut reshows, mut windows, mut hold): (
        ResMut<Reshows>,
        Query<&mut ExplosionKiller>,
        ResMut<WastedHold>,
    ),
    (seated, vehicle_lives, logs): (Query<&Seated>, Query<&VehicleLife>, Query<&ActionLog>),
) {
    let now = time.elapsed();
    for Received { player, packet, .. } in received.read() {
        match packet {
            ClientPacket::DamageReport(report) => {
                let Ok((_, me, spawn, life, _, position, scope, team, ..)) = victims.get(*player)
                else {
                    continue;
                };
                if !spawn.granted {
                    continue;
                }
                let alive = life.alive;
                let spawn_window = spawn.in_respawn_window();
                let seat = seated.get(*player).ok().and_then(|s| {
                    let life = vehicle_lives.get(s.vehicle).ok()?;
                    Some((s.id, life.epoch))
                });
                let damaged = DamagedPlayer {
                    position: position.0,
                    scope: *scope,
                    seat,
                };
                let victim = (me.id, damaged, *team);
                let attacker = alive
                    .then(|| credit(report, victim, now, *settings, (&index, &victims, &logs)))
                    .flatten()
                    .filter(|&a| a != *player);
                let refused = names_a_frozen_contact_attacker(report, &index, &victims, &frames);
                let Ok((_, _, _, _, mut ledger, ..)) = victims.get_mut(*player) else {
                    continue;
                };
                if report.damage_seq.is_newer_than(ledger.damage_seq) {
                    ledger.damage_seq = report.damage_seq;
                }
                if !alive {
                    continue;
                }
                if refused {
                    debug!(
                        ?player,
                        "DamageReport of contact damage by a frozen attacker refused"
                    );
                    contact_drops.0 += 1;
                    continue;
                }
                if spawn_window {
                    debug!(?player, "DamageReport of the previous life dropped");
                    drops.damage += 1;
                    continue;
                }
                apply_damage(&mut ledger, report.weapon, report.amount);
                ledger.last_weapon = report.weapon;
                ledger.last_attacker = attacker;
                ledger.last_report_at = Some(now);
                if let Ok(mut window) = windows.get_mut(*player) {
                    window.take_damage(attacker, report.weapon);
                }
                events.write(LedgerEvent::Damage {
                    victim: *player,
                    attacker,
                    weapon: report.weapon,
                    amount: report.amount,
                    bodypart: report.bodypart,
                });
                if ledger.health <= 0.0 {
                    let pose = DeathPose {
                        weapon: report.weapon,
                        ..DeathPose::DEFAULT
                    };
                    commit(
                        *player,
                        pose,
                        Killer::LastReport,
                        &index,
                        &mut victims,
                        (&mut connections, &mut reshows, &mut hold),
                        &mut events,
                    );
                }
            }
            // vehicles.md VehicleExplode: the window ends if "that player's VehicleExit
            // came first": judged here, in lane order with the DeathReport, not after it
            // when the seats take the exit.
            ClientPacket::VehicleExit(exit) => {
                if let Ok(mut w) = windows.get_mut(*player)
                    && w.vehicle == exit.vehicle_id
                    && seated.get(*player).is_ok_and(|s| s.id == exit.vehicle_id)
                {
                    w.ended = true;
                }
            }
            ClientPacket::DeathReport(report) => {
                if victims
                    .get(*player)
                    .is_ok_and(|(_, _, spawn, ..)| spawn.in_respawn_window())
                {
                    debug!(?player, "DeathReport of the previous life dropped");
                    drops.deaths += 1;
                    continue;
                }
                let naming = windows
                    .get(*player)
                    .ok()
                    .and_then(|w| w.killer_at(now))
                    .map_or(Killer::Recent(now), |k| {
                        let here = victims
                            .get(k.entity)
                            .is_ok_and(|(_, p, ..)| p.token == k.token);
                        Killer::Explosion(here.then_some(k.entity))
                    });
                commit(
                    *player,
                    report.pose().or_default(),
                    naming,
                    &index,
                    &mut victims,
                    (&mut connections, &mut reshows, &mut hold),
                    &mut events,
                );
            }
            _ => {}
        }
    }
}

/// Commits the death of every living player whose health the ledger holds at 0 (rule 4 of
/// connection.md §6): after the reports of the tick and again after the gamemode's
/// commands, so a `set_health(0)` kills in the same tick.
fn commit_deaths(
    index: Res<PlayerIndex>,
    mut victims: Query<Victim>,
    mut connections: Query<&mut Connection>,
    mut events: MessageWriter<LedgerEvent>,
    (mut reshows, mut hold): (ResMut<Reshows>, ResMut<WastedHold>),
) {
    let dying: Vec<(Entity, u8)> = victims
        .iter()
        .filter(|(_, _, _, life, ledger, ..)| life.alive && ledger.health <= 0.0)
        .map(|(e, _, _, _, ledger, ..)| {
            let weapon = ledger.last_report().map_or(0, |(w, _)| w);
            (e, weapon)
        })
        .collect();
    for (player, weapon) in dying {
        let pose = DeathPose {
            weapon,
            ..DeathPose::DEFAULT
        };
        commit(
            player,
            pose,
            Killer::LastReport,
            &index,
            &mut victims,
            (&mut connections, &mut reshows, &mut hold),
            &mut events,
        );
    }
}

/// The attacker a report is credited to, if any (connection.md §6, DamageReport): a living
/// player of the named generation in the victim's scope who is shown to the victim, a
/// teammate only with team damage; for a firearm with a recent shot that explains it, and
/// for an explosion, fire or gas with an action of its log that explains it (weapons.md
/// §6, "How explosion, fire and gas damage reaches the ledger", step 3).
fn credit(
    report: &DamageReport,
    (victim_id, victim, victim_team): (dlmp_protocol::ids::PlayerId, DamagedPlayer, Team),
    now: Duration,
    settings: LedgerSettings,
    (index, victims, logs): (&PlayerIndex, &Query<Victim>, &Query<&ActionLog>),
) -> Option<Entity> {
    if !report.has_attacker {
        return None;
    }
    let entity = index.get(report.attacker_id)?;
    let (_, player, _, life, _, _, scope, team, viewers, shots) = victims.get(entity).ok()?;
    let credited = player.token == report.attacker_token
        && life.alive
        && *scope == victim.scope
        && viewers.contains(victim_id)
        && (settings.team_damage || !team.is_teammate_of(&victim_team))
        && match Cause::of(report.weapon) {
            Some(cause) => logs
                .get(entity)
                .is_ok_and(|log| log.explains_damage(player.token, cause, &victim, now)),
            None => {
                !is_firearm(report.weapon)
                    || shots.is_some_and(|s| s.supports(now, report.weapon, victim.position))
            }
        };
    credited.then_some(entity)
}

/// Whether the report names, by id and generation, a frozen player as the author of
/// contact damage.
fn names_a_frozen_contact_attacker(
    report: &DamageReport,
    index: &PlayerIndex,
    victims: &Query<Victim>,
    frames: &Query<&FrameState>,
) -> bool {
    if !report.has_attacker || !is_contact(report.weapon) {
        return false;
    }
    let Some(entity) = index.get(report.attacker_id) else {
        return false;
    };
    victims
        .get(entity)
        .is_ok_and(|(_, player, ..)| player.token == report.attacker_token)
        && frames.get(entity).is_ok_and(|f| f.frozen.is_some())
}

/// Commits a death once per life: alive = 0, PlayerWasted to the viewers (not the
/// victim), `player_death` with the killer `naming` picks. A player
/// already dead, or not spawned, is left alone. PlayerWasted is a normal event
/// (connection.md §3: its page does not say critical): a viewer whose lane holds 512
/// events is refused it rather than overflowed, and gets a fresh show of the corpse
/// instead ([`tell_viewers`]).
fn commit(
    player: Entity,
    pose: DeathPose,
    naming: Killer,
    index: &PlayerIndex,
    victims: &mut Query<Victim>,
    (connections, reshows, hold): (&mut Query<&mut Connection>, &mut Reshows, &mut WastedHold),
    events: &mut MessageWriter<LedgerEvent>,
) {
    let Ok((_, me, spawn, mut life, ledger, _, _, _, viewers, _)) = victims.get_mut(player) else {
        return;
    };
    if !spawn.granted || !life.spawned || !life.alive {
        return;
    }
    life.alive = false;
    let killer = match naming {
        Killer::LastReport => ledger.last_report().and_then(|(_, attacker)| attacker),
        Killer::Recent(now) => ledger.recent_attacker(now),
        Killer::Explosion(killer) => killer,
    };
    let weapon = match naming {
        Killer::Explosion(_) => WEAPON_EXPLOSION,
        _ => pose.weapon,
    };
    let wasted = PlayerWasted {
        id: me.id,
        player_token: me.token,
        event_id: EventId(0),
        weapon: pose.weapon,
        anim_group: pose.anim_group,
        anim: pose.anim,
    };
    if hold.awaiting.contains(&player) {
        hold.held.push((player, viewers.clone(), wasted));
    } else {
        tell_viewers(player, viewers, index, connections, reshows, wasted);
    }
    events.write(LedgerEvent::Death {
        player,
        killer,
        weapon,
    });
}
