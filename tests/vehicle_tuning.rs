//! vehicles.md VehicleTuning and VehicleHandling, and VehicleFrame's nitro rules, in the
//! harness through the Lua API and the decoder: each refusal from the model data (real
//! models), pairs, the paintjob edge, plates, dirt, the taxi light, nitro installed full,
//! spent by the pilot's burning frames, removed when the last charge burns out, refilled
//! by a respawn; the whole state after every show; handling ranges and clearing; the
//! freeroam `/nos`.

mod vehicle_support;
mod vframe_support;

use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::VehicleId;
use dlmp::protocol::vehicle::frame::RemoteVehicleFrame;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::protocol::vehicle::tuning::{
    NO_DIRT, NO_PAINTJOB, TAXI_LIGHT, VehicleHandling, VehicleTuning, kind,
};
use dlmp::vehicle::{ResetKind, VehicleReset};
use dlmp_core::vehicle::Vehicles;
use rstest::rstest;
use vframe_support::{HERE, frame, state};

/// A gamemode that runs `/t CODE` as Lua in its environment (`me` is the caller) and
/// answers with `ok RESULT` or the error's first line.
const GAMEMODE: &str = r#"
dlmp.on("player_command", function(p, name, args)
    if name ~= "t" then return end
    me = p
    local f, err = load(table.concat(args, " "), "t", "t", _ENV)
    local ok, r
    if f then ok, r = pcall(f) else ok, r = false, err end
    local line = ok and ("ok " .. tostring(r))
        or (tostring(r):match("^[^\n]*"):gsub("^runtime error: ", ""))
    dlmp.send_chat(string.sub(line, 1, 140), nil, {p})
    return true
end)
"#;

/// Alice and Bob at [`HERE`] with the test gamemode.
struct Scene {
    _scripts: TempScripts,
    h: Harness,
    a: ClientId,
    b: ClientId,
}

fn scene() -> Scene {
    let scripts = TempScripts::new("vtuning");
    scripts.resource("gm", GAMEMODE);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(HERE);
    Scene {
        _scripts: scripts,
        h,
        a,
        b,
    }
}

impl Scene {
    /// Runs `code` as Alice's command and returns the answer; then a second passes (the
    /// chat limit).
    fn lua(&mut self, code: &str) -> String {
        let before = self.h.chat_lines(self.a).len();
        self.h.chat(self.a, &format!("/t {code}"));
        self.h.step();
        let mut out = self.h.chat_lines(self.a).split_off(before);
        self.h.advance(Duration::from_secs(1));
        out.pop().unwrap_or_default()
    }

    /// `car`, a vehicle of `model` 3 m from the pair, shown to both.
    fn car(&mut self, model: u16) -> VehicleId {
        let answer = self.lua(&format!(
            "car = dlmp.create_vehicle({model}, {}, {}, {}, 0) return car:id()",
            HERE.x + 3.0,
            HERE.y,
            HERE.z
        ));
        let id: u32 = answer
            .strip_prefix("ok ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{answer}"));
        VehicleId(id)
    }

    /// Alice drives `car`.
    fn drive(&mut self) {
        assert_eq!(self.lua("dlmp.put_player_in_vehicle(me, car, 0)"), "ok nil");
    }

    fn tunings(&self, c: ClientId) -> Vec<VehicleTuning> {
        self.h.packets::<VehicleTuning>(c)
    }

    fn last_tuning(&self, c: ClientId) -> VehicleTuning {
        self.tunings(c).pop().expect("a VehicleTuning")
    }

    fn handlings(&self, c: ClientId) -> Vec<VehicleHandling> {
        self.h.packets::<VehicleHandling>(c)
    }
}

fn ok(answer: &str) {
    assert!(answer.starts_with("ok"), "{answer}");
}

fn refused(answer: &str, why: &str) {
    assert!(answer.contains(why), "{answer:?} should say {why:?}");
}

