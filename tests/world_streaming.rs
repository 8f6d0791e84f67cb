//! The one streaming engine (ADR 0027): property tests of the decision (a shown set never
//! exceeds its cap and converges to the nearest within it; an item's own distances, ADR
//! 0045) and, through the pickups in the
//! harness, of the lane half (a hide always precedes the next show of the same thing;
//! caps filled nearest first and refilled as players move).

use dlmp::harness::{ClientId, Harness};
use dlmp::lane::Delivery;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::PlayerId;
use dlmp::protocol::world::pickup::PickupSync;
use dlmp::streaming::engine::{Decision, Engine, Everyone, Item, Rules, Viewpoint, admits};
use dlmp::streaming::players::Distances;
use dlmp::world::pickup::{Behavior, PickupCommand, PickupSpec, Pickups};
use dlmp_core::position::Position;
use proptest::prelude::*;

fn rules(show: f32, cap: Option<usize>) -> Rules {
    Rules {
        distances: Some(Distances::new(show, 10.0, None)),
        cap,
    }
}

fn engine_with(points: &[(f32, f32)]) -> Engine {
    let mut e = Engine::new(50.0);
    for (k, &(x, y)) in points.iter().enumerate() {
        e.insert(Item::at(k as u32, (0, 0), Vec3::new(x, y, 0.0)));
    }
    e
}

/// The shown set after acting on `d` with a lane that takes everything.
fn step(shown: &mut Vec<u32>, d: &Decision) {
    shown.retain(|k| !d.hides.contains(k));
    shown.extend(&d.shows);
    shown.sort_unstable();
}

fn point() -> impl Strategy<Value = (f32, f32)> {
    (-400.0f32..400.0, -400.0f32..400.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_shown_set_never_exceeds_its_cap_and_converges_to_the_nearest(
        points in prop::collection::vec(point(), 0..60),
        walk in prop::collection::vec(point(), 1..6),
        cap in 0usize..12,
    ) {
        let e = &mut engine_with(&points);
        let r = rules(150.0, Some(cap));
        let mut shown = Vec::new();
        let mut d = Decision::default();
        for &(x, y) in &walk {
            let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(x, y, 0.0));
            e.decide(&r, &me, &shown, &Everyone, &mut d);
            step(&mut shown, &d);
            prop_assert!(shown.len() <= cap, "{} shown over a cap of {cap}", shown.len());
            // A second pass changes nothing: the set has converged.
            e.decide(&r, &me, &shown, &Everyone, &mut d);
            prop_assert!(d.hides.is_empty() && d.shows.is_empty(), "{d:?}");
            // Nearest: nothing within the show distance that is left out is nearer than
            // something shown (ties by key).
            let dist = |k: u32| {
                let (px, py) = points[k as usize];
                ((px - x).powi(2) + (py - y).powi(2)).sqrt()
            };
            let farthest = shown.iter().map(|&k| (dist(k), k)).fold(None, |m: Option<(f32, u32)>, v| {
                Some(m.map_or(v, |m| if v.0 > m.0 || (v.0 == m.0 && v.1 > m.1) { v } else { m }))
            });
            for k in 0..points.len() as u32 {
                if shown.contains(&k) || dist(k) > 150.0 {
                    continue;
                }
                prop_assert!(shown.len() == cap, "{k} at {} left out below the cap", dist(k));
                if let Some((fd, fk)) = farthest {
                    prop_assert!((dist(k), k) > (fd, fk), "{k} at {} is nearer than {fk} at {fd}", dist(k));
                }
            }
        }
    }

    #[test]
    fn an_items_own_distance_decides_for_it_with_its_hysteresis(
        points in prop::collection::vec((point(), 1.0f32..150.0), 0..60),
        (x, y) in point(),
        (mx, my) in point(),
    ) {
        // Labels and blips: each item its own draw distance within the rules' (ADR 0045).
        let mut e = Engine::new(75.0);
        for (k, &((px, py), reach)) in points.iter().enumerate() {
            e.insert(Item {
                distances: Some(Distances::new(reach, 10.0, None)),
                ..Item::at(k as u32, (0, 0), Vec3::new(px, py, 0.0))
            });
        }
        let r = rules(150.0, None);
        let dist = |k: usize, (x, y): (f32, f32)| {
            let ((px, py), _) = points[k];
            ((px - x).powi(2) + (py - y).powi(2)).sqrt()
        };
        let mut shown = Vec::new();
        let mut d = Decision::default();
        e.decide(&r, &Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(x, y, 0.0)), &shown, &Everyone, &mut d);
        step(&mut shown, &d);
        for (k, &(_, reach)) in points.iter().enumerate() {
            let within = dist(k, (x, y)) <= reach;
            prop_assert_eq!(shown.contains(&(k as u32)), within, "{} at {} with {}", k, dist(k, (x, y)), reach);
        }
        e.decide(&r, &Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(mx, my, 0.0)), &shown, &Everyone, &mut d);
        for (k, &(_, reach)) in points.iter().enumerate() {
            let (was, now) = (shown.contains(&(k as u32)), dist(k, (mx, my)));
            if was && now <= reach + 10.0 {
                prop_assert!(!d.hides.contains(&(k as u32)), "{} kept within its hysteresis", k);
            }
            if now > reach + 10.0 {
                prop_assert!(!was || d.hides.contains(&(k as u32)), "{} hidden past its hysteresis", k);
            }
        }
    }

    #[test]
    fn without_a_cap_the_set_is_everything_admitted(
        points in prop::collection::vec(point(), 0..60),
        (x, y) in point(),
    ) {
        let e = &mut engine_with(&points);
        let me = Viewpoint::at(PlayerId(0), (0, 0), Vec3::new(x, y, 0.0));
        let mut d = Decision::default();
        e.decide(&rules(150.0, None), &me, &[], &Everyone, &mut d);
        let mut want: Vec<u32> = (0..points.len() as u32)
            .filter(|&k| {
                let (px, py) = points[k as usize];
                (px - x).powi(2) + (py - y).powi(2) <= 150.0 * 150.0
            })
            .collect();
        let mut got = d.shows.clone();
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }
}

