//! A token bucket on the server's clock (time as a [`Duration`] since server start).
//!
//! It serves the chat limit (at most 5 lines at once and 1 a second per connection, §4) and the
//! refused-attempt budget behind ConnectRefused reason 5 (docs/decisions/0004-sessions.md)
//! and the inbound budget of a session (ADR 0019). The hello limit (at most 4 hellos a
//! second per source IP, connection.md §2) is a [`WindowLimit`] instead: a bucket lets 7
//! through in its first second.
//!
//! The bucket keeps its credit as a [`Duration`], in integer nanoseconds: one token is worth
//! one refill interval, the bucket holds at most `burst` intervals, and elapsed time adds
//! credit. No floats, so a token comes back after exactly one interval.
//!
//! ```
//! use std::time::Duration;
//! use dlmp_net::ratelimit::{RateLimit, TokenBucket};
//!
//! let mut chat = TokenBucket::new(RateLimit::CHAT, Duration::ZERO);
//! for _ in 0..5 {
//!     assert!(chat.try_take(Duration::ZERO));
//! }
//! assert!(!chat.try_take(Duration::ZERO));
//! assert!(chat.try_take(Duration::from_secs(1)));
//! ```

use std::time::Duration;

/// How many events a bucket lets through at once (`burst`) and how fast it refills (one
/// token per `interval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RateLimit {
    burst: u32,
    interval: Duration,
}

impl RateLimit {
    /// Chat lines per connection: 5 at once, 1 a second (connection.md §4).
    pub const CHAT: Self = Self::per_second(5, 1);

    /// `burst` events at once, refilled at `per_second` tokens a second.
    ///
    /// # Panics
    /// When `burst` or `per_second` is 0 (at compile time in a `const`).
    #[must_use]
    pub const fn per_second(burst: u32, per_second: u32) -> Self {
        assert!(
            per_second > 0,
            "a rate limit refills at least one token a second"
        );
        Self::every(
            burst,
            Duration::from_nanos(1_000_000_000 / per_second as u64),
        )
    }

    /// `burst` events at once, one token back every `interval`.
    ///
    /// # Panics
    /// When `burst` is 0 or `interval` is zero (at compile time in a `const`).
    #[must_use]
    pub const fn every(burst: u32, interval: Duration) -> Self {
        assert!(burst > 0, "a rate limit lets at least one event through");
        assert!(!interval.is_zero(), "a rate limit needs a refill interval");
        RateLimit { burst, interval }
    }

    /// Events let through at once by a full bucket.
    #[must_use]
    pub const fn burst(self) -> u32 {
        self.burst
    }

    /// Time for one token to come back.
    #[must_use]
    pub const fn interval(self) -> Duration {
        self.interval
    }

    const fn capacity(self) -> Duration {
        self.interval.saturating_mul(self.burst)
    }
}

/// A token bucket: [`try_take`](Self::try_take) lets an event through while a token is
/// left. Starts full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenBucket {
    limit: RateLimit,
    /// Credit at `at`, at most `limit.capacity()`.
    credit: Duration,
    at: Duration,
}

impl TokenBucket {
    /// A full bucket at `now`.
    #[must_use]
    pub const fn new(limit: RateLimit, now: Duration) -> Self {
        TokenBucket {
            limit,
            credit: limit.capacity(),
            at: now,
        }
    }

    /// The bucket's limit.
    #[must_use]
    pub const fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes one token at `now` if one is left; false means the event is over the limit.
    /// A `now` earlier than the last call counts as no time passed.
    pub fn try_take(&mut self, now: Duration) -> bool {
        self.refill(now);
        match self.credit.checked_sub(self.limit.interval) {
            Some(rest) => {
                self.credit = rest;
                true
            }
            None => false,
        }
    }

    /// Adds `tokens` at once (credit earned by something other than time), up to the burst.
    pub fn give(&mut self, tokens: u32) {
        self.credit =
            (self.credit + self.limit.interval.saturating_mul(tokens)).min(self.limit.capacity());
    }

