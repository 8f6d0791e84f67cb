//! The weapons' share of the tick (issue 36, Performance; weapons.md §6 and §7): 1000
//! players in 20 clusters of 50 (each cluster within streaming range of itself, the
//! clusters far apart), every one walking and sending 30 frames a second, as in the tick
//! benchmark. In the scenario with launches, every tenth player of a cluster (100 in all)
//! throws or fires once a second, spread evenly over the ticks: grenades, molotovs and
//! rockets from the rocket launcher, each armed by its frames from the inventory the
//! gamemode gave (`give_weapon` through a chat command), each ProjectileCreate accepted
//! (the weapon event limit of 4 a second and half the game interval respected) and
//! relayed to its 49 viewers. The three nearest players who launch nothing each send a
//! DamageReport naming the launcher once the projectile bursts (a grenade after its 3 s
//! fuse as 51, a rocket after 0.5 s as 51, a molotov's fire after 0.5 s as 37): the path
//! through the ledger that credits an attacker only when its action log explains the
//! damage. The viewers acknowledge their lanes as clients do.
//!
//! Before the measurement the launchers launch for 70 s, so that every launcher's log has
//! reached its cap of 64 actions (85 s of launches at one a second would be 85) and the
//! log's search runs over full logs. The scenario without launches is the same crowd, the
//! same gamemode, the same 70 s of armed frames, without ProjectileCreate and DamageReport:
//! the difference of the two is the cost of the launches, their relays, the reports, the
//! action log and the credit. After the run every player's log is checked against the
//! cap, and the actions held are printed with the bound.
//!
//! `cargo bench --bench weapons -- --warm-up-time 1 --measurement-time 5`; the tick's
//! instructions: `valgrind --tool=callgrind --toggle-collect='weapons::timed_tick'
//! target/release/deps/weapons-* --bench 'with launches' --profile-time 1` (and
//! `'without launches'`), instructions ÷ the calls to `timed_tick`.

mod common;

use std::collections::BTreeMap;
use std::f32::consts::TAU;
use std::time::Duration;

use bevy_ecs::entity::Entity;
use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::weapons::actions::{Action, ActionLog, LOG_CAP, NEAR_CAP, VehicleOfLife};
use dlmp::player::weapons::launch::LaunchStats;
use dlmp::player::{DeathEpoch, Inventory, Ledger, Life};
use dlmp::protocol::connection::damage::{DamageReport, WEAPON_EXPLOSION, WEAPON_FIRE};
use dlmp::protocol::connection::lane::ClientAck;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, PlayerId, PlayerToken, Revision, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::player::sync::{Frame, Keys, MoveState, PlayerSync};
use dlmp::protocol::weapons::projectile::{Launch, ProjectileCreate, ProjectileWeapon};
use dlmp::session::{Connection, Player, PlayerIndex};

use common::{CLUSTERS, PER_CLUSTER};

const PLAYERS: u32 = CLUSTERS * PER_CLUSTER;
/// Every this many players of a cluster one launches: 5 a cluster, 10 % of the crowd.
const LAUNCHER_EVERY: u32 = 10;
const TICKS_PER_SECOND: u32 = 50;
/// The players nearest to a launcher whom its blast reaches.
const VICTIMS: usize = 3;
/// The damage of one report: small enough that nobody dies in a long run.
const DAMAGE: f32 = 0.1;
/// Rounds the gamemode gives each launcher.
const AMMO: u16 = 60_000;
/// Ticks of launches before the measurement: 70 s, past the 64 launches that fill a log.
const FILL_TICKS: u32 = 70 * TICKS_PER_SECOND;
/// Ticks of frames before the first launch, so the server has confirmed the armed weapon.
const ARMING_TICKS: u32 = 10;

/// A walker's circle around its home, m, and its speed, m/s; the physics step, s.
const WALK_RADIUS: f32 = 1.0;
const WALK_SPEED: f32 = 1.5;
const STEP: f32 = 0.02;

