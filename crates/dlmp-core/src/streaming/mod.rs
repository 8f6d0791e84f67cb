//! The streaming engine every streamed kind plugs into (player.md, "Player streaming";
//! world.md; vehicles.md): which items each player is shown, kept by the server as the one
//! truth ([`Viewers`](crate::viewers::Viewers) on every subject), with shows and hides on
//! the recipients' reliable lanes. Each kind's plugin, in its feature crate, describes its
//! items and rules; the engine names no feature.
//!
//! - [`engine`]: the one streaming engine every kind plugs into with its [`engine::Rules`]
//!   (distances or none, a cap filled nearest first, single viewer, attachment, forced
//!   audiences); [`shown`]: the world kinds' shown sets and pending hides
//!   (docs/decisions/0027-one-streaming-engine.md).
//! - [`grid`]: a uniform-grid spatial index, so a pass costs what the neighbours cost.
//! - [`nearest`]: the nearest-k lists that recipients of one small cell share, for a cap
//!   without a distance limit (docs/decisions/0074-shared-nearest-lists.md).
//! - [`players`]: the I/O-free decision for one recipient and one subject: scope, stream
//!   center, 420 / 460 m hysteresis, weapon range, spectate target, the seated seam.
//! - [`reshow`]: requests for a fresh show of a subject a viewer's full lane missed.
//! - [`stable`]: the recipients whose last answer still holds, so a quiet crowd is not
//!   decided again every pass (docs/decisions/0079-answers-that-hold.md).
//!
//! Decisions: docs/decisions/0008-player-streaming.md.

pub mod coalesce;
pub mod engine;
pub mod grid;
pub mod nearest;
pub mod players;
pub mod reshow;
pub mod shown;
pub mod shown_by;
pub mod stable;

pub use coalesce::Coalescer;
pub use reshow::Reshows;