#[rstest]
#[case::sultan_spoiler_of_its_own_list(560, 1138, None)]
#[case::sultan_the_other_side_of_its_skirts(560, 1027, None)]
#[case::quad_bike_wheels(471, 1025, None)]
#[case::monster_truck_hydraulics(444, 1087, None)]
#[case::taxi_hood_scoop(420, 1004, None)]
#[case::infernus_hood_scoop(411, 1004, Some("part 1004 (hood) does not fit model 411 (Infernus)"))]
#[case::stratum_sultan_skirts(561, 1026, Some("part 1026 (side skirts) does not fit model 561"))]
#[case::nrg_nitro(522, 1010, Some("model 522 (NRG-500) is a motorbike"))]
#[case::predator_stereo(430, 1086, Some("model 430 (Predator) is a boat"))]
#[case::hydra_wheels(520, 1025, Some("model 520 (Hydra) is a plane"))]
#[case::no_such_part(411, 999, Some("part 999 is outside 1000..=1193"))]
fn a_part_is_refused_by_the_model_data(
    #[case] model: u16,
    #[case] part: u16,
    #[case] why: Option<&str>,
) {
    let mut s = scene();
    s.car(model);
    let answer = s.lua(&format!("dlmp.add_vehicle_component(car, {part})"));
    match why {
        None => {
            ok(&answer);
            let k = dlmp::vehicle::tuning::TuningData::get()
                .part(part)
                .expect("a part")
                .kind;
            for c in [s.a, s.b] {
                assert_eq!(s.last_tuning(c).components[k], part);
            }
        }
        Some(why) => {
            refused(&answer, &format!("add_vehicle_component: {why}"));
            assert!(s.tunings(s.a).is_empty(), "nothing sent");
        }
    }
}

#[test]
fn a_pair_goes_on_and_comes_off_together() {
    let mut s = scene();
    s.car(560);
    ok(&s.lua("dlmp.add_vehicle_component(car, 1026)"));
    assert_eq!(s.last_tuning(s.b).components[kind::SIDE_SKIRTS], 1026);
    ok(&s.lua("dlmp.add_vehicle_component(car, 1027)"));
    assert_eq!(s.tunings(s.b).len(), 1, "the other side is the same pair");
    assert_eq!(
        s.lua("return dlmp.remove_vehicle_component(car, 1027)"),
        "ok true"
    );
    let empty = s.last_tuning(s.b);
    assert_eq!(empty.components, [0; 17]);
    assert_eq!(
        (empty.paintjob, empty.dirt, empty.nitro),
        (NO_PAINTJOB, NO_DIRT, 0)
    );
    assert_eq!(
        s.lua("return dlmp.remove_vehicle_component(car, 1026)"),
        "ok false"
    );
    assert_eq!(s.tunings(s.b).len(), 2, "nothing to remove, nothing sent");
}

#[test]
fn one_part_per_kind_a_new_one_replaces_the_old() {
    let mut s = scene();
    s.car(411);
    ok(&s.lua("dlmp.add_vehicle_component(car, 1080) dlmp.add_vehicle_component(car, 1073)"));
    let t = s.tunings(s.a);
    assert_eq!(
        t.iter()
            .map(|t| t.components[kind::WHEELS])
            .collect::<Vec<_>>(),
        [1080, 1073]
    );
}

#[test]
fn a_paintjob_must_be_below_the_models_count() {
    let mut s = scene();
    s.car(575);
    ok(&s.lua("dlmp.set_vehicle_paintjob(car, 1)"));
    assert_eq!(s.last_tuning(s.b).paintjob, 1);
    refused(
        &s.lua("dlmp.set_vehicle_paintjob(car, 2)"),
        "set_vehicle_paintjob: paintjob 2 is not below model 575 (Broadway)'s 2 paintjobs",
    );
    refused(
        &s.lua("dlmp.set_vehicle_paintjob(car, 8)"),
        "paintjob 8 is outside 0..=7",
    );
    ok(&s.lua("dlmp.set_vehicle_paintjob(car, nil)"));
    assert_eq!(s.last_tuning(s.b).paintjob, NO_PAINTJOB);
    assert_eq!(s.tunings(s.b).len(), 2);
    s.car(411);
    refused(
        &s.lua("dlmp.set_vehicle_paintjob(car, 0)"),
        "model 411 (Infernus) has no paintjobs",
    );
}

