//! The server's wall clock, read only through this resource so that real time
//! (`dlmp.set_real_time`) is deterministic in tests (world.md RunClock, "Real time").

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bevy_ecs::resource::Resource;

/// Where the wall clock's time comes from: the system's, or a value a test sets.
#[derive(Resource, Debug, Clone, Default)]
pub struct WallClock {
    manual: Option<Arc<AtomicU64>>,
}

impl WallClock {
    /// The system's clock (the default).
    pub fn system() -> Self {
        WallClock::default()
    }

    /// A clock standing at `since_epoch` until [`WallClock::set`]; clones share it.
    pub fn manual(since_epoch: Duration) -> Self {
        let millis = u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX);
        WallClock {
            manual: Some(Arc::new(AtomicU64::new(millis))),
        }
    }

    /// Moves a manual clock to `since_epoch`; the system clock ignores it.
    pub fn set(&self, since_epoch: Duration) {
        if let Some(m) = &self.manual {
            let millis = u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX);
            m.store(millis, Ordering::Relaxed);
        }
    }

    /// Time since the Unix epoch, UTC (zero for a system clock set before 1970).
    pub fn since_epoch(&self) -> Duration {
        match &self.manual {
            Some(m) => Duration::from_millis(m.load(Ordering::Relaxed)),
            None => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default(),
        }
    }
}
