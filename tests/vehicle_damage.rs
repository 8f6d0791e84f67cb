//! vehicles.md VehicleDamage, RemoteVehicleDamage and VehicleHealth in the harness: every
//! acceptance rule of a report through the decoder, alone and passing; the merge into the
//! stored status; the relay only on a change and never to the sender; the gamemode's
//! status, health and repair commands (lua-api.md) with their revisions to everyone,
//! racing reports and frames; wrecks, motorbikes and models without a status; the shared
//! vehicle event rate limit at its edge; freeroam's `/fix`.

mod vframe_support;

use bevy_ecs::prelude::*;
use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::connection::lane::ServerAck;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, Revision, VehicleEpoch, VehicleId};
use dlmp::protocol::vehicle::damage::{
    RemoteVehicleDamage, ReportedStatus, VehicleDamage, VehicleDamageStatus,
};
use dlmp::protocol::vehicle::frame::RemoteVehicleFrame;
use dlmp::protocol::vehicle::life::VehicleHealth;
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::vehicle::damage::{DamageCommand, DamageStats, StatusParts};
use dlmp::vehicle::{Damage, Health, Revisions, SeatCommand};
use dlmp_core::vehicle::Life;
use rstest::rstest;
use vframe_support::{HERE, frame, make_syncer, seat, state, vehicle};

/// The test gamemode: `/hp ID H`, `/repair ID`, `/status ID {TABLE}` call the API and
/// answer "ok" or the error's first line; `/health ID` answers `vehicle:health()`. The
/// arguments are Lua expressions (`0/0` is NaN).
const GM: &str = r#"
local function find(id)
    for _, v in ipairs(dlmp.vehicles()) do
        if v:id() == id then return v end
    end
end
local function eval(words)
    return load("return " .. words)()
end
local function reply(player, ok, err)
    local text = "ok"
    if not ok then
        text = (tostring(err):match("^[^\n]*"):gsub("^runtime error: ", ""))
    end
    dlmp.send_chat(text, 0xFFFFFF, { player })
end
dlmp.on("player_command", function(player, name, args)
    local v = find(tonumber(args[1]))
    if name == "hp" then
        reply(player, pcall(dlmp.set_vehicle_health, v, eval(args[2])))
    elseif name == "repair" then
        reply(player, pcall(dlmp.repair_vehicle, v))
    elseif name == "status" then
        reply(player, pcall(dlmp.set_vehicle_damage_status, v, eval(table.concat(args, " ", 2))))
    elseif name == "health" then
        dlmp.send_chat(tostring(v:health()), 0xFFFFFF, { player })
    else
        return
    end
    return true
end)
"#;

/// Alice driving a vehicle of `model` beside her and Bob, both streamed it; the test
/// gamemode running.
struct Scene {
    _scripts: TempScripts,
    h: Harness,
    a: ClientId,
    b: ClientId,
    v: Entity,
    id: VehicleId,
}

fn scene(test: &str, model: u16) -> Scene {
    let mut s = parked(test, model);
    seat(&mut s.h, s.a, s.v, 0);
    s.h.clear(s.a);
    s.h.clear(s.b);
    s
}

/// [`scene`] without a driver.
fn parked(test: &str, model: u16) -> Scene {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", GM);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, model, Vec3::new(HERE.x + 3.0, HERE.y, HERE.z));
    h.step();
    assert!(
        !h.packets::<VehicleSync>(b).is_empty(),
        "the vehicle is streamed to Bob"
    );
    h.clear(a);
    h.clear(b);
    Scene {
        _scripts: scripts,
        h,
        a,
        b,
        v,
        id,
    }
}

fn st(panels: u32, doors: [u8; 6], lights: u32, wheels: [u8; 4]) -> VehicleDamageStatus {
    VehicleDamageStatus {
        panels,
        doors,
        lights,
        wheels,
    }
}

