//! One player-streaming reconcile pass with 1000 spawned players in 20 clusters of 50,
//! the clusters 1.2-1.5 km apart over the map (player.md, "Player streaming"): each player
//! sees the 49 others of its cluster.
//!
//! - "steady": everyone already sees its cluster; the pass confirms 49 000 pairs and
//!   decides nothing new (the cost of every tick of a quiet server).
//! - "first pass": nobody sees anyone yet; the pass decides and queues 49 000 shows of two
//!   events each.
//!
//! - "density": the steady pass with 250, 500, 1000 and 2000 players in clusters of 50
//!   (the same density, more of the map): the cost should grow about linearly.
//!
//! - "world": the pickup reconcile on the same engine with 5000 pickups spread over the
//!   map (|x|, |y| < 4000), the 1000 players everywhere already shown what is near them:
//!   the pass with nothing moving, alone and with the players' pass. Then 10 000 labels
//!   (draw distance 50 m) and 2000 blips (no draw distance: each player is shown its 100
//!   nearest) over the same map: each kind's tick with nothing changing (labels and blips
//!   reconcile a fiftieth of the recipients a tick, each once a second), each kind's full
//!   pass over every recipient (the worst case: what a tick cost after any change of the
//!   kind before ADR 0077), the pass after one item near a cluster moved 5 m (the
//!   recipients within reach of it, or whose nearest 100 it can enter, ADR 0077), and the
//!   three together. Pickups too: a pass with nothing moving decides only the rotation's
//!   share, the full pass every recipient.
//!
//! - "world density": the full pass of pickups + labels + blips with 250, 500 and 1000
//!   players in clusters of 50 (`spread_position`) and the world kinds at the same density
//!   over the whole map (|x|, |y| < 6000): the cost should grow about linearly.
//!
//! - "objects" (issue 13): the object reconcile (world.md ObjectState) over a map of
//!   30 000 objects, 28 000 spread over it (|x|, |y| < 5900) and a dense block of 2000
//!   (±50 m), the 1000 players in their clusters already shown what is near them: the
//!   pass with nothing moving (target < 3 ms); the pass after a change no id names
//!   (`Objects::touch`: the chains and the spawn grants' probe built whole); the live
//!   rows of ADR 0076, each a tick's pass (target < 3 ms): one object moving through a
//!   cluster, 20 players (one a cluster, each seen by its 49) walking with an object on
//!   them, one object created in a cluster; and the floor of one player's teleport into
//!   the dense block (31 objects queued before the TeleportPlayer), which must fit in one
//!   tick (20 ms).
//!
//! `cargo bench --bench streaming -- --warm-up-time 1 --measurement-time 5`

mod common;

use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bevy_ecs::message::Messages;
use bevy_ecs::prelude::*;
use bevy_ecs::system::ScheduleSystem;
use bevy_time::{Fixed, Time};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dlmp::player::relay::Relayed;
use dlmp::player::stream::reconcile;
use dlmp::player::stream::{StreamChange, StreamState, StreamingSettings};
use dlmp::player::{Life, Skills};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{PlayerId, PlayerToken, SessionToken};
use dlmp::protocol::text::FixedText;
use dlmp::protocol::world::markers::BlipFlags;
use dlmp::protocol::world::pickup::PickupId;
use dlmp::protocol::world::shared::{AttachKind, EntityRev, MarkerId};
use dlmp::session::{Connection, Name, NametagColor, Player, PlayerDisconnected, PlayerIndex};
use dlmp::streaming::Reshows;
use dlmp::world::blip::stream::reconcile as blip_reconcile;
use dlmp::world::blip::{Blip, BlipSpec, BlipStream};
use dlmp::world::label::stream::reconcile as label_reconcile;
use dlmp::world::label::{Label, LabelSpec, LabelStream, LabelText};
use dlmp::world::pickup::stream::reconcile as pickup_reconcile;
use dlmp::world::pickup::{Behavior, Pickup, PickupSettings, PickupSpec, PickupStream};
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::viewers::Viewers;

use common::{CLUSTERS, PER_CLUSTER, cluster_position, spread_position};

