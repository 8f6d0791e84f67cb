//! Properties of the whole codec: decoding never panics on any input, and for every valid
//! packet, decode then encode gives back the same bytes (so encode then decode is the
//! identity on valid packets).

use dlmp::protocol::sample;
use dlmp::protocol::{ClientPacket, Direction, MAX_DATAGRAM, ServerPacket};
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

fn samples() -> Vec<(Direction, Vec<u8>)> {
    sample::all()
        .iter()
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
}

#[test]
fn every_fixture_is_its_own_round_trip() {
    for (dir, bytes) in samples() {
        assert!(matches!(round_trip_if_valid(dir, &bytes), Ok(true)));
    }
}
