//! vehicles.md VehicleRemote, VehicleRemoteExit, VehicleRemoteEnter and VehicleSyncer (the
//! RC driver as syncer) in the harness: every check of a grant failing on its own, the
//! range release at its edge, each automatic release, the F keys, the driver's frames
//! counted as driven, and the Lua functions and events (lua-api.md).

mod vehicle_support;
mod vframe_support;

use bevy_ecs::prelude::*;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ids::{EventId, VehicleId};
use dlmp::protocol::vehicle::life::VehicleSyncer;
use dlmp::protocol::vehicle::params::param;
use dlmp::protocol::vehicle::remote::{VehicleRemote, VehicleRemoteEnter, VehicleRemoteExit};
use dlmp::vehicle::frame::accept::VehicleFrameDrops;
use dlmp::vehicle::remote::{Release, RemoteCommand, RemoteRefusal, RemoteStats};
use dlmp::vehicle::{Params, Remote, ResetKind, VehicleReset, destroy_vehicle};
use dlmp_core::vehicle::{Life, Vehicles};
use vehicle_support::{at, entity, put, stand, vehicle, walk};
use vframe_support::{send_frame, state};

const BANDIT: u16 = 441;

/// A player standing at the origin with an RC Bandit 5 m away, shown to it.
fn scene() -> (Harness, ClientId, VehicleId) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    stand(&mut h, a, at(0.0));
    let rc = vehicle(&mut h, BANDIT, at(5.0));
    h.step();
    (h, a, rc)
}

fn command(h: &mut Harness, c: RemoteCommand) {
    h.world_mut().write_message(c);
    h.step();
}

/// The gamemode's grant (what `dlmp.set_remote_vehicle` queues), one tick.
fn grant(h: &mut Harness, c: ClientId, rc: VehicleId, detonation: bool) {
    let player = h.entity(c);
    let token = h.get::<dlmp::session::Player>(c).token;
    command(
        h,
        RemoteCommand::Set {
            player,
            token,
            vehicle: rc,
            detonation,
        },
    );
}

/// (vehicle, detonation) of every VehicleRemote the client got.
fn remotes(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<VehicleRemote>(c)
        .iter()
        .map(|r| (r.vehicle_id.0, r.detonation))
        .collect()
}

fn driver(h: &Harness, rc: VehicleId) -> Option<Entity> {
    h.world()
        .get::<Remote>(entity(h, rc))
        .map(|r| r.driver.entity)
}

fn refused(h: &Harness, why: RemoteRefusal) -> u64 {
    h.world()
        .resource::<RemoteStats>()
        .refused
        .get(&why)
        .copied()
        .unwrap_or(0)
}

fn released(h: &Harness, why: Release) -> u64 {
    h.world()
        .resource::<RemoteStats>()
        .released
        .get(&why)
        .copied()
        .unwrap_or(0)
}

const NONE: u32 = u32::MAX;

fn syncer_of(h: &Harness, rc: VehicleId) -> Option<Entity> {
    h.world()
        .get::<dlmp::vehicle::Syncer>(entity(h, rc))
        .and_then(|s| s.0)
        .map(|o| o.entity)
}

/// (vehicle, active) of every VehicleSyncer the client got.
fn syncers(h: &Harness, c: ClientId) -> Vec<(u32, bool)> {
    h.packets::<VehicleSyncer>(c)
        .iter()
        .map(|s| (s.vehicle_id.0, s.active))
        .collect()
}

#[test]
fn a_grant_goes_to_the_driver_only_and_makes_it_the_syncer() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    stand(&mut h, a, at(0.0));
    // Bob stands nearer to the RC and syncs it first.
    stand(&mut h, b, at(5.5));
    let rc = vehicle(&mut h, BANDIT, at(5.0));
    h.step();
    assert_eq!(syncer_of(&h, rc), Some(h.entity(b)));
    h.clear(a);
    h.clear(b);
    grant(&mut h, a, rc, false);
    assert_eq!(remotes(&h, a), [(rc.0, false)]);
    assert!(remotes(&h, b).is_empty(), "only to the player concerned");
    assert_eq!(driver(&h, rc), Some(h.entity(a)));
    assert_eq!(
        syncer_of(&h, rc),
        Some(h.entity(a)),
        "the remote driver syncs it"
    );
    assert_eq!(
        syncers(&h, a),
        [(rc.0, true)],
        "VehicleSyncer 1 on the wire"
    );
    assert_eq!(syncers(&h, b), [(rc.0, false)]);
    let order: Vec<&str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            dlmp::protocol::ServerPacket::VehicleRemote(_) => Some("remote"),
            dlmp::protocol::ServerPacket::VehicleSyncer(_) => Some("syncer"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["remote", "syncer"]);
}