/// A world with the 1000 players and the reconcile system alone in a schedule.
fn full_map() -> (World, Schedule) {
    map(CLUSTERS * PER_CLUSTER, cluster_position)
}

/// A world with `players` players at `position(i)` and the reconcile system alone in a
/// schedule.
fn map(players: u32, position: fn(u32) -> dlmp::protocol::geometry::Vec3) -> (World, Schedule) {
    let mut world = World::new();
    world.init_resource::<Time>();
    world.init_resource::<StreamingSettings>();
    world.init_resource::<StreamState>();
    world.init_resource::<Reshows>();
    world.init_resource::<Messages<StreamChange>>();
    world.init_resource::<Messages<PlayerDisconnected>>();
    for i in 0..players {
        let port = 20_000 + u16::try_from(i).expect("fits");
        world.spawn((
            (
                Player {
                    id: PlayerId(i),
                    token: PlayerToken(i + 1),
                },
                Name(FixedText::new(&format!("player{i:04}")).expect("a name")),
                NametagColor::default(),
                Skills::default(),
                Connection::new(
                    SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
                    SessionToken(u64::from(i) + 1),
                ),
            ),
            (
                Position(position(i)),
                Scope::default(),
                Life {
                    spawned: true,
                    alive: true,
                },
                StreamCenter::default(),
                Viewers::default(),
                Relayed::default(),
            ),
        ));
    }
    let mut schedule = Schedule::default();
    schedule.add_systems(reconcile);
    (world, schedule)
}

fn shown_pairs(world: &mut World) -> usize {
    world
        .query::<&Viewers>()
        .iter(world)
        .map(|v| v.iter().count())
        .sum()
}

fn reconcile_pass(c: &mut Criterion) {
    let expected = (CLUSTERS * PER_CLUSTER * (PER_CLUSTER - 1)) as usize;
    let mut group = c.benchmark_group("streaming reconcile, 1000 players in 20 clusters of 50");
    group.sample_size(20);

    let (mut world, mut schedule) = full_map();
    schedule.run(&mut world);
    assert_eq!(shown_pairs(&mut world), expected, "each sees its cluster");
    group.bench_function("steady", |b| {
        b.iter(|| schedule.run(black_box(&mut world)));
    });
    assert_eq!(shown_pairs(&mut world), expected);

    // The same with cells of 420 m (3 x 3 cells a query instead of 5 x 5).
    world.resource_mut::<StreamingSettings>().cell_size = 420.0;
    schedule.run(&mut world);
    group.bench_function("steady, cells of 420 m", |b| {
        b.iter(|| schedule.run(black_box(&mut world)));
    });
    assert_eq!(shown_pairs(&mut world), expected);

    group.bench_function("first pass (49 000 shows)", |b| {
        b.iter_batched(
            || {
                // A pass with nobody spawned first, so the schedule is built outside the
                // measurement.
                let (mut world, mut schedule) = full_map();
                for mut life in world.query::<&mut Life>().iter_mut(&mut world) {
                    life.spawned = false;
                }
                schedule.run(&mut world);
                for mut life in world.query::<&mut Life>().iter_mut(&mut world) {
                    life.spawned = true;
                }
                (world, schedule)
            },
            |(mut world, mut schedule)| {
                schedule.run(&mut world);
                world
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

/// The steady pass at a fixed density: clusters of 50, more clusters for more players.
fn reconcile_density(c: &mut Criterion) {
    let mut group = c.benchmark_group("density");
    group.sample_size(10);
    for players in [250u32, 500, 1000, 2000] {
        let (mut world, mut schedule) = map(players, spread_position);
        schedule.run(&mut world);
        let expected = (players * (PER_CLUSTER - 1)) as usize;
        assert_eq!(shown_pairs(&mut world), expected, "each sees its cluster");
        group.bench_function(format!("steady, {players} players"), |b| {
            b.iter(|| schedule.run(black_box(&mut world)));
        });
        assert_eq!(shown_pairs(&mut world), expected);
    }
    group.finish();
}

/// A fixed LCG of points within ±`half` m (the same every run).
fn scatter(seed: u32, half: f32) -> impl FnMut() -> (f32, f32) {
    let mut seed = seed;
    move || {
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 * half - half
        };
        (next(), next())
    }
}

/// `n` pickups at pseudo-random points of ±`half` m.
fn add_pickups(world: &mut World, n: u32, half: f32) {
    world.insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(20)));
    world.init_resource::<PickupSettings>();
    world.init_resource::<PickupStream>();
    let mut at = scatter(0x2545_f491, half);
    for i in 0..n {
        let (x, y) = at();
        world.spawn(Pickup {
            id: PickupId(i + 1),
            spec: PickupSpec {
                model: 346,
                position: Vec3::new(x, y, 10.0),
                scale: 1.0,
                highlight: true,
                behavior: Behavior::Collectible,
                respawn: None,
                scope: Scope::default(),
            },
            rev: EntityRev(0),
            active: true,
            respawn_at: None,
            latched: Vec::new(),
        });
    }
}

/// What the label and blip passes read besides their own: the tick (50 Hz), the slots,
/// player streaming's changes.
fn add_world_resources(world: &mut World) {
    world.insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(20)));
    world.init_resource::<PlayerIndex>();
    world.init_resource::<Messages<StreamChange>>();
    world.init_resource::<LabelStream>();
    world.init_resource::<BlipStream>();
}