    /// Tokens left at `now`, without taking one.
    #[must_use]
    pub fn available(&self, now: Duration) -> u32 {
        let mut probe = *self;
        probe.refill(now);
        // credit <= burst * interval, so the quotient fits a u32.
        u32::try_from(probe.credit.as_nanos() / probe.limit.interval.as_nanos()).unwrap_or(u32::MAX)
    }

    /// True when the bucket is full again at `now`: it holds no memory worth keeping, and a
    /// table of buckets may forget it.
    #[must_use]
    pub fn is_full(&self, now: Duration) -> bool {
        let mut probe = *self;
        probe.refill(now);
        probe.credit == self.limit.capacity()
    }

    fn refill(&mut self, now: Duration) {
        let elapsed = now.saturating_sub(self.at);
        self.credit = (self.credit + elapsed).min(self.limit.capacity());
        self.at = self.at.max(now);
    }
}

/// At most `N` events in any window of `window` (a sliding log of the last `N` times).
///
/// Unlike a [`TokenBucket`] of burst `N` refilled at `N` per window, whose first window lets
/// `N` at once and more as tokens come back (7 in the first second for 4 a second), this
/// lets at most `N` through in every window, the first one included: the hello limit of
/// connection.md §2, "at most 4 a second".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowLimit<const N: usize> {
    window: Duration,
    /// The times of the last `len` events let through, oldest at `head`.
    times: [Duration; N],
    head: usize,
    len: usize,
}

impl<const N: usize> WindowLimit<N> {
    /// No events yet.
    #[must_use]
    pub const fn new(window: Duration) -> Self {
        WindowLimit {
            window,
            times: [Duration::ZERO; N],
            head: 0,
            len: 0,
        }
    }

    /// Lets an event through at `now` if fewer than `N` were let through in the window
    /// ending at `now`; false means it is over the limit and was not recorded.
    pub fn try_take(&mut self, now: Duration) -> bool {
        self.forget(now);
        if self.len == N {
            return false;
        }
        self.times[(self.head + self.len) % N] = now;
        self.len += 1;
        true
    }

    /// True when no event of the window is remembered at `now`: a table may forget it.
    #[must_use]
    pub fn is_empty(&self, now: Duration) -> bool {
        let mut probe = *self;
        probe.forget(now);
        probe.len == 0
    }

