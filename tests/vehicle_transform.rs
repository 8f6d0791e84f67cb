//! vehicles.md VehicleTransform in the harness, through the Lua API and the decoder: each
//! command on the wire (flags, zeroed fields, pose_rev, relay_seq), every server check at
//! its edge, freezing, a transform racing the driver's frames, the occupants carried,
//! streaming following in the same tick, the transform that follows a show (frozen,
//! tilted), the VehicleReset the towing feature reads, and freeroam's `/flip`.

mod vehicle_support;
mod vframe_support;

use bevy_app::FixedUpdate;
use bevy_ecs::prelude::*;
use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::lane::Delivery;
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, Revision, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::player::control::SetFrozen;
use dlmp::protocol::vehicle::frame::RemoteVehicleFrame;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::protocol::vehicle::transform::{VehicleTransform, transform_flag as bit};
use dlmp::session::Connection;
use dlmp::vehicle::frame::accept::VehicleFrameDrops;
use dlmp::vehicle::transform::TransformSystems;
use dlmp::vehicle::{Frozen, ResetKind, Revisions, Vehicle, VehicleReset};
use dlmp_core::position::Position;
use dlmp_core::vehicle::{Life, Pose, Vehicles};
use rstest::rstest;
use vehicle_support::{enter, stand, transitions};
use vframe_support::{HERE, send_frame, state};

/// A gamemode with a car (id 1) at [`HERE`] and a freight train (id 2) beside it, and a
/// chat command per transform call: `/pos x y z`, `/rot x y z w`, `/vel x y z`,
/// `/turn x y z`, `/freeze on|off`, `/sit [seat]`, `/out`, `/read`; `train` first aims at the
/// train. `/me frozen|free|camera|own` freezes the sender, or gives it a fixed camera or its own.
/// Each answers `ok` or the call's error.
const GM: &str = r#"
car = dlmp.create_vehicle(411, 100, 200, 10, 0)
train = dlmp.create_vehicle(537, 100, 240, 10, 0)
local calls = {
    pos = dlmp.set_vehicle_position, rot = dlmp.set_vehicle_rotation,
    vel = dlmp.set_vehicle_velocity, turn = dlmp.set_vehicle_turn_velocity,
}
local words = { nan = 0 / 0, inf = math.huge }
dlmp.on("player_command", function(p, name, args)
    local target = car
    if args[1] == "train" then target = train; table.remove(args, 1) end
    local n = {}
    for i, a in ipairs(args) do n[i] = words[a] or tonumber(a) end
    local ok, err
    if calls[name] then ok, err = pcall(calls[name], target, table.unpack(n))
    elseif name == "freeze" then ok, err = pcall(dlmp.set_vehicle_frozen, target, args[1] == "on")
    elseif name == "sit" then ok, err = pcall(dlmp.put_player_in_vehicle, p, target, n[1] or 0)
    elseif name == "out" then ok, err = pcall(dlmp.remove_player_from_vehicle, p)
    elseif name == "me" then
        if args[1] == "camera" then ok, err = pcall(p.set_camera_fixed, p, 0, 0, 50, 10, 10, 0)
        elseif args[1] == "own" then ok, err = pcall(p.reset_camera, p)
        else ok, err = pcall(p.set_frozen, p, args[1] == "frozen") end
    elseif name == "read" then
        local x, y, z = target:position()
        local vx, vy, vz = target:velocity()
        local tx, ty, tz = target:turn_velocity()
        local qx, qy, qz, qw = target:rotation()
        dlmp.send_chat(string.format("%g %g %g | %g %g %g | %g %g %g | %.4f %.4f %.4f %.4f | %.1f %s",
            x, y, z, vx, vy, vz, tx, ty, tz, qx, qy, qz, qw, target:heading(),
            tostring(target:is_frozen())), nil, {p})
        return true
    else return end
    dlmp.send_chat(ok and "ok" or (tostring(err):gsub("^runtime error: ", ""):match("[^\n]*")), nil, {p})
    return true
end)
"#;

const CAR: VehicleId = VehicleId(1);

/// The scenario: the gamemode, Alice and Bob at [`HERE`] seeing the car, nothing received.
struct Scene {
    h: Harness,
    a: ClientId,
    b: ClientId,
    /// Chat lines each client sent: past the chat limit's burst (5), a second passes first.
    said: std::collections::HashMap<ClientId, usize>,
    _scripts: TempScripts,
}

fn scene_with(setup: impl FnOnce(&mut bevy_app::App)) -> Scene {
    scene_from(GM, setup)
}