/// `n` labels (draw distance 50 m) at pseudo-random points of ±`half` m, ids from 1.
fn add_labels(world: &mut World, n: u32, half: f32) {
    let mut at = scatter(0x9e37_79b9, half);
    let text = LabelText::new("Label").expect("short");
    for i in 0..n {
        let (x, y) = at();
        world.spawn(Label {
            id: MarkerId(i + 1),
            spec: LabelSpec {
                text,
                color: 0x00FF_FFFF,
                position: Vec3::new(x, y, 10.0),
                draw_distance: 50.0,
                attach: None,
                scope: Scope::default(),
                viewer: None,
            },
            attached: (AttachKind::None, 0),
            rev: EntityRev(0),
        });
    }
}

/// `n` blips without a draw distance at pseudo-random points of ±`half` m, ids after the
/// labels'.
fn add_blips(world: &mut World, n: u32, half: f32) {
    let mut at = scatter(0x85eb_ca6b, half);
    for i in 0..n {
        let (x, y) = at();
        let position = Vec3::new(x, y, 10.0);
        world.spawn(Blip {
            id: MarkerId(1_000_000 + i),
            spec: BlipSpec {
                sprite: 0,
                color: 0x00FF_0000,
                position,
                size: 1.0,
                flags: BlipFlags(0),
                draw_distance: None,
                attach: None,
                scope: Scope::default(),
                viewer: None,
            },
            attached: (AttachKind::None, 0),
            at: position,
            refreshed: Duration::ZERO,
        });
    }
}

fn shown_pickups(world: &World) -> usize {
    let stream = world.resource::<PickupStream>();
    (0..CLUSTERS * PER_CLUSTER)
        .map(|i| stream.shown().of(PlayerId(i)).len())
        .sum()
}

fn shown_labels(world: &World, players: u32) -> usize {
    let stream = world.resource::<LabelStream>();
    (0..players)
        .map(|i| stream.shown().of(PlayerId(i)).len())
        .sum()
}

fn shown_blips(world: &World, players: u32) -> usize {
    let stream = world.resource::<BlipStream>();
    (0..players)
        .map(|i| stream.shown().of(PlayerId(i)).len())
        .sum()
}

/// The next pass of each kind decides every recipient (the worst case: what every tick
/// cost before ADR 0077 marked only the recipients a change can affect).
fn everyone(world: &mut World) {
    world.resource_mut::<PickupStream>().reconcile_everyone();
    world.resource_mut::<LabelStream>().reconcile_everyone();
    world.resource_mut::<BlipStream>().reconcile_everyone();
}

/// The item of a kind nearest the first cluster of players (`cluster_position(0)`): a
/// change of it is near 50 recipients.
fn nearest_to_players<C: Component>(world: &mut World, at: fn(&C) -> Vec3) -> Entity {
    let near = cluster_position(0);
    let d = |p: Vec3| (p.x - near.x).hypot(p.y - near.y);
    world
        .query::<(Entity, &C)>()
        .iter(world)
        .min_by(|a, b| d(at(a.1)).total_cmp(&d(at(b.1))))
        .map(|(e, _)| e)
        .expect("items")
}

