//! The DLMP transport (connection.md §1, §3): one thread owns the UDP socket, decodes every
//! datagram into a typed [`ClientPacket`] and hands it to the app over a channel; the app
//! hands back encoded datagrams. Malformed input never crosses the channel, and nothing in
//! the app blocks on I/O. Beside it, the I/O-free pieces every session uses: the reliable
//! event [`lane`]s and the [`ratelimit`] buckets.
//!
//! This crate knows the wire ([`dlmp_protocol`]) and nothing of the ECS or of any feature.

mod batch;
mod ingress;
pub mod lane;
pub mod log_limit;
mod outbound;
pub mod query;
pub mod ratelimit;
pub mod sessions;
mod shipment;
mod stats;
mod thread;

use std::net::SocketAddr;
use std::time::Instant;

pub use ingress::Decoder;
pub use outbound::{Lot, Outbound, SHED_FRACTION, ShedReason, Shipments, Writer};
pub use shipment::{CHUNK, POOLED, Shipment, ShipmentPool};
pub use stats::{DropReason, NetStats};
pub use thread::{NetConfig, NetHandle, spawn};

use dlmp_protocol::ClientPacket;

/// A decoded datagram from the network thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Inbound {
    pub from: SocketAddr,
    pub packet: ClientPacket,
    /// When the network thread read it: a step takes only what arrived before its
    /// deadline (the core's `StepDeadline`), so a late wake-up does not swallow the
    /// next step's datagrams (issue 11).
    pub at: Instant,
}

/// An encoded datagram for the network thread to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datagram {
    pub to: SocketAddr,
    pub bytes: Vec<u8>,
}
