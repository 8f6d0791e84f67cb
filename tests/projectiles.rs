//! weapons.md §2, ProjectileCreate on foot, through bytes in the harness at the default
//! tick: an accepted launch spends one round of the server's inventory and goes as
//! RemoteProjectileCreate to the players the launcher is shown to (never to the launcher),
//! in acceptance order; each admission rule alone refuses it, counted by its reason in the
//! launch stats (console `stats`), with no round spent and nothing relayed; the weapon
//! event limit takes its token before any other check; a heat-seeker keeps only a target it
//! may lock on. Satchels (§3): the latch (at most 8; the detonator with it; cleared by a
//! detonation, a scope change and a death), SatchelDetonate checked against it, and
//! RemoteSatchelDetonate with the positions near a thrown satchel.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::lane::Delivery;
use dlmp::player::weapons::actions::ActionLog;
use dlmp::player::weapons::launch::{LaunchDrop, LaunchStats};
use dlmp::player::weapons::satchel::{DetonationDrop, DetonationStats};
use dlmp::player::{DeathEpoch, Inventory, LastFrame};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, VehicleEpoch, VehicleId};
use dlmp::protocol::player::life::DeathPose;
use dlmp::protocol::player::streaming::ScopeChanged;
use dlmp::protocol::player::sync::{Frame, PlayerSync};
use dlmp::protocol::weapons::projectile::{
    Launch, ProjectileCreate, ProjectileWeapon, RemoteProjectileCreate,
};
use dlmp::protocol::weapons::satchel::{RemoteSatchelDetonate, SatchelDetonate};
use dlmp::session::Connection;
use dlmp_core::vehicle::Vehicles;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);

const SETUP: &str = r#"
dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
dlmp.add_command("freeze", function(p) p:set_frozen(true) end)
dlmp.add_command("look_at_other", function(p)
    for _, other in ipairs(dlmp.players()) do
        if other:id() ~= p:id() then p:spectate(other) end
    end
end)
dlmp.add_command("fixed", function(p) p:set_camera_fixed(100, 190, 20, 100, 200, 10) end)
dlmp.add_command("own", function(p) p:reset_camera() end)
dlmp.add_command("drive", function(p, args)
    local v = dlmp.create_vehicle(tonumber(args[1]), 103, 200, 10, 0)
    dlmp.put_player_in_vehicle(p, v, 0)
end)
dlmp.add_command("refuse", function(p) REFUSE = true end)
dlmp.on("player_satchel_detonate", function(p, n)
    dlmp.send_chat("boom " .. n, nil, { p })
    if REFUSE then return false end
end)
dlmp.add_command("satchels", function(p) dlmp.send_chat(tostring(p:satchels()), nil, { p }) end)
dlmp.add_command("watch", function(p) WATCH = true end)
dlmp.add_command("norockets", function(p) NO_ROCKETS = true end)
dlmp.add_command("car", function(p, args)
    local v = dlmp.create_vehicle(411, tonumber(args[1]), tonumber(args[2]), 10, 0)
end)
dlmp.on("player_projectile", function(p, pr)
    if WATCH then
        local v = pr.vehicle and pr.vehicle:id() or "nil"
        local t = pr.target and pr.target:id() or "nil"
        dlmp.send_chat(string.format("launch %d %s %s %.1f %.1f %.1f %.1f", pr.weapon, v, t,
            pr.x, pr.y, pr.vy, pr.vz), nil, { p })
    end
    if NO_ROCKETS and pr.weapon ~= 16 then return false end
end)
dlmp.add_command("world", function(p, args) p:set_virtual_world(tonumber(args[1])) end)
"#;

/// Alice and Bob at [`SPAWN`], each shown to the other, with the gamemode's `/give`.
fn two(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", SETUP);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(SPAWN);
    (scripts, h, a, b)
}

/// The next frame of `c` at `at` arming `weapon` by its inventory (the echo of its
/// weapon_rev), and one tick.
fn frame_arming(h: &mut Harness, c: ClientId, weapon: u8, at: Vec3) {
    let inv = h.get::<Inventory>(c);
    let seq = h.get::<LastFrame>(c).seq.map_or(1, |s| s.0 + 1);
    let total = inv.ammo[usize::from(weapon)];
    let frame = Frame {
        death_epoch: h.get::<DeathEpoch>(c).0,
        weapon,
        clip: total.min(1),
        total,
        weapon_rev: inv.weapon_rev,
        ..Frame::standing(at)
    };
    h.sync(c, seq, frame);
}

/// The gamemode gives `c` the `weapon` with `ammo`, and its game arms it.
fn arm(h: &mut Harness, c: ClientId, weapon: u8, ammo: u16) {
    h.advance(Duration::from_secs(1));
    h.chat(c, &format!("/give {weapon} {ammo}"));
    h.steps(2);
    frame_arming(h, c, weapon, SPAWN);
    h.clear(c);
}

/// The last event the server queued to `c`: what its client has applied at most.
fn seen(h: &Harness, c: ClientId) -> EventId {
    h.world()
        .get::<Connection>(h.entity(c))
        .expect("connected")
        .last_queued()
}

fn launch(weapon: ProjectileWeapon) -> Launch {
    Launch {
        weapon,
        vehicle_id: VehicleId::NONE,
        origin: Vec3::new(SPAWN.x + 0.5, SPAWN.y, SPAWN.z + 1.0),
        velocity: Vec3::new(0.5, 0.5, 0.25),
        target_id: VehicleId::NONE,
        target_epoch: VehicleEpoch(0),
    }
}

/// `c` launches `l` as its client would, seeing everything the server sent, and one tick.
fn send(h: &mut Harness, c: ClientId, l: Launch) {
    let p = ProjectileCreate {
        session_token: h.token(c),
        event_id: EventId(0),
        seen_event: seen(h, c),
        launch: l,
    };
    h.send_event(c, p);
    h.step();
}

fn relayed(h: &Harness, c: ClientId) -> Vec<RemoteProjectileCreate> {
    h.packets::<RemoteProjectileCreate>(c)
}

