//! vehicles.md VehicleExplode, VehicleDeath and the life part of VehicleSync in the
//! harness: the explosion's checks at each edge (burning 4 s, the 250 line, the aircraft
//! rule, trains, epoch, controller, repeats), drowning, RC detonation, the wreck, kill
//! credit by passing shots, credited blasts, cannon shells, flames and the projectile rows of
//! the action log (weapons.md §6), a bystander's blast and fire credited by a vehicle's
//! explosion, a tank shell or a flame, the occupants' 5 s window, and a
//! respawn's full sequence on the wire. Everything goes through the decoder: frames,
//! explosions, shots, exits and death reports are client packets; the gamemode logs its
//! events to the chat and respawns by command.

mod vframe_support;

use std::time::Duration;

use bevy_ecs::prelude::*;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::weapons::launch::{LaunchStats, launcher_of};
use dlmp::player::weapons::satchel::DetonationStats;
use dlmp::player::{DeathEpoch, Inventory, LastFrame};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::damage::DamageReport;
use dlmp::protocol::connection::weapons::{HitKind, WeaponShot};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, PlayerId, PlayerToken, Revision, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::player::life::DeathPose;
use dlmp::protocol::player::sync::Frame;
use dlmp::protocol::vehicle::life::{VehicleDeath, VehicleDeathCause, VehicleExplode};
use dlmp::protocol::vehicle::params::param;
use dlmp::protocol::vehicle::seats::{OccupancyKind, VehicleEnter, VehicleExit, VehicleOccupancy};
use dlmp::protocol::vehicle::shot::{Ray, VehicleShot};
use dlmp::protocol::vehicle::state::VehicleState;
use dlmp::protocol::vehicle::sync::{VehicleSync, flag};
use dlmp::protocol::weapons::projectile::{
    Launch, ProjectileCreate, ProjectileWeapon, RemoteProjectileCreate,
};
use dlmp::protocol::weapons::satchel::SatchelDetonate;
use dlmp::session::Connection;
use dlmp::vehicle::life::{ExplodeStats, respawn_vehicle};
use dlmp::vehicle::{Health, Occupant, Params, Remote, Seats, destroy_vehicle};
use dlmp_core::vehicle::{Life, Pose};
use rstest::rstest;
use vframe_support::{frame, make_syncer, seat, send_frame, state, vehicle};

/// The tank, whose cannon fires shells (vehicles.md VehicleShot).
const RHINO: u16 = 432;
/// A helicopter with a machine gun.
const HUNTER: u16 = 425;

/// Where the players spawn.
const HERE: Vec3 = Vec3::new(100.0, 200.0, 10.0);
/// Where the vehicle stands.
const SPOT: Vec3 = Vec3::new(130.0, 200.0, 10.0);

/// A gamemode that logs vehicle and player deaths, and respawns, puts and gives weapons
/// by command.
const GM: &str = r#"
local function name(p) return p and p:name() or "nil" end
dlmp.on("vehicle_death", function(v, cause, killer)
    dlmp.send_chat("vdeath " .. v:id() .. " " .. cause .. " " .. name(killer) .. " " .. tostring(v:is_wrecked()))
end)
dlmp.on("player_damage", function(v, attacker, weapon)
    dlmp.send_chat("damage " .. name(v) .. " " .. name(attacker) .. " " .. weapon)
end)
dlmp.on("player_death", function(p, killer, weapon)
    dlmp.send_chat("death " .. p:name() .. " " .. name(killer) .. " " .. weapon)
end)
dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
dlmp.add_command("tune", function(p, args)
    local v = dlmp.vehicles()[1]
    dlmp.add_vehicle_component(v, 1010)
    dlmp.set_vehicle_nitro_charges(v, 3)
    dlmp.set_vehicle_engine(v, true)
    dlmp.set_vehicle_locked(v, true)
    dlmp.set_vehicle_alarm(v, true)
    dlmp.set_vehicle_door(v, "bonnet", true)
    dlmp.set_vehicle_door(v, "boot", true)
    dlmp.set_vehicle_locked_for(v, p, true)
    dlmp.set_vehicle_objective(v, p, true)
end)
dlmp.add_command("respawn", function(p, args)
    local v = dlmp.vehicles()[1]
    dlmp.respawn_vehicle(v)
    dlmp.send_chat("respawned " .. v:epoch() .. " " .. tostring(v:is_wrecked()) .. " " .. v:health())
end)
dlmp.add_command("boom", function(p, args)
    dlmp.create_explosion(130 - tonumber(args[1]), 200, 10, 0, { creator = p, harmless = args[2] == "harmless" })
end)
dlmp.add_command("norockets", function() NO_ROCKETS = true end)
dlmp.on("player_projectile", function(p, projectile)
    if NO_ROCKETS and projectile.weapon == 19 then return false end
end)
dlmp.add_command("carto", function(p, args)
    dlmp.set_vehicle_position(dlmp.vehicles()[1], tonumber(args[1]), tonumber(args[2]), 10)
end)
dlmp.add_command("put", function(p, args)
    local ok, err = pcall(dlmp.put_player_in_vehicle, p, dlmp.vehicles()[1], tonumber(args[1]))
    dlmp.send_chat(ok and "put" or tostring(err))
end)
"#;

struct Scene {
    _scripts: TempScripts,
    h: Harness,
    /// Alice drives.
    a: ClientId,
    /// Bob stands by.
    b: ClientId,
    v: Entity,
    id: VehicleId,
    /// Alice's next frame seq.
    seq: u32,
}

/// Alice and Bob at [`HERE`], a vehicle of `model` at [`SPOT`], Alice driving.
fn scene(test: &str, model: u16) -> Scene {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", GM);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, model, SPOT);
    seat(&mut h, a, v, 0);
    h.clear(a);
    h.clear(b);
    Scene {
        _scripts: scripts,
        h,
        a,
        b,
        v,
        id,
        seq: 1,
    }
}

impl Scene {
    /// Alice's frame at [`SPOT`] with `health` and velocity `speed` along x, one tick.
    fn drive(&mut self, health: f32, speed: f32) {
        let s = VehicleState {
            health,
            move_speed: Vec3::new(speed, 0.0, 0.0),
            ..state(SPOT)
        };
        let seq = self.seq;
        self.seq += 1;
        frame(&mut self.h, self.a, seq, self.id, s);
    }

    /// Runs ticks until the next one runs at `t`; Alice keeps driving (burning) and Bob
    /// keeps standing, a frame each a second, so neither session times out.
    fn until(&mut self, t: Duration) {
        let mut n = 0u32;
        while self.h.now() + self.h.tick() < t {
            n += 1;
            if n.is_multiple_of(50) {
                let s = VehicleState {
                    health: self.health(),
                    ..state(SPOT)
                };
                send_frame(&mut self.h, self.a, self.seq, self.id, s);
                self.seq += 1;
                self.h.live(self.b);
            } else {
                self.h.step();
            }
        }
    }

    fn explode_as(&mut self, c: ClientId, cause: VehicleDeathCause, attacker: Option<ClientId>) {
        self.explode_epoch(
            c,
            0,
            cause,
            attacker.map(|x| (self.h.player_id(x), self.token(x))),
        );
    }