/// Moves `item` 5 m east and back on alternate calls: one change a pass.
fn nudge<C: Component<Mutability = bevy_ecs::component::Mutable>>(
    world: &mut World,
    item: Entity,
    step: &mut u32,
    position: fn(&mut C) -> &mut Vec3,
) {
    *step += 1;
    let mut c = world.get_mut::<C>(item).expect("the item");
    position(&mut c).x += if step.is_multiple_of(2) { 5.0 } else { -5.0 };
}

/// Benches `name`: `pass` after the item of `C` nearest the first cluster moved 5 m (east
/// and back on alternate passes; `changed` tells the kind, when it is to be told), then
/// puts the item back where it stood with one more pass.
fn one_change<C: Component<Mutability = bevy_ecs::component::Mutable>>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    world: &mut World,
    pass: &mut Schedule,
    at: fn(&C) -> Vec3,
    position: fn(&mut C) -> &mut Vec3,
    changed: fn(&mut World),
) {
    let item = nearest_to_players::<C>(world, at);
    let mut step = 0u32;
    group.bench_function(name, |b| {
        b.iter(|| {
            nudge::<C>(world, item, &mut step, position);
            changed(world);
            pass.run(black_box(&mut *world));
        });
    });
    if !step.is_multiple_of(2) {
        nudge::<C>(world, item, &mut step, position);
        changed(world);
        pass.run(world);
    }
}

fn schedule_of<M>(systems: impl IntoScheduleConfigs<ScheduleSystem, M>) -> Schedule {
    let mut schedule = Schedule::default();
    schedule.add_systems(systems);
    schedule
}

fn world_pass(c: &mut Criterion) {
    let mut group = c.benchmark_group("world streaming, 1000 players, 5000 pickups");
    group.sample_size(20);
    let players = CLUSTERS * PER_CLUSTER;
    let (mut world, _) = full_map();
    add_pickups(&mut world, 5000, 4000.0);
    let mut pickups = schedule_of(pickup_reconcile);
    pickups.run(&mut world);
    let shown = shown_pickups(&world);
    assert!(shown > 1000, "players see the pickups near them ({shown})");
    group.bench_function("pickups, steady", |b| {
        b.iter(|| pickups.run(black_box(&mut world)));
    });
    group.bench_function("pickups, full pass", |b| {
        b.iter(|| {
            world.resource_mut::<PickupStream>().reconcile_everyone();
            pickups.run(black_box(&mut world));
        });
    });
    one_change::<Pickup>(
        &mut group,
        "pickups, after one pickup moved",
        &mut world,
        &mut pickups,
        |p| p.spec.position,
        |p| &mut p.spec.position,
        |_| {},
    );
    assert_eq!(shown_pickups(&world), shown);
    let mut both = schedule_of((reconcile, pickup_reconcile).chain());
    both.run(&mut world);
    group.bench_function("players and pickups, steady", |b| {
        b.iter(|| both.run(black_box(&mut world)));
    });

    add_world_resources(&mut world);
    add_labels(&mut world, 10_000, 4000.0);
    add_blips(&mut world, 2000, 4000.0);
    let mut labels = schedule_of(label_reconcile);
    let mut blips = schedule_of(blip_reconcile);
    // Everyone's first pass, then a second of ticks so every share has run once.
    everyone(&mut world);
    labels.run(&mut world);
    blips.run(&mut world);
    for _ in 0..50 {
        labels.run(&mut world);
        blips.run(&mut world);
    }
    let (l, bl) = (shown_labels(&world, players), shown_blips(&world, players));
    assert!(l > 1000, "players see the labels near them ({l})");
    assert_eq!(
        bl,
        players as usize * 100,
        "each player its 100 nearest blips"
    );
    group.bench_function("labels (10 000), steady tick", |b| {
        b.iter(|| labels.run(black_box(&mut world)));
    });
    group.bench_function("labels (10 000), full pass", |b| {
        b.iter(|| {
            everyone(&mut world);
            labels.run(black_box(&mut world));
        });
    });
    one_change::<Label>(
        &mut group,
        "labels (10 000), after one label changed",
        &mut world,
        &mut labels,
        |l| l.spec.position,
        |l| &mut l.spec.position,
        |w| w.resource_mut::<LabelStream>().changed(),
    );
    group.bench_function("blips (2000), steady tick", |b| {
        b.iter(|| blips.run(black_box(&mut world)));
    });
    group.bench_function("blips (2000), full pass", |b| {
        b.iter(|| {
            everyone(&mut world);
            blips.run(black_box(&mut world));
        });
    });
    one_change::<Blip>(
        &mut group,
        "blips (2000), after one blip moved",
        &mut world,
        &mut blips,
        |b| b.spec.position,
        |b| &mut b.spec.position,
        |w| w.resource_mut::<BlipStream>().changed(),
    );
    let mut all = schedule_of((pickup_reconcile, label_reconcile, blip_reconcile).chain());
    all.run(&mut world);
    group.bench_function("pickups + labels + blips, steady tick", |b| {
        b.iter(|| all.run(black_box(&mut world)));
    });
    group.bench_function("pickups + labels + blips, full pass", |b| {
        b.iter(|| {
            everyone(&mut world);
            all.run(black_box(&mut world));
        });
    });
    // The nudged label stands where it stood, but a player it came within 50 m of keeps
    // it up to 60 m (the hysteresis): at most its cluster more.
    let now = shown_labels(&world, players);
    assert!(
        (l..=l + PER_CLUSTER as usize).contains(&now),
        "labels shown {now}, before the nudges {l}"
    );
    assert_eq!(shown_blips(&world, players), bl);
    group.finish();
}