/// One item of the brute-force test: plain, or with one of the rules that make it some
/// recipients' only (ADR 0074: the shared lists count plain items alone).
fn varied_item(key: u32, (x, y): (f32, f32), z: f32, kind: u8) -> Item {
    let mut item = Item::at(key, (0, 0), Vec3::new(x, y, z));
    match kind {
        0 => item.viewer = Some(PlayerId(1)),
        1 => item.not_to = Some(PlayerId(0)),
        2 => item.layer = (1, 0),
        3 => item.distances = Some(Distances::new(120.0, 10.0, None)),
        _ => {}
    }
    item
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Without a distance limit the cap holds the nearest of the scope (blips, gang zones):
    /// whatever the engine shares between recipients of one cell, each recipient's set
    /// after one pass is exactly the brute force's `cap` nearest of every item it admits
    /// (ties by key), reached from any shown set, with the shows nearest first.
    #[test]
    fn without_a_distance_the_cap_holds_the_brute_force_nearest_of_the_scope(
        items in prop::collection::vec((point(), -20.0f32..20.0, 0u8..12), 0..160),
        viewers in prop::collection::vec(
            ((-80.0f32..80.0, -80.0f32..80.0), prop_oneof![Just(0.0f32), -500.0f32..500.0], 0u32..3, any::<u64>()),
            1..16,
        ),
        cap in 1usize..24,
        cell in prop_oneof![Just(20.0f32), Just(50.0), Just(400.0)],
    ) {
        let mut e = Engine::new(cell);
        for (k, &(at, z, kind)) in items.iter().enumerate() {
            e.insert(varied_item(k as u32, at, z, kind));
        }
        let r = Rules { distances: None, cap: Some(cap) };
        let mut d = Decision::default();
        for &((x, y), z, id, seed) in &viewers {
            let layer = if id == 2 && seed % 3 == 0 { (1, 0) } else { (0, 0) };
            let me = Viewpoint::at(PlayerId(id), layer, Vec3::new(x, y, z));
            // Shown now: a pseudo-random subset of the keys.
            let mut shown: Vec<u32> = (0..items.len() as u32)
                .filter(|k| (seed >> (k % 64)) & 1 == 1 && (seed.rotate_left(*k)) % 5 == 0)
                .collect();
            e.decide(&r, &me, &shown, &Everyone, &mut d);
            let dist2 = |k: u32| {
                let item = e.item(k).expect("inserted");
                let p = item.position;
                (p.x - x).powi(2) + (p.y - y).powi(2) + (p.z - z).powi(2)
            };
            let mut want: Vec<u32> = (0..items.len() as u32)
                .filter(|&k| {
                    let was = shown.binary_search(&k).is_ok();
                    admits(&r, &me, e.item(k).expect("inserted"), was, &Everyone).is_some()
                })
                .collect();
            want.sort_unstable_by(|&a, &b| dist2(a).total_cmp(&dist2(b)).then(a.cmp(&b)));
            want.truncate(cap);
            want.sort_unstable();
            prop_assert!(d.hides.iter().all(|k| shown.contains(k)), "{d:?}");
            let order: Vec<(f32, u32)> = d.shows.iter().map(|&k| (dist2(k), k)).collect();
            prop_assert!(order.windows(2).all(|w| w[0].0.total_cmp(&w[1].0).then(w[0].1.cmp(&w[1].1)).is_lt()), "nearest first: {order:?}");
            step(&mut shown, &d);
            prop_assert_eq!(&shown, &want, "at {}, {}, {} for {}", x, y, z, id);
        }
    }
}

