//! weapons.md §4, stealth kills, through bytes in the harness at the default tick: an
//! accepted StealthKillRequest sends RemoteStealthKill to both participants and to the
//! players the killer is shown to, then commits the victim's death through the ledger
//! (PlayerWasted with weapon 4 after each recipient's RemoteStealthKill, `player_damage` and
//! `player_death` naming the killer); each check of the page alone refuses it, counted by
//! its reason; the victim's own frames of the tick are taken before the kill; a flood is
//! limited by the weapon event limit (§7).

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::weapons::stealth::{StealthDrop, StealthStats};
use dlmp::player::{DeathEpoch, Inventory, LastFrame, Life};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::Seq;
use dlmp::protocol::ids::{EventId, PlayerToken};
use dlmp::protocol::player::life::DeathPose;
use dlmp::protocol::player::sync::{Frame, NO_AIM_TARGET, PlayerSync};
use dlmp::protocol::weapons::stealth::{RemoteStealthKill, StealthKillRequest};
use dlmp::session::Player;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);
/// The victim faces −x (yaw 90): 1.5 m on +x is behind it.
const BEHIND: Vec3 = Vec3::new(101.5, 200.0, 10.0);
const VICTIM_YAW: f32 = 90.0;

const SETUP: &str = r#"
dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
dlmp.add_command("freeze", function(p) p:set_frozen(true) end)
dlmp.add_command("team", function(p, args) p:set_team(tonumber(args[1])) end)
dlmp.add_command("teamdamage", function(p) dlmp.set_team_damage(true) end)
dlmp.add_command("off", function(p)
    dlmp.set_stealth_kills(false)
    dlmp.send_chat("on " .. tostring(dlmp.stealth_kills()), nil, { p })
end)
dlmp.add_command("deny", function(p) DENY = true end)
dlmp.add_command("sit", function(p)
    local x, y, z = p:position()
    dlmp.put_player_in_vehicle(p, dlmp.create_vehicle(411, x, y, z, 0), 0)
end)
dlmp.on("player_stealth_kill", function(k, v)
    for _, p in ipairs(dlmp.players()) do
        dlmp.send_chat("stealth " .. k:name() .. " " .. v:name(), nil, { p })
    end
    if DENY then return false end
end)
dlmp.on("player_damage", function(v, a, w, amount, part)
    dlmp.send_chat(string.format("damage %s %s %d %d %d", v:name(), a and a:name() or "-", w, amount, part), nil, { v })
end)
dlmp.on("player_death", function(p, k, w)
    dlmp.send_chat(string.format("death %s %s %d", p:name(), k and k:name() or "-", w), nil, { p })
end)
"#;

/// Alice (the killer) and Bob (the victim) at [`SPAWN`], each shown to the other; Alice
/// holds the knife.
fn two(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", SETUP);
    let mut h = scripts.harness();
    let (a, b) = h.connect_pair_at(SPAWN);
    h.advance(Duration::from_secs(1));
    h.chat(a, "/give 4 1");
    h.steps(2);
    (scripts, h, a, b)
}

/// The next frame of `c`: at `at` facing `yaw`, arming `weapon`, looking along `cam` at
/// `target`; one tick.
fn frame(h: &mut Harness, c: ClientId, (at, yaw): (Vec3, f32), weapon: u8, aim: (Vec3, u16)) {
    let inv = h.get::<Inventory>(c);
    let seq = h.get::<LastFrame>(c).seq.map_or(1, |s| s.0 + 1);
    let total = inv.ammo[usize::from(weapon)];
    let f = Frame {
        death_epoch: h.get::<DeathEpoch>(c).0,
        weapon,
        clip: total.min(1),
        total,
        weapon_rev: inv.weapon_rev,
        yaw,
        cam: aim.0,
        aim_target: aim.1,
        ..Frame::standing(at)
    };
    h.sync(c, seq, f);
}

fn aim_at(h: &Harness, victim: ClientId) -> (Vec3, u16) {
    let id = u16::try_from(h.player_id(victim).0).expect("a slot");
    (Vec3::new(-1.0, 0.0, 0.0), id)
}

/// Bob stands at [`SPAWN`] facing −x; `killer` stands at `at` with the knife, aiming at
/// Bob; every client's inbox is cleared.
fn ready(h: &mut Harness, killer: ClientId, victim: ClientId, at: Vec3) {
    frame(
        h,
        victim,
        (SPAWN, VICTIM_YAW),
        0,
        (Vec3::new(-1.0, 0.0, 0.0), NO_AIM_TARGET),
    );
    let aim = aim_at(h, victim);
    frame(h, killer, (at, VICTIM_YAW), 4, aim);
    h.clear(killer);
    h.clear(victim);
}