    fn explode(&mut self, attacker: Option<ClientId>) {
        self.explode_as(self.a, VehicleDeathCause::Exploded, attacker);
    }

    /// A VehicleExplode from `c` and one tick.
    fn explode_epoch(
        &mut self,
        c: ClientId,
        epoch: u8,
        cause: VehicleDeathCause,
        attacker: Option<(PlayerId, PlayerToken)>,
    ) {
        let (attacker_id, attacker_token) = attacker.unwrap_or((PlayerId(0), PlayerToken(0)));
        let packet = VehicleExplode {
            session_token: self.h.token(c),
            event_id: EventId(0),
            vehicle_id: self.id,
            epoch: VehicleEpoch(epoch),
            cause,
            has_attacker: attacker.is_some(),
            attacker_id,
            attacker_token,
        };
        self.h.send_event(c, packet);
        self.h.step();
    }

    fn token(&self, c: ClientId) -> PlayerToken {
        self.h.hello(c).player_token
    }

    fn life(&self) -> Life {
        *self.h.world().get::<Life>(self.v).expect("a life")
    }

    fn health(&self) -> f32 {
        self.h.world().get::<Health>(self.v).expect("a health").0
    }

    fn stats(&self) -> ExplodeStats {
        *self.h.world().resource::<ExplodeStats>()
    }

    /// (cause, killer id) of every VehicleDeath `c` got.
    fn deaths(&self, c: ClientId) -> Vec<(VehicleDeathCause, Option<u32>)> {
        self.h
            .packets::<VehicleDeath>(c)
            .iter()
            .map(|d| (d.cause, d.has_killer.then_some(d.killer_id.0)))
            .collect()
    }

    /// The gamemode's log lines starting with `word`.
    fn log(&self, c: ClientId, word: &str) -> Vec<String> {
        self.h
            .chat_lines(c)
            .into_iter()
            .filter(|l| l.starts_with(word))
            .collect()
    }

    /// Burns the vehicle (Alice's frame at 249) and waits until 4 s of burning have
    /// passed.
    fn burnt(&mut self) {
        self.drive(249.0, 0.0);
        let t = self.h.now() + Duration::from_secs(4);
        self.until(t);
    }

    /// The gamemode gives `c` a Desert Eagle (24) and bullets.
    fn arm(&mut self, c: ClientId) {
        self.h.chat(c, "/give 24 100");
        self.h.steps(2);
    }

    /// A WeaponShot of `c` from its position along +x, 80 m long, passing the vehicle's
    /// center at `miss` m (`c` is moved there first), and one tick.
    fn shoot_past(&mut self, c: ClientId, order: u32, miss: f32) {
        let from = Vec3::new(SPOT.x - 40.0, SPOT.y + miss, SPOT.z);
        self.h.teleport(c, from);
        let shot = WeaponShot {
            session_token: self.h.token(c),
            order: Seq(order),
            weapon: 24,
            origin: from,
            hit: Vec3::new(from.x + 80.0, from.y, from.z),
            hit_kind: HitKind::Nothing,
            hit_id: 0xFFFF_FFFF,
            props_rev: Revision(0),
        };
        self.h.send(c, shot);
        self.h.step();
    }
}

#[test]
fn an_explosion_after_4_s_of_burning_wrecks_the_vehicle_for_everyone_it_is_shown_to() {
    let mut s = scene("life_burn_edge", 411);
    s.drive(249.0, 0.0);
    let started = s.h.now();
    s.until(started + Duration::from_secs(4) - s.h.tick());
    s.explode(None);
    assert_eq!(s.stats().not_burning, 1, "one tick short of 4 s");
    assert!(!s.life().wrecked);
    s.explode(None);
    assert_eq!(s.h.now() - started, Duration::from_secs(4));
    assert_eq!(s.stats().accepted, 1);
    assert_eq!(
        (s.life().wrecked, s.life().drowned, s.health()),
        (true, false, 0.0)
    );
    for c in [s.a, s.b] {
        assert_eq!(
            s.deaths(c),
            [(VehicleDeathCause::Exploded, None)],
            "sender included"
        );
    }
    s.h.step();
    assert_eq!(
        s.log(s.b, "vdeath"),
        [format!("vdeath {} explosion nil true", s.id.0)]
    );
}

#[rstest]
#[case::at_250(250.0, false)]
#[case::at_249(249.0, true)]
fn only_a_health_below_250_burns(#[case] health: f32, #[case] accepted: bool) {
    let mut s = scene(&format!("life_line_{health}"), 411);
    s.drive(health, 0.0);
    let t = s.h.now() + Duration::from_secs(10);
    s.until(t);
    s.explode(None);
    assert_eq!(s.life().wrecked, accepted);
}

#[test]
fn a_repair_above_250_ends_the_burning_and_a_new_fire_starts_a_new_clock() {
    let mut s = scene("life_repair", 411);
    s.drive(200.0, 0.0);
    s.h.advance(Duration::from_secs(3));
    // What `set_vehicle_health` / `repair_vehicle` (the health feature) write.
    set_health(&mut s.h, s.v, 1000.0);
    s.h.step();
    s.drive(200.0, 0.0);
    let again = s.h.now();
    s.until(again + Duration::from_secs(4) - s.h.tick());
    s.explode(None);
    assert!(!s.life().wrecked, "the first fire's 3 s do not count");
    s.explode(None);
    assert!(s.life().wrecked);
}

fn set_health(h: &mut Harness, v: Entity, health: f32) {
    h.world_mut().get_mut::<Health>(v).expect("a health").0 = health;
}

#[rstest]
#[case::heli_at_0_2(487, 0.2, false)]
#[case::heli_faster(487, 0.21, true)]
#[case::plane_faster(593, 0.21, true)]
#[case::car_faster(411, 3.0, false)]
fn a_burning_aircraft_faster_than_0_2_blows_up_at_once(
    #[case] model: u16,
    #[case] speed: f32,
    #[case] accepted: bool,
) {
    let mut s = scene(&format!("life_aircraft_{model}_{speed}"), model);
    s.drive(249.0, speed);
    s.explode(None);
    assert_eq!(s.life().wrecked, accepted);
}

#[test]
fn a_burning_aircraft_with_a_credited_killer_blows_up_at_once() {
    let mut s = scene("life_aircraft_credit", 487);
    s.arm(s.b);
    s.shoot_past(s.b, 1, 3.0);
    s.drive(249.0, 0.0);
    s.explode(None);
    assert!(!s.life().wrecked, "slow and without a killer");
    s.explode(Some(s.b));
    assert_eq!(
        s.deaths(s.a),
        [(VehicleDeathCause::Exploded, Some(s.h.player_id(s.b).0))]
    );
}

#[rstest]
#[case::explosion(VehicleDeathCause::Exploded)]
#[case::drowning(VehicleDeathCause::Drowned)]
fn a_train_neither_explodes_nor_drowns(#[case] cause: VehicleDeathCause) {
    let mut s = scene(&format!("life_train_{cause:?}"), 537);
    s.burnt();
    s.explode_as(s.a, cause, None);
    assert_eq!((s.life().wrecked, s.stats().train), (false, 1));
}

