use std::net::IpAddr;
use std::time::Duration;

use super::*;
use dlmp_protocol::query::samples as s;
use dlmp_protocol::query::*;
use dlmp_protocol::text::{FixedText, Text};
use dlmp_protocol::{ErrorKind, MAX_DATAGRAM, Packet};

fn snapshot(players: usize, rules: usize) -> QuerySnapshot {
    let facts = ServerFacts {
        players: u16::try_from(players).expect("valid"),
        name: FixedText::new("test").expect("valid"),
        ..ServerFacts::default()
    };
    // Ids in reverse, to see the snapshot sort them.
    let players = (0..players)
        .rev()
        .map(|i| PlayerEntry {
            player_id: u16::try_from(i).expect("valid"),
            score: i32::try_from(i).expect("valid") - 5,
            ping_ms: 40,
            name: Text::new(&format!("Player_{i:0>17}")).expect("valid"),
        })
        .collect();
    let rules = (0..rules)
        .map(|i| RuleEntry {
            key: Text::new(&format!("rule{i:0>28}")).expect("valid"),
            value: Text::new(&"v".repeat(128)).expect("valid"),
        })
        .collect();
    QuerySnapshot::new(facts, players, rules)
}

fn players_request(page: u16) -> Vec<u8> {
    QueryPlayers {
        page,
        ..s::query_players()
    }
    .to_bytes()
    .expect("valid")
}

#[test]
fn server_info_echoes_the_nonce_and_is_as_large_as_the_request() {
    let request = s::query_info().to_bytes().expect("valid");
    assert_eq!(request.len(), INFO_SIZE);
    let bytes = answer(&request, &snapshot(3, 0)).expect("valid");
    assert_eq!(bytes.len(), INFO_SIZE);
    let info = ServerInfo::decode(&bytes).expect("valid");
    assert_eq!(info.nonce, s::query_info().nonce);
    assert_eq!((info.players, info.name.as_str()), (3, "test"));
}

#[test]
fn a_malformed_request_gets_no_answer() {
    let good = s::query_info().to_bytes().expect("valid");
    let mut long = good.clone();
    long.push(0);
    let mut magic = good.clone();
    magic[1] ^= 1;
    let mut pad = good.clone();
    pad[INFO_SIZE - 1] = 1;
    let snap = snapshot(1, 1);
    assert_eq!(
        answer(&good[..INFO_SIZE - 1], &snap)
            .expect_err("invalid")
            .kind(),
        ErrorKind::Length
    );
    assert_eq!(
        answer(&long, &snap).expect_err("invalid").kind(),
        ErrorKind::Length
    );
    assert_eq!(
        answer(&magic, &snap).expect_err("invalid").kind(),
        ErrorKind::Reserved
    );
    assert_eq!(
        answer(&pad, &snap).expect_err("invalid").kind(),
        ErrorKind::Reserved
    );
    let mut players = players_request(0);
    players[MAX_DATAGRAM - 1] = 7;
    assert!(answer(&players, &snap).is_err());
    assert!(answer(&players[..100], &snap).is_err());
}

#[test]
fn players_come_in_whole_entries_by_id_over_pages_no_larger_than_the_request() {
    // 33 bytes an entry: 36 fit in 1190, so 100 players take 3 pages.
    let snap = snapshot(100, 0);
    let mut ids = Vec::new();
    for page in 0..3 {
        let request = players_request(page);
        let bytes = answer(&request, &snap).expect("valid");
        assert!(bytes.len() <= request.len());
        let list = PlayerList::decode(&bytes).expect("valid");
        assert_eq!((list.page, list.pages), (page, 3));
        assert_eq!(list.players.0.len(), if page < 2 { 36 } else { 28 });
        ids.extend(list.players.0.iter().map(|p| p.player_id));
    }
    assert_eq!(ids, (0..100).collect::<Vec<u16>>());
    let past =
        PlayerList::decode(&answer(&players_request(3), &snap).expect("valid")).expect("valid");
    assert_eq!((past.pages, past.players.0.len()), (3, 0));
}

#[test]
fn no_players_is_one_empty_page() {
    let list = PlayerList::decode(&answer(&players_request(0), &snapshot(0, 0)).expect("valid"))
        .expect("valid");
    assert_eq!((list.pages, list.players.0.len()), (1, 0));
}

#[test]
fn rules_come_in_key_order_and_pages() {
    // 1 + 32 + 1 + 128 = 162 bytes an entry: 7 fit in 1190.
    let snap = snapshot(0, 15);
    let request = QueryRules {
        page: 2,
        ..s::query_rules()
    }
    .to_bytes()
    .expect("valid");
    let rules = Rules::decode(&answer(&request, &snap).expect("valid")).expect("valid");
    assert_eq!((rules.pages, rules.rules.0.len()), (3, 1));
    assert_eq!(rules.rules.0[0].key.as_str(), format!("rule{:0>28}", 14));
}

#[test]
fn the_limit_is_a_burst_of_16_then_8_a_second_per_ip() {
    let mut limit = QueryLimiter::default();
    let ip: IpAddr = [127, 0, 0, 1].into();
    let t0 = Duration::from_secs(5);
    for _ in 0..16 {
        assert!(limit.allow(ip, t0));
    }
    assert!(!limit.allow(ip, t0));
    assert!(
        limit.allow([127, 0, 0, 2].into(), t0),
        "another IP has its own"
    );
    assert!(!limit.allow(ip, t0 + Duration::from_millis(124)));
    assert!(limit.allow(ip, t0 + Duration::from_millis(125)));
    assert!(!limit.allow(ip, t0 + Duration::from_millis(125)));
    assert_eq!(limit.tracked(), 2);
}

#[test]
fn the_board_hands_out_the_latest_snapshot() {
    let board = QueryBoard::default();
    assert_eq!(board.load().facts().players, 0);
    board.publish(snapshot(2, 0));
    assert_eq!(board.load().facts().players, 2);
}
