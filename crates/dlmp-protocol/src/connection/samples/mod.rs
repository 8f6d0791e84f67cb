//! Fixture values for connection.md, one file per packet family.

use crate::sample::Sample;

pub mod bundle;
pub mod chat;
pub mod damage;
pub mod handshake;
pub mod lane;
pub mod roster;
pub mod weapons;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [
        handshake::all(),
        lane::all(),
        chat::all(),
        roster::all(),
        weapons::all(),
        damage::all(),
        bundle::all(),
    ];
    families.into_iter().flatten().collect()
}