/// A crash: LF fender 2, RF fender 1, bonnet missing, LF door damaged, a light, a tyre.
fn crash() -> VehicleDamageStatus {
    st(0x0000_0012, [4, 0, 2, 0, 0, 0], 0x01, [0, 0, 1, 0])
}

/// Queues a VehicleDamage from `c` (no tick).
fn send_report(
    h: &mut Harness,
    c: ClientId,
    id: VehicleId,
    epoch: u8,
    status: VehicleDamageStatus,
    rev: u16,
) -> EventId {
    let packet = VehicleDamage {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: id,
        epoch: VehicleEpoch(epoch),
        status: ReportedStatus(status),
        damage_rev: Revision(rev),
    };
    h.send_event(c, packet)
}

/// A report of epoch 0 and revision `rev` from `c`, and one tick.
fn report(h: &mut Harness, c: ClientId, id: VehicleId, status: VehicleDamageStatus, rev: u16) {
    send_report(h, c, id, 0, status, rev);
    h.step();
}

/// A gamemode command line from `c` and what `c` was answered. Chat takes five lines at
/// once, then one a second: the clock moves a second first.
fn gm(h: &mut Harness, c: ClientId, line: &str) -> Vec<String> {
    h.advance(std::time::Duration::from_secs(1));
    let before = h.chat_lines(c).len();
    h.chat(c, line);
    h.step();
    h.chat_lines(c).split_off(before)
}

fn stored(h: &Harness, v: Entity) -> VehicleDamageStatus {
    h.world().get::<Damage>(v).expect("a status").0
}

fn health(h: &Harness, v: Entity) -> f32 {
    h.world().get::<Health>(v).expect("a health").0
}

fn revisions(h: &Harness, v: Entity) -> Revisions {
    *h.world().get::<Revisions>(v).expect("revisions")
}

fn stats(h: &Harness) -> DamageStats {
    *h.world().resource::<DamageStats>()
}

/// (vehicle, epoch, status, damage_rev) of every RemoteVehicleDamage `c` got.
fn remote(h: &Harness, c: ClientId) -> Vec<(u32, u8, VehicleDamageStatus, u16)> {
    h.packets::<RemoteVehicleDamage>(c)
        .into_iter()
        .map(|p| (p.vehicle_id.0, p.epoch.0, p.status, p.damage_rev.0))
        .collect()
}

/// (vehicle, epoch, health, health_rev) of every VehicleHealth `c` got.
fn healths(h: &Harness, c: ClientId) -> Vec<(u32, u8, f32, u16)> {
    h.packets::<VehicleHealth>(c)
        .into_iter()
        .map(|p| (p.vehicle_id.0, p.epoch.0, p.health, p.health_rev.0))
        .collect()
}

fn wreck(h: &mut Harness, v: Entity, wrecked: bool) {
    h.world_mut().get_mut::<Life>(v).expect("a life").wrecked = wrecked;
}

#[test]
fn the_drivers_report_is_stored_and_relayed_to_everyone_else_with_the_servers_revision() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-relay", 411);
    report(&mut h, a, id, crash(), 0);
    assert_eq!(stored(&h, v), crash());
    assert_eq!(remote(&h, b), [(id.0, 0, crash(), 0)]);
    assert!(remote(&h, a).is_empty(), "never to the sender");
    assert_eq!((stats(&h).accepted, stats(&h).unchanged), (1, 0));
    assert_eq!(
        revisions(&h, v).damage.0,
        Revision(0),
        "a relay keeps the revision"
    );
}

/// One rule broken at a time: `Break` says which.
#[derive(Debug, Clone, Copy)]
enum Break {
    Bystander,
    NoSuchVehicle,
    Epoch,
    Wrecked,
    Frozen,
    Paused,
    Rev,
    Status(VehicleDamageStatus),
}

