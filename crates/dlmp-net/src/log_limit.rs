//! Log lines a peer can cause, rate-limited: at most [`LOG_BURST`] lines of one kind per
//! [`LOG_WINDOW`], the rest counted and reported as `suppressed` on the next line that
//! goes out. A flood of bad input then costs the log a few lines a second, never a line
//! a packet. [`log_limited!`](crate::log_limited) keeps one limit per call site (and per
//! reason, when given one).

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The window of a log limit.
pub const LOG_WINDOW: Duration = Duration::from_secs(1);

/// Log lines of one kind per [`LOG_WINDOW`]; the rest are counted and reported on the next.
pub const LOG_BURST: u32 = 5;

/// At most [`LOG_BURST`] lines per [`LOG_WINDOW`] for one kind of event.
#[derive(Debug, Default)]
pub struct LogLimit {
    window_start: Option<Instant>,
    logged: u32,
    suppressed: u64,
}

impl LogLimit {
    /// `Some(n)` if a line may be logged at `now`, `n` being how many were suppressed since
    /// the last one; `None` if this one is suppressed.
    pub fn allow(&mut self, now: Instant) -> Option<u64> {
        let new_window = self
            .window_start
            .is_none_or(|start| now.saturating_duration_since(start) >= LOG_WINDOW);
        if new_window {
            self.window_start = Some(now);
            self.logged = 0;
        }
        if self.logged < LOG_BURST {
            self.logged += 1;
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }
}

/// The limits of one call site, by reason (`""` when the site gives none): what
/// [`log_limited!`](crate::log_limited) keeps in a `static`.
#[derive(Debug)]
pub struct SiteLimit(Mutex<Vec<(&'static str, LogLimit)>>);

impl SiteLimit {
    #[must_use]
    pub const fn new() -> Self {
        SiteLimit(Mutex::new(Vec::new()))
    }

    /// As [`LogLimit::allow`], for `reason` at this site, now.
    pub fn allow(&self, reason: &'static str) -> Option<u64> {
        let now = Instant::now();
        let mut limits = self.0.lock().ok()?;
        if let Some((_, limit)) = limits.iter_mut().find(|(r, _)| *r == reason) {
            return limit.allow(now);
        }
        let mut limit = LogLimit::default();
        let allowed = limit.allow(now);
        limits.push((reason, limit));
        allowed
    }
}

impl Default for SiteLimit {
    fn default() -> Self {
        Self::new()
    }
}

/// A `tracing` event a peer can cause, rate-limited per call site (and per `reason`):
/// `log_limited!(warn, ?player, "VehicleShot dropped")`, or with a reason of its own,
/// `log_limited!(reason = why.name(), warn, ?player, "dropped: {}", why.name())`. A line
/// that goes out after suppressed ones carries `suppressed = N`.
#[macro_export]
macro_rules! log_limited {
    (reason = $reason:expr, $level:ident, $($arg:tt)+) => {{
        static LIMIT: $crate::log_limit::SiteLimit = $crate::log_limit::SiteLimit::new();
        if let Some(suppressed) = LIMIT.allow($reason) {
            ::tracing::$level!(suppressed, $($arg)+);
        }
    }};
    ($level:ident, $($arg:tt)+) => {
        $crate::log_limited!(reason = "", $level, $($arg)+)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_limit_allows_a_burst_a_window_and_reports_the_rest() {
        let t0 = Instant::now();
        let mut limit = LogLimit::default();
        for _ in 0..LOG_BURST {
            assert_eq!(limit.allow(t0), Some(0));
        }
        for i in 0..10 {
            assert_eq!(limit.allow(t0 + Duration::from_millis(i * 50)), None);
        }
        assert_eq!(limit.allow(t0 + LOG_WINDOW), Some(10));
        assert_eq!(limit.allow(t0 + LOG_WINDOW), Some(0));
    }

    #[test]
    fn a_site_keeps_one_limit_per_reason() {
        let site = SiteLimit::new();
        for _ in 0..LOG_BURST {
            assert_eq!(site.allow("range"), Some(0));
        }
        assert_eq!(site.allow("range"), None);
        assert_eq!(
            site.allow("origin"),
            Some(0),
            "another reason has its own lines"
        );
    }
}
