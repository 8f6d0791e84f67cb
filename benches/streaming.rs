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
//!   the pass with nothing moving, alone and with the players' pass.
//!
//! - "objects": the object reconcile (world.md ObjectState) with 30 000 objects spread
//!   over the map (|x|, |y| < 5900) and a dense block of 2000 more, the 1000 players in
//!   their clusters already shown what is near them: the pass with nothing moving; and the
//!   floor of one player's teleport into the dense block (up to 31 objects queued before
//!   the TeleportPlayer), which must fit in one tick.
//!
//! `cargo bench --bench streaming -- --warm-up-time 1 --measurement-time 5`

mod common;

use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddr};

use bevy_ecs::message::Messages;
use bevy_ecs::prelude::*;
use bevy_time::Time;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dlmp::player::relay::Relayed;
use dlmp::player::{Life, Position, Scope, Skills, StreamCenter, Viewers};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{PlayerId, PlayerToken, SessionToken};
use dlmp::protocol::text::FixedText;
use dlmp::protocol::world::pickup::PickupId;
use dlmp::protocol::world::shared::EntityRev;
use dlmp::session::{Connection, Name, NametagColor, Player, PlayerDisconnected};
use dlmp::streaming::plugin::reconcile;
use dlmp::streaming::{StreamChange, StreamState, StreamingSettings};
use dlmp::world::pickup::stream::reconcile as pickup_reconcile;
use dlmp::world::pickup::{Behavior, Pickup, PickupSettings, PickupSpec, PickupStream};

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

/// 5000 pickups at pseudo-random points of ±4000 m (a fixed LCG, the same every run).
fn add_pickups(world: &mut World, n: u32) {
    world.init_resource::<PickupSettings>();
    world.init_resource::<PickupStream>();
    let mut seed: u32 = 0x2545_f491;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 * 8000.0 - 4000.0
    };
    for i in 0..n {
        let (x, y) = (next(), next());
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

fn shown_pickups(world: &World) -> usize {
    let stream = world.resource::<PickupStream>();
    (0..CLUSTERS * PER_CLUSTER)
        .map(|i| stream.shown().of(PlayerId(i)).len())
        .sum()
}

fn world_pass(c: &mut Criterion) {
    let mut group = c.benchmark_group("world streaming, 1000 players, 5000 pickups");
    group.sample_size(20);
    let (mut world, _) = full_map();
    add_pickups(&mut world, 5000);
    let mut pickups = Schedule::default();
    pickups.add_systems(pickup_reconcile);
    pickups.run(&mut world);
    let shown = shown_pickups(&world);
    assert!(shown > 1000, "players see the pickups near them ({shown})");
    group.bench_function("pickups, steady", |b| {
        b.iter(|| pickups.run(black_box(&mut world)));
    });
    assert_eq!(shown_pickups(&world), shown);
    let mut both = Schedule::default();
    both.add_systems((reconcile, pickup_reconcile).chain());
    both.run(&mut world);
    group.bench_function("players and pickups, steady", |b| {
        b.iter(|| both.run(black_box(&mut world)));
    });
    group.finish();
}

/// The dense block a teleport lands in: 2000 objects within ±50 m of this point.
const DENSE: Vec3 = Vec3::new(0.0, 3000.0, 10.0);

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
    for _ in 0..30_000 {
        let at = Vec3::new(next() * 11_800.0 - 5900.0, next() * 11_800.0 - 5900.0, 10.0);
        create_object(world, ObjectSpec::new(1225, at), None).expect("an object");
    }
    for _ in 0..2000 {
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
    let mut group = c.benchmark_group("objects, 1000 players in clusters, 32 000 objects");
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
    let mut landing = Schedule::default();
    landing.add_systems(floor_before_landing);
    landing.run(&mut world);
    let player = world
        .query::<(Entity, &Player)>()
        .iter(&world)
        .find(|(_, p)| p.id == PlayerId(0))
        .map(|(e, _)| e)
        .expect("player 0");
    group.bench_function("the floor of a teleport into 2000 objects", |b| {
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
    assert_eq!(queued, 31, "the floor");
    group.finish();
}

criterion_group!(
    benches,
    reconcile_pass,
    reconcile_density,
    world_pass,
    object_pass
);
criterion_main!(benches);
