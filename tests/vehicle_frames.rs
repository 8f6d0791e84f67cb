//! vehicles.md, VehicleFrame and RemoteVehicleFrame in the harness: acceptance (the
//! controller, epoch, pose_rev, the per-connection per-vehicle seq mark across a change of
//! controller, the rate limits at their edges), what an accepted frame changes (pose,
//! health), each field rule through the decoder and the admission path, and the relay.

mod vframe_support;

use bevy_ecs::prelude::*;
use dlmp::harness::{ClientId, Harness};
use dlmp::player::Team;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Revision, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::vehicle::frame::RemoteVehicleFrame;
use dlmp::protocol::vehicle::params::param;
use dlmp::protocol::vehicle::state::{VehicleState, flag};
use dlmp::vehicle::frame::accept::VehicleFrameDrops;
use dlmp::vehicle::frame::fields::HeldFields;
use dlmp::vehicle::{Frozen, Health, Params, Part, RelaySerial, Revisions, Train};
use dlmp_core::vehicle::{Life, Pose};
use rstest::rstest;
use vframe_support::{HERE, frame, make_syncer, seat, send_frame, state, unseat, vehicle};

/// Alice and Bob spawned at [`HERE`], a vehicle of `model` beside them, Alice driving.
fn driven(model: u16) -> (Harness, ClientId, ClientId, Entity, VehicleId) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, model, Vec3::new(HERE.x + 3.0, HERE.y, HERE.z));
    seat(&mut h, a, v, 0);
    (h, a, b, v, id)
}

fn drops(h: &Harness) -> VehicleFrameDrops {
    *h.world().resource::<VehicleFrameDrops>()
}

fn serial(h: &Harness, v: Entity) -> Seq {
    h.world().get::<RelaySerial>(v).expect("a serial").0
}

fn pose(h: &Harness, v: Entity) -> Pose {
    *h.world().get::<Pose>(v).expect("a pose")
}

fn moved(x: f32) -> VehicleState {
    state(Vec3::new(x, HERE.y, HERE.z))
}

#[test]
fn the_drivers_frame_moves_the_vehicle_and_takes_the_next_serial() {
    let (mut h, a, _, v, id) = driven(411);
    let s = VehicleState {
        move_speed: Vec3::new(0.5, 0.0, 0.0),
        turn_speed: Vec3::new(0.0, 0.0, 0.1),
        ..moved(120.0)
    };
    frame(&mut h, a, 1, id, s);
    assert_eq!(drops(&h).accepted, 1);
    assert_eq!(serial(&h, v), Seq(1));
    let p = pose(&h, v);
    assert_eq!(
        (p.position, p.velocity, p.turn_velocity),
        (s.pos, s.move_speed, s.turn_speed)
    );
}

#[test]
fn a_bystanders_frame_is_dropped_and_counted() {
    let (mut h, _, b, v, id) = driven(411);
    frame(&mut h, b, 1, id, moved(150.0));
    assert_eq!((drops(&h).accepted, drops(&h).not_controller), (0, 1));
    assert_ne!(pose(&h, v).position.x, 150.0);
}

#[test]
fn a_frame_for_no_vehicle_is_dropped_and_counted() {
    let (mut h, a, ..) = driven(411);
    frame(&mut h, a, 1, VehicleId(999), moved(150.0));
    assert_eq!(drops(&h).unknown_vehicle, 1);
}

#[test]
fn a_frame_of_another_epoch_is_dropped() {
    let (mut h, a, _, v, id) = driven(411);
    h.world_mut().get_mut::<Life>(v).expect("life").epoch = VehicleEpoch(2);
    frame(&mut h, a, 1, id, moved(150.0));
    assert_eq!(drops(&h).epoch, 1);
    let s = VehicleState {
        epoch: VehicleEpoch(2),
        ..moved(150.0)
    };
    frame(&mut h, a, 2, id, s);
    assert_eq!(drops(&h).accepted, 1);
}