fn scene_from(code: &str, setup: impl FnOnce(&mut bevy_app::App)) -> Scene {
    let s = TempScripts::new("vtransform");
    s.resource("gm", code);
    let mut h = Harness::with_app(s.config(), setup);
    let (a, b) = h.connect_pair_at(HERE);
    h.step();
    let stream = h.world().resource::<dlmp::vehicle::VehicleStream>();
    for c in [a, b] {
        assert!(
            stream.shown().of(h.player_id(c)).contains(&CAR.0),
            "the car is shown"
        );
    }
    h.clear(a);
    h.clear(b);
    Scene {
        h,
        a,
        b,
        said: Default::default(),
        _scripts: s,
    }
}

fn scene() -> Scene {
    scene_with(|_| {})
}

impl Scene {
    /// Sends `/line` from `c`, one tick; the answer.
    fn say(&mut self, c: ClientId, line: &str) -> String {
        let said = self.said.entry(c).or_default();
        *said += 1;
        if *said > 4 {
            self.h.advance(std::time::Duration::from_secs(1));
        }
        let before = self.h.chat_lines(c).len();
        self.h.chat(c, line);
        self.h.step();
        let lines = self.h.chat_lines(c);
        assert_eq!(lines.len(), before + 1, "one answer to {line}: {lines:?}");
        lines[before].clone()
    }

    #[track_caller]
    fn ok(&mut self, line: &str) {
        let a = self.a;
        assert_eq!(self.say(a, line), "ok", "{line}");
    }

    /// Alice drives the car.
    fn drive(mut self) -> Self {
        self.ok("/sit 0");
        self.h.step();
        assert!(
            self.h.get::<dlmp_core::vehicle::Seated>(self.a).id == CAR,
            "Alice drives"
        );
        self.h.clear(self.a);
        self.h.clear(self.b);
        self
    }

    fn entity(&self, id: VehicleId) -> Entity {
        self.h
            .world()
            .resource::<Vehicles>()
            .entity(id)
            .expect("exists")
    }

    fn pose(&self) -> Pose {
        *self
            .h
            .world()
            .get::<Pose>(self.entity(CAR))
            .expect("a pose")
    }

    fn pose_rev(&self) -> Revision {
        self.h
            .world()
            .get::<Revisions>(self.entity(CAR))
            .expect("revisions")
            .pose
            .0
    }

    /// The VehicleTransforms `c` got, their lane positions zeroed.
    fn transforms(&self, c: ClientId) -> Vec<VehicleTransform> {
        self.h
            .packets::<VehicleTransform>(c)
            .into_iter()
            .map(|t| VehicleTransform {
                event_id: EventId(0),
                ..t
            })
            .collect()
    }

    /// A VehicleFrame of the car from `c` with `pose_rev`, one tick.
    fn frame(&mut self, c: ClientId, seq: u32, s: VehicleState) {
        send_frame(&mut self.h, c, seq, CAR, s);
        self.h.step();
    }

    fn drops(&self) -> VehicleFrameDrops {
        *self.h.world().resource::<VehicleFrameDrops>()
    }
}

fn at(x: f32) -> VehicleState {
    state(Vec3::new(x, HERE.y, HERE.z))
}

