//! Object streaming on the one engine (world.md ObjectState; ADR 0027, ADR 0048).
use std::collections::HashSet;

use bevy_ecs::prelude::*;

use super::ObjectId;

/// The objects' engine and shown sets, kept between passes.
#[derive(Resource, Debug, Default)]
pub struct ObjectStream {
    /// Objects whose change a client sees: resent as critical to everyone they are shown to.
    pub(super) resend: HashSet<ObjectId>,
    /// Objects destroyed this tick (their chains go too).
    pub(super) gone: Vec<ObjectId>,
}

pub(super) fn reconcile() {}