/// `c`'s PlayerSync saying it is paused (or back), where its body is; a second first (the
/// pause changes at most once a second, player.md).
fn pause(h: &mut Harness, c: ClientId, seq: u32, paused: bool) {
    h.advance(std::time::Duration::from_secs(1));
    let at = h.get::<dlmp_core::position::Position>(c).0;
    let frame = dlmp::protocol::player::sync::Frame {
        paused,
        ..dlmp::protocol::player::sync::Frame::standing(at)
    };
    h.sync(c, seq, frame);
    assert_eq!(h.get::<dlmp::player::Body>(c).paused, paused);
}

#[rstest]
#[case::a_bystander(Break::Bystander, |s: &DamageStats| s.not_controller)]
#[case::no_such_vehicle(Break::NoSuchVehicle, |s: &DamageStats| s.unknown_vehicle)]
#[case::another_epoch(Break::Epoch, |s: &DamageStats| s.epoch)]
#[case::a_wreck(Break::Wrecked, |s: &DamageStats| s.wrecked)]
#[case::a_frozen_driver(Break::Frozen, |s: &DamageStats| s.not_controller)]
#[case::a_paused_driver(Break::Paused, |s: &DamageStats| s.not_controller)]
#[case::an_old_damage_rev(Break::Rev, |s: &DamageStats| s.damage_rev)]
#[case::a_panel_above_3(Break::Status(st(0x0000_0004, [0; 6], 0, [0; 4])), |s: &DamageStats| s.range)]
#[case::the_top_nibble(Break::Status(st(0x1000_0000, [0; 6], 0, [0; 4])), |s: &DamageStats| s.range)]
#[case::a_door_above_4(Break::Status(st(0, [0, 0, 5, 0, 0, 0], 0, [0; 4])), |s: &DamageStats| s.range)]
#[case::a_wheel_above_2(Break::Status(st(0, [0; 6], 0, [0, 3, 0, 0])), |s: &DamageStats| s.range)]
fn each_rule_alone_drops_the_report_and_the_same_report_without_it_passes(
    #[case] broken: Break,
    #[case] counter: fn(&DamageStats) -> u64,
) {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-rules", 411);
    let (mut from, mut to, mut epoch, mut status, mut rev) = (a, id, 0, crash(), 0);
    match broken {
        Break::Bystander => from = b,
        Break::NoSuchVehicle => to = VehicleId(999),
        Break::Epoch => epoch = 1,
        Break::Wrecked => wreck(&mut h, v, true),
        Break::Frozen => h.freeze(a, true),
        Break::Paused => pause(&mut h, a, 50, true),
        Break::Rev => rev = 1,
        Break::Status(s) => status = s,
    }
    let event = send_report(&mut h, from, to, epoch, status, rev);
    h.step();
    assert_eq!(counter(&stats(&h)), 1, "{broken:?} counted");
    assert_eq!(stats(&h).accepted, 0);
    assert_eq!(stored(&h, v), VehicleDamageStatus::INTACT, "nothing stored");
    assert!(remote(&h, a).is_empty() && remote(&h, b).is_empty());
    assert!(
        h.packets::<ServerAck>(from)
            .iter()
            .any(|ack| ack.event_id == event),
        "acknowledged all the same"
    );

    match broken {
        Break::Wrecked => wreck(&mut h, v, false),
        Break::Frozen => h.freeze(a, false),
        Break::Paused => pause(&mut h, a, 51, false),
        _ => {}
    }
    report(&mut h, a, id, crash(), 0);
    assert_eq!(stats(&h).accepted, 1, "the valid report passes");
    assert_eq!(stored(&h, v), crash());
    assert_eq!(remote(&h, b), [(id.0, 0, crash(), 0)]);
}

