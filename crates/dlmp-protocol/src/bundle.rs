//! Bundles (connection.md §1, protocol 2): one datagram that carries several whole
//! Server → Client packets, so that a tick's packets for one recipient cost the kernel a
//! few datagrams instead of one each.
//!
//! ```text
//! [u8 0xB0][u8 count 2..=255] count × { [u16 len ≥ 1][len bytes: one packet] }
//! ```
//!
//! A bundle is a framing, not a packet: [`Bundle::parse`] checks the frame (the count,
//! every length, the total, no forbidden inner packet) without decoding the inner packets,
//! and [`Bundle::packets`] decodes them one by one, so that one bad inner packet is dropped
//! alone. [`Packer`] builds bundles at the end of the caller's buffer. [`ServerDatagram`] is what a
//! client decoder reads: a single packet or a bundle.

use core::ops::Range;

use super::connection::handshake::{ConnectRefused, ServerDisconnect, ServerHello};
use super::dispatch::ServerPacket;
use super::error::{DecodeError, EncodeError, FieldError, Rule};
use super::packet::{MAX_DATAGRAM, Packet};

/// The bundle's `packet_id`.
pub const BUNDLE_ID: u8 = 0xB0;
/// The name the page uses.
pub const NAME: &str = "Bundle";
/// Bytes before the first inner packet: `packet_id` and `count`.
pub const HEADER: usize = 2;
/// Bytes before each inner packet: its `u16 len`.
pub const LEN_PREFIX: usize = 2;
/// The fewest packets a bundle holds: a lone packet travels alone.
pub const MIN_COUNT: usize = 2;
/// The most packets a bundle holds (`count` is a u8).
pub const MAX_COUNT: usize = 255;
/// The largest inner packet that fits a bundle with another one: a larger packet always
/// travels alone.
pub const MAX_INNER: usize = MAX_DATAGRAM - HEADER - 2 * LEN_PREFIX - 1;

/// Whether a packet with this id may travel inside a bundle. A bundle, ServerHello,
/// ConnectRefused and Disconnect may not (connection.md §1): they change how a client
/// reads what follows, so each travels alone.
pub fn bundleable(packet_id: u8) -> bool {
    !matches!(packet_id, BUNDLE_ID)
        && packet_id != ServerHello::ID
        && packet_id != ConnectRefused::ID
        && packet_id != ServerDisconnect::ID
}

fn error(field: &'static str, rule: Rule) -> DecodeError {
    DecodeError {
        packet: NAME,
        field,
        rule,
    }
}

/// A checked bundle over a received datagram: its frame is valid, its inner packets are
/// not decoded yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bundle<'a> {
    count: usize,
    /// The bytes after `count`.
    body: &'a [u8],
}

impl<'a> Bundle<'a> {
    /// Checks a bundle's frame: packet_id 0xB0, count 2..=255, every len at least 1, the
    /// lengths adding up to the datagram exactly, at most [`MAX_DATAGRAM`] bytes, no inner
    /// bundle, ServerHello, ConnectRefused or Disconnect. Any failure drops the bundle
    /// whole. Never allocates.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        if bytes.len() > MAX_DATAGRAM {
            return Err(error(
                "",
                Rule::Length {
                    expected: MAX_DATAGRAM,
                    actual: bytes.len(),
                },
            ));
        }
        let Some((&id, rest)) = bytes.split_first() else {
            return Err(error(
                "",
                Rule::Length {
                    expected: HEADER,
                    actual: 0,
                },
            ));
        };
        if id != BUNDLE_ID {
            return Err(error("packet_id", Rule::UnknownPacket(id)));
        }
        let Some((&count, body)) = rest.split_first() else {
            return Err(error("count", Rule::Truncated));
        };
        let count = usize::from(count);
        if count < MIN_COUNT {
            return Err(error("count", Rule::OutOfRange));
        }
        let bundle = Bundle { count, body };
        let mut inner = bundle.frames();
        for _ in 0..count {
            match inner.next_frame() {
                Ok(packet) if bundleable(packet[0]) => {}
                Ok(packet) => return Err(error("packet", Rule::UnknownValue(packet[0].into()))),
                Err(e) => return Err(error(e.field, e.rule)),
            }
        }
        if !inner.rest.is_empty() {
            return Err(error("", Rule::Trailing));
        }
        Ok(bundle)
    }

    /// How many packets the bundle holds (2..=255).
    pub fn count(&self) -> usize {
        self.count
    }

    fn frames(&self) -> Frames<'a> {
        Frames {
            rest: self.body,
            left: self.count,
        }
    }

    /// The inner packets' bytes, in order, each exactly as it would travel alone.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let mut frames = self.frames();
        core::iter::from_fn(move || {
            if frames.left == 0 {
                return None;
            }
            frames.left -= 1;
            frames.next_frame().ok()
        })
    }

    /// The inner packets, decoded in order; one that fails decoding is an `Err` of its own
    /// and the others stay (connection.md §1).
    pub fn packets(&self) -> impl Iterator<Item = Result<ServerPacket, DecodeError>> + use<'a> {
        self.iter().map(ServerPacket::decode)
    }
}