/// The full pass of the three world kinds at a fixed density: more players in more
/// clusters of 50 over the whole map, the kinds at the density (5000 pickups,
/// 10 000 labels, 2000 blips per 8 km × 8 km) over ±6000 m.
fn world_density(c: &mut Criterion) {
    let mut group = c.benchmark_group("world density");
    group.sample_size(10);
    let scale = (12.0f32 * 12.0) / (8.0 * 8.0);
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "counts"
    )]
    let count = |n: f32| (n * scale) as u32;
    for players in [250u32, 500, 1000] {
        let (mut world, _) = map(players, spread_position);
        add_pickups(&mut world, count(5000.0), 6000.0);
        add_world_resources(&mut world);
        add_labels(&mut world, count(10_000.0), 6000.0);
        add_blips(&mut world, count(2000.0), 6000.0);
        let mut all = schedule_of((pickup_reconcile, label_reconcile, blip_reconcile).chain());
        everyone(&mut world);
        all.run(&mut world);
        assert_eq!(shown_blips(&world, players), players as usize * 100);
        group.bench_function(
            format!("pickups + labels + blips, full pass, {players} players"),
            |b| {
                b.iter(|| {
                    everyone(&mut world);
                    all.run(black_box(&mut world));
                });
            },
        );
    }
    group.finish();
}

/// The dense block a teleport lands in: [`DENSE_OBJECTS`] within ±50 m of this point.
const DENSE: Vec3 = Vec3::new(0.0, 3000.0, 10.0);
const DENSE_OBJECTS: u32 = 2000;
/// The map's objects, the dense block's included (issue 13: "a map of 30 000 objects").
const OBJECTS: u32 = 30_000;

fn add_objects(world: &mut World) {
    use dlmp::world::object::{ObjectSpec, create_object};
    world.init_resource::<dlmp::world::object::ObjectStream>();
    world.init_resource::<dlmp::player::floor::GrantFloor>();
    world.init_resource::<dlmp::session::PlayerIndex>();
    world.init_resource::<dlmp::player::teleport::LandingRefusals>();
    world.init_resource::<Messages<dlmp::player::teleport::Teleport>>();
    let mut seed: u32 = 0x1234_5678;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for _ in 0..OBJECTS - DENSE_OBJECTS {
        let at = Vec3::new(next() * 11_800.0 - 5900.0, next() * 11_800.0 - 5900.0, 10.0);
        create_object(world, ObjectSpec::new(1225, at), None).expect("an object");
    }
    for _ in 0..DENSE_OBJECTS {
        let at = Vec3::new(
            DENSE.x + next() * 100.0 - 50.0,
            DENSE.y + next() * 100.0 - 50.0,
            10.0,
        );
        create_object(world, ObjectSpec::new(1225, at), None).expect("an object");
    }
}