#[test]
fn a_frame_sent_before_a_gamemode_transform_is_dropped() {
    let (mut h, a, _, v, id) = driven(411);
    h.world_mut().get_mut::<Revisions>(v).expect("revs").pose.0 = Revision(4);
    frame(&mut h, a, 1, id, moved(150.0));
    assert_eq!(drops(&h).pose_rev, 1);
    let s = VehicleState {
        pose_rev: Revision(4),
        ..moved(150.0)
    };
    frame(&mut h, a, 2, id, s);
    assert_eq!(drops(&h).accepted, 1);
}

#[test]
fn a_duplicate_or_older_seq_is_dropped() {
    let (mut h, a, _, v, id) = driven(411);
    frame(&mut h, a, 10, id, moved(120.0));
    frame(&mut h, a, 10, id, moved(130.0));
    frame(&mut h, a, 9, id, moved(140.0));
    assert_eq!((drops(&h).accepted, drops(&h).stale), (1, 2));
    assert_eq!(pose(&h, v).position.x, 120.0, "old frames do not roll back");
}

#[test]
fn acceptance_across_a_change_of_controller_keeps_one_serial_order_and_old_frames_do_not_roll_back()
{
    let (mut h, a, b, v, id) = driven(411);
    frame(&mut h, a, 100, id, moved(110.0));
    frame(&mut h, a, 101, id, moved(111.0));
    assert_eq!(serial(&h, v), Seq(2));
    // Alice gets out; Bob syncs the empty vehicle with his own, unrelated counter.
    unseat(&mut h, a, v);
    make_syncer(&mut h, Some(b), v);
    frame(&mut h, b, 7, id, moved(112.0));
    assert_eq!(serial(&h, v), Seq(3), "the serial grows whoever controls");
    // Alice's frame from her period of control, delayed: she no longer controls.
    frame(&mut h, a, 102, id, moved(90.0));
    assert_eq!(drops(&h).not_controller, 1);
    // She drives again; a delayed frame from before keeps her mark and is stale.
    make_syncer(&mut h, None, v);
    seat(&mut h, a, v, 0);
    frame(&mut h, a, 100, id, moved(91.0));
    assert_eq!(drops(&h).stale, 1);
    assert_eq!(pose(&h, v).position.x, 112.0, "old frames do not roll back");
    frame(&mut h, a, 103, id, moved(113.0));
    assert_eq!((serial(&h, v), pose(&h, v).position.x), (Seq(4), 113.0));
    // Bob's own mark survived too: his old seq is stale once he syncs again.
    unseat(&mut h, a, v);
    make_syncer(&mut h, Some(b), v);
    frame(&mut h, b, 6, id, moved(80.0));
    assert_eq!(drops(&h).stale, 2);
    frame(&mut h, b, 8, id, moved(114.0));
    assert_eq!(serial(&h, v), Seq(5));
}

#[test]
fn a_syncer_frame_counts_only_while_seat_0_is_empty_or_paused() {
    let (mut h, a, b, v, id) = driven(411);
    make_syncer(&mut h, Some(b), v);
    frame(&mut h, b, 1, id, moved(120.0));
    assert_eq!(
        drops(&h).not_controller,
        1,
        "the live driver sends the frames"
    );
    // The driver pauses (its PlayerSync says so): the election gives Bob the vehicle.
    let paused = dlmp::protocol::player::sync::Frame {
        paused: true,
        ..dlmp::protocol::player::sync::Frame::standing(HERE)
    };
    h.sync(a, 50, paused);
    assert!(h.get::<dlmp::player::Body>(a).paused);
    let syncer = h.world().get::<dlmp::vehicle::Syncer>(v).expect("syncer").0;
    assert_eq!(syncer.map(|o| o.entity), Some(h.entity(b)));
    frame(&mut h, b, 2, id, moved(121.0));
    assert_eq!(
        drops(&h).accepted,
        1,
        "the driver is paused: the syncer counts"
    );
    // The paused driver's own frame still counts as the driver's.
    frame(&mut h, a, 3, id, moved(122.0));
    assert_eq!(drops(&h).accepted, 2);
}