fn with_rev(s: VehicleState, rev: u16) -> VehicleState {
    VehicleState {
        pose_rev: Revision(rev),
        ..s
    }
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

const S: f32 = core::f32::consts::FRAC_1_SQRT_2;

#[rstest]
#[case::position("/pos 110 205 12", bit::POSITION)]
#[case::rotation("/rot 0 0 0.6 0.8", bit::ROTATION)]
#[case::velocity("/vel 50 -25 10", bit::VELOCITY)]
#[case::turn_velocity("/turn 0 0 5", bit::ANGULAR_VELOCITY)]
#[case::freeze("/freeze on", bit::POSITION | bit::ROTATION | bit::FROZEN)]
fn each_command_goes_critical_to_everyone_streamed_with_its_flags_its_revision_and_the_serial(
    #[case] line: &str,
    #[case] flags: u8,
) {
    let mut s = scene().drive();
    // Three frames from the driver: the car's serial is 3 at the command.
    let moving = VehicleState {
        move_speed: Vec3::new(0.4, 0.0, 0.0),
        rot: [0.0, 0.0, 0.6, 0.8],
        ..at(101.0)
    };
    for seq in 1..=3 {
        s.frame(s.a, seq, moving);
    }
    s.ok(line);
    let got = s.transforms(s.b);
    assert_eq!(got.len(), 1, "one packet to the watcher");
    assert_eq!(s.transforms(s.a), got, "the same to the controlling player");
    let t = got[0].clone();
    assert_eq!(
        (t.vehicle_id, t.epoch, t.relay_seq, t.pose_rev, t.flags),
        (CAR, VehicleEpoch(0), Seq(3), Revision(1), flags)
    );
    assert_eq!(s.pose_rev(), Revision(1));
    let pose = s.pose();
    let zero = Vec3::ZERO;
    match flags {
        bit::POSITION => {
            assert_eq!(t.pos, Vec3::new(110.0, 205.0, 12.0));
            assert_eq!((t.rot, t.move_speed, t.turn_speed), ([0.0; 4], zero, zero));
            assert_eq!(pose.velocity, zero, "a position stops the vehicle");
        }
        bit::ROTATION => {
            assert!(close(t.rot, [0.0, 0.0, 0.6, 0.8]), "{:?}", t.rot);
            assert_eq!((t.pos, t.move_speed, t.turn_speed), (zero, zero, zero));
            assert_eq!(
                pose.velocity, moving.move_speed,
                "a rotation keeps the velocities"
            );
        }
        bit::VELOCITY => {
            assert_eq!(t.move_speed, Vec3::new(1.0, -0.5, 0.2), "m/s over 50");
            assert_eq!((t.pos, t.rot, t.turn_speed), (zero, [0.0; 4], zero));
        }
        bit::ANGULAR_VELOCITY => {
            assert_eq!(t.turn_speed, Vec3::new(0.0, 0.0, 0.1), "rad/s over 50");
            assert_eq!((t.pos, t.rot, t.move_speed), (zero, [0.0; 4], zero));
        }
        _ => {
            assert_eq!(
                (t.pos, t.rot),
                (moving.pos, moving.rot),
                "the server's pose"
            );
            assert_eq!((t.move_speed, t.turn_speed), (zero, zero));
            assert!(
                s.h.world()
                    .get::<Frozen>(s.entity(CAR))
                    .expect("frozen")
                    .held()
            );
        }
    }
    assert_eq!(
        (t.pos, t.rot),
        (
            if flags & bit::POSITION != 0 {
                pose.position
            } else {
                zero
            },
            if flags & bit::ROTATION != 0 {
                pose.rotation
            } else {
                [0.0; 4]
            }
        ),
        "the packet is the server's new pose"
    );
}

#[test]
fn every_command_takes_the_next_revision_and_the_serial_of_its_moment() {
    let mut s = scene().drive();
    s.ok("/vel 10 0 0");
    s.frame(s.a, 1, with_rev(at(101.0), 1));
    s.frame(s.a, 2, with_rev(at(102.0), 1));
    s.ok("/pos 120 200 10");
    s.frame(s.a, 3, with_rev(at(121.0), 2));
    s.ok("/turn 1 0 0");
    let got: Vec<(u16, u32)> = s
        .transforms(s.b)
        .iter()
        .map(|t| (t.pose_rev.0, t.relay_seq.0))
        .collect();
    assert_eq!(got, [(1, 0), (2, 2), (3, 3)]);
    assert_eq!(s.drops().accepted, 3);
}

#[test]
fn the_reads_answer_the_new_pose_in_m_s_and_rad_s() {
    let mut s = scene();
    s.ok("/rot 0 0 0.7071068 0.7071068");
    s.ok("/vel 100 0 -50");
    s.ok("/turn 0 0 2.5");
    let a = s.a;
    assert_eq!(
        s.say(a, "/read"),
        "100 200 10 | 100 0 -50 | 0 0 2.5 | 0.0000 0.0000 0.7071 0.7071 | 90.0 false"
    );
    s.ok("/pos 150 250 20");
    s.ok("/freeze on");
    assert_eq!(
        s.say(a, "/read"),
        "150 250 20 | 0 0 0 | 0 0 0 | 0.0000 0.0000 0.7071 0.7071 | 90.0 true"
    );
}

#[rstest]
#[case::world_corner("/pos 6000 -6000 4000", None)]
#[case::world_floor("/pos 0 0 -200", None)]
#[case::beyond_x(
    "/pos 6000.5 0 10",
    Some("set_vehicle_position: x 6000.5 is outside the world")
)]
#[case::beyond_y(
    "/pos 0 -6001 10",
    Some("set_vehicle_position: y -6001 is outside the world")
)]
#[case::below_the_floor(
    "/pos 0 0 -200.5",
    Some("set_vehicle_position: z -200.5 is outside the world")
)]
#[case::above_the_ceiling(
    "/pos 0 0 4000.5",
    Some("set_vehicle_position: z 4000.5 is outside the world")
)]
#[case::position_nan("/pos nan 0 10", Some("set_vehicle_position: x must be finite"))]
#[case::speed_at_200("/vel 200 0 0", None)]
#[case::speed_at_200_diagonal("/vel 120 0 -160", None)]
#[case::speed_over_200(
    "/vel 200.01 0 0",
    Some("set_vehicle_velocity: velocity 200.01 m/s is above 200 m/s")
)]
#[case::speed_inf("/vel 0 inf 0", Some("set_vehicle_velocity: y must be finite"))]
#[case::turn_at_25("/turn 0 0 -25", None)]
#[case::turn_over_25(
    "/turn 0 15 20.01",
    Some("set_vehicle_turn_velocity: angular velocity")
)]
#[case::turn_nan("/turn nan 0 0", Some("set_vehicle_turn_velocity: x must be finite"))]
#[case::rotation_near_unit("/rot 0 0 0 1.09", None)]
#[case::rotation_not_unit(
    "/rot 0 0 90 0",
    Some("set_vehicle_rotation: the rotation is not a unit quaternion")
)]
#[case::rotation_too_short(
    "/rot 0 0 0 0.89",
    Some("set_vehicle_rotation: the rotation is not a unit quaternion")
)]
#[case::rotation_nan("/rot 0 0 nan 1", Some("set_vehicle_rotation: z must be finite"))]
#[case::train_position(
    "/pos train 100 260 10",
    Some("set_vehicle_position: model 537 is a train")
)]
#[case::train_freeze("/freeze train on", Some("set_vehicle_frozen: model 537 is a train"))]
#[case::train_velocity("/vel train 1 0 0", Some("set_vehicle_velocity: model 537 is a train"))]
fn each_server_check_at_its_edge(#[case] line: &str, #[case] error: Option<&str>) {
    let mut s = scene();
    let before = s.pose();
    let a = s.a;
    let answer = s.say(a, line);
    match error {
        None => {
            assert_eq!(answer, "ok");
            assert_eq!(s.transforms(s.b).len(), 1);
            assert_eq!(s.pose_rev(), Revision(1));
        }
        Some(e) => {
            assert!(answer.starts_with(e), "{answer}");
            assert!(s.transforms(s.b).is_empty(), "nothing sent");
            assert_eq!(
                (s.pose(), s.pose_rev()),
                (before, Revision(0)),
                "nothing changed"
            );
        }
    }
}

