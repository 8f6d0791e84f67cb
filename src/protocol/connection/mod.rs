//! connection.md: handshake, lanes, chat, roster, weapons, damage.

pub mod handshake;
pub mod rewind;
pub mod samples;