#[test]
fn a_stale_epoch_another_players_and_a_repeated_explosion_are_dropped() {
    let mut s = scene("life_drops", 411);
    s.burnt();
    s.explode_epoch(s.a, 1, VehicleDeathCause::Exploded, None);
    s.explode_as(s.b, VehicleDeathCause::Exploded, None);
    assert!(!s.life().wrecked);
    assert_eq!((s.stats().stale, s.stats().not_controller), (1, 1));
    s.explode(None);
    s.explode(None);
    assert_eq!((s.stats().accepted, s.stats().repeated), (1, 1));
    assert_eq!(s.deaths(s.b).len(), 1, "one VehicleDeath");
}

#[test]
fn a_passenger_does_not_control_and_a_frozen_driver_gives_way_to_the_syncer() {
    let mut s = scene("life_frozen", 411);
    seat(&mut s.h, s.b, s.v, 1);
    s.burnt();
    s.explode_as(s.b, VehicleDeathCause::Exploded, None);
    assert_eq!(
        s.stats().not_controller,
        1,
        "a passenger while the driver is live"
    );
    s.h.freeze(s.a, true);
    s.explode(None);
    assert_eq!(
        s.stats().not_controller,
        2,
        "a frozen driver does not count"
    );
    make_syncer(&mut s.h, Some(s.b), s.v);
    s.explode_as(s.b, VehicleDeathCause::Exploded, None);
    assert!(
        s.life().wrecked,
        "the syncer of a vehicle whose driver is frozen"
    );
}

#[test]
fn a_drowning_wrecks_at_once_keeps_the_health_and_has_no_killer() {
    let mut s = scene("life_drown", 411);
    s.arm(s.b);
    s.shoot_past(s.b, 1, 2.0);
    s.drive(700.0, 0.0);
    s.explode_as(s.a, VehicleDeathCause::Drowned, Some(s.b));
    assert_eq!(
        (s.life().wrecked, s.life().drowned, s.health()),
        (true, true, 700.0)
    );
    assert_eq!(s.deaths(s.b), [(VehicleDeathCause::Drowned, None)]);
    s.h.step();
    assert_eq!(
        s.log(s.a, "vdeath"),
        [format!("vdeath {} water nil true", s.id.0)]
    );
    // A show of the wreck to a newcomer carries the drowned flags and the health.
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, HERE);
    s.h.step();
    let show =
        s.h.packets::<VehicleSync>(c)
            .last()
            .cloned()
            .expect("a show");
    assert_eq!(
        show.flags & (flag::WRECKED | flag::DROWNED),
        flag::WRECKED | flag::DROWNED
    );
    assert_eq!(show.health, 700.0);
}

#[test]
fn an_rc_detonation_is_accepted_at_once_and_credited_to_its_remote_driver() {
    let scripts = TempScripts::new("life_rc");
    scripts.resource("gm", GM);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(HERE);
    let (v, id) = vehicle(&mut h, 441, SPOT);
    let driver = Occupant {
        entity: h.entity(a),
        id: h.player_id(a),
        token: h.hello(a).player_token,
    };
    // What the remote feature inserts (dlmp.set_remote_vehicle).
    h.world_mut().entity_mut(v).insert(Remote {
        driver,
        detonation: false,
    });
    let explode = |h: &mut Harness| {
        let packet = VehicleExplode {
            session_token: h.token(a),
            event_id: EventId(0),
            vehicle_id: id,
            epoch: VehicleEpoch(0),
            cause: VehicleDeathCause::Exploded,
            has_attacker: false,
            attacker_id: PlayerId(0),
            attacker_token: PlayerToken(0),
        };
        h.send_event(a, packet);
        h.step();
    };
    explode(&mut h);
    assert!(
        !h.world().get::<Life>(v).expect("a life").wrecked,
        "without detonation it needs the burning"
    );
    h.world_mut()
        .get_mut::<Remote>(v)
        .expect("remote")
        .detonation = true;
    explode(&mut h);
    assert!(h.world().get::<Life>(v).expect("a life").wrecked);
    let deaths = h.packets::<VehicleDeath>(b);
    assert_eq!(
        deaths
            .iter()
            .map(|d| (d.has_killer, d.killer_id))
            .collect::<Vec<_>>(),
        [(true, h.player_id(a))]
    );
}

#[rstest]
#[case::within_8(7.9, true)]
#[case::beyond_8(8.1, false)]
fn a_shot_passing_within_8_m_credits_its_shooter(#[case] miss: f32, #[case] credited: bool) {
    let mut s = scene(&format!("life_pass_{miss}"), 411);
    s.arm(s.b);
    s.shoot_past(s.b, 1, miss);
    s.burnt();
    s.explode(Some(s.b));
    let killer = credited.then_some(s.h.player_id(s.b).0);
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, killer)]);
    s.h.step();
    let name = if credited { "bob" } else { "nil" };
    assert_eq!(
        s.log(s.a, "vdeath"),
        [format!("vdeath {} explosion {name} true", s.id.0)]
    );
}

#[rstest]
#[case::at_20_s(Duration::ZERO, true)]
#[case::after_20_s(Duration::from_millis(20), false)]
fn a_passing_shot_explains_an_explosion_for_20_s(#[case] late: Duration, #[case] credited: bool) {
    let mut s = scene(&format!("life_pass_window_{}", late.as_millis()), 411);
    s.arm(s.b);
    s.drive(249.0, 0.0);
    s.shoot_past(s.b, 1, 1.0);
    let shot_at = s.h.now();
    s.until(shot_at + Duration::from_secs(20) + late);
    s.explode(Some(s.b));
    let killer = credited.then_some(s.h.player_id(s.b).0);
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, killer)]);
}

#[test]
fn the_sender_is_never_its_own_killer() {
    let mut s = scene("life_self", 411);
    s.arm(s.a);
    // Alice shoots past her car on foot, then gets back in.
    vframe_support::unseat(&mut s.h, s.a, s.v);
    s.shoot_past(s.a, 1, 1.0);
    seat(&mut s.h, s.a, s.v, 0);
    s.burnt();
    s.explode(Some(s.a));
    assert_eq!(s.deaths(s.b), [(VehicleDeathCause::Exploded, None)]);
}

#[test]
fn another_generation_of_the_shooter_is_not_credited() {
    let mut s = scene("life_generation", 411);
    s.arm(s.b);
    s.shoot_past(s.b, 1, 1.0);
    s.burnt();
    let old = PlayerToken(s.token(s.b).0.wrapping_add(1));
    s.explode_epoch(
        s.a,
        0,
        VehicleDeathCause::Exploded,
        Some((s.h.player_id(s.b), old)),
    );
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, None)]);
}

