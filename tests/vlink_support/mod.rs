//! What the hitch and winch scenarios share: their scene (a driven vehicle, a car and two
//! players), a gamemode logging the detach events, VehicleTow and VehicleWinch through the
//! decoder's packets with the vehicles' current epochs, the VehicleTrailer / VehicleLift
//! each client got, and the server's link state.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of it")]

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ids::{EventId, VehicleEpoch, VehicleId};
use dlmp::protocol::vehicle::life::VehicleSyncer;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::protocol::vehicle::towing::{VehicleLift, VehicleTow, VehicleTrailer, VehicleWinch};
use dlmp::vehicle::tow::links::{LinkKind, LinkRefusal, LinkStats};
use dlmp::vehicle::{Hitch, ResetKind, Syncer, VehicleReset};
use dlmp_core::vehicle::Life;

use crate::vehicle_support::{at, entity, put, stand, vehicle};

pub const NONE: u32 = u32::MAX;

/// Alice in the driver's seat of a `model` at x = 0 (the lead: a tow truck, a helicopter);
/// a car stands 20 m off, Bob beside it (its nearest player, so its syncer). `fit` changes
/// the new lead before the tick that shows both (a helicopter's magnet).
pub struct LinkScene {
    pub h: Harness,
    pub a: ClientId,
    pub b: ClientId,
    pub lead: VehicleId,
    pub car: VehicleId,
}

pub fn link_scene(
    mut h: Harness,
    model: u16,
    fit: impl FnOnce(&mut Harness, VehicleId),
) -> LinkScene {
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(20.0));
    let lead = vehicle(&mut h, model, at(0.0));
    let car = vehicle(&mut h, 411, at(20.0));
    fit(&mut h, lead);
    h.step();
    put(&mut h, a, lead, 0);
    h.step();
    h.clear(a);
    h.clear(b);
    LinkScene { h, a, b, lead, car }
}

/// A gamemode that says "detach" in chat on the resource event `event` (`trailer_detach`,
/// `winch_detach`).
pub fn detach_log(test: &str, event: &str) -> TempScripts {
    let scripts = TempScripts::new(test);
    scripts.resource(
        "gm",
        &format!(r#"dlmp.on("{event}", function() dlmp.send_chat("detach") end)"#),
    );
    scripts
}

/// The vehicle's current epoch.
pub fn epoch(h: &Harness, id: VehicleId) -> VehicleEpoch {
    h.world().get::<Life>(entity(h, id)).expect("a life").epoch
}

/// The server's hitch of the vehicle.
pub fn hitch(h: &Harness, id: VehicleId) -> Hitch {
    *h.world().get::<Hitch>(entity(h, id)).expect("a hitch")
}

/// The syncer's slot of the vehicle, if any.
pub fn syncer(h: &Harness, id: VehicleId) -> Option<u32> {
    h.world()
        .get::<Syncer>(entity(h, id))
        .expect("a syncer")
        .0
        .map(|o| o.id.0)
}

/// VehicleTow from `c` hitching `trailer` to `tractor` (`None`: unhitch) with the
/// vehicles' current epochs; no tick.
pub fn send_tow(h: &mut Harness, c: ClientId, trailer: VehicleId, tractor: Option<VehicleId>) {
    let packet = VehicleTow {
        session_token: h.token(c),
        event_id: EventId(0),
        trailer_id: trailer,
        trailer_epoch: epoch(h, trailer),
        tractor_id: tractor.unwrap_or(VehicleId::NONE),
        tractor_epoch: tractor.map_or(VehicleEpoch(0), |t| epoch(h, t)),
    };
    h.send_event(c, packet);
}

/// [`send_tow`] and one tick.
pub fn tow(h: &mut Harness, c: ClientId, trailer: VehicleId, tractor: Option<VehicleId>) {
    send_tow(h, c, trailer, tractor);
    h.step();
}

/// VehicleWinch from `c`: `heli`'s magnet picked up `load` (`None`: released), with the
/// current epochs, and one tick.
pub fn winch(h: &mut Harness, c: ClientId, load: VehicleId, heli: Option<VehicleId>) {
    let packet = VehicleWinch {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: load,
        vehicle_epoch: epoch(h, load),
        heli_id: heli.unwrap_or(VehicleId::NONE),
        heli_epoch: heli.map_or(VehicleEpoch(0), |v| epoch(h, v)),
    };
    h.send_event(c, packet);
    h.step();
}

/// (epoch, tractor, lifter) of every show of `id` that `c` got.
pub fn shows(h: &Harness, c: ClientId, id: VehicleId) -> Vec<(u8, u32, u32)> {
    h.packets::<VehicleSync>(c)
        .iter()
        .filter(|v| v.vehicle_id == id)
        .map(|v| (v.epoch.0, v.tractor_id.0, v.lifter_id.0))
        .collect()
}

/// (trailer, tractor, place) of every VehicleTrailer `c` got.
pub fn trailers(h: &Harness, c: ClientId) -> Vec<(u32, u32, bool)> {
    h.packets::<VehicleTrailer>(c)
        .iter()
        .map(|t| (t.trailer_id.0, t.tractor_id.0, t.place))
        .collect()
}

/// (load, helicopter) of every VehicleLift `c` got.
pub fn lifts(h: &Harness, c: ClientId) -> Vec<(u32, u32)> {
    h.packets::<VehicleLift>(c)
        .iter()
        .map(|l| (l.vehicle_id.0, l.heli_id.0))
        .collect()
}

/// (vehicle, active) of every VehicleSyncer `c` got.
pub fn told(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<VehicleSyncer>(c)
        .iter()
        .map(|s| (s.vehicle_id.0, s.active))
        .collect()
}

/// Refusals of `kind` for `why` so far.
pub fn refused(h: &Harness, kind: LinkKind, why: LinkRefusal) -> u64 {
    h.world().resource::<LinkStats>().refused(kind, why)
}

/// What the feature changing the vehicle writes (a wreck, a respawn, a transform, a
/// remote take-over), and one tick.
pub fn reset(h: &mut Harness, id: VehicleId, kind: ResetKind) {
    let vehicle = entity(h, id);
    h.world_mut()
        .write_message(VehicleReset { vehicle, id, kind });
    h.step();
}
