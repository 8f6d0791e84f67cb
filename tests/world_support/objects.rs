//! What the object scenarios share (world.md ObjectState): objects made through the Rust
//! API, the ObjectState packets each client got and the server's shown sets.

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::object::{ObjectId, ObjectState};
use dlmp::world::object::{Object, ObjectSpec, ObjectStream, create_object};

/// A barrel (breakable) at `at` for everyone, made through the Rust API.
pub fn barrel(h: &mut Harness, at: Vec3) -> ObjectId {
    let e = create_object(h.world_mut(), ObjectSpec::new(1225, at), None).expect("created");
    h.world().get::<Object>(e).expect("an object").id
}

/// Every ObjectState the client got since the last clear, in order.
pub fn states(h: &Harness, c: ClientId) -> Vec<ObjectState> {
    h.packets::<ObjectState>(c)
}

/// (id, active) of every ObjectState the client got since the last clear, in order.
pub fn lines(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    states(h, c)
        .iter()
        .map(|s| (s.object_id.0, s.active))
        .collect()
}

/// The ids of the objects the server has shown to the client now, ascending.
pub fn shown(h: &Harness, c: ClientId) -> Vec<u32> {
    h.world()
        .resource::<ObjectStream>()
        .shown()
        .of(h.player_id(c))
        .to_vec()
}
