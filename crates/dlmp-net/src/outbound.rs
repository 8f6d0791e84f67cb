//! The app's bounded path to the sending threads, with backpressure it sees
//! (docs/decisions/0025-network-thread.md).
//!
//! Nothing here blocks the tick. A tick's datagrams are written through one [`Writer`]
//! into [`Shipment`]s, a chunk of datagrams in one buffer per channel operation
//! (docs/decisions/0080-one-outbound-arena.md); [`Outbound::send`] is one datagram alone.
//! The queue of each sending thread holds at most `capacity` datagrams, counted as they
//! are handed over and as the thread sends them. Past [`SHED_FRACTION`] of that, a relay
//! whose next frame supersedes it (RemotePlayerSync, RemoteVehicleFrame) is shed, so the room left goes to
//! lane events, acks, handshakes and bundles. A full queue sheds anything; a lane event lost
//! that way is resent by its lane (connection.md §3), as if the network had lost it. Every
//! shed is counted in [`NetStats`] by [`ShedReason`] (and as a send error), and `send`
//! returns it to the caller.
//! [`Outbound::queued`] tells the app how far behind the sending threads are.
//!
//! Datagrams for one address always go to the same sending thread, so they leave in the
//! order the app queued them (a Go-Back-N receiver drops an event that overtook another).

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::net::SocketAddr;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, SendError, Sender};

use super::shipment::{Addressed, Shipment, ShipmentPool};
use super::{Datagram, NetStats};
use dlmp_protocol::Packet;
use dlmp_protocol::bundle::{BUNDLE_ID, Bundle, Packer};
use dlmp_protocol::player::sync::RemotePlayerSync;
use dlmp_protocol::vehicle::frame::RemoteVehicleFrame;

/// A relay is shed once its sending thread's queue is this full.
pub const SHED_FRACTION: f64 = 0.75;

/// Why [`Outbound::send`] did not queue a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShedReason {
    /// A superseded-by-the-next-frame relay, past [`SHED_FRACTION`] of the queue.
    Relay,
    /// The queue was full.
    Full,
    /// The network thread has stopped.
    Closed,
}

impl ShedReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ShedReason::Relay => "relay",
            ShedReason::Full => "full",
            ShedReason::Closed => "closed",
        }
    }
}

impl std::fmt::Display for ShedReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ShedReason::Relay => "relay shed: the outbound queue is congested",
            ShedReason::Full => "the outbound queue is full",
            ShedReason::Closed => "the network thread has stopped",
        })
    }
}

impl std::error::Error for ShedReason {}

/// One sending thread's queue, as the app sees it.
#[derive(Debug)]
struct Shard {
    tx: Sender<Shipment>,
    /// Datagrams handed over and not yet sent: the queue's length, in datagrams.
    queued: Arc<AtomicUsize>,
}

/// The app's end of the outbound queues; cheap to clone.
#[derive(Debug, Clone)]
pub struct Outbound {
    shards: Arc<[Shard]>,
    /// Datagrams per shard; `None` for an unbounded queue (the harness).
    capacity: Option<usize>,
    shed_at: usize,
    stats: Arc<NetStats>,
    /// Sent shipments, back from the sending threads.
    pool: ShipmentPool,
}

impl Outbound {
    /// `shards` bounded queues of `capacity` datagrams each (0 counts as 1), and their
    /// receiving ends, one per sending thread.
    pub fn bounded(
        capacity: usize,
        shards: usize,
        stats: Arc<NetStats>,
    ) -> (Outbound, Vec<Shipments>) {
        let capacity = capacity.max(1);
        let shed_at = ((capacity as f64 * SHED_FRACTION) as usize).max(1);
        Self::with_shards(shards.max(1), Some(capacity), shed_at, stats)
    }

    /// One unbounded queue: nothing is ever shed (the test harness reads it each step).
    pub fn unbounded(stats: Arc<NetStats>) -> (Outbound, Shipments) {
        let (outbound, mut queues) = Self::with_shards(1, None, usize::MAX, stats);
        (outbound, queues.remove(0))
    }