fn request(h: &Harness, killer: ClientId, victim: ClientId) -> StealthKillRequest {
    StealthKillRequest {
        session_token: h.token(killer),
        event_id: EventId(0),
        victim_id: h.player_id(victim),
        victim_token: h.get::<Player>(victim).token,
    }
}

/// `killer` asks to kill `victim`, and one tick.
fn ask(h: &mut Harness, killer: ClientId, victim: ClientId) {
    let r = request(h, killer, victim);
    h.send_event(killer, r);
    h.step();
}

fn stats(h: &Harness) -> StealthStats {
    h.world().resource::<StealthStats>().clone()
}

fn alive(h: &Harness, c: ClientId) -> bool {
    h.get::<Life>(c).alive
}

/// The RemoteStealthKills and PlayerWasteds `c` received, in order, as short names.
fn kill_and_death(h: &Harness, c: ClientId) -> Vec<&'static str> {
    h.received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::RemoteStealthKill(_) => Some("kill"),
            ServerPacket::PlayerWasted(_) => Some("wasted"),
            _ => None,
        })
        .collect()
}

/// `why` refused the request and nothing happened: Bob lives and nobody got a kill.
fn refused_for(h: &Harness, (a, b): (ClientId, ClientId), why: StealthDrop) {
    let s = stats(h);
    assert_eq!(s.drops(why), 1, "refused as {}: {s:?}", why.name());
    assert_eq!(s.accepted, 0);
    assert!(alive(h, b), "the victim lives");
    assert_eq!(h.packets::<RemoteStealthKill>(a), []);
    assert_eq!(h.packets::<RemoteStealthKill>(b), []);
}

#[test]
fn an_accepted_kill_reaches_both_and_the_ledger_commits_the_death_with_the_knife() {
    let (_s, mut h, a, b) = two("sk-accept");
    ready(&mut h, a, b, BEHIND);
    let life = h.get::<DeathEpoch>(b).0;
    ask(&mut h, a, b);
    assert_eq!(stats(&h).accepted, 1, "{:?}", stats(&h));
    assert!(
        !alive(&h, b),
        "the ledger committed the death in the kill's tick"
    );
    let expected = RemoteStealthKill {
        id: h.player_id(a),
        player_token: h.get::<Player>(a).token,
        event_id: EventId(0),
        victim_id: h.player_id(b),
        victim_token: h.get::<Player>(b).token,
        victim_life: life,
        pos: SPAWN,
        heading: VICTIM_YAW,
    };
    for c in [a, b] {
        let got = h.packets::<RemoteStealthKill>(c);
        assert_eq!(got.len(), 1, "one RemoteStealthKill to each participant");
        assert_eq!(
            RemoteStealthKill {
                event_id: EventId(0),
                ..got[0].clone()
            },
            expected
        );
    }
    // Alice sees Bob: his death follows her RemoteStealthKill on her lane; Bob's own
    // client gets no PlayerWasted of himself.
    assert_eq!(kill_and_death(&h, a), ["kill", "wasted"]);
    assert_eq!(kill_and_death(&h, b), ["kill"]);
    let wasted = h.packets::<dlmp::protocol::player::life::PlayerWasted>(a);
    assert_eq!(wasted[0].weapon, 4);
    assert_eq!(
        (wasted[0].anim_group, wasted[0].anim),
        (DeathPose::DEFAULT.anim_group, DeathPose::DEFAULT.anim)
    );
    h.step();
    let lines = h.chat_lines(b);
    assert!(lines.contains(&"stealth alice bob".to_owned()), "{lines:?}");
    assert!(
        lines.contains(&"damage bob alice 4 100 9".to_owned()),
        "{lines:?}"
    );
    assert!(lines.contains(&"death bob alice 4".to_owned()), "{lines:?}");
}

#[test]
fn the_victims_death_report_finds_it_dead_and_commits_nothing_more() {
    let (_s, mut h, a, b) = two("sk-report");
    ready(&mut h, a, b, BEHIND);
    ask(&mut h, a, b);
    h.step();
    h.report_death(
        b,
        DeathPose {
            weapon: 4,
            ..DeathPose::DEFAULT
        },
    );
    h.steps(2);
    let deaths = h
        .chat_lines(b)
        .into_iter()
        .filter(|l| l.starts_with("death "))
        .count();
    assert_eq!(deaths, 1, "one death per life");
    assert_eq!(
        kill_and_death(&h, a),
        ["kill", "wasted"],
        "no second PlayerWasted"
    );
}