/// A cursor over a bundle's `{len, packet}` frames.
struct Frames<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Frames<'a> {
    fn next_frame(&mut self) -> Result<&'a [u8], FieldError> {
        let (len, rest) = self
            .rest
            .split_first_chunk::<LEN_PREFIX>()
            .ok_or(FieldError::new("len", Rule::Truncated))?;
        let len = usize::from(u16::from_le_bytes(*len));
        if len == 0 {
            return Err(FieldError::new("len", Rule::OutOfRange));
        }
        let (packet, rest) = rest
            .split_at_checked(len)
            .ok_or(FieldError::new("packet", Rule::Truncated))?;
        self.rest = rest;
        Ok(packet)
    }
}

/// One Server → Client datagram as a client reads it: a single packet, or a bundle of
/// several (protocol 2).
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "a value on the decoder's stack; boxing would allocate per datagram"
)]
pub enum ServerDatagram<'a> {
    Single(ServerPacket),
    Bundle(Bundle<'a>),
}

impl<'a> ServerDatagram<'a> {
    /// Decodes a single packet, or checks a bundle's frame (its inner packets decode on
    /// iteration). An `Err` drops the whole datagram.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        if bytes.first() == Some(&BUNDLE_ID) {
            Bundle::parse(bytes).map(ServerDatagram::Bundle)
        } else {
            ServerPacket::decode(bytes).map(ServerDatagram::Single)
        }
    }

    /// Every packet the datagram carries, in order; an inner packet of a bundle that fails
    /// decoding is an `Err` of its own.
    pub fn packets(self) -> impl Iterator<Item = Result<ServerPacket, DecodeError>> + 'a {
        let (single, bundle) = match self {
            ServerDatagram::Single(p) => (Some(Ok(p)), None),
            ServerDatagram::Bundle(b) => (None, Some(b.packets())),
        };
        single.into_iter().chain(bundle.into_iter().flatten())
    }
}

/// Packs encoded packets for one recipient into as few datagrams as fit, in the order they
/// are added (connection.md §1): a packet that does not fit the current bundle starts the
/// next one, a bundle of one packet leaves as that packet alone, and a packet that may not
/// be bundled (ServerHello, ConnectRefused, Disconnect, or one too large to share a
/// datagram) ends the current bundle and leaves alone.
///
/// The packer holds no bytes: every datagram is built at the end of the caller's buffer,
/// and `out` is handed its range there (and its bytes), so a tick's datagrams for every
/// recipient are written one after another into one arena and leave from it uncopied
/// (docs/decisions/0080-one-outbound-arena.md). A bundle of one packet is its range past
/// the bundle's header, not a move of its bytes. Nothing else may write to the buffer
/// while a bundle is open (between an `add` and the `finish` that ends it). Adding never
/// allocates while the buffer keeps its room.
///
/// ```
/// # use dlmp_protocol::bundle::Packer;
/// let (mut buf, mut sent) = (Vec::new(), Vec::new());
/// let mut packer = Packer::new();
/// packer.add(&mut buf, &[0x0F, 1, 0, 0, 0], |_, _| unreachable!());
/// packer.add(&mut buf, &[0x0F, 2, 0, 0, 0], |_, _| unreachable!());
/// packer.finish(&mut buf, |range, d| sent.push((range, d.to_vec())));
/// let bundle = vec![0xB0, 2, 5, 0, 0x0F, 1, 0, 0, 0, 5, 0, 0x0F, 2, 0, 0, 0];
/// assert_eq!(sent, [(0..16, bundle)]);
/// // A bundle of one is its packet alone, past the header it did not need.
/// packer.add(&mut buf, &[0x0F, 3, 0, 0, 0], |_, _| unreachable!());
/// packer.finish(&mut buf, |range, d| assert_eq!((range, d), (20..25, &[0x0F, 3, 0, 0, 0][..])));
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Packer {
    /// Where the bundle being built begins in the buffer, header included.
    start: usize,
    /// Packets in the bundle being built.
    count: usize,
}

