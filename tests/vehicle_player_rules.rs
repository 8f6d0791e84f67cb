//! player.md's rules that wait for seats, in the harness: the frozen seated hold (25 m from
//! the vehicle), the on-foot checks of SetOnFire, SetSpecialAction and SetVelocity, the
//! routing of packets about a seated subject (only to those who see its vehicle), and the
//! unseat on a scope change.

mod vehicle_support;

use dlmp::harness::Harness;
use dlmp::player::animation::{AnimationCommand, AnimationOrder};
use dlmp::player::control::ControlCommand;
use dlmp::player::physics::ThrowPlayer;
use dlmp::player::scope::SetScope;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Seq, VehicleId};
use dlmp::protocol::player::action::SpecialAction;
use dlmp::protocol::player::appearance::PlayerSkills;
use dlmp::protocol::player::control::{SetOnFire, SetSpecialAction};
use dlmp::protocol::player::physics::SetVelocity;
use dlmp::protocol::player::streaming::PlayerStreamOut;
use dlmp::protocol::player::sync::{Frame, RemotePlayerSync};
use dlmp::protocol::vehicle::frame::VehicleFrame;
use dlmp::protocol::vehicle::seats::OccupancyKind::Exit;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp_core::position::Position;
use vehicle_support::*;

#[test]
fn a_frozen_seated_player_is_held_25_m_from_its_vehicle() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    put(&mut h, a, id, 0);
    h.freeze(a, true);
    // Seconds apart, so that the movement check takes the walk.
    h.advance(std::time::Duration::from_secs(5));
    h.sync(a, 10, Frame::standing(at(20.0)));
    let x = h.get::<Position>(a).0.x;
    assert!(
        (x - 20.0).abs() < 1e-3,
        "seated: 20 m is within the hold ({x})"
    );
    h.advance(std::time::Duration::from_secs(5));
    h.sync(a, 11, Frame::standing(at(30.0)));
    let x = h.get::<Position>(a).0.x;
    assert!((x - 25.0).abs() < 1e-3, "held on the 25 m boundary ({x})");
}

#[test]
fn fire_a_special_action_and_a_throw_go_only_to_a_player_on_foot() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    put(&mut h, a, id, 0);
    let player = h.entity(a);
    let commands = |h: &mut Harness| {
        h.world_mut().write_message(ControlCommand::Fire {
            player,
            on_fire: true,
        });
        h.world_mut().write_message(ThrowPlayer {
            player,
            vel: Vec3::new(0.0, 0.0, 0.5),
        });
        h.world_mut().write_message(AnimationCommand {
            player,
            order: AnimationOrder::SpecialAction(SpecialAction::HandsUp),
        });
        h.step();
    };
    commands(&mut h);
    let counts = |h: &Harness| {
        (
            h.packets::<SetOnFire>(a).len(),
            h.packets::<SetVelocity>(a).len(),
            h.packets::<SetSpecialAction>(a).len(),
        )
    };
    assert_eq!(counts(&h), (0, 0, 0), "seated: refused");
    exit(&mut h, a, id);
    commands(&mut h);
    assert_eq!(counts(&h), (1, 1, 1), "on foot: sent");
}

#[test]
fn packets_about_a_seated_player_go_only_to_those_who_see_its_vehicle() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(300.0));
    h.step();
    assert!(h.is_shown(a, b), "on foot: 300 m is within 420 m");
    put(&mut h, a, id, 0);
    h.step();
    assert!(!h.is_shown(a, b), "seated: only with the vehicle (200 m)");
    h.clear(b);
    h.live(a);
    assert!(h.packets::<RemotePlayerSync>(b).is_empty());
    walk(&mut h, b, at(150.0));
    h.step();
    h.clear(b);
    h.live(a);
    assert_eq!(h.packets::<RemotePlayerSync>(b).len(), 1);
}

#[test]
fn a_scope_change_frees_the_seat_first() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(0.0));
    put(&mut h, a, id, 1);
    h.clear(b);
    let player = h.entity(a);
    h.world_mut().write_message(SetScope {
        player,
        virtual_world: Some(4),
        interior: None,
    });
    h.step();
    assert_eq!(seats(&h, b), [(id.0, h.player_id(a).0, 1, Exit)]);
    assert!(
        h.world()
            .get::<dlmp_core::vehicle::Seated>(player)
            .is_none()
    );
}

/// A driver's frame at `x` (epoch 0, every revision 0), with seq `seq`, and one tick.
fn drive_to(h: &mut Harness, c: dlmp::harness::ClientId, id: VehicleId, seq: u32, x: f32) {
    let packet = VehicleFrame {
        session_token: h.token(c),
        seq: Seq(seq),
        vehicle_id: id,
        state: VehicleState::at_rest(at(x)),
    };
    h.send(c, packet);
    h.step();
}

#[test]
fn a_seated_player_sees_others_from_its_vehicle_as_its_frames_drive_it() {
    let mut h = Harness::new();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    let id = vehicle(&mut h, 400, at(0.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(0.0));
    put(&mut h, a, id, 0);
    assert!(h.is_shown(b, a), "bob stands beside alice's car");
    h.clear(a);
    // Only VehicleFrames from the driver, as a driving client sends them, 30 m/s (a
    // frame a tick): 470 m away is past the 460 m hide distance of bob's body from
    // alice's stream center.
    let mut seq = 1;
    for step in 1..=392u32 {
        drive_to(&mut h, a, id, seq, (step as f32 * 1.2).min(470.0));
        seq += 1;
        if step % 150 == 0 {
            // Bob stands and keeps his session alive.
            h.live(b);
        }
    }
    // Parked there: the next frame after a pause is taken whatever the rate did before.
    h.advance(std::time::Duration::from_millis(100));
    drive_to(&mut h, a, id, seq, 470.0);
    seq += 1;
    h.advance(std::time::Duration::from_secs(1));
    assert!(
        (h.get::<Position>(a).0.x - 470.0).abs() < 1e-3,
        "the seated body goes where its vehicle goes"
    );
    assert!(!h.is_shown(b, a), "470 m from the car: bob is hidden");
    let bob = h.player_id(b);
    assert_eq!(
        h.packets::<PlayerStreamOut>(a)
            .iter()
            .filter(|o| o.player_id == bob)
            .count(),
        1,
        "alice is told bob went out"
    );
    h.clear(a);
    h.live(b);
    for step in 1..=50u32 {
        drive_to(&mut h, a, id, seq, 470.0 - step as f32 * 1.2);
        seq += 1;
    }
    h.advance(std::time::Duration::from_secs(1));
    assert!(h.is_shown(b, a), "back within 420 m: bob is shown again");
    assert!(
        h.packets::<PlayerSkills>(a).iter().any(|s| s.id == bob),
        "with his show snapshot"
    );
}