fn stats(h: &Harness) -> LaunchStats {
    h.world().resource::<LaunchStats>().clone()
}

fn ammo(h: &Harness, c: ClientId, weapon: u8) -> u16 {
    h.get::<Inventory>(c).ammo[usize::from(weapon)]
}

#[test]
fn an_accepted_throw_spends_a_round_and_reaches_the_viewers_not_the_launcher() {
    let (_s, mut h, a, b) = two("pj-accept");
    arm(&mut h, a, 16, 3);
    h.clear(b);
    let l = launch(ProjectileWeapon::Grenade);
    send(&mut h, a, l);
    assert_eq!(ammo(&h, a, 16), 2);
    let got = relayed(&h, b);
    assert_eq!(got.len(), 1);
    let r = &got[0];
    assert_eq!(
        (r.id, r.player_token),
        (h.player_id(a), h.get::<dlmp::session::Player>(a).token)
    );
    assert_eq!(r.launch, l);
    assert_eq!(relayed(&h, a), [], "no echo to the launcher");
    assert_eq!(stats(&h).accepted, 1);
}

#[test]
fn every_projectile_is_launched_by_its_weapon_of_the_table() {
    let (_s, mut h, a, b) = two("pj-table");
    for (projectile, weapon) in [
        (ProjectileWeapon::Grenade, 16),
        (ProjectileWeapon::Teargas, 17),
        (ProjectileWeapon::Molotov, 18),
        (ProjectileWeapon::Rocket, 35),
        (ProjectileWeapon::HeatSeeker, 36),
        (ProjectileWeapon::Satchel, 39),
    ] {
        arm(&mut h, a, weapon, 1);
        h.clear(b);
        send(&mut h, a, launch(projectile));
        assert_eq!(ammo(&h, a, weapon), 0, "{projectile:?}");
        let got = relayed(&h, b);
        assert_eq!(got.len(), 1, "{projectile:?}");
        assert_eq!(got[0].launch.weapon, projectile);
    }
    assert_eq!(stats(&h).accepted, 6);
}

/// `a` armed with 3 grenades, `b` watching; `l` as changed by `change` is refused for
/// `why`: no round spent, nothing relayed, the drop counted.
#[track_caller]
fn assert_refused(h: &mut Harness, a: ClientId, b: ClientId, l: Launch, why: LaunchDrop) {
    let before = (stats(h), ammo(h, a, 16));
    h.clear(b);
    send(h, a, l);
    let after = stats(h);
    assert_eq!(
        after.drops(why),
        before.0.drops(why) + 1,
        "{why:?}: {after:?}"
    );
    assert_eq!(after.accepted, before.0.accepted, "{why:?}");
    assert_eq!(ammo(h, a, 16), before.1, "{why:?}: no round spent");
    assert_eq!(relayed(h, b), [], "{why:?}: nothing relayed");
}

#[test]
fn a_launch_of_a_weapon_not_armed_not_held_or_empty_is_refused() {
    let (_s, mut h, a, b) = two("pj-armed");
    arm(&mut h, a, 16, 1);
    // A molotov while the grenade is armed, and none held.
    assert_refused(
        &mut h,
        a,
        b,
        launch(ProjectileWeapon::Molotov),
        LaunchDrop::NotArmed,
    );
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(ammo(&h, a, 16), 0);
    h.advance(Duration::from_secs(1));
    assert_refused(
        &mut h,
        a,
        b,
        launch(ProjectileWeapon::Grenade),
        LaunchDrop::NoAmmo,
    );
}

#[test]
fn a_weapon_armed_by_a_frame_of_the_last_500_ms_may_launch_and_an_older_one_not() {
    let (_s, mut h, a, b) = two("pj-window");
    arm(&mut h, a, 18, 2);
    arm(&mut h, a, 16, 2);
    // The molotov armed, then the grenade: the launch overtook nothing, the frame that
    // shows the switch came first.
    frame_arming(&mut h, a, 18, SPAWN);
    frame_arming(&mut h, a, 16, SPAWN);
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Molotov));
    assert_eq!(relayed(&h, b).len(), 1, "armed 2 ticks ago");
    assert_eq!(ammo(&h, a, 18), 1);
    // 600 ms of grenade frames later the molotov is no longer armed.
    h.advance(Duration::from_millis(600));
    frame_arming(&mut h, a, 16, SPAWN);
    assert_refused(
        &mut h,
        a,
        b,
        launch(ProjectileWeapon::Molotov),
        LaunchDrop::NotArmed,
    );
    assert_eq!(ammo(&h, a, 18), 1);
}

#[test]
fn a_launch_from_6_m_away_or_too_fast_for_the_body_is_refused() {
    let (_s, mut h, a, b) = two("pj-place");
    arm(&mut h, a, 16, 3);
    let mut far = launch(ProjectileWeapon::Grenade);
    far.origin = Vec3::new(SPAWN.x + 6.0, SPAWN.y, SPAWN.z);
    assert_refused(&mut h, a, b, far, LaunchDrop::Origin);
    let mut fast = launch(ProjectileWeapon::Grenade);
    fast.velocity = Vec3::new(1.1, 0.0, 0.0);
    assert_refused(&mut h, a, b, fast, LaunchDrop::Velocity);
    // At the edges: 5 m away, 1.0 faster than the standing body.
    let mut edge = launch(ProjectileWeapon::Grenade);
    edge.origin = Vec3::new(SPAWN.x + 5.0, SPAWN.y, SPAWN.z);
    edge.velocity = Vec3::new(1.0, 0.0, 0.0);
    h.clear(b);
    send(&mut h, a, edge);
    assert_eq!(relayed(&h, b).len(), 1);
}

#[test]
fn a_second_launch_within_half_the_game_interval_is_refused() {
    let (_s, mut h, a, b) = two("pj-interval");
    arm(&mut h, a, 16, 3);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    h.advance(Duration::from_millis(400));
    assert_refused(
        &mut h,
        a,
        b,
        launch(ProjectileWeapon::Grenade),
        LaunchDrop::Interval,
    );
    h.advance(Duration::from_millis(100));
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(relayed(&h, b).len(), 1, "500 ms after the first");
}

