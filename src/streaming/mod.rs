//! Player streaming (player.md, "Player streaming"): which players each player is shown,
//! kept by the server as the one truth ([`Viewers`](crate::player::Viewers) on every
//! subject), with shows and hides on the recipients' reliable lanes.
//!
//! - [`grid`]: a uniform-grid spatial index, so a pass costs what the neighbours cost.
//! - [`players`]: the I/O-free decision for one recipient and one subject: scope, stream
//!   center, 420 / 460 m hysteresis, weapon range, spectate target, the seated seam.
//! - [`plugin`]: the reconcile system, pending hides, the stream events.
//! - [`reshow`]: requests for a fresh show of a subject a viewer's full lane missed.
//!
//! Decisions: docs/decisions/0008-player-streaming.md.

pub mod grid;
pub mod players;
pub mod plugin;
pub mod reshow;

pub use plugin::{
    SNAPSHOT_EVENTS, StreamChange, StreamOverride, StreamState, StreamingPlugin, StreamingSettings,
};
pub use reshow::Reshows;
