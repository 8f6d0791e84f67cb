//! weapons.md §6, "Credit of a DamageReport", through bytes in the harness at the default
//! tick: a victim's DamageReport of an explosion (51, and 16, 19, 20, 35, 36, 39, 40 counted
//! as 51), fire (37, and 18) or teargas (17) names its attacker to `player_damage` and the
//! ledger only when connection.md's condition holds and an action of the attacker's log
//! explains it: a grenade 60 m / 10 s, a rocket 200 m (fired from a vehicle 700 m) / 10 s, a
//! heat-seeker's target occupants at any distance, a satchel detonation 10 s, the
//! gamemode's explosion its radius + 10 m / 10 s, fire 80 m / 85 s, teargas 60 m / 30 s.
//! Each row at its edges: inside credits, outside counts without an attacker.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::weapons::launch::{LaunchStats, launcher_of};
use dlmp::player::{DeathEpoch, Inventory, LastFrame};
use dlmp::protocol::connection::damage::DamageReport;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, PlayerToken, Seq, VehicleEpoch, VehicleId};
use dlmp::protocol::player::sync::Frame;
use dlmp::protocol::weapons::projectile::{Launch, ProjectileCreate, ProjectileWeapon};
use dlmp::protocol::weapons::satchel::SatchelDetonate;
use dlmp::session::{Connection, Player};
use rstest::rstest;

/// Where Bob acts.
const HERE: Vec3 = Vec3::new(100.0, 200.0, 10.0);

/// A gamemode that logs the damage its players take, gives weapons, puts a player at the
/// wheel of a new vehicle and creates explosions credited to the caller.
const GM: &str = r#"
local function name(p) return p and p:name() or "nil" end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_damage", function(v, a, w, amount, part)
    dlmp.send_chat(string.format("damage %s %d", name(a), w), nil, { v })
end)
dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
dlmp.add_command("drive", function(p, args)
    local v = dlmp.create_vehicle(tonumber(args[1]), tonumber(args[2]), tonumber(args[3]), 10, 0)
    dlmp.put_player_in_vehicle(p, v, 0)
end)
dlmp.add_command("carto", function(p, args)
    dlmp.set_vehicle_position(p:vehicle(), tonumber(args[1]), tonumber(args[2]), 10)
end)
dlmp.add_command("boom", function(p, args)
    dlmp.create_explosion(100, 200, 10, 0, { radius = tonumber(args[1]), creator = p, harmless = args[2] == "harmless" })
end)
"#;

struct Scene {
    _scripts: TempScripts,
    h: Harness,
    /// Alice takes the damage.
    a: ClientId,
    /// Bob acts.
    b: ClientId,
    /// Alice's next damage_seq.
    seq: u32,
}

/// Alice and Bob spawned at [`HERE`] by the gamemode, each shown to the other.
fn scene(test: &str) -> Scene {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", GM);
    // Idle players outlive the 85 s windows.
    let mut h = scripts.harness_with(|c| dlmp::config::Config {
        session_timeout_ms: 3_600_000,
        ..c
    });
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    for c in [a, b] {
        h.request_spawn(c);
    }
    h.steps(4);
    assert!(h.is_shown(b, a), "streaming shows Bob to Alice");
    h.take_chat_lines(a);
    Scene {
        _scripts: scripts,
        h,
        a,
        b,
        seq: 1,
    }
}

impl Scene {
    /// The gamemode gives Bob the launcher of `weapon`, his game arms it where he stands,
    /// and he launches it beside his body: one tick, accepted.
    fn launch(&mut self, weapon: ProjectileWeapon) {
        let launcher = launcher_of(weapon);
        self.give(launcher);
        let at = HERE;
        self.send_launch(Launch {
            weapon,
            vehicle_id: VehicleId::NONE,
            origin: Vec3::new(at.x + 0.5, at.y, at.z + 1.0),
            velocity: Vec3::new(0.5, 0.5, 0.25),
            target_id: VehicleId::NONE,
            target_epoch: VehicleEpoch(0),
        });
    }

    /// The gamemode gives Bob `weapon` and his game arms it at [`HERE`].
    fn give(&mut self, weapon: u8) {
        self.h.advance(Duration::from_secs(1));
        self.h.chat(self.b, &format!("/give {weapon} 5"));
        self.h.steps(2);
        self.arm(weapon);
    }

