//! player.md: on-foot sync, streaming, life cycle and every server command to a player.

pub mod action;
pub mod animation;
pub mod appearance;
pub mod control;
pub mod hud;
pub mod life;
pub mod physics;
pub mod samples;
pub mod streaming;
pub mod sync;