#[test]
fn a_resource_start_freezes_and_is_refused_like_any_call() {
    let code = format!(
        "{GM}\n{}",
        r#"
        dlmp.set_vehicle_frozen(car, true)
        local _, boot_err = pcall(dlmp.set_vehicle_frozen, train, true)
        dlmp.on("player_command", function(p, name)
            if name == "boot" then dlmp.send_chat(tostring(boot_err), nil, {p}) return true end
        end)
        "#
    );
    let mut s = scene_from(&code, |_| {});
    let a = s.a;
    assert!(
        s.say(a, "/boot").contains("model 537 is a train"),
        "the model table answers before the first tick"
    );
    assert!(
        s.h.world()
            .get::<Frozen>(s.entity(CAR))
            .expect("frozen")
            .held()
    );
    assert_eq!(s.pose_rev(), Revision(1));
    let (c, words) = shown_with(&mut s);
    assert_eq!(words, ["show rev 1", "transform 0x13 rev 1"]);
    assert_eq!(s.transforms(c)[0].pos, Vec3::new(100.0, 200.0, 10.0));
}

#[test]
fn a_wreck_takes_no_transform() {
    let mut s = scene();
    // Component-writing: the explosion that wrecks a vehicle is another feature's packet.
    let car = s.entity(CAR);
    s.h.world_mut().get_mut::<Life>(car).expect("life").wrecked = true;
    s.h.step();
    for line in [
        "/pos 110 200 10",
        "/rot 0 0 0 1",
        "/vel 1 0 0",
        "/freeze on",
    ] {
        let a = s.a;
        let answer = s.say(a, line);
        assert!(answer.ends_with("vehicle 1 is a wreck"), "{line}: {answer}");
    }
    assert!(s.transforms(s.b).is_empty());
}

