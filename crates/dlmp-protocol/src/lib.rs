//! The DLMP wire protocol: every packet of connection.md, player.md, world.md,
//! vehicles.md, weapons.md, editing.md and query.md as a typed value with strict `decode` and validating `encode`,
//! bundles, ids and serial arithmetic, and the receiving half of a reliable lane ([`lane`]).
//! No ECS, no Lua, no I/O: a client, a bot or a fuzzer uses this crate alone.
//!
//! Layout: the shared machinery (`wire`, `error`, `text`, `ids`, `check`, `packet`), then
//! one folder per spec page with one file per packet family.

pub mod bundle;
pub mod check;
pub mod connection;
pub mod dispatch;
pub mod doc;
pub mod edit;
pub mod error;
pub mod geometry;
pub mod ids;
pub mod lane;
pub mod packet;
pub mod player;
pub mod probe;
pub mod query;
pub mod sample;
pub mod serial;
pub mod text;
pub mod vehicle;
pub mod weapons;
pub mod wire;
pub mod world;

pub use dispatch::{ClientPacket, PacketDoc, ServerPacket};
pub use error::{DecodeError, EncodeError, ErrorKind, FieldError, Rule};
pub use packet::{Direction, FieldDoc, MAX_DATAGRAM, Packet};
pub use wire::{Validate, Wire};
