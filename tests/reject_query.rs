//! query.md: every query packet refuses a wrong length and each rule the page states.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::Packet;
use dlmp::protocol::query::samples as s;
use dlmp::protocol::query::*;
use dlmp::protocol::text::Text;
use rstest::rstest;
use support::*;

#[rstest]
#[case::query_info(|| assert_exact_length(&s::query_info()))]
#[case::server_info(|| assert_exact_length(&s::server_info()))]
#[case::query_players(|| assert_exact_length(&s::query_players()))]
#[case::query_rules(|| assert_exact_length(&s::query_rules()))]
fn exact_length(#[case] check: fn()) {
    check();
}

#[rstest]
#[case::bad_magic(|p: &mut QueryInfo| p.magic = 0x504D_4C44, "magic", Reserved)]
#[case::pad_not_zero(|p: &mut QueryInfo| p.pad[183] = 1, "pad", Reserved)]
fn query_info_rejects(#[case] m: fn(&mut QueryInfo), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&s::query_info(), m, field, kind);
}

#[rstest]
#[case::bad_magic(|p: &mut QueryPlayers| p.magic = 0, "magic", Reserved)]
#[case::pad_not_zero(|p: &mut QueryPlayers| p.pad[0] = 1, "pad", Reserved)]
fn query_players_rejects(
    #[case] m: fn(&mut QueryPlayers),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::query_players(), m, field, kind);
}

#[rstest]
#[case::bad_magic(|p: &mut QueryRules| p.magic = 0, "magic", Reserved)]
#[case::pad_not_zero(|p: &mut QueryRules| p.pad[1188] = 1, "pad", Reserved)]
fn query_rules_rejects(
    #[case] m: fn(&mut QueryRules),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::query_rules(), m, field, kind);
}

#[rstest]
#[case::hours_24(|p: &mut ServerInfo| p.hours = 24, "hours", Range)]
#[case::minutes_60(|p: &mut ServerInfo| p.minutes = 60, "minutes", Range)]
#[case::weather_23(|p: &mut ServerInfo| p.weather = 23, "weather", Range)]
#[case::flag_bit_1(|p: &mut ServerInfo| p.flags = 2, "flags", Reserved)]
fn server_info_rejects(
    #[case] m: fn(&mut ServerInfo),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::server_info(), m, field, kind);
}

#[rstest]
#[case::no_pages(|p: &mut PlayerList| p.pages = 0, "pages", Range)]
fn player_list_rejects(
    #[case] m: fn(&mut PlayerList),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&s::player_list(), m, field, kind);
}

#[rstest]
#[case::no_pages(|p: &mut Rules| p.pages = 0, "pages", Range)]
#[case::empty_key(|p: &mut Rules| p.rules.0[0].key = Text::new("").expect("valid"), "key", Text)]
fn rules_reject(#[case] m: fn(&mut Rules), #[case] field: &str, #[case] kind: ErrorKind) {
    assert_rejects(&s::rules(), m, field, kind);
}

#[test]
fn a_player_list_with_a_missing_entry_is_truncated() {
    let mut bytes = s::player_list().to_bytes().expect("valid");
    bytes[9] = 3;
    assert_eq!(
        PlayerList::decode(&bytes).expect_err("invalid").kind(),
        Length
    );
}
