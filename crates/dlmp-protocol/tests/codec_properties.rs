//! Properties of the whole codec: decoding never panics on any input, and for every valid
//! packet, decode then encode gives back the same bytes (so encode then decode is the
//! identity on valid packets).

use dlmp_protocol::bundle::{self, BUNDLE_ID, Bundle, Packer, ServerDatagram};
use dlmp_protocol::query::QUERY_IDS;
use dlmp_protocol::sample;
use dlmp_protocol::{ClientPacket, Direction, MAX_DATAGRAM, ServerPacket};
use proptest::prelude::*;

/// Decodes `bytes` in `dir`; if valid, re-encodes and checks the bytes and the value.
fn round_trip_if_valid(dir: Direction, bytes: &[u8]) -> Result<bool, TestCaseError> {
    let mut buf = [0u8; MAX_DATAGRAM];
    match dir {
        Direction::ClientToServer => {
            let Ok(p) = ClientPacket::decode(bytes) else {
                return Ok(false);
            };
            let n = p
                .encode(&mut buf)
                .map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(&buf[..n], bytes);
            prop_assert_eq!(ClientPacket::decode(&buf[..n]), Ok(p));
        }
        Direction::ServerToClient if bytes.first() == Some(&BUNDLE_ID) => {
            let Ok(parsed) = Bundle::parse(bytes) else {
                return Ok(false);
            };
            // An inner packet that fails decoding is dropped alone; each valid one
            // re-encodes to its own bytes, and a bundle of valid ones to the bundle.
            let mut valid = Vec::new();
            for inner in parsed.iter() {
                if let Ok(p) = ServerPacket::decode(inner) {
                    let n = p
                        .encode(&mut buf)
                        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
                    prop_assert_eq!(&buf[..n], inner);
                    valid.push(p);
                }
            }
            if valid.len() < parsed.count() {
                return Ok(false);
            }
            let again = bundle::to_bytes(&valid).ok();
            prop_assert_eq!(again.as_deref(), Some(bytes));
        }
        Direction::ServerToClient => {
            let Ok(p) = ServerPacket::decode(bytes) else {
                return Ok(false);
            };
            let n = p
                .encode(&mut buf)
                .map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(&buf[..n], bytes);
            prop_assert_eq!(ServerPacket::decode(&buf[..n]), Ok(p));
        }
    }
    Ok(true)
}

/// Every fixture of the game's packets (the server query's have their own tests,
/// tests/reject_query.rs: they are not in the dispatch enums).
fn samples() -> Vec<(Direction, Vec<u8>)> {
    sample::all()
        .iter()
        .filter(|s| !QUERY_IDS.contains(&s.id()))
        .map(|s| (s.direction(), s.encode().expect("fixtures encode")))
        .collect()
}

/// A valid packet with a few bytes changed: most stay close enough to valid to reach the
/// field checks, not just the length check.
fn mutated() -> impl Strategy<Value = (Direction, Vec<u8>)> {
    let all = samples();
    (
        0..all.len(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    )
        .prop_map(move |(i, edits)| {
            let (dir, mut bytes) = all[i].clone();
            for (at, value) in edits {
                // packet_id stays: the mutation exercises one packet's fields.
                let at = 1 + at.index(bytes.len() - 1);
                bytes[at] = value;
            }
            (dir, bytes)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn decode_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..1300)) {
        let _ = ClientPacket::decode(&bytes);
        let _ = ServerPacket::decode(&bytes);
        if let Ok(d) = ServerDatagram::decode(&bytes) {
            let _ = d.packets().count();
        }
    }

    #[test]
    fn decode_never_panics_on_a_known_id_at_any_length(id in any::<u8>(), body in prop::collection::vec(any::<u8>(), 0..320)) {
        let mut bytes = vec![id];
        bytes.extend(body);
        let _ = ClientPacket::decode(&bytes);
        let _ = ServerPacket::decode(&bytes);
    }

    #[test]
    fn a_valid_packet_re_encodes_to_its_own_bytes((dir, bytes) in mutated()) {
        round_trip_if_valid(dir, &bytes)?;
    }

    #[test]
    fn a_bundle_frame_of_arbitrary_lengths_never_panics(
        count in any::<u8>(),
        frames in prop::collection::vec((any::<u16>(), prop::collection::vec(any::<u8>(), 0..64)), 0..40),
    ) {
        let mut bytes = vec![BUNDLE_ID, count];
        for (len, body) in frames {
            bytes.extend_from_slice(&(len % 80).to_le_bytes());
            bytes.extend(body);
        }
        if let Ok(d) = ServerDatagram::decode(&bytes) {
            let _ = d.packets().count();
        }
    }

    #[test]
    fn packed_packets_unpack_in_order_into_as_few_datagrams_as_fit(picks in prop::collection::vec(any::<prop::sample::Index>(), 0..600)) {
        let pool = bundleable_samples();
        let sent: Vec<Vec<u8>> = picks.iter().map(|i| pool[i.index(pool.len())].clone()).collect();
        let mut datagrams: Vec<Vec<u8>> = Vec::new();
        let (mut packer, mut buf) = (Packer::new(), Vec::new());
        for p in &sent {
            packer.add(&mut buf, p, |_, d| datagrams.push(d.to_vec()));
        }
        packer.finish(&mut buf, |_, d| datagrams.push(d.to_vec()));
        let mut got: Vec<Vec<u8>> = Vec::new();
        let mut sizes = Vec::new();
        for d in &datagrams {
            prop_assert!(d.len() <= MAX_DATAGRAM);
            match ServerDatagram::decode(d).map_err(|e| TestCaseError::fail(format!("{e}")))? {
                ServerDatagram::Single(_) => got.push(d.clone()),
                ServerDatagram::Bundle(b) => got.extend(b.iter().map(<[u8]>::to_vec)),
            }
            sizes.push(d.len());
        }
        prop_assert_eq!(&got, &sent);
        // Greedy: the first packet of each datagram would not have fitted the one before.
        let mut at = 0;
        for (i, d) in datagrams.iter().enumerate() {
            let n = Bundle::parse(d).map_or(1, |b| b.count());
            if i > 0 {
                let prev = sizes[i - 1];
                let prev_len = if prev == sent[at - 1].len() { prev + 4 } else { prev };
                prop_assert!(prev_len + 2 + sent[at].len() > MAX_DATAGRAM);
            }
            at += n;
        }
    }
}

/// Every fixture of a Server → Client packet that may travel in a bundle.
fn bundleable_samples() -> Vec<Vec<u8>> {
    samples()
        .into_iter()
        .filter(|(dir, bytes)| *dir == Direction::ServerToClient && bundle::bundleable(bytes[0]))
        .map(|(_, bytes)| bytes)
        .collect()
}

#[test]
fn every_fixture_is_its_own_round_trip() {
    for (dir, bytes) in samples() {
        assert!(matches!(round_trip_if_valid(dir, &bytes), Ok(true)));
    }
}