#[test]
fn taking_an_rc_writes_remote_taken() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    let resets: Vec<VehicleReset> = h
        .world_mut()
        .resource_mut::<bevy_ecs::message::Messages<VehicleReset>>()
        .drain()
        .collect();
    assert!(
        resets
            .iter()
            .any(|r| r.id == rc && r.kind == ResetKind::RemoteTaken),
        "{resets:?}"
    );
}

#[test]
fn a_new_detonation_is_sent_again_and_the_same_one_is_not() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    grant(&mut h, a, rc, false);
    grant(&mut h, a, rc, true);
    assert_eq!(remotes(&h, a), [(rc.0, false), (rc.0, true)]);
    assert!(
        h.world()
            .get::<Remote>(entity(&h, rc))
            .is_some_and(|r| r.detonation)
    );
}

#[test]
fn a_grant_of_another_rc_lets_go_of_the_first() {
    let (mut h, a, rc) = scene();
    let other = vehicle(&mut h, 464, at(-5.0));
    h.step();
    grant(&mut h, a, rc, false);
    grant(&mut h, a, other, true);
    assert_eq!(
        remotes(&h, a),
        [(rc.0, false), (NONE, false), (other.0, true)]
    );
    assert_eq!(driver(&h, rc), None);
    assert_eq!(driver(&h, other), Some(h.entity(a)));
}

#[test]
fn a_grant_needs_an_rc_model() {
    let (mut h, a, _) = scene();
    let car = vehicle(&mut h, 411, at(-5.0));
    h.step();
    grant(&mut h, a, car, false);
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::NotRc), 1);
}

#[test]
fn a_grant_needs_a_living_player() {
    let (mut h, a, rc) = scene();
    h.die(a);
    grant(&mut h, a, rc, false);
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::NotAlive), 1);
}

#[test]
fn a_grant_needs_a_player_on_foot() {
    let (mut h, a, rc) = scene();
    let car = vehicle(&mut h, 411, at(2.0));
    h.step();
    put(&mut h, a, car, 0);
    grant(&mut h, a, rc, false);
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::Seated), 1);
}

#[test]
fn a_grant_needs_the_same_scope() {
    let (mut h, a, rc) = scene();
    h.set_scope(a, Some(3), None);
    grant(&mut h, a, rc, false);
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::OtherScope), 1);
}

#[test]
fn a_grant_needs_the_rc_streamed() {
    let (mut h, a, _) = scene();
    let far = vehicle(&mut h, BANDIT, at(400.0));
    h.step();
    grant(&mut h, a, far, false);
    assert!(remotes(&h, a).is_empty());
    assert_eq!(
        refused(&h, RemoteRefusal::NotStreamed),
        0,
        "it waits for a show"
    );
    h.advance(dlmp::vehicle::remote::STREAM_WAIT);
    h.step();
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::NotStreamed), 1);
}

#[test]
fn a_grant_is_refused_for_a_wreck() {
    let (mut h, a, rc) = scene();
    // The explosion feature's state (VehicleExplode), as it leaves a wreck.
    vehicle_support::with_vehicle::<Life>(&mut h, rc, |l| l.wrecked = true);
    grant(&mut h, a, rc, false);
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::Wrecked), 1);
}

#[test]
fn a_grant_is_refused_while_another_player_drives_it() {
    let (mut h, a, rc) = scene();
    let b = h.connect("bob");
    stand(&mut h, b, at(3.0));
    h.step();
    grant(&mut h, a, rc, false);
    grant(&mut h, b, rc, false);
    assert!(remotes(&h, b).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::Driven), 1);
    assert_eq!(driver(&h, rc), Some(h.entity(a)));
}

/// The RC's driver drives it to `x` a metre a tick (the pace of a toy car, which the
/// movement check admits), one frame a tick; the last at `x`. Leg `leg` of a test
/// numbers its frames after the earlier legs'.
fn drive_to(h: &mut Harness, c: ClientId, leg: u32, rc: VehicleId, x: f32) {
    let from = h
        .world()
        .get::<dlmp_core::vehicle::Pose>(entity(h, rc))
        .expect("a vehicle")
        .position
        .x;
    let steps = (x - from).abs().ceil().max(1.0) as u32;
    for step in 1..=steps {
        let here = from + (x - from) * step as f32 / steps as f32;
        send_frame(h, c, leg * 1000 + step, rc, state(at(here)));
        h.step();
    }
}

