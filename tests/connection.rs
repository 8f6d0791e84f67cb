//! connection.md §2-§4 in the deterministic harness: handshake, refusals, strangers,
//! timeouts, join and leave, Disconnect, the reliable lane seen from a client, shutdown.

use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::Harness;
use dlmp::lane::Delivery;
use dlmp::net::DropReason;
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::chat::ChatMessage;
use dlmp::protocol::connection::handshake::{
    ConnectRefused, LeaveReason, Protocol, RefuseReason, ServerDisconnect, ServerHello,
};
use dlmp::protocol::connection::roster::{PlayerJoin, PlayerLeave};
use dlmp::protocol::ids::{EventId, PlayerId, SessionToken};
use dlmp::protocol::{ClientPacket, Packet};
use dlmp::session::{Connection, PlayerIndex, SessionState};
use rstest::rstest;

fn config() -> Config {
    Harness::config()
}

fn connection(h: &mut Harness, id: PlayerId) -> bevy_ecs::world::EntityWorldMut<'_> {
    let entity = h
        .world()
        .resource::<PlayerIndex>()
        .get(id)
        .expect("a live player");
    h.world_mut().entity_mut(entity)
}

#[test]
fn a_hello_is_answered_with_the_smallest_free_id_and_a_token() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    let (ha, hb) = (h.hello(a).clone(), h.hello(b).clone());
    assert_eq!((ha.player_id, hb.player_id), (PlayerId(0), PlayerId(1)));
    assert_ne!(ha.session_token, SessionToken(0));
    assert_ne!(ha.session_token, hb.session_token);
    assert!(hb.player_token.0 > ha.player_token.0);
    assert_eq!((ha.max_players, ha.tick_hz, ha.weather), (1000, 50, 0));
}

#[test]
fn a_repeated_hello_gets_the_same_server_hello() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let hello = h.client_hello(a, "alice");
    h.send(a, hello);
    h.step();
    let hellos = h.packets::<ServerHello>(a);
    assert_eq!(hellos.len(), 2);
    assert_eq!(hellos[0], hellos[1]);
}

fn refused(
    h: &mut Harness,
    name: &str,
    mutate: impl FnOnce(&mut dlmp::protocol::connection::handshake::ClientHello),
) -> Vec<ConnectRefused> {
    let c = h.add_client();
    let mut hello = h.client_hello(c, name);
    mutate(&mut hello);
    h.send(c, hello);
    h.step();
    assert!(h.packets::<ServerHello>(c).is_empty());
    h.packets::<ConnectRefused>(c)
}

#[rstest]
#[case::wrong_protocol("carl", 3, RefuseReason::WrongProtocol)]
#[case::protocol_0("carl", 0, RefuseReason::WrongProtocol)]
#[case::short_name("cj", 1, RefuseReason::InvalidName)]
#[case::bad_character("c j", 1, RefuseReason::InvalidName)]
#[case::name_in_use("ALICE", 1, RefuseReason::NameInUse)]
fn a_hello_is_refused_for_each_reason(
    #[case] name: &str,
    #[case] protocol: u16,
    #[case] reason: RefuseReason,
) {
    let mut h = Harness::new();
    h.connect("alice");
    let answers = refused(&mut h, name, |hello| hello.protocol = protocol);
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].reason, reason);
}

#[test]
fn a_full_server_refuses_with_reason_0() {
    let mut h = Harness::with_config(Config {
        max_players: 1,
        ..config()
    });
    h.connect("alice");
    let answers = refused(&mut h, "bob", |_| {});
    assert_eq!(answers[0].reason, RefuseReason::ServerFull);
}

#[test]
fn a_banned_address_is_refused_with_reason_4() {
    let mut h = Harness::new();
    let c = h.add_client();
    let ip = h.addr(c).ip();
    h.world_mut()
        .resource_mut::<SessionState>()
        .sessions
        .ban(ip);
    let hello = h.client_hello(c, "mallory");
    h.send(c, hello);
    h.step();
    let answers = h.packets::<ConnectRefused>(c);
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].reason, RefuseReason::Banned);
}

#[test]
fn hellos_past_four_a_second_from_one_address_get_no_answer() {
    let mut h = Harness::new();
    let c = h.add_client();
    for _ in 0..6 {
        let hello = h.client_hello(c, "carl");
        h.send(c, hello);
    }
    h.step();
    assert_eq!(h.packets::<ServerHello>(c).len(), 4);
    assert_eq!(h.stats().drops(DropReason::RateLimited), 2);
}

