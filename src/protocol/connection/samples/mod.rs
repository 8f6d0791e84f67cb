//! Fixture values for connection.md, one file per packet family.

use crate::protocol::sample::Sample;

pub mod handshake;

pub fn all() -> Vec<Box<dyn Sample>> {
    [handshake::all()].into_iter().flatten().collect()
}
