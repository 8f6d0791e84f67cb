//! A uniform-grid spatial index on the horizontal plane (x, y; z is up in the game's
//! coordinates), split into layers (a world scope). Rebuilt every pass: [`Grid::clear`],
//! then [`Grid::insert`] each item, then [`Grid::query`] around each point of interest.
//! A query visits only the cells its square touches, so its cost grows with the items
//! nearby, not with all items. I/O-free; nothing here knows about players.
//!
//! ```
//! use dlmp_core::streaming::grid::Grid;
//!
//! let mut grid: Grid<u32, usize> = Grid::new(100.0);
//! grid.insert(0, 10.0, 10.0, 1);
//! grid.insert(0, 950.0, 10.0, 2);
//! grid.insert(7, 10.0, 10.0, 3);
//! let mut near = Vec::new();
//! grid.query(0, 0.0, 0.0, 50.0, |item| near.push(item));
//! assert_eq!(near, [1]);
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A cell: its layer and integer coordinates (`floor(x / cell)`, `floor(y / cell)`).
type CellKey<L> = (L, i32, i32);

/// A uniform grid of items of type `T` (small `Copy` handles, such as slot numbers) in
/// layers `L` (items of different layers never meet).
#[derive(Debug, Clone)]
pub struct Grid<L, T> {
    cell: f32,
    cells: HashMap<CellKey<L>, Vec<T>, BuildHasherDefault<FxHasher>>,
    /// The occupied cells' bounds (x0, x1, y0, y1) over every layer since the last clear:
    /// where a ring search ends. Four comparisons an insert, no lookup.
    extent: Option<(i32, i32, i32, i32)>,
    len: usize,
}

impl<L: Copy + Eq + Hash + Ord, T: Copy> Grid<L, T> {
    /// An empty grid with square cells of edge `cell` (world units).
    ///
    /// # Panics
    /// If `cell` is not a finite number above 0.
    pub fn new(cell: f32) -> Self {
        assert!(
            cell.is_finite() && cell > 0.0,
            "a grid cell must be finite and above 0, got {cell}"
        );
        Grid {
            cell,
            cells: HashMap::default(),
            extent: None,
            len: 0,
        }
    }

    /// The edge of a cell.
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// Items inserted since the last [`clear`](Self::clear).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every item. Cells used since the previous clear keep their allocation for
    /// the next pass; cells left empty for a whole pass are dropped, so the map does not
    /// grow with every place items ever visited.
    pub fn clear(&mut self) {
        self.cells.retain(|_, items| {
            let used = !items.is_empty();
            items.clear();
            used
        });
        self.extent = None;
        self.len = 0;
    }

