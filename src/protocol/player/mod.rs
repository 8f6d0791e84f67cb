//! player.md: on-foot sync, streaming, life cycle and every server command to a player.

pub mod action;
pub mod life;
pub mod samples;
pub mod streaming;
pub mod sync;
