//! The vehicle movement check (ADR 0089) in the harness, at the default tick with the
//! network's jitter: every class of vehicle at its full speed, off a ramp, falling and
//! towed is taken; a jump of 83 m, an empty vehicle carried 8 km by its syncer and a fall
//! faster than any are refused, counted and told to the gamemode; a gamemode transform
//! starts the check anew.

mod vehicle_support;
mod vframe_support;
mod vlink_support;

use bevy_ecs::prelude::*;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{Revision, VehicleId};
use dlmp::vehicle::frame::accept::VehicleFrameDrops;
use dlmp::vehicle::remote::RemoteCommand;
use dlmp::vehicle::{Revisions, VehicleModels};
use dlmp_core::vehicle::Pose;
use vframe_support::{HERE, make_syncer, seat, send_frame, state, vehicle};

fn drops(h: &Harness) -> VehicleFrameDrops {
    *h.world().resource::<VehicleFrameDrops>()
}

fn pose(h: &Harness, v: Entity) -> Vec3 {
    h.world().get::<Pose>(v).expect("a pose").position
}

fn plus(a: Vec3, x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(a.x + x, a.y + y, a.z + z)
}

fn revision(h: &Harness, v: Entity) -> Revision {
    h.world().get::<Revisions>(v).expect("revisions").pose.0
}

/// The game's top speed of `model` (its handling's `max_velocity`), m/s.
fn top_speed(h: &Harness, model: u16) -> f32 {
    h.world()
        .resource::<VehicleModels>()
        .get(model)
        .expect("a model")
        .top_speed_kmh
        / 3.6
}

/// Sends the frames `c` sends of `id` while it goes along `path` (a position at each time
/// in seconds) for `seconds`, 31 a second, at the default tick: frames arrive on the tick
/// after they were sent, except that in every second the frames of 300 ms are held back by
/// the network and arrive together. Returns the next seq.
fn drive(
    h: &mut Harness,
    c: ClientId,
    id: VehicleId,
    pose_rev: Revision,
    mut seq: u32,
    seconds: f32,
    path: impl Fn(f32) -> Vec3,
) -> u32 {
    let tick = h.tick().as_secs_f32();
    let ticks = (seconds / tick).round() as u32;
    let mut sent = 0u32;
    let mut held = Vec::new();
    for t in 0..ticks {
        let due = (((t + 1) as f32 * tick) * 31.0) as u32;
        while sent < due {
            let s = sent as f32 / 31.0;
            held.push(dlmp::protocol::vehicle::state::VehicleState {
                pose_rev,
                ..state(path(s))
            });
            sent += 1;
        }
        // 300 ms of every second stay on the network.
        let phase = (t as f32 * tick) % 1.0;
        if (0.5..0.8).contains(&phase) {
            h.step();
            continue;
        }
        for s in held.drain(..) {
            send_frame(h, c, seq, id, s);
            seq += 1;
        }
        h.step();
    }
    for s in held.drain(..) {
        send_frame(h, c, seq, id, s);
        seq += 1;
    }
    h.step();
    seq
}

/// A circle of `radius` around `center` at `speed` m/s.
fn circle(center: Vec3, radius: f32, speed: f32) -> impl Fn(f32) -> Vec3 {
    move |t| {
        let a = speed * t / radius;
        Vec3::new(
            center.x + radius * a.cos(),
            center.y + radius * a.sin(),
            center.z,
        )
    }
}

/// Alice at [`HERE`], driving a vehicle of `model` beside her (a remote driver of an RC).
fn at_the_wheel(model: u16) -> (Harness, ClientId, Entity, VehicleId) {
    let mut h = Harness::new();
    let (a, _) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, model, Vec3::new(HERE.x + 60.0, HERE.y, HERE.z));
    let rc = h
        .world()
        .resource::<VehicleModels>()
        .get(model)
        .is_some_and(|m| m.seats == 0);
    if rc {
        let player = h.entity(a);
        let token = h.get::<dlmp::session::Player>(a).token;
        h.world_mut().write_message(RemoteCommand::Set {
            player,
            token,
            vehicle: id,
            detonation: false,
        });
        h.step();
    } else {
        seat(&mut h, a, v, 0);
    }
    (h, a, v, id)
}

#[test]
fn every_class_of_vehicle_at_its_full_speed_is_never_refused() {
    // A car, a monster truck, a quad, a motorbike, a bicycle, a boat, a helicopter, a
    // plane, a train, an RC car and an RC plane.
    for model in [411u16, 444, 471, 522, 510, 452, 487, 520, 538, 441, 464] {
        let (mut h, a, v, id) = at_the_wheel(model);
        // Beyond the handling's top speed, as nitro, a downhill run or a dive takes it.
        let speed = top_speed(&h, model)
            * if matches!(model, 487 | 520 | 464) {
                2.0
            } else {
                1.35
            };
        let rev = revision(&h, v);
        drive(&mut h, a, id, rev, 1, 5.0, circle(HERE, 60.0, speed));
        let d = drops(&h);
        assert_eq!(
            (d.motion_travel, d.motion_fall),
            (0, 0),
            "model {model} at {speed} m/s"
        );
        assert!(d.accepted >= 150, "model {model}: {} accepted", d.accepted);
    }
}