    /// Bob's next frame at [`HERE`] arming `weapon` by his inventory, and one tick.
    fn arm(&mut self, weapon: u8) {
        let (h, b) = (&mut self.h, self.b);
        let inv = h.get::<Inventory>(b);
        let seq = h.get::<LastFrame>(b).seq.map_or(1, |q| q.0 + 1);
        let total = inv.ammo[usize::from(weapon)];
        let f = Frame {
            death_epoch: h.get::<DeathEpoch>(b).0,
            weapon,
            clip: total.min(1),
            total,
            weapon_rev: inv.weapon_rev,
            ..Frame::standing(HERE)
        };
        h.sync(b, seq, f);
    }

    /// Bob's client sends ProjectileCreate of `launch`, having seen all the server sent.
    fn send_launch(&mut self, launch: Launch) {
        let before = self.accepted();
        let seen_event = self
            .h
            .world()
            .get::<Connection>(self.h.entity(self.b))
            .expect("connected")
            .last_queued();
        let packet = ProjectileCreate {
            session_token: self.h.token(self.b),
            event_id: EventId(0),
            seen_event,
            launch,
        };
        self.h.send_event(self.b, packet);
        self.h.step();
        assert_eq!(self.accepted(), before + 1, "the launch is accepted");
    }

    fn accepted(&self) -> u64 {
        self.h.world().resource::<LaunchStats>().accepted
    }

    /// The gamemode moves Alice `apart` m east of [`HERE`].
    fn alice_at(&mut self, apart: f32) {
        self.h
            .teleport(self.a, Vec3::new(HERE.x + apart, HERE.y, HERE.z));
    }

    /// Alice's client reports 1 hp of `weapon` damage naming Bob; the attacker
    /// `player_damage` names.
    fn hurt(&mut self, weapon: u8) -> String {
        let (h, a, b) = (&mut self.h, self.a, self.b);
        let report = DamageReport {
            session_token: h.token(a),
            event_id: EventId(0),
            damage_seq: Seq(self.seq),
            has_attacker: true,
            attacker_id: h.player_id(b),
            attacker_token: h.get::<Player>(b).token,
            weapon,
            amount: 1.0,
            bodypart: 3,
        };
        self.seq += 1;
        h.take_chat_lines(a);
        h.send_event(a, report);
        h.steps(2);
        let lines = h.take_chat_lines(a);
        assert_eq!(lines.len(), 1, "one player_damage: {lines:?}");
        let words: Vec<&str> = lines[0].split(' ').collect();
        assert_eq!(words[2], weapon.to_string(), "the weapon as reported");
        words[1].to_owned()
    }

    /// Waits until `after` has passed since `since`.
    fn wait(&mut self, since: Duration, after: Duration) {
        let until = since + after;
        let now = self.h.now();
        if until > now {
            self.h.advance(until - now);
        }
    }
}

#[test]
fn without_an_action_an_explosion_fire_or_gas_names_no_attacker() {
    let mut s = scene("dc-none");
    for weapon in [51, 16, 19, 20, 35, 36, 39, 40, 37, 18, 17] {
        assert_eq!(s.hurt(weapon), "nil", "weapon {weapon}");
    }
    assert_eq!(s.hurt(4), "bob", "a knife needs no action");
}

#[rstest]
#[case::at_60_m(59.5, 0, "bob")]
#[case::beyond_60_m(60.5, 0, "nil")]
#[case::at_10_s(10.0, 9_900, "bob")]
#[case::after_10_s(10.0, 10_100, "nil")]
fn a_grenade_explains_an_explosion_within_60_m_for_10_s(
    #[case] apart: f32,
    #[case] late_ms: u64,
    #[case] attacker: &str,
) {
    let mut s = scene(&format!("dc-grenade-{apart}-{late_ms}"));
    s.alice_at(apart);
    s.launch(ProjectileWeapon::Grenade);
    let t = s.h.now();
    s.wait(t, Duration::from_millis(late_ms));
    assert_eq!(s.hurt(51), attacker);
    assert_eq!(s.hurt(16), attacker, "16 counts as 51");
    assert_eq!(s.hurt(37), "nil", "a grenade leaves no fire");
}

#[rstest]
#[case::at_80_m(79.5, 0, "bob")]
#[case::beyond_80_m(80.5, 0, "nil")]
#[case::at_85_s(10.0, 84_900, "bob")]
#[case::after_85_s(10.0, 85_100, "nil")]
fn a_molotov_explains_fire_within_80_m_for_85_s(
    #[case] apart: f32,
    #[case] late_ms: u64,
    #[case] attacker: &str,
) {
    let mut s = scene(&format!("dc-molotov-{apart}-{late_ms}"));
    s.alice_at(apart);
    s.launch(ProjectileWeapon::Molotov);
    let t = s.h.now();
    s.wait(t, Duration::from_millis(late_ms));
    assert_eq!(s.hurt(37), attacker);
    assert_eq!(s.hurt(18), attacker, "18 counts as 37");
    assert_eq!(s.hurt(51), "nil", "a molotov explains its fire only");
}

