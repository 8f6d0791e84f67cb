//! The dashboard's history: the tick's time each second (p50, p99) and the process's CPU
//! use, the last [`KEPT`] seconds.

use std::collections::VecDeque;
use std::time::Duration;

use crate::snapshot::Sample;

/// 15 minutes of seconds.
pub const KEPT: usize = 15 * 60;

/// Tick times of the current second and the samples of the seconds before.
#[derive(Debug, Default)]
pub struct History {
    ticks: Vec<Duration>,
    samples: VecDeque<Sample>,
    cpu: CpuClock,
}

impl History {
    pub fn record_tick(&mut self, took: Duration) {
        self.ticks.push(took);
    }

    /// Closes the second that ends at `at` (Unix seconds).
    pub fn close_second(&mut self, at: i64) {
        let (p50, p99) = percentiles(&mut self.ticks);
        self.ticks.clear();
        if self.samples.len() == KEPT {
            self.samples.pop_front();
        }
        self.samples.push_back(Sample {
            at,
            tick_p50_ms: p50,
            tick_p99_ms: p99,
            cpu_percent: self.cpu.percent(),
        });
    }

    #[must_use]
    pub fn samples(&self) -> Vec<Sample> {
        self.samples.iter().copied().collect()
    }
}

/// The median and the 99th percentile of `times`, in milliseconds (nearest rank).
fn percentiles(times: &mut [Duration]) -> (f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0);
    }
    times.sort_unstable();
    let rank = |p: f64| {
        let i = ((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].as_secs_f64() * 1000.0
    };
    (rank(0.5), rank(0.99))
}

/// The process's CPU time between two reads (Linux: `/proc/self/stat`).
#[derive(Debug, Default)]
struct CpuClock {
    last: Option<(std::time::Instant, f64)>,
}

impl CpuClock {
    fn percent(&mut self) -> Option<f64> {
        let now = std::time::Instant::now();
        let cpu = cpu_seconds()?;
        let before = self.last.replace((now, cpu));
        let (then, was) = before?;
        let wall = now.duration_since(then).as_secs_f64();
        (wall > 0.0).then(|| ((cpu - was) / wall * 100.0).max(0.0))
    }
}

/// User and system time of this process, in seconds. The kernel counts in USER_HZ ticks,
/// 100 a second on every Linux the server runs on.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may hold spaces: fields count from after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_and_the_99th_percentile_by_nearest_rank() {
        let mut times: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentiles(&mut times), (50.0, 99.0));
        assert_eq!(percentiles(&mut []), (0.0, 0.0));
        let mut one = [Duration::from_millis(3)];
        assert_eq!(percentiles(&mut one), (3.0, 3.0));
    }

    #[test]
    fn fifteen_minutes_are_kept() {
        let mut h = History::default();
        for s in 0..(KEPT as i64 + 5) {
            h.record_tick(Duration::from_millis(2));
            h.close_second(s);
        }
        let samples = h.samples();
        assert_eq!(samples.len(), KEPT);
        assert_eq!(samples[0].at, 5);
        assert_eq!(samples[0].tick_p50_ms, 2.0);
    }
}
