//! What the vehicle scenarios share: vehicles made through the Rust API, players placed
//! and moved by the harness, seat requests through the decoder's packets, and the vehicle
//! packets each client got, as short lines.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of it")]

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, VehicleId};
use dlmp::protocol::vehicle::seats::{OccupancyKind, VehicleEnter, VehicleExit, VehicleOccupancy};
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::vehicle::{SeatCommand, VehicleSpec, create_vehicle};
use dlmp_core::position::Position;
use dlmp_core::vehicle::Vehicles;

pub fn at(x: f32) -> Vec3 {
    Vec3::new(x, 0.0, 3.0)
}

/// A vehicle of `model` at `pos`, heading 0, colors 1 and 2, made by a Rust plugin.
pub fn vehicle(h: &mut Harness, model: u16, pos: Vec3) -> VehicleId {
    let spec = VehicleSpec {
        color1: 1,
        color2: 2,
        ..VehicleSpec::new(model, pos, 0.0)
    };
    let e = create_vehicle(h.world_mut(), spec, None).expect("a valid spec");
    h.world()
        .get::<dlmp::vehicle::Vehicle>(e)
        .expect("a vehicle")
        .id
}

pub fn entity(h: &Harness, id: VehicleId) -> bevy_ecs::entity::Entity {
    h.world().resource::<Vehicles>().entity(id).expect("exists")
}

/// Changes a component of the vehicle (what the gamemode or a frame would).
pub fn with_vehicle<
    T: bevy_ecs::component::Component<Mutability = bevy_ecs::component::Mutable>,
>(
    h: &mut Harness,
    id: VehicleId,
    f: impl FnOnce(&mut T),
) {
    let e = entity(h, id);
    let mut c = h.world_mut().get_mut::<T>(e).expect("the component");
    f(&mut c);
}

/// Spawns `c` at `pos` with a living frame there.
pub fn stand(h: &mut Harness, c: ClientId, pos: Vec3) {
    h.spawn(c, pos);
    h.live(c);
}

/// Moves `c`'s server position to `pos` with a frame there, one tick.
pub fn walk(h: &mut Harness, c: ClientId, pos: Vec3) {
    h.with::<Position>(c, |p| p.0 = pos);
    h.live(c);
}

/// VehicleEnter from `c` and one tick (the request waits for the scripts of that tick).
pub fn enter(h: &mut Harness, c: ClientId, id: VehicleId, seat: u8) {
    let packet = VehicleEnter {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: id,
        seat,
    };
    h.send_event(c, packet);
    h.step();
}

pub fn exit(h: &mut Harness, c: ClientId, id: VehicleId) {
    let packet = VehicleExit {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: id,
    };
    h.send_event(c, packet);
    h.step();
}

/// The server seats `c` (what `dlmp.put_player_in_vehicle` queues), one tick.
pub fn put(h: &mut Harness, c: ClientId, id: VehicleId, seat: u8) {
    let player = h.entity(c);
    let token = h.get::<dlmp::session::Player>(c).token;
    h.world_mut().write_message(SeatCommand::Put {
        player,
        token,
        vehicle: id,
        seat,
    });
    h.step();
}

/// (vehicle, player slot, seat, kind) of every VehicleOccupancy `c` got.
pub fn seats(h: &Harness, c: ClientId) -> Vec<(u32, u32, u8, OccupancyKind)> {
    h.packets::<VehicleOccupancy>(c)
        .iter()
        .map(|o| (o.vehicle_id.0, o.player_id.0, o.seat, o.kind))
        .collect()
}

/// (vehicle, shown) of every VehicleSync `c` got.
pub fn syncs(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<VehicleSync>(c)
        .iter()
        .map(|s| (s.vehicle_id.0, s.active))
        .collect()
}

/// What `c` got about vehicles and players' streaming, in lane order, as words.
pub fn transitions(h: &Harness, c: ClientId) -> Vec<String> {
    h.received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::VehicleSync(s) if s.active => Some(format!("show {}", s.vehicle_id.0)),
            ServerPacket::VehicleSync(s) => Some(format!("hide {}", s.vehicle_id.0)),
            ServerPacket::VehicleOccupancy(o) => {
                Some(format!("{:?} {} seat {}", o.kind, o.player_id.0, o.seat))
            }
            ServerPacket::PlayerSkills(s) => Some(format!("skills {}", s.id.0)),
            ServerPacket::PlayerStreamOut(s) => Some(format!("out {}", s.player_id.0)),
            _ => None,
        })
        .collect()
}
