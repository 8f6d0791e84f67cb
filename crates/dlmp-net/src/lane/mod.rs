//! The reliable event lanes of connection.md §3: Go-Back-N with cumulative acks, as an
//! I/O-free core. The caller passes the time ("server time since start") and moves the
//! bytes; nothing here touches a socket or a clock.
//!
//! - [`OutboundLane`]: the server's queue of events for one recipient (server → client):
//!   event ids from 1, the 512 / 480 queue limits by [`Delivery`] class, resends on the
//!   retransmission timeout, at most 64 new events a tick, overflow and stall
//!   ([`LaneHealth`]).
//! - [`InboundLane`]: the receiver of a client's events (client → server), applying each
//!   exactly once and in order, and telling the ack to send (ServerAck). Every peer runs
//!   it, so it lives with the protocol ([`dlmp_protocol::lane`]); a bot needs no more.
//! - [`RttEstimator`]: smoothed RTT and the timeout: 2 × SRTT, at least 100 ms, doubling
//!   per resend up to 1 s.
//!
//! Rules the page leaves open (initial timeout, the exact Go-Back-N rule, what "waiting"
//! counts, when the stall clock starts) are recorded in docs/decisions/0003-reliable-lane.md.

mod outbound;
mod rtt;

pub use dlmp_protocol::lane::{InboundLane, Verdict};
pub use outbound::{
    AckOutcome, DROPPABLE_LIMIT, Delivery, LaneHealth, NEW_PER_TICK, OutboundLane, Polled,
    PushError, QUEUE_LIMIT, STALL_TIMEOUT, SendKind, Transmission,
};
pub use rtt::{INITIAL_RTO, MAX_RTO, MIN_RTO, RttEstimator};