#[rstest]
#[case::at_60_m(59.5, 0, "bob")]
#[case::beyond_60_m(60.5, 0, "nil")]
#[case::at_30_s(10.0, 29_900, "bob")]
#[case::after_30_s(10.0, 30_100, "nil")]
fn teargas_explains_gas_within_60_m_for_30_s(
    #[case] apart: f32,
    #[case] late_ms: u64,
    #[case] attacker: &str,
) {
    let mut s = scene(&format!("dc-gas-{apart}-{late_ms}"));
    s.alice_at(apart);
    s.launch(ProjectileWeapon::Teargas);
    let t = s.h.now();
    s.wait(t, Duration::from_millis(late_ms));
    assert_eq!(s.hurt(17), attacker);
    assert_eq!(s.hurt(51), "nil");
}

#[rstest]
#[case::at_200_m(199.5, "bob")]
#[case::beyond_200_m(200.5, "nil")]
fn a_rocket_on_foot_explains_an_explosion_within_200_m(#[case] apart: f32, #[case] attacker: &str) {
    let mut s = scene(&format!("dc-rocket-{apart}"));
    s.alice_at(apart);
    s.launch(ProjectileWeapon::Rocket);
    for weapon in [51, 19, 35] {
        assert_eq!(s.hurt(weapon), attacker, "weapon {weapon}");
    }
}

/// Bob drives a new Hydra at [`HERE`]; its id.
fn hydra(s: &mut Scene) -> VehicleId {
    s.h.advance(Duration::from_secs(1));
    s.h.chat(s.b, &format!("/drive 520 {} {}", HERE.x, HERE.y));
    s.h.steps(20);
    let seat = s.h.get::<dlmp_core::vehicle::Seated>(s.b);
    assert_eq!(seat.seat, 0, "Bob drives");
    seat.id
}

/// Bob fires `weapon` from his Hydra `v`, at it, 2.0 faster than it, at `target`.
fn fire_from(
    s: &mut Scene,
    weapon: ProjectileWeapon,
    v: VehicleId,
    target: Option<(VehicleId, VehicleEpoch)>,
) {
    let (target_id, target_epoch) = target.unwrap_or((VehicleId::NONE, VehicleEpoch(0)));
    s.send_launch(Launch {
        weapon,
        vehicle_id: v,
        origin: Vec3::new(HERE.x, HERE.y + 5.0, HERE.z + 1.0),
        velocity: Vec3::new(0.0, 2.0, 0.0),
        target_id,
        target_epoch,
    });
}

/// A seated player is shown exactly when its vehicle is (player.md), within 200 m: the
/// pilot flies on after firing, and Alice, 350 m from where the rocket started, sees him.
#[test]
fn a_rocket_fired_from_a_vehicle_adds_its_flight_path() {
    let mut s = scene("dc-hydra");
    let v = hydra(&mut s);
    fire_from(&mut s, ProjectileWeapon::Rocket, v, None);
    s.h.chat(s.b, &format!("/carto {} {}", HERE.x + 300.0, HERE.y));
    s.alice_at(350.0);
    assert!(
        s.h.is_shown(s.b, s.a),
        "the Hydra's pilot is shown to Alice"
    );
    assert_eq!(
        s.hurt(51),
        "bob",
        "350 m: within 200 m + the 500 m flight path"
    );
    assert_eq!(s.hurt(19), "bob");
    // On foot, the same places: 200 m.
    let mut s = scene("dc-foot-350");
    s.launch(ProjectileWeapon::Rocket);
    s.h.teleport(s.b, Vec3::new(HERE.x + 300.0, HERE.y, HERE.z));
    s.alice_at(350.0);
    assert!(s.h.is_shown(s.b, s.a));
    assert_eq!(s.hurt(51), "nil", "a rocket on foot reaches 200 m");
}

