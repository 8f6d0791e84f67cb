//! query.md: the server query for server browsers and monitoring. These packets carry no
//! session; the network thread answers them itself (`net::query`), so they are not in
//! [`ClientPacket`](crate::ClientPacket) or
//! [`ServerPacket`](crate::ServerPacket).

pub mod packets;
pub mod samples;

pub use packets::*;
