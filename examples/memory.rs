//! Live heap per connected player (issue 11, "memory linear in players"): connects N
//! virtual clients in the harness, lets every roster drain and every lane be acknowledged,
//! and prints the heap still allocated. `cargo run --example memory -- 100 200 400`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use dlmp::config::Config;
use dlmp::harness::Harness;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
#[expect(unsafe_code, reason = "a global allocator is an unsafe trait")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's pointer and layout, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    for n in if sizes.is_empty() {
        vec![100, 200]
    } else {
        sizes
    } {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let mut h = Harness::with_config(Config {
            max_players: u16::try_from(n + 1).unwrap_or(u16::MAX),
            ..Harness::config()
        });
        let clients: Vec<_> = (0..n).map(|i| h.connect(&format!("p{i:04}"))).collect();
        // Every roster drains at 64 events a tick.
        h.steps(n / 64 + 40);
        for c in clients {
            h.clear(c);
        }
        h.steps(5);
        let live = LIVE.load(Ordering::Relaxed) - base;
        let peak = PEAK.load(Ordering::Relaxed) - base;
        println!(
            "{n:>5} players: live {:>8.2} MiB ({:>6.1} KiB a player), peak {:>8.2} MiB",
            live as f64 / 1048576.0,
            live as f64 / 1024.0 / n as f64,
            peak as f64 / 1048576.0,
        );
        drop(h);
    }
}