#[test]
fn a_new_nonce_from_the_same_address_replaces_the_session() {
    let mut h = Harness::new();
    let watcher = h.connect("watcher");
    let a = h.connect("alice");
    let old = h.hello(a).clone();
    let mut hello = h.client_hello(a, "alice");
    hello.nonce ^= 0xFFFF;
    h.send(a, hello);
    h.step();
    let leaves = h.packets::<PlayerLeave>(watcher);
    assert_eq!(leaves.len(), 1);
    assert_eq!(
        (leaves[0].id, leaves[0].player_token, leaves[0].reason),
        (old.player_id, old.player_token, LeaveReason::Timeout)
    );
    let fresh = h.hello(a).clone();
    assert_ne!(fresh.session_token, old.session_token);
    assert!(
        h.packets::<ServerDisconnect>(a).is_empty(),
        "the address belongs to the new session"
    );
}

#[test]
fn packets_with_an_unknown_token_or_from_another_port_are_dropped_silently() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.take(a);
    h.take(b);
    let token = h.token(a);
    let chat = |token| {
        ClientPacket::from(dlmp::protocol::connection::chat::ClientChat {
            session_token: token,
            event_id: EventId(1),
            text: dlmp::protocol::connection::chat::ChatText::new("hi").expect("text"),
        })
    };
    h.send(a, chat(SessionToken(token.0 ^ 1)));
    let mut other_port = h.addr(a);
    other_port.set_port(other_port.port() + 1000);
    h.send_from(other_port, chat(token));
    h.steps(2);
    assert!(h.received(a).is_empty() && h.received(b).is_empty());
    assert!(h.stray().is_empty(), "no answer to strangers");
    assert_eq!(h.stats().drops(DropReason::UnknownToken), 1);
    assert_eq!(h.stats().drops(DropReason::WrongAddress), 1);
}

#[test]
fn a_newcomer_gets_a_player_join_for_everyone_already_connected() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    let c = h.connect("carl");
    h.step();
    let names = |h: &Harness, c| {
        h.packets::<PlayerJoin>(c)
            .iter()
            .map(|j| j.name.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&h, c), ["alice", "bob"]);
    assert_eq!(names(&h, a), ["bob", "carl"]);
    assert_eq!(names(&h, b), ["alice", "carl"]);
    let join = &h.packets::<PlayerJoin>(c)[0];
    assert_eq!(
        (join.id, join.player_token),
        (h.player_id(a), h.hello(a).player_token)
    );
}

#[test]
fn a_client_disconnect_sends_player_leave_reason_0_to_the_others() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.disconnect(a);
    h.step();
    let leaves = h.packets::<PlayerLeave>(b);
    assert_eq!(leaves.len(), 1);
    assert_eq!(
        (leaves[0].id, leaves[0].reason),
        (h.player_id(a), LeaveReason::Quit)
    );
    assert!(h.packets::<ServerDisconnect>(a).is_empty());
    assert_eq!(h.world().resource::<PlayerIndex>().len(), 1);
}

#[test]
fn ten_seconds_of_silence_end_a_session_with_reason_1() {
    let mut h = Harness::new();
    let quiet = h.connect("quiet");
    let talker = h.connect("talker");
    h.set_auto_ack(quiet, false);
    // The talker keeps its session alive with acks; the quiet one says nothing more.
    h.advance(Duration::from_millis(9_900));
    assert!(
        h.packets::<PlayerLeave>(talker).is_empty(),
        "still alive before 10 s"
    );
    h.advance(Duration::from_millis(200));
    let leaves = h.packets::<PlayerLeave>(talker);
    assert_eq!(leaves.len(), 1);
    assert_eq!(
        (leaves[0].id, leaves[0].reason),
        (h.player_id(quiet), LeaveReason::Timeout)
    );
    h.advance(Duration::from_millis(200));
    let bye = h.packets::<ServerDisconnect>(quiet);
    assert_eq!(bye.len(), 3, "Disconnect is sent 3 times");
    assert!(bye.iter().all(|d| d.reason == LeaveReason::Timeout));
}

#[test]
fn a_reliable_event_is_resent_until_acknowledged_and_applied_once() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.set_auto_ack(a, false);
    let b = h.connect("bob");
    h.step();
    let on_wire = h
        .wire(a)
        .iter()
        .filter(|p| matches!(p, ServerPacket::PlayerJoin(_)))
        .count();
    assert_eq!(on_wire, 1);
    // Unacknowledged: the join of bob comes again after the retransmission timeout.
    h.advance(Duration::from_millis(1_200));
    let on_wire = h
        .wire(a)
        .iter()
        .filter(|p| matches!(p, ServerPacket::PlayerJoin(_)))
        .count();
    assert!(on_wire >= 2, "resent, {on_wire} copies");
    assert_eq!(h.packets::<PlayerJoin>(a).len(), 1, "applied once");
    h.ack(a);
    h.step();
    h.clear(a);
    h.advance(Duration::from_secs(2));
    assert!(
        h.wire(a)
            .iter()
            .all(|p| !matches!(p, ServerPacket::PlayerJoin(_))),
        "no resend after the ack"
    );
    let _ = b;
}