#[test]
fn the_rc_is_released_by_its_frame_beyond_the_range() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    drive_to(&mut h, a, 1, rc, 149.0);
    assert_eq!(driver(&h, rc), Some(h.entity(a)), "149 m of 150: kept");
    drive_to(&mut h, a, 2, rc, 150.0);
    assert_eq!(driver(&h, rc), Some(h.entity(a)), "at the edge: kept");
    drive_to(&mut h, a, 3, rc, 151.0);
    assert_eq!(driver(&h, rc), None, "151 m: released");
    assert_eq!(
        syncers(&h, a),
        [(rc.0, true), (rc.0, false)],
        "released 151 m away, beyond the 130 m a bystander syncs"
    );
    assert_eq!(remotes(&h, a), [(rc.0, false), (NONE, false)]);
    assert_eq!(released(&h, Release::Range), 1);
}

#[test]
fn the_range_follows_set_rc_range_and_the_body() {
    let (mut h, a, rc) = scene();
    command(&mut h, RemoteCommand::Range(100.0));
    grant(&mut h, a, rc, false);
    drive_to(&mut h, a, 1, rc, 99.0);
    assert_eq!(driver(&h, rc), Some(h.entity(a)));
    // The body walks away from the RC.
    walk(&mut h, a, at(-2.0));
    h.step();
    assert_eq!(driver(&h, rc), None, "101 m from the body");
    assert_eq!(released(&h, Release::Range), 1);
}

#[test]
fn the_drivers_frames_count_as_driven() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    // Ten frames at once: within a driven burst (15.5), past a synced one (5.25).
    for seq in 1..=10 {
        send_frame(&mut h, a, seq, rc, state(at(6.0)));
    }
    h.step();
    let drops = *h.world().resource::<VehicleFrameDrops>();
    assert_eq!((drops.rate_synced, drops.rate_driven), (0, 0));
    assert_eq!(drops.accepted, 10);
}

#[test]
fn death_releases_the_rc() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    h.die(a);
    h.step();
    assert_eq!(driver(&h, rc), None);
    assert_eq!(remotes(&h, a), [(rc.0, false), (NONE, false)]);
    assert_eq!(released(&h, Release::Death), 1);
}

#[test]
fn a_scope_change_releases_the_rc() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    h.set_scope(a, Some(2), None);
    h.step();
    assert_eq!(driver(&h, rc), None);
    assert_eq!(released(&h, Release::Scope), 1);
}

#[test]
fn getting_into_a_vehicle_releases_the_rc() {
    let (mut h, a, rc) = scene();
    let car = vehicle(&mut h, 411, at(2.0));
    h.step();
    grant(&mut h, a, rc, false);
    put(&mut h, a, car, 0);
    assert_eq!(driver(&h, rc), None);
    assert_eq!(remotes(&h, a), [(rc.0, false), (NONE, false)]);
    assert_eq!(released(&h, Release::Seated), 1);
}

#[test]
fn the_rcs_explosion_and_respawn_release_it() {
    for (kind, why) in [
        (ResetKind::Wrecked, Release::Wrecked),
        (ResetKind::Respawned, Release::Respawned),
    ] {
        let (mut h, a, rc) = scene();
        grant(&mut h, a, rc, true);
        // What the explosion and respawn features write (reset.rs).
        let vehicle = entity(&h, rc);
        h.world_mut().write_message(VehicleReset {
            vehicle,
            id: rc,
            kind,
        });
        h.step();
        assert_eq!(driver(&h, rc), None, "{kind:?}");
        assert_eq!(remotes(&h, a), [(rc.0, true), (NONE, false)]);
        assert_eq!(released(&h, why), 1);
    }
}

#[test]
fn a_transform_does_not_release_the_rc() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    let vehicle = entity(&h, rc);
    h.world_mut().write_message(VehicleReset {
        vehicle,
        id: rc,
        kind: ResetKind::Transformed,
    });
    h.step();
    assert_eq!(driver(&h, rc), Some(h.entity(a)));
}

#[test]
fn removal_releases_the_rc() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    destroy_vehicle(h.world_mut(), rc).expect("exists");
    h.steps(2);
    assert_eq!(remotes(&h, a), [(rc.0, false), (NONE, false)]);
    assert_eq!(released(&h, Release::Removed), 1);
    assert!(h.world().resource::<Vehicles>().entity(rc).is_none());
}