#[test]
fn a_dead_syncers_frame_is_dropped() {
    let (mut h, a, b, v, id) = driven(411);
    unseat(&mut h, a, v);
    make_syncer(&mut h, Some(b), v);
    h.die(b);
    frame(&mut h, b, 1, id, moved(120.0));
    assert_eq!(drops(&h).not_controller, 1);
}

#[test]
fn a_frozen_drivers_frame_is_dropped() {
    let (mut h, a, _, _, id) = driven(411);
    h.freeze(a, true);
    frame(&mut h, a, 1, id, moved(120.0));
    assert_eq!(drops(&h).not_controller, 1);
}

#[test]
fn a_frozen_vehicle_keeps_its_pose() {
    let (mut h, a, _, v, id) = driven(411);
    let before = pose(&h, v);
    h.world_mut().get_mut::<Frozen>(v).expect("frozen").gamemode = true;
    let s = VehicleState {
        move_speed: Vec3::new(1.0, 0.0, 0.0),
        ..moved(150.0)
    };
    frame(&mut h, a, 1, id, s);
    let after = pose(&h, v);
    assert_eq!(drops(&h).accepted, 1);
    assert_eq!(
        (after.position, after.rotation),
        (before.position, before.rotation)
    );
    assert_eq!(after.velocity, Vec3::ZERO);
}

#[rstest]
#[case::lowered(false, 0, 600.0, 600.0)]
#[case::never_raised(false, 0, 1500.0, 1000.0)]
#[case::not_on_a_wreck(true, 0, 200.0, 1000.0)]
#[case::not_before_the_gamemodes_command(false, 1, 200.0, 1000.0)]
fn health_only_lowered_only_while_not_wrecked_only_with_the_current_health_rev(
    #[case] wrecked: bool,
    #[case] server_rev: u16,
    #[case] sent: f32,
    #[case] after: f32,
) {
    let (mut h, a, _, v, id) = driven(411);
    h.world_mut().get_mut::<Life>(v).expect("life").wrecked = wrecked;
    h.world_mut()
        .get_mut::<Revisions>(v)
        .expect("revs")
        .health
        .0 = Revision(server_rev);
    let s = VehicleState {
        health: sent,
        ..moved(110.0)
    };
    frame(&mut h, a, 1, id, s);
    assert_eq!(h.world().get::<Health>(v).expect("health").0, after);
}

#[rstest]
#[case::part_clamped_on_the_hydra(520, VehicleState { part: 9000, ..moved(110.0) }, 5000)]
#[case::part_zero_on_other_models(411, VehicleState { part: 900, ..moved(110.0) }, 0)]
#[case::boom_of_the_tow_truck(525, VehicleState { part: 20_000, ..moved(110.0) }, 20_000)]
#[case::dumper_bed_at_its_rate(406, VehicleState { part: 2500, ..moved(110.0) }, 250)]
fn the_part_by_model(#[case] model: u16, #[case] sent: VehicleState, #[case] part: u16) {
    let (mut h, a, _, v, id) = driven(model);
    frame(&mut h, a, 1, id, sent);
    assert_eq!(h.world().get::<Part>(v).expect("part").0, part);
}

#[test]
fn the_siren_switches_only_on_a_vehicle_with_one_and_only_with_the_current_revision() {
    let (mut h, a, _, v, id) = driven(411);
    let on = VehicleState {
        flags: flag::SIREN,
        ..moved(110.0)
    };
    frame(&mut h, a, 1, id, on);
    assert_eq!(
        h.world().get::<Params>(v).expect("params").bits & param::SIREN,
        0,
        "no siren"
    );
    let (mut h, a, _, v, id) = driven(407);
    h.world_mut().get_mut::<Revisions>(v).expect("revs").siren.0 = Revision(1);
    frame(&mut h, a, 1, id, on);
    assert_eq!(
        h.world().get::<Params>(v).expect("params").bits & param::SIREN,
        0,
        "an old revision"
    );
    let on = VehicleState {
        siren_rev: Revision(1),
        ..on
    };
    frame(&mut h, a, 2, id, on);
    assert_ne!(
        h.world().get::<Params>(v).expect("params").bits & param::SIREN,
        0
    );
}