#[test]
fn a_frozen_or_dead_launcher_is_refused() {
    let (_s, mut h, a, b) = two("pj-control");
    arm(&mut h, a, 16, 3);
    h.freeze(a, true);
    assert_refused(
        &mut h,
        a,
        b,
        launch(ProjectileWeapon::Grenade),
        LaunchDrop::NotInControl,
    );
    h.freeze(a, false);
    h.die(a);
    assert_refused(
        &mut h,
        a,
        b,
        launch(ProjectileWeapon::Grenade),
        LaunchDrop::NotInControl,
    );
}

/// player.md SetCamera: "While the camera is not its own, the player has no control
/// (SetFrozen)"; weapons.md §2 drops a launch of a player without control.
#[test]
fn a_launcher_watching_through_another_camera_is_refused() {
    let (_s, mut h, a, b) = two("pj-camera");
    arm(&mut h, a, 16, 3);
    for camera in ["/look_at_other", "/fixed"] {
        // Commands a second apart, within the chat's rate.
        h.advance(Duration::from_secs(1));
        h.chat(a, camera);
        h.steps(2);
        assert_refused(
            &mut h,
            a,
            b,
            launch(ProjectileWeapon::Grenade),
            LaunchDrop::NotInControl,
        );
        h.advance(Duration::from_secs(1));
        h.chat(a, "/own");
        h.steps(2);
    }
    h.advance(Duration::from_secs(1));
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(relayed(&h, b).len(), 1, "its own camera again");
}

#[test]
fn a_launch_made_before_the_last_scope_change_or_naming_an_unsent_event_is_refused() {
    let (_s, mut h, a, b) = two("pj-scope");
    arm(&mut h, a, 16, 3);
    let before = seen(&h, a);
    h.set_scope(a, Some(0), Some(1));
    h.set_scope(a, Some(0), Some(0));
    frame_arming(&mut h, a, 16, SPAWN);
    h.steps(2);
    let barrier = h
        .world()
        .get::<Connection>(h.entity(a))
        .and_then(Connection::scope_barrier)
        .expect("a ScopeChanged went out");
    for (seen_event, why) in [
        (before, "older than the ScopeChanged"),
        (EventId(seen(&h, a).0 + 1), "never sent"),
    ] {
        let drops = stats(&h).drops(LaunchDrop::Scope);
        h.clear(b);
        h.advance(Duration::from_secs(1));
        h.send_event(
            a,
            ProjectileCreate {
                session_token: h.token(a),
                event_id: EventId(0),
                seen_event,
                launch: launch(ProjectileWeapon::Grenade),
            },
        );
        h.step();
        assert_eq!(stats(&h).drops(LaunchDrop::Scope), drops + 1, "{why}");
        assert_eq!(relayed(&h, b), [], "{why}");
    }
    // seen_event equal to the ScopeChanged's id: launched in the new scope.
    h.clear(b);
    h.send_event(
        a,
        ProjectileCreate {
            session_token: h.token(a),
            event_id: EventId(0),
            seen_event: barrier,
            launch: launch(ProjectileWeapon::Grenade),
        },
    );
    h.step();
    assert_eq!(relayed(&h, b).len(), 1);
}

#[test]
fn a_flood_of_launches_is_limited_to_8_at_once_then_4_a_second_each_taking_a_token() {
    let (_s, mut h, a, b) = two("pj-flood");
    arm(&mut h, a, 16, 100);
    h.clear(b);
    // 20 launches in one tick: every one takes a token, accepted or not.
    for _ in 0..20 {
        let p = ProjectileCreate {
            session_token: h.token(a),
            event_id: EventId(0),
            seen_event: seen(&h, a),
            launch: launch(ProjectileWeapon::Grenade),
        };
        h.send_event(a, p);
    }
    h.step();
    let s = stats(&h);
    assert_eq!(
        s.accepted, 1,
        "the interval refuses the other 7 with a token"
    );
    assert_eq!(s.drops(LaunchDrop::Interval), 7);
    assert_eq!(s.drops(LaunchDrop::Limit), 12);
    assert_eq!(relayed(&h, b).len(), 1);
    assert_eq!(ammo(&h, a, 16), 99);
    // The bucket refills 4 a second: 250 ms later, one more passes the limit.
    h.advance(Duration::from_millis(600));
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(relayed(&h, b).len(), 1);
    // Frames, chat and the lane were not disturbed.
    frame_arming(&mut h, a, 16, SPAWN);
    assert_eq!(h.get::<LastFrame>(a).frame.map(|f| f.weapon), Some(16));
}

#[test]
fn a_player_not_shown_the_launcher_gets_nothing() {
    let (_s, mut h, a, b) = two("pj-viewers");
    arm(&mut h, a, 16, 3);
    h.teleport(b, Vec3::new(SPAWN.x + 1000.0, SPAWN.y, SPAWN.z));
    h.live(b);
    h.steps(2);
    assert!(!h.is_shown(a, b), "1 km apart");
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(stats(&h).accepted, 1);
    assert_eq!(relayed(&h, b), []);
}

#[test]
fn a_heat_seeker_without_a_target_it_may_lock_on_flies_straight() {
    let (_s, mut h, a, b) = two("pj-target");
    arm(&mut h, a, 36, 2);
    h.clear(b);
    let mut l = launch(ProjectileWeapon::HeatSeeker);
    l.velocity = Vec3::new(2.0, 0.0, 0.0);
    l.target_id = VehicleId(77);
    l.target_epoch = VehicleEpoch(1);
    send(&mut h, a, l);
    let got = relayed(&h, b);
    assert_eq!(got.len(), 1, "the rocket flies already");
    assert_eq!(
        (got[0].launch.target_id, got[0].launch.target_epoch),
        (VehicleId::NONE, VehicleEpoch(0))
    );
}