#[rstest]
#[case::padded("DLMP 1", Ok("DLMP 1  "))]
#[case::lower_case("abc123", Ok("ABC123  "))]
#[case::eight("SA 12345", Ok("SA 12345"))]
#[case::nine("ABCDEFGHI", Err("plate has 9 characters, expected 1..=8"))]
#[case::empty("", Err("plate has 0 characters"))]
#[case::a_dash("AB-12", Err("plate character '-' is not A-Z, 0-9 or a space"))]
fn plates(#[case] text: &str, #[case] out: Result<&str, &str>) {
    let mut s = scene();
    s.car(411);
    let answer = s.lua(&format!("dlmp.set_vehicle_plate(car, \"{text}\")"));
    match out {
        Ok(plate) => {
            ok(&answer);
            assert_eq!(s.last_tuning(s.b).plate.as_str(), plate);
            ok(&s.lua("dlmp.set_vehicle_plate(car, nil)"));
            assert!(
                s.last_tuning(s.b).plate.is_empty(),
                "the game's plate again"
            );
        }
        Err(why) => {
            refused(&answer, why);
            assert!(s.tunings(s.b).is_empty());
        }
    }
}

#[test]
fn dirt_is_0_to_15_or_the_games() {
    let mut s = scene();
    s.car(411);
    ok(&s.lua("dlmp.set_vehicle_dirt(car, 15)"));
    assert_eq!(s.last_tuning(s.b).dirt, 15);
    refused(
        &s.lua("dlmp.set_vehicle_dirt(car, 16)"),
        "level 16 is outside 0..=15",
    );
    ok(&s.lua("dlmp.set_vehicle_dirt(car, nil)"));
    assert_eq!(s.last_tuning(s.b).dirt, NO_DIRT);
}

#[test]
fn the_taxi_light_fits_the_taxi_and_the_cabbie_only() {
    let mut s = scene();
    for model in [420, 438] {
        s.car(model);
        ok(&s.lua("dlmp.set_vehicle_taxi_light(car, true)"));
        assert_eq!(s.last_tuning(s.b).flags, TAXI_LIGHT, "{model}");
    }
    let before = s.tunings(s.b).len();
    s.car(411);
    refused(
        &s.lua("dlmp.set_vehicle_taxi_light(car, true)"),
        "model 411 (Infernus) has no taxi light",
    );
    ok(&s.lua("dlmp.set_vehicle_taxi_light(car, false)"));
    assert_eq!(s.tunings(s.b).len(), before, "no change, nothing sent");
}

#[test]
fn nitro_is_installed_full_and_full_again() {
    let mut s = scene();
    s.car(411);
    refused(
        &s.lua("dlmp.set_vehicle_nitro_charges(car, 3)"),
        "set_vehicle_nitro_charges: the vehicle has no nitro part",
    );
    let mut got = Vec::new();
    for code in [
        "dlmp.add_vehicle_component(car, 1010)",
        "dlmp.set_vehicle_nitro_charges(car, 3)",
        "dlmp.add_vehicle_component(car, 1010)",
        "dlmp.add_vehicle_component(car, 1008)",
        "dlmp.add_vehicle_component(car, 1009)",
        "dlmp.remove_vehicle_component(car, 1009)",
    ] {
        ok(&s.lua(code));
        let t = s.last_tuning(s.b);
        got.push((t.components[kind::NITRO], t.nitro));
    }
    assert_eq!(
        got,
        [
            (1010, 10),
            (1010, 3),
            (1010, 10),
            (1008, 5),
            (1009, 2),
            (0, 0)
        ]
    );
    refused(
        &s.lua("dlmp.set_vehicle_nitro_charges(car, 101)"),
        "n 101 is outside 0..=100",
    );
}

fn burning(level: f32) -> VehicleState {
    VehicleState {
        nitro: level,
        ..state(Vec3::new(HERE.x + 3.0, HERE.y, HERE.z))
    }
}

/// (nitro part, charges) of every VehicleTuning `c` got.
fn nitro(s: &Scene, c: ClientId) -> Vec<(u16, u8)> {
    s.tunings(c)
        .iter()
        .map(|t| (t.components[kind::NITRO], t.nitro))
        .collect()
}