/// vehicles.md Siren: "A gamemode command ... raises the siren revision ... so a frame sent
/// before the command does not undo it" — also a command that finds the siren already as
/// it asks (the pilot switched it on itself).
#[test]
fn a_siren_command_always_raises_the_revision_so_a_frame_in_flight_never_undoes_it() {
    use dlmp::vehicle::params::{ParamChange, ParamsCommand};
    let (mut h, a, _, v, id) = driven(407);
    let siren = |h: &Harness| h.world().get::<Params>(v).expect("params").bits & param::SIREN != 0;
    let with = |flags: u8, rev: u16, x: f32| VehicleState {
        flags,
        siren_rev: Revision(rev),
        ..moved(x)
    };
    frame(&mut h, a, 1, id, with(flag::SIREN, 0, 110.0));
    assert!(siren(&h), "the pilot switched it on");
    h.clear(a);
    h.world_mut().write_message(ParamsCommand {
        vehicle: id,
        change: ParamChange::Siren(true),
    });
    h.step();
    let told = h.packets::<dlmp::protocol::vehicle::params::VehicleParams>(a);
    assert_eq!(
        told.iter().map(|p| p.siren_rev.0).collect::<Vec<_>>(),
        [1],
        "the driver is told the new revision though the bits did not change"
    );
    // The pilot's frame sent before the command, the siren off: not undone.
    frame(&mut h, a, 2, id, with(0, 0, 111.0));
    assert!(siren(&h), "a frame in flight does not undo the command");
    // Its copy took the command: from then on the pilot switches it again.
    frame(&mut h, a, 3, id, with(0, 1, 112.0));
    assert!(!siren(&h));
}

#[test]
fn a_driven_train_derails_at_speed_and_a_frame_cannot_rerail_it() {
    let (mut h, a, _, v, id) = driven(538);
    let fast = VehicleState {
        rail_speed: 1.0,
        flags: flag::TRAIN_DERAILED,
        ..moved(110.0)
    };
    frame(&mut h, a, 1, id, fast);
    assert!(h.world().get::<Train>(v).expect("train").derailed);
    frame(&mut h, a, 2, id, moved(111.0));
    assert!(h.world().get::<Train>(v).expect("train").derailed);
}

#[test]
fn nitro_lighting_spends_a_server_charge() {
    let (mut h, a, _, v, id) = driven(411);
    h.step();
    {
        let mut held = h.world_mut().get_mut::<HeldFields>(v).expect("held");
        held.nitro_part = true;
        held.nitro_charges = 1;
    }
    let burn = VehicleState {
        nitro: -0.5,
        ..moved(110.0)
    };
    frame(&mut h, a, 1, id, burn);
    assert_eq!(
        h.world().get::<HeldFields>(v).expect("held").nitro_charges,
        0
    );
}

/// `n` frames from the client in one tick, with seqs from `first`.
fn burst(h: &mut Harness, c: ClientId, id: VehicleId, first: u32, n: u32) {
    for seq in first..first + n {
        send_frame(h, c, seq, id, moved(110.0));
    }
    h.step();
}