#[test]
fn a_frozen_vehicle_moves_only_by_the_gamemode_with_bit4_and_never_by_velocity() {
    let mut s = scene().drive();
    s.frame(s.a, 1, at(101.0));
    s.ok("/freeze on");
    s.ok("/freeze on");
    assert_eq!(
        s.transforms(s.b).len(),
        1,
        "a freeze of a frozen vehicle sends nothing"
    );
    s.ok("/pos 130 200 10");
    s.ok("/rot 0 0 0.6 0.8");
    let a = s.a;
    assert!(s.say(a, "/vel 10 0 0").contains("vehicle 1 is frozen"));
    assert!(s.say(a, "/turn 0 0 1").contains("vehicle 1 is frozen"));
    let t = s.transforms(s.b);
    let held = bit::POSITION | bit::ROTATION | bit::FROZEN;
    assert_eq!(
        t.iter()
            .map(|t| (t.flags, t.pose_rev.0))
            .collect::<Vec<_>>(),
        [(held, 1), (held, 2), (held, 3)]
    );
    assert_eq!(
        (t[1].pos, t[1].rot),
        (Vec3::new(130.0, 200.0, 10.0), [0.0, 0.0, 0.0, 1.0]),
        "a position carries the rotation it holds"
    );
    assert_eq!(t[2].pos, Vec3::new(130.0, 200.0, 10.0));
    assert!(close(t[2].rot, [0.0, 0.0, 0.6, 0.8]));
    // The driver's frames of the frozen vehicle: accepted, the server's pose kept, and the
    // relay carries it still.
    let pushed = VehicleState {
        move_speed: Vec3::new(2.0, 0.0, 0.0),
        turn_speed: Vec3::new(0.0, 0.0, 0.5),
        ..with_rev(at(180.0), 3)
    };
    s.frame(s.a, 2, pushed);
    assert_eq!(s.drops().accepted, 2);
    let pose = s.pose();
    assert_eq!(pose.position, Vec3::new(130.0, 200.0, 10.0));
    assert_eq!(
        (pose.velocity, pose.turn_velocity),
        (Vec3::ZERO, Vec3::ZERO)
    );
    let relay = s.h.packets::<RemoteVehicleFrame>(s.b);
    let last = relay.last().expect("relayed").state;
    assert_eq!((last.pos, last.rot), (pose.position, pose.rotation));
    assert_eq!((last.move_speed, last.turn_speed), (Vec3::ZERO, Vec3::ZERO));
    assert_eq!(last.pose_rev, Revision(3));
    // Unfreezing: no bit4 and no fields, a new revision; velocities are taken again.
    s.ok("/freeze off");
    let off = s.transforms(s.b).last().cloned().expect("sent");
    assert_eq!(
        (off.flags, off.pose_rev, off.pos, off.rot, off.move_speed),
        (0, Revision(4), Vec3::ZERO, [0.0; 4], Vec3::ZERO)
    );
    s.ok("/freeze off");
    assert_eq!(s.transforms(s.b).len(), 4, "unfreezing twice sends once");
    s.ok("/vel 10 0 0");
    s.frame(s.a, 3, with_rev(at(181.0), 5));
    assert_eq!(s.pose().position.x, 181.0, "frames move it again");
}

/// player.md SetFrozen: "holds the vehicle it drives with a VehicleTransform freeze (except
/// a train) while it drives and is frozen; the gamemode's own vehicle freeze is a separate
/// cause, and neither clears the other" — and control is taken by a foreign camera too.
#[test]
fn a_frozen_driver_holds_the_vehicle_as_a_cause_neither_freeze_clears() {
    let mut s = scene().drive();
    let held = bit::POSITION | bit::ROTATION | bit::FROZEN;
    let flags = |s: &Scene| {
        s.transforms(s.b)
            .iter()
            .map(|t| (t.flags, t.pose_rev.0))
            .collect::<Vec<_>>()
    };
    // The driver frozen: the vehicle held, for everyone it is shown to, the driver too.
    s.ok("/me frozen");
    assert_eq!(flags(&s), [(held, 1)]);
    assert_eq!(
        s.transforms(s.a),
        s.transforms(s.b),
        "the driver gets it too"
    );
    assert_eq!(s.h.packets::<SetFrozen>(s.a).len(), 1);
    let a = s.a;
    assert!(s.say(a, "/vel 10 0 0").contains("vehicle 1 is frozen"));
    // The gamemode's freeze on top changes nothing the copies see, and its unfreeze does
    // not free the vehicle while the driver is frozen.
    s.ok("/freeze on");
    assert!(
        s.say(a, "/read").ends_with("true"),
        "is_frozen: the gamemode's"
    );
    s.ok("/me free");
    assert_eq!(
        flags(&s),
        [(held, 1)],
        "the gamemode's cause holds it still"
    );
    s.ok("/freeze off");
    assert_eq!(flags(&s), [(held, 1), (0, 2)], "the last cause gone");
    // The other way round: the gamemode's freeze, then the driver's; the gamemode's
    // unfreeze leaves the driver's.
    s.ok("/freeze on");
    s.ok("/me frozen");
    s.ok("/freeze off");
    assert!(s.say(a, "/read").ends_with("false"));
    assert_eq!(flags(&s), [(held, 1), (0, 2), (held, 3)]);
    s.ok("/me free");
    assert_eq!(flags(&s), [(held, 1), (0, 2), (held, 3), (0, 4)]);
    // A foreign camera takes control too, and the own camera returns it.
    s.ok("/me camera");
    s.ok("/me own");
    assert_eq!(
        flags(&s)[4..],
        [(held, 5), (0, 6)],
        "held under a fixed camera"
    );
    // A frozen driver's exit frees the vehicle; the frozen passenger holds nothing.
    s.ok("/me frozen");
    s.ok("/out");
    assert_eq!(flags(&s)[6..], [(held, 7), (0, 8)]);
    s.ok("/sit 1");
    assert_eq!(flags(&s).len(), 8, "a passenger does not hold it");
    // A train is never held.
    s.ok("/out");
    s.ok("/sit train 0");
    s.h.step();
    let train = s.entity(VehicleId(2));
    assert!(!s.h.world().get::<Frozen>(train).expect("frozen").held());
    assert!(
        s.transforms(s.b).iter().all(|t| t.vehicle_id == CAR),
        "nothing for the train"
    );
}