/// `secs` seconds pass: every second Bob sends an on-foot frame and Alice either a frame
/// of `driving` (at `seq`, counted up) or a chat command, so neither session times out.
fn wait(s: &mut Scene, secs: u32, id: VehicleId, driving: Option<(f32, &mut u32)>) {
    let (a, b) = (s.a, s.b);
    let mut driving = driving;
    for _ in 0..secs {
        s.h.advance(Duration::from_millis(980));
        s.h.live(b);
        match driving.as_mut() {
            Some((level, seq)) => {
                **seq += 1;
                frame(&mut s.h, a, **seq, id, burning(*level));
            }
            None => {
                s.h.chat(a, "/t return 0");
                s.h.step();
            }
        }
    }
}

#[test]
fn the_pilots_burning_spends_charges_and_the_last_burn_out_removes_the_nitro() {
    let mut s = scene();
    let id = s.car(411);
    s.drive();
    ok(&s.lua("dlmp.add_vehicle_component(car, 1009)"));
    let (a, b) = (s.a, s.b);
    frame(&mut s.h, a, 1, id, burning(-1.0));
    frame(&mut s.h, a, 2, id, burning(-0.5));
    for c in [a, b] {
        assert_eq!(nitro(&s, c), [(1009, 2), (1009, 1)], "the driver included");
    }
    // It burns out, and lights again only 18 s after that.
    frame(&mut s.h, a, 3, id, burning(0.2));
    let out_at = s.h.now();
    let mut seq = 3;
    wait(&mut s, 17, id, Some((0.2, &mut seq)));
    s.h.advance(out_at + Duration::from_millis(17_960) - s.h.now());
    frame(&mut s.h, a, seq + 1, id, burning(-1.0));
    assert_eq!(nitro(&s, b).len(), 2, "too early: not lit");
    frame(&mut s.h, a, seq + 2, id, burning(-1.0));
    let lit_at = s.h.now();
    assert!(lit_at - out_at >= Duration::from_secs(18));
    for c in [a, b] {
        assert_eq!(nitro(&s, c).last(), Some(&(1009, 0)));
    }
    // The last charge counts as burnt out 25 s after it was lit, without another frame.
    wait(&mut s, 24, id, None);
    s.h.advance(lit_at + Duration::from_millis(24_900) - s.h.now());
    assert_eq!(nitro(&s, b).len(), 3);
    s.h.advance(Duration::from_millis(200));
    for c in [a, b] {
        assert_eq!(nitro(&s, c).last(), Some(&(0, 0)), "the nitro is removed");
    }
    assert_eq!(
        s.lua("return dlmp.remove_vehicle_component(car, 1009)"),
        "ok false",
        "the scripts see it gone"
    );
}

#[test]
fn a_passengers_frames_light_nothing() {
    let mut s = scene();
    let id = s.car(411);
    ok(&s.lua("dlmp.add_vehicle_component(car, 1010)"));
    assert_eq!(s.lua("dlmp.put_player_in_vehicle(me, car, 1)"), "ok nil");
    let a = s.a;
    frame(&mut s.h, a, 1, id, burning(-1.0));
    assert_eq!(nitro(&s, s.b), [(1010, 10)]);
}

#[test]
fn a_respawn_refills_the_nitro_and_keeps_the_tuning() {
    let mut s = scene();
    let id = s.car(411);
    s.drive();
    ok(&s.lua("dlmp.add_vehicle_component(car, 1010) dlmp.set_vehicle_plate(car, \"RESPAWN\")"));
    let a = s.a;
    frame(&mut s.h, a, 1, id, burning(-1.0));
    assert_eq!(nitro(&s, s.b).last(), Some(&(1010, 9)));
    let vehicle =
        s.h.world()
            .resource::<Vehicles>()
            .entity(id)
            .expect("exists");
    // What the life feature writes with a respawn: any other reset refills nothing.
    for kind in [
        ResetKind::Wrecked,
        ResetKind::Transformed,
        ResetKind::Respawned,
    ] {
        s.h.world_mut()
            .write_message(VehicleReset { vehicle, id, kind });
        s.h.step();
    }
    let t = s.tunings(s.b);
    assert_eq!(
        t.len(),
        4,
        "the part, the plate, the spent charge, one refill"
    );
    assert_eq!((t[3].nitro, t[3].plate.as_str()), (10, "RESPAWN "));
    // A full tank again: the next burning frame spends a charge at once.
    frame(&mut s.h, a, 2, id, burning(-1.0));
    assert_eq!(nitro(&s, s.b).last(), Some(&(1010, 9)));
}