#[test]
fn the_driven_rate_limit_at_its_edge_half_a_second_of_31_a_second() {
    let (mut h, a, _, _, id) = driven(411);
    burst(&mut h, a, id, 1, 16);
    assert_eq!((drops(&h).accepted, drops(&h).rate_driven), (15, 1));
    // 30 frames a second from then on, for 5 s: every one passes.
    let mut seq = 100;
    let mut passed = drops(&h).accepted;
    for tick in 0..250u32 {
        if tick * 30 / 50 != (tick + 1) * 30 / 50 {
            send_frame(&mut h, a, seq, id, moved(110.0));
            seq += 1;
        }
        h.step();
    }
    passed = drops(&h).accepted - passed;
    assert_eq!((passed, drops(&h).rate_driven), (150, 1));
    // One every tick, 50 a second for 10 s: about 31 a second pass.
    let before = drops(&h).accepted;
    for _ in 0..500 {
        send_frame(&mut h, a, seq, id, moved(110.0));
        seq += 1;
        h.step();
    }
    let passed = drops(&h).accepted - before;
    assert!((310..=327).contains(&passed), "{passed} passed in 10 s");
}

#[test]
fn the_synced_rate_limit_at_its_edge_half_a_second_of_10_5_a_second() {
    let (mut h, a, b, v, id) = driven(411);
    unseat(&mut h, a, v);
    make_syncer(&mut h, Some(b), v);
    burst(&mut h, b, id, 1, 6);
    assert_eq!((drops(&h).accepted, drops(&h).rate_synced), (5, 1));
    // After a rest, every 100 ms for 5 s: every one passes.
    h.steps(25);
    let before = drops(&h).accepted;
    for i in 0..50 {
        frame(&mut h, b, 100 + i, id, moved(110.0));
        h.steps(4);
    }
    assert_eq!(
        (drops(&h).accepted - before, drops(&h).rate_synced),
        (50, 1)
    );
}

#[test]
fn the_total_rate_limit_at_its_edge_one_driven_and_eight_synced_but_not_nine() {
    let mut h = Harness::new();
    let (a, _) = h.connect_pair_at(HERE);
    let (car, car_id) = vehicle(&mut h, 411, HERE);
    seat(&mut h, a, car, 0);
    let mut synced = Vec::new();
    for i in 0..9 {
        let (v, id) = vehicle(
            &mut h,
            411,
            Vec3::new(HERE.x + i as f32, HERE.y + 5.0, HERE.z),
        );
        make_syncer(&mut h, Some(a), v);
        synced.push(id);
    }
    let mut seq = 1;
    let mut run = |h: &mut Harness, n_synced: usize, ticks: u32| {
        for tick in 0..ticks {
            if tick * 30 / 50 != (tick + 1) * 30 / 50 {
                send_frame(h, a, seq, car_id, moved(110.0));
                seq += 1;
            }
            if tick % 5 == 0 {
                for &id in &synced[..n_synced] {
                    send_frame(h, a, seq, id, moved(110.0));
                    seq += 1;
                }
            }
            h.step();
        }
    };
    run(&mut h, 8, 1000);
    assert_eq!(drops(&h).rate_total, 0, "110 a second pass for 20 s");
    // 5 over the total a second: the half-second burst (57.5 frames) is spent in 11.5 s.
    run(&mut h, 9, 1000);
    assert!(drops(&h).rate_total > 0, "120 a second do not");
}

fn relays(h: &Harness, c: ClientId) -> Vec<RemoteVehicleFrame> {
    h.packets::<RemoteVehicleFrame>(c)
}

