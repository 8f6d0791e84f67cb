//! The app's ends of the network channels: the tick never blocks on I/O, the network
//! thread owns the socket (ADR 0025).

use std::sync::Arc;
use std::time::Instant;

use bevy_ecs::resource::Resource;
use crossbeam_channel::Receiver;

use dlmp_net::sessions::SessionBoard;
use dlmp_net::{Inbound, NetStats, Outbound};

/// Decoded datagrams in, encoded datagrams out. The network thread owns the other ends in
/// production; the test harness owns them in tests.
#[derive(Resource, Clone)]
pub struct Transport {
    pub inbound: Receiver<Inbound>,
    /// Bounded in production: `send` sheds (counted) instead of blocking the tick.
    pub outbound: Outbound,
    pub stats: Arc<NetStats>,
    /// Where the app leaves its live sessions for the network thread's early drop
    /// (ADR 0088).
    pub sessions: Arc<SessionBoard>,
}

/// The deadline of the step being run: ingest takes only the datagrams that arrived
/// before it ([`dlmp_net::Inbound::at`]); later ones wait for the next step. The run
/// loop sets it to the step's absolute deadline before each step, the harness to the
/// end of the step on its manual clock. Without it a step takes everything queued.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepDeadline(pub Instant);