/// `a` drives a new vehicle of `model` at (103, 200, 10); its id.
fn drive(h: &mut Harness, a: ClientId, model: u16) -> VehicleId {
    h.advance(Duration::from_secs(1));
    h.chat(a, &format!("/drive {model}"));
    h.steps(20);
    let seat = h.get::<dlmp_core::vehicle::Seated>(a);
    assert_eq!(seat.seat, 0, "the driver");
    h.clear(a);
    seat.id
}

/// A rocket of `weapon` from vehicle `v`, at it, 2.0 faster than it.
fn rocket(weapon: ProjectileWeapon, v: VehicleId) -> Launch {
    Launch {
        vehicle_id: v,
        origin: Vec3::new(103.0, 205.0, 11.0),
        velocity: Vec3::new(0.0, 2.0, 0.0),
        ..launch(weapon)
    }
}

#[test]
fn a_hydras_driver_fires_rockets_and_heat_seekers_without_a_round_every_250_ms() {
    let (_s, mut h, a, b) = two("pj-hydra");
    let v = drive(&mut h, a, 520);
    h.clear(b);
    send(&mut h, a, rocket(ProjectileWeapon::HeatSeeker, v));
    send(&mut h, a, rocket(ProjectileWeapon::Rocket, v));
    let got = relayed(&h, b);
    assert_eq!(got.len(), 2, "{:?}", stats(&h));
    assert!(got.iter().all(|r| r.launch.vehicle_id == v));
    assert_eq!(
        [got[0].launch.weapon, got[1].launch.weapon],
        [ProjectileWeapon::HeatSeeker, ProjectileWeapon::Rocket]
    );
    // 200 ms later the same weapon of the same vehicle is too early, 260 ms later not.
    h.advance(Duration::from_millis(180));
    let before = stats(&h).drops(LaunchDrop::Interval);
    send(&mut h, a, rocket(ProjectileWeapon::Rocket, v));
    assert_eq!(stats(&h).drops(LaunchDrop::Interval), before + 1);
    h.advance(Duration::from_millis(40));
    h.clear(b);
    send(&mut h, a, rocket(ProjectileWeapon::Rocket, v));
    assert_eq!(relayed(&h, b).len(), 1);
}

#[test]
fn a_rocket_of_a_model_without_it_of_a_passenger_or_far_from_the_vehicle_is_refused() {
    let (_s, mut h, a, b) = two("pj-models");
    let hunter = drive(&mut h, a, 425);
    h.clear(b);
    send(&mut h, a, rocket(ProjectileWeapon::HeatSeeker, hunter));
    assert_eq!(
        stats(&h).drops(LaunchDrop::NoLauncher),
        1,
        "the Hunter has no heat-seeker"
    );
    send(&mut h, a, rocket(ProjectileWeapon::Rocket, hunter));
    assert_eq!(relayed(&h, b).len(), 1, "but rockets");
    let car = drive(&mut h, a, 411);
    send(&mut h, a, rocket(ProjectileWeapon::Rocket, car));
    assert_eq!(stats(&h).drops(LaunchDrop::NoLauncher), 2, "a car");
    h.advance(Duration::from_secs(1));
    send(&mut h, a, rocket(ProjectileWeapon::Rocket, hunter));
    assert_eq!(
        stats(&h).drops(LaunchDrop::NotDriver),
        1,
        "the Hunter it left"
    );
    let hydra = drive(&mut h, a, 520);
    let mut far = rocket(ProjectileWeapon::Rocket, hydra);
    far.origin = Vec3::new(103.0, 226.0, 10.0);
    send(&mut h, a, far);
    assert_eq!(
        stats(&h).drops(LaunchDrop::Origin),
        1,
        "26 m from the Hydra"
    );
    let mut fast = rocket(ProjectileWeapon::Rocket, hydra);
    fast.velocity = Vec3::new(0.0, 2.1, 0.0);
    send(&mut h, a, fast);
    assert_eq!(stats(&h).drops(LaunchDrop::Velocity), 1);
}

// Satchels.

/// `a` throws `n` satchels (the gamemode gives them), half a second apart.
fn throw_satchels(h: &mut Harness, a: ClientId, n: u16) {
    arm(h, a, 39, n);
    for _ in 0..n {
        h.advance(Duration::from_millis(500));
        send(h, a, launch(ProjectileWeapon::Satchel));
    }
}

/// What `a`'s `player:satchels()` says.
fn latch(h: &mut Harness, a: ClientId) -> String {
    h.advance(Duration::from_secs(1));
    h.take_chat_lines(a);
    h.chat(a, "/satchels");
    h.steps(2);
    h.take_chat_lines(a).join(",")
}

/// `a` fires the detonator over `pos`, and one tick.
fn detonate(h: &mut Harness, a: ClientId, pos: &[Vec3]) {
    let mut slots = [Vec3::ZERO; 8];
    slots[..pos.len()].copy_from_slice(pos);
    h.send_event(
        a,
        SatchelDetonate {
            session_token: h.token(a),
            event_id: EventId(0),
            count: u8::try_from(pos.len()).expect("8 at most"),
            pos: slots,
        },
    );
    h.step();
}

fn detonations(h: &Harness) -> DetonationStats {
    h.world().resource::<DetonationStats>().clone()
}

#[test]
fn a_detonation_bursts_the_latch_keeps_positions_near_a_satchel_and_takes_the_detonator() {
    let (_s, mut h, a, b) = two("st-burst");
    throw_satchels(&mut h, a, 2);
    assert_eq!(latch(&mut h, a), "2");
    assert!(
        h.get::<Inventory>(a).holds(40),
        "the detonator came with the first satchel"
    );
    frame_arming(&mut h, a, 40, SPAWN);
    h.clear(b);
    let near = Vec3::new(SPAWN.x + 30.0, SPAWN.y, SPAWN.z);
    let rode_away = Vec3::new(SPAWN.x + 300.0, SPAWN.y, SPAWN.z);
    detonate(&mut h, a, &[rode_away, near]);
    let got = h.packets::<RemoteSatchelDetonate>(b);
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].id, got[0].count, got[0].pos[0]),
        (h.player_id(a), 1, near)
    );
    assert_eq!(
        h.packets::<RemoteSatchelDetonate>(a),
        [],
        "never to the thrower"
    );
    assert_eq!(detonations(&h).accepted, 1);
    assert_eq!(latch(&mut h, a), "0");
    let inv = h.get::<Inventory>(a);
    assert!(
        !inv.holds(40) && inv.armed == 0,
        "the detonator left with the latch"
    );
}