#[rstest]
#[case::within_80(79.0, true)]
#[case::beyond_80(81.0, false)]
fn a_credited_explosion_credits_the_next_vehicle_within_80_m(
    #[case] apart: f32,
    #[case] credited: bool,
) {
    let mut s = scene(&format!("life_chain_{apart}"), 411);
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, HERE);
    let there = Vec3::new(SPOT.x, SPOT.y - apart, SPOT.z);
    let (w, w_id) = vehicle(&mut s.h, 411, there);
    seat(&mut s.h, c, w, 0);
    s.arm(s.b);
    s.shoot_past(s.b, 1, 1.0);
    frame(
        &mut s.h,
        c,
        1,
        w_id,
        VehicleState {
            health: 249.0,
            ..state(there)
        },
    );
    s.burnt();
    s.explode(Some(s.b));
    assert_eq!(
        s.deaths(s.a),
        [(VehicleDeathCause::Exploded, Some(s.h.player_id(s.b).0))]
    );
    let packet = VehicleExplode {
        session_token: s.h.token(c),
        event_id: EventId(0),
        vehicle_id: w_id,
        epoch: VehicleEpoch(0),
        cause: VehicleDeathCause::Exploded,
        has_attacker: true,
        attacker_id: s.h.player_id(s.b),
        attacker_token: s.token(s.b),
    };
    s.h.send_event(c, packet);
    s.h.step();
    let second: Vec<_> =
        s.h.packets::<VehicleDeath>(c)
            .iter()
            .filter(|d| d.vehicle_id == w_id)
            .map(|d| d.has_killer)
            .collect();
    assert_eq!(second, [credited]);
}

/// Bob drives a vehicle of `model` that stands `apart` + 30 m north of [`SPOT`] and fires
/// its weapon's salvo with one ray, from beside it to `apart` m north of [`SPOT`], and
/// one tick.
fn fire_at(s: &mut Scene, model: u16, order: u32, apart: f32) {
    let end = Vec3::new(SPOT.x, SPOT.y + apart, SPOT.z);
    let at = Vec3::new(end.x, end.y + 30.0, end.z);
    let (w, w_id) = vehicle(&mut s.h, model, at);
    seat(&mut s.h, s.b, w, 0);
    let mut rays = [Ray::ZERO; 2];
    rays[0] = Ray {
        start: Vec3::new(at.x, at.y - 3.0, at.z),
        end,
    };
    let shot = VehicleShot {
        session_token: s.h.token(s.b),
        order: Seq(order),
        vehicle_id: w_id,
        count: 1,
        rays,
        props_rev: Revision(0),
    };
    s.h.send(s.b, shot);
    s.h.step();
}

/// weapons.md §6: "Teargas and the tank shell are not in vehicles.md's table and credit no
/// vehicle's explosion" (§9: the shell credits DamageReport 51 at the ray's end).
#[test]
fn a_cannon_shell_explains_no_vehicles_explosion() {
    let mut s = scene("life_shell", 411);
    fire_at(&mut s, RHINO, 1, 5.0);
    s.burnt();
    s.explode(Some(s.b));
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, None)]);
}

#[test]
fn a_machine_gun_ray_ending_as_near_as_a_shell_does_not_explain_it() {
    let mut s = scene("life_shell_not_bullets", 411);
    fire_at(&mut s, HUNTER, 1, 20.0);
    s.burnt();
    s.explode(Some(s.b));
    assert_eq!(
        s.deaths(s.a),
        [(VehicleDeathCause::Exploded, None)],
        "a bullet must pass within 8 m"
    );
}

/// Carol sits behind Alice; Bob's shot passed by; the car blows up credited to Bob.
fn occupied_wreck(test: &str) -> (Scene, ClientId) {
    let mut s = scene(test, 400);
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, HERE);
    seat(&mut s.h, c, s.v, 1);
    s.arm(s.b);
    s.shoot_past(s.b, 1, 1.0);
    s.burnt();
    s.explode(Some(s.b));
    assert_eq!(
        s.deaths(c),
        [(VehicleDeathCause::Exploded, Some(s.h.player_id(s.b).0))]
    );
    (s, c)
}

fn report_death(s: &mut Scene, c: ClientId) {
    s.h.report_death(c, DeathPose::DEFAULT);
    s.h.steps(2);
}

#[rstest]
#[case::at_5_s(Duration::ZERO, "death carol bob 51")]
#[case::after_5_s(Duration::from_millis(20), "death carol nil 0")]
fn an_occupants_death_in_5_s_names_the_vehicles_killer(#[case] late: Duration, #[case] line: &str) {
    let (mut s, c) = occupied_wreck(&format!("life_window_{}", late.as_millis()));
    let exploded = s.h.now();
    s.until(exploded + Duration::from_secs(5) + late);
    report_death(&mut s, c);
    assert_eq!(s.log(c, "death"), [line]);
}

#[test]
fn an_exit_before_the_death_ends_the_window() {
    let (mut s, c) = occupied_wreck("life_window_exit");
    let packet = VehicleExit {
        session_token: s.h.token(c),
        event_id: EventId(0),
        vehicle_id: s.id,
    };
    s.h.send_event(c, packet);
    s.h.step();
    report_death(&mut s, c);
    assert_eq!(s.log(c, "death"), ["death carol nil 0"]);
}

/// vehicles.md VehicleExplode: "unless ... that player's VehicleExit came first" — in the
/// lane: an exit ahead of the death in the same tick wins (the occupant bailed out), a
/// death ahead of the exit keeps the killer.
#[rstest]
#[case::exit_first(true, "death carol nil 0")]
#[case::death_first(false, "death carol bob 51")]
fn an_exit_and_a_death_in_one_tick_are_judged_in_lane_order(
    #[case] exit_first: bool,
    #[case] line: &str,
) {
    let (mut s, c) = occupied_wreck(&format!("life_window_lane_{exit_first}"));
    let exit = VehicleExit {
        session_token: s.h.token(c),
        event_id: EventId(0),
        vehicle_id: s.id,
    };
    if exit_first {
        s.h.send_event(c, exit);
        s.h.report_death(c, DeathPose::DEFAULT);
    } else {
        s.h.report_death(c, DeathPose::DEFAULT);
        s.h.send_event(c, exit);
    }
    s.h.steps(2);
    assert_eq!(s.log(c, "death"), [line]);
}

/// The credit table's flamethrower row: a frame of weapon 37 with the fire key explains an
/// explosion for 85 s within 80 m of where the flamer stood.
#[rstest]
#[case::within_80(79.5, true)]
#[case::beyond_80(80.5, false)]
fn a_flamethrowers_flame_explains_an_explosion_within_80_m(
    #[case] apart: f32,
    #[case] credited: bool,
) {
    use dlmp::protocol::player::sync::{Frame, Keys};
    let mut s = scene(&format!("life_flame_{apart}"), 411);
    s.h.chat(s.b, "/give 37 500");
    s.h.steps(2);
    let at = Vec3::new(SPOT.x - apart, SPOT.y, SPOT.z);
    s.h.teleport(s.b, at);
    let rev = s.h.get::<dlmp::player::Inventory>(s.b).weapon_rev;
    let flame = Frame {
        weapon: 37,
        weapon_rev: rev,
        keys: Keys::FIRE,
        ..Frame::standing(at)
    };
    s.h.sync(s.b, 900, flame);
    s.burnt();
    s.explode(Some(s.b));
    let killer = credited.then_some(s.h.player_id(s.b).0);
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, killer)]);
}

#[test]
fn a_flamethrower_not_firing_explains_nothing() {
    use dlmp::protocol::player::sync::Frame;
    let mut s = scene("life_flame_idle", 411);
    s.h.chat(s.b, "/give 37 500");
    s.h.steps(2);
    let at = Vec3::new(SPOT.x - 10.0, SPOT.y, SPOT.z);
    s.h.teleport(s.b, at);
    let rev = s.h.get::<dlmp::player::Inventory>(s.b).weapon_rev;
    let idle = Frame {
        weapon: 37,
        weapon_rev: rev,
        ..Frame::standing(at)
    };
    s.h.sync(s.b, 900, idle);
    s.burnt();
    s.explode(Some(s.b));
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, None)]);
}

