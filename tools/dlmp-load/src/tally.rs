//! What the run counted: frames due and sent, relays due and delivered, latencies.

use serde::Serialize;

/// Latency buckets of 10 µs, up to 2 s (the last bucket holds everything later).
const BUCKET_US: u64 = 10;
const BUCKETS: usize = 200_000;

#[derive(Debug, Clone)]
pub struct Latency {
    buckets: Vec<u32>,
    count: u64,
}

impl Latency {
    pub fn new() -> Latency {
        Latency {
            buckets: vec![0; BUCKETS],
            count: 0,
        }
    }

    pub fn add(&mut self, ns: u64) {
        let bucket = ((ns / 1000) / BUCKET_US).min(BUCKETS as u64 - 1) as usize;
        self.buckets[bucket] = self.buckets[bucket].saturating_add(1);
        self.count += 1;
    }

    /// The `p`-th percentile in milliseconds (the bucket's upper edge); `None` if empty.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((p / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += u64::from(n);
            if seen >= rank {
                return Some(((i as u64 + 1) * BUCKET_US) as f64 / 1000.0);
            }
        }
        None
    }
}

/// Counters of the measured window.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub bots: usize,
    pub joined: usize,
    pub spawned: usize,
    pub walking: usize,
    /// Bots seated in their vehicle and driving it.
    pub driving: usize,
    pub gone: usize,
    /// Frames the bots should have sent in the window (walking bots × rate × seconds).
    pub frames_due: u64,
    pub frames_sent: u64,
    /// Frames of bots that have a due viewer, and of those the ones relayed at least once
    /// (so the server accepted them).
    pub frames_watched: u64,
    pub frames_relayed: u64,
    /// Relays due: for each frame sent in the window, the walking bots always within the
    /// show distance of its sender.
    pub relays_due: u64,
    /// The relays due of the frames relayed at least once: what the fan-out owed.
    pub relays_due_of_relayed: u64,
    /// Relays of frames sent in the window that arrived, and of those the due ones.
    pub relays_delivered: u64,
    pub relays_due_delivered: u64,
    /// The same for VehicleFrames and their relays (RemoteVehicleFrame): due from the
    /// drivers' and viewers' homes and the 200 m vehicle stream distance.
    pub vehicle_frames_due: u64,
    pub vehicle_frames_sent: u64,
    pub vehicle_frames_watched: u64,
    pub vehicle_frames_relayed: u64,
    pub vehicle_relays_due: u64,
    pub vehicle_relays_due_of_relayed: u64,
    pub vehicle_relays_delivered: u64,
    pub vehicle_relays_due_delivered: u64,
    pub datagrams_received: u64,
    pub undecodable: u64,
    pub unstamped: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_bucket_upper_edges() {
        let mut l = Latency::new();
        for us in 1..=100u64 {
            l.add(us * 100_000); // 0.1 .. 10 ms
        }
        assert_eq!(l.percentile(50.0), Some(5.01));
        assert_eq!(l.percentile(100.0), Some(10.01));
        assert_eq!(Latency::new().percentile(50.0), None);
    }
}
