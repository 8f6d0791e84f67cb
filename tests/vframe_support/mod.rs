//! Shared scenario helpers for the vehicle frame and syncer tests: a vehicle created as a
//! gameplay plugin creates it, seats and syncers, and frames sent through the decoder.

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test file uses its own part of the helpers"
)]

use bevy_ecs::prelude::*;
use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Revision, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::vehicle::frame::VehicleFrame;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::vehicle::{Occupant, SeatCommand, Seats, Syncer, Vehicle, VehicleSpec, create_vehicle};

/// Where the scenarios happen.
pub const HERE: Vec3 = Vec3::new(100.0, 200.0, 10.0);

/// A vehicle of `model` at `at`, created now.
pub fn vehicle(h: &mut Harness, model: u16, at: Vec3) -> (Entity, VehicleId) {
    let entity = create_vehicle(h.world_mut(), VehicleSpec::new(model, at, 0.0), None)
        .expect("a valid vehicle");
    h.step();
    let id = h.world().get::<Vehicle>(entity).expect("a vehicle").id;
    (entity, id)
}

fn occupant(h: &Harness, c: ClientId) -> Occupant {
    Occupant {
        entity: h.entity(c),
        id: h.player_id(c),
        token: h.hello(c).player_token,
    }
}

/// The server seats the client's player (what `dlmp.put_player_in_vehicle` queues), one
/// tick.
pub fn seat(h: &mut Harness, c: ClientId, vehicle: Entity, seat: u8) {
    let id = h.world().get::<Vehicle>(vehicle).expect("a vehicle").id;
    let player = h.entity(c);
    let token = h.get::<dlmp::session::Player>(c).token;
    h.world_mut().write_message(SeatCommand::Put {
        player,
        token,
        vehicle: id,
        seat,
    });
    h.step();
    assert!(
        h.world()
            .get::<Seats>(vehicle)
            .expect("seats")
            .at(seat)
            .is_some_and(|o| o.entity == player),
        "seated"
    );
}

/// The server takes the client's player out (`dlmp.remove_player_from_vehicle`), one tick.
pub fn unseat(h: &mut Harness, c: ClientId, _vehicle: Entity) {
    let player = h.entity(c);
    let token = h.get::<dlmp::session::Player>(c).token;
    h.world_mut()
        .write_message(SeatCommand::Remove { player, token });
    h.step();
}

/// Makes the client the vehicle's syncer (component-writing, as the election does).
pub fn make_syncer(h: &mut Harness, c: Option<ClientId>, vehicle: Entity) {
    let o = c.map(|c| occupant(h, c));
    h.world_mut()
        .get_mut::<Syncer>(vehicle)
        .expect("a syncer")
        .0 = o;
}

/// A still state at `at`, full health, epoch 0, every revision 0.
pub fn state(at: Vec3) -> VehicleState {
    VehicleState {
        pos: at,
        rot: [0.0, 0.0, 0.0, 1.0],
        move_speed: Vec3::ZERO,
        turn_speed: Vec3::ZERO,
        raw_steer: 0.0,
        steer: 0.0,
        gas: 0.0,
        brake: 0.0,
        flags: 0,
        health: 1000.0,
        epoch: VehicleEpoch(0),
        doors: [0; 6],
        lean: 0.0,
        lean_angle: 0.0,
        pedal: 0.0,
        hop: 0.0,
        yaw: 0.0,
        pitch: 0.0,
        roll: 0.0,
        throttle: 0.0,
        rotor: 0.0,
        part: 0,
        gear: 0,
        health_rev: Revision(0),
        turret_yaw: 0.0,
        turret_pitch: 0.0,
        rail: 0.0,
        rail_speed: 0.0,
        track: 0,
        rope: 0.0,
        siren_rev: Revision(0),
        nitro: 1.0,
        hydraulics: 0,
        hydraulic_lr: 0,
        hydraulic_ud: 0,
        pose_rev: Revision(0),
    }
}

/// Queues a VehicleFrame from the client (no tick).
pub fn send_frame(h: &mut Harness, c: ClientId, seq: u32, vehicle: VehicleId, state: VehicleState) {
    let packet = VehicleFrame {
        session_token: h.token(c),
        seq: Seq(seq),
        vehicle_id: vehicle,
        state,
    };
    h.send(c, packet);
}

/// Sends a VehicleFrame and runs one tick.
pub fn frame(h: &mut Harness, c: ClientId, seq: u32, vehicle: VehicleId, state: VehicleState) {
    send_frame(h, c, seq, vehicle, state);
    h.step();
}