#[test]
fn remove_remote_vehicle_releases_the_rc() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    let player = h.entity(a);
    let token = h.get::<dlmp::session::Player>(a).token;
    command(&mut h, RemoteCommand::Remove { player, token });
    assert_eq!(driver(&h, rc), None);
    assert_eq!(remotes(&h, a), [(rc.0, false), (NONE, false)]);
    assert_eq!(released(&h, Release::Gamemode), 1);
}

fn remote_exit(h: &mut Harness, c: ClientId, rc: VehicleId) -> EventId {
    let packet = VehicleRemoteExit {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: rc,
    };
    let e = h.send_event(c, packet);
    h.step();
    e
}

fn remote_enter(h: &mut Harness, c: ClientId, rc: VehicleId) {
    let packet = VehicleRemoteEnter {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: rc,
    };
    h.send_event(c, packet);
    h.step();
}

#[test]
fn the_exit_key_releases_only_the_exact_rc() {
    let (mut h, a, rc) = scene();
    let other = vehicle(&mut h, 464, at(-5.0));
    h.step();
    grant(&mut h, a, rc, false);
    remote_exit(&mut h, a, other);
    assert_eq!(driver(&h, rc), Some(h.entity(a)), "another RC: a no-op");
    remote_exit(&mut h, a, rc);
    assert_eq!(driver(&h, rc), None);
    remote_exit(&mut h, a, rc);
    assert_eq!(remotes(&h, a), [(rc.0, false), (NONE, false)]);
    assert_eq!(released(&h, Release::Exit), 1);
    assert_eq!(h.world().resource::<RemoteStats>().stray_exits, 2);
}

#[test]
fn the_enter_key_takes_an_rc_within_10_m() {
    let (mut h, a, rc) = scene();
    walk(&mut h, a, at(-5.0));
    h.step();
    remote_enter(&mut h, a, rc);
    assert_eq!(driver(&h, rc), Some(h.entity(a)), "10 m");
    assert_eq!(remotes(&h, a), [(rc.0, false)]);
}

#[test]
fn the_enter_key_beyond_10_m_is_refused() {
    let (mut h, a, rc) = scene();
    walk(&mut h, a, at(-5.5));
    h.step();
    remote_enter(&mut h, a, rc);
    assert_eq!(driver(&h, rc), None);
    assert!(remotes(&h, a).is_empty(), "a refusal is only the ack");
    assert_eq!(refused(&h, RemoteRefusal::TooFar), 1);
}

#[test]
fn the_enter_key_needs_an_unlocked_rc() {
    let (mut h, a, rc) = scene();
    // The lock as `dlmp.set_vehicle_locked` keeps it (VehicleParams bit2).
    vehicle_support::with_vehicle::<Params>(&mut h, rc, |p| p.bits |= param::LOCKED);
    remote_enter(&mut h, a, rc);
    assert_eq!(driver(&h, rc), None);
    assert_eq!(refused(&h, RemoteRefusal::Locked), 1);
}

#[test]
fn the_enter_key_needs_an_unfrozen_player() {
    let (mut h, a, rc) = scene();
    h.freeze(a, true);
    remote_enter(&mut h, a, rc);
    assert_eq!(driver(&h, rc), None);
    assert_eq!(refused(&h, RemoteRefusal::Frozen), 1);
}

#[test]
fn the_enter_key_needs_a_player_driving_no_rc() {
    let (mut h, a, rc) = scene();
    let other = vehicle(&mut h, 464, at(-5.0));
    h.step();
    grant(&mut h, a, other, false);
    remote_enter(&mut h, a, rc);
    assert_eq!(driver(&h, rc), None);
    assert_eq!(driver(&h, other), Some(h.entity(a)));
    assert_eq!(refused(&h, RemoteRefusal::DrivesRc), 1);
}

/// vehicles.md VehicleRemoteEnter: "the sender drives no RC (exit first)" — the RC it
/// drives included: the key on it again is refused, nothing is granted anew.
#[test]
fn the_enter_key_on_the_rc_the_sender_drives_is_refused() {
    let (mut h, a, rc) = scene();
    grant(&mut h, a, rc, false);
    assert_eq!(driver(&h, rc), Some(h.entity(a)));
    let granted = h.packets::<VehicleRemote>(a).len();
    remote_enter(&mut h, a, rc);
    assert_eq!(refused(&h, RemoteRefusal::DrivesRc), 1);
    assert_eq!(driver(&h, rc), Some(h.entity(a)), "still driving it");
    assert_eq!(h.packets::<VehicleRemote>(a).len(), granted, "no new grant");
}