#[test]
fn a_detonation_without_a_latch_or_without_the_detonator_armed_is_refused() {
    let (_s, mut h, a, b) = two("st-refused");
    arm(&mut h, a, 40, 1);
    detonate(&mut h, a, &[SPAWN]);
    assert_eq!(
        detonations(&h).drops(DetonationDrop::NoLatch),
        1,
        "a given detonator"
    );
    throw_satchels(&mut h, a, 1);
    frame_arming(&mut h, a, 39, SPAWN);
    h.advance(Duration::from_secs(1));
    frame_arming(&mut h, a, 39, SPAWN);
    h.clear(b);
    detonate(&mut h, a, &[SPAWN]);
    assert_eq!(detonations(&h).drops(DetonationDrop::NotArmed), 1);
    assert_eq!(h.packets::<RemoteSatchelDetonate>(b), []);
    assert_eq!(
        latch(&mut h, a),
        "1",
        "a refused detonation leaves the latch"
    );
}

#[test]
fn the_latch_holds_8_and_refuses_a_ninth() {
    let (_s, mut h, a, b) = two("st-eight");
    throw_satchels(&mut h, a, 8);
    assert_eq!(latch(&mut h, a), "8");
    h.chat(a, "/give 39 1");
    h.steps(2);
    frame_arming(&mut h, a, 39, SPAWN);
    h.advance(Duration::from_secs(1));
    let before = stats(&h).drops(LaunchDrop::Latch);
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Satchel));
    assert_eq!(stats(&h).drops(LaunchDrop::Latch), before + 1);
    assert_eq!(relayed(&h, b), []);
    assert_eq!(ammo(&h, a, 39), 1, "no round spent");
}

#[test]
fn a_scope_change_and_a_death_clear_the_latch() {
    let (_s, mut h, a, _b) = two("st-clear");
    throw_satchels(&mut h, a, 1);
    assert_eq!(latch(&mut h, a), "1");
    h.set_scope(a, Some(3), None);
    assert_eq!(latch(&mut h, a), "0", "cleared when ScopeChanged went out");
    assert!(!h.get::<Inventory>(a).holds(40));
    frame_arming(&mut h, a, 0, SPAWN);
    detonate(&mut h, a, &[SPAWN]);
    assert_eq!(detonations(&h).drops(DetonationDrop::NoLatch), 1);
    h.set_scope(a, Some(0), None);
    throw_satchels(&mut h, a, 1);
    assert_eq!(latch(&mut h, a), "1");
    h.die(a);
    assert_eq!(latch(&mut h, a), "0", "cleared at the death");
}

#[test]
fn a_detonation_a_handler_refuses_is_not_relayed_but_the_latch_is_gone() {
    let (_s, mut h, a, b) = two("st-refuse");
    h.chat(a, "/refuse");
    h.steps(2);
    throw_satchels(&mut h, a, 1);
    frame_arming(&mut h, a, 40, SPAWN);
    h.clear(b);
    h.take_chat_lines(a);
    detonate(&mut h, a, &[SPAWN]);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["boom 1"]);
    assert_eq!(h.packets::<RemoteSatchelDetonate>(b), []);
    assert_eq!(latch(&mut h, a), "0");
}

// The gamemode's word on a launch (weapons.md §2 step 2, §8 `player_projectile`).

/// The gamemode's `/watch` (each launch logged to the launcher) or `/norockets` (every
/// launch but a grenade refused).
fn gamemode(h: &mut Harness, a: ClientId, command: &str) {
    h.chat(a, command);
    h.steps(2);
    h.take_chat_lines(a);
}

#[test]
fn a_launch_the_gamemode_refuses_is_not_relayed_nor_logged_and_its_round_stays_spent() {
    let (_s, mut h, a, b) = two("pj-gm-refuse");
    gamemode(&mut h, a, "/norockets");
    arm(&mut h, a, 35, 2);
    h.clear(b);
    let mut l = launch(ProjectileWeapon::Rocket);
    l.velocity = Vec3::new(2.0, 0.0, 0.0);
    send(&mut h, a, l);
    let s = stats(&h);
    assert_eq!((s.accepted, s.drops(LaunchDrop::Gamemode)), (1, 1));
    assert_eq!(ammo(&h, a, 35), 1, "the round stays spent");
    assert_eq!(relayed(&h, b), [], "no relay");
    assert!(h.get::<ActionLog>(a).is_empty(), "no action");
    // A refused satchel never joins the latch, and brings no detonator.
    arm(&mut h, a, 39, 1);
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Satchel));
    assert_eq!(stats(&h).drops(LaunchDrop::Gamemode), 2);
    assert_eq!(ammo(&h, a, 39), 0);
    assert_eq!(relayed(&h, b), []);
    assert_eq!(latch(&mut h, a), "0");
    assert!(!h.get::<Inventory>(a).holds(40), "no detonator for it");
    // The grenade it lets pass goes on as ever.
    arm(&mut h, a, 16, 1);
    h.clear(b);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(relayed(&h, b).len(), 1);
    assert_eq!(h.get::<ActionLog>(a).len(), 1);
}

#[test]
fn the_handler_gets_the_launch_in_metres_and_metres_a_second() {
    let (_s, mut h, a, _b) = two("pj-gm-table");
    gamemode(&mut h, a, "/watch");
    arm(&mut h, a, 16, 1);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    h.steps(2);
    // origin (100.5, 200, 11), velocity (0.5, 0.5, 0.25) units a step = 25, 12.5 m/s.
    assert_eq!(
        h.take_chat_lines(a),
        ["launch 16 nil nil 100.5 200.0 25.0 12.5"]
    );
}