#[test]
fn the_syncer_reports_a_vehicle_without_a_live_driver_and_not_beside_one() {
    let Scene {
        mut h, a, b, v, id, ..
    } = parked("damage-syncer", 411);
    make_syncer(&mut h, Some(b), v);
    report(&mut h, a, id, crash(), 0);
    assert_eq!(
        stats(&h).not_controller,
        1,
        "nobody's driver, not the syncer"
    );
    report(&mut h, b, id, crash(), 0);
    assert_eq!(stats(&h).accepted, 1);
    assert_eq!(remote(&h, a), [(id.0, 0, crash(), 0)]);
    assert!(remote(&h, b).is_empty(), "the syncer sent it");

    seat(&mut h, a, v, 0);
    make_syncer(&mut h, Some(b), v);
    report(&mut h, b, id, st(0x0000_0333, [0; 6], 0, [0; 4]), 0);
    assert_eq!(
        stats(&h).not_controller,
        2,
        "a syncer beside a live driver controls nothing"
    );
}

#[test]
fn a_report_only_adds_damage_the_worst_of_each_part_and_the_lights_together() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-merge", 411);
    report(&mut h, a, id, crash(), 0);
    // Less on some parts, more on others; a damaged door reported open (3), tyres.
    let second = st(0x0000_0301, [0, 3, 0, 0, 1, 0], 0x44, [0, 0, 0, 2]);
    report(&mut h, a, id, second, 0);
    let merged = st(0x0000_0312, [4, 2, 2, 0, 0, 0], 0x45, [0, 0, 1, 2]);
    assert_eq!(stored(&h, v), merged);
    assert_eq!(
        remote(&h, b),
        [(id.0, 0, crash(), 0), (id.0, 0, merged, 0)],
        "each change, as the stored status"
    );
    assert!(
        remote(&h, b)
            .iter()
            .all(|(.., s, _)| s.doors.iter().all(|d| d & 1 == 0)),
        "never an open bit"
    );
}

/// vehicles.md VehicleDamage: "lights: the union within the mask" — light bits outside the
/// mask are masked, and the rest of the report is taken.
#[test]
fn light_bits_outside_the_mask_are_masked_not_a_reason_to_drop_the_report() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-lights", 411);
    let wild = st(0x0000_0312, [2, 0, 0, 0, 0, 0], 0xFFFF_FFFF, [0, 1, 0, 0]);
    report(&mut h, a, id, wild, 0);
    let taken = st(0x0000_0312, [2, 0, 0, 0, 0, 0], 0x55, [0, 1, 0, 0]);
    assert_eq!(stats(&h).accepted, 1);
    assert_eq!(stored(&h, v), taken);
    assert_eq!(remote(&h, b), [(id.0, 0, taken, 0)]);
}

#[test]
fn a_report_that_changes_nothing_is_not_relayed() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-unchanged", 411);
    report(&mut h, a, id, crash(), 0);
    report(&mut h, a, id, crash(), 0);
    report(&mut h, a, id, VehicleDamageStatus::INTACT, 0);
    // Doors open, no damage: the open bit is not damage.
    report(
        &mut h,
        a,
        id,
        st(0x0000_0002, [1, 1, 3, 1, 1, 1], 0x01, [0; 4]),
        0,
    );
    assert_eq!(stored(&h, v), crash(), "a report never repairs");
    assert_eq!(remote(&h, b).len(), 1);
    assert_eq!((stats(&h).accepted, stats(&h).unchanged), (1, 3));
}