#[test]
fn a_lane_without_acks_for_15_seconds_ends_the_session() {
    let mut h = Harness::with_config(Config {
        session_timeout_ms: 60_000,
        ..config()
    });
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.set_auto_ack(a, false);
    h.connect("carl");
    // alice keeps sending (so no silence timeout) but never acks carl's join.
    let keepalive = |h: &mut Harness| {
        let ping = dlmp::protocol::connection::lane::ClientAck {
            session_token: h.token(a),
            event_id: EventId(1),
        };
        h.send(a, ping);
    };
    for _ in 0..(14_500 / 20) {
        keepalive(&mut h);
        h.step();
    }
    assert!(h.packets::<PlayerLeave>(b).is_empty());
    for _ in 0..50 {
        keepalive(&mut h);
        h.step();
    }
    let leaves = h.packets::<PlayerLeave>(b);
    assert_eq!(leaves.len(), 1);
    assert_eq!(
        (leaves[0].id, leaves[0].reason),
        (h.player_id(a), LeaveReason::Timeout)
    );
}

#[test]
fn a_critical_event_past_512_waiting_overflows_the_lane_and_ends_the_session() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.set_auto_ack(a, false);
    h.step();
    let id = h.player_id(a);
    let mut entity = connection(&mut h, id);
    let mut conn = entity.get_mut::<Connection>().expect("a connection");
    let waiting = conn.waiting();
    let line = |n: usize| ChatMessage {
        event_id: EventId(0),
        color: dlmp::protocol::connection::chat::Color(0x00FF_FFFF),
        text: dlmp::chat::chat_text(&format!("line {n}")),
    };
    for n in waiting..512 {
        conn.send_event(line(n), Delivery::Critical)
            .expect("room up to 512");
    }
    assert_eq!(
        conn.send_event(line(0), Delivery::Normal),
        Err(dlmp::session::SendError::QueueFull)
    );
    assert_eq!(
        conn.send_event(line(513), Delivery::Critical),
        Err(dlmp::session::SendError::Overflowed)
    );
    h.step();
    let leaves = h.packets::<PlayerLeave>(b);
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0].reason, LeaveReason::Timeout);
    h.advance(Duration::from_millis(150));
    let bye = h.packets::<ServerDisconnect>(a);
    assert_eq!(bye.len(), 3);
    assert!(
        bye.iter().all(|d| d.reason == LeaveReason::Kicked),
        "Disconnect reason 2"
    );
}

#[test]
fn a_droppable_event_is_refused_at_480_waiting() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.set_auto_ack(a, false);
    let id = h.player_id(a);
    let mut entity = connection(&mut h, id);
    let mut conn = entity.get_mut::<Connection>().expect("a connection");
    let line = ChatMessage {
        event_id: EventId(0),
        color: dlmp::protocol::connection::chat::Color(0),
        text: dlmp::chat::chat_text("x"),
    };
    while conn.waiting() < 479 {
        conn.send_event(line.clone(), Delivery::Normal)
            .expect("room");
    }
    assert!(
        conn.send_event(line.clone(), Delivery::Droppable).is_ok(),
        "479 waiting: taken"
    );
    assert_eq!(
        conn.send_event(line.clone(), Delivery::Droppable),
        Err(dlmp::session::SendError::QueueFull)
    );
    assert!(
        conn.send_event(line, Delivery::Critical).is_ok(),
        "critical always queued"
    );
}

#[test]
fn an_invalid_packet_is_refused_to_its_sender_not_sent() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = h.player_id(a);
    let mut entity = connection(&mut h, id);
    let mut conn = entity.get_mut::<Connection>().expect("a connection");
    let bad = ChatMessage {
        event_id: EventId(0),
        color: dlmp::protocol::connection::chat::Color(0x0100_0000),
        text: dlmp::chat::chat_text("x"),
    };
    assert!(matches!(
        conn.send_event(bad, Delivery::Normal),
        Err(dlmp::session::SendError::Invalid(_))
    ));
    let ack = dlmp::protocol::connection::lane::ServerAck {
        event_id: EventId(1),
    };
    assert_eq!(
        conn.send_event(ack, Delivery::Normal),
        Err(dlmp::session::SendError::WrongLane)
    );
}

#[test]
fn shutdown_sends_every_client_disconnect_and_exits() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.request_shutdown();
    for _ in 0..20 {
        if h.exited() {
            break;
        }
        h.step();
    }
    assert!(h.exited());
    for c in [a, b] {
        let bye = h.packets::<ServerDisconnect>(c);
        assert_eq!(bye.len(), 3, "three copies");
        assert!(bye.iter().all(|d| d.reason == LeaveReason::Quit));
    }
}