#[test]
fn a_frame_sent_before_the_command_is_dropped_and_the_echoed_one_is_taken() {
    let mut s = scene().drive();
    s.frame(s.a, 1, at(101.0));
    // A frame that arrives in the tick of the command came before it: taken, and its
    // serial is the command's relay_seq, so copies drop its relay.
    send_frame(&mut s.h, s.a, 2, CAR, at(102.0));
    s.ok("/pos 150 200 10");
    assert_eq!(s.drops().accepted, 2);
    let t = s.transforms(s.b).pop().expect("sent");
    assert_eq!((t.relay_seq, t.pose_rev), (Seq(2), Revision(1)));
    assert_eq!(
        s.pose().position.x,
        150.0,
        "the command wins over that frame"
    );
    // The driver's frames sent before it took the packet carry the old revision: dropped,
    // however new their seq.
    s.frame(s.a, 3, at(103.0));
    s.frame(s.a, 4, at(104.0));
    assert_eq!((s.drops().accepted, s.drops().pose_rev), (2, 2));
    assert_eq!(s.pose().position.x, 150.0);
    // The echo: taken, relayed with the new revision and the next serial.
    s.h.clear(s.b);
    s.frame(s.a, 5, with_rev(at(151.0), 1));
    assert_eq!(s.drops().accepted, 3);
    assert_eq!(s.pose().position.x, 151.0);
    let relay = s.h.packets::<RemoteVehicleFrame>(s.b);
    assert_eq!(relay.len(), 1);
    assert_eq!(
        (relay[0].seq, relay[0].state.pose_rev),
        (Seq(3), Revision(1))
    );
}

#[test]
fn a_new_position_carries_the_occupants_and_streaming_follows_in_the_same_tick() {
    let mut s = scene().drive();
    let (a, b) = (s.a, s.b);
    // `/sit` seats its sender: Bob takes seat 1.
    assert_eq!(s.say(b, "/sit 1"), "ok");
    s.h.step();
    // Carol stands 1.9 km away; nothing of the car reaches her.
    let far = Vec3::new(2000.0, 200.0, 10.0);
    let c = s.h.connect("carol");
    s.h.step();
    stand(&mut s.h, c, far);
    s.h.step();
    assert!(s.h.packets::<VehicleSync>(c).is_empty());
    // Dave stays behind at the old place, on foot, and gives the command.
    let d = s.h.connect("dave");
    s.h.step();
    stand(&mut s.h, d, HERE);
    s.h.step();
    assert!(s.h.packets::<VehicleSync>(d).iter().any(|v| v.active));
    for x in [a, b, c, d] {
        s.h.clear(x);
    }
    let answer = s.say(d, "/pos 2000 210 10");
    assert_eq!(answer, "ok");
    let to = Vec3::new(2000.0, 210.0, 10.0);
    for x in [a, b] {
        assert_eq!(s.h.get::<Position>(x).0, to, "the occupants are carried");
        assert_eq!(s.transforms(x).len(), 1, "the occupant gets the transform");
    }
    // In that same tick: Carol gets the show at the new place, carrying the new revision.
    let shows: Vec<VehicleSync> =
        s.h.packets::<VehicleSync>(c)
            .into_iter()
            .filter(|v| v.vehicle_id == CAR)
            .collect();
    assert_eq!(shows.len(), 1, "{:?}", transitions(&s.h, c));
    assert_eq!(
        (shows[0].active, shows[0].pos, shows[0].pose_rev),
        (true, to, Revision(1))
    );
    assert!(
        s.transforms(c).is_empty(),
        "a level, unfrozen vehicle's show needs nothing after it"
    );
    // Dave had it shown: the transform, then its hide, in that order.
    let words: Vec<&str> =
        s.h.received(d)
            .iter()
            .filter_map(|p| match p {
                ServerPacket::VehicleTransform(_) => Some("transform"),
                ServerPacket::VehicleSync(v) if !v.active => Some("hide"),
                ServerPacket::VehicleSync(_) => Some("show"),
                _ => None,
            })
            .collect();
    assert_eq!(words, ["transform", "hide"]);
}