#[test]
fn hydraulics_are_relayed_only_with_the_part() {
    let mut s = scene();
    let id = s.car(411);
    s.drive();
    let pumped = VehicleState {
        hydraulics: 42,
        ..burning(1.0)
    };
    let a = s.a;
    frame(&mut s.h, a, 1, id, pumped);
    ok(&s.lua("dlmp.add_vehicle_component(car, 1087)"));
    frame(&mut s.h, a, 2, id, pumped);
    let relayed: Vec<u16> =
        s.h.packets::<RemoteVehicleFrame>(s.b)
            .iter()
            .map(|r| r.state.hydraulics)
            .collect();
    assert_eq!(relayed, [0, 42]);
}

/// What `c` got about vehicle `id`: shows, warps, tuning and handling, in lane order.
fn show_sequence(h: &Harness, c: ClientId, id: VehicleId) -> Vec<String> {
    h.received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::VehicleSync(v) if v.vehicle_id == id && v.active => {
                Some("show".to_owned())
            }
            ServerPacket::VehicleSync(v) if v.vehicle_id == id => Some("hide".to_owned()),
            ServerPacket::VehicleOccupancy(o) if o.vehicle_id == id => {
                Some(format!("{:?} {}", o.kind, o.seat))
            }
            ServerPacket::VehicleTuning(t) if t.vehicle_id == id => {
                Some(format!("tuning {}", t.components[kind::NITRO]))
            }
            ServerPacket::VehicleHandling(t) if t.vehicle_id == id => {
                Some(format!("handling {}", t.mask))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_newcomer_gets_the_show_the_warps_then_the_tuning_and_the_handling() {
    let mut s = scene();
    let id = s.car(560);
    let plain = s.car(411);
    s.lua("car = dlmp.vehicles()[1]");
    s.drive();
    ok(&s.lua(
        "dlmp.add_vehicle_component(car, 1010) dlmp.set_vehicle_handling(car, {mass = 1500})",
    ));
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, HERE);
    s.h.steps(3);
    assert_eq!(
        show_sequence(&s.h, c, id),
        ["show", "Warp 0", "tuning 1010", "handling 1"]
    );
    assert_eq!(
        show_sequence(&s.h, c, plain),
        ["show"],
        "nothing set, nothing follows"
    );
    // Hiding forgets the tuning: the next show sends it again.
    let far = Vec3::new(HERE.x + 1000.0, HERE.y, HERE.z);
    vehicle_support::walk(&mut s.h, c, far);
    s.h.clear(c);
    vehicle_support::walk(&mut s.h, c, HERE);
    s.h.step();
    assert_eq!(
        show_sequence(&s.h, c, id),
        ["show", "Warp 0", "tuning 1010", "handling 1"]
    );
}

#[test]
fn handling_ranges_and_clearing() {
    let mut s = scene();
    let id = s.car(411);
    ok(&s.lua("dlmp.set_vehicle_handling(car, {mass = 1500, number_of_gears = 4, center_of_mass_z = -0.5})"));
    let h = s.handlings(s.b).pop().expect("a VehicleHandling");
    assert_eq!(h.mask, 1 | 1 << 5 | 1 << 20);
    assert_eq!(
        (h.values[0], h.values[5], h.values[20]),
        (1500.0, -0.5, 4.0)
    );
    for (code, why) in [
        (
            "{mass = 0}",
            "set_vehicle_handling: mass 0 is outside 1..=100000",
        ),
        (
            "{number_of_gears = 2.5}",
            "number_of_gears 2.5 must be a whole number",
        ),
        ("{abs = 2}", "abs 2 is outside 0..=1"),
        ("{max_velocity = 0}", "max_velocity 0 is outside 0.1..=1000"),
        ("{speed = 1}", "unknown property speed"),
        ("{mass = \"heavy\"}", "mass must be a number"),
    ] {
        refused(
            &s.lua(&format!("dlmp.set_vehicle_handling(car, {code})")),
            why,
        );
    }
    ok(&s.lua("dlmp.set_vehicle_handling(car, {mass = 1500, number_of_gears = 4, center_of_mass_z = -0.5})"));
    assert_eq!(s.handlings(s.b).len(), 1, "no change, nothing sent");
    ok(&s.lua("dlmp.set_vehicle_handling(car, {max_velocity = 250})"));
    let h = s.handlings(s.b).pop().expect("a VehicleHandling");
    assert_eq!(
        (h.mask, h.values[17], h.values[0]),
        (1 << 17, 250.0, 0.0),
        "the whole state"
    );
    ok(&s.lua("dlmp.set_vehicle_handling(car, {})"));
    let h = s.handlings(s.b).pop().expect("a VehicleHandling");
    assert_eq!((h.vehicle_id, h.mask, h.values), (id, 0, [0.0; 21]));
    // Nothing set: a new show is not followed by a VehicleHandling.
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, HERE);
    s.h.steps(3);
    assert_eq!(show_sequence(&s.h, c, id), ["show"]);
}

