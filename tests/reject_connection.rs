//! connection.md: every packet refuses a wrong length and each range, enum and finiteness
//! rule the page states for it.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::connection::handshake::*;
use dlmp::protocol::connection::samples::handshake as s;
use dlmp::protocol::ids::*;
use dlmp::protocol::text::FixedText;
use rstest::rstest;
use support::*;

#[rstest]
#[case::client_hello(|| assert_exact_length(&s::client_hello()))]
#[case::server_hello(|| assert_exact_length(&s::server_hello()))]
#[case::connect_refused(|| assert_exact_length(&s::connect_refused()))]
#[case::client_disconnect(|| assert_exact_length(&s::client_disconnect()))]
#[case::server_disconnect(|| assert_exact_length(&s::server_disconnect()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::bad_magic(|p: &mut ClientHello| p.magic = 0x4C44_504D, "magic", Reserved)]
#[case::pad_not_zero(|p: &mut ClientHello| p.pad[28] = 1, "pad", Reserved)]
fn client_hello_rejects(
    #[case] m: fn(&mut ClientHello),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::client_hello(), m, field, kind);
}

#[test]
fn client_hello_name_must_be_padded_utf8() {
    let at = offset::<ClientHello>("name");
    assert_rejects_bytes(&s::client_hello(), at, &[0xFF], "name", Text);
    assert_rejects_bytes(&s::client_hello(), at + 1, &[0, b'x'], "name", Text);
}

#[test]
fn client_hello_takes_a_full_24_byte_name_without_nul() {
    let mut p = s::client_hello();
    p.name = FixedText::new("ABCDEFGHIJKLMNOPQRSTUVWX").unwrap();
    assert_eq!(ClientHello::decode(&raw(&p)), Ok(p));
}

#[rstest]
#[case::token_zero(|p: &mut ServerHello| p.session_token = SessionToken(0), "session_token", Range)]
#[case::player_token_zero(|p: &mut ServerHello| p.player_token = PlayerToken(0), "player_token", Range)]
#[case::id_not_below_max(|p: &mut ServerHello| p.player_id = PlayerId(1000), "player_id", Range)]
#[case::hours_24(|p: &mut ServerHello| p.hours = 24, "hours", Range)]
#[case::minutes_60(|p: &mut ServerHello| p.minutes = 60, "minutes", Range)]
#[case::weather_23(|p: &mut ServerHello| p.weather = 23, "weather", Range)]
#[case::garage_bit_50(|p: &mut ServerHello| p.garage_open = 1 << 50, "garage_open", Reserved)]
#[case::garage_bit_63(|p: &mut ServerHello| p.garage_open |= 1 << 63, "garage_open", Reserved)]
fn server_hello_rejects(
    #[case] m: fn(&mut ServerHello),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::server_hello(), m, field, kind);
}

#[rstest]
#[case::refuse_reason_6(offset::<ConnectRefused>("reason"), 6)]
fn connect_refused_rejects_unknown_reason(#[case] at: usize, #[case] value: u8) {
    assert_rejects_bytes(&s::connect_refused(), at, &[value], "reason", Enum);
}

#[test]
fn server_disconnect_rejects_unknown_reason() {
    assert_rejects_bytes(&s::server_disconnect(), 1, &[3], "reason", Enum);
}

#[test]
fn a_packet_of_another_id_is_refused() {
    let bytes = raw(&s::server_disconnect());
    assert_eq!(ClientDisconnect::decode(&bytes).unwrap_err().kind(), Length);
    assert_eq!(
        ServerHello::decode(&bytes).unwrap_err().kind(),
        UnknownPacket
    );
    assert_eq!(ServerHello::decode(&[]).unwrap_err().kind(), Length);
}
