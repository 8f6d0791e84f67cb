//! The `/metrics` listener over HTTP on 127.0.0.1 (issue 17): the Prometheus text the
//! tick's metrics and the network counters produce, parsed back. A scraper that never
//! sends its request holds only the metrics thread: the app's ticks go on.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use dlmp::harness::Harness;
use dlmp::metrics::{self, MetricsPlugin, ServerMetrics};
use dlmp::net::{DropReason, NetStats};

fn scrape(addr: SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("request");
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
    let m = Arc::new(ServerMetrics::default());
    let server = metrics::serve(
        SocketAddr::from(([127, 0, 0, 1], 0)),
        m.registry(Arc::clone(&net)),
    )
    .expect("bind");
    let mut h = Harness::with_app(Harness::config(), |app| {
        app.add_plugins(MetricsPlugin {
            metrics: Arc::clone(&m),
        });
    });
    // A scraper that connects and never sends: the metrics thread waits on it, the tick
    // does not.
    let _stalled = TcpStream::connect(server.local_addr).expect("connect");
    h.connect("Carl_Johnson");
    h.steps(10);

    let (head, body) = scrape(server.local_addr, "/metrics");
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

    let (head, _) = scrape(server.local_addr, "/other");
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
}
