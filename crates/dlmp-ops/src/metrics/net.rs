//! The network thread's counters ([`NetStats`]), read at scrape time.

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;

use dlmp_net::{DropReason, NetStats, ShedReason};

#[derive(Debug)]
pub struct NetCollector(pub Arc<NetStats>);

fn counter(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    value: u64,
) -> Result<(), std::fmt::Error> {
    let c = ConstCounter::new(value);
    c.encode(encoder.encode_descriptor(name, help, None, c.metric_type())?)
}

impl Collector for NetCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let s = &self.0;
        counter(
            &mut encoder,
            "datagrams_received",
            "Datagrams decoded and handed to the app",
            s.received_count(),
        )?;
        counter(
            &mut encoder,
            "datagrams_sent",
            "Datagrams sent",
            s.sent_count(),
        )?;
        counter(
            &mut encoder,
            "send_errors",
            "Datagrams the socket refused",
            s.send_error_count(),
        )?;
        counter(
            &mut encoder,
            "queries_answered",
            "Server queries answered (query.md)",
            s.queries_answered(),
        )?;
        counter(
            &mut encoder,
            "lane_resends",
            "Reliable-lane events resent (Go-Back-N), all sessions",
            s.lane_resend_count(),
        )?;
        counter(
            &mut encoder,
            "lane_overflows",
            "Sessions ended because a critical event overflowed their lane",
            s.lane_overflow_count(),
        )?;
        counter(
            &mut encoder,
            "send_budget_deferred_ticks",
            "Ticks whose lane traffic waited for the global send budget (ADR 0043)",
            s.send_deferred_count(),
        )?;
        let drops = ConstCounter::new(0u64);
        let mut family = encoder.encode_descriptor(
            "datagrams_dropped",
            "Inbound datagrams dropped, by reason",
            None,
            drops.metric_type(),
        )?;
        for reason in DropReason::all() {
            let labels = [("reason", reason.as_str())];
            ConstCounter::new(s.drops(reason)).encode(family.encode_family(&labels)?)?;
        }
        let mut family = encoder.encode_descriptor(
            "datagrams_shed",
            "Outbound datagrams shed before the sending thread, by reason (ADR 0025)",
            None,
            drops.metric_type(),
        )?;
        for reason in [ShedReason::Relay, ShedReason::Full, ShedReason::Closed] {
            let labels = [("reason", reason.as_str())];
            ConstCounter::new(s.shed_count(reason)).encode(family.encode_family(&labels)?)?;
        }
        Ok(())
    }
}