#[test]
fn the_relay_goes_to_everyone_the_vehicle_is_streamed_to_but_the_sender_with_the_servers_values() {
    let (mut h, a, b, v, id) = driven(411);
    let far = h.connect("carol");
    h.step();
    h.spawn(far, Vec3::new(HERE.x + 1000.0, HERE.y, HERE.z));
    h.with::<Team>(a, |t| {
        *t = Team {
            group: 3,
            relation_rev: 9,
        }
    });
    h.with::<Team>(b, |t| t.group = 3);
    h.world_mut()
        .get_mut::<Revisions>(v)
        .expect("revs")
        .health
        .0 = Revision(0);
    h.clear(a);
    h.clear(b);
    h.clear(far);
    let sent = VehicleState {
        health: 700.0,
        part: 400,
        flags: 0x80 | flag::HORN,
        ..moved(111.0)
    };
    frame(&mut h, a, 1, id, sent);
    let got = relays(&h, b);
    assert_eq!(got.len(), 1);
    let r = got[0].clone();
    assert_eq!(
        (r.source_id, r.source_token),
        (h.player_id(a), h.hello(a).player_token)
    );
    assert_eq!((r.seq, r.vehicle_id), (Seq(1), id));
    assert_eq!((r.relation_rev, r.teammate), (9, true));
    assert_eq!(r.state.pos, sent.pos);
    assert_eq!(r.state.health, 700.0);
    assert_eq!(r.state.part, 0, "the field rules applied");
    assert_eq!(r.state.flags, flag::HORN);
    assert!(relays(&h, a).is_empty(), "not to the sender");
    assert!(relays(&h, far).is_empty(), "not to whom it is not streamed");
    // The server's health: a later frame claiming more is relayed with the server's.
    let more = VehicleState {
        health: 900.0,
        ..moved(112.0)
    };
    frame(&mut h, a, 2, id, more);
    let r = relays(&h, b).pop().expect("a relay");
    assert_eq!((r.seq, r.state.health), (Seq(2), 700.0));
}

#[test]
fn a_frozen_vehicles_relay_carries_the_frozen_pose_and_zero_velocities() {
    let (mut h, a, b, v, id) = driven(411);
    let before = pose(&h, v);
    h.world_mut().get_mut::<Frozen>(v).expect("frozen").gamemode = true;
    h.clear(b);
    let s = VehicleState {
        move_speed: Vec3::new(1.0, 0.0, 0.0),
        ..moved(150.0)
    };
    frame(&mut h, a, 1, id, s);
    let r = relays(&h, b).pop().expect("a relay");
    assert_eq!(
        (r.state.pos, r.state.rot),
        (before.position, before.rotation)
    );
    assert_eq!(r.state.move_speed, Vec3::ZERO);
}

#[test]
fn shot_rewind_of_a_vehicle_target_stands_it_where_it_was_at_the_shooters_last_frame() {
    use dlmp::player::Inventory;
    use dlmp::protocol::connection::rewind::RewindTarget;
    use dlmp::protocol::connection::weapons::{HitKind, RemoteWeaponShot, WeaponShot};
    use dlmp::protocol::player::sync::{Frame, PlayerSync};
    let (mut h, a, b, v, id) = driven(411);
    h.world_mut().get_mut::<Life>(v).expect("life").epoch = VehicleEpoch(3);
    h.with::<Inventory>(b, |inv| {
        inv.held.set(31, true);
        inv.ammo[31] = 10;
    });
    let at = |x: f32| VehicleState {
        epoch: VehicleEpoch(3),
        ..moved(x)
    };
    // Bob's last frame comes in the tick the car stands at x = 120.
    send_frame(&mut h, a, 1, id, at(120.0));
    let bob = PlayerSync {
        session_token: h.token(b),
        seq: Seq(1),
        frame: Frame::standing(HERE),
    };
    h.send(b, bob);
    h.step();
    // The car drives on; Bob sends no frame, then shoots it.
    frame(&mut h, a, 2, id, at(125.0));
    frame(&mut h, a, 3, id, at(130.0));
    h.clear(a);
    let shot = WeaponShot {
        session_token: h.token(b),
        order: Seq(1),
        weapon: 31,
        origin: HERE,
        hit: Vec3::new(130.0, HERE.y, HERE.z),
        hit_kind: HitKind::Vehicle,
        hit_id: id.0,
        props_rev: Revision(0),
    };
    h.send(b, shot);
    h.step();
    let r = h
        .packets::<RemoteWeaponShot>(a)
        .pop()
        .expect("the shot")
        .rewind;
    assert!(r.rewound);
    assert_eq!(
        (r.target_kind, r.target_id, r.target_token),
        (RewindTarget::Vehicle, id.0, 3)
    );
    assert_eq!(r.target_pos, Vec3::new(120.0, HERE.y, HERE.z));
    assert_eq!(r.shooter_pos, HERE);
}