#[test]
fn every_packet_the_server_sent_in_these_scenarios_decodes() {
    // The harness panics on a datagram a client would reject; this runs a busy scenario.
    let mut h = Harness::new();
    let clients: Vec<_> = (0..8).map(|i| h.connect(&format!("player{i}"))).collect();
    for &c in &clients {
        h.chat(c, "hello everyone");
    }
    h.steps(5);
    for &c in &clients {
        assert_eq!(h.packets::<ChatMessage>(c).len(), 8);
        for p in h.received(c) {
            let mut buf = [0u8; 1200];
            let n = p.encode(&mut buf).expect("valid");
            assert_eq!(&ServerPacket::decode(&buf[..n]).expect("decodes"), p);
        }
    }
    let _ = ServerDisconnect::ID;
}

// Found while writing tests/real_socket.rs and benches/server.rs.

#[test]
fn hellos_of_the_same_tick_get_each_others_player_join() {
    let mut h = Harness::new();
    let a = h.add_client();
    let b = h.add_client();
    let (hello_a, hello_b) = (h.client_hello(a, "alice"), h.client_hello(b, "bob"));
    h.send(a, hello_a);
    h.send(b, hello_b);
    h.step();
    h.prove(a);
    h.prove(b);
    h.steps(2);
    assert_eq!(h.packets::<ServerHello>(a).len(), 1);
    assert_eq!(h.packets::<ServerHello>(b).len(), 1);
    assert_eq!(
        h.packets::<PlayerJoin>(a).len(),
        1,
        "alice never hears of bob"
    );
    assert_eq!(
        h.packets::<PlayerJoin>(b).len(),
        1,
        "bob never hears of alice"
    );
}

#[test]
fn the_514th_player_can_connect() {
    let mut h = Harness::new();
    for i in 0..513 {
        h.connect(&format!("player{i:03}"));
    }
    let late = h.add_client();
    let hello = h.client_hello(late, "latecomer");
    h.send(late, hello);
    h.steps(2);
    assert_eq!(h.packets::<ServerHello>(late).len(), 1);
    assert!(h.packets::<ServerDisconnect>(late).is_empty());
    assert_eq!(h.world().resource::<PlayerIndex>().len(), 514);
    h.prove(late);
    // The roster snapshot is paced through the lane and arrives whole, in slot order.
    h.steps(40);
    let joins = h.packets::<PlayerJoin>(late);
    assert_eq!(joins.len(), 513);
    assert!(joins.windows(2).all(|w| w[0].id.0 < w[1].id.0));
}

/// A gamemode that renames (`/rename NAME`) and recolors (`/color RGB`) the speaker, and
/// tells it the error of a refused call.
const NAMETAG_GM: &str = r#"
local function try(p, f, ...)
    local ok, err = pcall(f, p, ...)
    if not ok then
        local line = tostring(err):gsub("^runtime error: ", ""):match("[^\n]*")
        dlmp.send_chat(line, nil, { p })
    end
end
dlmp.add_command("rename", function(p, args) try(p, p.set_name, args[1]) end)
dlmp.add_command("color", function(p, args) try(p, p.set_color, tonumber(args[1])) end)
dlmp.add_command("whoami", function(p)
    dlmp.send_chat(string.format("%s %06X", p:name(), p:color()), nil, { p })
end)
"#;

#[test]
fn a_rename_and_a_color_change_send_the_nametag_to_the_player_and_its_viewers() {
    use dlmp::harness::TempScripts;
    use dlmp::protocol::connection::roster::PlayerNametag;
    use dlmp::protocol::geometry::Vec3;
    let scripts = TempScripts::new("rename");
    scripts.resource("gm", NAMETAG_GM);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(Vec3::new(100.0, 200.0, 10.0));
    h.step();
    h.clear(a);
    h.clear(b);
    h.chat(a, "/rename alicia");
    h.steps(2);
    h.chat(a, "/color 16711680");
    h.steps(2);
    h.chat(a, "/color 16711680");
    h.steps(2);
    for c in [a, b] {
        let tags = h.packets::<PlayerNametag>(c);
        let seen: Vec<(&str, u32)> = tags.iter().map(|t| (t.name.as_str(), t.color.0)).collect();
        assert_eq!(
            seen,
            [("alicia", 0x00FF_FFFF), ("alicia", 0x00FF_0000)],
            "the same color again sends nothing"
        );
        assert!(tags.iter().all(|t| t.id == h.player_id(a)));
    }
    h.chat(a, "/whoami");
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["alicia FF0000"]);
}