#[test]
fn a_car_off_a_ramp_that_falls_60_m_is_never_refused() {
    let (mut h, a, v, id) = at_the_wheel(411);
    let speed = top_speed(&h, 411) * 1.35;
    let rev = revision(&h, v);
    let start = pose(&h, v);
    // Up a ramp 8 m in half a second, then a free fall of 60 m, flying on.
    let path = move |t: f32| {
        let x = start.x + speed * t;
        let z = if t < 0.5 {
            start.z + 16.0 * t
        } else {
            let f = t - 0.5;
            (start.z + 8.0 - 4.9 * f * f).max(start.z - 60.0)
        };
        Vec3::new(x.min(5900.0), start.y, z)
    };
    drive(&mut h, a, id, rev, 1, 4.5, path);
    let d = drops(&h);
    assert_eq!((d.motion_travel, d.motion_fall), (0, 0));
}

#[test]
fn a_towed_trailer_goes_as_fast_as_its_tractor_pulls_it() {
    // A tow truck at full speed with a farm tractor (70 km/h in its handling) on its hook:
    // the towed tractor's frames come from the truck's driver, as fast as the truck goes.
    let vlink_support::LinkScene { mut h, a, lead, .. } =
        vlink_support::link_scene(Harness::new(), 525, |_, _| {});
    let lead_entity = vehicle_support::entity(&h, lead);
    let behind = plus(pose(&h, lead_entity), -10.0, 0.0, 0.0);
    let (trailer, trailer_id) = vehicle(&mut h, 531, behind);
    vlink_support::tow(&mut h, a, trailer_id, Some(lead));
    assert_eq!(vlink_support::hitch(&h, trailer_id).tractor, Some(lead));
    let lead_rev = revision(&h, lead_entity);
    let trailer_rev = revision(&h, trailer);
    let (start, trailer_start) = (pose(&h, lead_entity), pose(&h, trailer));
    let speed = top_speed(&h, 525) * 1.35;
    let mut seq = 1;
    // 3 s at the default tick: the truck's frames 31 a second, the tractor's (synced by
    // the truck's driver) 10 a second.
    for tick in 0..150u32 {
        let t = tick as f32 * 0.02;
        let truck_due = (tick + 1) * 31 / 50 > tick * 31 / 50;
        let towed_due = tick % 5 == 0;
        for (id, rev, from, due) in [
            (lead, lead_rev, start, truck_due),
            (trailer_id, trailer_rev, trailer_start, towed_due),
        ] {
            if !due {
                continue;
            }
            let p = Vec3::new(from.x + speed * t, from.y, from.z);
            send_frame(
                &mut h,
                a,
                seq,
                id,
                dlmp::protocol::vehicle::state::VehicleState {
                    pose_rev: rev,
                    ..state(p)
                },
            );
            seq += 1;
        }
        h.step();
    }
    assert!(
        pose(&h, trailer).x > trailer_start.x + speed * 2.5,
        "the towed one went along"
    );
    let d = drops(&h);
    assert_eq!((d.motion_travel, d.motion_fall), (0, 0));
}

#[test]
fn a_jump_of_83_m_is_refused_counted_and_told_to_the_gamemode() {
    let scripts = TempScripts::new("vehicle_motion_jump");
    scripts.resource(
        "gm",
        r#"dlmp.on("vehicle_frame_refused", function(p, v, reason)
            dlmp.send_chat("refused " .. v:id() .. " " .. reason, nil, { p })
        end)"#,
    );
    let mut h = scripts.harness();
    let (a, _) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, 411, Vec3::new(HERE.x + 3.0, HERE.y, HERE.z));
    seat(&mut h, a, v, 0);
    let from = pose(&h, v);
    h.clear(a);
    send_frame(&mut h, a, 1, id, state(plus(from, 83.0, 0.0, 0.0)));
    h.steps(2);
    assert_eq!(drops(&h).motion_travel, 1);
    assert_eq!(pose(&h, v), from, "the server keeps its pose");
    assert_eq!(h.chat_lines(a), [format!("refused {} motion_travel", id.0)]);
    // A drive from where the server has it is taken again.
    send_frame(&mut h, a, 2, id, state(plus(from, 2.0, 0.0, 0.0)));
    h.step();
    assert_eq!(pose(&h, v), plus(from, 2.0, 0.0, 0.0));
}

#[test]
fn an_empty_vehicle_is_not_carried_8_km_by_its_syncer() {
    let mut h = Harness::new();
    let (a, _) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, 411, Vec3::new(HERE.x + 3.0, HERE.y, HERE.z));
    make_syncer(&mut h, Some(a), v);
    let from = pose(&h, v);
    // 8 km away, as far as the world lets a point be from this one.
    let far = Vec3::new(from.x, (from.y + 8000.0).min(5999.0), from.z);
    send_frame(&mut h, a, 1, id, state(far));
    h.step();
    assert_eq!(drops(&h).motion_travel, 1);
    assert_eq!(pose(&h, v), from);
}

#[test]
fn a_gamemode_transform_starts_the_check_anew() {
    let (mut h, a, v, id) = at_the_wheel(411);
    let far = Vec3::new(-3000.0, 2500.0, 20.0);
    h.world_mut()
        .write_message(dlmp::vehicle::transform::TransformCommand {
            vehicle: id,
            change: dlmp::vehicle::transform::change::Change::Position(far),
        });
    h.steps(2);
    let rev = revision(&h, v);
    assert_eq!(pose(&h, v), far, "the gamemode moved it");
    send_frame(
        &mut h,
        a,
        1,
        id,
        dlmp::protocol::vehicle::state::VehicleState {
            pose_rev: rev,
            ..state(plus(far, 1.0, 0.0, 0.0))
        },
    );
    h.step();
    assert_eq!(drops(&h).motion_travel, 0);
    assert_eq!(pose(&h, v), plus(far, 1.0, 0.0, 0.0));
}
