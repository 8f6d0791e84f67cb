//! connection.md §1, bundles: a bundle whose count is below 2, whose lengths do not add up
//! to the datagram exactly, that is larger than 1200 bytes or that holds a bundle,
//! ServerHello, ConnectRefused or Disconnect is dropped whole; an inner packet that fails
//! decoding is dropped alone; the boundary values are accepted.

use dlmp_protocol::ErrorKind::{self, *};
use dlmp_protocol::bundle::{BUNDLE_ID, Bundle, ServerDatagram};
use dlmp_protocol::connection::samples::{chat, handshake, lane};
use dlmp_protocol::{MAX_DATAGRAM, Packet, ServerPacket};
use rstest::rstest;

/// A bundle frame around `packets`, exactly as written (no rule applied).
fn frame(count: u8, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = vec![BUNDLE_ID, count];
    for p in packets {
        let len = u16::try_from(p.len()).expect("short");
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(p);
    }
    bytes
}

fn ack() -> Vec<u8> {
    lane::server_ack().to_bytes().expect("valid")
}

fn chat_line() -> Vec<u8> {
    chat::chat_message().to_bytes().expect("valid")
}

/// `bytes` is dropped whole, at `field` with `kind`.
#[track_caller]
fn assert_dropped(bytes: &[u8], field: &str, kind: ErrorKind) {
    let err = ServerDatagram::decode(bytes).expect_err("the bundle is dropped whole");
    assert_eq!(
        (err.packet, err.field, err.kind()),
        ("Bundle", field, kind),
        "{err}"
    );
    assert_eq!(Bundle::parse(bytes).map(|_| ()), Err(err));
}

#[rstest]
#[case::no_count(vec![BUNDLE_ID], "count", Length)]
#[case::count_0(frame(0, &[]), "count", Range)]
#[case::count_1(frame(1, &[ack()]), "count", Range)]
#[case::count_above_the_packets(frame(3, &[ack(), ack()]), "len", Length)]
#[case::count_below_the_packets(frame(2, &[ack(), ack(), ack()]), "", Length)]
#[case::len_0(frame(2, &[ack(), vec![]]), "len", Range)]
#[case::len_past_the_end({ let mut b = frame(2, &[ack(), ack()]); b.pop(); b }, "packet", Length)]
#[case::one_trailing_byte({ let mut b = frame(2, &[ack(), ack()]); b.push(0); b }, "", Length)]
#[case::half_a_len({ let mut b = frame(2, &[ack()]); b.push(5); b }, "len", Length)]
#[case::nested_bundle(frame(2, &[ack(), frame(2, &[ack(), ack()])]), "packet", Enum)]
#[case::server_hello(frame(2, &[handshake::server_hello().to_bytes().expect("valid"), ack()]), "packet", Enum)]
#[case::connect_refused(frame(2, &[ack(), handshake::connect_refused().to_bytes().expect("valid")]), "packet", Enum)]
#[case::disconnect(frame(2, &[handshake::server_disconnect().to_bytes().expect("valid"), ack()]), "packet", Enum)]
fn a_bad_frame_drops_the_whole_bundle(
    #[case] bytes: Vec<u8>,
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_dropped(&bytes, field, kind);
}

#[test]
fn a_bundle_larger_than_a_datagram_is_dropped_whole() {
    // 171 acks of 5 bytes take 2 + 171 × 7 = 1199 bytes; the 172nd passes 1200.
    let exact: Vec<Vec<u8>> = std::iter::repeat_n(ack(), 171).collect();
    assert_eq!(frame(171, &exact).len(), MAX_DATAGRAM - 1);
    assert!(Bundle::parse(&frame(171, &exact)).is_ok());
    let over: Vec<Vec<u8>> = std::iter::repeat_n(ack(), 172).collect();
    assert_dropped(&frame(172, &over), "", Length);
}

#[test]
fn a_bundle_of_exactly_1200_bytes_is_accepted() {
    // 2 + 2 + 1191 + 2 + 3 = 1200: one ack padded out to 1191 bytes would be invalid
    // inside, which is dropped alone, not the frame.
    let big = vec![0x0F; 1191];
    let bytes = frame(2, &[big, vec![0x0F, 1, 0]]);
    assert_eq!(bytes.len(), MAX_DATAGRAM);
    let parsed = Bundle::parse(&bytes).expect("the frame holds");
    assert_eq!(parsed.count(), 2);
    assert!(parsed.packets().all(|p| p.is_err()));
}

#[rstest]
#[case::count_2(2)]
#[case::count_100(100)]
fn the_boundary_counts_are_accepted(#[case] count: u8) {
    let packets: Vec<Vec<u8>> = (0..count).map(|_| ack()).collect();
    let bytes = frame(count, &packets);
    let parsed = Bundle::parse(&bytes).expect("accepted");
    assert_eq!(parsed.count(), usize::from(count));
}

#[test]
fn count_255_is_accepted() {
    // 255 one-byte packets (unknown ids: each dropped alone) take 2 + 255 × 3 bytes.
    let packets: Vec<Vec<u8>> = (0..255).map(|_| vec![0xEE]).collect();
    let bytes = frame(255, &packets);
    let parsed = Bundle::parse(&bytes).expect("accepted");
    assert_eq!(parsed.count(), 255);
    assert_eq!(parsed.packets().filter(Result::is_err).count(), 255);
}

#[rstest]
#[case::unknown_id(vec![0xEE, 1, 2, 3])]
#[case::short_ack(ack()[..4].to_vec())]
#[case::long_chat({ let mut c = chat_line(); c.push(0); c })]
#[case::client_packet_id(vec![0x0E; 13])]
fn a_bad_inner_packet_is_dropped_alone(#[case] bad: Vec<u8>) {
    let bytes = frame(3, &[ack(), bad, chat_line()]);
    let got: Vec<_> = ServerDatagram::decode(&bytes)
        .expect("the frame holds")
        .packets()
        .collect();
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], ServerPacket::decode(&ack()));
    assert!(got[1].is_err());
    assert_eq!(got[2], ServerPacket::decode(&chat_line()));
}

#[test]
fn a_single_packet_is_a_datagram_of_its_own() {
    let got: Vec<_> = ServerDatagram::decode(&ack())
        .expect("valid")
        .packets()
        .collect();
    assert_eq!(got, [ServerPacket::decode(&ack())]);
}
