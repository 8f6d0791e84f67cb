//! Fixture values for the handshake family.

use crate::connection::handshake::*;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::text::FixedText;

pub fn client_hello() -> ClientHello {
    ClientHello {
        magic: MAGIC,
        protocol: PROTOCOL_VERSION,
        nonce: 0x5EED_1234,
        name: FixedText::new("Carl_Johnson").expect("a valid name"),
        pad: [0; 29],
    }
}

pub fn server_hello() -> ServerHello {
    ServerHello {
        nonce: 0x5EED_1234,
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        player_id: PlayerId(7),
        player_token: PlayerToken(42),
        max_players: 1000,
        hours: 14,
        minutes: 30,
        weather: 10,
        garage_open: 0b1010_0001,
        tick_hz: 50,
    }
}

pub fn connect_refused() -> ConnectRefused {
    ConnectRefused {
        nonce: 0x0BAD_CAFE,
        reason: RefuseReason::NameInUse,
    }
}

pub fn client_disconnect() -> ClientDisconnect {
    ClientDisconnect {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
    }
}

pub fn server_disconnect() -> ServerDisconnect {
    ServerDisconnect {
        reason: LeaveReason::Kicked,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("client_hello.bin", client_hello()),
        sample("server_hello.bin", server_hello()),
        sample("connect_refused.bin", connect_refused()),
        sample("client_disconnect.bin", client_disconnect()),
        sample("server_disconnect.bin", server_disconnect()),
    ]
}
