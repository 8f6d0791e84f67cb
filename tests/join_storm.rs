//! Join storms under the global send budget (issue 11; ADR 0043): clients joining at 200
//! hellos a second get every PlayerJoin of the roster, nobody times out or is sent a
//! PlayerLeave, and no tick sends more datagrams than `net_send_budget`, resends included.
//! The budget is set low so that a small harness storm presses on it as 2000 real clients
//! press on the default.

use std::collections::BTreeSet;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::connection::handshake::{PROTOCOL_VERSION, ServerHello};
use dlmp::protocol::connection::roster::{PlayerJoin, PlayerLeave};
use dlmp::session::SessionState;
use rstest::rstest;

/// Hellos per 20 ms tick: 200 a second.
const HELLOS_PER_TICK: usize = 4;
/// A client sends something at least this often (a real one sends frames), so only the
/// server's pace could make it time out.
const KEEPALIVE_TICKS: usize = 25;
/// A storm that has not completed by then has failed (the session timeout is 500 ticks).
const MAX_TICKS: usize = 3_000;

#[derive(Debug)]
struct Storm {
    /// The most datagrams the server sent in one tick.
    peak: usize,
    /// Ticks until every client had the whole roster.
    ticks: usize,
    /// Lane events resent, all sessions.
    resent: u64,
}

/// `n` clients saying `protocol` join at [`HELLOS_PER_TICK`], with `budget` datagrams a
/// tick; every client's acks are lost (it sends none) during ticks `deaf`.
fn storm(n: usize, protocol: u16, budget: usize, deaf: std::ops::Range<usize>) -> Storm {
    let mut config = Harness::config();
    config.net_send_budget = budget;
    let mut h = Harness::with_config(config);
    let clients: Vec<ClientId> = (0..n)
        .map(|_| {
            let c = h.add_client();
            h.set_protocol(c, protocol);
            c
        })
        .collect();
    let mut proven = vec![false; n];
    let mut peak = 0;
    let total = |h: &Harness| clients.iter().map(|&c| h.datagrams(c)).sum::<usize>();
    for tick in 0..MAX_TICKS {
        for (i, &c) in clients
            .iter()
            .enumerate()
            .skip(tick * HELLOS_PER_TICK)
            .take(HELLOS_PER_TICK)
        {
            let hello = h.client_hello(c, &format!("bot{i}"));
            h.send(c, hello);
        }
        for (i, &c) in clients.iter().enumerate() {
            let answered = !proven[i] && !h.packets::<ServerHello>(c).is_empty();
            if answered || (proven[i] && tick % KEEPALIVE_TICKS == 0) {
                h.prove(c);
                proven[i] = true;
            }
            h.set_auto_ack(c, !deaf.contains(&tick));
        }
        let before = total(&h);
        h.step();
        peak = peak.max(total(&h) - before);
        let complete = proven.iter().all(|&p| p)
            && clients
                .iter()
                .all(|&c| h.packets::<PlayerJoin>(c).len() == n - 1);
        if complete {
            for (i, &c) in clients.iter().enumerate() {
                let names: BTreeSet<String> = h
                    .packets::<PlayerJoin>(c)
                    .iter()
                    .map(|j| j.name.as_str().to_owned())
                    .collect();
                let others: BTreeSet<String> = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| format!("bot{j}"))
                    .collect();
                assert_eq!(names, others, "bot{i}'s roster");
                assert!(h.packets::<PlayerLeave>(c).is_empty(), "bot{i} saw a leave");
            }
            let sessions = h.world().resource::<SessionState>().sessions.len();
            assert_eq!(sessions, n, "every session is still live");
            return Storm {
                peak,
                ticks: tick + 1,
                resent: h.stats().lane_resend_count(),
            };
        }
    }
    panic!("the storm of {n} did not complete in {MAX_TICKS} ticks");
}

#[rstest]
#[case::protocol_1(PROTOCOL_VERSION, 200)]
#[case::protocol_2(dlmp::protocol::connection::handshake::PROTOCOL_BUNDLES, 40)]
fn a_join_storm_completes_and_no_tick_sends_past_the_budget(
    #[case] protocol: u16,
    #[case] budget: usize,
) {
    let unpaced = storm(150, protocol, 1_000_000, 0..0);
    assert!(
        unpaced.peak > budget,
        "the storm must press on the budget to test it: {unpaced:?}"
    );
    let paced = storm(150, protocol, budget, 0..0);
    assert!(paced.peak <= budget, "{paced:?} with a budget of {budget}");
    assert!(paced.ticks > unpaced.ticks, "{paced:?} vs {unpaced:?}");
}

#[test]
fn resends_of_a_storm_whose_acks_were_lost_stay_under_the_budget() {
    // Nobody acks for 2 s in the middle of the storm: every lane's window is resent.
    let budget = 200;
    let paced = storm(120, PROTOCOL_VERSION, budget, 20..120);
    assert!(paced.resent > 0, "{paced:?}");
    assert!(paced.peak <= budget, "{paced:?} with a budget of {budget}");
}