/// The car `/car x y` creates, after the streaming had a few ticks: its id and epoch.
fn car_at(h: &mut Harness, a: ClientId, x: f32, y: f32) -> (VehicleId, VehicleEpoch) {
    let before: Vec<VehicleId> = h
        .world()
        .resource::<Vehicles>()
        .iter()
        .map(|(id, _)| id)
        .collect();
    h.chat(a, &format!("/car {x} {y}"));
    h.steps(5);
    let vehicles = h.world().resource::<Vehicles>();
    let (id, e) = vehicles
        .iter()
        .find(|(id, _)| !before.contains(id))
        .expect("the car exists");
    let epoch = h
        .world()
        .get::<dlmp_core::vehicle::Life>(e)
        .expect("a life")
        .epoch;
    (id, epoch)
}

#[test]
fn the_handler_reads_a_hydras_vehicle_and_the_target_of_its_heat_seeker() {
    let (_s, mut h, a, b) = two("pj-gm-hydra");
    gamemode(&mut h, a, "/watch");
    let hydra = drive(&mut h, a, 520);
    let (car, epoch) = car_at(&mut h, a, 103.0, 300.0);
    h.take_chat_lines(a);
    h.clear(b);
    let mut l = rocket(ProjectileWeapon::HeatSeeker, hydra);
    (l.target_id, l.target_epoch) = (car, epoch);
    send(&mut h, a, l);
    h.steps(2);
    assert_eq!(
        h.take_chat_lines(a),
        [format!(
            "launch 20 {} {} 103.0 205.0 100.0 0.0",
            hydra.0, car.0
        )]
    );
    let got = relayed(&h, b);
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].launch.target_id, got[0].launch.target_epoch),
        (car, epoch)
    );
}

// The heat-seeker's target "is streamed to the sender, is in the sender's scope".

/// `a`, armed with heat-seekers, launches one at `target` from beside its body toward +x;
/// the target as relayed to `b`.
fn heat_seeker_at(
    h: &mut Harness,
    a: ClientId,
    b: ClientId,
    target: (VehicleId, VehicleEpoch),
) -> (VehicleId, VehicleEpoch) {
    h.clear(b);
    let mut l = launch(ProjectileWeapon::HeatSeeker);
    l.origin = Vec3::new(SPAWN.x + 4.5, SPAWN.y, SPAWN.z);
    l.velocity = Vec3::new(2.0, 0.0, 0.0);
    (l.target_id, l.target_epoch) = target;
    send(h, a, l);
    let got = relayed(h, b);
    assert_eq!(got.len(), 1, "the rocket flies anyway: {:?}", stats(h));
    (got[0].launch.target_id, got[0].launch.target_epoch)
}

const NO_TARGET: (VehicleId, VehicleEpoch) = (VehicleId::NONE, VehicleEpoch(0));

#[test]
fn a_target_streamed_to_the_sender_is_kept_one_beyond_its_stream_distance_is_not() {
    let (_s, mut h, a, b) = two("pj-target-stream");
    // 199 m from the sender (streamed), 194.5 m from the origin.
    let near = car_at(&mut h, a, SPAWN.x + 199.0, SPAWN.y);
    // 204 m from the sender (not streamed to it: 200 m), 199.5 m from the origin.
    let far = car_at(&mut h, a, SPAWN.x + 204.0, SPAWN.y);
    arm(&mut h, a, 36, 2);
    assert_eq!(heat_seeker_at(&mut h, a, b, near), near);
    h.advance(Duration::from_secs(1));
    frame_arming(&mut h, a, 36, SPAWN);
    assert_eq!(heat_seeker_at(&mut h, a, b, far), NO_TARGET);
}

#[test]
fn a_target_in_another_virtual_world_is_not_kept() {
    let (_s, mut h, a, b) = two("pj-target-world");
    let car = car_at(&mut h, a, SPAWN.x + 150.0, SPAWN.y);
    // Bob goes along so that he still watches.
    h.set_scope(a, Some(1), None);
    h.set_scope(b, Some(1), None);
    h.steps(3);
    arm(&mut h, a, 36, 1);
    assert_eq!(heat_seeker_at(&mut h, a, b, car), NO_TARGET);
}

// "alive on the server" in the order of the sender's reliable stream (weapons.md §2).

fn grenade_packet(h: &Harness, a: ClientId) -> ProjectileCreate {
    ProjectileCreate {
        session_token: h.token(a),
        event_id: EventId(0),
        seen_event: seen(h, a),
        launch: launch(ProjectileWeapon::Grenade),
    }
}

#[test]
fn a_throw_before_the_death_report_in_one_tick_is_relayed_before_playerwasted() {
    let (_s, mut h, a, b) = two("pj-death-before");
    arm(&mut h, a, 16, 3);
    h.clear(b);
    let p = grenade_packet(&h, a);
    h.send_event(a, p);
    h.report_death(a, DeathPose::DEFAULT);
    h.step();
    assert!(
        !h.get::<dlmp::player::Life>(a).alive,
        "the death is committed"
    );
    assert_eq!(stats(&h).accepted, 1);
    assert_eq!(relayed(&h, b).len(), 1);
    assert_eq!(ammo(&h, a, 16), 2);
    // weapons.md §1: relays go in order with PlayerWasted, as the thrower's stream had them.
    assert_eq!(
        about_the_thrower(&h, b),
        ["RemoteProjectileCreate", "PlayerWasted"]
    );
}

/// The names of the launches, detonations and deaths `c` got, in order.
fn about_the_thrower(h: &Harness, c: ClientId) -> Vec<&'static str> {
    h.received(c)
        .iter()
        .map(|p| p.name())
        .filter(|n| {
            matches!(
                *n,
                "RemoteProjectileCreate" | "RemoteSatchelDetonate" | "PlayerWasted"
            )
        })
        .collect()
}