impl Packer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Packets in the bundle being built.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether [`add`](Self::add) of `packet` to `buf` would take a datagram more than the
    /// ones already begun: it does not join the bundle being built (ADR 0043 counts
    /// datagrams).
    pub fn starts_datagram(&self, buf: &[u8], packet: &[u8]) -> bool {
        is_alone(packet) || self.count == 0 || !self.fits(buf, packet)
    }

    #[inline(always)]
    fn fits(&self, buf: &[u8], packet: &[u8]) -> bool {
        self.count < MAX_COUNT && buf.len() - self.start + LEN_PREFIX + packet.len() <= MAX_DATAGRAM
    }

    /// Adds one encoded packet (at most [`MAX_DATAGRAM`] bytes, packet_id first) at the end
    /// of `buf`; hands every datagram this completes to `out`. Says whether the packet
    /// began a datagram, as [`starts_datagram`](Self::starts_datagram) would have.
    #[inline]
    pub fn add(
        &mut self,
        buf: &mut Vec<u8>,
        packet: &[u8],
        out: impl FnMut(Range<usize>, &[u8]),
    ) -> bool {
        if self.join(buf, packet) {
            return false;
        }
        self.add_slow(buf, packet, out)
    }

    /// Adds `packet` to the open bundle if it joins it (completing no datagram, beginning
    /// none); says whether it did. The common case of a crowd's tick, ~30 000 relays
    /// joining their recipients' bundles, kept inline and apart from the closure that
    /// takes completed datagrams (issue 11, the players tick).
    #[inline(always)]
    pub fn join(&mut self, buf: &mut Vec<u8>, packet: &[u8]) -> bool {
        // A packet that fits the open bundle is at most `MAX_INNER` bytes, so only its
        // id can still make it leave alone.
        let joins = self.count > 0
            && self.fits(buf, packet)
            && packet.first().is_some_and(|&id| bundleable(id));
        if joins {
            push_inner(buf, packet);
            self.count += 1;
        }
        joins
    }

    /// [`add`](Self::add) of a packet that leaves alone, ends the open bundle or begins one.
    fn add_slow(
        &mut self,
        buf: &mut Vec<u8>,
        packet: &[u8],
        mut out: impl FnMut(Range<usize>, &[u8]),
    ) -> bool {
        if is_alone(packet) {
            self.finish(buf, &mut out);
            let start = buf.len();
            buf.extend_from_slice(packet);
            out(start..buf.len(), &buf[start..]);
            return true;
        }
        if self.count > 0 && !self.fits(buf, packet) {
            self.finish(buf, &mut out);
        }
        let began = self.count == 0;
        if began {
            self.start = buf.len();
            buf.extend_from_slice(&[BUNDLE_ID, 0]);
        }
        push_inner(buf, packet);
        self.count += 1;
        began
    }

    /// Hands the datagram being built to `out` (nothing when empty): a bundle, or its one
    /// packet alone.
    pub fn finish(&mut self, buf: &mut [u8], mut out: impl FnMut(Range<usize>, &[u8])) {
        let range = match self.count {
            0 => return,
            1 => self.start + HEADER + LEN_PREFIX..buf.len(),
            n => {
                buf[self.start + 1] = u8::try_from(n).expect("at most MAX_COUNT packets");
                self.start..buf.len()
            }
        };
        self.count = 0;
        out(range.clone(), &buf[range]);
    }
}

/// Appends `packet` (at most [`MAX_INNER`] bytes) with its length prefix.
#[inline(always)]
fn push_inner(buf: &mut Vec<u8>, packet: &[u8]) {
    let len = u16::try_from(packet.len()).expect("at most MAX_INNER bytes");
    buf.reserve(LEN_PREFIX + packet.len());
    buf.extend_from_slice(&len.to_le_bytes());
    buf.extend_from_slice(packet);
}

/// A packet that may not share a datagram: too large, or not bundleable.
fn is_alone(packet: &[u8]) -> bool {
    packet.len() > MAX_INNER || packet.first().is_none_or(|&id| !bundleable(id))
}