/// What a new recipient of the car got after its show, as words.
fn shown_with(s: &mut Scene) -> (ClientId, Vec<String>) {
    let c = s.h.connect("carol");
    s.h.step();
    stand(&mut s.h, c, Vec3::new(HERE.x, HERE.y + 50.0, HERE.z));
    s.h.step();
    let words =
        s.h.received(c)
            .iter()
            .filter_map(|p| match p {
                ServerPacket::VehicleSync(v) if v.vehicle_id == CAR && v.active => {
                    Some(format!("show rev {}", v.pose_rev.0))
                }
                ServerPacket::VehicleOccupancy(o) if o.vehicle_id == CAR => {
                    Some(format!("{:?} seat {}", o.kind, o.seat))
                }
                ServerPacket::VehicleTransform(t) if t.vehicle_id == CAR => {
                    Some(format!("transform {:#04x} rev {}", t.flags, t.pose_rev.0))
                }
                _ => None,
            })
            .collect();
    (c, words)
}

#[test]
fn a_frozen_vehicles_show_is_followed_by_the_freezing_transform_with_the_current_revision() {
    let mut s = scene().drive();
    s.frame(s.a, 1, at(101.0));
    s.ok("/freeze on");
    s.ok("/pos 105 205 10");
    let (c, words) = shown_with(&mut s);
    assert_eq!(
        words,
        ["show rev 2", "Warp seat 0", "transform 0x13 rev 2"],
        "after the seat snapshot, the current revision: no new command"
    );
    let t = s.transforms(c).pop().expect("sent");
    let show = s.h.packets::<VehicleSync>(c).pop().expect("shown");
    assert_eq!(
        (t.pos, t.rot),
        (Vec3::new(105.0, 205.0, 10.0), [0.0, 0.0, 0.0, 1.0])
    );
    assert_eq!((t.relay_seq, t.epoch), (show.relay_seq, show.epoch));
    assert_eq!(s.pose_rev(), Revision(2));
    assert!(
        s.h.wire(c)
            .iter()
            .any(|p| matches!(p, ServerPacket::VehicleTransform(_))),
        "on the wire"
    );
}

#[rstest]
#[case::on_its_side([S, 0.0, 0.0, S], true)]
#[case::on_its_roof([0.0, 1.0, 0.0, 0.0], true)]
#[case::level_facing_east([0.0, 0.0, S, S], false)]
fn a_tilted_vehicles_show_is_followed_by_its_rotation(
    #[case] rot: [f32; 4],
    #[case] follows: bool,
) {
    let mut s = scene();
    let line = format!("/rot {} {} {} {}", rot[0], rot[1], rot[2], rot[3]);
    s.ok(&line);
    let (c, words) = shown_with(&mut s);
    if follows {
        assert_eq!(words, ["show rev 1", "transform 0x02 rev 1"]);
        let t = s.transforms(c).pop().expect("sent");
        assert!(close(t.rot, s.pose().rotation));
        assert_eq!((t.pos, t.move_speed), (Vec3::ZERO, Vec3::ZERO));
    } else {
        assert_eq!(words, ["show rev 1"]);
        let show = s.h.packets::<VehicleSync>(c).pop().expect("shown");
        assert!((show.heading - 90.0).abs() < 1e-3, "{}", show.heading);
    }
}

/// The resets a feature holding attached state reads, and whether the transform had gone
/// out by then (it must not: the release goes first).
#[derive(Resource, Default)]
struct Resets(Vec<(VehicleId, ResetKind)>);

fn record(
    mut read: MessageReader<VehicleReset>,
    mut seen: ResMut<Resets>,
    vehicles: Query<&Vehicle>,
    mut connections: Query<&mut Connection>,
) {
    for r in read.read() {
        assert_eq!(vehicles.get(r.vehicle).map(|v| v.id), Ok(r.id));
        seen.0.push((r.id, r.kind));
        // What a towing feature does here: its release, ahead of the transform.
        for mut c in &mut connections {
            let marker = VehicleSync::hide(EventId(0), VehicleId(999));
            c.send_event(ServerPacket::from(marker), Delivery::Critical)
                .expect("room in the lane");
        }
    }
}

