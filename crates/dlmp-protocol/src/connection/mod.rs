//! connection.md: handshake, lanes, chat, roster, weapons, damage.

pub mod chat;
pub mod damage;
pub mod handshake;
pub mod lane;
pub mod rewind;
pub mod roster;
pub mod samples;
pub mod weapons;