#[test]
fn the_explosions_own_damage_keeps_the_window() {
    let (mut s, c) = occupied_wreck("life_window_own_damage");
    let seq = s.h.get::<dlmp::player::Ledger>(c).damage_seq.0;
    let own = DamageReport {
        session_token: s.h.token(c),
        event_id: EventId(0),
        damage_seq: Seq(seq + 1),
        has_attacker: true,
        attacker_id: s.h.player_id(s.b),
        attacker_token: s.token(s.b),
        weapon: 51,
        amount: 5.0,
        bodypart: 3,
    };
    s.h.send_event(c, own);
    s.h.step();
    report_death(&mut s, c);
    assert_eq!(s.log(c, "death"), ["death carol bob 51"]);
}

#[test]
fn another_damage_before_the_death_ends_the_window() {
    let (mut s, c) = occupied_wreck("life_window_damage");
    let seq = s.h.get::<dlmp::player::Ledger>(c).damage_seq.0;
    s.h.report_damage(c, seq + 1, 54, 5.0);
    s.h.step();
    report_death(&mut s, c);
    assert_eq!(s.log(c, "death"), ["death carol nil 0"]);
}

#[test]
fn a_destroyed_wreck_ends_its_occupants_window() {
    let (mut s, c) = occupied_wreck("life_window_destroy");
    assert_eq!(destroy_vehicle(s.h.world_mut(), s.id), Ok(()));
    s.h.step();
    report_death(&mut s, c);
    assert_eq!(s.log(c, "death"), ["death carol nil 0"]);
}

#[test]
fn a_wreck_cannot_be_entered_nor_put_into() {
    let (mut s, c) = occupied_wreck("life_wreck_entry");
    let d = s.h.connect("dave");
    s.h.step();
    s.h.spawn(d, SPOT);
    s.h.live(d);
    let packet = VehicleEnter {
        session_token: s.h.token(d),
        event_id: EventId(0),
        vehicle_id: s.id,
        seat: 2,
    };
    s.h.send_event(d, packet);
    s.h.steps(2);
    let answers: Vec<_> =
        s.h.packets::<VehicleOccupancy>(d)
            .iter()
            .filter(|o| o.player_id == s.h.player_id(d))
            .map(|o| o.kind)
            .collect();
    assert_eq!(answers, [OccupancyKind::Deny]);
    s.h.chat(d, "/put 3");
    s.h.steps(2);
    assert!(
        s.h.chat_lines(d)
            .iter()
            .any(|l| l.contains(&format!("vehicle {} is a wreck", s.id.0))),
        "{:?}",
        s.h.chat_lines(d)
    );
    let _ = c;
}