#[test]
fn a_gamemode_status_goes_to_everyone_with_a_new_revision_and_an_older_report_is_dropped() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-command", 411);
    report(&mut h, a, id, crash(), 0);
    h.clear(b);
    assert_eq!(
        gm(
            &mut h,
            a,
            &format!("/status {} {{wheels={{1, 1, 1, 1}}}}", id.0)
        ),
        ["ok"]
    );
    // Parts left out keep what the vehicle had.
    let set = st(0x0000_0012, [4, 0, 2, 0, 0, 0], 0x01, [1, 1, 1, 1]);
    assert_eq!(stored(&h, v), set);
    assert_eq!(revisions(&h, v).damage.0, Revision(1));
    for c in [a, b] {
        assert_eq!(remote(&h, c), [(id.0, 0, set, 1)], "the controller too");
    }

    // The driver's report sent before it took the command.
    report(&mut h, a, id, st(0x0333_3333, [0; 6], 0, [0; 4]), 0);
    assert_eq!(stats(&h).damage_rev, 1);
    assert_eq!(stored(&h, v), set);
    // With the command's revision.
    report(&mut h, a, id, st(0x0300_0000, [0; 6], 0, [0; 4]), 1);
    let more = StatusParts {
        panels: Some(0x0300_0012),
        ..StatusParts::default()
    }
    .over(&set);
    assert_eq!(stored(&h, v), more);
    assert_eq!(remote(&h, b), [(id.0, 0, set, 1), (id.0, 0, more, 1)]);
    assert_eq!(remote(&h, a).len(), 1, "the relay skips the sender");

    // A command may also lessen the damage: it is the gamemode's.
    assert_eq!(
        gm(
            &mut h,
            a,
            &format!(
                "/status {} {{panels=0, doors={{0, 0, 0, 0, 0, 0}}, lights=0, wheels={{0, 0, 0, 0}}}}",
                id.0
            )
        ),
        ["ok"]
    );
    assert_eq!(stored(&h, v), VehicleDamageStatus::INTACT);
    assert_eq!(
        remote(&h, a).last(),
        Some(&(id.0, 0, VehicleDamageStatus::INTACT, 2))
    );
}

#[test]
fn repair_gives_full_health_and_an_intact_status_both_revisions_to_everyone_and_to_a_late_show() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-repair", 411);
    report(&mut h, a, id, crash(), 0);
    frame(
        &mut h,
        a,
        1,
        id,
        VehicleState {
            health: 420.0,
            ..state(HERE)
        },
    );
    assert_eq!(health(&h, v), 420.0);
    h.clear(a);
    h.clear(b);
    assert_eq!(gm(&mut h, a, &format!("/repair {}", id.0)), ["ok"]);
    assert_eq!(
        (health(&h, v), stored(&h, v)),
        (1000.0, VehicleDamageStatus::INTACT)
    );
    for c in [a, b] {
        assert_eq!(healths(&h, c), [(id.0, 0, 1000.0, 1)]);
        assert_eq!(remote(&h, c), [(id.0, 0, VehicleDamageStatus::INTACT, 1)]);
    }
    assert_eq!(gm(&mut h, a, &format!("/health {}", id.0)), ["1000.0"]);

    // A newcomer's show carries both.
    let c = h.connect("carol");
    h.step();
    h.spawn(c, HERE);
    h.step();
    let show = h
        .packets::<VehicleSync>(c)
        .into_iter()
        .find(|s| s.vehicle_id == id && s.active)
        .expect("the vehicle is shown to Carol");
    assert_eq!(
        (
            show.health,
            show.health_rev.0,
            show.damage,
            show.damage_rev.0
        ),
        (1000.0, 1, VehicleDamageStatus::INTACT, 1)
    );
}

#[test]
fn a_health_command_wins_over_frames_sent_before_it_and_frames_only_lower_it() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-health-race", 411);
    let at = |health: f32, rev: u16| VehicleState {
        health,
        health_rev: Revision::from(rev),
        ..state(HERE)
    };
    // A frame of the same tick as the command, sent before the driver took it.
    h.advance(std::time::Duration::from_secs(1));
    h.chat(a, &format!("/hp {} 800", id.0));
    frame(&mut h, a, 1, id, at(300.0, 0));
    assert_eq!(health(&h, v), 800.0, "the command comes after the frame");
    assert_eq!(revisions(&h, v).health.0, Revision(1));
    for c in [a, b] {
        assert_eq!(healths(&h, c), [(id.0, 0, 800.0, 1)], "the controller too");
    }
    // Later frames without the new revision do not change it.
    frame(&mut h, a, 2, id, at(250.0, 0));
    assert_eq!(health(&h, v), 800.0);
    let relay = h.packets::<RemoteVehicleFrame>(b).pop().expect("relayed");
    assert_eq!(
        (relay.state.health, relay.state.health_rev.0),
        (800.0, 1),
        "the relay carries the server's health"
    );
    frame(&mut h, a, 3, id, at(700.0, 1));
    assert_eq!(health(&h, v), 700.0);
    frame(&mut h, a, 4, id, at(900.0, 1));
    assert_eq!(health(&h, v), 700.0, "a frame never repairs");
    // The gamemode may raise it.
    assert_eq!(gm(&mut h, a, &format!("/hp {} 2500", id.0)), ["ok"]);
    assert_eq!(health(&h, v), 2500.0);
    assert_eq!(healths(&h, b).last(), Some(&(id.0, 0, 2500.0, 2)));
    assert_eq!(gm(&mut h, a, &format!("/health {}", id.0)), ["2500.0"]);
}

