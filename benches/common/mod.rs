//! Set-ups shared by the benchmarks: the map of 20 clusters of 50 players, and a full
//! house of connected clients with every lane drained.
#![allow(dead_code, reason = "each benchmark uses its own part")]

use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::session::{Connection, PlayerIndex};

pub(crate) const CLUSTERS: u32 = 20;
pub(crate) const PER_CLUSTER: u32 = 50;

/// Where player `i` stands: cluster `i / 50` on a 5 × 4 lattice over the map (1200 m by
/// 1500 m apart), spread within 100 m of its center on a sunflower pattern.
pub(crate) fn cluster_position(i: u32) -> Vec3 {
    let (cluster, j) = (i / PER_CLUSTER, i % PER_CLUSTER);
    let cx = -2400.0 + (cluster % 5) as f32 * 1200.0;
    let cy = -2250.0 + (cluster / 5) as f32 * 1500.0;
    let r = 100.0 * (j as f32 / PER_CLUSTER as f32).sqrt();
    let angle = j as f32 * 2.399_963;
    Vec3::new(cx + r * angle.cos(), cy + r * angle.sin(), 10.0)
}

/// Clusters a row of [`spread_position`] holds.
pub(crate) const SPREAD_COLUMNS: u32 = 10;

/// Where player `i` stands when the map holds more clusters of 50 at the same density:
/// cluster `i / 50` on a lattice of [`SPREAD_COLUMNS`] columns (1200 m by 1500 m apart,
/// up to 8 rows within the world's ±6000 m), spread as in [`cluster_position`].
pub(crate) fn spread_position(i: u32) -> Vec3 {
    let (cluster, j) = (i / PER_CLUSTER, i % PER_CLUSTER);
    let cx = -5400.0 + (cluster % SPREAD_COLUMNS) as f32 * 1200.0;
    let cy = -5250.0 + (cluster / SPREAD_COLUMNS) as f32 * 1500.0;
    let r = 100.0 * (j as f32 / PER_CLUSTER as f32).sqrt();
    let angle = j as f32 * 2.399_963;
    Vec3::new(cx + r * angle.cos(), cy + r * angle.sin(), 10.0)
}

/// Events waiting in every lane and roster backlog.
fn waiting(h: &mut Harness) -> usize {
    let world = h.world_mut();
    world
        .query::<&Connection>()
        .iter(world)
        .map(|c| c.waiting() + c.roster_backlog())
        .sum()
}

/// Steps (the clients auto-ack) until every lane is empty; panics past `max_ticks`.
pub(crate) fn drain(h: &mut Harness, max_ticks: usize) {
    for _ in 0..max_ticks {
        if waiting(h) == 0 {
            return;
        }
        h.step();
    }
    assert_eq!(waiting(h), 0, "the lanes did not drain");
}

/// `players` connected clients with every lane empty and what they were sent forgotten.
///
/// Hellos go in by the hundred, a chunk a tick (connecting one client per tick costs O(n²)
/// in the harness, as each step delivers to every client). Each newcomer then gets the other
/// players' PlayerJoins, paced through its lane, until every lane is drained. Idle clients
/// send nothing, so their session timeout is raised for the whole run.
pub(crate) fn full_house(players: u32) -> (Harness, Vec<ClientId>) {
    full_house_with(players, Harness::config())
}

/// [`full_house`] on a server of `base` (a gamemode's scripts folder,
/// [`dlmp::harness::TempScripts::config`]).
pub(crate) fn full_house_with(players: u32, base: Config) -> (Harness, Vec<ClientId>) {
    let mut h = Harness::with_config(Config {
        max_players: u16::try_from(players).expect("fits u16"),
        session_timeout_ms: 24 * 3600 * 1000,
        ..base
    });
    let clients: Vec<ClientId> = (0..players).map(|_| h.add_client()).collect();
    // A chunk of hellos a tick, each proven at once: a server allows a quarter of its slots
    // unproven (ADR 0018).
    let chunk = dlmp::session::default_max_unproven(u16::try_from(players).expect("fits u16"));
    for (n, part) in clients.chunks(chunk).enumerate() {
        for (i, &c) in part.iter().enumerate() {
            let hello = h.client_hello(c, &format!("player{:04}", n * chunk + i));
            h.send(c, hello);
        }
        h.step();
        // The proofs land before the next chunk's hellos: ingest takes hellos first, so a
        // chunk still unproven in that tick would fill the unproven cap.
        for &c in part {
            h.prove(c);
        }
        h.step();
    }
    drain(&mut h, 2000);
    assert_eq!(
        h.world().resource::<PlayerIndex>().len(),
        players as usize,
        "not every client is connected"
    );
    for &c in &clients {
        h.clear(c);
    }
    (h, clients)
}

/// The stopwatch of a timed section: wall time, or with `DLMP_BENCH_CPU=1` the calling
/// thread's CPU time, which a busy machine (other builds on the cores) inflates far less;
/// for comparing two builds while the machine is shared. The README's figures are wall
/// time on an idle machine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stopwatch {
    cpu: bool,
    start: Duration,
}

#[allow(dead_code, reason = "not every bench times sections")]
impl Stopwatch {
    pub(crate) fn start() -> Self {
        let cpu = std::env::var_os("DLMP_BENCH_CPU").is_some_and(|v| v == "1");
        Stopwatch {
            cpu,
            start: Self::now(cpu),
        }
    }

    pub(crate) fn elapsed(&self) -> Duration {
        Self::now(self.cpu).saturating_sub(self.start)
    }

    fn now(cpu: bool) -> Duration {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        if cpu && let Ok(t) = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        {
            return Duration::new(
                u64::try_from(t.tv_sec()).unwrap_or(0),
                u32::try_from(t.tv_nsec()).unwrap_or(0),
            );
        }
        EPOCH.get_or_init(std::time::Instant::now).elapsed()
    }
}