fn shown_objects(world: &World) -> usize {
    let stream = world.resource::<dlmp::world::object::ObjectStream>();
    (0..CLUSTERS * PER_CLUSTER)
        .map(|i| stream.shown().of(PlayerId(i)).len())
        .sum()
}

fn object_pass(c: &mut Criterion) {
    use dlmp::world::object::landing::floor_before_landing;
    use dlmp::world::object::stream::reconcile as object_reconcile;
    let mut group = c.benchmark_group("objects, 1000 players in clusters, 30 000 objects");
    group.sample_size(20);
    let (mut world, _) = full_map();
    add_objects(&mut world);
    let mut pass = Schedule::default();
    pass.add_systems(object_reconcile);
    pass.run(&mut world);
    pass.run(&mut world);
    let shown = shown_objects(&world);
    assert!(
        shown > 10_000,
        "players see the objects near them ({shown})"
    );
    group.bench_function("reconcile, nothing moving", |b| {
        b.iter(|| pass.run(black_box(&mut world)));
    });
    assert_eq!(shown_objects(&world), shown);
    group.bench_function(
        "reconcile after a change no id names (chains and probe built whole)",
        |b| {
            b.iter(|| {
                world.resource_mut::<dlmp::world::object::Objects>().touch();
                pass.run(black_box(&mut world));
            });
        },
    );
    assert_eq!(shown_objects(&world), shown);
    live_rows(&mut group, &mut world, &mut pass);
    let mut landing = Schedule::default();
    landing.add_systems(floor_before_landing);
    landing.run(&mut world);
    let player = world
        .query::<(Entity, &Player)>()
        .iter(&world)
        .find(|(_, p)| p.id == PlayerId(0))
        .map(|(e, _)| e)
        .expect("player 0");
    let mut teleported = false;
    group.bench_function("the floor of a teleport into 2000 objects", |b| {
        teleported = true;
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                world.entity_mut(player).insert(Connection::new(
                    SocketAddr::from((Ipv4Addr::LOCALHOST, 19_999)),
                    SessionToken(1),
                ));
                world
                    .resource_mut::<dlmp::world::object::ObjectStream>()
                    .forget(PlayerId(0));
                world.write_message(dlmp::player::teleport::Teleport {
                    player,
                    pos: DENSE,
                    heading: None,
                    interior: None,
                    ground: false,
                });
                let start = std::time::Instant::now();
                landing.run(&mut world);
                total += start.elapsed();
            }
            total
        });
    });
    let queued = world
        .resource::<dlmp::world::object::ObjectStream>()
        .shown()
        .of(PlayerId(0))
        .len();
    // Only when the teleport ran (a filter may have left it out).
    if teleported {
        assert_eq!(queued, 31, "the floor");
    }
    group.finish();
}

/// Object `id`'s entity.
fn object_entity(world: &World, id: dlmp::world::object::ObjectId) -> Entity {
    world
        .resource::<dlmp::world::object::Objects>()
        .entity(id)
        .expect("an object")
}

/// Changes object `id` as a command would, and notes it for the pass.
fn change_object(
    world: &mut World,
    id: dlmp::world::object::ObjectId,
    change: impl FnOnce(&mut dlmp::world::object::Object),
) {
    let e = object_entity(world, id);
    change(
        &mut world
            .get_mut::<dlmp::world::object::Object>(e)
            .expect("an object"),
    );
    world
        .resource_mut::<dlmp::world::object::Objects>()
        .touch_object(id);
}