#[test]
fn a_rename_keeps_names_unique_and_frees_the_old_name_for_a_hello() {
    use dlmp::harness::TempScripts;
    let scripts = TempScripts::new("rename-unique");
    scripts.resource("gm", NAMETAG_GM);
    let mut h = scripts.harness();
    let a = h.connect("alice");
    h.connect("bob");
    h.step();
    h.take_chat_lines(a);
    for (line, answer) in [
        ("/rename BOB", r#"set_name: the name "BOB" is in use"#),
        (
            "/rename a",
            r#"set_name: name "a" is not 3..=24 characters of A-Z a-z 0-9 _ [ ] ( ) . $ @ ="#,
        ),
        (
            "/color 16777216",
            "set_color: rgb 16777216 is outside 0..=16777215",
        ),
    ] {
        h.chat(a, line);
        h.steps(2);
        assert_eq!(h.take_chat_lines(a), [answer], "{line}");
    }
    h.chat(a, "/rename Sweet");
    h.steps(2);
    assert!(h.take_chat_lines(a).is_empty());
    let answers = refused(&mut h, "sweet", |_| {});
    assert_eq!(answers[0].reason, RefuseReason::NameInUse);
    let c = h.connect("alice");
    assert!(
        h.world()
            .resource::<PlayerIndex>()
            .get(h.player_id(c))
            .is_some(),
        "the old name is free"
    );
}

// Hardening (issue 10): amplification, "server full" from one host, inbound floods,
// the Disconnect burst's spacing. ADR 0018 and 0019.

/// The packets of the client's wire that are not ServerHello.
fn besides_server_hello(h: &Harness, c: dlmp::harness::ClientId) -> Vec<&'static str> {
    h.wire(c)
        .iter()
        .filter(|p| !matches!(p, ServerPacket::ServerHello(_)))
        .map(ServerPacket::name)
        .collect()
}

#[test]
fn a_silent_session_is_sent_its_server_hello_and_nothing_else_until_it_times_out() {
    let mut h = Harness::new();
    let players: Vec<_> = (0..20)
        .map(|i| h.connect(&format!("player{i:02}")))
        .collect();
    let (bytes_in, bytes_out) = (
        h.stats().unproven_received_bytes(),
        h.stats().unproven_sent_bytes(),
    );
    let silent = h.add_client();
    let hello = h.client_hello(silent, "silent");
    // The client resends its hello every 500 ms, as an unanswered one would.
    for _ in 0..4 {
        h.send(silent, hello.clone());
        h.advance(Duration::from_millis(500));
    }
    h.chat(players[0], "a line for everyone");
    h.advance(Duration::from_secs(9));
    assert_eq!(
        h.packets::<ServerHello>(silent).len(),
        4,
        "each hello answered"
    );
    assert_eq!(besides_server_hello(&h, silent), Vec::<&str>::new());
    // It timed out as usual; the others saw it come and go.
    let leaves = h.packets::<PlayerLeave>(players[1]);
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0].reason, LeaveReason::Timeout);
    assert_eq!(h.world().resource::<PlayerIndex>().len(), 20);
    // What went to the unproven address is what it was answered: 36 bytes a 64-byte hello.
    let stats = h.stats();
    assert_eq!(stats.unproven_received_bytes() - bytes_in, 4 * 64);
    assert_eq!(stats.unproven_sent_bytes() - bytes_out, 4 * 36);
    assert!(stats.unproven_sent_bytes() <= stats.unproven_received_bytes());
}

#[test]
fn what_a_session_is_sent_before_its_proof_waits_and_arrives_in_order() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let late = h.add_client();
    let hello = h.client_hello(late, "latecomer");
    h.send(late, hello);
    h.step();
    h.chat(a, "welcome");
    h.steps(5);
    assert_eq!(besides_server_hello(&h, late), Vec::<&str>::new());
    h.prove(late);
    h.steps(3);
    assert_eq!(h.packets::<PlayerJoin>(late).len(), 1, "alice's join, held");
    assert_eq!(h.chat_lines(late), ["alice: welcome"]);
    let events: Vec<_> = h
        .received(late)
        .iter()
        .filter_map(ServerPacket::event_id)
        .collect();
    assert_eq!(events, [EventId(1), EventId(2)]);
}