    fn with_shards(
        shards: usize,
        capacity: Option<usize>,
        shed_at: usize,
        stats: Arc<NetStats>,
    ) -> (Outbound, Vec<Shipments>) {
        let pool = ShipmentPool::default();
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..shards)
            .map(|_| {
                let (tx, rx) = crossbeam_channel::unbounded();
                let queued = Arc::new(AtomicUsize::new(0));
                let queue = Shipments {
                    rx,
                    queued: Arc::clone(&queued),
                    pool: pool.clone(),
                };
                (Shard { tx, queued }, queue)
            })
            .unzip();
        let outbound = Outbound {
            shards: senders.into(),
            capacity,
            shed_at,
            stats,
            pool,
        };
        (outbound, receivers)
    }

    /// Queues `datagram` for its address's sending thread, or sheds it (counted) and says
    /// why. Never blocks. A tick's many datagrams go through one [`Writer`] instead.
    pub fn send(&self, datagram: Datagram) -> Result<(), ShedReason> {
        let mut writer = self.writer();
        writer.push(datagram.to, &datagram.bytes)?;
        writer.close()
    }

    /// Where a batch of datagrams is written, each shard's in one shipment handed over a
    /// chunk at a time and when the writer is dropped.
    pub fn writer(&self) -> Writer<'_> {
        Writer {
            outbound: self,
            open: (0..self.shards.len()).map(|_| None).collect(),
        }
    }

    /// The pool a shipment comes from and a sent one goes back to.
    pub fn pool(&self) -> &ShipmentPool {
        &self.pool
    }

    /// Datagrams waiting for the sending threads, all shards together.
    pub fn queued(&self) -> usize {
        self.shards.iter().map(Shard::len).sum()
    }

    /// What all shards hold at most; `None` when unbounded.
    pub fn capacity(&self) -> Option<usize> {
        self.capacity.map(|c| c * self.shards.len())
    }

    /// A relay would be shed now on some shard: the app may send less this tick.
    pub fn is_congested(&self) -> bool {
        self.shards.iter().any(|s| s.len() >= self.shed_at)
    }

    fn shard_of(&self, to: SocketAddr) -> usize {
        if self.shards.len() == 1 {
            return 0;
        }
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(to);
        (hash % self.shards.len() as u64) as usize
    }

    /// Hands `shipment` to shard `i`'s thread; a stopped thread's is shed, each datagram
    /// counted.
    fn hand_over(&self, i: usize, shipment: Shipment) -> Result<(), ShedReason> {
        let n = shipment.len();
        if n == 0 {
            self.pool.give(shipment);
            return Ok(());
        }
        let shard = &self.shards[i];
        shard.queued.fetch_add(n, Ordering::AcqRel);
        let Err(SendError(shipment)) = shard.tx.send(shipment) else {
            return Ok(());
        };
        shard.queued.fetch_sub(n, Ordering::AcqRel);
        for _ in 0..n {
            self.stats.count_shed(ShedReason::Closed);
            self.stats.send_error();
        }
        self.pool.give(shipment);
        Err(ShedReason::Closed)
    }
}

impl Shard {
    fn len(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }
}

/// A sending thread's end of its queue: shipments in the order the app handed them over.
#[derive(Debug)]
pub struct Shipments {
    rx: Receiver<Shipment>,
    queued: Arc<AtomicUsize>,
    pool: ShipmentPool,
}

impl Shipments {
    /// The next shipment, without waiting.
    pub fn try_recv(&self) -> Option<Shipment> {
        self.rx.try_recv().ok()
    }

    /// The next shipment, waiting at most `wait`.
    pub fn recv_timeout(&self, wait: Duration) -> Result<Shipment, RecvTimeoutError> {
        self.rx.recv_timeout(wait)
    }

    /// Shipments waiting.
    pub fn len(&self) -> usize {
        self.rx.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }

    /// `n` datagrams of a received shipment have left (or failed): the app's queue has
    /// room for as many again.
    pub fn sent(&self, n: usize) {
        self.queued.fetch_sub(n, Ordering::AcqRel);
    }

    /// A shipment all of whose datagrams were reported [`sent`](Self::sent), back to the
    /// pool.
    pub fn recycle(&self, shipment: Shipment) {
        self.pool.give(shipment);
    }

