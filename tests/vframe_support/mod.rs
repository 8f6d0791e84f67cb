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
use dlmp::protocol::ids::{Seq, VehicleId};
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
    VehicleState::at_rest(at)
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
