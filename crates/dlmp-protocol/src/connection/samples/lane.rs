//! Fixture values for the lane acknowledgements.

use crate::connection::lane::*;
use crate::ids::*;
use crate::sample::{Sample, sample};

pub fn client_ack() -> ClientAck {
    ClientAck {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(1_287),
    }
}

pub fn server_ack() -> ServerAck {
    ServerAck {
        event_id: EventId(342),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("client_ack.bin", client_ack()),
        sample("server_ack.bin", server_ack()),
    ]
}
