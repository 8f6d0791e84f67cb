//! The server query (query.md) against the real server on 127.0.0.1: the network thread
//! answers from the app's snapshot, and `dlmp-query` prints what a browser shows. Waits are
//! socket reads with timeouts (the client's), never sleeps.

use std::net::UdpSocket;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use dlmp::config::Config;
use dlmp::net::DropReason;
use dlmp::protocol::Packet;
use dlmp::protocol::connection::handshake::{ClientHello, MAGIC, PROTOCOL_VERSION, ServerHello};
use dlmp::protocol::query::samples as s;
use dlmp::protocol::text::FixedText;

#[path = "support/real.rs"]
mod real;
use real::{Server, TIMEOUT};

const GAMEMODE: &str = r#"
dlmp.set_game_mode_text("Query Test")
dlmp.set_rule("mapname", "San Andreas")
dlmp.on("player_connect", function(player)
    player:set_score(42)
end)
"#;

/// A scripts folder with one resource, `qtest`, running [`GAMEMODE`].
fn scripts(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dlmp-query-{test}-{}", std::process::id()));
    let res = dir.join("qtest");
    std::fs::create_dir_all(&res).expect("temp dir");
    std::fs::write(
        res.join("resource.toml"),
        "name = \"qtest\"\nmain = \"main.lua\"\n",
    )
    .expect("manifest");
    std::fs::write(res.join("main.lua"), GAMEMODE).expect("script");
    dir
}

/// The real server with the query's identity and [`GAMEMODE`].
fn start(test: &str) -> Server {
    Server::start(Config {
        name: "Query Test Server".into(),
        language: "English".into(),
        website: "https://example.org".into(),
        max_players: 16,
        scripts: scripts(test),
        ..real::config()
    })
}

/// `dlmp-query ADDR what`, until its output contains `want` (the first snapshot comes
/// with the first tick); the last output.
fn query_until(server: &Server, what: &str, want: &str) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let out = Command::new(env!("CARGO_BIN_EXE_dlmp-query"))
            .args([server.addr.to_string().as_str(), what])
            .output()
            .expect("run dlmp-query");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains(want) || Instant::now() > deadline {
            return text;
        }
    }
}

/// Connects a player named `name` and returns its socket (kept open, the session lives).
fn connect(server: &Server, name: &str) -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind");
    socket.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    let hello = ClientHello {
        magic: MAGIC,
        protocol: PROTOCOL_VERSION,
        nonce: 77,
        name: FixedText::new(name).expect("a name"),
        pad: [0; 29],
    };
    socket
        .send_to(&hello.to_bytes().expect("encode"), server.addr)
        .expect("send");
    let mut buf = [0u8; 1201];
    loop {
        let (n, _) = socket.recv_from(&mut buf).expect("an answer to the hello");
        if ServerHello::decode(&buf[..n]).is_ok() {
            return socket;
        }
    }
}

#[test]
fn the_client_shows_the_servers_info_players_and_rules() {
    let server = start("show");
    let info = query_until(&server, "info", "gamemode: Query Test");
    assert!(info.contains("name: Query Test Server\n"), "{info}");
    assert!(info.contains("gamemode: Query Test\n"), "{info}");
    assert!(info.contains("players: 0/16\n"), "{info}");
    assert!(info.contains("open: yes\n"), "{info}");
    assert!(info.contains("language: English\n"), "{info}");
    assert!(info.contains("website: https://example.org\n"), "{info}");
    assert!(info.contains("tick rate: 50 Hz\n"), "{info}");

    let rules = query_until(&server, "rules", "mapname");
    assert_eq!(
        rules,
        format!(
            "mapname = San Andreas\nversion = {}\n",
            env!("CARGO_PKG_VERSION")
        )
    );

    let _player = connect(&server, "Carl_Johnson");
    let players = query_until(&server, "players", "Carl_Johnson");
    let line = players
        .lines()
        .find(|l| l.ends_with("Carl_Johnson"))
        .unwrap_or_else(|| panic!("{players}"));
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[0], "0", "{line}");
    assert_eq!(fields[1], "42", "the score the gamemode set: {line}");
    let info = query_until(&server, "info", "players: 1/16");
    assert!(info.contains("players: 1/16\n"), "{info}");
}

#[test]
fn a_query_flood_from_one_ip_is_answered_16_times_and_counted() {
    let server = start("flood");
    query_until(&server, "info", "gamemode: Query Test");
    let before = server.stats.drops(DropReason::QueryLimited);
    // Another loopback address: a bucket of its own, apart from dlmp-query's.
    let socket = UdpSocket::bind("127.0.0.2:0").expect("bind");
    socket
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("timeout");
    let request = s::query_info().to_bytes().expect("encode");
    for _ in 0..64 {
        socket.send_to(&request, server.addr).expect("send");
    }
    let mut answers = 0;
    let mut buf = [0u8; 1201];
    while let Ok((n, _)) = socket.recv_from(&mut buf) {
        assert_eq!(n, request.len(), "no answer larger than the request");
        answers += 1;
    }
    // The burst, plus one token back per 125 ms the sending took.
    assert!((16..=17).contains(&answers), "{answers} answers");
    let dropped = server.stats.drops(DropReason::QueryLimited) - before;
    assert_eq!(dropped + answers, 64, "every query is answered or counted");
}