    /// A whole shipment done: [`sent`](Self::sent) and [`recycle`](Self::recycle).
    pub fn done(&self, shipment: Shipment) {
        self.sent(shipment.len());
        self.recycle(shipment);
    }
}

/// Writes datagrams into one open shipment per shard; dropping it hands over what is
/// left. Datagrams for one address keep their order: one shard, shipments handed over in
/// turn.
#[derive(Debug)]
pub struct Writer<'o> {
    outbound: &'o Outbound,
    open: Vec<Option<Shipment>>,
}

impl Writer<'_> {
    /// Where the datagrams for `to` are written next: its shard's shipment, a fresh one if
    /// the open one is full. Its sheds are judged against the queue as it is now.
    pub fn lot(&mut self, to: SocketAddr) -> Lot<'_> {
        let outbound = self.outbound;
        let i = outbound.shard_of(to);
        let open = &mut self.open[i];
        if open.as_ref().is_some_and(Shipment::is_full)
            && let Some(full) = open.take()
        {
            // A stopped thread's shipment is shed and counted; the app goes on.
            let _ = outbound.hand_over(i, full);
        }
        let shipment = open.get_or_insert_with(|| outbound.pool.take());
        Lot {
            to,
            shipment,
            room: Room {
                queued: outbound.shards[i].len(),
                shed_at: outbound.shed_at,
                capacity: outbound.capacity.unwrap_or(usize::MAX),
            },
            stats: &outbound.stats,
            put: 0,
        }
    }

    /// One datagram to `to`, copied; shed (counted) as [`Outbound::send`] says.
    pub fn push(&mut self, to: SocketAddr, bytes: &[u8]) -> Result<(), ShedReason> {
        self.lot(to).push(bytes)
    }

    /// Hands over what is left; the first shed of a stopped thread, if any.
    fn close(mut self) -> Result<(), ShedReason> {
        self.hand_over_all()
    }

    fn hand_over_all(&mut self) -> Result<(), ShedReason> {
        let mut result = Ok(());
        for (i, open) in self.open.iter_mut().enumerate() {
            if let Some(shipment) = open.take() {
                result = result.and(self.outbound.hand_over(i, shipment));
            }
        }
        result
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        // Each shed is counted where it happens; the tick goes on.
        let _ = self.hand_over_all();
    }
}

/// How full a shard's queue was when a [`Lot`] was opened.
#[derive(Debug, Clone, Copy)]
struct Room {
    queued: usize,
    shed_at: usize,
    capacity: usize,
}

/// The datagrams for one address, written at the end of its shard's open shipment:
/// copied whole ([`push`](Self::push)) or built in place by a [`Packer`]
/// ([`pack`](Self::pack)).
#[derive(Debug)]
pub struct Lot<'w> {
    to: SocketAddr,
    shipment: &'w mut Shipment,
    room: Room,
    stats: &'w NetStats,
    put: usize,
}

impl Lot<'_> {
    /// One datagram, copied.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ShedReason> {
        let range = self.shipment.append(bytes);
        self.put += 1;
        let datagrams = &mut self.shipment.datagrams;
        admit(datagrams, self.to, range, bytes, self.room, self.stats)
    }

    /// One packet into `packer`'s bundle; each datagram that completes is queued or shed.
    /// Says whether the packet began a datagram.
    #[inline(always)]
    pub fn pack(&mut self, packer: &mut Packer, packet: &[u8]) -> bool {
        if packer.join(&mut self.shipment.bytes, packet) {
            return false;
        }
        self.pack_apart(packer, packet)
    }

    /// [`pack`](Self::pack) of a packet that does not join the open bundle.
    #[inline(never)]
    fn pack_apart(&mut self, packer: &mut Packer, packet: &[u8]) -> bool {
        let (bytes, out) = self.packing();
        packer.add(bytes, packet, out)
    }

    /// Ends `packer`'s bundle: its datagram is queued or shed.
    pub fn finish(&mut self, packer: &mut Packer) {
        let (bytes, out) = self.packing();
        packer.finish(bytes, out);
    }

    /// The shipment's bytes for a packer to write into, and what queues (or sheds) each
    /// datagram it completes.
    fn packing(&mut self) -> (&mut Vec<u8>, impl FnMut(Range<usize>, &[u8]) + '_) {
        let Lot {
            to,
            shipment,
            room,
            stats,
            put,
        } = self;
        let Shipment { bytes, datagrams } = &mut **shipment;
        let (to, room, stats) = (*to, *room, *stats);
        let out = move |range, d: &[u8]| {
            let _ = admit(datagrams, to, range, d, room, stats);
            *put += 1;
        };
        (bytes, out)
    }

    /// Whether `packer` would begin a datagram more for `packet` (the pace counts them).
    pub fn starts_datagram(&self, packer: &Packer, packet: &[u8]) -> bool {
        packer.starts_datagram(&self.shipment.bytes, packet)
    }

    /// Datagrams put so far, shed ones too: what the session's inbound budget earns
    /// (ADR 0019).
    pub fn put(&self) -> usize {
        self.put
    }
}