    fn coord(&self, v: f32) -> i32 {
        // `as` saturates: far-away coordinates land in the border cells.
        #[expect(
            clippy::cast_possible_truncation,
            reason = "saturating on purpose; callers check the exact distance"
        )]
        let c = (v / self.cell).floor() as i32;
        c
    }

    /// Adds `item` at (`x`, `y`) in `layer`. A non-finite coordinate is not indexed (it is
    /// at no distance from anything): returns false.
    pub fn insert(&mut self, layer: L, x: f32, y: f32, item: T) -> bool {
        if !(x.is_finite() && y.is_finite()) {
            return false;
        }
        let (cx, cy) = (self.coord(x), self.coord(y));
        self.cells.entry((layer, cx, cy)).or_default().push(item);
        self.extent = Some(match self.extent {
            None => (cx, cx, cy, cy),
            Some((x0, x1, y0, y1)) => (x0.min(cx), x1.max(cx), y0.min(cy), y1.max(cy)),
        });
        self.len += 1;
        true
    }

    /// Calls `f` for every item of `layer` in a cell that the square of half-edge
    /// `radius` around (`x`, `y`) touches: a superset of the items within `radius`, so the
    /// caller checks the exact distance. Cells are visited in a fixed order (by x, then
    /// y), and each cell's items in insertion order.
    pub fn query(&self, layer: L, x: f32, y: f32, radius: f32, mut f: impl FnMut(T)) {
        if !(x.is_finite() && y.is_finite()) || radius.is_nan() || radius < 0.0 {
            return;
        }
        let (x0, x1) = (self.coord(x - radius), self.coord(x + radius));
        let (y0, y1) = (self.coord(y - radius), self.coord(y + radius));
        let span = (i64::from(x1) - i64::from(x0) + 1)
            .checked_mul(i64::from(y1) - i64::from(y0) + 1)
            .and_then(|span| usize::try_from(span).ok());
        if span.is_none_or(|span| span > self.cells.len()) {
            // A radius wider than the occupied map: visit the occupied cells instead.
            let mut keys: Vec<&CellKey<L>> = self
                .cells
                .keys()
                .filter(|(l, cx, cy)| {
                    *l == layer && (x0..=x1).contains(cx) && (y0..=y1).contains(cy)
                })
                .collect();
            keys.sort_unstable();
            for key in keys {
                self.cells[key].iter().copied().for_each(&mut f);
            }
            return;
        }
        for cx in x0..=x1 {
            for cy in y0..=y1 {
                if let Some(items) = self.cells.get(&(layer, cx, cy)) {
                    items.iter().copied().for_each(&mut f);
                }
            }
        }
    }

    /// Visits the items of `layer` ring by ring of cells around (`x`, `y`), nearest rings
    /// first, for a search of the nearest few without a distance limit. After each ring,
    /// `enough(reach)` is asked: every item closer than `reach` (horizontally) has been
    /// visited; `true` stops the search. It ends by itself once the rings cover every
    /// occupied cell (of any layer: the grid keeps one bounding box, so inserts stay
    /// cheap). The cost grows with the cells out to the answer, not
    /// with every item of the map.
    pub fn query_rings(
        &self,
        layer: L,
        x: f32,
        y: f32,
        mut f: impl FnMut(T),
        mut enough: impl FnMut(f32) -> bool,
    ) {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        let Some((x0, x1, y0, y1)) = self.extent else {
            return;
        };
        let (cx, cy) = (i64::from(self.coord(x)), i64::from(self.coord(y)));
        let (x0, x1, y0, y1) = (i64::from(x0), i64::from(x1), i64::from(y0), i64::from(y1));
        // The ring that covers every occupied cell.
        let last = (cx - x0).max(x1 - cx).max(cy - y0).max(y1 - cy).max(0);
        let mut visit = |gx: i64, gy: i64| {
            if (x0..=x1).contains(&gx)
                && (y0..=y1).contains(&gy)
                && let (Ok(gx), Ok(gy)) = (i32::try_from(gx), i32::try_from(gy))
                && let Some(items) = self.cells.get(&(layer, gx, gy))
            {
                items.iter().copied().for_each(&mut f);
            }
        };
        for r in 0..=last {
            if r == 0 {
                visit(cx, cy);
            } else {
                for gx in (cx - r)..=(cx + r) {
                    visit(gx, cy - r);
                    visit(gx, cy + r);
                }
                for gy in (cy - r + 1)..=(cy + r - 1) {
                    visit(cx - r, gy);
                    visit(cx + r, gy);
                }
            }
            #[expect(clippy::cast_precision_loss, reason = "ring counts are small")]
            let reach = r as f32 * self.cell;
            if r < last && enough(reach) {
                return;
            }
        }
    }
}

/// The Fx hash (rustc's): a multiply and a rotate per word. Cell keys are a few small
/// integers, not attacker-chosen strings, so a DoS-resistant hasher buys nothing here.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_i32(&mut self, i: i32) {
        self.add(u64::from(i.cast_unsigned()));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// Changes between passes, for a kind that keeps its grid (objects, ADR 0076) instead of
/// building it again each pass.
impl<L: Copy + Eq + Hash + Ord, T: Copy + PartialEq> Grid<L, T> {
    /// Takes `item` out of the cell of (`x`, `y`) in `layer`, where it was inserted. A cell
    /// left empty is dropped. Returns whether it was there.
    pub fn remove(&mut self, layer: L, x: f32, y: f32, item: T) -> bool {
        if !(x.is_finite() && y.is_finite()) {
            return false;
        }
        let key = (layer, self.coord(x), self.coord(y));
        let Some(items) = self.cells.get_mut(&key) else {
            return false;
        };
        let Some(at) = items.iter().position(|&i| i == item) else {
            return false;
        };
        items.remove(at);
        if items.is_empty() {
            self.cells.remove(&key);
        }
        self.len -= 1;
        true
    }

