//! The report: counts, ratios, latencies, server cost, as text or JSON.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::cli::{Args, Shape};
use crate::floor::Floor;
use crate::run::Outcome;
use crate::tally::Counts;

/// The smoke run's bar: correctness, not speed. Frames relayed: a quarter, not all, since
/// a server behind its ticks (a debug build on a loaded machine) still ingests two frames
/// of one player in one tick and relays only the newer (issue 11, "every accepted frame is
/// relayed"); a broken join, admission or relay path relays nothing.
pub const SMOKE_RELAYED: f64 = 0.25;
/// A relayed frame reaches this share of its due viewers at least.
pub const SMOKE_FANOUT: f64 = 0.9;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub shape: &'static str,
    pub protocol: u16,
    pub bots: usize,
    pub seconds: f64,
    pub join_seconds: Option<f64>,
    pub counts: Counts,
    /// relays_due_delivered / relays_due.
    pub delivered_ratio: Option<f64>,
    /// frames_relayed / frames_watched: frames the server accepted and relayed.
    pub relayed_ratio: Option<f64>,
    /// relays_due_delivered / relays_due_of_relayed: of the frames relayed, the share of
    /// due viewers reached.
    pub fanout_ratio: Option<f64>,
    pub latency_ms: BTreeMap<&'static str, Option<f64>>,
    pub drivers: usize,
    pub parked: usize,
    /// The same three ratios for vehicle frames and RemoteVehicleFrame relays.
    pub vehicle_delivered_ratio: Option<f64>,
    pub vehicle_relayed_ratio: Option<f64>,
    pub vehicle_fanout_ratio: Option<f64>,
    pub vehicle_latency_ms: BTreeMap<&'static str, Option<f64>>,
    pub floor: Floor,
    pub server: Option<ServerCost>,
    pub udp_rcvbuf_drops: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerCost {
    /// Share of one core per thread name over the window.
    pub cpu_by_thread: BTreeMap<String, f64>,
    pub cpu_total: f64,
    pub rss_mib: f64,
    pub peak_rss_mib: f64,
    /// Server CPU ns per delivered relay.
    pub ns_per_relay: Option<f64>,
    /// That ÷ the bare sendto floor.
    pub relay_over_sendto: Option<f64>,
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

impl Report {
    pub fn new(args: &Args, floor: Floor, outcome: Outcome) -> Report {
        let c = &outcome.counts;
        let window = outcome.window.as_secs_f64();
        let server = outcome.server.as_ref().map(|(start, end)| {
            let cpu = end.since(start);
            let cpu_total: f64 = cpu.values().sum();
            let ns_per_relay =
                (c.relays_delivered > 0).then(|| cpu_total * 1e9 / c.relays_delivered as f64);
            ServerCost {
                cpu_by_thread: cpu.into_iter().map(|(n, s)| (n, s / window)).collect(),
                cpu_total: cpu_total / window,
                rss_mib: end.rss_kib as f64 / 1024.0,
                peak_rss_mib: end.hwm_kib as f64 / 1024.0,
                ns_per_relay,
                relay_over_sendto: ns_per_relay.map(|ns| ns / floor.sendto_ns),
            }
        });
        let percentiles = |l: &crate::tally::Latency| {
            [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p999", 99.9)]
                .into_iter()
                .map(|(name, p)| (name, l.percentile(p)))
                .collect()
        };
        let latency_ms = percentiles(&outcome.latency);
        let vehicle_latency_ms = percentiles(&outcome.vehicle_latency);
        Report {
            shape: match args.shape {
                Shape::Spread => "spread",
                Shape::City => "city",
            },
            protocol: args.protocol,
            bots: args.bots,
            seconds: window,
            join_seconds: outcome.join_seconds,
            delivered_ratio: ratio(c.relays_due_delivered, c.relays_due),
            relayed_ratio: ratio(c.frames_relayed, c.frames_watched),
            fanout_ratio: ratio(c.relays_due_delivered, c.relays_due_of_relayed),
            counts: outcome.counts.clone(),
            latency_ms,
            drivers: args.drivers,
            parked: args.parked,
            vehicle_delivered_ratio: ratio(c.vehicle_relays_due_delivered, c.vehicle_relays_due),
            vehicle_relayed_ratio: ratio(c.vehicle_frames_relayed, c.vehicle_frames_watched),
            vehicle_fanout_ratio: ratio(
                c.vehicle_relays_due_delivered,
                c.vehicle_relays_due_of_relayed,
            ),
            vehicle_latency_ms,
            floor,
            server,
            udp_rcvbuf_drops: outcome.udp_rcvbuf_drops,
        }
    }

    pub fn text(&self) -> String {
        let c = &self.counts;
        let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.3} %", r * 100.0));
        let ms_of = |m: &BTreeMap<&'static str, Option<f64>>, k: &str| {
            m.get(k)
                .copied()
                .flatten()
                .map_or("-".to_string(), |v| format!("{v:.2}"))
        };
        let ms = |k: &str| ms_of(&self.latency_ms, k);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} bots, {}, protocol {}, {:.1} s measured (joined in {})",
            self.bots,
            self.shape,
            self.protocol,
            self.seconds,
            self.join_seconds
                .map_or("- (join timeout)".to_string(), |s| format!("{s:.1} s"))
        );
        let _ = writeln!(
            out,
            "bots: {} joined, {} spawned, {} walking, {} driving (of {}), {} gone; {} vehicles parked by the bots",
            c.joined, c.spawned, c.walking, c.driving, self.drivers, c.gone, self.parked
        );
        let _ = writeln!(
            out,
            "frames: {} due, {} sent; {} of {} watched frames relayed ({})",
            c.frames_due,
            c.frames_sent,
            c.frames_relayed,
            c.frames_watched,
            pct(self.relayed_ratio)
        );
        let _ = writeln!(
            out,
            "relays: {} due, {} of them delivered ({}); {} delivered in all; {} of the due viewers of relayed frames reached",
            c.relays_due,
            c.relays_due_delivered,
            pct(self.delivered_ratio),
            c.relays_delivered,
            pct(self.fanout_ratio)
        );
        let _ = writeln!(
            out,
            "latency ms (kernel receive stamp - send): p50 {} p90 {} p99 {} p99.9 {}",
            ms("p50"),
            ms("p90"),
            ms("p99"),
            ms("p999")
        );
        if self.drivers > 0 {
            let _ = writeln!(
                out,
                "vehicle frames: {} due, {} sent; {} of {} watched frames relayed ({})",
                c.vehicle_frames_due,
                c.vehicle_frames_sent,
                c.vehicle_frames_relayed,
                c.vehicle_frames_watched,
                pct(self.vehicle_relayed_ratio)
            );
            let _ = writeln!(
                out,
                "RemoteVehicleFrame relays: {} due, {} of them delivered ({}); {} delivered in all; {} of the due viewers of relayed frames reached",
                c.vehicle_relays_due,
                c.vehicle_relays_due_delivered,
                pct(self.vehicle_delivered_ratio),
                c.vehicle_relays_delivered,
                pct(self.vehicle_fanout_ratio)
            );
            let v = |k: &str| ms_of(&self.vehicle_latency_ms, k);
            let _ = writeln!(
                out,
                "vehicle relay latency ms: p50 {} p90 {} p99 {} p99.9 {}",
                v("p50"),
                v("p90"),
                v("p99"),
                v("p999")
            );
        }
        let _ = writeln!(
            out,
            "floor: sendto {:.0} ns, sendmmsg {:.0} ns a datagram ({} bytes)",
            self.floor.sendto_ns,
            self.floor.sendmmsg_ns,
            crate::floor::RELAY_BYTES
        );
        if let Some(s) = &self.server {
            let threads: Vec<String> = s
                .cpu_by_thread
                .iter()
                .filter(|(_, v)| **v >= 0.005)
                .map(|(n, v)| format!("{n} {:.0} %", v * 100.0))
                .collect();
            let _ = writeln!(
                out,
                "server: {:.0} % CPU ({}), RSS {:.0} MiB (peak {:.0})",
                s.cpu_total * 100.0,
                threads.join(", "),
                s.rss_mib,
                s.peak_rss_mib
            );
            if let (Some(ns), Some(r)) = (s.ns_per_relay, s.relay_over_sendto) {
                let _ = writeln!(
                    out,
                    "server CPU per delivered relay: {ns:.0} ns = {r:.2} x sendto"
                );
            }
        }
        if let Some(d) = self.udp_rcvbuf_drops {
            let _ = writeln!(out, "UDP receive-buffer drops on the machine: {d}");
        }
        out
    }

    /// What a smoke run must show: every bot joined, spawned and walked, frames were
    /// accepted and relayed, relays were delivered.
    pub fn smoke_failures(&self) -> Vec<String> {
        let c = &self.counts;
        let mut failures = Vec::new();
        if c.walking + c.driving != c.bots {
            failures.push(format!(
                "{} of {} bots joined, spawned and were teleported ({} joined, {} spawned)",
                c.walking + c.driving,
                c.bots,
                c.joined,
                c.spawned
            ));
        }
        if c.driving != self.drivers {
            failures.push(format!(
                "{} of {} drivers got a vehicle and drove it",
                c.driving, self.drivers
            ));
        }
        if self.drivers > 0 {
            if c.vehicle_frames_sent == 0 || c.vehicle_relays_due == 0 {
                failures.push("no vehicle frames or no vehicle relays due in the window".into());
            }
            if self.vehicle_relayed_ratio.is_none_or(|r| r < SMOKE_RELAYED) {
                failures.push(format!(
                    "vehicle frames relayed: {:?}",
                    self.vehicle_relayed_ratio
                ));
            }
            if self.vehicle_fanout_ratio.is_none_or(|r| r < SMOKE_FANOUT) {
                failures.push(format!(
                    "due viewers of vehicle frames reached: {:?}",
                    self.vehicle_fanout_ratio
                ));
            }
        }
        if c.frames_sent == 0 || c.relays_due == 0 {
            failures.push("no frames or no relays due in the window".to_string());
        }
        if self.relayed_ratio.is_none_or(|r| r < SMOKE_RELAYED) {
            failures.push(format!("frames relayed: {:?}", self.relayed_ratio));
        }
        if self.fanout_ratio.is_none_or(|r| r < SMOKE_FANOUT) {
            failures.push(format!("due viewers reached: {:?}", self.fanout_ratio));
        }
        failures
    }
}