/// The packets `c` got about the vehicle, in lane order, as words.
fn wire(h: &Harness, c: ClientId, id: VehicleId) -> Vec<String> {
    h.received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::VehicleOccupancy(o) if o.vehicle_id == id => {
                Some(format!("{:?} {} seat {}", o.kind, o.player_id.0, o.seat))
            }
            ServerPacket::VehicleSync(s) if s.vehicle_id == id && s.active => Some(format!(
                "show epoch {} flags {} health {} params {:#x}",
                s.epoch.0, s.flags, s.health, s.params
            )),
            ServerPacket::VehicleTuning(t) if t.vehicle_id == id => {
                Some(format!("tuning nitro {}", t.nitro))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_respawn_seats_out_then_shows_the_new_epoch_then_its_tail() {
    let mut s = scene("life_respawn", 416);
    // Tuned and parametrized by the gamemode, as the tuning and parameter features do.
    s.h.chat(s.b, "/tune");
    s.h.steps(2);
    assert_eq!(
        s.h.world()
            .get::<Params>(s.v)
            .map(|p| (p.doors, p.per_player.len())),
        Some((0b11, 1))
    );
    s.burnt();
    s.explode(None);
    s.h.step();
    s.h.clear(s.a);
    s.h.clear(s.b);
    s.h.chat(s.b, "/respawn");
    s.h.steps(2);
    let a = s.h.player_id(s.a).0;
    let expected = [
        format!("Exit {a} seat 0"),
        format!(
            "show epoch 1 flags 0 health 1000 params {:#x}",
            param::HAS_SIREN
        ),
        "tuning nitro 10".to_string(),
    ];
    assert_eq!(wire(&s.h, s.b, s.id), expected);
    assert_eq!(wire(&s.h, s.a, s.id), expected);
    assert_eq!(s.log(s.b, "respawned"), ["respawned 1 false 1000.0"]);
    let params = s.h.world().get::<Params>(s.v).expect("params").clone();
    assert_eq!(
        (params.bits, params.doors, params.per_player.len()),
        (param::HAS_SIREN, 0, 0)
    );
    assert!(s.h.world().get::<Seats>(s.v).expect("seats").is_empty());
    assert_eq!(
        s.life(),
        Life {
            epoch: VehicleEpoch(1),
            wrecked: false,
            drowned: false
        }
    );
    // The old epoch's explosion is stale now; the new life burns anew.
    s.explode_epoch(s.b, 0, VehicleDeathCause::Exploded, None);
    assert_eq!(s.stats().stale, 1);
}

#[test]
fn the_rust_api_respawns_too_and_refuses_a_vehicle_that_is_gone() {
    let mut s = scene("life_respawn_rust", 411);
    assert_eq!(respawn_vehicle(s.h.world_mut(), s.id), Ok(()));
    s.h.step();
    assert_eq!(s.life().epoch, VehicleEpoch(1));
    assert!(respawn_vehicle(s.h.world_mut(), VehicleId(999)).is_err());
}

// The projectile rows of the vehicle's killer (weapons.md §6, "Credit of a vehicle's
// explosion"), read from the attacker's action log.

/// Bob stands `apart` m west of [`SPOT`], the gamemode gives him the launcher of `weapon`,
/// his game arms it, and he launches it from beside his body, and one tick.
fn launch_at(s: &mut Scene, weapon: ProjectileWeapon, apart: f32) {
    let at = Vec3::new(SPOT.x - apart, SPOT.y, SPOT.z);
    s.h.teleport(s.b, at);
    let launcher = launcher_of(weapon);
    s.h.chat(s.b, &format!("/give {launcher} 5"));
    s.h.steps(2);
    arm_frame(s, launcher, at);
    let launch = Launch {
        weapon,
        vehicle_id: VehicleId::NONE,
        origin: Vec3::new(at.x + 0.5, at.y, at.z + 1.0),
        velocity: Vec3::new(0.5, 0.5, 0.25),
        target_id: VehicleId::NONE,
        target_epoch: VehicleEpoch(0),
    };
    let packet = ProjectileCreate {
        session_token: s.h.token(s.b),
        event_id: EventId(0),
        seen_event: last_sent(&s.h, s.b),
        launch,
    };
    s.h.send_event(s.b, packet);
    s.h.step();
    assert_eq!(
        s.h.world().resource::<LaunchStats>().accepted,
        1,
        "the launch is accepted"
    );
}

/// Bob's next frame at `at` arming `weapon` by his inventory, and one tick.
fn arm_frame(s: &mut Scene, weapon: u8, at: Vec3) {
    let inv = s.h.get::<Inventory>(s.b);
    let seq = s.h.get::<LastFrame>(s.b).seq.map_or(1, |q| q.0 + 1);
    let total = inv.ammo[usize::from(weapon)];
    let f = Frame {
        death_epoch: s.h.get::<DeathEpoch>(s.b).0,
        weapon,
        clip: total.min(1),
        total,
        weapon_rev: inv.weapon_rev,
        ..Frame::standing(at)
    };
    s.h.sync(s.b, seq, f);
}

/// The vehicle burns from the launch on and blows up `after` it, naming Bob; whether
/// VehicleDeath names him.
fn explodes_credited(s: &mut Scene, after: Duration) -> bool {
    let launched = s.h.now();
    s.drive(249.0, 0.0);
    s.until(launched + after.max(Duration::from_secs(5)));
    s.explode(Some(s.b));
    let deaths = s.deaths(s.a);
    assert_eq!(deaths.len(), 1, "the explosion is accepted");
    deaths[0].1 == Some(s.h.player_id(s.b).0)
}

#[rstest]
#[case::grenade_at_60_m(ProjectileWeapon::Grenade, 59.0, true)]
#[case::grenade_beyond_60_m(ProjectileWeapon::Grenade, 61.0, false)]
#[case::molotov_at_80_m(ProjectileWeapon::Molotov, 79.0, true)]
#[case::molotov_beyond_80_m(ProjectileWeapon::Molotov, 81.0, false)]
#[case::rocket_at_200_m(ProjectileWeapon::Rocket, 199.0, true)]
#[case::rocket_beyond_200_m(ProjectileWeapon::Rocket, 201.0, false)]
#[case::teargas_never(ProjectileWeapon::Teargas, 5.0, false)]
fn a_launch_explains_an_explosion_within_its_rows_distance(
    #[case] weapon: ProjectileWeapon,
    #[case] apart: f32,
    #[case] credited: bool,
) {
    let mut s = scene(&format!("life_launch_{}_{apart}", weapon as u8), 411);
    launch_at(&mut s, weapon, apart);
    assert_eq!(explodes_credited(&mut s, Duration::ZERO), credited);
}

#[rstest]
#[case::grenade_at_20_s(ProjectileWeapon::Grenade, 20, Duration::ZERO, true)]
#[case::grenade_after_20_s(ProjectileWeapon::Grenade, 20, Duration::from_millis(20), false)]
#[case::molotov_at_85_s(ProjectileWeapon::Molotov, 85, Duration::ZERO, true)]
#[case::molotov_after_85_s(ProjectileWeapon::Molotov, 85, Duration::from_millis(20), false)]
#[case::rocket_at_85_s(ProjectileWeapon::Rocket, 85, Duration::ZERO, true)]
#[case::rocket_after_85_s(ProjectileWeapon::Rocket, 85, Duration::from_millis(20), false)]
fn a_launch_explains_an_explosion_for_its_rows_window(
    #[case] weapon: ProjectileWeapon,
    #[case] window: u64,
    #[case] late: Duration,
    #[case] credited: bool,
) {
    let test = format!("life_launch_w_{}_{}", weapon as u8, late.as_millis());
    let mut s = scene(&test, 411);
    launch_at(&mut s, weapon, 10.0);
    let after = Duration::from_secs(window) + late;
    assert_eq!(explodes_credited(&mut s, after), credited);
}

#[rstest]
#[case::at_20_s(Duration::ZERO, true)]
#[case::after_20_s(Duration::from_millis(20), false)]
fn a_satchel_detonation_explains_an_explosion_for_20_s_at_any_distance(
    #[case] late: Duration,
    #[case] credited: bool,
) {
    let mut s = scene(&format!("life_satchel_{}", late.as_millis()), 411);
    launch_at(&mut s, ProjectileWeapon::Satchel, 300.0);
    s.h.advance(Duration::from_secs(1));
    let far = Vec3::new(SPOT.x - 300.0, SPOT.y, SPOT.z);
    arm_frame(&mut s, 40, far);
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = Vec3::new(far.x + 0.5, far.y, far.z + 1.0);
    let packet = SatchelDetonate {
        session_token: s.h.token(s.b),
        event_id: EventId(0),
        count: 1,
        pos,
    };
    s.h.send_event(s.b, packet);
    s.h.step();
    assert_eq!(
        s.h.world().resource::<DetonationStats>().accepted,
        1,
        "the detonation is accepted"
    );
    let after = Duration::from_secs(20) + late;
    assert_eq!(explodes_credited(&mut s, after), credited);
    if credited {
        s.h.step();
        assert_eq!(
            s.log(s.a, "vdeath"),
            [format!("vdeath {} explosion bob true", s.id.0)]
        );
    }
}

#[test]
fn a_rocket_the_gamemode_refused_explains_no_explosion() {
    let mut s = scene("life_rocket_refused", 411);
    s.h.chat(s.b, "/norockets");
    s.h.steps(2);
    launch_at(&mut s, ProjectileWeapon::Rocket, 10.0);
    assert!(!explodes_credited(&mut s, Duration::ZERO));
    s.h.step();
    assert_eq!(
        s.log(s.a, "vdeath"),
        [format!("vdeath {} explosion nil true", s.id.0)]
    );
}

#[test]
fn a_car_blown_up_by_a_grenade_names_its_killer_to_its_occupants_death() {
    let mut s = scene("life_grenade_occupant", 400);
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, HERE);
    seat(&mut s.h, c, s.v, 1);
    launch_at(&mut s, ProjectileWeapon::Grenade, 20.0);
    assert!(explodes_credited(&mut s, Duration::ZERO));
    s.h.step();
    assert_eq!(
        s.log(s.a, "vdeath"),
        [format!("vdeath {} explosion bob true", s.id.0)]
    );
    report_death(&mut s, c);
    assert_eq!(s.log(c, "death"), ["death carol bob 51"]);
}

#[rstest]
#[case::at_80_m("79", true)]
#[case::beyond_80_m("81", false)]
#[case::harmless("5 harmless", false)]
fn a_gamemode_explosion_explains_a_vehicles_explosion_within_80_m_of_its_center(
    #[case] args: &str,
    #[case] credited: bool,
) {
    let mut s = scene(&format!("life_gm_boom_{}", args.replace(' ', "_")), 411);
    s.h.chat(s.b, &format!("/boom {args}"));
    s.h.steps(2);
    assert_eq!(explodes_credited(&mut s, Duration::ZERO), credited);
}

/// weapons.md §6: the distance counts from the action's place to where the vehicle stood
/// at the action or at the explosion, whichever is smaller. The car burns, Bob's molotov
/// lands `apart` m from it, and the car is moved 400 m off before it blows up.
#[rstest]
#[case::near_at_the_throw(40.0, true)]
#[case::never_near(120.0, false)]
fn a_vehicle_near_an_action_is_explained_after_it_drove_away(
    #[case] apart: f32,
    #[case] credited: bool,
) {
    let mut s = scene(&format!("life_drove_away_{apart}"), 411);
    s.drive(249.0, 0.0);
    launch_at(&mut s, ProjectileWeapon::Molotov, apart);
    let far = Vec3::new(SPOT.x + 400.0, SPOT.y, SPOT.z);
    s.h.chat(s.a, &format!("/carto {} {}", far.x, far.y));
    s.h.steps(2);
    let until = s.h.now() + Duration::from_secs(5);
    while s.h.now() < until {
        let st = VehicleState {
            health: 249.0,
            ..state(far)
        };
        frame(&mut s.h, s.a, s.seq, s.id, st);
        s.seq += 1;
        s.h.steps(24);
    }
    let pose = *s.h.world().get::<Pose>(s.v).expect("a pose");
    assert_eq!(pose.position, far, "the car stands 400 m off");
    s.explode(Some(s.b));
    let deaths = s.deaths(s.a);
    assert_eq!(deaths.len(), 1, "the explosion is accepted");
    assert_eq!(deaths[0].1 == Some(s.h.player_id(s.b).0), credited);
}

/// The last event the server queued to `c`: what its client has applied when it launches.
fn last_sent(h: &Harness, c: ClientId) -> EventId {
    h.world()
        .get::<Connection>(h.entity(c))
        .expect("connected")
        .last_queued()
}

// A Hydra's rockets (weapons.md §2 and §6; vehicles.md "The vehicle's killer"): a rocket
// fired from a vehicle explains a vehicle's explosion within 200 m plus its 500 m flight
// path, a heat-seeker its target of that epoch at any distance.

/// The jet whose weapon fires rockets (19) and heat-seekers (20).
const HYDRA: u16 = 520;

/// Bob in the pilot's seat of a Hydra.
struct Pilot {
    id: VehicleId,
    at: Vec3,
    /// Bob's next Hydra frame seq.
    seq: u32,
}

/// Bob flies a new Hydra at `at`.
fn pilot(s: &mut Scene, at: Vec3) -> Pilot {
    let (hydra, id) = vehicle(&mut s.h, HYDRA, at);
    seat(&mut s.h, s.b, hydra, 0);
    s.h.clear(s.b);
    Pilot { id, at, seq: 1 }
}

/// Bob fires `weapon` from his Hydra along +x, locked on `target` if any, and one tick;
/// the launch is accepted.
fn fire(s: &mut Scene, p: &Pilot, weapon: ProjectileWeapon, target: Option<(VehicleId, u8)>) {
    let (target_id, epoch) = target.unwrap_or((VehicleId::NONE, 0));
    let before = s.h.world().resource::<LaunchStats>().accepted;
    let packet = ProjectileCreate {
        session_token: s.h.token(s.b),
        event_id: EventId(0),
        seen_event: last_sent(&s.h, s.b),
        launch: Launch {
            weapon,
            vehicle_id: p.id,
            origin: Vec3::new(p.at.x + 3.0, p.at.y, p.at.z),
            velocity: Vec3::new(2.0, 0.0, 0.0),
            target_id,
            target_epoch: VehicleEpoch(epoch),
        },
    };
    s.h.send_event(s.b, packet);
    s.h.step();
    let stats = s.h.world().resource::<LaunchStats>();
    assert_eq!(
        stats.accepted,
        before + 1,
        "the launch is accepted: {stats:?}"
    );
}

/// Runs ticks until the next one runs at `t`: Alice's car burns and drives along +x at
/// `speed` m/s (a frame each 5 ticks), Bob's Hydra sends a frame a second.
fn drive_burning(s: &mut Scene, p: &mut Pilot, t: Duration, speed: f32) {
    let mut n = 0u32;
    while s.h.now() + s.h.tick() < t {
        if n.is_multiple_of(5) {
            let from = s.h.world().get::<Pose>(s.v).expect("a pose").position;
            let step = speed * 5.0 * s.h.tick().as_secs_f32();
            let st = VehicleState {
                health: 249.0,
                move_speed: Vec3::new(speed / 50.0, 0.0, 0.0),
                epoch: s.life().epoch,
                ..state(Vec3::new(from.x + step, from.y, from.z))
            };
            send_frame(&mut s.h, s.a, s.seq, s.id, st);
            s.seq += 1;
        }
        if n.is_multiple_of(50) {
            send_frame(&mut s.h, s.b, p.seq, p.id, state(p.at));
            p.seq += 1;
        }
        n += 1;
        s.h.step();
    }
}

#[rstest]
#[case::at_600_m(600.0, true)]
#[case::at_720_m(720.0, false)]
fn a_hydras_rocket_credits_a_car_within_700_m_and_its_drivers_death(
    #[case] apart: f32,
    #[case] credited: bool,
) {
    let mut s = scene(&format!("life_hydra_{apart}"), 411);
    let mut p = pilot(&mut s, Vec3::new(SPOT.x - 3.0 - apart, SPOT.y, SPOT.z));
    fire(&mut s, &p, ProjectileWeapon::Rocket, None);
    let t = s.h.now() + Duration::from_secs(5);
    drive_burning(&mut s, &mut p, t, 0.0);
    s.explode(Some(s.b));
    let bob = s.h.player_id(s.b).0;
    let killer = credited.then_some(bob);
    assert_eq!(s.deaths(s.a), [(VehicleDeathCause::Exploded, killer)]);
    s.h.step();
    let name = if credited { "bob" } else { "nil" };
    assert_eq!(
        s.log(s.a, "vdeath"),
        [format!("vdeath {} explosion {name} true", s.id.0)]
    );
    s.h.advance(Duration::from_secs(2));
    let alice = s.a;
    report_death(&mut s, alice);
    let weapon = if credited { 51 } else { 0 };
    assert_eq!(
        s.log(s.a, "death"),
        [format!("death alice {name} {weapon}")]
    );
}

/// Carol drives a second car of `model` at `at`; its entity and id.
fn second_car(s: &mut Scene, at: Vec3) -> (ClientId, Entity, VehicleId) {
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, at);
    let (v, id) = vehicle(&mut s.h, 411, at);
    seat(&mut s.h, c, v, 0);
    (c, v, id)
}

