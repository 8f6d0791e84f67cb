//! The floor before a landing (world.md ObjectState, ADR 0049).
use bevy_app::App;

pub(super) fn build(_app: &mut App) {}