/// Encodes `packets` as one bundle into a new vector: for fixtures, tests and tools. Fails
/// on an invalid inner packet, a forbidden one, a count outside 2..=255 or a bundle larger
/// than [`MAX_DATAGRAM`].
pub fn to_bytes(packets: &[ServerPacket]) -> Result<Vec<u8>, EncodeError> {
    let err = |field, rule| EncodeError {
        packet: NAME,
        field,
        rule,
    };
    let count = u8::try_from(packets.len()).map_err(|_| err("count", Rule::OutOfRange))?;
    if usize::from(count) < MIN_COUNT {
        return Err(err("count", Rule::OutOfRange));
    }
    let mut bytes = vec![BUNDLE_ID, count];
    let mut buf = [0u8; MAX_DATAGRAM];
    for packet in packets {
        if !bundleable(packet.id()) {
            return Err(err("packet", Rule::UnknownValue(packet.id().into())));
        }
        let n = packet.encode(&mut buf)?;
        let len = u16::try_from(n).map_err(|_| err("len", Rule::OutOfRange))?;
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&buf[..n]);
    }
    if bytes.len() > MAX_DATAGRAM {
        return Err(err(
            "",
            Rule::Length {
                expected: MAX_DATAGRAM,
                actual: bytes.len(),
            },
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::samples::{handshake, lane};

    fn ack(n: u32) -> Vec<u8> {
        let mut ack = lane::server_ack();
        ack.event_id.0 = n;
        ack.to_bytes().expect("valid")
    }

    fn packed(packets: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let (mut buf, mut out) = (Vec::new(), Vec::new());
        let mut packer = Packer::new();
        for p in packets {
            packer.add(&mut buf, p, |_, d| out.push(d.to_vec()));
        }
        packer.finish(&mut buf, |_, d| out.push(d.to_vec()));
        out
    }

    fn unpacked(datagrams: &[Vec<u8>]) -> Vec<ServerPacket> {
        datagrams
            .iter()
            .flat_map(|d| {
                ServerDatagram::decode(d)
                    .expect("a valid datagram")
                    .packets()
                    .map(|p| p.expect("a valid packet"))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn a_lone_packet_leaves_alone_and_two_share_a_bundle() {
        assert_eq!(packed(&[ack(1)]), [ack(1)]);
        let two = packed(&[ack(1), ack(2)]);
        assert_eq!(two.len(), 1);
        assert_eq!(two[0][..2], [BUNDLE_ID, 2]);
        assert_eq!(Bundle::parse(&two[0]).map(|b| b.count()), Ok(2));
    }

    #[test]
    fn packets_keep_their_order_across_as_few_bundles_as_fit() {
        // 5-byte acks take 7 bytes each in a bundle: 171 fit in 1200 - 2 bytes.
        let acks: Vec<_> = (1..=400).map(ack).collect();
        let datagrams = packed(&acks);
        let counts: Vec<_> = datagrams
            .iter()
            .map(|d| Bundle::parse(d).map_or(1, |b| b.count()))
            .collect();
        assert_eq!(counts, [171, 171, 58]);
        assert!(datagrams.iter().all(|d| d.len() <= MAX_DATAGRAM));
        let expected: Vec<ServerPacket> = acks
            .iter()
            .map(|a| ServerPacket::decode(a).expect("valid"))
            .collect();
        assert_eq!(unpacked(&datagrams), expected);
    }

    #[test]
    fn a_bundle_holds_at_most_255_packets() {
        // One-byte packets take 3 bytes each: 300 fit one datagram's size, not its count.
        let tiny: Vec<Vec<u8>> = (0..300).map(|_| vec![0x0F]).collect();
        let datagrams = packed(&tiny);
        let counts: Vec<_> = datagrams
            .iter()
            .map(|d| Bundle::parse(d).map_or(1, |b| b.count()))
            .collect();
        assert_eq!(counts, [MAX_COUNT, 300 - MAX_COUNT]);
    }

    #[test]
    fn a_hello_ends_the_bundle_and_leaves_alone() {
        let hello = handshake::server_hello().to_bytes().expect("valid");
        let datagrams = packed(&[ack(1), ack(2), hello.clone(), ack(3)]);
        assert_eq!(datagrams.len(), 3);
        assert_eq!(datagrams[1], hello);
        assert_eq!(datagrams[2], ack(3));
    }

    #[test]
    fn a_frame_that_does_not_add_up_is_dropped_whole() {
        let mut bundle = packed(&[ack(1), ack(2)]).remove(0);
        bundle.push(0);
        assert_eq!(
            Bundle::parse(&bundle).map(|_| ()),
            Err(error("", Rule::Trailing))
        );
        bundle.truncate(bundle.len() - 2);
        assert!(Bundle::parse(&bundle).is_err());
    }

    #[test]
    fn a_bad_inner_packet_is_dropped_alone() {
        let mut bundle = packed(&[ack(1), ack(2)]).remove(0);
        bundle[HEADER + LEN_PREFIX] = 0xEE; // the first inner packet_id: unknown
        let packets: Vec<_> = Bundle::parse(&bundle)
            .expect("the frame holds")
            .packets()
            .collect();
        assert!(packets[0].is_err());
        assert_eq!(packets[1], ServerPacket::decode(&ack(2)));
    }
}