#[test]
fn a_heat_seeker_credits_its_target_at_any_distance_and_not_another_car() {
    let mut s = scene("life_heat_seeker", 411);
    // Carol's car stands 1500 m from the Hydra, Alice's 150 m: the rocket locks on hers.
    let hydra_at = Vec3::new(SPOT.x - 153.0, SPOT.y, SPOT.z);
    let far = Vec3::new(hydra_at.x, SPOT.y + 1500.0, SPOT.z);
    let (c, carol_car, carol_id) = second_car(&mut s, far);
    let mut p = pilot(&mut s, hydra_at);
    s.h.clear(s.a);
    let target = Some((s.id, 0));
    fire(&mut s, &p, ProjectileWeapon::HeatSeeker, target);
    let relayed = s.h.packets::<RemoteProjectileCreate>(s.a);
    assert_eq!(relayed.len(), 1, "Alice is shown the Hydra");
    assert_eq!(
        (relayed[0].launch.target_id, relayed[0].launch.target_epoch),
        (s.id, VehicleEpoch(0)),
        "the target is kept"
    );
    // Alice drives 1500 m away burning (40 m/s), Carol's car burns where it stands.
    let mut carol_seq = 1;
    let burning = |at| VehicleState {
        health: 249.0,
        ..state(at)
    };
    frame(&mut s.h, c, carol_seq, carol_id, burning(far));
    let t = s.h.now() + Duration::from_millis(37_600);
    while s.h.now() + s.h.tick() < t {
        let next = (s.h.now() + Duration::from_secs(1)).min(t);
        drive_burning(&mut s, &mut p, next, 40.0);
        carol_seq += 1;
        send_frame(&mut s.h, c, carol_seq, carol_id, burning(far));
    }
    let car = s.h.world().get::<Pose>(s.v).expect("a pose").position;
    assert!(car.x - hydra_at.x > 1500.0, "{car:?}");
    // Carol's car: 1500 m from the origin, not the target.
    let packet = VehicleExplode {
        session_token: s.h.token(c),
        event_id: EventId(0),
        vehicle_id: carol_id,
        epoch: VehicleEpoch(0),
        cause: VehicleDeathCause::Exploded,
        has_attacker: true,
        attacker_id: s.h.player_id(s.b),
        attacker_token: s.token(s.b),
    };
    s.h.send_event(c, packet);
    s.h.step();
    assert!(
        s.h.world().get::<Life>(carol_car).expect("a life").wrecked,
        "Carol's car blew up"
    );
    let carol_deaths: Vec<_> =
        s.h.packets::<VehicleDeath>(c)
            .iter()
            .map(|d| (d.vehicle_id, d.has_killer))
            .collect();
    assert_eq!(carol_deaths, [(carol_id, false)], "not the rocket's target");
    // Alice's car, the target, 1500 m away.
    s.explode(Some(s.b));
    let bob = s.h.player_id(s.b).0;
    assert_eq!(
        s.deaths(s.a),
        [(VehicleDeathCause::Exploded, Some(bob))],
        "its target at any distance"
    );
}

