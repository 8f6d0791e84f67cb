//! Towing (vehicles.md VehicleTow, VehicleTrailer): the pairs the game hitches
//! ([`pairs`]), the hitch rules ([`admit`]), and the flow a hitch and a winch load share
//! ([`links`], [`flow`], [`release`]): requests from the controlling player's game,
//! `trailer_attach` / `winch_attach` for the scripts, the change to everyone the vehicle
//! is streamed to, the automatic releases, and the Lua API ([`script`]). The server's state
//! is the child's [`Hitch`](crate::Hitch), which shows carry; the syncer election
//! makes the tractor's (helicopter's) controller the child's syncer. Decisions: ADR 0066.

pub mod admit;
pub mod flow;
pub mod links;
pub mod pairs;
pub mod release;
pub mod script;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::VehicleSystems;
use super::transform::TransformSystems;
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};

/// The streaming phase's automatic releases, which the winch's own release follows.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReleaseSystems;

/// Adds towing and the link flow the winch shares.
pub struct TowPlugin;

impl Plugin for TowPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<links::LinkStats>()
            .init_resource::<flow::PendingLinks>()
            .add_message::<flow::LinkCommand>()
            .add_systems(
                FixedUpdate,
                (
                    (flow::give, flow::settle)
                        .chain()
                        .in_set(ServerSystems::Validation)
                        .before(dlmp_player::frame::admit_frames),
                    // The scripts' views are taken after this tick's unhitches.
                    // Judged in lane order with the exits (ADR 0120): before the seat
                    // intake frees the seats of this tick's exits.
                    (flow::intake, script::refresh_book)
                        .chain()
                        .before(super::seats::intake)
                        .before(super::script::refresh_view)
                        .in_set(GameplaySystems::Intake),
                    flow::apply
                        .in_set(GameplaySystems::Apply)
                        .after(VehicleSystems::Seats),
                    // A transform "first releases the vehicle" (vehicles.md
                    // VehicleTransform): the releases of the tick so far go out before
                    // its VehicleTransform; the later ones (unseats, removals) in the
                    // streaming phase, before the shows of the pass.
                    release::release
                        .after(TransformSystems::Change)
                        .before(TransformSystems::Send),
                    release::release
                        .in_set(ReleaseSystems)
                        .in_set(StreamingSystems::Reconcile)
                        .before(super::stream::reconcile),
                ),
            );
    }
}