#[rstest]
#[case::above(&"100001", "set_vehicle_health: health 100001 is outside 0..=100000")]
#[case::negative(&"-1", "set_vehicle_health: health -1 is outside 0..=100000")]
#[case::nan(&"0/0", "set_vehicle_health: health must be finite, got NaN")]
#[case::not_a_number(&"'full'", "set_vehicle_health: health must be a number, got \"full\"")]
fn set_vehicle_health_refuses_a_health_outside_its_range(#[case] arg: &str, #[case] error: &str) {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-health-range", 411);
    assert_eq!(gm(&mut h, a, &format!("/hp {} {arg}", id.0)), [error]);
    assert!(healths(&h, b).is_empty());
    assert_eq!(revisions(&h, v).health.0, Revision(0));
    assert_eq!(
        gm(&mut h, a, &format!("/hp {} 0", id.0)),
        ["ok"],
        "0 is in range"
    );
}

#[test]
fn a_wreck_takes_no_health_damage_or_repair() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-wreck", 411);
    wreck(&mut h, v, true);
    h.step();
    for line in [
        format!("/hp {} 500", id.0),
        format!("/repair {}", id.0),
        format!("/status {} {{wheels={{1, 1, 1, 1}}}}", id.0),
    ] {
        let name = match &line[1..3] {
            "hp" => "set_vehicle_health",
            "re" => "repair_vehicle",
            _ => "set_vehicle_damage_status",
        };
        assert_eq!(
            gm(&mut h, a, &line),
            [format!(
                "{name}: vehicle {} is a wreck (dlmp.respawn_vehicle brings it back)",
                id.0
            )]
        );
    }
    // A Rust plugin's command is refused and counted.
    h.world_mut()
        .write_message(DamageCommand::Health { id, health: 900.0 });
    h.step();
    assert_eq!(stats(&h).commands_refused, 1);
    assert!(healths(&h, a).is_empty() && healths(&h, b).is_empty());
    assert!(remote(&h, a).is_empty() && remote(&h, b).is_empty());
    assert_eq!(revisions(&h, v), Revisions::default());
}

#[test]
fn a_motorbikes_status_is_its_two_wheels() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-motorbike", 522);
    let wheels = st(0, [0; 6], 0, [1, 1, 0, 0]);
    report(&mut h, a, id, st(0, [0; 6], 0, [0, 1, 0, 0]), 0);
    report(&mut h, a, id, wheels, 0);
    assert_eq!(stored(&h, v), wheels);
    assert_eq!(remote(&h, b).len(), 2);
    for other in [
        st(0x0000_0001, [0; 6], 0, [1, 1, 0, 0]),
        st(0, [2, 0, 0, 0, 0, 0], 0, [0; 4]),
        st(0, [0; 6], 0x01, [0; 4]),
        st(0, [0; 6], 0, [1, 1, 1, 0]),
        st(0, [0; 6], 0, [2, 0, 0, 0]),
    ] {
        report(&mut h, a, id, other, 0);
    }
    assert_eq!(stats(&h).motorbike_form, 5, "dropped whole");
    assert_eq!(stored(&h, v), wheels);
    assert_eq!(remote(&h, b).len(), 2);

    assert_eq!(
        gm(
            &mut h,
            a,
            &format!("/status {} {{doors={{2, 0, 0, 0, 0, 0}}}}", id.0)
        ),
        [
            "set_vehicle_damage_status: a motorbike's status is its wheels only: wheels = {front, rear, 0, 0}, each 0 (intact) or 1 (burst)"
        ]
    );
    assert_eq!(
        gm(
            &mut h,
            a,
            &format!("/status {} {{wheels={{0, 1, 0, 0}}}}", id.0)
        ),
        ["ok"]
    );
    assert_eq!(stored(&h, v), st(0, [0; 6], 0, [0, 1, 0, 0]));
}

