//! Any datagram a protocol 2 client could get (connection.md §1, bundles): checking the
//! frame and decoding the inner packets must not panic; a bundle whose inner packets all
//! decode re-encodes to the same bytes, and packing those packets again gives them back in
//! order.
#![no_main]

use dlmp_protocol::bundle::{self, Packer, ServerDatagram};
use dlmp_protocol::{MAX_DATAGRAM, ServerPacket};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(ServerDatagram::Bundle(parsed)) = ServerDatagram::decode(data) else {
        return;
    };
    let Ok(packets) = parsed.packets().collect::<Result<Vec<ServerPacket>, _>>() else {
        return;
    };
    assert_eq!(bundle::to_bytes(&packets).expect("a decoded bundle encodes"), data);
    let (mut packer, mut packed) = (Packer::new(), Vec::new());
    let mut again = Vec::new();
    let mut buf = [0u8; MAX_DATAGRAM];
    for p in &packets {
        let n = p.encode(&mut buf).expect("a decoded packet encodes");
        packer.add(&mut packed, &buf[..n], |_, d| again.push(d.to_vec()));
    }
    packer.finish(&mut packed, |_, d| again.push(d.to_vec()));
    assert_eq!(again, [data.to_vec()], "one bundle packs back into one bundle");
});