#[test]
fn a_destroyed_vehicle_is_an_error_naming_the_call() {
    let mut s = scene();
    s.car(411);
    ok(&s.lua("car:destroy()"));
    refused(
        &s.lua("dlmp.add_vehicle_component(car, 1010)"),
        "add_vehicle_component: vehicle 1 no longer exists",
    );
    refused(
        &s.lua("dlmp.set_vehicle_handling(car, {mass = 1})"),
        "set_vehicle_handling: vehicle 1 no longer exists",
    );
}

#[test]
fn tuning_a_vehicle_in_the_call_that_makes_it_follows_its_first_show() {
    let mut s = scene();
    let answer = s.lua(&format!(
        "local v = dlmp.create_vehicle(560, {}, {}, {}, 0) dlmp.set_vehicle_paintjob(v, 2) return v:id()",
        HERE.x, HERE.y, HERE.z
    ));
    let id = VehicleId(answer.trim_start_matches("ok ").parse().expect("an id"));
    assert_eq!(show_sequence(&s.h, s.b, id), ["show", "tuning 0"]);
    assert_eq!(s.last_tuning(s.b).paintjob, 2);
}

fn freeroam() -> Harness {
    Harness::with_config(Config {
        scripts: "scripts".into(),
        resources: vec!["freeroam".into()],
        ..Harness::config()
    })
}

#[test]
fn freeroam_nos_gives_the_vehicle_you_drive_ten_charges() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    h.spawn(a, HERE);
    h.live(a);
    let say = |h: &mut Harness, line: &str| {
        let before = h.chat_lines(a).len();
        h.chat(a, line);
        h.steps(2);
        let out = h.chat_lines(a).split_off(before);
        h.advance(Duration::from_secs(1));
        out
    };
    assert_eq!(say(&mut h, "/nos"), ["You are not driving a vehicle."]);
    let newest = |h: &Harness, model: u16| {
        h.packets::<VehicleSync>(a)
            .iter()
            .filter(|v| v.active && v.model == model)
            .map(|v| v.vehicle_id)
            .max()
            .expect("shown")
    };
    assert_eq!(say(&mut h, "/v 522"), ["Here is your vehicle 522."]);
    let bike = newest(&h, 522);
    vehicle_support::enter(&mut h, a, bike, 0);
    h.steps(2);
    let refused = say(&mut h, "/nos");
    assert!(refused[0].contains("is a motorbike"), "{refused:?}");
    vehicle_support::exit(&mut h, a, bike);
    assert_eq!(say(&mut h, "/v 411"), ["Here is your vehicle 411."]);
    let car = newest(&h, 411);
    vehicle_support::enter(&mut h, a, car, 0);
    h.steps(2);
    assert_eq!(say(&mut h, "/nos"), ["Nitro installed: 10 charges."]);
    let t = h.packets::<VehicleTuning>(a);
    assert_eq!(
        t.iter()
            .map(|t| (t.vehicle_id, t.components[kind::NITRO], t.nitro))
            .collect::<Vec<_>>(),
        [(car, 1010, 10)]
    );
    assert_eq!(h.script_host().errors(), 0);
}