#[test]
fn an_observer_gets_the_kill_before_the_death() {
    let (_s, mut h, a, b) = two("sk-observer");
    let c = h.connect("carol");
    h.step();
    h.spawn(c, SPAWN);
    assert!(h.is_shown(a, c) && h.is_shown(b, c));
    ready(&mut h, a, b, BEHIND);
    h.clear(c);
    ask(&mut h, a, b);
    assert_eq!(kill_and_death(&h, c), ["kill", "wasted"]);
}

#[test]
fn the_victims_frames_of_the_tick_come_first() {
    // Bob's frame that steps 1 m aside arrives in the kill's tick before the request:
    // RemoteStealthKill places him where that frame put him.
    let (_s, mut h, a, b) = two("sk-order");
    ready(&mut h, a, b, BEHIND);
    let moved = Vec3::new(SPAWN.x, SPAWN.y + 1.0, SPAWN.z);
    let seq = h.get::<LastFrame>(b).seq.map_or(1, |s| s.0 + 1);
    let f = Frame {
        death_epoch: h.get::<DeathEpoch>(b).0,
        yaw: VICTIM_YAW,
        ..Frame::standing(moved)
    };
    let r = request(&h, a, b);
    let sync = PlayerSync {
        session_token: h.token(b),
        seq: Seq(seq),
        frame: f,
    };
    h.send(b, sync);
    h.send_event(a, r);
    h.step();
    let got = h.packets::<RemoteStealthKill>(a);
    assert_eq!(got.len(), 1, "{:?}", stats(&h));
    assert_eq!(got[0].pos, moved);
}

#[test]
fn a_victim_that_walked_away_in_the_same_tick_is_out_of_reach() {
    let (_s, mut h, a, b) = two("sk-order-away");
    ready(&mut h, a, b, BEHIND);
    let away = Vec3::new(SPAWN.x - 2.5, SPAWN.y, SPAWN.z);
    let seq = h.get::<LastFrame>(b).seq.map_or(1, |s| s.0 + 1);
    let f = Frame {
        death_epoch: h.get::<DeathEpoch>(b).0,
        yaw: VICTIM_YAW,
        ..Frame::standing(away)
    };
    let r = request(&h, a, b);
    let sync = PlayerSync {
        session_token: h.token(b),
        seq: Seq(seq),
        frame: f,
    };
    h.send(b, sync);
    h.send_event(a, r);
    h.step();
    refused_for(&h, (a, b), StealthDrop::Distance);
}

#[test]
fn refused_when_the_gamemode_turned_stealth_kills_off() {
    let (_s, mut h, a, b) = two("sk-off");
    h.chat(a, "/off");
    h.steps(2);
    assert!(h.take_chat_lines(a).contains(&"on false".to_owned()));
    ready(&mut h, a, b, BEHIND);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Off);
}

#[test]
fn refused_when_the_killer_is_frozen() {
    let (_s, mut h, a, b) = two("sk-frozen");
    ready(&mut h, a, b, BEHIND);
    h.chat(a, "/freeze");
    h.steps(2);
    h.clear(a);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::NotInControl);
}

#[test]
fn refused_after_the_killers_own_death_report_in_the_same_tick() {
    let (_s, mut h, a, b) = two("sk-dead-killer");
    ready(&mut h, a, b, BEHIND);
    h.report_death(a, DeathPose::DEFAULT);
    ask(&mut h, a, b);
    assert!(!alive(&h, a), "the killer's death is committed");
    refused_for(&h, (a, b), StealthDrop::NotInControl);
}

#[test]
fn refused_without_the_knife_armed() {
    let (_s, mut h, a, b) = two("sk-unarmed");
    frame(
        &mut h,
        b,
        (SPAWN, VICTIM_YAW),
        0,
        (Vec3::new(-1.0, 0.0, 0.0), NO_AIM_TARGET),
    );
    let aim = aim_at(&h, b);
    h.advance(Duration::from_secs(1));
    frame(&mut h, a, (BEHIND, VICTIM_YAW), 0, aim);
    h.clear(a);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::NotArmed);
}

#[test]
fn refused_for_a_victim_of_another_generation_or_oneself() {
    let (_s, mut h, a, b) = two("sk-victim");
    ready(&mut h, a, b, BEHIND);
    let stale = StealthKillRequest {
        victim_token: PlayerToken(h.get::<Player>(b).token.0.wrapping_add(1).max(1)),
        ..request(&h, a, b)
    };
    h.send_event(a, stale);
    h.step();
    refused_for(&h, (a, b), StealthDrop::Victim);
    ask(&mut h, a, a);
    assert_eq!(stats(&h).drops(StealthDrop::Victim), 2);
}

