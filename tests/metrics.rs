//! The `/metrics` listener over HTTP on 127.0.0.1 (issue 17, ADR 0100): the Prometheus text
//! the tick's metrics and the network counters produce, parsed back. A scraper that never
//! sends its request holds only its own connection: the app's ticks go on.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use dlmp::admin::{HttpServer, HttpSettings};
use dlmp::harness::Harness;
use dlmp::metrics::{MetricsPlugin, Registry, ServerMetrics};
use dlmp::net::{DropReason, NetStats};

/// `/metrics` alone on a free port of 127.0.0.1, as the `metrics` setting serves it.
fn serve(registry: Registry) -> (HttpServer, SocketAddr) {
    let server = dlmp::admin::start(
        HttpSettings {
            metrics: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
            ..HttpSettings::default()
        },
        None,
        Some(registry),
    )
    .expect("bind");
    let addr = server.metrics_addr.expect("the metrics address");
    (server, addr)
}

fn scrape(addr: SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let (head, body) = response.split_once("\r\n\r\n").expect("a header");
    (head.to_owned(), body.to_owned())
}

/// `name{labels} value` lines, comments skipped.
fn samples(body: &str) -> BTreeMap<String, f64> {
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').expect("name value");
            (name.to_owned(), value.parse().expect("a number"))
        })
        .collect()
}

#[test]
fn a_scrape_shows_players_ticks_and_drops_by_reason() {
    let net = Arc::new(NetStats::default());
    net.count_drop(DropReason::QueryLimited);
    net.count_drop(DropReason::QueryLimited);
    net.sent();
    net.count_shed(dlmp::net::ShedReason::Full);
    let m = Arc::new(ServerMetrics::default());
    let (_server, addr) = serve(m.registry(Arc::clone(&net)));
    let mut h = Harness::with_app(Harness::config(), |app| {
        app.add_plugins(MetricsPlugin {
            metrics: Arc::clone(&m),
        });
    });
    // A scraper that connects and never sends: the metrics thread waits on it, the tick
    // does not.
    let _stalled = TcpStream::connect(addr).expect("connect");
    h.connect("Carl_Johnson");
    h.steps(10);

    let (head, body) = scrape(addr, "/metrics");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let s = samples(&body);
    assert_eq!(s["dlmp_players"], 1.0, "{body}");
    assert_eq!(s["dlmp_datagrams_sent_total"], 1.0, "{body}");
    assert_eq!(
        s["dlmp_datagrams_dropped_total{reason=\"query_limited\"}"], 2.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_datagrams_dropped_total{reason=\"overloaded\"}"], 0.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_datagrams_shed_total{reason=\"relay\"}"], 0.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_datagrams_shed_total{reason=\"full\"}"], 1.0,
        "{body}"
    );
    let ticks = s["dlmp_tick_seconds_count"];
    assert!(ticks >= 10.0, "{body}");
    assert_eq!(s["dlmp_tick_seconds_bucket{le=\"+Inf\"}"], ticks);
    // p50 and p99 are readable: cumulative buckets, non-decreasing.
    let buckets: Vec<f64> = s
        .iter()
        .filter(|(k, _)| k.starts_with("dlmp_tick_seconds_bucket"))
        .map(|(_, v)| *v)
        .collect();
    assert!(buckets.len() > 10, "{body}");
    assert!(body.ends_with("# EOF\n"), "{body}");

    let (head, _) = scrape(addr, "/other");
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
}

/// A clock that moves 100 µs each time it is read: script time is deterministic.
fn ticking_clock() -> impl Fn() -> Duration + 'static {
    let reads = std::cell::Cell::new(0u64);
    move || {
        reads.set(reads.get() + 1);
        Duration::from_micros(100 * reads.get())
    }
}

