//! Home positions of the bots and the pairs that must see each other.

use crate::cli::Shape;

/// Players per city cluster (issue 11).
pub const CLUSTER: usize = 50;
/// A bot walks a circle of this radius around its home, m.
pub const WALK_RADIUS: f32 = 8.0;
/// Shown within this distance (player.md, Player streaming; hidden past 460 m, so pairs
/// between the two are neither due nor excluded).
pub const SHOW: f32 = 420.0;
/// Half the map: |x|, |y| <= 6000 (player.md, Admission); bots keep a margin.
const HALF_MAP: f32 = 5900.0;
/// Cluster centres lie this far apart: beyond HIDE plus both walks, so clusters never
/// see each other.
const CLUSTER_SPACING: f32 = 600.0;
/// Bots of a cluster stand within this radius of its centre, m.
const CLUSTER_RADIUS: f32 = 40.0;
/// Ground height of every home, m.
pub const HOME_Z: f32 = 20.0;

/// A tiny deterministic generator (SplitMix64): positions repeat for one seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + unit * (hi - lo)
    }
}

/// `(x, y)` of every bot's home.
pub fn homes(shape: Shape, bots: usize, seed: u64) -> Vec<(f32, f32)> {
    let mut rng = Rng::new(seed);
    match shape {
        Shape::Spread => (0..bots)
            .map(|_| {
                (
                    rng.range(-HALF_MAP, HALF_MAP),
                    rng.range(-HALF_MAP, HALF_MAP),
                )
            })
            .collect(),
        Shape::City => {
            let per_row = ((2.0 * HALF_MAP) / CLUSTER_SPACING) as usize;
            (0..bots)
                .map(|i| {
                    let cluster = i / CLUSTER;
                    let cx = -HALF_MAP + CLUSTER_SPACING * (cluster % per_row) as f32;
                    let cy = -HALF_MAP + CLUSTER_SPACING * (cluster / per_row) as f32;
                    (
                        cx + rng.range(-CLUSTER_RADIUS, CLUSTER_RADIUS),
                        cy + rng.range(-CLUSTER_RADIUS, CLUSTER_RADIUS),
                    )
                })
                .collect()
        }
    }
}

/// Vehicles are shown within this distance (vehicles.md, VehicleSync; no hysteresis).
pub const VEHICLE_SHOW: f32 = 200.0;

/// For each bot, the bots that are always within `show` of it wherever both are on their
/// ways (sorted), bot `i` reaching `reach(i)` from its home: every frame of theirs is due
/// to it. Pairs that may be farther (for players, in the hysteresis band) are in no list.
pub fn due_within(homes: &[(f32, f32)], show: f32, reach: impl Fn(usize) -> f32) -> Vec<Vec<u32>> {
    let cell = show;
    let key = |x: f32, y: f32| ((x / cell).floor() as i64, (y / cell).floor() as i64);
    let mut grid: std::collections::HashMap<(i64, i64), Vec<u32>> =
        std::collections::HashMap::new();
    for (i, &(x, y)) in homes.iter().enumerate() {
        grid.entry(key(x, y)).or_default().push(i as u32);
    }
    homes
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| {
            let (kx, ky) = key(x, y);
            let mut near = Vec::new();
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for &j in grid.get(&(kx + dx, ky + dy)).into_iter().flatten() {
                        let (jx, jy) = homes[j as usize];
                        let within = show - reach(i) - reach(j as usize);
                        if j as usize != i && (jx - x).hypot(jy - y) <= within {
                            near.push(j);
                        }
                    }
                }
            }
            near.sort_unstable();
            near
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_city_cluster_sees_all_of_itself_and_nothing_else() {
        let homes = homes(Shape::City, 2 * CLUSTER, 7);
        let due = due_within(&homes, SHOW, |_| WALK_RADIUS);
        assert!(due[..CLUSTER].iter().all(|d| d.len() == CLUSTER - 1));
        assert!(due[0].iter().all(|&j| (j as usize) < CLUSTER));
    }

    #[test]
    fn a_city_clusters_walkers_are_due_its_vehicles_frames() {
        let homes = homes(Shape::City, CLUSTER, 3);
        let reach = crate::drive::PATH_REACH;
        let due = due_within(&homes, VEHICLE_SHOW, |i| {
            if i == 0 { reach } else { WALK_RADIUS }
        });
        assert_eq!(
            due[0].len(),
            CLUSTER - 1,
            "everyone sees the driver's vehicle"
        );
    }
}