/// A harness with `n` pickups along the x axis every `gap` m from 10 m, made through the
/// feature's command (as a Rust plugin would).
fn with_pickups(n: u32, gap: f32) -> Harness {
    let mut h = Harness::new();
    h.step();
    for i in 0..n {
        let id = h.world().resource::<Pickups>().reserve().expect("ids left");
        h.world_mut().write_message(PickupCommand::Create {
            id,
            spec: PickupSpec {
                model: 346,
                position: Vec3::new(10.0 + i as f32 * gap, 0.0, 0.0),
                scale: 1.0,
                highlight: true,
                behavior: Behavior::Collectible,
                respawn: None,
                scope: Default::default(),
            },
            owner: None,
        });
    }
    h.step();
    h
}

fn lines(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<PickupSync>(c)
        .iter()
        .map(|p| (p.pickup_id.0, p.active))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn a_hide_always_precedes_the_next_show_of_the_same_thing(
        walk in prop::collection::vec((-300.0f32..700.0, any::<bool>()), 1..12),
    ) {
        let mut h = with_pickups(20, 25.0);
        let a = h.connect("alice");
        h.spawn(a, Vec3::ZERO);
        for &(x, full) in &walk {
            if full {
                h.set_auto_ack(a, false);
                h.fill_lane(a, Delivery::Droppable, 1);
            }
            // Written: with the lane full a teleport is refused (its TeleportPlayer needs
            // the room the test keeps taken), and the walk is what is tested.
            h.with::<Position>(a, |p| p.0 = Vec3::new(x, 0.0, 0.0));
            h.steps(2);
            if full {
                h.release_lane(a);
            }
        }
        h.release_lane(a);
        let log = lines(&h, a);
        for id in 1..=20u32 {
            let states: Vec<bool> = log.iter().filter(|l| l.0 == id).map(|l| l.1).collect();
            for (n, pair) in states.windows(2).enumerate() {
                prop_assert!(pair[0] != pair[1], "pickup {id}: {states:?} at {n}");
            }
            prop_assert!(states.first().is_none_or(|s| *s), "pickup {id} starts with a show");
        }
    }
}

#[test]
fn shows_go_nearest_first_and_follow_the_player() {
    let mut h = with_pickups(5, 100.0); // at 10, 110, 210, 310, 410
    let a = h.connect("alice");
    h.spawn(a, Vec3::new(400.0, 0.0, 0.0));
    assert_eq!(lines(&h, a), [(5, true), (4, true)], "410 then 310");
    h.teleport(a, Vec3::ZERO);
    assert_eq!(
        lines(&h, a),
        [
            (5, true),
            (4, true),
            (4, false),
            (5, false),
            (1, true),
            (2, true)
        ]
    );
}

#[test]
fn a_full_lane_fills_the_nearest_first_and_the_rest_follow() {
    let mut h = with_pickups(4, 30.0); // at 10, 40, 70, 100
    let a = h.connect("alice");
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Droppable, 2);
    h.spawn(a, Vec3::new(100.0, 0.0, 0.0));
    h.release_lane(a);
    assert_eq!(
        lines(&h, a),
        [(4, true), (3, true), (2, true), (1, true)],
        "the two nearest took the room; the others the next pass"
    );
}