    /// Renames `old` to `new` in the cell of (`x`, `y`) in `layer`, in place. Returns
    /// whether `old` was there.
    pub fn rename(&mut self, layer: L, x: f32, y: f32, old: T, new: T) -> bool {
        if !(x.is_finite() && y.is_finite()) {
            return false;
        }
        let key = (layer, self.coord(x), self.coord(y));
        let Some(slot) = self
            .cells
            .get_mut(&key)
            .and_then(|items| items.iter_mut().find(|i| **i == old))
        else {
            return false;
        };
        *slot = new;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(grid: &Grid<u8, u32>, layer: u8, x: f32, y: f32, r: f32) -> Vec<u32> {
        let mut out = Vec::new();
        grid.query(layer, x, y, r, |i| out.push(i));
        out.sort_unstable();
        out
    }

    #[test]
    fn a_query_finds_every_item_within_its_radius_and_only_nearby_cells() {
        let mut grid = Grid::new(100.0);
        let points: Vec<(f32, f32)> = (0..40)
            .flat_map(|i| (0..40).map(move |j| (i as f32 * 37.0 - 700.0, j as f32 * 41.0 - 800.0)))
            .collect();
        for (n, &(x, y)) in points.iter().enumerate() {
            grid.insert(0, x, y, n as u32);
        }
        for &(cx, cy, r) in &[
            (0.0, 0.0, 150.0),
            (-650.0, 300.0, 99.0),
            (12.5, -3.0, 420.0),
        ] {
            let found = collect(&grid, 0, cx, cy, r);
            for (n, &(x, y)) in points.iter().enumerate() {
                let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
                if d <= r {
                    assert!(found.contains(&(n as u32)), "{n} at {d} m missed");
                }
                // Nothing beyond the touched square (half-edge r, plus a cell).
                if (x - cx).abs() > r + 100.0 || (y - cy).abs() > r + 100.0 {
                    assert!(!found.contains(&(n as u32)), "{n} is far away");
                }
            }
        }
    }

    /// The `k` nearest of `layer` around (x, y) by a ring search, by (distance, item).
    fn nearest_by_rings(
        grid: &Grid<u8, u32>,
        pts: &[(f32, f32)],
        x: f32,
        y: f32,
        k: usize,
    ) -> Vec<u32> {
        let d2 = |i: u32| {
            let (px, py) = pts[i as usize];
            (px - x).powi(2) + (py - y).powi(2)
        };
        let found = std::cell::RefCell::new(Vec::new());
        grid.query_rings(
            0,
            x,
            y,
            |i| found.borrow_mut().push(i),
            |reach| {
                let found = found.borrow();
                if found.len() < k {
                    return false;
                }
                let mut d: Vec<f32> = found.iter().map(|&i| d2(i)).collect();
                d.sort_unstable_by(f32::total_cmp);
                d[k - 1] < reach * reach
            },
        );
        let mut found = found.into_inner();
        found.sort_unstable_by(|&a, &b| d2(a).total_cmp(&d2(b)).then(a.cmp(&b)));
        found.truncate(k);
        found
    }

    #[test]
    fn a_ring_search_finds_the_same_nearest_as_every_item_and_visits_fewer() {
        let mut grid: Grid<u8, u32> = Grid::new(100.0);
        let mut pts = Vec::new();
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 8000.0 - 4000.0
        };
        for i in 0..2000u32 {
            let (x, y) = (next(), next());
            pts.push((x, y));
            grid.insert(0, x, y, i);
        }
        grid.insert(1, 0.0, 0.0, 9999);
        for (x, y) in [
            (0.0, 0.0),
            (-3999.0, 3999.0),
            (5000.0, -5000.0),
            (120.5, -77.0),
        ] {
            let d2 = |i: &u32| {
                let (px, py) = pts[*i as usize];
                (px - x).powi(2) + (py - y).powi(2)
            };
            let mut all: Vec<u32> = (0..2000).collect();
            all.sort_unstable_by(|a, b| d2(a).total_cmp(&d2(b)).then(a.cmp(b)));
            all.truncate(100);
            assert_eq!(nearest_by_rings(&grid, &pts, x, y, 100), all, "at {x}, {y}");
        }
        let mut visited = 0;
        grid.query_rings(0, 0.0, 0.0, |_| visited += 1, |reach| reach > 1000.0);
        assert!(visited < 1000, "stopped early: {visited}");
        let mut other = Vec::new();
        grid.query_rings(1, 3000.0, 3000.0, |i| other.push(i), |_| false);
        assert_eq!(other, [9999], "its own layer only, found from far away");
        let mut none = 0;
        grid.query_rings(2, 0.0, 0.0, |_| none += 1, |_| false);
        assert_eq!(none, 0);
    }

