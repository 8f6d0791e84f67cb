//! The per-IP query limit (query.md, "Rules for the server"): 8 a second with a burst of
//! 16 per source IP, not per IP and port.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use crate::ratelimit::{RateLimit, TokenBucket};

/// 16 at once, 8 a second.
pub const QUERY_LIMIT: RateLimit = RateLimit::per_second(16, 8);

/// IPs tracked at most. A flood from more sources than this, after the full buckets are
/// forgotten, is refused for new IPs until buckets refill: memory stays bounded.
const MAX_TRACKED: usize = 16_384;

/// A token bucket per source IP, on a clock the caller passes (time since the thread
/// started).
#[derive(Debug, Default)]
pub struct QueryLimiter {
    buckets: HashMap<IpAddr, TokenBucket>,
    last_prune: Option<Duration>,
}

impl QueryLimiter {
    /// Whether a query from `ip` at `now` may be answered; false means drop and count it.
    pub fn allow(&mut self, ip: IpAddr, now: Duration) -> bool {
        if !self.buckets.contains_key(&ip) && self.buckets.len() >= MAX_TRACKED {
            let lately = self
                .last_prune
                .is_some_and(|t| now.saturating_sub(t) < Duration::from_secs(1));
            if !lately {
                self.buckets.retain(|_, b| !b.is_full(now));
                self.last_prune = Some(now);
            }
            if self.buckets.len() >= MAX_TRACKED {
                return false;
            }
        }
        self.buckets
            .entry(ip)
            .or_insert_with(|| TokenBucket::new(QUERY_LIMIT, now))
            .try_take(now)
    }

    /// IPs tracked now.
    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }
}
