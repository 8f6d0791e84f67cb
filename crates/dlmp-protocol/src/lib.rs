//! The DLMP wire protocol: every packet of connection.md, player.md, world.md and
//! vehicles.md as a typed value with strict `decode` and validating `encode`.
//!
//! Layout: the shared machinery (`wire`, `error`, `text`, `ids`, `check`, `packet`), then
//! one folder per spec page with one file per packet family.

pub mod bundle;
pub mod check;
pub mod connection;
pub mod dispatch;
pub mod doc;
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
pub mod wire;
pub mod world;

pub use dispatch::{ClientPacket, PacketDoc, ServerPacket};
pub use error::{DecodeError, EncodeError, ErrorKind, FieldError, Rule};
pub use packet::{Direction, FieldDoc, MAX_DATAGRAM, Packet};
pub use wire::{Validate, Wire};