    #[test]
    fn layers_never_meet() {
        let mut grid = Grid::new(50.0);
        grid.insert(1, 0.0, 0.0, 1);
        grid.insert(2, 0.0, 0.0, 2);
        assert_eq!(collect(&grid, 1, 0.0, 0.0, 10.0), [1]);
        assert_eq!(collect(&grid, 2, 0.0, 0.0, 10.0), [2]);
        assert!(collect(&grid, 3, 0.0, 0.0, 10.0).is_empty());
    }

    #[test]
    fn negative_coordinates_and_cell_borders() {
        let mut grid = Grid::new(100.0);
        grid.insert(0, -0.001, -0.001, 1);
        grid.insert(0, 0.0, 0.0, 2);
        grid.insert(0, -100.0, 100.0, 3);
        assert_eq!(collect(&grid, 0, 0.0, 0.0, 0.01), [1, 2]);
        assert_eq!(collect(&grid, 0, -99.0, 101.0, 0.5), [3]);
    }

    #[test]
    fn clear_empties_the_grid_and_drops_cells_unused_for_a_pass() {
        let mut grid = Grid::new(10.0);
        for i in 0..100 {
            grid.insert(0, i as f32 * 10.0, 0.0, i);
        }
        assert_eq!(grid.len(), 100);
        grid.clear();
        assert!(grid.is_empty());
        assert!(collect(&grid, 0, 0.0, 0.0, 2000.0).is_empty());
        assert_eq!(grid.cells.len(), 100, "kept for the next pass");
        grid.insert(0, 5.0, 5.0, 7);
        grid.clear();
        assert_eq!(
            grid.cells.len(),
            1,
            "only the cell used in the last pass stays"
        );
    }

    #[test]
    fn non_finite_points_and_radii_are_ignored() {
        let mut grid = Grid::new(10.0);
        assert!(!grid.insert(0, f32::NAN, 0.0, 1));
        assert!(!grid.insert(0, 0.0, f32::INFINITY, 2));
        assert!(
            grid.insert(0, 1e30, -1e30, 3),
            "huge but finite: a border cell"
        );
        assert_eq!(grid.len(), 1);
        assert!(collect(&grid, 0, f32::NAN, 0.0, 10.0).is_empty());
        assert!(collect(&grid, 0, 0.0, 0.0, f32::NAN).is_empty());
        assert_eq!(collect(&grid, 0, 0.0, 0.0, f32::INFINITY), [3]);
    }

    #[test]
    fn a_huge_radius_visits_occupied_cells_in_a_fixed_order() {
        let mut grid = Grid::new(10.0);
        for i in 0..20u32 {
            grid.insert(0, (19 - i) as f32 * 100.0, 0.0, i);
        }
        let mut order = Vec::new();
        grid.query(0, 0.0, 0.0, 1e9, |i| order.push(i));
        assert_eq!(order, (0..20).rev().collect::<Vec<_>>(), "by x, then y");
    }

    #[test]
    #[should_panic(expected = "a grid cell must be finite")]
    fn a_cell_of_zero_is_refused() {
        let _ = Grid::<u8, u32>::new(0.0);
    }

    #[test]
    fn remove_and_rename_change_one_cell_only() {
        let mut grid: Grid<u32, usize> = Grid::new(100.0);
        grid.insert(0, 10.0, 10.0, 1);
        grid.insert(0, 20.0, 10.0, 2);
        grid.insert(0, 950.0, 10.0, 3);
        assert!(!grid.remove(0, 950.0, 10.0, 1), "not in that cell");
        assert!(!grid.remove(1, 10.0, 10.0, 1), "not in that layer");
        assert!(grid.remove(0, 10.0, 10.0, 1));
        assert!(grid.rename(0, 950.0, 10.0, 3, 7));
        assert!(!grid.rename(0, 950.0, 10.0, 3, 8), "renamed already");
        assert_eq!(grid.len(), 2);
        let mut all = Vec::new();
        grid.query(0, 500.0, 0.0, 600.0, |i| all.push(i));
        assert_eq!(all, [2, 7]);
        assert!(grid.remove(0, 950.0, 10.0, 7));
        assert!(!grid.remove(0, f32::NAN, 10.0, 7));
    }
}