/// A satchel thrown and the thrower's death in one tick's stream, then (another life) a
/// detonation and the death: the viewer gets the throw and the detonation before
/// PlayerWasted, so it never holds a satchel of a dead thrower (weapons.md §2: it removes
/// them at PlayerWasted) and bursts them where the thrower's game did.
#[test]
fn a_satchel_or_a_detonation_before_the_death_in_one_tick_reaches_the_viewer_before_playerwasted() {
    let (_s, mut h, a, b) = two("pj-death-satchel");
    arm(&mut h, a, 39, 2);
    h.clear(b);
    h.send_event(
        a,
        ProjectileCreate {
            session_token: h.token(a),
            event_id: EventId(0),
            seen_event: seen(&h, a),
            launch: launch(ProjectileWeapon::Satchel),
        },
    );
    h.report_death(a, DeathPose::DEFAULT);
    h.step();
    assert!(!h.get::<dlmp::player::Life>(a).alive);
    assert_eq!(
        about_the_thrower(&h, b),
        ["RemoteProjectileCreate", "PlayerWasted"]
    );

    h.respawn(a);
    h.live(a);
    throw_satchels(&mut h, a, 1);
    frame_arming(&mut h, a, 40, SPAWN);
    h.clear(b);
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = SPAWN;
    h.send_event(
        a,
        SatchelDetonate {
            session_token: h.token(a),
            event_id: EventId(0),
            count: 1,
            pos,
        },
    );
    h.report_death(a, DeathPose::DEFAULT);
    h.step();
    assert!(!h.get::<dlmp::player::Life>(a).alive);
    assert_eq!(
        about_the_thrower(&h, b),
        ["RemoteSatchelDetonate", "PlayerWasted"]
    );
}

#[test]
fn a_throw_after_the_death_report_in_one_tick_is_refused_and_counted() {
    let (_s, mut h, a, b) = two("pj-death-after");
    arm(&mut h, a, 16, 3);
    throw_satchels(&mut h, a, 1);
    frame_arming(&mut h, a, 40, SPAWN);
    h.advance(Duration::from_secs(1));
    frame_arming(&mut h, a, 16, SPAWN);
    h.clear(b);
    let before = (stats(&h), detonations(&h));
    h.report_death(a, DeathPose::DEFAULT);
    let p = grenade_packet(&h, a);
    h.send_event(a, p);
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = SPAWN;
    h.send_event(
        a,
        SatchelDetonate {
            session_token: h.token(a),
            event_id: EventId(0),
            count: 1,
            pos,
        },
    );
    h.step();
    assert!(!h.get::<dlmp::player::Life>(a).alive);
    let after = stats(&h);
    assert_eq!(after.accepted, before.0.accepted);
    assert_eq!(
        after.drops(LaunchDrop::NotInControl),
        before.0.drops(LaunchDrop::NotInControl) + 1
    );
    assert_eq!(
        detonations(&h).drops(DetonationDrop::NotInControl),
        before.1.drops(DetonationDrop::NotInControl) + 1
    );
    assert_eq!(ammo(&h, a, 16), 3, "no round spent");
    assert_eq!(relayed(&h, b), []);
    assert_eq!(h.packets::<RemoteSatchelDetonate>(b), []);
}

#[test]
fn a_death_report_of_the_previous_life_does_not_refuse_the_new_lifes_throw() {
    let (_s, mut h, a, _b) = two("pj-death-window");
    arm(&mut h, a, 16, 3);
    h.die(a);
    // The respawn is granted; no living frame of the new life has come yet, so a
    // DeathReport now is the previous life's, late (ADR 0012). The grenade stays armed.
    h.respawn(a);
    assert!(h.get::<dlmp::player::Life>(a).alive);
    let before = stats(&h);
    h.report_death(a, DeathPose::DEFAULT);
    let p = grenade_packet(&h, a);
    h.send_event(a, p);
    h.step();
    assert!(
        h.get::<dlmp::player::Life>(a).alive,
        "the old report was dropped"
    );
    let after = stats(&h);
    assert_eq!(
        after.drops(LaunchDrop::NotInControl),
        before.drops(LaunchDrop::NotInControl)
    );
    assert_eq!(after.accepted, before.accepted + 1, "{after:?}");
    assert_eq!(ammo(&h, a, 16), 2);
}

#[test]
fn a_satchel_thrown_and_burst_in_one_tick_never_joins_the_latch() {
    let (_s, mut h, a, b) = two("st-same-tick");
    // A detonator the gamemode gave, then satchels; the game arms the satchel, then the
    // detonator, and its throw and detonation reach the server in one tick.
    arm(&mut h, a, 40, 1);
    arm(&mut h, a, 39, 1);
    frame_arming(&mut h, a, 40, SPAWN);
    h.clear(b);
    h.send_event(
        a,
        ProjectileCreate {
            session_token: h.token(a),
            event_id: EventId(0),
            seen_event: seen(&h, a),
            launch: launch(ProjectileWeapon::Satchel),
        },
    );
    detonate(&mut h, a, &[SPAWN]);
    assert_eq!(detonations(&h).accepted, 1, "{:?}", detonations(&h));
    assert_eq!(relayed(&h, b).len(), 1, "{:?}", stats(&h));
    let burst = h.packets::<RemoteSatchelDetonate>(b);
    assert_eq!(
        (burst.len(), burst[0].count),
        (1, 1),
        "its position is kept"
    );
    assert_eq!(latch(&mut h, a), "0");
    assert!(!h.get::<Inventory>(a).holds(40));
}