#[test]
fn fifty_sockets_of_one_host_cannot_take_the_slots_of_a_fifty_player_server() {
    let mut h = Harness::with_config(Config {
        max_players: 50,
        session_timeout_ms: 60_000,
        ..config()
    });
    let ip: std::net::IpAddr = "127.9.9.9".parse().expect("an ip");
    let attackers: Vec<_> = (0..50).map(|_| h.add_client_at(ip)).collect();
    // Every socket says hello every tick for 5 s and proves every session it gets.
    for tick in 0..250 {
        for (i, &c) in attackers.iter().enumerate() {
            if h.token(c) == SessionToken(0) {
                let hello = h.client_hello(c, &format!("bot{i:02}"));
                h.send(c, hello);
            } else if tick % 10 == 0 {
                h.prove(c);
            }
        }
        h.step();
        let sessions = h
            .world()
            .resource::<SessionState>()
            .sessions
            .count_at_ip(ip);
        // At most 4 hellos a second from the IP, the first second included.
        assert!(
            sessions <= 4 * (tick / 50 + 1),
            "{sessions} sessions at tick {tick}"
        );
    }
    let state = &h.world().resource::<SessionState>().sessions;
    assert_eq!(state.count_at_ip(ip), 16, "the per-IP cap");
    let real = h.connect("real_player");
    assert!(
        h.world()
            .resource::<PlayerIndex>()
            .get(h.player_id(real))
            .is_some()
    );
    assert!(h.stats().drops(DropReason::RateLimited) > 0);
    let refusals: usize = attackers
        .iter()
        .map(|&c| h.packets::<ConnectRefused>(c).len())
        .sum();
    assert!(refusals > 0, "the cap is answered with reason 0");
    assert!(attackers.iter().all(|&c| {
        h.packets::<ConnectRefused>(c)
            .iter()
            .all(|r| r.reason == RefuseReason::ServerFull)
    }));
}

#[test]
fn spoofed_hellos_fill_at_most_a_quarter_of_the_slots() {
    let mut h = Harness::with_config(Config {
        max_players: 40,
        ..config()
    });
    // 40 hosts say hello and never prove (their answers go to someone else).
    let spoofed: Vec<_> = (0..40).map(|_| h.add_client()).collect();
    for (i, &c) in spoofed.iter().enumerate() {
        let hello = h.client_hello(c, &format!("spoof{i:02}"));
        h.send(c, hello);
    }
    h.step();
    let state = &h.world().resource::<SessionState>().sessions;
    assert_eq!((state.len(), state.unproven()), (10, 10));
    let refused = spoofed
        .iter()
        .filter(|&&c| h.packets::<ConnectRefused>(c).len() == 1)
        .count();
    assert_eq!(refused, 30);
    // The other 30 slots stay free for real players: one that was in keeps playing, and
    // once the unproven sessions time out (no Disconnect goes to them) newcomers get in.
    h.advance(Duration::from_secs(11));
    let state = &h.world().resource::<SessionState>().sessions;
    assert_eq!((state.len(), state.unproven()), (0, 0));
    assert!(spoofed.iter().all(|&c| {
        besides_server_hello(&h, c)
            .iter()
            .all(|&name| name == "ConnectRefused")
    }));
    h.connect("real_player");
}

#[test]
fn a_flood_from_one_session_is_dropped_then_kicked_naming_the_player() {
    let mut h = Harness::new();
    let flooder = h.connect("flooder");
    let watcher = h.connect("watcher");
    let ack = |h: &Harness| dlmp::protocol::connection::lane::ClientAck {
        session_token: h.token(flooder),
        event_id: EventId(0),
    };
    // 3000 acks a second: a tenth of the attack that was never limited.
    for _ in 0..100 {
        for _ in 0..60 {
            let a = ack(&h);
            h.send(flooder, a);
        }
        h.step();
    }
    assert!(h.stats().drops(DropReason::OverBudget) > 0);
    let leaves = h.packets::<PlayerLeave>(watcher);
    assert_eq!(leaves.len(), 1, "kicked");
    assert_eq!(
        (leaves[0].id, leaves[0].reason),
        (h.player_id(flooder), LeaveReason::Kicked)
    );
    h.advance(Duration::from_millis(200));
    let bye = h.packets::<ServerDisconnect>(flooder);
    assert_eq!(bye.len(), 3);
    assert!(bye.iter().all(|d| d.reason == LeaveReason::Kicked));
}

#[test]
fn a_client_at_the_rates_the_pages_allow_is_never_limited() {
    let mut h = Harness::with_config(Config {
        session_timeout_ms: 60_000,
        ..config()
    });
    let a = h.connect("busy");
    let b = h.connect("other");
    let drops_before = h.stats().total_drops();
    // 6 datagrams a tick at 50 Hz: 300 a second (frames, vehicle frames, acks), for 10 s.
    for _ in 0..500 {
        for _ in 0..6 {
            let ack = dlmp::protocol::connection::lane::ClientAck {
                session_token: h.token(a),
                event_id: EventId(0),
            };
            h.send(a, ack);
        }
        h.step();
    }
    assert_eq!(h.stats().drops(DropReason::OverBudget), 0);
    assert_eq!(h.stats().total_drops(), drops_before);
    assert!(h.packets::<PlayerLeave>(b).is_empty());
}