#[test]
fn a_scrape_shows_lane_resends_and_overflows_script_time_streamed_sets_and_query_times() {
    use dlmp::harness::TempScripts;
    use dlmp::lane::Delivery;
    use dlmp::protocol::connection::chat::{ChatMessage, ChatText, Color};
    use dlmp::protocol::geometry::Vec3;
    use dlmp::protocol::ids::EventId;
    use dlmp::session::Connection;

    let scripts = TempScripts::new("metrics-more");
    scripts.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p) dlmp.db_exec("SELECT 1") end)
        dlmp.create_vehicle(411, 5, 0, 3, 0)
        "#,
    );
    let m = Arc::new(ServerMetrics::default());
    let mut h = Harness::with_app(scripts.config(), |app| {
        app.add_plugins(MetricsPlugin {
            metrics: Arc::clone(&m),
        });
    });
    h.world_mut()
        .get_non_send_mut::<dlmp::script::ScriptHost>()
        .expect("a script host")
        .set_clock(ticking_clock());
    let (_server, addr) = serve(m.registry_for(h.shared_stats(), h.world()));
    // Two players shown to each other: two player pairs streamed.
    let (alice, bob) = h.connect_pair_at(Vec3::new(0.0, 0.0, 3.0));
    // Bob's acks are lost: his lane's window is resent after the timeout.
    h.set_auto_ack(bob, false);
    let line = ChatMessage {
        event_id: EventId(0),
        color: Color(0x00FF_FFFF),
        text: ChatText::new("hi").expect("short"),
    };
    // The lane's own send, as every feature queues an event (no packet is needed).
    h.with::<Connection>(bob, |c| {
        c.send_event(line.clone(), Delivery::Normal).expect("room");
    });
    // Alice launches a grenade she does not hold: a drop by its reason.
    let seen_event = h
        .world()
        .get::<Connection>(h.entity(alice))
        .expect("connected")
        .last_queued();
    h.send_event(
        alice,
        dlmp::protocol::weapons::projectile::ProjectileCreate {
            session_token: h.token(alice),
            event_id: EventId(0),
            seen_event,
            launch: dlmp::protocol::weapons::samples::projectile::projectile_create().launch,
        },
    );
    // Alice asks to stealth-kill Bob without the knife: a refusal by its reason.
    h.send_event(
        alice,
        dlmp::protocol::weapons::stealth::StealthKillRequest {
            session_token: h.token(alice),
            event_id: EventId(0),
            victim_id: h.player_id(bob),
            victim_token: h.get::<dlmp::session::Player>(bob).token,
        },
    );
    // Alice fires a detonator with no satchel thrown: a drop by its reason.
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = Vec3::new(1.0, 2.0, 3.0);
    h.send_event(
        alice,
        dlmp::protocol::weapons::satchel::SatchelDetonate {
            session_token: h.token(alice),
            event_id: EventId(0),
            count: 1,
            pos,
        },
    );
    h.steps(40);
    let resent = h.stats().lane_resend_count();
    assert!(resent > 0);
    let (_, body) = scrape(addr, "/metrics");
    let s = samples(&body);
    assert_eq!(s["dlmp_lane_resends_total"], resent as f64, "{body}");
    assert_eq!(s["dlmp_lane_overflows_total"], 0.0, "{body}");
    assert_eq!(s["dlmp_streamed{kind=\"players\"}"], 2.0, "{body}");
    assert_eq!(s["dlmp_streamed{kind=\"pickups\"}"], 0.0, "{body}");
    assert_eq!(s["dlmp_streamed{kind=\"vehicles\"}"], 2.0, "{body}");
    assert_eq!(s["dlmp_streamed{kind=\"objects\"}"], 0.0, "{body}");
    assert_eq!(s["dlmp_streamed{kind=\"labels\"}"], 0.0, "{body}");
    assert_eq!(
        s["dlmp_projectile_launches_total{outcome=\"not_armed\"}"], 1.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_projectile_launches_total{outcome=\"accepted\"}"], 0.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_stealth_kills_total{outcome=\"not_armed\"}"], 1.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_stealth_kills_total{outcome=\"accepted\"}"], 0.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_satchel_detonations_total{outcome=\"no_latch\"}"], 1.0,
        "{body}"
    );
    assert_eq!(
        s["dlmp_satchel_detonations_total{outcome=\"accepted\"}"], 0.0,
        "{body}"
    );
    let script = s["dlmp_script_seconds_total{resource=\"gm\"}"];
    assert!(script > 0.0, "{body}");
    assert!(s["dlmp_db_query_seconds_count"] >= 2.0, "{body}");
    assert_eq!(
        s["dlmp_db_query_seconds_bucket{le=\"+Inf\"}"],
        s["dlmp_db_query_seconds_count"]
    );

    // Alice's lane overflows: 512 waiting and a critical event past them.
    h.set_auto_ack(alice, false);
    h.fill_lane(alice, Delivery::Normal, 0);
    // The lane's own send, as a feature queues a critical event.
    h.with::<Connection>(alice, |c| {
        let _ = c.send_event(line.clone(), Delivery::Critical);
    });
    h.step();
    assert_eq!(
        h.world()
            .resource::<dlmp::session::SessionState>()
            .sessions
            .len(),
        1,
        "the overflowed session ended"
    );
    // Streaming forgets the gone recipient in its next pass.
    h.step();
    let (_, body) = scrape(addr, "/metrics");
    let s = samples(&body);
    assert_eq!(s["dlmp_lane_overflows_total"], 1.0, "{body}");
    assert_eq!(s["dlmp_streamed{kind=\"players\"}"], 0.0, "{body}");
}