/// Queues the datagram at `range` or sheds it (ADR 0025): a relay past
/// [`SHED_FRACTION`] of the queue, anything past all of it. The queue is what the shard
/// held when the lot opened plus what its open shipment holds.
fn admit(
    datagrams: &mut Vec<Addressed>,
    to: SocketAddr,
    range: Range<usize>,
    bytes: &[u8],
    room: Room,
    stats: &NetStats,
) -> Result<(), ShedReason> {
    let queued = room.queued + datagrams.len();
    let shed = if queued >= room.shed_at && is_relay(bytes) {
        Some(ShedReason::Relay)
    } else if queued >= room.capacity {
        Some(ShedReason::Full)
    } else {
        None
    };
    match shed {
        Some(reason) => {
            stats.count_shed(reason);
            stats.send_error();
            Err(reason)
        }
        None => {
            datagrams.push(Addressed { to, range });
            Ok(())
        }
    }
}

/// A relay the subject's next frame supersedes, or a bundle of nothing but relays (a
/// protocol 2 viewer's relays of a tick): sheddable before anything else. A bundle that
/// carries a lane event is not (ADR 0025, addendum).
fn is_relay(bytes: &[u8]) -> bool {
    let single = |packet: &[u8]| {
        matches!(
            packet.first(),
            Some(&id) if id == RemotePlayerSync::ID || id == RemoteVehicleFrame::ID
        )
    };
    match bytes.first() {
        Some(&BUNDLE_ID) => Bundle::parse(bytes).is_ok_and(|b| b.iter().all(single)),
        _ => single(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CHUNK;

    fn datagram(port: u16, id: u8) -> Datagram {
        Datagram {
            to: SocketAddr::from(([127, 0, 0, 1], port)),
            bytes: vec![id, 0],
        }
    }

    #[test]
    fn one_address_always_maps_to_one_shard() {
        let (out, _rx) = Outbound::bounded(8, 4, Arc::default());
        for port in 1..200 {
            let to = datagram(port, 0).to;
            assert_eq!(out.shard_of(to), out.shard_of(to));
        }
        let used: std::collections::HashSet<usize> =
            (1..200).map(|p| out.shard_of(datagram(p, 0).to)).collect();
        assert_eq!(used.len(), 4, "addresses spread over every shard");
    }

    fn drained(queue: &Shipments) -> Vec<(SocketAddr, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(s) = queue.try_recv() {
            out.extend(s.iter().map(|(to, b)| (to, b.to_vec())));
            queue.done(s);
        }
        out
    }

    #[test]
    fn a_writer_hands_over_a_chunk_at_a_time_and_the_rest_when_dropped() {
        let (out, queue) = Outbound::unbounded(Arc::default());
        let to = datagram(1, 0).to;
        let mut writer = out.writer();
        for i in 0..300u16 {
            writer.push(to, &i.to_le_bytes()).expect("unbounded");
        }
        assert_eq!(queue.len(), 2, "two full chunks before the drop");
        assert_eq!(out.queued(), 2 * CHUNK);
        drop(writer);
        let mut sent = Vec::new();
        let sizes: Vec<usize> = std::iter::from_fn(|| queue.try_recv())
            .map(|s| {
                let n = s.len();
                sent.extend(s.iter().map(|(_, b)| u16::from_le_bytes([b[0], b[1]])));
                queue.done(s);
                n
            })
            .collect();
        assert_eq!(sizes, [CHUNK, CHUNK, 300 - 2 * CHUNK]);
        assert!(sent.iter().copied().eq(0..300), "in the order written");
        assert_eq!(out.queued(), 0, "each datagram reported sent");
    }

    #[test]
    fn the_open_shipment_counts_toward_the_shed() {
        let stats = Arc::new(NetStats::default());
        let (out, queues) = Outbound::bounded(8, 1, Arc::clone(&stats));
        let to = datagram(1, 0).to;
        let relay = [RemotePlayerSync::ID, 0];
        let event = [0x06, 0];
        let mut writer = out.writer();
        let mut lot = writer.lot(to);
        for _ in 0..6 {
            assert_eq!(lot.push(&relay), Ok(()));
        }
        assert_eq!(lot.push(&relay), Err(ShedReason::Relay));
        assert_eq!(lot.push(&event), Ok(()));
        assert_eq!(lot.push(&event), Ok(()));
        assert_eq!(lot.push(&event), Err(ShedReason::Full));
        assert_eq!(lot.put(), 10, "shed ones are put too");
        drop(writer);
        assert_eq!(drained(&queues[0]).len(), 8);
        assert_eq!(stats.shed_count(ShedReason::Relay), 1);
        assert_eq!(stats.shed_count(ShedReason::Full), 1);
        assert_eq!(stats.send_error_count(), 2);
    }

    /// ADR 0025's addendum: a protocol 2 viewer's relays leave in bundles, and a bundle of
    /// relays alone is shed past 3/4 like a single relay; one carrying a lane event is not.
    #[test]
    fn a_bundle_of_relays_is_shed_as_a_relay_and_one_with_a_lane_event_is_not() {
        let stats = Arc::new(NetStats::default());
        let (out, queues) = Outbound::bounded(8, 1, Arc::clone(&stats));
        let to = datagram(1, 0).to;
        let relay = [RemotePlayerSync::ID, 0];
        let event = [0x06, 0];
        let bundle = |packets: &[&[u8]]| {
            let mut b = vec![BUNDLE_ID, u8::try_from(packets.len()).expect("a few")];
            for p in packets {
                b.extend_from_slice(&u16::try_from(p.len()).expect("short").to_le_bytes());
                b.extend_from_slice(p);
            }
            b
        };
        let relays = bundle(&[&relay, &relay]);
        let mixed = bundle(&[&event, &relay]);
        assert!(is_relay(&relays));
        assert!(!is_relay(&mixed));
        let mut writer = out.writer();
        let mut lot = writer.lot(to);
        for _ in 0..6 {
            assert_eq!(lot.push(&relays), Ok(()));
        }
        assert_eq!(lot.push(&relays), Err(ShedReason::Relay));
        assert_eq!(lot.push(&mixed), Ok(()), "it carries a lane event");
        assert_eq!(lot.push(&mixed), Ok(()));
        assert_eq!(lot.push(&mixed), Err(ShedReason::Full));
        lot.put();
        drop(writer);
        assert_eq!(drained(&queues[0]).len(), 8);
        assert_eq!(stats.shed_count(ShedReason::Relay), 1);
    }

    #[test]
    fn a_lot_packs_bundles_in_place_and_a_bundle_of_one_leaves_alone() {
        let (out, queue) = Outbound::unbounded(Arc::default());
        let (a, b) = (datagram(1, 0).to, datagram(2, 0).to);
        let event = [0x0F, 7];
        let mut writer = out.writer();
        let mut packer = Packer::new();
        let mut lot = writer.lot(a);
        assert!(lot.starts_datagram(&packer, &event));
        lot.pack(&mut packer, &event);
        assert!(!lot.starts_datagram(&packer, &event));
        lot.pack(&mut packer, &event);
        lot.finish(&mut packer);
        assert_eq!(lot.put(), 1);
        let mut lot = writer.lot(b);
        lot.pack(&mut packer, &event);
        lot.finish(&mut packer);
        drop(writer);
        let bundle = vec![BUNDLE_ID, 2, 2, 0, 0x0F, 7, 2, 0, 0x0F, 7];
        assert_eq!(drained(&queue), [(a, bundle), (b, event.to_vec())]);
    }
}