const GAMEMODE: &str = r#"
dlmp.add_command("arm", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
"#;

/// What a launcher holds and launches, by its place among a cluster's launchers.
#[derive(Debug, Clone, Copy)]
struct Arms {
    /// The armed weapon (the launcher of weapons.md §1's table).
    weapon: u8,
    projectile: ProjectileWeapon,
    /// Start velocity, units per physics step.
    velocity: Vec3,
    /// What the victims report: 51 for an explosion, 37 for fire.
    report: u8,
    /// Ticks from the launch to the burst.
    burst_after: u32,
}

fn arms(k: u32) -> Arms {
    let thrown = Vec3::new(0.5, 0.5, 0.25);
    match k % 5 {
        0 | 1 => Arms {
            weapon: 16,
            projectile: ProjectileWeapon::Grenade,
            velocity: thrown,
            report: WEAPON_EXPLOSION,
            burst_after: 3 * TICKS_PER_SECOND,
        },
        2 | 3 => Arms {
            weapon: 18,
            projectile: ProjectileWeapon::Molotov,
            velocity: thrown,
            report: WEAPON_FIRE,
            burst_after: TICKS_PER_SECOND / 2,
        },
        _ => Arms {
            weapon: 35,
            projectile: ProjectileWeapon::Rocket,
            velocity: Vec3::new(1.5, 0.0, 0.1),
            report: WEAPON_EXPLOSION,
            burst_after: TICKS_PER_SECOND / 2,
        },
    }
}

/// One player of the crowd.
struct Walker {
    client: ClientId,
    entity: Entity,
    home: Vec3,
    id: PlayerId,
    token: PlayerToken,
    /// Its game's DamageReport counter.
    damage_seq: u32,
}

/// A launcher: which walker, its arms, the tick of the second it launches in, the ammo
/// its game counts, the weapon_rev its frames echo, its victims (walkers).
struct Launcher {
    walker: usize,
    arms: Arms,
    phase: u32,
    total: u16,
    weapon_rev: Revision,
    victims: [usize; VICTIMS],
}

struct Counts {
    launches: u64,
    reports: u64,
}

/// The crowd, set up and drained, with its clock of ticks sent.
struct Crowd {
    h: Harness,
    _scripts: TempScripts,
    walkers: Vec<Walker>,
    launchers: Vec<Launcher>,
    /// The launcher of each walker that is one.
    launcher_of: Vec<Option<usize>>,
    launching: bool,
    tick: u32,
    /// Bursts due, by tick: the launchers whose victims report then.
    bursts: BTreeMap<u32, Vec<usize>>,
    sent: Counts,
}

fn horizontal(a: Vec3, b: Vec3) -> f32 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// Where walker `k` is at tick `tick`, and its frame's velocity (units per step).
fn walk(k: u32, home: Vec3, tick: u32) -> (Vec3, Vec3) {
    let t = tick as f32 * STEP;
    let a = (k as f32 / PER_CLUSTER as f32) * TAU + WALK_SPEED / WALK_RADIUS * t;
    let pos = Vec3::new(
        home.x + WALK_RADIUS * a.cos(),
        home.y + WALK_RADIUS * a.sin(),
        home.z,
    );
    let step = WALK_SPEED * STEP;
    (pos, Vec3::new(-step * a.sin(), step * a.cos(), 0.0))
}

/// Marks the timed section for callgrind's `--toggle-collect='weapons::timed_tick'`: the
/// set-up's ticks and the fill run through `step_server_only` directly and are not counted.
#[inline(never)]
fn timed_tick(h: &mut Harness) {
    h.step_server_only();
}

impl Crowd {
    /// 1000 players at their homes, every tenth armed by the gamemode, after
    /// [`FILL_TICKS`] of walking (with `launching`, and launching).
    fn new(launching: bool) -> Self {
        let scripts = TempScripts::new("bench-weapons");
        scripts.resource("gm", GAMEMODE);
        let (mut h, clients) = common::full_house_with(PLAYERS, scripts.config());
        for (i, &c) in (0..).zip(&clients) {
            h.spawn_at(c, common::cluster_position(i));
        }
        h.step();
        common::drain(&mut h, 400);

        let walkers: Vec<Walker> = (0..)
            .zip(&clients)
            .map(|(i, &client)| Walker {
                client,
                entity: h.entity(client),
                home: common::cluster_position(i),
                id: h.player_id(client),
                token: h.get::<Player>(client).token,
                damage_seq: 0,
            })
            .collect();
        let mut launchers = Vec::new();
        let mut launcher_of = vec![None; walkers.len()];
        for (i, w) in (0..).zip(&walkers) {
            if !(i % PER_CLUSTER).is_multiple_of(LAUNCHER_EVERY) {
                continue;
            }
            let k = (i % PER_CLUSTER) / LAUNCHER_EVERY;
            let cluster = i / PER_CLUSTER;
            let mut near: Vec<usize> = (cluster * PER_CLUSTER..(cluster + 1) * PER_CLUSTER)
                .filter(|j| !(j % PER_CLUSTER).is_multiple_of(LAUNCHER_EVERY))
                .map(|j| j as usize)
                .collect();
            near.sort_by(|&a, &b| {
                horizontal(walkers[a].home, w.home).total_cmp(&horizontal(walkers[b].home, w.home))
            });
            let n = launchers.len() as u32;
            launcher_of[i as usize] = Some(launchers.len());
            launchers.push(Launcher {
                walker: i as usize,
                arms: arms(k),
                // Two launches a tick, every tick.
                phase: n % TICKS_PER_SECOND,
                total: AMMO,
                weapon_rev: Revision(0),
                victims: [near[0], near[1], near[2]],
            });
        }
        for l in &launchers {
            let c = walkers[l.walker].client;
            h.chat(c, &format!("/arm {} {AMMO}", l.arms.weapon));
        }
        h.step();
        common::drain(&mut h, 400);
        for l in &mut launchers {
            let inv = h.get::<Inventory>(walkers[l.walker].client);
            assert_eq!(
                inv.ammo[usize::from(l.arms.weapon)],
                AMMO,
                "the gamemode armed the launcher"
            );
            l.weapon_rev = inv.weapon_rev;
        }
        for w in &walkers {
            h.clear(w.client);
        }
        let mut crowd = Crowd {
            h,
            _scripts: scripts,
            walkers,
            launchers,
            launcher_of,
            launching: false,
            tick: 0,
            bursts: BTreeMap::new(),
            sent: Counts {
                launches: 0,
                reports: 0,
            },
        };
        for _ in 0..ARMING_TICKS {
            crowd.send_tick();
            crowd.h.step_server_only();
            crowd.after_tick();
        }
        crowd.launching = launching;
        for _ in 0..FILL_TICKS {
            crowd.send_tick();
            crowd.h.step_server_only();
            crowd.after_tick();
        }
        crowd
    }

    /// Queues the next tick's packets (the clients' work, outside the timing): 30 of every
    /// 50 players send a frame; with launches, the launchers due launch and the victims of
    /// the bursts due report.
    fn send_tick(&mut self) {
        self.tick += 1;
        let tick = self.tick;
        for (k, w) in (0..).zip(&self.walkers) {
            if (k + tick) % 5 >= 3 {
                continue;
            }
            let (pos, vel) = walk(k, w.home, tick);
            let mut frame = Frame {
                keys: Keys::FORWARD,
                vel,
                move_state: MoveState::Walk,
                ..Frame::standing(pos)
            };
            if let Some(l) = self.launcher_of[k as usize].map(|l| &self.launchers[l]) {
                frame.death_epoch = self.h.get::<DeathEpoch>(w.client).0;
                frame.weapon = l.arms.weapon;
                frame.clip = l.total.min(1);
                frame.total = l.total;
                frame.weapon_rev = l.weapon_rev;
            }
            let sync = PlayerSync {
                session_token: self.h.token(w.client),
                seq: Seq(tick),
                frame,
            };
            self.h.send(w.client, sync);
        }
        if !self.launching {
            return;
        }
        for n in 0..self.launchers.len() {
            if (tick + self.launchers[n].phase).is_multiple_of(TICKS_PER_SECOND) {
                self.launch(n);
            }
        }
        if let Some(due) = self.bursts.remove(&tick) {
            for n in due {
                self.burst(n);
            }
        }
    }

    /// Launcher `n` launches from beside its body, as its game reports it.
    fn launch(&mut self, n: usize) {
        let l = &mut self.launchers[n];
        let w = &self.walkers[l.walker];
        let (pos, _) = walk(l.walker as u32, w.home, self.tick);
        let seen = self
            .h
            .world()
            .get::<Connection>(w.entity)
            .expect("connected")
            .last_queued();
        let packet = ProjectileCreate {
            session_token: self.h.token(w.client),
            event_id: EventId(0),
            seen_event: seen,
            launch: Launch {
                weapon: l.arms.projectile,
                vehicle_id: VehicleId::NONE,
                origin: Vec3::new(pos.x + 0.5, pos.y, pos.z + 1.0),
                velocity: l.arms.velocity,
                target_id: VehicleId::NONE,
                target_epoch: VehicleEpoch(0),
            },
        };
        l.total -= 1;
        let due = self.tick + l.arms.burst_after;
        let client = w.client;
        self.h.send_event(client, packet);
        self.bursts.entry(due).or_default().push(n);
        self.sent.launches += 1;
    }

    /// The blast of launcher `n`'s projectile reaches its victims: each reports the
    /// damage with the launcher as its attacker.
    fn burst(&mut self, n: usize) {
        let l = &self.launchers[n];
        let (attacker, report, victims) = (&self.walkers[l.walker], l.arms.report, l.victims);
        let (attacker_id, attacker_token) = (attacker.id, attacker.token);
        for v in victims {
            let w = &mut self.walkers[v];
            w.damage_seq += 1;
            let packet = DamageReport {
                session_token: self.h.token(w.client),
                event_id: EventId(0),
                damage_seq: Seq(w.damage_seq),
                has_attacker: true,
                attacker_id,
                attacker_token,
                weapon: report,
                amount: DAMAGE,
                bodypart: 3,
            };
            let client = w.client;
            self.h.send_event(client, packet);
            self.sent.reports += 1;
        }
    }

    /// After a tick: the sent datagrams dropped (the network thread's work) and every
    /// client with events in flight acknowledging them, as its game does on receipt (all of
    /// a tick's new events went out in that tick), outside the timing.
    fn after_tick(&mut self) {
        std::hint::black_box(self.h.discard_sent());
        for w in &self.walkers {
            let conn = self
                .h
                .world()
                .get::<Connection>(w.entity)
                .expect("connected");
            if conn.waiting() == 0 {
                continue;
            }
            let ack = ClientAck {
                session_token: self.h.token(w.client),
                event_id: conn.last_queued(),
            };
            self.h.send(w.client, ack);
        }
    }

    /// What the scenario claims, checked after the run: every session lasted, everyone
    /// alive; every launch accepted and relayed to all its viewers, every victim's last
    /// report credited to its launcher; every action log within its cap. Prints the logs'
    /// size against the bound.
    fn check(&mut self) {
        let w = self.h.world();
        assert_eq!(
            w.resource::<PlayerIndex>().len(),
            PLAYERS as usize,
            "every session lasted the whole run"
        );
        assert!(
            self.walkers
                .iter()
                .all(|p| w.get::<Life>(p.entity).is_some_and(|l| l.alive)),
            "nobody died"
        );
        let stats = w.resource::<LaunchStats>();
        assert_eq!(stats.accepted, self.sent.launches, "{stats:?}");
        assert_eq!(stats.relay_refused, 0, "{stats:?}");
        let mut lengths = Vec::new();
        for p in &self.walkers {
            lengths.push(w.get::<ActionLog>(p.entity).expect("a log").len());
        }
        let (total, longest) = (lengths.iter().sum::<usize>(), lengths.iter().max());
        assert!(
            longest.is_some_and(|&l| l <= LOG_CAP),
            "every log within its cap"
        );
        // The victims' last reports, by means: (credited, reported).
        let mut credited = BTreeMap::<u8, (usize, usize)>::new();
        if self.launching {
            for l in &self.launchers {
                assert_eq!(lengths[l.walker], LOG_CAP, "a launcher's log at its cap");
                for &v in &l.victims {
                    let ledger = w.get::<Ledger>(self.walkers[v].entity).expect("a ledger");
                    if ledger.last_report_at.is_some() {
                        let n = credited.entry(ledger.last_weapon).or_default();
                        n.0 += usize::from(ledger.last_attacker.is_some());
                        n.1 += 1;
                    }
                }
            }
            for (means, (yes, of)) in &credited {
                assert_eq!(
                    yes, of,
                    "every victim's last report ({means}) credited: the launcher's log explains it"
                );
            }
        }
        // An action's own size, and at most NEAR_CAP vehicles noted near its place.
        let each = std::mem::size_of::<Action>();
        let bound = each + NEAR_CAP * std::mem::size_of::<VehicleOfLife>();
        println!(
            "action logs after {} ticks ({} launches, {} damage reports sent; the victims' last \
             reports credited, by means: {credited:?}): {total} actions in {} logs, the longest \
             {} (cap {LOG_CAP}), {} KiB at {each} B an action; the bound: {LOG_CAP} actions of \
             at most {bound} B a player, {} KiB for {} players",
            self.tick,
            self.sent.launches,
            self.sent.reports,
            lengths.len(),
            longest.copied().unwrap_or(0),
            total * each / 1024,
            LOG_CAP * bound * lengths.len() / 1024,
            lengths.len(),
        );
    }
}

fn weapons(c: &mut Criterion) {
    let mut group = c.benchmark_group("server tick, 1000 players, 100 launching a second");
    group.sample_size(20);
    for (name, launching) in [
        ("without launches (the same crowd, armed)", false),
        (
            "with launches: 2 ProjectileCreate and 6 DamageReport a tick, logs at their cap",
            true,
        ),
    ] {
        // Built only when the filter selects the benchmark.
        let mut crowd: Option<Crowd> = None;
        group.bench_function(name, |b| {
            let crowd = crowd.get_or_insert_with(|| Crowd::new(launching));
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    crowd.send_tick();
                    let start = common::Stopwatch::start();
                    timed_tick(&mut crowd.h);
                    total += start.elapsed();
                    crowd.after_tick();
                }
                total
            });
        });
        if let Some(crowd) = &mut crowd {
            crowd.check();
        }
    }
    group.finish();
}

criterion_group!(benches, weapons);
criterion_main!(benches);
