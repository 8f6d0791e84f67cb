//! Load tool for the network thread: `cargo run --release -p dlmp-net --example flood -- [--seconds N]
//! [--senders K] [--tick-ms T]`.
//!
//! Starts the network thread on 127.0.0.1:0, runs K sender threads that blast valid
//! PlayerSync datagrams (the fixture value) plus ~1% garbage at it for N seconds, and a
//! consumer thread that drains the inbound channel once every T ms like the app's tick.
//! Prints decoded datagrams per second, drops by reason, the senders' rate and the kernel's
//! receive-buffer drops, then the idle latency of both directions. Loopback only; stops by
//! itself.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use clap::Parser;
use dlmp_net::{Datagram, NetConfig, NetStats, spawn};
use dlmp_protocol::Packet;
use dlmp_protocol::player::samples::sync::player_sync;

#[derive(Parser)]
struct Args {
    /// How long to send, in seconds (1..=60).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=60))]
    seconds: u64,
    /// Sender threads (1..=8).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=8))]
    senders: u64,
    /// How often the consumer drains the inbound channel, in milliseconds (0..=100).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=100))]
    tick_ms: u64,
}

/// One datagram in `GARBAGE_EVERY` is garbage.
const GARBAGE_EVERY: u64 = 100;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let stats = Arc::new(NetStats::default());
    let config = NetConfig {
        bind: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..NetConfig::default()
    };
    let net = spawn(config, Arc::clone(&stats))?;
    let server = net.local_addr();
    let sync = player_sync().to_bytes()?;
    println!(
        "flood: {} sender(s) for {} s -> {server}, PlayerSync {} bytes, 1/{GARBAGE_EVERY} garbage, drain every {} ms",
        args.senders,
        args.seconds,
        sync.len(),
        args.tick_ms
    );

    let stop_consumer = Arc::new(AtomicBool::new(false));
    let consumed = Arc::new(AtomicU64::new(0));
    let consumer = {
        let inbound = net.inbound.clone();
        let stop = Arc::clone(&stop_consumer);
        let consumed = Arc::clone(&consumed);
        let tick = Duration::from_millis(args.tick_ms);
        thread::Builder::new()
            .name("flood-consumer".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let n = inbound.try_iter().count() as u64;
                    consumed.fetch_add(n, Ordering::Relaxed);
                    thread::sleep(tick);
                }
            })?
    };

    let kernel_drops_before = udp_rcvbuf_errors();
    let sent = Arc::new(AtomicU64::new(0));
    let send_errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let mut senders = Vec::new();
    for i in 0..args.senders {
        let sync = sync.clone();
        let sent = Arc::clone(&sent);
        let send_errors = Arc::clone(&send_errors);
        senders.push(
            thread::Builder::new()
                .name(format!("flood-sender-{i}"))
                .spawn(move || blast(server, &sync, deadline, &sent, &send_errors))?,
        );
    }

    let mut last = (started, 0);
    while Instant::now() < deadline {
        thread::sleep(Duration::from_secs(1).min(deadline - Instant::now()));
        let now = Instant::now();
        let received = stats.received_count();
        println!(
            "  {:>5.1} s  decoded {:>9.0}/s",
            (now - started).as_secs_f64(),
            (received - last.1) as f64 / (now - last.0).as_secs_f64()
        );
        last = (now, received);
    }
    for sender in senders {
        if sender.join().is_err() {
            eprintln!("a sender thread panicked");
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let received = stats.received_count();
    let drops: u64 = stats.total_drops();
    let sent = sent.load(Ordering::Relaxed);
    // Let the thread finish what the kernel still holds, then stop the consumer.
    let mut seen = received + drops;
    loop {
        thread::sleep(Duration::from_millis(50));
        let now = stats.received_count() + stats.total_drops();
        if now == seen {
            break;
        }
        seen = now;
    }
    stop_consumer.store(true, Ordering::Relaxed);
    if consumer.join().is_err() {
        eprintln!("the consumer thread panicked");
    }

    println!("during {elapsed:.2} s:");
    println!(
        "  senders:  {sent} sent ({:.0}/s), {} send errors",
        sent as f64 / elapsed,
        send_errors.load(Ordering::Relaxed)
    );
    println!(
        "  decoded:  {received} ({:.0}/s)",
        received as f64 / elapsed
    );
    println!("  dropped:  {drops} ({:.0}/s)", drops as f64 / elapsed);
    println!("after draining:");
    for (reason, n) in stats.nonzero_drops() {
        println!("  drop {:<16} {n}", reason.as_str());
    }
    println!(
        "  decoded {} (consumed {}), handled {:.2}% of sent",
        stats.received_count(),
        consumed.load(Ordering::Relaxed),
        100.0 * (stats.received_count() + stats.total_drops()) as f64 / sent.max(1) as f64
    );
    match (kernel_drops_before, udp_rcvbuf_errors()) {
        (Some(before), Some(after)) => {
            println!(
                "  kernel receive-buffer drops (all UDP sockets): {}",
                after - before
            )
        }
        _ => println!("  kernel receive-buffer drops: unknown (no /proc/net/snmp)"),
    }

    idle_latency(&net)?;
    idle_cpu();
    net.shutdown().map_err(|_| "the network thread panicked")?;
    println!("stats: {}", stats.summary());
    Ok(())
}

/// Sends PlayerSync with 1% garbage to `server` until `deadline`.
fn blast(
    server: SocketAddr,
    sync: &[u8],
    deadline: Instant,
    sent: &AtomicU64,
    send_errors: &AtomicU64,
) {
    let socket = match UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .and_then(|s| s.connect(server).map(|()| s))
    {
        Ok(socket) => socket,
        Err(e) => {
            eprintln!("sender: {e}");
            return;
        }
    };
    let garbage = [0xFF, 0x13, 0x37];
    let (mut ok, mut failed) = (0u64, 0u64);
    let mut n = 0u64;
    loop {
        if n.is_multiple_of(1024) && Instant::now() >= deadline {
            break;
        }
        let bytes = if n % GARBAGE_EVERY == GARBAGE_EVERY - 1 {
            &garbage[..]
        } else {
            sync
        };
        match socket.send(bytes) {
            Ok(_) => ok += 1,
            Err(_) => failed += 1,
        }
        n += 1;
    }
    sent.fetch_add(ok, Ordering::Relaxed);
    send_errors.fetch_add(failed, Ordering::Relaxed);
}

/// Round trips on an idle server: outbound (queued -> client socket) and inbound (client
/// socket -> app channel), 200 each.
fn idle_latency(net: &dlmp_net::NetHandle) -> Result<(), Box<dyn std::error::Error>> {
    let client = UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
    client.set_read_timeout(Some(Duration::from_secs(5)))?;
    let to = client.local_addr()?;
    let hello = dlmp_protocol::connection::samples::handshake::client_hello().to_bytes()?;
    let mut outbound = Vec::new();
    let mut inbound = Vec::new();
    let mut buf = [0u8; 64];
    for i in 0..200u8 {
        // Let the thread go idle first.
        thread::sleep(Duration::from_millis(3));
        let t = Instant::now();
        net.outbound.send(Datagram {
            to,
            bytes: vec![0x06, i],
        })?;
        client.recv(&mut buf)?;
        outbound.push(t.elapsed());

        thread::sleep(Duration::from_millis(3));
        let t = Instant::now();
        client.send_to(&hello, net.local_addr())?;
        net.inbound.recv_timeout(Duration::from_secs(5))?;
        inbound.push(t.elapsed());
    }
    outbound.sort();
    inbound.sort();
    let pct = |v: &[Duration], p: usize| v[v.len() * p / 100].as_micros();
    println!(
        "idle latency: outbound p50 {} us p99 {} us; inbound p50 {} us p99 {} us",
        pct(&outbound, 50),
        pct(&outbound, 99),
        pct(&inbound, 50),
        pct(&inbound, 99)
    );
    Ok(())
}

/// CPU the idle network thread uses (Linux: its utime + stime over three seconds), once it
/// has slowed its polling down (after a quiet second).
fn idle_cpu() {
    thread::sleep(Duration::from_millis(1500));
    let before = net_thread_cpu_ticks();
    let wall = Instant::now();
    thread::sleep(Duration::from_secs(3));
    match (before, net_thread_cpu_ticks()) {
        (Some(before), Some(after)) => println!(
            "idle cpu: {:.1}% of a core ({} clock ticks in {:.2} s, 100 ticks/s)",
            (after - before) as f64 / wall.elapsed().as_secs_f64(),
            after - before,
            wall.elapsed().as_secs_f64()
        ),
        _ => println!("idle cpu: unknown (no /proc/self/task)"),
    }
}

/// utime + stime of the thread named `dlmp-net`, in clock ticks.
fn net_thread_cpu_ticks() -> Option<u64> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).ok()?;
        if comm.trim() != "dlmp-net" {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
        // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let utime: u64 = fields.get(11)?.parse().ok()?;
        let stime: u64 = fields.get(12)?.parse().ok()?;
        return Some(utime + stime);
    }
    None
}

/// `RcvbufErrors` of the `Udp:` line in /proc/net/snmp (Linux).
fn udp_rcvbuf_errors() -> Option<u64> {
    let snmp = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut lines = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let header = lines.next()?;
    let values = lines.next()?;
    let column = header
        .split_whitespace()
        .position(|h| h == "RcvbufErrors")?;
    values.split_whitespace().nth(column)?.parse().ok()
}
