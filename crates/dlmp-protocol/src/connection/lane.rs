//! The acknowledgements of the two reliable event lanes (connection.md §3): Go-Back-N
//! with cumulative acks. An ack is never itself acknowledged.

use crate::ids::{EventId, SessionToken};
use crate::packet;
use crate::wire::Validate;

packet! {
    /// ClientAck (0x0E), Client → Server: every Server → Client event up to `event_id`
    /// has been applied.
    pub struct ClientAck = 0x0E, ClientToServer {
        pub session_token: SessionToken,
        /// The last event applied in order; 0 before the first one.
        pub event_id: EventId,
    }
}

impl Validate for ClientAck {}

packet! {
    /// ServerAck (0x0F), Server → Client: every Client → Server event up to `event_id` has
    /// been applied.
    pub struct ServerAck = 0x0F, ServerToClient {
        /// The last event applied in order; 0 before the first one.
        pub event_id: EventId,
    }
}

impl Validate for ServerAck {}
