//! Fixture values for connection.md, one file per packet family.

use crate::protocol::sample::Sample;

pub mod handshake;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [handshake::all()];
    families.into_iter().flatten().collect()
}