#[rstest]
#[case::position("/pos 110 200 10", true)]
#[case::rotation("/rot 0 0 0 1", true)]
#[case::freeze("/freeze on", true)]
#[case::velocity("/vel 1 0 0", false)]
#[case::turn_velocity("/turn 0 0 1", false)]
fn a_new_position_rotation_or_freeze_writes_the_reset_first(
    #[case] line: &str,
    #[case] resets: bool,
) {
    let mut s = scene_with(|app| {
        app.init_resource::<Resets>().add_systems(
            FixedUpdate,
            record
                .after(TransformSystems::Change)
                .before(TransformSystems::Send),
        );
    });
    s.ok(line);
    let seen = &s.h.world().resource::<Resets>().0;
    if resets {
        assert_eq!(seen, &[(CAR, ResetKind::Transformed)]);
        let order: Vec<&str> = s
            .h
            .received(s.b)
            .iter()
            .filter_map(|p| match p {
                ServerPacket::VehicleSync(v) if v.vehicle_id == VehicleId(999) => Some("release"),
                ServerPacket::VehicleTransform(_) => Some("transform"),
                _ => None,
            })
            .collect();
        assert_eq!(order, ["release", "transform"]);
    } else {
        assert!(seen.is_empty(), "{seen:?}");
    }
}

#[test]
fn unfreezing_releases_nothing() {
    let mut s = scene_with(|app| {
        app.init_resource::<Resets>().add_systems(
            FixedUpdate,
            record
                .after(TransformSystems::Change)
                .before(TransformSystems::Send),
        );
    });
    s.ok("/freeze on");
    s.ok("/freeze off");
    assert_eq!(s.h.world().resource::<Resets>().0.len(), 1);
}

#[test]
fn freeroam_flip_puts_the_driven_vehicle_upright_at_its_heading() {
    let mut h = Harness::with_config(Config {
        scripts: "scripts".into(),
        resources: vec!["freeroam".into()],
        ..Harness::config()
    });
    let a = h.connect("alice");
    h.steps(2);
    h.request_spawn(a);
    h.steps(4);
    h.live(a);
    let home = h.get::<Position>(a).0;
    let ask = |h: &mut Harness, line: &str| {
        let before = h.chat_lines(a).len();
        h.chat(a, line);
        h.steps(2);
        h.chat_lines(a).split_off(before)
    };
    assert_eq!(ask(&mut h, "/flip"), ["You are not driving a vehicle."]);
    assert_eq!(ask(&mut h, "/v 411"), ["Here is your vehicle 411."]);
    let id = h
        .world()
        .resource::<Vehicles>()
        .iter()
        .map(|(id, _)| id)
        .max()
        .expect("a vehicle");
    enter(&mut h, a, id, 0);
    h.steps(2);
    assert_eq!(
        h.get::<dlmp_core::vehicle::Seated>(a).id,
        id,
        "Alice drives it"
    );
    // Her game rolls it onto its roof, facing 60°: the frame says so.
    let (h60, roof) = (30f32.to_radians(), core::f32::consts::FRAC_PI_2);
    let (sz, cz, sx, cx) = (h60.sin(), h60.cos(), roof.sin(), roof.cos());
    // Yaw 60° about z, then 180° about its forward axis y: z·y. It still faces 60°.
    let upside_down = [-sz * sx, cz * sx, sz * cx, cz * cx];
    let rolled = VehicleState {
        rot: upside_down,
        ..state(Vec3::new(home.x + 3.0, home.y, home.z))
    };
    send_frame(&mut h, a, 1, id, rolled);
    h.step();
    let e = h.world().resource::<Vehicles>().entity(id).expect("exists");
    assert_eq!(
        h.world().get::<Pose>(e).expect("a pose").rotation,
        upside_down
    );
    h.clear(a);
    assert_eq!(ask(&mut h, "/flip"), ["Back on your wheels."]);
    let t = h.packets::<VehicleTransform>(a);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].flags, bit::ROTATION);
    let pose = *h.world().get::<Pose>(e).expect("a pose");
    let level = Pose::level(pose.position, 60.0).rotation;
    assert!(close(t[0].rot, level), "{:?} vs {level:?}", t[0].rot);
    assert!((pose.heading() - 60.0).abs() < 1e-3, "{}", pose.heading());
    assert!(
        dlmp::vehicle::transform::show::is_level(&pose),
        "upright at its heading"
    );
}
