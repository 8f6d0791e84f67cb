//! The smoothed round-trip time and the retransmission timeout of connection.md §3:
//! "2 × the smoothed round-trip time, at least 100 ms, doubling on each resend of the same
//! event up to 1 s".
//!
//! Samples come only from events acknowledged after a single transmission (Karn's rule);
//! the caller ([`OutboundLane`](super::OutboundLane)) enforces that.

use std::time::Duration;

/// The floor of the retransmission timeout: 100 ms.
pub const MIN_RTO: Duration = Duration::from_millis(100);
/// The ceiling of the retransmission timeout, backed off or not: 1 s.
pub const MAX_RTO: Duration = Duration::from_millis(1000);
/// The retransmission timeout before the first RTT sample: 500 ms, the period at which a
/// client resends its hello (connection.md §2). See docs/decisions/0003-reliable-lane.md.
pub const INITIAL_RTO: Duration = Duration::from_millis(500);

/// Smoothed RTT (RFC 6298 gain: each sample moves it by 1/8) and the timeout built on it.
///
/// ```
/// # use std::time::Duration;
/// # use dlmp_net::lane::RttEstimator;
/// let mut rtt = RttEstimator::new();
/// assert_eq!(rtt.rto(), Duration::from_millis(500));
/// rtt.sample(Duration::from_millis(80));
/// assert_eq!(rtt.rto(), Duration::from_millis(160));
/// assert_eq!(rtt.rto_after(1), Duration::from_millis(320));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<Duration>,
}

impl RttEstimator {
    /// An estimator without samples: its timeout is [`INITIAL_RTO`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The smoothed round-trip time, `None` before the first sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    /// Takes one round-trip measurement. The first sets SRTT; later ones move it by 1/8.
    pub fn sample(&mut self, rtt: Duration) {
        self.srtt = Some(match self.srtt {
            None => rtt,
            Some(srtt) => (srtt.saturating_mul(7).saturating_add(rtt)) / 8,
        });
    }

    /// The timeout of a first transmission: 2 × SRTT within [`MIN_RTO`]..=[`MAX_RTO`], or
    /// [`INITIAL_RTO`] before any sample.
    pub fn rto(&self) -> Duration {
        self.rto_after(0)
    }

    /// The timeout after `resends` retransmissions of the same event: [`rto`](Self::rto)
    /// doubled `resends` times, at most [`MAX_RTO`].
    pub fn rto_after(&self, resends: u32) -> Duration {
        let base = match self.srtt {
            None => INITIAL_RTO,
            Some(srtt) => srtt.saturating_mul(2).max(MIN_RTO),
        };
        // 2^10 × 100 ms already exceeds the ceiling; a smaller shift avoids overflow.
        base.saturating_mul(1 << resends.min(10)).min(MAX_RTO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn initial_timeout_before_any_sample() {
        let rtt = RttEstimator::new();
        assert_eq!(rtt.srtt(), None);
        assert_eq!(rtt.rto(), INITIAL_RTO);
        assert_eq!(rtt.rto_after(1), ms(1000));
        assert_eq!(rtt.rto_after(2), ms(1000));
    }

    #[test]
    fn first_sample_sets_srtt_later_ones_smooth_by_an_eighth() {
        let mut rtt = RttEstimator::new();
        rtt.sample(ms(200));
        assert_eq!(rtt.srtt(), Some(ms(200)));
        rtt.sample(ms(120));
        assert_eq!(rtt.srtt(), Some(ms(190)));
    }

    #[test]
    fn converges_to_a_steady_rtt() {
        let mut rtt = RttEstimator::new();
        rtt.sample(ms(400));
        for _ in 0..100 {
            rtt.sample(ms(150));
        }
        let srtt = rtt.srtt().unwrap();
        assert!(srtt.abs_diff(ms(150)) < ms(1), "{srtt:?}");
        assert!(rtt.rto().abs_diff(ms(300)) < ms(2));
    }

    #[rstest]
    #[case::floor(10, 0, 100)]
    #[case::zero_rtt(0, 0, 100)]
    #[case::twice_srtt(80, 0, 160)]
    #[case::floor_then_doubling(10, 1, 200)]
    #[case::doubling(80, 2, 640)]
    #[case::capped(80, 3, 1000)]
    #[case::capped_far(80, 40, 1000)]
    #[case::slow_link_capped(700, 0, 1000)]
    fn timeout(#[case] srtt_ms: u64, #[case] resends: u32, #[case] expect_ms: u64) {
        let mut rtt = RttEstimator::new();
        rtt.sample(ms(srtt_ms));
        assert_eq!(rtt.rto_after(resends), ms(expect_ms));
    }
}
