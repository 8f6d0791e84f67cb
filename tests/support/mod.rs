//! Helpers shared by the codec's integration tests.
#![allow(dead_code, unreachable_pub)]

use dlmp::protocol::{ErrorKind, MAX_DATAGRAM, Packet};

/// The bytes of `packet`, without the page's rules (to build invalid packets).
pub fn raw<P: Packet>(packet: &P) -> Vec<u8> {
    let mut buf = vec![0; MAX_DATAGRAM];
    let n = packet.encode_unchecked(&mut buf).expect("fits a datagram");
    buf.truncate(n);
    buf
}

/// `valid` changed by `mutate` must fail decoding at `field` with `kind`, and encoding it
/// must fail the same way: the server never sends what a client would reject.
#[track_caller]
pub fn assert_rejects<P: Packet>(
    valid: &P,
    mutate: impl FnOnce(&mut P),
    field: &str,
    kind: ErrorKind,
) {
    let mut p = valid.clone();
    mutate(&mut p);
    let bytes = raw(&p);
    let err = P::decode(&bytes).expect_err("decoding must fail");
    assert_eq!(
        (err.field, err.kind()),
        (field, kind),
        "decode error: {err}"
    );
    let mut buf = [0u8; MAX_DATAGRAM];
    let err = p.encode(&mut buf).expect_err("encoding must fail");
    assert_eq!(
        (err.field, err.kind()),
        (field, kind),
        "encode error: {err}"
    );
}

/// `valid`'s bytes with `patch` written at `offset` must fail decoding at `field` with
/// `kind`. For values the Rust type cannot hold (an unknown enum byte, a NaN bit pattern).
#[track_caller]
pub fn assert_rejects_bytes<P: Packet>(
    valid: &P,
    offset: usize,
    patch: &[u8],
    field: &str,
    kind: ErrorKind,
) {
    let mut bytes = raw(valid);
    bytes[offset..offset + patch.len()].copy_from_slice(patch);
    let err = P::decode(&bytes).expect_err("decoding must fail");
    assert_eq!(
        (err.field, err.kind()),
        (field, kind),
        "decode error: {err}"
    );
}

/// Offset of `field` in `P`'s encoding, by name.
#[track_caller]
pub fn offset<P: Packet>(field: &str) -> usize {
    P::byte_offset(field).unwrap_or_else(|| panic!("{} has no field {field}", P::NAME))
}

/// `valid` one byte short and one byte long fails with a length error; `valid` itself
/// decodes to itself.
#[track_caller]
pub fn assert_exact_length<P: Packet>(valid: &P) {
    let bytes = raw(valid);
    assert_eq!(P::decode(&bytes).as_ref(), Ok(valid));
    let short = &bytes[..bytes.len() - 1];
    assert_eq!(
        P::decode(short).expect_err("short").kind(),
        ErrorKind::Length,
        "{} - 1",
        P::NAME
    );
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        P::decode(&long).expect_err("long").kind(),
        ErrorKind::Length,
        "{} + 1",
        P::NAME
    );
}

/// `valid` changed by `mutate` still decodes to itself and encodes.
#[track_caller]
pub fn assert_accepts<P: Packet>(valid: &P, mutate: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    mutate(&mut p);
    assert_eq!(P::decode(&raw(&p)).as_ref(), Ok(&p));
    assert!(p.to_bytes().is_ok(), "encoding must succeed: {p:?}");
}

/// A float that is not finite, as raw bytes.
pub const NAN: [u8; 4] = f32::NAN.to_le_bytes();
pub const INF: [u8; 4] = f32::INFINITY.to_le_bytes();

/// The log lines written while `f` runs at `level` and above, as the console shows them.
pub fn log_lines(level: tracing::Level, f: impl FnOnce()) -> Vec<String> {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("the sink").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(level)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(sink.0.lock().expect("the sink").clone()).expect("UTF-8");
    text.lines().map(str::to_owned).collect()
}