/// The rows of issue 13's live objects (ADR 0076), each a tick's pass: one object moving
/// among a cluster's 50 players, 20 players (one a cluster, seen by the 49 others) each
/// holding an object while they move, and one object created in a cluster. Each leaves
/// the world as it found it (the shown objects are checked).
fn live_rows(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    world: &mut World,
    pass: &mut Schedule,
) {
    use dlmp::world::object::{Attachment, Motion, ObjectSpec, Pose, create_object};
    const TICK: Duration = Duration::from_millis(20);
    let shown = shown_objects(world);
    let centre = cluster_position(0);
    let spec = ObjectSpec::new(1225, Vec3::new(centre.x - 150.0, centre.y, 10.0));
    let mover = create_object(world, spec, None).expect("an object");
    let id = world
        .get::<dlmp::world::object::Object>(mover)
        .expect("an object")
        .id;
    let start = world.resource::<Time>().elapsed();
    change_object(world, id, |o| {
        o.motion = Some(Motion {
            from: o.pose,
            to: Pose::at(Vec3::new(centre.x + 150.0, centre.y, 10.0)),
            start,
            duration: Duration::from_secs(3600),
        });
    });
    pass.run(world);
    group.bench_function("one object moving through a cluster", |b| {
        b.iter(|| {
            world.resource_mut::<Time>().advance_by(TICK);
            pass.run(black_box(&mut *world));
        });
    });
    let dump = Vec3::new(5900.0, -5900.0, 10.0);
    change_object(world, id, |o| {
        o.motion = None;
        o.pose = Pose::at(dump);
    });
    pass.run(world);
    assert_eq!(shown_objects(world), shown);

    let holders: Vec<(Entity, PlayerId)> = {
        let mut q = world.query::<(Entity, &Player)>();
        let mut all: Vec<(Entity, PlayerId)> = q
            .iter(world)
            .filter(|(_, p)| p.id.0 % PER_CLUSTER == 0)
            .map(|(e, p)| (e, p.id))
            .collect();
        all.sort_unstable_by_key(|(_, p)| p.0);
        all
    };
    let mut hats = Vec::new();
    for &(holder, pid) in &holders {
        let mut viewers = Viewers::default();
        for mate in pid.0 + 1..pid.0 + PER_CLUSTER {
            viewers.insert(PlayerId(mate));
        }
        world.entity_mut(holder).insert(viewers);
        let hat = create_object(world, ObjectSpec::new(1225, Vec3::ZERO), None).expect("a hat");
        let hat = world
            .get::<dlmp::world::object::Object>(hat)
            .expect("an object")
            .id;
        change_object(world, hat, |o| {
            o.attachment = Some(Attachment {
                parent: dlmp::world::object::Parent::Player(holder),
                bone: dlmp::protocol::world::object::Bone::Root,
            });
        });
        hats.push(hat);
    }
    pass.run(world);
    pass.run(world);
    assert_eq!(
        shown_objects(world),
        shown + (CLUSTERS * PER_CLUSTER) as usize,
        "each hat is shown to its holder's cluster"
    );
    let mut step = 0.05f32;
    group.bench_function("20 players each holding an object, walking", |b| {
        b.iter(|| {
            step = -step;
            for &(holder, _) in &holders {
                world.get_mut::<Position>(holder).expect("a player").0.x += step;
            }
            world.resource_mut::<Time>().advance_by(TICK);
            pass.run(black_box(&mut *world));
        });
    });
    for (&hat, &(holder, _)) in hats.iter().zip(&holders) {
        world.entity_mut(holder).insert(Viewers::default());
        change_object(world, hat, |o| {
            o.attachment = None;
            o.pose = Pose::at(dump);
        });
    }
    pass.run(world);
    assert_eq!(shown_objects(world), shown);

    let mut made = 0u32;
    group.bench_function("one object created in a cluster", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                made += 1;
                let at = Vec3::new(centre.x + (made % 100) as f32, centre.y, 10.0);
                let begin = std::time::Instant::now();
                let e = create_object(world, ObjectSpec::new(1225, at), None).expect("made");
                pass.run(black_box(&mut *world));
                total += begin.elapsed();
                // Out of every player's reach before the next, so the cluster stays as it
                // was.
                let id = world
                    .get::<dlmp::world::object::Object>(e)
                    .expect("an object")
                    .id;
                change_object(world, id, |o| o.pose = Pose::at(dump));
                pass.run(world);
            }
            total
        });
    });
    assert_eq!(shown_objects(world), shown);
}

criterion_group!(
    benches,
    reconcile_pass,
    reconcile_density,
    world_pass,
    world_density,
    object_pass
);
criterion_main!(benches);
