//! The helicopter winch (vehicles.md VehicleWinch, VehicleLift): which models a magnet
//! takes ([`magnet`]), the pick-up rules ([`admit`]), and the release when the winch is
//! removed or changed (VehicleParams bit3 / bit4, set by `dlmp.set_vehicle_winch`). A
//! pick-up and a release travel the same flow as a hitch (`tow::flow`): the same intake,
//! scripts' events (`winch_attach`, refusable, and `winch_detach`), apply and automatic
//! releases. Decisions: ADR 0067.

pub mod admit;
pub mod magnet;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::tow::flow::LinkWorld;
use super::tow::links::LinkKind;
use super::tow::release::free;
use dlmp_core::tick::StreamingSystems;

/// Adds the winch's own rule.
pub struct WinchPlugin;

impl Plugin for WinchPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            FixedUpdate,
            release_changed_winches
                .in_set(StreamingSystems::Reconcile)
                .after(super::tow::ReleaseSystems)
                .before(super::stream::reconcile),
        );
    }
}

/// A load whose helicopter's winch no longer takes it (removed, or the other magnet) is
/// released, without events. A model is taken by one magnet kind only, so this is exactly
/// "when the winch is removed or changed".
fn release_changed_winches(mut w: LinkWorld) {
    let mut links = w.links();
    let lifts: Vec<_> = links
        .iter()
        .filter(|(kind, ..)| *kind == LinkKind::Lift)
        .collect();
    for (_, load, heli) in lifts {
        let taken = match (w.facts(load), w.facts(heli)) {
            (Some((_, l)), Some((_, h))) => magnet::takes(&w.models, h.winch, l.model),
            _ => true,
        };
        if !taken {
            free(&mut w, &mut links, LinkKind::Lift, load);
        }
    }
}