#[test]
fn refused_in_another_scope() {
    let (_s, mut h, a, b) = two("sk-scope");
    ready(&mut h, a, b, BEHIND);
    h.set_scope(b, Some(7), None);
    h.steps(2);
    h.clear(a);
    h.clear(b);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::NotShown);
}

#[test]
fn refused_without_the_victim_as_the_aim_target() {
    let (_s, mut h, a, b) = two("sk-aim");
    frame(
        &mut h,
        b,
        (SPAWN, VICTIM_YAW),
        0,
        (Vec3::new(-1.0, 0.0, 0.0), NO_AIM_TARGET),
    );
    frame(
        &mut h,
        a,
        (BEHIND, VICTIM_YAW),
        4,
        (Vec3::new(-1.0, 0.0, 0.0), NO_AIM_TARGET),
    );
    h.clear(a);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Aim);
}

#[test]
fn refused_with_an_aim_older_than_a_second() {
    let (_s, mut h, a, b) = two("sk-aim-old");
    ready(&mut h, a, b, BEHIND);
    h.advance(Duration::from_millis(1100));
    h.clear(a);
    h.clear(b);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Aim);
}

#[test]
fn refused_from_more_than_3_m() {
    let (_s, mut h, a, b) = two("sk-far");
    ready(&mut h, a, b, Vec3::new(SPAWN.x + 3.2, SPAWN.y, SPAWN.z));
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Distance);
}

#[test]
fn accepted_from_just_within_3_m() {
    let (_s, mut h, a, b) = two("sk-near");
    ready(&mut h, a, b, Vec3::new(SPAWN.x + 2.9, SPAWN.y, SPAWN.z));
    ask(&mut h, a, b);
    assert_eq!(stats(&h).accepted, 1, "{:?}", stats(&h));
}

#[test]
fn refused_from_in_front() {
    let (_s, mut h, a, b) = two("sk-front");
    frame(
        &mut h,
        b,
        (SPAWN, VICTIM_YAW),
        0,
        (Vec3::new(-1.0, 0.0, 0.0), NO_AIM_TARGET),
    );
    let (_, id) = aim_at(&h, b);
    let front = Vec3::new(SPAWN.x - 1.5, SPAWN.y, SPAWN.z);
    frame(&mut h, a, (front, 270.0), 4, (Vec3::new(1.0, 0.0, 0.0), id));
    h.clear(a);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::NotBehind);
}

#[test]
fn refused_between_teammates_unless_team_damage() {
    let (_s, mut h, a, b) = two("sk-team");
    h.chat(a, "/team 3");
    h.chat(b, "/team 3");
    h.steps(2);
    ready(&mut h, a, b, BEHIND);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Teammate);
    h.chat(a, "/teamdamage");
    h.steps(2);
    ready(&mut h, a, b, BEHIND);
    ask(&mut h, a, b);
    assert_eq!(stats(&h).accepted, 1, "{:?}", stats(&h));
}

#[test]
fn refused_by_a_handler_of_player_stealth_kill() {
    let (_s, mut h, a, b) = two("sk-deny");
    h.chat(a, "/deny");
    h.steps(2);
    ready(&mut h, a, b, BEHIND);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Denied);
}

#[test]
fn a_second_request_of_the_tick_naming_a_participant_is_refused() {
    let (_s, mut h, a, b) = two("sk-busy");
    let c = h.connect("carol");
    h.step();
    h.spawn(c, SPAWN);
    h.advance(Duration::from_secs(1));
    h.chat(c, "/give 4 1");
    h.steps(2);
    ready(&mut h, a, b, BEHIND);
    let aim = aim_at(&h, b);
    frame(
        &mut h,
        c,
        (Vec3::new(SPAWN.x + 1.0, SPAWN.y + 0.5, SPAWN.z), VICTIM_YAW),
        4,
        aim,
    );
    let (ra, rc) = (request(&h, a, b), request(&h, c, b));
    h.send_event(a, ra);
    h.send_event(c, rc);
    h.step();
    let s = stats(&h);
    assert_eq!((s.accepted, s.drops(StealthDrop::Busy)), (1, 1), "{s:?}");
}

