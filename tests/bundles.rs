//! connection.md §1 "Bundles (protocol 2)" and the order within a tick (connection.md §3,
//! issue 10) in the harness: a protocol 2 client gets each tick's packets packed into as
//! few bundles as fit, a protocol 1 client single packets; a viewer never gets a relay of
//! a subject before its show, nor a dead relay before the death.

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::PlayerId;
use dlmp::protocol::player::sync::Frame;
use dlmp::session::Connection;

const AT: Vec3 = Vec3::new(100.0, 100.0, 10.0);

/// What `to` applied about `subject`, in order: show parts, relays (alive or dead), death.
fn log(h: &Harness, to: ClientId, subject: PlayerId) -> Vec<&'static str> {
    h.received(to)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::PlayerSkills(p) if p.id == subject => Some("skills"),
            ServerPacket::PlayerNametag(p) if p.id == subject => Some("nametag"),
            ServerPacket::PlayerWasted(p) if p.id == subject => Some("wasted"),
            ServerPacket::RemotePlayerSync(p) if p.player_id == subject => {
                Some(if p.frame.alive { "relay" } else { "dead relay" })
            }
            _ => None,
        })
        .collect()
}

/// Alice and Bob, connected with `protocol`: Alice spawned at [`AT`] by the real connect
/// spawn, Bob's RequestSpawn there sent, so the next tick grants it and streaming shows
/// each to the other in that tick (a frame sent in the tick of its own spawn is dropped).
fn pair(protocol: u16) -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let a = h.connect_with_protocol("alice", protocol);
    let b = h.connect_with_protocol("bob", protocol);
    h.step();
    h.spawn(a, AT);
    h.offer_spawn(b, AT);
    (h, a, b)
}

/// A living frame from `client` with `seq`, without stepping.
fn frame(h: &mut Harness, client: ClientId, seq: u32) {
    let packet = dlmp::protocol::player::sync::PlayerSync {
        session_token: h.token(client),
        seq: dlmp::protocol::ids::Seq(seq),
        frame: Frame {
            death_epoch: h.get::<dlmp::player::DeathEpoch>(client).0,
            ..Frame::standing(AT)
        },
    };
    h.send(client, packet);
}

#[test]
fn a_protocol_2_client_gets_a_ticks_packets_in_one_bundle_and_a_protocol_1_client_singly() {
    for (protocol, bundled) in [(2, true), (1, false)] {
        let (mut h, a, b) = pair(protocol);
        h.steps(3);
        h.clear(b);
        // One tick after the show: a's relay and three chat lines.
        frame(&mut h, a, 1);
        // The chat feature's own send to one connection, three times.
        for _ in 0..3 {
            h.with::<Connection>(b, |c| {
                dlmp::chat::say(c, Default::default(), "hi");
            });
        }
        h.step();
        let packets = h.wire(b).len();
        assert!(packets >= 4, "{:?}", h.wire(b));
        let expected = if bundled { 1 } else { packets };
        assert_eq!(
            h.datagrams(b),
            expected,
            "protocol {protocol}: {:?}",
            h.wire(b)
        );
    }
}

#[test]
fn a_new_viewer_gets_the_show_before_the_first_relay_in_the_same_tick() {
    let (mut h, a, b) = pair(2);
    frame(&mut h, a, 1);
    h.step();
    let id = h.player_id(a);
    assert_eq!(log(&h, b, id), ["skills", "nametag", "relay"]);
}

#[test]
fn a_relay_waits_for_a_show_held_back_by_the_64_new_events_a_tick() {
    let (mut h, a, b) = pair(2);
    // 200 events wait on b's lane: the show's events leave in the fourth tick.
    // The chat feature's own send, 200 times: the lane is not state a packet sets.
    h.with::<Connection>(b, |c| {
        for _ in 0..200 {
            dlmp::chat::say(c, Default::default(), "filler");
        }
    });
    for seq in 1..=6 {
        frame(&mut h, a, seq);
        h.step();
    }
    let id = h.player_id(a);
    let seen = log(&h, b, id);
    assert_eq!(seen[..2], ["skills", "nametag"], "{seen:?}");
    assert!(seen[2..].iter().all(|&e| e == "relay"), "{seen:?}");
    assert!((1..=3).contains(&seen[2..].len()), "{seen:?}");
    let conn = h
        .world()
        .get::<Connection>(h.entity(b))
        .expect("a connection");
    assert!(conn.held_back() >= 3);
}

#[test]
fn a_viewer_gets_the_death_before_the_dead_relay() {
    let (mut h, a, b) = pair(2);
    frame(&mut h, a, 1);
    h.step();
    h.clear(b);
    // A lethal fall and a frame in one tick: the ledger commits the death, the relay
    // carries alive = 0.
    h.report_damage(a, 1, 54, 200.0);
    frame(&mut h, a, 2);
    h.step();
    frame(&mut h, a, 3);
    h.step();
    let id = h.player_id(a);
    assert_eq!(log(&h, b, id), ["wasted", "dead relay", "dead relay"]);
}

#[test]
fn two_frames_of_one_player_in_one_tick_are_both_relayed_in_order() {
    let (mut h, a, b) = pair(2);
    frame(&mut h, a, 1);
    h.step();
    h.clear(b);
    // The older frame latches a jump; the newer one does not.
    let jump = dlmp::protocol::player::sync::PlayerSync {
        session_token: h.token(a),
        seq: dlmp::protocol::ids::Seq(2),
        frame: Frame {
            keys: dlmp::protocol::player::sync::Keys::JUMP,
            death_epoch: h.get::<dlmp::player::DeathEpoch>(a).0,
            ..Frame::standing(AT)
        },
    };
    h.send(a, jump);
    frame(&mut h, a, 3);
    h.step();
    let id = h.player_id(a);
    let relays: Vec<_> = h
        .packets::<dlmp::protocol::player::sync::RemotePlayerSync>(b)
        .into_iter()
        .filter(|p| p.player_id == id)
        .map(|p| {
            (
                p.seq.0,
                p.frame.keys.0 & dlmp::protocol::player::sync::Keys::JUMP.0 != 0,
            )
        })
        .collect();
    assert_eq!(relays, [(2, true), (3, false)]);
}