#[test]
fn a_heat_seeker_locked_on_an_older_epoch_credits_nothing() {
    let mut s = scene("life_heat_seeker_epoch", 411);
    let hydra_at = Vec3::new(SPOT.x - 153.0, SPOT.y, SPOT.z);
    let mut p = pilot(&mut s, hydra_at);
    let target = Some((s.id, 0));
    fire(&mut s, &p, ProjectileWeapon::HeatSeeker, target);
    // The gamemode respawns the car (epoch 1); Alice gets in again and drives it away.
    s.h.chat(s.a, "/respawn");
    s.h.steps(2);
    assert_eq!(s.life().epoch, VehicleEpoch(1));
    seat(&mut s.h, s.a, s.v, 0);
    let t = s.h.now() + Duration::from_millis(37_600);
    drive_burning(&mut s, &mut p, t, 40.0);
    s.explode_epoch(
        s.a,
        1,
        VehicleDeathCause::Exploded,
        Some((s.h.player_id(s.b), s.token(s.b))),
    );
    assert_eq!(
        s.deaths(s.a),
        [(VehicleDeathCause::Exploded, None)],
        "the rocket was locked on the car's previous life"
    );
}

// The players' rows of a vehicle's explosion, a tank shell and a flame (weapons.md §6,
// "Credit of a DamageReport"): Carol, a bystander, reports damage naming Bob.

/// Carol, connected and spawned at `at`.
fn bystander(s: &mut Scene, at: Vec3) -> ClientId {
    let c = s.h.connect("carol");
    s.h.step();
    s.h.spawn(c, at);
    assert!(s.h.is_shown(s.b, c), "Bob is shown to Carol");
    c
}

/// Carol reports 1 hp of `weapon` damage naming Bob, and two ticks; the attacker
/// `player_damage` names.
fn carol_hurt(s: &mut Scene, c: ClientId, seq: u32, weapon: u8) -> String {
    let report = DamageReport {
        session_token: s.h.token(c),
        event_id: EventId(0),
        damage_seq: Seq(seq),
        has_attacker: true,
        attacker_id: s.h.player_id(s.b),
        attacker_token: s.token(s.b),
        weapon,
        amount: 1.0,
        bodypart: 3,
    };
    s.h.send_event(c, report);
    s.h.steps(2);
    let lines = s.log(c, "damage carol");
    let last = lines.last().expect("player_damage ran");
    last.split(' ').nth(2).expect("an attacker").to_owned()
}

#[rstest]
#[case::blast_within_30_m(51, 29.5, "bob")]
#[case::blast_beyond_30_m(51, 30.5, "nil")]
#[case::fire_within_80_m(37, 79.5, "bob")]
#[case::fire_beyond_80_m(37, 80.5, "nil")]
fn a_credited_vehicle_explosion_explains_a_bystanders_blast_and_fire(
    #[case] weapon: u8,
    #[case] apart: f32,
    #[case] attacker: &str,
) {
    let mut s = scene(&format!("life_bystander_{weapon}_{apart}"), 411);
    s.arm(s.b);
    s.shoot_past(s.b, 1, 1.0);
    s.burnt();
    s.explode(Some(s.b));
    assert_eq!(
        s.deaths(s.a),
        [(VehicleDeathCause::Exploded, Some(s.h.player_id(s.b).0))]
    );
    let c = bystander(&mut s, Vec3::new(SPOT.x, SPOT.y + apart, SPOT.z));
    assert_eq!(carol_hurt(&mut s, c, 1, weapon), attacker);
}

#[rstest]
#[case::within_30_m(29.5, "bob")]
#[case::beyond_30_m(30.5, "nil")]
fn a_tank_shell_explains_a_blast_within_30_m_of_its_rays_end(
    #[case] apart: f32,
    #[case] attacker: &str,
) {
    let mut s = scene(&format!("life_shell_bystander_{apart}"), 411);
    fire_at(&mut s, RHINO, 1, 5.0);
    let end = Vec3::new(SPOT.x, SPOT.y + 5.0, SPOT.z);
    let c = bystander(&mut s, Vec3::new(end.x + apart, end.y, end.z));
    assert_eq!(carol_hurt(&mut s, c, 1, 51), attacker);
    assert_eq!(
        carol_hurt(&mut s, c, 2, 37),
        "nil",
        "a shell leaves no fire"
    );
}

#[rstest]
#[case::within_80_m(79.5, "bob")]
#[case::beyond_80_m(80.5, "nil")]
fn a_flame_explains_fire_within_80_m(#[case] apart: f32, #[case] attacker: &str) {
    use dlmp::protocol::player::sync::Keys;
    let mut s = scene(&format!("life_flame_bystander_{apart}"), 411);
    s.h.chat(s.b, "/give 37 500");
    s.h.steps(2);
    let rev = s.h.get::<Inventory>(s.b).weapon_rev;
    let flame = Frame {
        weapon: 37,
        weapon_rev: rev,
        keys: Keys::FIRE,
        ..Frame::standing(HERE)
    };
    s.h.sync(s.b, 900, flame);
    let c = bystander(&mut s, Vec3::new(HERE.x, HERE.y - apart, HERE.z));
    assert_eq!(carol_hurt(&mut s, c, 1, 37), attacker);
    assert_eq!(carol_hurt(&mut s, c, 2, 51), "nil", "a flame is no blast");
}