#[test]
fn a_flood_of_requests_is_limited_and_counted() {
    let (_s, mut h, a, b) = two("sk-flood");
    ready(&mut h, a, b, BEHIND);
    for _ in 0..12 {
        let r = request(&h, a, b);
        h.send_event(a, r);
    }
    h.step();
    let s = stats(&h);
    assert_eq!(s.accepted, 1, "{s:?}");
    assert_eq!(
        s.drops(StealthDrop::Busy),
        7,
        "the rest of the 8 tokens: {s:?}"
    );
    assert_eq!(s.drops(StealthDrop::Limit), 4, "{s:?}");
    assert_eq!(h.packets::<RemoteStealthKill>(b).len(), 1, "one kill");
}

#[test]
fn refused_from_more_than_1_5_m_above() {
    let (_s, mut h, a, b) = two("sk-above");
    ready(&mut h, a, b, Vec3::new(BEHIND.x, BEHIND.y, SPAWN.z + 1.7));
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Distance);
}

#[test]
fn refused_while_the_killer_is_paused() {
    let (_s, mut h, a, b) = two("sk-paused");
    frame(
        &mut h,
        b,
        (SPAWN, VICTIM_YAW),
        0,
        (Vec3::new(-1.0, 0.0, 0.0), NO_AIM_TARGET),
    );
    let aim = aim_at(&h, b);
    let inv = h.get::<Inventory>(a);
    let seq = h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
    let f = Frame {
        death_epoch: h.get::<DeathEpoch>(a).0,
        weapon: 4,
        clip: 1,
        total: inv.ammo[4],
        weapon_rev: inv.weapon_rev,
        yaw: VICTIM_YAW,
        cam: aim.0,
        aim_target: aim.1,
        paused: true,
        ..Frame::standing(BEHIND)
    };
    h.sync(a, seq, f);
    assert!(
        h.get::<dlmp::player::Body>(a).paused,
        "the frame paused Alice"
    );
    h.clear(a);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::NotInControl);
}

/// The gamemode seats `c` in a new car where it stands (`/sit`), and the seat is taken.
fn sit(h: &mut Harness, c: ClientId) {
    h.advance(Duration::from_secs(1));
    h.chat(c, "/sit");
    h.steps(20);
    assert!(
        h.world()
            .get::<dlmp_core::vehicle::Seated>(h.entity(c))
            .is_some(),
        "seated"
    );
    h.clear(c);
}

#[test]
fn refused_when_the_killer_sits_in_a_vehicle() {
    let (_s, mut h, a, b) = two("sk-killer-seated");
    ready(&mut h, a, b, BEHIND);
    sit(&mut h, a);
    ready(&mut h, a, b, BEHIND);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Seated);
}

#[test]
fn refused_when_the_victim_sits_in_a_vehicle() {
    let (_s, mut h, a, b) = two("sk-victim-seated");
    sit(&mut h, b);
    let aim = aim_at(&h, b);
    frame(&mut h, a, (BEHIND, VICTIM_YAW), 4, aim);
    h.clear(a);
    h.clear(b);
    ask(&mut h, a, b);
    refused_for(&h, (a, b), StealthDrop::Victim);
}

#[test]
fn the_victims_frame_after_the_kill_neither_revives_it_nor_moves_its_death() {
    // Bob's client sends a living frame of the same life, 1 m aside, in the tick after the
    // kill (it has not applied RemoteStealthKill yet): Bob stays dead, the death is not
    // committed or relayed again, and Alice's copy of him stays dead.
    let (_s, mut h, a, b) = two("sk-order-after");
    ready(&mut h, a, b, BEHIND);
    let life = h.get::<DeathEpoch>(b).0;
    ask(&mut h, a, b);
    assert!(!alive(&h, b), "{:?}", stats(&h));
    assert_eq!(kill_and_death(&h, a), ["kill", "wasted"]);
    h.clear(a);
    let seq = h.get::<LastFrame>(b).seq.map_or(1, |s| s.0 + 1);
    let f = Frame {
        death_epoch: life,
        yaw: VICTIM_YAW,
        ..Frame::standing(Vec3::new(SPAWN.x, SPAWN.y + 1.0, SPAWN.z))
    };
    h.sync(b, seq, f);
    h.steps(2);
    assert!(!alive(&h, b), "a frame cannot revive");
    assert_eq!(h.get::<DeathEpoch>(b).0, life);
    assert_eq!(kill_and_death(&h, a), Vec::<&str>::new(), "one death");
    let relays = h.packets::<dlmp::protocol::player::sync::RemotePlayerSync>(a);
    assert!(
        !relays.is_empty() && relays.iter().all(|r| !r.frame.alive),
        "the relay carries the server's alive: {relays:?}"
    );
    let deaths = h
        .chat_lines(b)
        .into_iter()
        .filter(|l| l.starts_with("death "))
        .collect::<Vec<_>>();
    assert_eq!(deaths, ["death bob alice 4"]);
}
