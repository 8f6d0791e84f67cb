//! VehicleControl (vehicles.md): the driver's engine and lights keys. The server takes
//! them only from the player in seat 0 of that vehicle who is not frozen, while the
//! vehicle is not a wreck; the lock key (control 2) is dropped, since only the gamemode
//! locks a vehicle. Each packet is judged in lane order with the other vehicle events
//! ([`VehicleLane`]: the shared limit, and a key after the driver's exit is dropped). An
//! accepted key raises `vehicle_control(vehicle, player, control, on)` in the script pass; unless a
//! handler returns false it is applied as a gamemode command, after the handlers' own
//! commands. Everything else is dropped silently (counted in [`ControlStats`]).

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use tracing::debug;

use super::command::ParamWriter;
use super::rules::ParamChange;
use crate::components::{Occupant, Seats};
use crate::event_limit::{Judged, VehicleLane};
use dlmp_core::session::{Player, Received};
use dlmp_core::vehicle::Life;
use dlmp_core::vehicle::Vehicles;
use dlmp_player::frame::FrameState;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::ids::{VehicleEpoch, VehicleId};
use dlmp_protocol::vehicle::params::VehicleControlKind;

/// Why a VehicleControl was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlDrop {
    /// Control 2: only the gamemode locks a vehicle.
    Lock,
    NoVehicle,
    /// The sender is not in seat 0 of the vehicle.
    NotDriver,
    Frozen,
    Wrecked,
    /// A `vehicle_control` handler returned false.
    Refused,
    /// The vehicle respawned or was removed before the key was applied.
    Gone,
}

/// VehicleControl accepted (applied) and dropped by reason.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct ControlStats {
    pub applied: u64,
    pub dropped: HashMap<ControlDrop, u64>,
}

impl ControlStats {
    fn drop(&mut self, why: ControlDrop) {
        *self.dropped.entry(why).or_default() += 1;
    }

    /// Applied, then each reason's drops (the console's `stats` row).
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        use ControlDrop::*;
        let mut out = vec![("applied", self.applied)];
        for why in [Lock, NoVehicle, NotDriver, Frozen, Wrecked, Refused, Gone] {
            out.push((why.name(), self.dropped.get(&why).copied().unwrap_or(0)));
        }
        out
    }
}

impl ControlDrop {
    /// The word of the console.
    pub fn name(self) -> &'static str {
        match self {
            ControlDrop::Lock => "the lock key",
            ControlDrop::NoVehicle => "no such vehicle",
            ControlDrop::NotDriver => "not the driver",
            ControlDrop::Frozen => "frozen",
            ControlDrop::Wrecked => "a wreck",
            ControlDrop::Refused => "refused by a handler",
            ControlDrop::Gone => "gone before applied",
        }
    }
}

/// A key that passed the checks and waits for the scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingControl {
    pub driver: Occupant,
    pub vehicle: VehicleId,
    pub epoch: VehicleEpoch,
    /// Engine or lights.
    pub control: VehicleControlKind,
    pub on: bool,
    pub refused: bool,
}

impl PendingControl {
    fn change(&self) -> ParamChange {
        match self.control {
            VehicleControlKind::Lights => ParamChange::Lights(self.on),
            _ => ParamChange::Engine(self.on),
        }
    }

    /// The Lua word of the control (`vehicle_control`).
    pub fn name(&self) -> &'static str {
        match self.control {
            VehicleControlKind::Lights => "lights",
            _ => "engine",
        }
    }
}

/// The tick's keys between the intake and the apply.
#[derive(Resource, Debug, Default)]
pub struct PendingControls(pub Vec<PendingControl>);