#[test]
fn the_enter_key_checks_what_a_grant_checks() {
    let (mut h, a, rc) = scene();
    let b = h.connect("bob");
    stand(&mut h, b, at(3.0));
    h.step();
    grant(&mut h, b, rc, false);
    remote_enter(&mut h, a, rc);
    assert_eq!(refused(&h, RemoteRefusal::Driven), 1);
    h.die(a);
    remote_enter(&mut h, a, rc);
    assert_eq!(refused(&h, RemoteRefusal::NotAlive), 1);
    assert_eq!(driver(&h, rc), Some(h.entity(b)));
}

#[test]
fn the_enter_key_shares_the_vehicle_event_limit() {
    let (mut h, a, rc) = scene();
    let other = vehicle(&mut h, 464, at(4.0));
    h.step();
    // 30 at once: the burst is spent by exits of an RC nobody drives.
    for _ in 0..30 {
        let packet = VehicleRemoteExit {
            session_token: h.token(a),
            event_id: EventId(0),
            vehicle_id: other,
        };
        h.send_event(a, packet);
    }
    h.step();
    remote_enter(&mut h, a, rc);
    assert_eq!(driver(&h, rc), None, "past the limit: dropped");
}

fn script_scene(name: &str, code: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(name);
    s.resource("gm", code);
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, at(0.0));
    h.step();
    (s, h, a)
}

const RC_GAMEMODE: &str = r#"
    rc = dlmp.create_vehicle(441, 5, 0, 3, 0)
    car = dlmp.create_vehicle(411, 40, 0, 3, 0)
    refuse = false
    dlmp.on("player_remote_enter", function(p, v)
        dlmp.send_chat("enter " .. v:id(), nil, {p})
        if refuse then return false end
    end)
    dlmp.on("player_remote_exit", function(p, v, how)
        dlmp.send_chat("exit " .. v:id() .. " " .. how, nil, {p})
    end)
    dlmp.on("player_command", function(p, name)
        if name == "take" then dlmp.set_remote_vehicle(p, rc, true) return true end
        if name == "drop" then dlmp.remove_remote_vehicle(p) return true end
        if name == "refuse" then refuse = true return true end
        if name == "car" then
            local ok, err = pcall(dlmp.set_remote_vehicle, p, car)
            dlmp.send_chat(tostring(ok) .. " " .. string.sub(tostring(err), 1, 100), nil, {p})
            return true
        end
        if name == "range" then
            local ok = pcall(dlmp.set_rc_range, 181)
            dlmp.set_rc_range(120)
            dlmp.send_chat("range " .. dlmp.rc_range() .. " " .. tostring(ok), nil, {p})
            return true
        end
    end)
"#;

fn lines(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
        .into_iter()
        .filter(|l| !l.starts_with('*'))
        .collect()
}

#[test]
fn lua_grants_and_removes_and_hears_the_exit_key() {
    let (_s, mut h, a) = script_scene("rc_lua", RC_GAMEMODE);
    h.chat(a, "/take");
    h.steps(2);
    assert_eq!(remotes(&h, a), [(1, true)]);
    remote_exit(&mut h, a, VehicleId(1));
    h.step();
    assert_eq!(remotes(&h, a), [(1, true), (NONE, false)]);
    assert_eq!(lines(&h, a), ["exit 1 exit"]);
    h.chat(a, "/take");
    h.steps(2);
    h.chat(a, "/drop");
    h.steps(2);
    assert_eq!(
        remotes(&h, a),
        [(1, true), (NONE, false), (1, true), (NONE, false)]
    );
    assert_eq!(
        lines(&h, a),
        ["exit 1 exit"],
        "the gamemode's release raises nothing"
    );
}

#[test]
fn lua_hears_the_range_release() {
    let (_s, mut h, a) = script_scene("rc_lua_range", RC_GAMEMODE);
    h.chat(a, "/take");
    h.steps(2);
    drive_to(&mut h, a, 1, VehicleId(1), 151.0);
    h.step();
    assert_eq!(lines(&h, a), ["exit 1 range"]);
}