#[rstest]
#[case::bicycle(510)]
#[case::boat(452)]
#[case::helicopter(487)]
#[case::plane(593)]
fn a_model_without_a_status_takes_no_report_and_no_status_and_repair_sets_its_health(
    #[case] model: u16,
) {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene(&format!("damage-no-status-{model}"), model);
    report(&mut h, a, id, crash(), 0);
    assert_eq!(stats(&h).no_status, 1);
    assert!(remote(&h, b).is_empty());
    assert_eq!(
        gm(
            &mut h,
            a,
            &format!("/status {} {{wheels={{1, 1, 1, 1}}}}", id.0)
        ),
        [format!(
            "set_vehicle_damage_status: model {model} has no damage status (bicycles, boats, aircraft and trains have none)"
        )]
    );
    assert_eq!(gm(&mut h, a, &format!("/repair {}", id.0)), ["ok"]);
    assert_eq!(healths(&h, b), [(id.0, 0, 1000.0, 1)]);
    assert!(remote(&h, b).is_empty(), "no status to repair");
    assert_eq!(revisions(&h, v).damage.0, Revision(0));
}

#[rstest]
#[case::unknown_key(
    "{tyres={1, 1, 1, 1}}",
    "set_vehicle_damage_status: unknown option tyres (known: panels, doors, lights, wheels)"
)]
#[case::not_a_table(
    "7",
    "set_vehicle_damage_status: status must be a table {panels=, doors={...}, lights=, wheels={...}}, got integer"
)]
#[case::a_panel_above_3(
    "{panels=0x40}",
    "set_vehicle_damage_status: panels 0x00000040: panel 1 is 4, outside 0..=3"
)]
#[case::the_top_nibble(
    "{panels=0x10000000}",
    "set_vehicle_damage_status: panels 0x10000000 has bits above the seven panels (bits 28..31)"
)]
#[case::a_light_outside_the_mask(
    "{lights=0x02}",
    "set_vehicle_damage_status: lights 0x02 has bits outside 0x55 (one bit per light)"
)]
#[case::five_doors(
    "{doors={0, 0, 0, 0, 0}}",
    "set_vehicle_damage_status: doors must be a list of 6 numbers, got 5 entries"
)]
#[case::an_open_door(
    "{doors={0, 0, 3, 0, 0, 0}}",
    "set_vehicle_damage_status: doors[3] is 3; a door is 0 (intact), 2 (damaged) or 4 (missing)"
)]
#[case::a_wheel_above_2(
    "{wheels={0, 3, 0, 0}}",
    "set_vehicle_damage_status: wheels[2] 3 is outside 0..=2"
)]
#[case::wheels_not_a_list(
    "{wheels=1}",
    "set_vehicle_damage_status: wheels must be a list of 4 numbers, got integer"
)]
fn set_vehicle_damage_status_checks_its_table(#[case] table: &str, #[case] error: &str) {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-table", 411);
    assert_eq!(gm(&mut h, a, &format!("/status {} {table}", id.0)), [error]);
    assert!(remote(&h, b).is_empty());
    assert_eq!(revisions(&h, v).damage.0, Revision(0));
}

