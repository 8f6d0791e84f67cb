//! The idle kicker through the public API: a player that neither moves nor presses a key
//! is warned, then kicked; one that moves stays.

use std::time::Duration;

use dlmp::harness::Harness;
use dlmp::prelude::*;
use dlmp::protocol::connection::handshake::ServerDisconnect;
use dlmp::protocol::player::sync::Frame;
use dlmp::protocol::vehicle::seats::{OccupancyKind, VehicleOccupancy};
use dlmp_idle_kick::IdleKickPlugin;

fn server(table: Option<&str>) -> Harness {
    let mut config = Harness::config();
    if let Some(table) = table {
        config
            .plugins
            .insert("idle_kick".into(), toml::from_str(table).expect("TOML"));
    }
    Harness::with_app(config, |app| {
        app.add_plugins(IdleKickPlugin);
    })
}

#[test]
fn the_idle_are_warned_then_kicked_and_the_moving_stay() {
    let mut h = server(Some("idle_secs = 4\nwarn_secs = 2"));
    let (idle, busy) = h.connect_pair_at(Vec3::new(0.0, 0.0, 3.0));
    h.live(idle);
    h.live(busy);
    h.clear(idle);
    for second in 1..=3u8 {
        let seq = h.get::<LastFrame>(busy).seq.expect("a frame").0 + 1;
        h.sync(
            busy,
            seq,
            Frame::standing(Vec3::new(f32::from(second), 0.0, 3.0)),
        );
        h.advance(Duration::from_secs(1));
    }
    assert_eq!(
        h.take_chat_lines(idle),
        ["You will be kicked for being idle in 2 s: move to stay."]
    );
    h.advance(Duration::from_millis(1500));
    assert!(
        h.chat_lines(idle)
            .contains(&"Kicked for being idle.".to_owned())
    );
    assert!(!h.packets::<ServerDisconnect>(idle).is_empty(), "kicked");
    assert!(
        h.packets::<ServerDisconnect>(busy).is_empty(),
        "moved: stays"
    );
}

#[test]
fn off_without_a_table() {
    let mut h = server(None);
    let alice = h.connect("alice");
    h.advance(Duration::from_secs(5));
    assert!(h.packets::<ServerDisconnect>(alice).is_empty());
}

/// A player the gamemode seated in a parked car (what `dlmp.put_player_in_vehicle`
/// queues) and who then does nothing.
fn seated_in_a_parked_car(h: &mut Harness) -> (dlmp::harness::ClientId, VehicleId) {
    let alice = h.connect("alice");
    h.step();
    h.spawn(alice, Vec3::new(0.0, 0.0, 3.0));
    h.live(alice);
    let car = create_vehicle(
        h.world_mut(),
        VehicleSpec::new(411, Vec3::new(2.0, 0.0, 3.0), 0.0),
        None,
    )
    .expect("a valid spec");
    let id = h.world().get::<Vehicle>(car).expect("a vehicle").id;
    let player = h.entity(alice);
    let token = h.get::<Player>(alice).token;
    h.world_mut().write_message(SeatCommand::Put {
        player,
        token,
        vehicle: id,
        seat: 0,
    });
    h.step();
    assert!(h.world().get::<Seated>(player).is_some(), "seated");
    h.clear(alice);
    (alice, id)
}

#[test]
fn an_idle_player_is_taken_out_of_its_vehicle_before_the_kick() {
    let mut h = server(Some("idle_secs = 10\nwarn_secs = 0\nseat_secs = 3"));
    let (alice, id) = seated_in_a_parked_car(&mut h);
    h.advance(Duration::from_millis(2500));
    assert!(h.chat_lines(alice).is_empty(), "not yet");
    h.advance(Duration::from_secs(1));
    assert_eq!(
        h.chat_lines(alice),
        ["You were taken out of the vehicle for being idle."]
    );
    h.step();
    let player = h.entity(alice);
    assert!(h.world().get::<Seated>(player).is_none(), "out of the car");
    let exits: Vec<_> = h
        .packets::<VehicleOccupancy>(alice)
        .iter()
        .filter(|o| o.vehicle_id == id && o.kind == OccupancyKind::Exit)
        .map(|o| o.seat)
        .collect();
    assert_eq!(exits, [0], "its client saw it leave the driver's seat");
    assert!(
        h.packets::<ServerDisconnect>(alice).is_empty(),
        "not kicked yet"
    );
}

#[test]
fn seat_secs_0_leaves_the_idle_in_their_seat() {
    let mut h = server(Some("idle_secs = 10\nwarn_secs = 0\nseat_secs = 0"));
    let (alice, _) = seated_in_a_parked_car(&mut h);
    h.advance(Duration::from_secs(5));
    let player = h.entity(alice);
    assert!(h.world().get::<Seated>(player).is_some(), "still seated");
}
