//! Prometheus metrics (issue 17; ADR 0034): the tick records into lock-light
//! `prometheus-client` metrics, and the server's HTTP side (`dlmp-admin`, ADR 0100) encodes
//! the [`Registry`] per scrape on threads of its own. The tick never waits on a scrape: the network
//! counters are atomics read at scrape time ([`NetCollector`]), the rest are atomics
//! except the tick histogram, whose lock a scrape holds for one encode of a few buckets.

mod net;

use std::sync::Arc;
use std::time::Instant;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use std::sync::atomic::AtomicU64;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
/// The registry a scrape encodes, for the HTTP side.
pub use prometheus_client::registry::Registry;

pub use net::NetCollector;

use dlmp_core::session::SessionState;
use dlmp_core::tick::ServerSystems;
use dlmp_net::NetStats;

/// The metrics the tick writes.
#[derive(Debug)]
pub struct ServerMetrics {
    pub players: Gauge,
    pub tick_seconds: Histogram,
    pub script_errors: Counter,
    pub script_memory_bytes: Gauge,
    /// Operations waiting for the database worker.
    pub db_queue_depth: Gauge,
    /// Script time by resource (handlers, timers, database callbacks).
    pub script_seconds: Family<Vec<(String, String)>, Counter<f64, AtomicU64>>,
    /// Shown pairs (recipient, thing) by kind: players, pickups, gang_zones, checkpoints.
    pub streamed: Family<Vec<(String, String)>, Gauge>,
    /// ProjectileCreates by outcome: `accepted` or the drop's reason (weapons.md §2).
    pub launches: Family<Vec<(String, String)>, Counter>,
    /// StealthKillRequests by outcome: `accepted` or the refusal's reason (weapons.md §4).
    pub stealth_kills: Family<Vec<(String, String)>, Counter>,
    /// SatchelDetonates by outcome: `accepted` or the drop's reason (weapons.md §3).
    pub detonations: Family<Vec<(String, String)>, Counter>,
}

/// A metric's one label.
fn label(key: &str, value: &str) -> Vec<(String, String)> {
    vec![(key.to_owned(), value.to_owned())]
}

impl Default for ServerMetrics {
    fn default() -> Self {
        ServerMetrics {
            players: Gauge::default(),
            // 0.25 ms .. ~1 s, doubling: p50 and p99 of a 20 ms tick fall between buckets
            // a factor of 2 apart.
            tick_seconds: Histogram::new(exponential_buckets(0.000_25, 2.0, 13)),
            script_errors: Counter::default(),
            script_memory_bytes: Gauge::default(),
            db_queue_depth: Gauge::default(),
            script_seconds: Family::default(),
            streamed: Family::default(),
            launches: Family::default(),
            stealth_kills: Family::default(),
            detonations: Family::default(),
        }
    }
}

impl ServerMetrics {
    /// A registry with these metrics and the network counters of `net`.
    pub fn registry(self: &Arc<Self>, net: Arc<NetStats>) -> Registry {
        let mut registry = Registry::with_prefix("dlmp");
        registry.register("players", "Sessions connected now", self.players.clone());
        registry.register(
            "tick_seconds",
            "Wall time of one server tick",
            self.tick_seconds.clone(),
        );
        registry.register(
            "script_errors",
            "Script errors since start",
            self.script_errors.clone(),
        );
        registry.register(
            "script_memory_bytes",
            "Memory the Lua VM holds",
            self.script_memory_bytes.clone(),
        );
        registry.register(
            "db_queue_depth",
            "Database queries waiting for the worker",
            self.db_queue_depth.clone(),
        );
        registry.register(
            "script_seconds",
            "Time the scripts of each resource ran, on the script clock",
            self.script_seconds.clone(),
        );
        registry.register(
            "streamed",
            "Things shown to players now, recipient-thing pairs by kind",
            self.streamed.clone(),
        );
        registry.register(
            "projectile_launches",
            "ProjectileCreate packets by outcome: accepted, or the reason they were dropped",
            self.launches.clone(),
        );
        registry.register(
            "stealth_kills",
            "StealthKillRequest packets by outcome: accepted, or the reason they were refused",
            self.stealth_kills.clone(),
        );
        registry.register(
            "satchel_detonations",
            "SatchelDetonate packets by outcome: accepted, or the reason they were dropped",
            self.detonations.clone(),
        );
        registry.register_collector(Box::new(NetCollector(net)));
        registry
    }

    /// [`registry`](Self::registry) plus what the app's own parts record off the tick
    /// (the database worker's query times), read from the built app's `world`.
    pub fn registry_for(self: &Arc<Self>, net: Arc<NetStats>, world: &World) -> Registry {
        let mut registry = self.registry(net);
        if let Some(db) = world.get_resource::<crate::db::Database>() {
            registry.register(
                "db_query_seconds",
                "Wall time of one database operation on its connection",
                db.query_seconds(),
            );
        }
        registry
    }
}

/// The app's handle on the metrics.
#[derive(Resource, Debug, Clone, Default)]
pub struct Metrics(pub Arc<ServerMetrics>);

