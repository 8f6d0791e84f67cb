//! The app's ends of the network channels: the tick never blocks on I/O, the network
//! thread owns the socket (ADR 0025).

use std::sync::Arc;

use bevy_ecs::resource::Resource;
use crossbeam_channel::Receiver;

use crate::net::{Inbound, NetStats, Outbound};

/// Decoded datagrams in, encoded datagrams out. The network thread owns the other ends in
/// production; the test harness owns them in tests.
#[derive(Resource, Clone)]
pub struct Transport {
    pub inbound: Receiver<Inbound>,
    /// Bounded in production: `send` sheds (counted) instead of blocking the tick.
    pub outbound: Outbound,
    pub stats: Arc<NetStats>,
}
