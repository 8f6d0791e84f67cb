//! Any datagram a client could send: decoding must not panic, and a packet that decodes
//! re-encodes to the same bytes.
#![no_main]

use dlmp_protocol::{ClientPacket, MAX_DATAGRAM};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(packet) = ClientPacket::decode(data) {
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = packet.encode(&mut buf).expect("a decoded packet encodes");
        assert_eq!(&buf[..n], data);
    }
});
