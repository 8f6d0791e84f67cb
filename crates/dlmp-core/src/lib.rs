//! The core of the DLMP server, below every feature: the tick's ordered system sets
//! ([`tick`]), sessions and the handshake ([`session`], connection.md §2-§5), the generic
//! streaming engine ([`streaming`]), and the components two or more features read: where a
//! player is ([`position`]), who sees a subject ([`viewers`]), what the player side reads
//! of a vehicle ([`vehicle`]), and what the server tells a player about itself ([`owner`]).
//!
//! The core knows the wire ([`dlmp_protocol`]) and the transport ([`dlmp_net`]); it never
//! names a feature. A need of a feature that would run the other way is a component, a
//! message or a registration defined here and filled above (docs/architecture.md).

pub mod owner;
pub mod position;
pub mod session;
pub mod streaming;
pub mod tick;
pub mod vehicle;
pub mod viewers;