/// Records the tick's metrics. Inserted by the binary only with `metrics` set; the
/// harness has none.
pub struct MetricsPlugin {
    pub metrics: Arc<ServerMetrics>,
}

impl Plugin for MetricsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Metrics(Arc::clone(&self.metrics)))
            .add_systems(FixedUpdate, tick_started.before(ServerSystems::Ingest))
            .add_systems(FixedUpdate, record.after(ServerSystems::Outbound));
    }
}

fn tick_started(mut commands: Commands) {
    commands.insert_resource(TickStart(Instant::now()));
}

#[derive(Resource)]
struct TickStart(Instant);

/// The shown sets the streamed gauge reads.
#[derive(bevy_ecs::system::SystemParam)]
struct Streamed<'w, 's> {
    viewers: Query<'w, 's, &'static dlmp_core::viewers::Viewers>,
    checkpoints: Query<'w, 's, &'static dlmp_world::checkpoint::PlayerCheckpoints>,
    pickups: Option<Res<'w, dlmp_world::pickup::PickupStream>>,
    zones: Option<Res<'w, dlmp_world::gang_zone::GangZoneStream>>,
    labels: Option<Res<'w, dlmp_world::label::LabelStream>>,
    blips: Option<Res<'w, dlmp_world::blip::BlipStream>>,
    outlines: Option<Res<'w, dlmp_world::colshape::OutlineStream>>,
    objects: Option<Res<'w, dlmp_world::object::ObjectStream>>,
    vehicles: Option<Res<'w, dlmp_vehicle::stream::VehicleStream>>,
}

impl Streamed<'_, '_> {
    fn sizes(&self) -> [(&'static str, usize); 9] {
        [
            (
                "players",
                self.viewers.iter().map(|v| v.0.count_ones()).sum(),
            ),
            (
                "pickups",
                self.pickups.as_ref().map_or(0, |p| p.shown().total()),
            ),
            (
                "gang_zones",
                self.zones.as_ref().map_or(0, |z| z.shown().total()),
            ),
            (
                "checkpoints",
                self.checkpoints.iter().map(|c| c.shown().len()).sum(),
            ),
            (
                "labels",
                self.labels.as_ref().map_or(0, |l| l.shown().total()),
            ),
            (
                "blips",
                self.blips.as_ref().map_or(0, |b| b.shown().total()),
            ),
            (
                "colshape_outlines",
                self.outlines.as_ref().map_or(0, |o| o.shown().total()),
            ),
            (
                "objects",
                self.objects.as_ref().map_or(0, |o| o.shown().total()),
            ),
            (
                "vehicles",
                self.vehicles.as_ref().map_or(0, |v| v.shown().total()),
            ),
        ]
    }
}

fn record(
    metrics: Res<Metrics>,
    start: Option<Res<TickStart>>,
    sessions: Res<SessionState>,
    host: Option<NonSendMut<dlmp_script::ScriptHost>>,
    db: Option<Res<crate::db::Database>>,
    streamed: Streamed,
    launches: Option<Res<dlmp_player::weapons::launch::LaunchStats>>,
    (kills, detonations): (
        Option<Res<dlmp_player::weapons::stealth::StealthStats>>,
        Option<Res<dlmp_player::weapons::satchel::DetonationStats>>,
    ),
    mut errors_seen: Local<u64>,
) {
    if let Some(launches) = launches {
        for (outcome, n) in launches.counts() {
            let counter = metrics.0.launches.get_or_create(&label("outcome", outcome));
            counter.inc_by(n.saturating_sub(counter.get()));
        }
    }
    if let Some(kills) = kills {
        for (outcome, n) in kills.counts() {
            let counter = metrics
                .0
                .stealth_kills
                .get_or_create(&label("outcome", outcome));
            counter.inc_by(n.saturating_sub(counter.get()));
        }
    }
    if let Some(detonations) = detonations {
        for (outcome, n) in detonations.counts() {
            let counter = metrics
                .0
                .detonations
                .get_or_create(&label("outcome", outcome));
            counter.inc_by(n.saturating_sub(counter.get()));
        }
    }
    for (kind, n) in streamed.sizes() {
        metrics
            .0
            .streamed
            .get_or_create(&label("kind", kind))
            .set(i64::try_from(n).unwrap_or(i64::MAX));
    }
    if let Some(db) = db {
        metrics
            .0
            .db_queue_depth
            .set(i64::try_from(db.queued()).unwrap_or(i64::MAX));
    }
    let m = &metrics.0;
    if let Some(start) = start {
        m.tick_seconds.observe(start.0.elapsed().as_secs_f64());
    }
    m.players
        .set(i64::try_from(sessions.sessions.len()).unwrap_or(i64::MAX));
    if let Some(mut host) = host {
        for (resource, took) in host.take_script_time() {
            m.script_seconds
                .get_or_create(&label("resource", &resource))
                .inc_by(took.as_secs_f64());
        }
        let errors = host.errors();
        m.script_errors.inc_by(errors.saturating_sub(*errors_seen));
        *errors_seen = errors;
        m.script_memory_bytes
            .set(i64::try_from(host.used_memory()).unwrap_or(i64::MAX));
    }
}