    fn forget(&mut self, now: Duration) {
        while self.len > 0 && now.saturating_sub(self.times[self.head]) >= self.window {
            self.head = (self.head + 1) % N;
            self.len -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    /// 4 at once and 4 a second: the bucket that lets 7 through in its first second.
    const FOUR: RateLimit = RateLimit::per_second(4, 4);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn drain(bucket: &mut TokenBucket, now: Duration) -> u32 {
        let mut n = 0;
        while bucket.try_take(now) {
            n += 1;
        }
        n
    }

    #[rstest]
    #[case::four(FOUR, 4, ms(250))]
    #[case::chat(RateLimit::CHAT, 5, ms(1000))]
    fn the_two_configurations(
        #[case] limit: RateLimit,
        #[case] burst: u32,
        #[case] interval: Duration,
    ) {
        assert_eq!(limit.burst(), burst);
        assert_eq!(limit.interval(), interval);
    }

    #[rstest]
    #[case::four(FOUR)]
    #[case::chat(RateLimit::CHAT)]
    fn a_full_bucket_lets_the_burst_through_then_refuses(#[case] limit: RateLimit) {
        let start = ms(5000);
        let mut bucket = TokenBucket::new(limit, start);
        assert_eq!(bucket.available(start), limit.burst());
        assert_eq!(drain(&mut bucket, start), limit.burst());
        assert!(!bucket.try_take(start));
        assert_eq!(bucket.available(start), 0);
    }

    #[rstest]
    #[case::four(FOUR)]
    #[case::chat(RateLimit::CHAT)]
    fn one_token_comes_back_after_exactly_one_interval(#[case] limit: RateLimit) {
        let mut bucket = TokenBucket::new(limit, Duration::ZERO);
        drain(&mut bucket, Duration::ZERO);
        let back = limit.interval();
        assert!(!bucket.try_take(back - Duration::from_nanos(1)));
        assert!(bucket.try_take(back));
        assert!(!bucket.try_take(back));
    }

    #[test]
    fn four_a_second_sustained() {
        let mut bucket = TokenBucket::new(FOUR, Duration::ZERO);
        drain(&mut bucket, Duration::ZERO);
        // Ten seconds of steady hellos every 100 ms: 4 a second get through.
        let passed = (1..=100).filter(|i| bucket.try_take(ms(i * 100))).count();
        assert_eq!(passed, 40);
    }

    #[test]
    fn chat_limit_is_one_line_a_second_after_the_burst() {
        let mut bucket = TokenBucket::new(RateLimit::CHAT, Duration::ZERO);
        assert_eq!(drain(&mut bucket, Duration::ZERO), 5);
        assert_eq!(drain(&mut bucket, ms(999)), 0);
        assert_eq!(drain(&mut bucket, ms(1000)), 1);
        assert_eq!(drain(&mut bucket, ms(2500)), 1);
        assert_eq!(drain(&mut bucket, ms(3000)), 1);
    }

    #[rstest]
    #[case::four(FOUR)]
    #[case::chat(RateLimit::CHAT)]
    fn credit_never_exceeds_the_burst(#[case] limit: RateLimit) {
        let mut bucket = TokenBucket::new(limit, Duration::ZERO);
        assert_eq!(drain(&mut bucket, Duration::from_secs(3600)), limit.burst());
    }

    #[test]
    fn time_going_backwards_adds_nothing() {
        let mut bucket = TokenBucket::new(RateLimit::CHAT, ms(10_000));
        drain(&mut bucket, ms(10_000));
        assert!(!bucket.try_take(ms(0)));
        assert!(!bucket.try_take(ms(10_999)));
        assert!(bucket.try_take(ms(11_000)));
    }

    #[test]
    fn is_full_once_refilled() {
        let mut bucket = TokenBucket::new(FOUR, Duration::ZERO);
        assert!(bucket.is_full(Duration::ZERO));
        assert!(bucket.try_take(Duration::ZERO));
        assert!(!bucket.is_full(ms(249)));
        assert!(bucket.is_full(ms(250)));
    }

    #[test]
    fn a_window_limit_lets_four_through_in_any_second_the_first_included() {
        let mut w = WindowLimit::<4>::new(Duration::from_secs(1));
        // Hellos every 50 ms for 3 s: 4 in each second, never 7 in the first.
        let passed: Vec<u64> = (0..60)
            .map(|i| i * 50)
            .filter(|&t| w.try_take(ms(t)))
            .collect();
        assert_eq!(
            passed,
            [
                0, 50, 100, 150, 1000, 1050, 1100, 1150, 2000, 2050, 2100, 2150
            ]
        );
        assert!(!w.is_empty(ms(3149)));
        assert!(w.is_empty(ms(3150)));
    }

    #[test]
    fn give_adds_credit_up_to_the_burst() {
        let mut bucket = TokenBucket::new(RateLimit::CHAT, Duration::ZERO);
        drain(&mut bucket, Duration::ZERO);
        bucket.give(2);
        assert_eq!(drain(&mut bucket, Duration::ZERO), 2);
        bucket.give(100);
        assert_eq!(bucket.available(Duration::ZERO), 5);
    }

    #[test]
    #[should_panic(expected = "at least one event")]
    fn a_zero_burst_is_refused() {
        let _ = RateLimit::every(0, Duration::from_secs(1));
    }
}