#[test]
fn a_heat_seeker_explains_the_damage_of_its_targets_occupants_at_any_distance() {
    let mut s = scene("dc-seeker");
    // Alice drives a car 100 m east: Bob's launcher locks on it.
    s.h.advance(Duration::from_secs(1));
    s.h.chat(s.a, &format!("/drive 411 {} {}", HERE.x + 100.0, HERE.y));
    s.h.steps(20);
    let car = s.h.get::<dlmp_core::vehicle::Seated>(s.a);
    let epoch =
        s.h.world()
            .get::<dlmp_core::vehicle::Life>(car.vehicle)
            .expect("a vehicle")
            .epoch;
    s.give(36);
    s.send_launch(Launch {
        weapon: ProjectileWeapon::HeatSeeker,
        vehicle_id: VehicleId::NONE,
        origin: Vec3::new(HERE.x + 0.5, HERE.y, HERE.z + 1.0),
        velocity: Vec3::new(0.5, 0.5, 0.25),
        target_id: car.id,
        target_epoch: epoch,
    });
    // The car flies 350 m off with her in it: beyond the 200 m of a rocket on foot.
    s.h.chat(s.a, &format!("/carto {} {}", HERE.x + 350.0, HERE.y));
    s.h.steps(2);
    assert_eq!(
        s.h.get::<dlmp_core::position::Position>(s.a).0.x,
        HERE.x + 350.0
    );
    assert_eq!(s.hurt(51), "bob", "she sits in its target");
    assert_eq!(s.hurt(20), "bob");
    let t = s.h.now();
    s.wait(t, Duration::from_secs(10));
    assert_eq!(s.hurt(51), "nil", "10 s later");
}

#[test]
fn a_satchel_detonation_explains_an_explosion_at_any_distance_for_10_s() {
    let mut s = scene("dc-satchel");
    s.launch(ProjectileWeapon::Satchel);
    s.alice_at(400.0);
    assert_eq!(s.hurt(51), "nil", "thrown, not burst");
    s.arm(40);
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = Vec3::new(HERE.x + 1.0, HERE.y, HERE.z);
    let packet = SatchelDetonate {
        session_token: s.h.token(s.b),
        event_id: EventId(0),
        count: 1,
        pos,
    };
    s.h.send_event(s.b, packet);
    s.h.step();
    let t = s.h.now();
    assert_eq!(s.hurt(51), "bob", "400 m away");
    assert_eq!(s.hurt(39), "bob");
    assert_eq!(s.hurt(40), "bob");
    s.wait(t, Duration::from_millis(10_100));
    assert_eq!(s.hurt(51), "nil");
}

#[rstest]
#[case::within_radius_and_10_m(8.0, 17.5, "bob")]
#[case::beyond(8.0, 18.5, "nil")]
fn a_gamemode_explosion_explains_its_creators_blast_within_its_radius_and_10_m(
    #[case] radius: f32,
    #[case] apart: f32,
    #[case] attacker: &str,
) {
    let mut s = scene(&format!("dc-boom-{apart}"));
    s.alice_at(apart);
    s.h.chat(s.b, &format!("/boom {radius}"));
    s.h.steps(2);
    assert_eq!(s.hurt(51), attacker);
    assert_eq!(s.hurt(37), "bob", "and fire within 80 m");
}

#[test]
fn a_harmless_explosion_explains_nothing() {
    let mut s = scene("dc-harmless");
    s.alice_at(2.0);
    s.h.chat(s.b, "/boom 8 harmless");
    s.h.steps(2);
    assert_eq!(s.hurt(51), "nil");
}

#[test]
fn an_action_of_an_earlier_generation_explains_nothing() {
    let mut s = scene("dc-generation");
    s.alice_at(5.0);
    s.launch(ProjectileWeapon::Grenade);
    // Bob reconnects: a new generation of the same name has no launch.
    let old: PlayerToken = s.h.get::<Player>(s.b).token;
    s.h.disconnect(s.b);
    s.h.steps(2);
    s.b = s.h.connect("bob");
    s.h.step();
    s.h.request_spawn(s.b);
    s.h.steps(4);
    assert_ne!(s.h.get::<Player>(s.b).token, old);
    assert!(s.h.is_shown(s.b, s.a));
    assert_eq!(s.hurt(51), "nil");
}

/// weapons.md §2: "Its own damage from the projectile counts without an attacker (a player
/// is never shown to itself)": Bob's report of his own grenade names nobody.
#[test]
fn a_launchers_own_damage_from_its_projectile_has_no_attacker() {
    let mut s = scene("dc-own");
    s.launch(ProjectileWeapon::Grenade);
    let (h, b) = (&mut s.h, s.b);
    let report = DamageReport {
        session_token: h.token(b),
        event_id: EventId(0),
        damage_seq: Seq(1),
        has_attacker: true,
        attacker_id: h.player_id(b),
        attacker_token: h.get::<Player>(b).token,
        weapon: 51,
        amount: 1.0,
        bodypart: 3,
    };
    h.take_chat_lines(b);
    h.send_event(b, report);
    h.steps(2);
    assert_eq!(h.take_chat_lines(b), ["damage nil 51"]);
}
