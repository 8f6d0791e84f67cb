//! The nearest-k search that the recipients of one small cell share (ADR 0074), for a kind
//! with a cap and no distance limit (blips: the 100 nearest of the scope; gang zones).
//!
//! Recipients are grouped by a square cell of edge `edge` (half-diagonal `h`) around its
//! center `c`. One ring search from `c` finds the `cap` nearest *plain* items (admitted to
//! every active recipient of the scope: no viewer, no "never to", no parent, no own
//! distances) by horizontal distance, at most `k` from `c`. Every item within
//! `R = k + 2h + 2s` of `c` (any kind of item; `s` a float slack) is the group's
//! candidate list. For a recipient `p` of the cell (|p - c| <= h):
//!
//! - its `cap` nearest admitted items are at most `k + h` away (the plain ones are
//!   admitted, and each is at most `h` farther from `p` than from `c`);
//! - an item outside the list is more than `R - h = k + h + 2s` from `p`, 3D or not.
//!
//! So if the `cap`-th nearest of the list, for `p`, is nearer than
//! [`Shared::exact_below`] (`k + h + s`), no item outside the list can be among its `cap`
//! nearest (not even on a tie), and the list's answer is the exact one. The caller checks
//! that and searches alone otherwise (a recipient far above the items, whose 3D distances
//! exceed the horizontal bound). When the rings run out before `cap` plain items are found,
//! the list is the whole scope and every answer is exact.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::engine::{Item, Layer};
use super::grid::{FxHasher, Grid};

/// A group's candidates (slots, ascending by the items' keys) and the bound its answers
/// are exact below.
#[derive(Debug, Clone, Copy)]
pub struct Shared {
    start: usize,
    end: usize,
    /// A recipient of the group whose `cap`-th nearest candidate is nearer than this
    /// (m, 3D) has the exact answer; `INFINITY` when the list is the whole scope.
    pub exact_below: f32,
}

/// The groups of one pass, built lazily as recipients ask.
#[derive(Debug, Clone)]
pub struct Groups {
    edge: f32,
    /// The cap the lists were built for (a kind asks with one cap a pass).
    cap: usize,
    index: HashMap<(Layer, i32, i32), Shared, BuildHasherDefault<FxHasher>>,
    slots: Vec<u32>,
    /// The ring search's finds: (squared horizontal distance from the center, slot, plain).
    found: Vec<(f32, u32, bool)>,
    plain: Vec<f32>,
}

/// How far a recipient may be from its group's center, beyond the half-diagonal, before it
/// searches alone (a coordinate so large the cell index saturated).
const OFF_CENTER: f32 = 1e-3;

impl Groups {
    /// Groups in square cells of edge `edge`.
    ///
    /// # Panics
    /// If `edge` is not a finite number above 0.
    pub fn new(edge: f32) -> Self {
        assert!(
            edge.is_finite() && edge > 0.0,
            "a group cell must be finite and above 0, got {edge}"
        );
        Groups {
            edge,
            cap: 0,
            index: HashMap::default(),
            slots: Vec::new(),
            found: Vec::new(),
            plain: Vec::new(),
        }
    }

    /// Forgets every list (the items changed).
    pub fn clear(&mut self) {
        self.index.clear();
        self.slots.clear();
    }

    /// The candidates (slots, ascending by key) of the group of a recipient at (`x`, `y`) in `layer`, searched in
    /// `grid` over `items` for the `cap` nearest (the first recipient of the group pays),
    /// and the bound below which its answer is exact. `None`: the recipient searches alone
    /// (a non-finite or saturated position).
    pub fn candidates(
        &mut self,
        grid: &Grid<Layer, u32>,
        items: &[Item],
        layer: Layer,
        x: f32,
        y: f32,
        cap: usize,
    ) -> Option<(&[u32], f32)> {
        if !(x.is_finite() && y.is_finite()) || cap == 0 {
            return None;
        }
        if cap != self.cap {
            self.clear();
            self.cap = cap;
        }
        let (gx, gy) = (cell_of(x, self.edge), cell_of(y, self.edge));
        let (cx, cy) = (center_of(gx, self.edge), center_of(gy, self.edge));
        let half_diagonal = self.edge * std::f32::consts::FRAC_1_SQRT_2;
        if (x - cx).hypot(y - cy) > half_diagonal + OFF_CENTER * self.edge {
            return None;
        }
        let shared = match self.index.get(&(layer, gx, gy)) {
            Some(&shared) => shared,
            None => {
                let shared = self.search(grid, items, layer, cx, cy, half_diagonal, cap);
                self.index.insert((layer, gx, gy), shared);
                shared
            }
        };
        Some((&self.slots[shared.start..shared.end], shared.exact_below))
    }

