//! Decoding and encoding never touch the heap: every fixture is decoded through its
//! direction's enum and encoded into a stack buffer under a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use dlmp_protocol::bundle;
use dlmp_protocol::query::QUERY_IDS;
use dlmp_protocol::sample;
use dlmp_protocol::{ClientPacket, Direction, MAX_DATAGRAM, ServerPacket};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
#[expect(unsafe_code, reason = "a global allocator is an unsafe trait")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn decode_and_encode_of_every_packet_do_not_allocate() {
    // The server query's answers carry lists and are built on the network thread, outside
    // the game's codec (query.md; src/net/query/): they are not part of this promise.
    let cases: Vec<_> = sample::all()
        .iter()
        .filter(|s| !QUERY_IDS.contains(&s.id()))
        .map(|s| {
            (
                s.file(),
                s.direction(),
                s.encode().expect("fixture encodes"),
            )
        })
        .collect();
    assert!(!cases.is_empty());
    // The packer's buffer is made before: packing into it allocates nothing.
    let mut packer = bundle::Packer::new();
    let mut packed = Vec::with_capacity(MAX_DATAGRAM);
    for (file, dir, bytes) in &cases {
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = allocations_during(|| match dir {
            Direction::ClientToServer => {
                let p = ClientPacket::decode(bytes).expect("valid");
                p.encode(&mut buf).expect("encodes");
            }
            Direction::ServerToClient if bytes[0] == bundle::BUNDLE_ID => {
                // Check, unpack, decode and pack again: none of it allocates.
                let parsed = bundle::Bundle::parse(bytes).expect("valid");
                let mut datagrams = 0;
                for p in parsed.packets() {
                    let n = p.expect("valid").encode(&mut buf).expect("encodes");
                    packer.add(&mut packed, &buf[..n], |_, _| datagrams += 1);
                }
                packer.finish(&mut packed, |_, _| datagrams += 1);
                packed.clear();
                assert_eq!(datagrams, 1);
            }
            Direction::ServerToClient => {
                let p = ServerPacket::decode(bytes).expect("valid");
                p.encode(&mut buf).expect("encodes");
            }
        });
        assert_eq!(n, 0, "{file}: {n} allocations");
    }
}

#[test]
fn rejecting_garbage_does_not_allocate() {
    let garbage = [
        0x03u8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x80,
    ];
    let n = allocations_during(|| {
        for len in 0..garbage.len() {
            let _ = ClientPacket::decode(&garbage[..len]);
            let _ = ServerPacket::decode(&garbage[..len]);
        }
    });
    assert_eq!(n, 0);
}

#[test]
fn the_counter_sees_an_allocation() {
    let n = allocations_during(|| {
        std::hint::black_box(vec![1u8; 16]);
    });
    assert_eq!(n, 1);
}
