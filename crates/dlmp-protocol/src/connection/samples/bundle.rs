//! Fixture value for the bundle (connection.md §1, protocol 2): what one recipient might
//! get in one tick, in the order it would have left singly.

use crate::ServerPacket;
use crate::connection::samples::{chat, lane};
use crate::player::samples::sync;
use crate::sample::{Sample, bundle_sample};

pub fn bundle() -> Vec<ServerPacket> {
    vec![
        lane::server_ack().into(),
        chat::chat_message().into(),
        sync::remote_player_sync().into(),
    ]
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![bundle_sample("bundle.bin", bundle())]
}