/// The intake of the tick's VehicleControl, in lane order: a key after the driver's exit
/// in the lane is not the driver's, a key before it is (ADR 0120).
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
pub(super) fn intake(
    registry: Res<Vehicles>,
    mut received: MessageReader<Received>,
    mut pending: ResMut<PendingControls>,
    mut stats: ResMut<ControlStats>,
    lane: Res<VehicleLane>,
    senders: Query<(&Player, Option<&FrameState>)>,
    vehicles: Query<(&Seats, &Life)>,
) {
    pending.0.clear();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::VehicleControl(key) = packet else {
            continue;
        };
        let Ok((me, frame)) = senders.get(*player) else {
            continue;
        };
        let judged = lane.judged(*player, packet);
        if judged == Judged::Limited {
            debug!(
                player = me.id.0,
                "a vehicle event past the rate limit dropped"
            );
            continue;
        }
        let driver = Occupant {
            entity: *player,
            id: me.id,
            token: me.token,
        };
        let left = judged
            == (Judged::Taken {
                exited: Some(key.vehicle_id),
            });
        let checked = check(&registry, &vehicles, driver, key.vehicle_id, key.control)
            .and_then(|epoch| {
                if left {
                    Err(ControlDrop::NotDriver)
                } else {
                    Ok(epoch)
                }
            })
            .and_then(|epoch| {
                if frame.is_some_and(|f| f.frozen.is_some()) {
                    Err(ControlDrop::Frozen)
                } else {
                    Ok(epoch)
                }
            });
        match checked {
            Ok(epoch) => pending.0.push(PendingControl {
                driver,
                vehicle: key.vehicle_id,
                epoch,
                control: key.control,
                on: key.value,
                refused: false,
            }),
            Err(why) => {
                stats.drop(why);
                debug!(
                    player = me.id.0,
                    vehicle = key.vehicle_id.0,
                    ?why,
                    "VehicleControl dropped"
                );
            }
        }
    }
}

/// The page's checks but the sender's freeze: the key, the vehicle, its driver, its life.
fn check(
    registry: &Vehicles,
    vehicles: &Query<(&Seats, &Life)>,
    driver: Occupant,
    vehicle: VehicleId,
    control: VehicleControlKind,
) -> Result<VehicleEpoch, ControlDrop> {
    if control == VehicleControlKind::Lock {
        return Err(ControlDrop::Lock);
    }
    let (seats, life) = registry
        .entity(vehicle)
        .and_then(|e| vehicles.get(e).ok())
        .ok_or(ControlDrop::NoVehicle)?;
    if seats.driver() != Some(driver) {
        return Err(ControlDrop::NotDriver);
    }
    if life.wrecked {
        return Err(ControlDrop::Wrecked);
    }
    Ok(life.epoch)
}

/// The scripts' part, inside the script pass: `vehicle_control` for each waiting key;
/// false from any handler refuses it.
pub(crate) fn emit_controls(host: &mut dlmp_script::ScriptHost, pending: &mut PendingControls) {
    use crate::script::LuaVehicle;
    use dlmp_player::script::LuaPlayer;
    use dlmp_script::ScriptEvent;
    for key in &mut pending.0 {
        let player = LuaPlayer {
            entity: key.driver.entity,
            token: key.driver.token,
        };
        let event = ScriptEvent::new(
            "vehicle_control",
            [
                LuaVehicle { id: key.vehicle }.into(),
                player.into(),
                key.name().into(),
                key.on.into(),
            ],
        );
        key.refused |= host.emit(&event).refused;
    }
}

/// The keys the scripts let through, as gamemode commands (after the scripts' own
/// [`ParamsCommand`](super::ParamsCommand)s of this tick).
pub(super) fn apply(
    mut pending: ResMut<PendingControls>,
    mut stats: ResMut<ControlStats>,
    mut writer: ParamWriter,
) {
    for key in pending.0.drain(..) {
        if key.refused {
            stats.drop(ControlDrop::Refused);
        } else if writer.change(key.vehicle, Some(key.epoch), key.change()) {
            stats.applied += 1;
        } else {
            stats.drop(ControlDrop::Gone);
        }
    }
}