/// The ticks (since the first) at which the client got each ServerDisconnect.
fn disconnect_times(h: &mut Harness, c: dlmp::harness::ClientId, ticks: usize) -> Vec<Duration> {
    let mut times = Vec::new();
    let mut seen = 0;
    for _ in 0..ticks {
        h.step();
        let now = h.packets::<ServerDisconnect>(c).len();
        for _ in seen..now {
            times.push(h.now());
        }
        seen = now;
    }
    times
}

#[rstest]
#[case::ticks_of_10_ms(100, [0, 50, 100])]
#[case::ticks_of_20_ms(50, [0, 60, 100])]
fn the_three_disconnects_are_50_ms_apart(#[case] tick_hz: u16, #[case] expected_ms: [u64; 3]) {
    let mut h = Harness::with_config(Config {
        tick_hz,
        ..config()
    });
    let a = h.connect("alice");
    h.set_auto_ack(a, false);
    let times = disconnect_times(&mut h, a, usize::from(tick_hz) * 12);
    assert_eq!(times.len(), 3, "three copies");
    let apart: Vec<u64> = times
        .iter()
        .map(|t| (*t - times[0]).as_millis() as u64)
        .collect();
    // Copy i leaves at the first tick at or after i × 50 ms.
    assert_eq!(apart, expected_ms);
}

#[test]
fn a_new_nonce_from_a_proven_address_counts_its_bytes_like_any_unproven_hello() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let (bytes_in, bytes_out) = (
        h.stats().unproven_received_bytes(),
        h.stats().unproven_sent_bytes(),
    );
    let mut hello = h.client_hello(a, "alice");
    hello.nonce ^= 0xFFFF;
    h.send(a, hello);
    h.step();
    assert_eq!(h.packets::<ServerHello>(a).len(), 2, "a new session");
    assert_eq!(h.stats().unproven_received_bytes() - bytes_in, 64);
    assert_eq!(h.stats().unproven_sent_bytes() - bytes_out, 36);
    assert!(
        matches!(h.wire(a).last(), Some(ServerPacket::ServerHello(_))),
        "the new, unproven session is sent nothing after it"
    );
}

#[test]
fn client_packets_go_through_the_network_threads_decoder_as_bytes() {
    use dlmp::protocol::ErrorKind;
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    h.clear(b);
    // Arbitrary bytes: an unknown id and a truncated ack.
    h.send_raw(a, b"\xEEnot a packet");
    let ack = dlmp::protocol::connection::lane::ClientAck {
        session_token: h.token(a),
        event_id: EventId(0),
    };
    let mut bytes = ack.to_bytes().expect("valid");
    bytes.pop();
    h.send_raw(a, &bytes);
    // A typed packet that breaks its page (a control character in chat) is sent as the
    // bytes a bad client would send, and the decoder drops it.
    let chat = dlmp::protocol::connection::chat::ClientChat {
        session_token: h.token(a),
        event_id: EventId(1),
        text: dlmp::protocol::connection::chat::ChatText::new("bell\u{7}").expect("fits"),
    };
    h.send(a, chat);
    h.steps(2);
    let stats = h.stats();
    assert_eq!(stats.drops(DropReason::Decode(ErrorKind::UnknownPacket)), 1);
    assert_eq!(stats.drops(DropReason::Decode(ErrorKind::Length)), 1);
    assert_eq!(stats.drops(DropReason::Decode(ErrorKind::Text)), 1);
    assert!(h.chat_lines(b).is_empty(), "nothing reached the game");
    // The next line with the same event id is the first the server applies.
    h.chat(a, "hello");
    h.steps(2);
    assert_eq!(h.chat_lines(b), ["alice: hello"]);
}
#[rstest]
#[case::protocol_1(1, Protocol::Single)]
#[case::protocol_2(2, Protocol::Bundles)]
fn a_hello_of_protocol_1_or_2_is_accepted_and_its_protocol_remembered(
    #[case] version: u16,
    #[case] protocol: Protocol,
) {
    let mut h = Harness::new();
    let c = h.add_client();
    let mut hello = h.client_hello(c, "carl");
    hello.protocol = version;
    h.send(c, hello);
    h.step();
    assert_eq!(h.packets::<ServerHello>(c).len(), 1);
    let id = h.player_id(c);
    let conn = connection(&mut h, id);
    assert_eq!(
        conn.get::<Connection>().map(Connection::protocol),
        Some(protocol)
    );
}