#[test]
fn thirty_reports_at_once_pass_the_shared_limit_the_next_is_acknowledged_and_dropped() {
    let Scene {
        mut h, a, b, v, id, ..
    } = scene("damage-rate", 411);
    // One changes the status, 29 repeat it; all count against the limit.
    for _ in 0..30 {
        send_report(&mut h, a, id, 0, crash(), 0);
    }
    let over = send_report(&mut h, a, id, 0, st(0x0000_0333, [0; 6], 0, [0; 4]), 0);
    h.step();
    assert_eq!(
        (
            stats(&h).accepted,
            stats(&h).unchanged,
            stats(&h).rate_limit
        ),
        (1, 29, 1)
    );
    assert_eq!(stored(&h, v), crash(), "the 31st changed nothing");
    assert_eq!(
        h.packets::<ServerAck>(a).last().map(|ack| ack.event_id),
        Some(over),
        "acknowledged"
    );
    // 15 a second: a token is back after 1/15 s.
    h.advance(std::time::Duration::from_millis(70));
    report(&mut h, a, id, st(0x0000_0333, [0; 6], 0, [0; 4]), 0);
    assert_eq!(stats(&h).accepted, 2);
    assert_eq!(remote(&h, b).len(), 2);
}

#[test]
fn the_limit_is_shared_with_the_other_vehicle_events() {
    let Scene {
        mut h, a, id, v, ..
    } = scene("damage-rate-shared", 411);
    for _ in 0..30 {
        send_report(&mut h, a, id, 0, crash(), 0);
    }
    h.step();
    // One tick later the bucket holds a third of a token.
    h.send_event(
        a,
        dlmp::protocol::vehicle::seats::VehicleExit {
            session_token: h.token(a),
            event_id: EventId(0),
            vehicle_id: id,
        },
    );
    h.step();
    let seats = h.world().get::<dlmp::vehicle::Seats>(v).expect("seats");
    assert!(
        seats.driver().is_some(),
        "the exit past the limit was dropped"
    );
}

fn freeroam() -> Harness {
    Harness::with_config(Config {
        scripts: "scripts".into(),
        resources: vec!["freeroam".into()],
        ..Harness::config()
    })
}

fn say(h: &mut Harness, c: ClientId, line: &str) -> Vec<String> {
    h.advance(std::time::Duration::from_secs(1));
    let before = h.chat_lines(c).len();
    h.chat(c, line);
    h.steps(2);
    h.chat_lines(c).split_off(before)
}

#[test]
fn freeroams_fix_repairs_the_vehicle_the_player_sits_in() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    let at = Vec3::new(1000.0, 1000.0, 12.0);
    h.spawn(a, at);
    h.live(a);
    assert_eq!(say(&mut h, a, "/fix"), ["You are not in a vehicle."]);
    let (v, id) = vehicle(&mut h, 411, Vec3::new(at.x + 3.0, at.y, at.z));
    let player = h.entity(a);
    let token = h.get::<dlmp::session::Player>(a).token;
    h.world_mut().write_message(SeatCommand::Put {
        player,
        token,
        vehicle: id,
        seat: 0,
    });
    h.step();
    report(&mut h, a, id, crash(), 0);
    assert_eq!(stored(&h, v), crash());
    assert_eq!(say(&mut h, a, "/fix"), ["Vehicle repaired."]);
    assert_eq!(
        (health(&h, v), stored(&h, v)),
        (1000.0, VehicleDamageStatus::INTACT)
    );
    assert_eq!(healths(&h, a), [(id.0, 0, 1000.0, 1)]);
    assert_eq!(remote(&h, a), [(id.0, 0, VehicleDamageStatus::INTACT, 1)]);
    assert_eq!(say(&mut h, a, "/fix now"), ["Usage: /fix"]);
    wreck(&mut h, v, true);
    assert_eq!(
        say(&mut h, a, "/fix"),
        [format!(
            "repair_vehicle: vehicle {} is a wreck (dlmp.respawn_vehicle brings it back)",
            id.0
        )]
    );
}