#[test]
fn lua_errors_name_the_check_and_the_range_is_bounded() {
    let (_s, mut h, a) = script_scene("rc_lua_err", RC_GAMEMODE);
    h.chat(a, "/car");
    h.step();
    h.chat(a, "/range");
    h.step();
    let got = lines(&h, a);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].starts_with("false ") && got[0].contains("not remote-controlled"),
        "{got:?}"
    );
    assert_eq!(got[1], "range 120.0 false");
}

#[test]
fn player_remote_enter_may_refuse_and_the_refusal_is_only_the_ack() {
    let (_s, mut h, a) = script_scene("rc_lua_enter", RC_GAMEMODE);
    h.chat(a, "/refuse");
    h.step();
    remote_enter(&mut h, a, VehicleId(1));
    h.step();
    assert!(remotes(&h, a).is_empty());
    assert_eq!(refused(&h, RemoteRefusal::Refused), 1);
    assert_eq!(lines(&h, a), ["enter 1"]);
}

#[test]
fn player_remote_enter_lets_the_rc_go_to_the_player() {
    let (_s, mut h, a) = script_scene("rc_lua_enter_ok", RC_GAMEMODE);
    remote_enter(&mut h, a, VehicleId(1));
    assert_eq!(remotes(&h, a), [(1, false)]);
    assert_eq!(lines(&h, a), ["enter 1"]);
}

#[test]
fn freeroam_rc_spawns_an_rc_bandit_and_hands_it_over() {
    let mut h = Harness::with_config(dlmp::config::Config {
        scripts: "scripts".into(),
        resources: vec!["freeroam".into()],
        ..Harness::config()
    });
    let a = h.connect("alice");
    h.steps(2);
    h.request_spawn(a);
    h.steps(4);
    h.live(a);
    h.chat(a, "/rc 411");
    h.steps(2);
    assert!(
        h.chat_lines(a).iter().any(|l| l == "Usage: /rc [model]"),
        "{:?}",
        h.chat_lines(a)
    );
    h.chat(a, "/rc");
    h.advance(std::time::Duration::from_millis(400));
    let got = remotes(&h, a);
    assert_eq!(got.len(), 1, "{:?}", h.chat_lines(a));
    assert!(got[0].1, "an RC Bandit blows up on the fire key");
    let rc = VehicleId(got[0].0);
    let model = h
        .world()
        .get::<dlmp::vehicle::Vehicle>(entity(&h, rc))
        .expect("a vehicle")
        .model;
    assert_eq!(model, BANDIT);
    assert!(
        h.chat_lines(a)
            .iter()
            .any(|l| l.starts_with("You drive RC 441."))
    );
}

/// lua-api.md's example of `dlmp.set_remote_vehicle`, as written: an RC created and given
/// in one call works — the grant waits for the RC's show (vehicles.md VehicleRemote: "the
/// RC streamed") and follows it on the lane; one that is never shown to the player is
/// refused after [`dlmp::vehicle::remote::STREAM_WAIT`].
#[test]
fn the_docs_example_gives_an_rc_made_in_the_same_call() {
    let (_s, mut h, a) = script_scene(
        "rc_docs_example",
        r#"
        dlmp.on("player_command", function(player, name)
            local x, y, z = player:position()
            if name == "far" then x = x + 3000 end
            local rc = dlmp.create_vehicle(441, x + 3, y, z, 0)
            dlmp.set_remote_vehicle(player, rc, true)
            return true
        end)
        "#,
    );
    h.clear(a);
    h.chat(a, "/rc");
    h.steps(3);
    let rc = VehicleId(1);
    assert_eq!(driver(&h, rc), Some(h.entity(a)));
    let order: Vec<&str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            dlmp::protocol::ServerPacket::VehicleSync(s) if s.vehicle_id == rc && s.active => {
                Some("show")
            }
            dlmp::protocol::ServerPacket::VehicleRemote(r) if r.vehicle_id == rc => Some("remote"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["show", "remote"], "the grant follows the show");
    let granted = h.packets::<VehicleRemote>(a);
    assert!(granted.last().is_some_and(|r| r.detonation));
    // 3 km away the RC is never shown: refused once the wait is over, nothing sent.
    h.chat(a, "/far");
    h.advance(std::time::Duration::from_millis(1500));
    assert_eq!(driver(&h, VehicleId(2)), None);
    assert_eq!(refused(&h, RemoteRefusal::NotStreamed), 1);
    assert_eq!(driver(&h, rc), Some(h.entity(a)), "the first RC stays");
}