/// Runs `ticks` ticks in which `attackers` (sockets that never prove) each say hello with a
/// fresh nonce whenever their IP's limit lets them, and `join` is called once a second.
fn hammer(
    h: &mut Harness,
    attackers: &[dlmp::harness::ClientId],
    ticks: usize,
    mut join: impl FnMut(&mut Harness, usize),
) {
    for tick in 0..ticks {
        for (i, &c) in attackers.iter().enumerate() {
            // A hello every 250 ms from each socket, a new nonce each time: every one
            // the server takes opens a session that is never proven.
            if (tick + i) % 12 == 0 {
                let hello = dlmp::protocol::connection::handshake::ClientHello {
                    nonce: u32::try_from(tick * 1000 + i).expect("small"),
                    ..h.client_hello(c, &format!("silent{i:03}"))
                };
                h.send(c, hello);
            }
        }
        if tick % 50 == 0 {
            join(h, tick / 50);
        }
        h.step();
    }
}

#[test]
fn silent_hellos_from_one_host_lock_no_one_out_while_slots_are_free() {
    let mut h = Harness::with_config(Config {
        max_players: 50,
        ..config()
    });
    let ip: std::net::IpAddr = "127.9.9.9".parse().expect("an ip");
    let attackers: Vec<_> = (0..13).map(|_| h.add_client_at(ip)).collect();
    let mut real = Vec::new();
    hammer(&mut h, &attackers, 30 * 50, |h, second| {
        real.push(h.connect(&format!("real{second:02}")));
        let held = h
            .world()
            .resource::<SessionState>()
            .sessions
            .unproven_at(ip);
        assert!(held <= 4, "the host holds {held} unproven sessions");
    });
    assert_eq!(real.len(), 30);
    for &c in &real {
        assert!(
            h.packets::<ConnectRefused>(c).is_empty(),
            "a real player was refused"
        );
        assert!(
            h.world()
                .resource::<PlayerIndex>()
                .get(h.player_id(c))
                .is_some()
        );
    }
}

#[test]
fn unproven_sessions_of_many_hosts_make_room_for_real_players() {
    // 25 unproven sessions at most (a quarter of 100 slots); 20 hosts could hold 80.
    let mut h = Harness::with_config(Config {
        max_players: 100,
        ..config()
    });
    let attackers: Vec<_> = (0..20)
        .flat_map(|n| {
            let ip: std::net::IpAddr = format!("127.8.0.{}", n + 1).parse().expect("an ip");
            [ip; 4]
        })
        .map(|ip| h.add_client_at(ip))
        .collect();
    let mut real = Vec::new();
    hammer(&mut h, &attackers, 20 * 50, |h, second| {
        if second > 0 {
            let sessions = &h.world().resource::<SessionState>().sessions;
            assert_eq!(
                sessions.unproven(),
                sessions.max_unproven(),
                "the cap is full"
            );
        }
        real.push(h.connect(&format!("real{second:02}")));
    });
    for &c in &real {
        assert!(
            h.packets::<ConnectRefused>(c).is_empty(),
            "a real player was refused"
        );
        assert!(
            h.world()
                .resource::<PlayerIndex>()
                .get(h.player_id(c))
                .is_some()
        );
    }
    let gate = &h.world().resource::<SessionState>().gate;
    assert!(gate.evictions() >= 19, "{} evictions", gate.evictions());
}

#[test]
fn a_reconnect_of_every_player_at_once_gets_everyone_in() {
    let mut h = Harness::with_config(Config {
        max_players: 100,
        ..config()
    });
    let players: Vec<_> = (0..80).map(|i| h.connect(&format!("p{i:02}"))).collect();
    // Every client restarts: a hello with a new nonce from its address, all in one tick.
    for (i, &c) in players.iter().enumerate() {
        let name = format!("p{i:02}");
        let hello = dlmp::protocol::connection::handshake::ClientHello {
            nonce: 0xBEEF,
            ..h.client_hello(c, &name)
        };
        h.send(c, hello);
    }
    h.step();
    for &c in &players {
        h.prove(c);
    }
    h.step();
    let sessions = &h.world().resource::<SessionState>().sessions;
    assert_eq!((sessions.len(), sessions.unproven()), (80, 0));
    for &c in &players {
        assert!(
            h.packets::<ConnectRefused>(c).is_empty(),
            "{c:?} was refused"
        );
    }
}

#[test]
fn new_players_joining_together_over_a_second_all_get_in() {
    let mut h = Harness::with_config(Config {
        max_players: 100,
        ..config()
    });
    let clients: Vec<_> = (0..100).map(|_| h.add_client()).collect();
    // Two hellos a tick for a second; each client proves the tick after its answer.
    for (n, pair) in clients.chunks(2).enumerate() {
        for (i, &c) in pair.iter().enumerate() {
            let hello = h.client_hello(c, &format!("n{:03}", n * 2 + i));
            h.send(c, hello);
        }
        h.step();
        for &c in pair {
            h.prove(c);
        }
    }
    h.step();
    let sessions = &h.world().resource::<SessionState>().sessions;
    assert_eq!((sessions.len(), sessions.unproven()), (100, 0));
}