    /// One group's ring search from its center (`cx`, `cy`).
    #[allow(
        clippy::too_many_arguments,
        reason = "the grid, the items and the group"
    )]
    fn search(
        &mut self,
        grid: &Grid<Layer, u32>,
        items: &[Item],
        layer: Layer,
        cx: f32,
        cy: f32,
        half_diagonal: f32,
        cap: usize,
    ) -> Shared {
        let Groups {
            found,
            plain,
            slots,
            ..
        } = self;
        found.clear();
        let slack = 1.0 + (cx.abs() + cy.abs()) * 1e-5;
        let mut radius = f32::INFINITY;
        let found_cell = std::cell::RefCell::new(found);
        grid.query_rings(
            layer,
            cx,
            cy,
            |slot| {
                let item = &items[slot as usize];
                let (dx, dy) = (item.position.x - cx, item.position.y - cy);
                found_cell
                    .borrow_mut()
                    .push((dx * dx + dy * dy, slot, is_plain(item)));
            },
            |reach| {
                let found = found_cell.borrow();
                plain.clear();
                plain.extend(found.iter().filter(|f| f.2).map(|f| f.0));
                if plain.len() < cap {
                    return false;
                }
                let (_, kth, _) = plain.select_nth_unstable_by(cap - 1, f32::total_cmp);
                let r = kth.sqrt() + 2.0 * (half_diagonal + slack);
                if r < reach {
                    radius = r;
                    return true;
                }
                false
            },
        );
        let found = found_cell.into_inner();
        let start = slots.len();
        if radius.is_finite() {
            let r2 = radius * radius;
            slots.extend(found.iter().filter(|f| f.0 <= r2).map(|f| f.1));
        } else {
            slots.extend(found.iter().map(|f| f.1));
        }
        // Ascending by key, as a recipient's shown set: one merge finds what is shown.
        slots[start..].sort_unstable_by_key(|&slot| items[slot as usize].key);
        Shared {
            start,
            end: slots.len(),
            exact_below: radius - half_diagonal - slack,
        }
    }
}

/// Whether every active recipient of the item's scope admits it, at any distance.
fn is_plain(item: &Item) -> bool {
    item.viewer.is_none()
        && item.not_to.is_none()
        && item.parent.is_none()
        && item.distances.is_none()
        && !item.forced
}

fn cell_of(v: f32, edge: f32) -> i32 {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "saturating on purpose; the caller checks the distance to the center"
    )]
    let c = (v / edge).floor() as i32;
    c
}

fn center_of(cell: i32, edge: f32) -> f32 {
    #[expect(
        clippy::cast_precision_loss,
        reason = "cell indices of the map are small"
    )]
    let c = (cell as f32 + 0.5) * edge;
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::geometry::Vec3;

    /// 2000 plain items over ±4000 m, as the benchmark's blips, in cells of `cell`.
    fn spread(cell: f32) -> (Grid<Layer, u32>, Vec<Item>) {
        let mut grid = Grid::new(cell);
        let mut items = Vec::new();
        let mut seed = 11u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 8000.0 - 4000.0
        };
        for key in 0..2000u32 {
            let item = Item::at(key, (0, 0), Vec3::new(next(), next(), 10.0));
            grid.insert(item.layer, item.position.x, item.position.y, key);
            items.push(item);
        }
        (grid, items)
    }

    fn nearest(items: &[Item], x: f32, y: f32, k: usize) -> Vec<u32> {
        let d2 = |i: &Item| (i.position.x - x).powi(2) + (i.position.y - y).powi(2);
        let mut all: Vec<&Item> = items.iter().collect();
        all.sort_unstable_by(|a, b| d2(a).total_cmp(&d2(b)).then(a.key.cmp(&b.key)));
        all.iter().take(k).map(|i| i.key).collect()
    }

    #[test]
    fn a_group_shares_one_short_list_that_holds_every_members_nearest() {
        let (grid, items) = spread(250.0);
        let mut groups = Groups::new(125.0);
        let (list, exact_below) = groups
            .candidates(&grid, &items, (0, 0), 10.0, 20.0, 100)
            .map(|(l, e)| (l.to_vec(), e))
            .expect("a finite position");
        assert!(
            (100..300).contains(&list.len()),
            "a few more than the 100 nearest, not every item: {}",
            list.len()
        );
        assert!(
            exact_below.is_finite() && exact_below > 500.0,
            "{exact_below}"
        );
        for (x, y) in [(0.5, 0.5), (124.0, 124.0), (60.0, 3.0), (1.0, 120.0)] {
            let (again, _) = groups
                .candidates(&grid, &items, (0, 0), x, y, 100)
                .expect("the same group");
            assert_eq!(again, list.as_slice(), "shared, not searched again");
            for key in nearest(&items, x, y, 100) {
                assert!(
                    list.contains(&key),
                    "{key}, among the 100 nearest of {x}, {y}"
                );
            }
        }
        let (other, _) = groups
            .candidates(&grid, &items, (0, 0), -10.0, 20.0, 100)
            .expect("another group");
        assert_ne!(other, list.as_slice());
    }

    #[test]
    fn too_few_plain_items_make_the_list_the_whole_scope() {
        let (grid, mut items) = spread(250.0);
        for item in items.iter_mut().skip(50) {
            item.viewer = Some(dlmp_protocol::ids::PlayerId(1));
        }
        let mut groups = Groups::new(125.0);
        let (list, exact_below) = groups
            .candidates(&grid, &items, (0, 0), 10.0, 20.0, 100)
            .expect("a finite position");
        assert_eq!((list.len(), exact_below), (2000, f32::INFINITY));
        assert!(
            groups
                .candidates(&grid, &items, (0, 0), f32::NAN, 0.0, 100)
                .is_none()
        );
        assert!(
            groups
                .candidates(&grid, &items, (0, 0), 1e30, 0.0, 100)
                .is_none(),
            "a saturated cell is not the recipient's"
        );
    }
}