#[test]
fn the_latch_ends_at_a_virtual_world_change_and_a_throw_of_the_new_scope_latches_again() {
    let (_s, mut h, a, _b) = two("st-scope");
    throw_satchels(&mut h, a, 2);
    assert_eq!(latch(&mut h, a), "2");
    h.clear(a);
    h.chat(a, "/world 5");
    h.steps(2);
    let barrier = h
        .packets::<ScopeChanged>(a)
        .last()
        .map(|s| s.event_id)
        .expect("player:set_virtual_world sent ScopeChanged");
    assert_eq!(latch(&mut h, a), "0", "cleared when ScopeChanged went out");
    // The detonator left with the latch; the client fires it anyway.
    frame_arming(&mut h, a, 40, SPAWN);
    detonate(&mut h, a, &[SPAWN]);
    assert_eq!(detonations(&h).drops(DetonationDrop::NoLatch), 1);
    assert_eq!(detonations(&h).accepted, 0);
    h.chat(a, "/give 39 2");
    h.steps(2);
    frame_arming(&mut h, a, 39, SPAWN);
    h.advance(Duration::from_secs(1));
    let throw = |h: &mut Harness, seen_event: EventId| {
        h.send_event(
            a,
            ProjectileCreate {
                session_token: h.token(a),
                event_id: EventId(0),
                seen_event,
                launch: launch(ProjectileWeapon::Satchel),
            },
        );
        h.step();
    };
    let scope_drops = stats(&h).drops(LaunchDrop::Scope);
    throw(&mut h, EventId(barrier.0.wrapping_sub(1)));
    assert_eq!(
        stats(&h).drops(LaunchDrop::Scope),
        scope_drops + 1,
        "thrown in the world it left"
    );
    assert_eq!(ammo(&h, a, 39), 2, "no round spent");
    assert_eq!(latch(&mut h, a), "0");
    throw(&mut h, barrier);
    assert_eq!(ammo(&h, a, 39), 1);
    assert_eq!(latch(&mut h, a), "1", "thrown in the new world");
    assert!(h.get::<Inventory>(a).holds(40), "the detonator is back");
}

#[test]
fn a_viewer_whose_lane_is_full_misses_the_projectile_counted_and_gets_the_next_one() {
    let (_s, mut h, a, b) = two("pj-full-lane");
    let c = h.connect("carol");
    h.step();
    h.spawn(c, SPAWN);
    assert!(h.is_shown(a, b) && h.is_shown(a, c));
    arm(&mut h, a, 16, 3);
    h.clear(b);
    h.clear(c);
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Normal, 0);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    let s = stats(&h);
    assert_eq!((s.accepted, s.relay_refused), (1, 1), "{s:?}");
    assert_eq!(relayed(&h, c).len(), 1, "the other viewer has it");
    h.release_lane(b);
    assert_eq!(relayed(&h, b), [], "nothing repeats it");
    assert!(h.is_shown(a, b), "still a viewer");
    h.clear(b);
    h.clear(c);
    send(&mut h, a, launch(ProjectileWeapon::Grenade));
    assert_eq!(
        relayed(&h, b).len(),
        1,
        "the drained lane takes the next one"
    );
    assert_eq!(relayed(&h, c).len(), 1);
    assert_eq!(stats(&h).relay_refused, 1);
}

#[test]
fn a_flood_of_40_grenades_in_a_second_passes_8_then_4_a_second_and_leaves_another_player_alone() {
    let (_s, mut h, a, b) = two("pj-flood-second");
    arm(&mut h, a, 16, 100);
    arm(&mut h, b, 16, 100);
    h.clear(a);
    h.clear(b);
    let mut first_tick = None;
    let mut sent = 0u32;
    let mut b_seq = h.get::<LastFrame>(b).seq.map_or(1, |s| s.0 + 1);
    let first_b_seq = b_seq;
    // 50 ticks: Alice's 40 grenades spread over them, Bob's frame each tick and his own
    // grenades at 0 and 600 ms.
    for tick in 0..50u32 {
        while sent < (tick + 1) * 40 / 50 {
            let p = ProjectileCreate {
                session_token: h.token(a),
                event_id: EventId(0),
                seen_event: seen(&h, a),
                launch: launch(ProjectileWeapon::Grenade),
            };
            h.send_event(a, p);
            sent += 1;
        }
        if tick == 0 || tick == 30 {
            let p = ProjectileCreate {
                session_token: h.token(b),
                event_id: EventId(0),
                seen_event: seen(&h, b),
                launch: launch(ProjectileWeapon::Grenade),
            };
            h.send_event(b, p);
        }
        let inv = h.get::<Inventory>(b);
        let frame = Frame {
            death_epoch: h.get::<DeathEpoch>(b).0,
            weapon: 16,
            clip: 1,
            total: inv.ammo[16],
            weapon_rev: inv.weapon_rev,
            ..Frame::standing(SPAWN)
        };
        h.send(
            b,
            PlayerSync {
                session_token: h.token(b),
                seq: dlmp::protocol::ids::Seq(b_seq),
                frame,
            },
        );
        b_seq += 1;
        h.step();
        first_tick.get_or_insert(h.now());
    }
    assert_eq!(sent, 40);
    // From the tick of the first launch to that of the last.
    let elapsed = (h.now() - first_tick.expect("50 ticks")).as_secs_f32();
    assert!(elapsed < 1.0, "{elapsed}");
    let s = stats(&h);
    let from_bob = relayed(&h, a).len();
    assert_eq!(from_bob, 2, "Bob's launches are his own: {s:?}");
    let from_alice = relayed(&h, b).len();
    // Alice's tokens: the 8 at once and the refill of 4 a second; every launch past them
    // is a limit drop, every one within them is accepted or refused by the interval.
    let tokens = 8 + (4.0 * elapsed).floor() as u64;
    assert_eq!(s.drops(LaunchDrop::Limit), 40 - tokens, "{s:?}");
    assert_eq!(
        from_alice as u64 + s.drops(LaunchDrop::Interval),
        tokens,
        "{s:?}"
    );
    assert_eq!(from_alice, 2, "one grenade each half second: {s:?}");
    assert_eq!(s.accepted, 4);
    assert_eq!(ammo(&h, a, 16), 98);
    assert_eq!(ammo(&h, b, 16), 98);
    // Every frame of Bob's was taken, in order.
    assert_eq!(h.get::<LastFrame>(b).seq.map(|s| s.0), Some(b_seq - 1));
    let relays: Vec<u32> = h
        .packets::<dlmp::protocol::player::sync::RemotePlayerSync>(a)
        .iter()
        .map(|r| r.seq.0)
        .collect();
    assert_eq!(
        relays,
        (first_b_seq..b_seq).collect::<Vec<_>>(),
        "Alice saw each frame of Bob's"
    );
}
