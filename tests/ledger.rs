//! connection.md §6, "The ledger", and player.md, DeathReport / PlayerWasted, in the
//! harness: DamageReports lower armor then health, frames lower it only in the client's
//! order, a health of 0 commits the death once, attribution.

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::ledger::{FrozenContactDrops, LedgerSettings, RecentShots};
use dlmp::player::{Ledger, Life, Team};
use dlmp::protocol::connection::damage::DamageReport;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, PlayerId, PlayerToken, Revision, Seq};
use dlmp::protocol::player::life::{DeathReport, PlayerWasted};
use dlmp::protocol::player::sync::{Frame, PlayerSync, RemotePlayerSync};
use dlmp::session::Player;
use dlmp_core::position::{Position, Scope};
use dlmp_core::viewers::Viewers;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);

/// Alice and Bob at [`SPAWN`], each shown to the other.
fn two() -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(SPAWN);
    (h, a, b)
}

fn frame() -> Frame {
    Frame::standing(SPAWN)
}

fn token(h: &Harness, c: ClientId) -> PlayerToken {
    h.get::<Player>(c).token
}

/// A DamageReport from `victim`, without stepping.
fn damage(
    h: &mut Harness,
    victim: ClientId,
    seq: u32,
    attacker: Option<ClientId>,
    weapon: u8,
    amount: f32,
) {
    let r = report(h, victim, seq, attacker, weapon, amount);
    h.send_event(victim, r);
}

/// The DamageReport [`damage`] sends.
fn report(
    h: &Harness,
    victim: ClientId,
    seq: u32,
    attacker: Option<ClientId>,
    weapon: u8,
    amount: f32,
) -> DamageReport {
    let (has_attacker, attacker_id, attacker_token) = match attacker {
        Some(a) => (true, h.player_id(a), token(h, a)),
        None => (false, PlayerId::NONE, PlayerToken(0)),
    };
    DamageReport {
        session_token: h.token(victim),
        event_id: EventId(0),
        damage_seq: Seq(seq),
        has_attacker,
        attacker_id,
        attacker_token,
        weapon,
        amount,
        bodypart: 3,
    }
}

fn death(h: &mut Harness, victim: ClientId, weapon: u8) {
    let report = DeathReport {
        session_token: h.token(victim),
        event_id: EventId(0),
        weapon,
        anim_group: 0,
        anim: 17,
    };
    h.send_event(victim, report);
}

fn ledger(h: &Harness, c: ClientId) -> Ledger {
    h.get::<Ledger>(c)
}

#[test]
fn damage_lowers_armor_first_then_health() {
    let (_s, mut h, a) = commands("armor-first");
    h.chat(a, "/armor 50");
    h.steps(2);
    damage(&mut h, a, 1, None, 0, 70.0);
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.health, l.armor, l.damage_seq), (80.0, 0.0, Seq(1)));
    assert_eq!(l.last_weapon, 0);
}

#[test]
fn fire_drowning_and_falls_lower_health_only() {
    let (_s, mut h, a) = commands("health-only");
    h.chat(a, "/armor 50");
    h.steps(2);
    for (seq, w) in [(1, 37), (2, 53), (3, 54)] {
        damage(&mut h, a, seq, None, w, 10.0);
    }
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.health, l.armor, l.damage_seq), (70.0, 50.0, Seq(3)));
}

#[test]
fn frame_vitals_are_taken_only_in_the_clients_order_and_only_downward() {
    let (mut h, a, _) = two();
    damage(&mut h, a, 1, None, 0, 10.0);
    h.step();
    assert_eq!(ledger(&h, a).health, 90.0);
    // Sent before the report: damage_seq 0.
    let mut f = frame();
    f.hp = 50.0;
    h.sync(a, 1, f);
    assert_eq!(ledger(&h, a).health, 90.0);
    // In order: taken.
    f.damage_seq = Seq(1);
    f.hp = 60.0;
    f.armor = 0.0;
    h.sync(a, 2, f);
    assert_eq!(ledger(&h, a).health, 60.0);
    // The client cannot heal itself.
    f.hp = 80.0;
    h.sync(a, 3, f);
    assert_eq!(ledger(&h, a).health, 60.0);
}

#[test]
fn a_frame_overtaking_a_health_command_is_ignored() {
    let (_s, mut h, a) = commands("overtaking");
    h.chat(a, "/hp 150");
    h.steps(2);
    let mut f = frame();
    f.hp = 100.0;
    h.sync(a, 1, f);
    assert_eq!(ledger(&h, a).health, 150.0);
    f.vital_rev = Revision(1);
    f.hp = 140.0;
    h.sync(a, 2, f);
    assert_eq!(ledger(&h, a).health, 140.0);
}

#[test]
fn a_ledger_death_commits_with_player_wasted_to_viewers_not_the_victim() {
    let (mut h, a, b) = two();
    h.clear(a);
    h.clear(b);
    damage(&mut h, a, 1, None, 54, 150.0);
    // Committed in the tick the report arrives, PlayerWasted sent in it (rule 4).
    h.step();
    assert!(!h.get::<Life>(a).alive);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!(
        (
            wasted[0].id,
            wasted[0].weapon,
            wasted[0].anim_group,
            wasted[0].anim
        ),
        (h.player_id(a), 54, 0, 15)
    );
    assert!(h.packets::<PlayerWasted>(a).is_empty());
    // The DeathReport that follows finds the player dead.
    death(&mut h, a, 54);
    h.steps(2);
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1);
}

#[test]
fn player_wasted_goes_only_to_the_players_the_victim_is_shown_to() {
    let (mut h, a, b) = two();
    let c = h.connect("carol");
    h.step();
    h.spawn(c, Vec3::new(3000.0, 200.0, 10.0));
    h.steps(2);
    assert!(!h.get::<Viewers>(a).contains(h.player_id(c)));
    h.clear(b);
    h.clear(c);
    death(&mut h, a, 31);
    h.steps(2);
    assert!(!h.get::<Life>(a).alive);
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1);
    assert!(
        h.packets::<PlayerWasted>(c).is_empty(),
        "not shown: not told"
    );
}

#[test]
fn a_death_report_first_commits_and_the_ledger_does_not_again() {
    let (mut h, a, b) = two();
    h.clear(b);
    death(&mut h, a, 31);
    damage(&mut h, a, 1, None, 31, 150.0);
    h.steps(2);
    assert!(!h.get::<Life>(a).alive);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!((wasted[0].weapon, wasted[0].anim), (31, 17));
    // The report of a dead player is counted but not applied.
    let l = ledger(&h, a);
    assert_eq!((l.health, l.damage_seq), (100.0, Seq(1)));
}

#[test]
fn a_lethal_report_and_a_death_report_in_one_tick_commit_once_by_the_first() {
    let (mut h, a, b) = two();
    h.clear(b);
    damage(&mut h, a, 1, None, 54, 150.0);
    death(&mut h, a, 31);
    h.step();
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!(
        (wasted[0].weapon, wasted[0].anim),
        (54, 15),
        "the ledger's commit, default pose"
    );
    h.steps(2);
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1);
}

#[test]
fn a_death_report_with_a_pose_the_game_does_not_produce_is_wasted_with_the_default() {
    let (mut h, a, b) = two();
    h.clear(b);
    let report = DeathReport {
        session_token: h.token(a),
        event_id: EventId(0),
        weapon: 31,
        anim_group: 0,
        anim: 21,
    };
    h.send_event(a, report);
    h.steps(2);
    assert!(!h.get::<Life>(a).alive);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!(
        (wasted[0].weapon, wasted[0].anim_group, wasted[0].anim),
        (0, 0, 15)
    );
}

#[test]
fn a_frame_bringing_health_to_zero_commits_the_death() {
    let (mut h, a, b) = two();
    h.clear(b);
    let mut f = frame();
    f.hp = 0.0;
    // One tick: the frame, the commit, PlayerWasted and the frame's relay, dead.
    h.sync(a, 1, f);
    assert!(!h.get::<Life>(a).alive);
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1);
    let relays = h.packets::<RemotePlayerSync>(b);
    let relay = relays.last().expect("the frame's relay");
    assert_eq!((relay.seq, relay.frame.alive), (Seq(1), false));
}

#[test]
fn a_melee_attacker_shown_to_the_victim_is_credited() {
    let (mut h, a, b) = two();
    damage(&mut h, a, 1, Some(b), 3, 5.0);
    h.step();
    assert_eq!(ledger(&h, a).last_attacker, Some(h.entity(b)));
}

#[test]
fn a_dead_attacker_or_one_in_another_scope_is_not_credited() {
    let (mut h, a, b) = two();
    h.die(b);
    damage(&mut h, a, 1, Some(b), 3, 5.0);
    h.step();
    let l = ledger(&h, a);
    assert_eq!(
        (l.last_attacker, l.health),
        (None, 95.0),
        "counts without attacker"
    );

    h.respawn(b);
    h.live(b);
    assert!(h.get::<Life>(b).alive);
    // No command moves a player to another scope while streaming still shows it there,
    // so the scope and the show are written: the scope alone refuses the credit.
    h.with::<Scope>(b, |s| s.virtual_world = 2);
    let id = h.player_id(a);
    h.with::<Viewers>(b, |v| v.insert(id));
    damage(&mut h, a, 2, Some(b), 3, 5.0);
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.last_attacker, l.health), (None, 90.0));
}

#[test]
fn an_attacker_not_shown_to_the_victim_is_not_credited() {
    let (mut h, a, b) = two();
    let id = h.player_id(a);
    h.with::<Viewers>(b, |v| v.remove(id));
    damage(&mut h, a, 1, Some(b), 3, 5.0);
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.last_attacker, l.health), (None, 95.0));
}

#[test]
fn contact_damage_from_a_frozen_attacker_is_refused() {
    let (mut h, a, b) = two();
    h.freeze(b, true);
    // The fist, a knife, ramming and a rotor: refused, their seq still counts.
    for (seq, weapon) in [(1, 0), (2, 4), (3, 49), (4, 50)] {
        damage(&mut h, a, seq, Some(b), weapon, 10.0);
    }
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.health, l.damage_seq), (100.0, Seq(4)));
    assert_eq!(
        l.last_report_at, None,
        "no report of this life describes a death"
    );
    assert_eq!(h.world().resource::<FrozenContactDrops>().0, 4);
    // A frame in the client's order after them is taken.
    let mut f = frame();
    f.hp = 90.0;
    f.damage_seq = Seq(4);
    h.sync(a, 1, f);
    assert_eq!(ledger(&h, a).health, 90.0);

    // A spray can (41) is not contact damage: the ordinary rules credit the attacker.
    damage(&mut h, a, 5, Some(b), 41, 10.0);
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.health, l.last_attacker), (80.0, Some(h.entity(b))));
    assert_eq!(h.world().resource::<FrozenContactDrops>().0, 4);

    // Unfrozen, the same fist is credited.
    h.freeze(b, false);
    damage(&mut h, a, 6, Some(b), 0, 10.0);
    h.step();
    let l = ledger(&h, a);
    assert_eq!((l.health, l.last_attacker), (70.0, Some(h.entity(b))));
}

const GM: &str = r#"
local function say(p, s) dlmp.send_chat(s, nil, { p }) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_damage", function(v, a, w, amount, part)
    say(v, string.format("damage %s %d %.0f %d", a and a:name() or "nil", w, amount, part))
end)
dlmp.on("player_death", function(p, k, w)
    say(p, string.format("death %s %d", k and k:name() or "nil", w))
end)
"#;

/// Alice and Bob spawned by [`GM`], Bob shown to Alice (so he may be credited for
/// damage to her); what Alice was told so far is forgotten.
fn scripted_pair(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", GM);
    // Idle players outlive the waits of these tests.
    let mut h = s.harness_with(|c| dlmp::config::Config {
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
    assert!(h.is_shown(b, a), "streaming shows Bob at Alice's point");
    h.take_chat_lines(a);
    (s, h, a, b)
}

#[test]
fn scripts_hear_player_damage_and_player_death() {
    let (_s, mut h, a, b) = scripted_pair("ledger-events");
    damage(&mut h, a, 1, Some(b), 4, 60.0);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage bob 4 60 3"]);
    damage(&mut h, a, 2, Some(b), 4, 60.0);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage bob 4 60 3", "death bob 4"]);
}

#[test]
fn a_wrong_attacker_token_credits_nobody() {
    let (_s, mut h, a, b) = scripted_pair("wrong-token");
    let mut r = report(&h, a, 1, Some(b), 4, 60.0);
    r.attacker_token = PlayerToken(token(&h, b).0 + 1);
    h.send_event(a, r);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage nil 4 60 3"]);
    assert_eq!(ledger(&h, a).last_attacker, None);
    // Token 0 is no generation at all: the decoder drops that report before the ledger.
    let drops = h.stats().total_drops();
    let mut r = report(&h, a, 2, Some(b), 4, 60.0);
    r.attacker_token = PlayerToken(0);
    h.send(a, r);
    h.steps(2);
    assert_eq!(h.stats().total_drops(), drops + 1);
    assert!(h.chat_lines(a).is_empty(), "the ledger never saw it");
    let mut r = report(&h, a, 2, Some(b), 4, 60.0);
    r.attacker_token = PlayerToken(token(&h, b).0 + 2);
    h.send_event(a, r);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage nil 4 60 3", "death nil 4"]);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!((wasted.len(), wasted[0].weapon), (1, 4));
}

#[test]
fn a_ledger_death_names_the_weapon_and_attacker_of_the_last_report_however_old() {
    use dlmp::player::ledger::KILL_CREDIT;
    let (_s, mut h, a, b) = scripted_pair("kill-credit");
    damage(&mut h, a, 1, Some(b), 4, 30.0);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage bob 4 30 3"]);
    h.advance(KILL_CREDIT * 3);
    h.clear(b);
    // A frame in the client's order brings health to 0: a ledger death, long after the
    // report, names that report (connection.md §6, rule 4).
    let mut f = frame();
    f.hp = 0.0;
    f.damage_seq = Seq(1);
    h.sync(a, 1, f);
    assert!(!h.get::<Life>(a).alive, "committed in the frame's tick");
    h.step();
    assert_eq!(h.take_chat_lines(a), ["death bob 4"]);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!((wasted.len(), wasted[0].weapon), (1, 4));
}

#[test]
fn a_ledger_death_without_a_report_of_this_life_names_no_killer_and_weapon_0() {
    let (_s, mut h, a, b) = scripted_pair("kill-credit-none");
    h.clear(b);
    let mut f = frame();
    f.hp = 0.0;
    h.sync(a, 1, f);
    h.step();
    assert_eq!(h.take_chat_lines(a), ["death nil 0"]);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!((wasted.len(), wasted[0].weapon), (1, 0));
}

#[test]
fn a_death_report_within_ten_seconds_names_the_attacker() {
    let (_s, mut h, a, b) = scripted_pair("kill-credit-recent");
    damage(&mut h, a, 1, Some(b), 4, 30.0);
    h.advance(std::time::Duration::from_secs(9));
    death(&mut h, a, 4);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage bob 4 30 3", "death bob 4"]);
}

#[test]
fn a_death_report_long_after_the_last_damage_names_no_killer() {
    use dlmp::player::ledger::KILL_CREDIT;
    let (_s, mut h, a, b) = scripted_pair("kill-credit-stale");
    damage(&mut h, a, 1, Some(b), 4, 30.0);
    h.advance(KILL_CREDIT + h.tick());
    death(&mut h, a, 54);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage bob 4 30 3", "death nil 54"]);
}

#[test]
fn a_respawn_forgets_the_attacker_of_the_previous_life() {
    let (_s, mut h, a, b) = scripted_pair("kill-credit-respawn");
    damage(&mut h, a, 1, Some(b), 4, 100.0);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["damage bob 4 100 3", "death bob 4"]);
    h.respawn(a);
    assert!(h.get::<Life>(a).alive, "respawned");
    assert_eq!(ledger(&h, a).last_report(), None);
    // The new life's own death follows its first living frame.
    h.live(a);
    death(&mut h, a, 54);
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["death nil 54"]);
}

const COMMANDS: &str = r#"
local function say(p, s) dlmp.send_chat(s, nil, { p }) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_command", function(p, name, args)
    local ok, err = pcall(function()
        if name == "hp" then
            p:set_health(tonumber(args[1]))
            say(p, string.format("hp %.0f", p:health()))
        elseif name == "armor" then
            p:set_armor(tonumber(args[1]))
            say(p, string.format("armor %.0f", p:armor()))
        elseif name == "gun" then
            p:give_weapon(tonumber(args[1]), tonumber(args[2]))
        elseif name == "team" then
            p:set_team(tonumber(args[1]))
        elseif name == "td" then
            dlmp.set_team_damage(args[1] == "on")
        elseif name == "range" then
            dlmp.set_weapon_range(tonumber(args[1]), tonumber(args[2]))
        elseif name == "said_hp" then
            say(p, "first")
            p:set_health(tonumber(args[1]))
        elseif name == "err" then
            say(p, tostring(_G.E))
        end
    end)
    if not ok then _G.E = tostring(err) say(p, _G.E) end
    return true
end)
"#;

fn commands(test: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", COMMANDS);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.steps(4);
    h.take_chat_lines(a);
    (s, h, a)
}

#[test]
fn set_health_and_set_armor_send_the_command_with_a_raised_vital_rev() {
    use dlmp::protocol::connection::weapons::{GiveArmor, GiveHealth};
    let (_s, mut h, a) = commands("vitals");
    h.chat(a, "/hp 150");
    h.steps(2);
    let health = h.packets::<GiveHealth>(a);
    assert_eq!(h.take_chat_lines(a), ["hp 150"]);
    assert_eq!(
        (health.len(), health[0].health, health[0].vital_rev),
        (1, 150.0, Revision(1))
    );
    h.chat(a, "/armor 50");
    h.steps(2);
    let armor = h.packets::<GiveArmor>(a);
    assert_eq!(h.take_chat_lines(a), ["armor 50"]);
    assert_eq!((armor[0].armor, armor[0].vital_rev), (50.0, Revision(2)));
    let l = ledger(&h, a);
    assert_eq!((l.health, l.armor, l.vital_rev), (150.0, 50.0, Revision(2)));
}

#[test]
fn set_health_0_commits_the_death_in_the_same_tick() {
    let (_s, mut h, a) = commands("sethealth0");
    let b = h.connect("bob");
    h.spawn(b, h.get::<Position>(a).0);
    h.steps(2);
    h.clear(b);
    h.chat(a, "/hp 0");
    h.step();
    assert!(!h.get::<Life>(a).alive, "dead in the tick of the command");
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1);
    assert!(
        h.packets::<PlayerWasted>(a).is_empty(),
        "not sent to the victim"
    );
}

#[test]
fn set_health_outside_the_range_is_a_clear_error() {
    let (_s, mut h, a) = commands("vital-errors");
    h.chat(a, "/hp 250");
    h.steps(2);
    let lines = h.take_chat_lines(a);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].contains("set_health: value 250 is outside 0..=200"),
        "{lines:?}"
    );
    assert_eq!(ledger(&h, a).vital_rev, Revision(0));
}

#[test]
fn armor_weapon_team_and_range_calls_out_of_range_are_clear_errors_that_change_nothing() {
    use dlmp::player::ledger::WeaponRanges;
    use dlmp::protocol::connection::weapons::GiveWeapon;
    let (_s, mut h, a) = commands("grant-errors");
    let mut lines = Vec::new();
    for (i, line) in [
        "/armor 201",
        "/gun 47 10",
        "/gun 31 70000",
        "/team -1",
        "/range 40 100",
        "/range 31 0",
    ]
    .into_iter()
    .enumerate()
    {
        if i % 4 == 3 {
            // The chat limit: five lines a second.
            h.advance(std::time::Duration::from_secs(1));
        }
        h.chat(a, line);
        h.steps(2);
        lines.extend(h.take_chat_lines(a));
    }
    let expect = [
        "set_armor: value 201 is outside 0..=200",
        "give_weapon: weapon 47 is outside 0..=46",
        "give_weapon: ammo 70000 is outside 0..=65535",
        "set_team: team -1 is outside 0..=4294967295",
        "set_weapon_range: weapon 40 is outside 22..=38",
        "set_weapon_range: meters 0 is outside 0 < m <= 10000",
    ];
    assert_eq!(lines.len(), expect.len(), "{lines:?}");
    for (line, want) in lines.iter().zip(expect) {
        assert!(line.contains(want), "{line:?} should say {want:?}");
    }
    let l = ledger(&h, a);
    assert_eq!((l.armor, l.vital_rev), (0.0, Revision(0)));
    assert!(h.packets::<GiveWeapon>(a).is_empty());
    assert_eq!(h.get::<Team>(a).relation_rev, 0);
    assert_eq!(
        *h.world().resource::<WeaponRanges>(),
        WeaponRanges::default()
    );
}

#[test]
fn give_weapon_sends_give_weapon_with_a_raised_weapon_rev() {
    use dlmp::player::Inventory;
    use dlmp::protocol::connection::weapons::GiveWeapon;
    let (_s, mut h, a) = commands("give-weapon");
    h.chat(a, "/gun 31 120");
    h.steps(2);
    let given = h.packets::<GiveWeapon>(a);
    assert_eq!(given.len(), 1);
    assert_eq!(
        (given[0].weapon, given[0].ammo, given[0].weapon_rev),
        (31, 120, Revision(1))
    );
    let inv = h.get::<Inventory>(a);
    assert!(inv.holds(31));
    assert_eq!((inv.ammo[31], inv.weapon_rev), (120, Revision(1)));
}

#[test]
fn set_team_team_damage_and_weapon_range_reach_the_server_state() {
    use dlmp::player::stream::StreamingSettings;
    let (_s, mut h, a) = commands("team");
    h.chat(a, "/team 3");
    h.chat(a, "/td on");
    h.chat(a, "/range 31 200");
    h.chat(a, "/range 34 600");
    h.steps(3);
    assert!(h.take_chat_lines(a).is_empty());
    let team = h.get::<Team>(a);
    assert_eq!((team.group, team.relation_rev), (3, 1));
    assert!(h.world().resource::<LedgerSettings>().team_damage);
    assert_eq!(
        h.world().resource::<StreamingSettings>().weapon_range,
        Some(600.0)
    );
}

#[test]
fn the_relation_revision_grows_on_every_change_of_the_group_and_only_then() {
    let (_s, mut h, a) = commands("relation");
    h.chat(a, "/team 3");
    h.steps(2);
    assert_eq!(h.get::<Team>(a).relation_rev, 1);
    h.chat(a, "/team 3");
    h.steps(2);
    assert_eq!(
        h.get::<Team>(a).relation_rev,
        1,
        "the same group is no change"
    );
    h.chat(a, "/team 0");
    h.steps(2);
    let team = h.get::<Team>(a);
    assert_eq!((team.group, team.relation_rev), (0, 2));
}

mod shots {
    use super::*;
    use dlmp::player::Body;
    use dlmp::player::Inventory;
    use dlmp::player::scope::SetScope;
    use dlmp::player::shots::ShotDrops;
    use dlmp::protocol::connection::rewind::RewindTarget;
    use dlmp::protocol::connection::weapons::{HitKind, RemoteWeaponShot, WeaponShot};

    /// The gamemode's commands these tests arm and team their players with.
    const GM: &str = r#"
    dlmp.add_command("give", function(p, args) p:give_weapon(tonumber(args[1]), tonumber(args[2])) end)
    dlmp.add_command("team", function(p, args) p:set_team(tonumber(args[1])) end)
    dlmp.add_command("ff", function(p, args) dlmp.set_team_damage(args[1] == "on") end)
    "#;

    /// Alice and Bob at [`SPAWN`], shown to each other, with [`GM`] running.
    fn two() -> (TempScripts, Harness, ClientId, ClientId) {
        let scripts = TempScripts::new("ledger-shots");
        scripts.resource("gm", GM);
        let mut h = scripts.harness();
        let (a, b) = h.connect_pair_at(SPAWN);
        (scripts, h, a, b)
    }

    /// The gamemode's `give_weapon(weapon, ammo)` (GiveWeapon; the rounds are added).
    fn armed(h: &mut Harness, c: ClientId, weapon: u8, ammo: u16) {
        h.chat(c, &format!("/give {weapon} {ammo}"));
        h.steps(2);
    }

    /// The gamemode's `set_team(group)`.
    fn team(h: &mut Harness, c: ClientId, group: u32) {
        h.chat(c, &format!("/team {group}"));
        h.steps(2);
    }

    fn shot(h: &Harness, c: ClientId, order: u32, weapon: u8, hit: Vec3) -> WeaponShot {
        WeaponShot {
            session_token: h.token(c),
            order: Seq(order),
            weapon,
            origin: SPAWN,
            hit,
            hit_kind: HitKind::Nothing,
            hit_id: 0xFFFF_FFFF,
            props_rev: Revision(0),
        }
    }

    fn fire(h: &mut Harness, c: ClientId, s: WeaponShot) {
        h.send(c, s);
        h.step();
    }

    fn fire_at(h: &mut Harness, c: ClientId, order: u32, weapon: u8, hit: Vec3) {
        let s = shot(h, c, order, weapon, hit);
        fire(h, c, s);
    }

    fn ahead(m: f32) -> Vec3 {
        Vec3::new(SPAWN.x + m, SPAWN.y, SPAWN.z)
    }

    #[test]
    fn a_teammate_counts_without_attacker_unless_team_damage_is_on() {
        let (_s, mut h, a, b) = two();
        for c in [a, b] {
            team(&mut h, c, 4);
        }
        damage(&mut h, a, 1, Some(b), 3, 5.0);
        h.step();
        assert_eq!(ledger(&h, a).last_attacker, None);
        h.chat(a, "/ff on");
        h.steps(2);
        damage(&mut h, a, 2, Some(b), 3, 5.0);
        h.step();
        assert_eq!(ledger(&h, a).last_attacker, Some(h.entity(b)));
    }

    #[test]
    fn a_firearm_attacker_needs_a_recent_shot_ending_near_the_victim() {
        let (_s, mut h, a, b) = two();
        armed(&mut h, b, 31, 10);
        damage(&mut h, a, 1, Some(b), 31, 5.0);
        h.step();
        assert_eq!(ledger(&h, a).last_attacker, None, "no shot at all");
        fire_at(&mut h, b, 1, 31, ahead(10.0));
        damage(&mut h, a, 2, Some(b), 31, 5.0);
        h.step();
        assert_eq!(ledger(&h, a).last_attacker, None, "the ray ended too far");
        fire_at(&mut h, b, 2, 31, SPAWN);
        damage(&mut h, a, 3, Some(b), 30, 5.0);
        h.step();
        assert_eq!(ledger(&h, a).last_attacker, None, "another weapon");
        damage(&mut h, a, 4, Some(b), 31, 5.0);
        h.step();
        assert_eq!(ledger(&h, a).last_attacker, Some(h.entity(b)));
    }

    #[test]
    fn a_hide_carries_the_order_of_the_shooters_last_accepted_shot() {
        use dlmp::protocol::player::streaming::PlayerStreamOut;
        let (_s, mut h, a, b) = two();
        armed(&mut h, a, 31, 10);
        fire_at(&mut h, a, 7, 31, ahead(20.0));
        fire_at(&mut h, a, 9, 31, ahead(20.0));
        h.set_scope(b, Some(3), None);
        h.step();
        let hides = h.packets::<PlayerStreamOut>(b);
        assert_eq!(hides.len(), 1);
        assert_eq!(
            (hides[0].player_id, hides[0].last_shot_order),
            (h.player_id(a), Seq(9))
        );
    }

    #[test]
    fn an_accepted_shot_spends_a_round_and_is_relayed_with_the_rewind() {
        let (_s, mut h, a, b) = two();
        armed(&mut h, a, 31, 10);
        let bob_at = h.get::<Position>(b).0;
        h.clear(b);
        let mut s = shot(&h, a, 1, 31, bob_at);
        s.hit_kind = HitKind::Player;
        s.hit_id = h.player_id(b).0;
        fire(&mut h, a, s);
        assert_eq!(h.get::<Inventory>(a).ammo[31], 9);
        assert_eq!(h.get::<RecentShots>(a).0.len(), 1);
        let relayed = h.packets::<RemoteWeaponShot>(b);
        assert_eq!(relayed.len(), 1);
        let r = &relayed[0];
        assert_eq!((r.id, r.order, r.weapon), (h.player_id(a), Seq(1), 31));
        assert!(r.rewind.rewound);
        assert_eq!(r.rewind.target_kind, RewindTarget::Player);
        assert_eq!(r.rewind.target_id, h.player_id(b).0);
        assert_eq!(r.rewind.target_pos, bob_at);
        assert!(h.packets::<RemoteWeaponShot>(a).is_empty());
        assert_eq!(h.world().resource::<ShotDrops>().accepted, 1);
        // The shot credits a firearm attacker.
        damage(&mut h, b, 1, Some(a), 31, 10.0);
        h.step();
        assert_eq!(ledger(&h, b).last_attacker, Some(h.entity(a)));
    }

    #[test]
    fn a_relayed_shot_carries_every_field_of_the_shot_and_the_rewind() {
        use dlmp::protocol::connection::rewind::ShotRewind;
        let (_s, mut h, a, b) = two();
        armed(&mut h, a, 31, 10);
        let moved = Vec3::new(SPAWN.x + 1.0, SPAWN.y, SPAWN.z);
        h.sync(a, 1, Frame::standing(moved));
        let bob_at = h.get::<Position>(b).0;
        h.clear(b);
        let mut s = shot(&h, a, 5, 31, bob_at);
        s.origin = Vec3::new(moved.x, moved.y, moved.z + 0.6);
        s.hit_kind = HitKind::Player;
        s.hit_id = h.player_id(b).0;
        fire(&mut h, a, s.clone());
        let r = h.packets::<RemoteWeaponShot>(b)[0].clone();
        assert_eq!((r.id, r.player_token), (h.player_id(a), token(&h, a)));
        assert_eq!((r.order, r.weapon), (Seq(5), 31));
        assert_eq!((r.origin, r.hit), (s.origin, s.hit));
        assert_eq!((r.hit_kind, r.hit_id), (HitKind::Player, h.player_id(b).0));
        assert_eq!(
            r.rewind,
            ShotRewind {
                rewound: true,
                target_kind: RewindTarget::Player,
                target_id: h.player_id(b).0,
                target_token: token(&h, b).0,
                target_pos: bob_at,
                shooter_pos: moved,
            }
        );

        // A ray that ended on nothing: the rewind is all zero.
        fire_at(&mut h, a, 6, 31, ahead(30.0));
        let r = h.packets::<RemoteWeaponShot>(b)[1].clone();
        assert_eq!(
            (r.order, r.hit_kind, r.hit_id),
            (Seq(6), HitKind::Nothing, 0xFFFF_FFFF)
        );
        assert_eq!(r.rewind, ShotRewind::NONE);
    }

    /// A shot from `shooter` whose ray ends on `target`'s server position.
    fn shot_on(h: &Harness, shooter: ClientId, order: u32, target: ClientId) -> WeaponShot {
        let mut s = shot(h, shooter, order, 31, h.get::<Position>(target).0);
        s.hit_kind = HitKind::Player;
        s.hit_id = h.player_id(target).0;
        s
    }

    fn sync_packet(h: &Harness, c: ClientId, seq: u32, at: Vec3) -> PlayerSync {
        PlayerSync {
            session_token: h.token(c),
            seq: Seq(seq),
            frame: Frame::standing(at),
        }
    }

    #[test]
    fn the_rewind_stands_a_moving_target_where_it_was_at_the_shooters_last_frame() {
        let (_s, mut h, a, b) = two();
        armed(&mut h, a, 31, 10);
        let at = |dx: f32| Vec3::new(SPAWN.x + dx, SPAWN.y, SPAWN.z);
        // Alice's last frame comes in the tick Bob stands at +1 m.
        let (alice, bob) = (sync_packet(&h, a, 1, SPAWN), sync_packet(&h, b, 1, at(1.0)));
        h.send(b, bob);
        h.send(a, alice);
        h.step();
        // Bob walks on; Alice sends no frame.
        for (seq, dx) in [(2, 1.25), (3, 1.5), (4, 1.75)] {
            h.sync(b, seq, Frame::standing(at(dx)));
        }
        assert_eq!(h.get::<Position>(b).0, at(1.75));
        h.clear(b);
        let s = shot_on(&h, a, 1, b);
        fire(&mut h, a, s);
        let relayed = h.packets::<RemoteWeaponShot>(b);
        assert_eq!(relayed.len(), 1);
        let r = relayed[0].rewind;
        assert_eq!((r.target_pos, r.shooter_pos), (at(1.0), SPAWN));
        assert_eq!(r.target_token, token(&h, b).0);
        // A newer frame of Alice rewinds to Bob's position at that frame.
        let alice = sync_packet(&h, a, 2, SPAWN);
        h.send(a, alice);
        h.step();
        h.sync(b, 5, Frame::standing(at(2.0)));
        h.clear(b);
        let s = shot_on(&h, a, 2, b);
        fire(&mut h, a, s);
        let r = h.packets::<RemoteWeaponShot>(b)[0].rewind;
        assert_eq!(r.target_pos, at(1.75));
    }

    #[test]
    fn a_shot_in_the_tick_of_a_hide_is_not_relayed_to_the_hidden_viewer() {
        use dlmp::protocol::player::streaming::PlayerStreamOut;
        let (_s, mut h, a, b) = two();
        armed(&mut h, a, 31, 10);
        h.clear(b);
        // Bob leaves Alice's scope in the tick her shot is admitted.
        let player = h.entity(b);
        h.world_mut().write_message(SetScope {
            player,
            virtual_world: Some(3),
            interior: None,
        });
        fire_at(&mut h, a, 4, 31, ahead(20.0));
        h.step();
        assert!(h.packets::<RemoteWeaponShot>(b).is_empty());
        let hides = h.packets::<PlayerStreamOut>(b);
        assert_eq!(hides.len(), 1);
        assert_eq!(hides[0].last_shot_order, Seq(4), "the hide covers the shot");
        assert_eq!(h.world().resource::<ShotDrops>().accepted, 1);
    }

    #[test]
    fn a_shot_in_the_tick_of_a_show_reaches_the_new_viewer_with_the_show() {
        use dlmp::protocol::ServerPacket;
        let (_s, mut h, a, _) = two();
        let c = h.connect("carol");
        h.step();
        h.spawn(c, SPAWN);
        h.set_scope(c, Some(3), None);
        h.step();
        armed(&mut h, a, 31, 10);
        h.clear(c);
        // Carol comes back in the tick of the shot.
        let player = h.entity(c);
        h.world_mut().write_message(SetScope {
            player,
            virtual_world: Some(0),
            interior: None,
        });
        fire_at(&mut h, a, 1, 31, ahead(20.0));
        // The show is decided before the relay: the shot goes out in the same tick as the
        // snapshot (a tick's unreliable packets leave ahead of its events; the receiver
        // orders shots by last_shot_order, not by the lane).
        let alice = h.player_id(a);
        let mut log: Vec<&str> = h
            .received(c)
            .iter()
            .filter_map(|p| match p {
                ServerPacket::PlayerSkills(p) if p.id == alice => Some("skills"),
                ServerPacket::PlayerNametag(p) if p.id == alice => Some("nametag"),
                ServerPacket::RemoteWeaponShot(p) if p.id == alice => Some("shot"),
                _ => None,
            })
            .collect();
        log.sort_unstable();
        assert_eq!(log, ["nametag", "shot", "skills"]);
    }

    #[test]
    fn refused_shots_are_dropped_and_counted() {
        let (_s, mut h, a, b) = two();
        h.clear(b);
        // No weapon.
        fire_at(&mut h, a, 1, 31, ahead(10.0));
        armed(&mut h, a, 31, 0);
        fire_at(&mut h, a, 2, 31, ahead(10.0));
        armed(&mut h, a, 31, 5);
        // Too long a ray, then an origin too far.
        fire_at(&mut h, a, 3, 31, ahead(401.0));
        let mut far = shot(&h, a, 4, 31, ahead(10.0));
        far.origin = ahead(6.0);
        fire(&mut h, a, far);
        // Accepted, then a stale order.
        fire_at(&mut h, a, 5, 31, ahead(399.0));
        fire_at(&mut h, a, 5, 31, ahead(10.0));
        // Paused, then dead.
        let paused = Frame {
            paused: true,
            ..frame()
        };
        h.sync(a, 1, paused);
        assert!(h.get::<Body>(a).paused);
        fire_at(&mut h, a, 6, 31, ahead(10.0));
        h.advance(std::time::Duration::from_secs(1));
        h.sync(a, 2, frame());
        assert!(!h.get::<Body>(a).paused, "a change a second");
        h.die(a);
        fire_at(&mut h, a, 7, 31, ahead(10.0));
        let d = *h.world().resource::<ShotDrops>();
        assert_eq!(
            (
                d.accepted,
                d.no_ammo,
                d.range,
                d.origin,
                d.stale,
                d.not_in_control
            ),
            (1, 2, 1, 1, 1, 2)
        );
        assert_eq!(h.get::<Inventory>(a).ammo[31], 4);
        assert_eq!(h.packets::<RemoteWeaponShot>(b).len(), 1);
    }

    /// weapons.md §1 (where the pages disagree): 35, 36 and 37 fire no rays; a WeaponShot
    /// naming one decodes and is refused by the admission, held and loaded or not.
    #[test]
    fn a_shot_of_a_rocket_launcher_or_the_flamethrower_is_refused() {
        let (_s, mut h, a, b) = two();
        h.clear(b);
        for (order, weapon) in [(1, 35), (2, 36), (3, 37)] {
            armed(&mut h, a, weapon, 5);
            fire_at(&mut h, a, order, weapon, ahead(20.0));
            assert_eq!(
                h.get::<Inventory>(a).ammo[usize::from(weapon)],
                5,
                "no round spent"
            );
        }
        let d = *h.world().resource::<ShotDrops>();
        assert_eq!((d.no_ray, d.accepted), (3, 0));
        assert!(h.packets::<RemoteWeaponShot>(b).is_empty());
        armed(&mut h, a, 31, 5);
        fire_at(&mut h, a, 4, 31, ahead(20.0));
        assert_eq!(
            h.world().resource::<ShotDrops>().accepted,
            1,
            "a rifle's shot passes"
        );
    }

    #[test]
    fn a_frozen_shooter_is_not_in_control() {
        let (_s, mut h, a, b) = two();
        armed(&mut h, a, 31, 5);
        h.clear(b);
        h.freeze(a, true);
        fire_at(&mut h, a, 1, 31, ahead(10.0));
        assert_eq!(h.world().resource::<ShotDrops>().not_in_control, 1);
        assert_eq!(h.get::<Inventory>(a).ammo[31], 5, "no round spent");
        assert!(h.packets::<RemoteWeaponShot>(b).is_empty());
        h.freeze(a, false);
        fire_at(&mut h, a, 2, 31, ahead(10.0));
        assert_eq!(h.world().resource::<ShotDrops>().accepted, 1);
    }

    #[test]
    fn a_set_weapon_range_bounds_the_ray() {
        use dlmp::player::ledger::WeaponRanges;
        let (_s, mut h, a, _) = two();
        armed(&mut h, a, 34, 5);
        h.world_mut().resource_mut::<WeaponRanges>().set(34, 600.0);
        fire_at(&mut h, a, 1, 34, ahead(550.0));
        assert_eq!(h.world().resource::<ShotDrops>().accepted, 1);
    }

    #[test]
    fn the_relay_says_teammate_per_recipient() {
        let (_s, mut h, a, b) = two();
        let c = h.connect("carol");
        h.step();
        h.spawn(c, SPAWN);
        assert!(h.is_shown(a, c));
        for (p, g) in [(a, 2), (b, 2), (c, 5)] {
            team(&mut h, p, g);
        }
        armed(&mut h, a, 31, 5);
        h.clear(b);
        h.clear(c);
        fire_at(&mut h, a, 1, 31, ahead(10.0));
        let to_b = h.packets::<RemoteWeaponShot>(b);
        let to_c = h.packets::<RemoteWeaponShot>(c);
        assert_eq!((to_b.len(), to_c.len()), (1, 1));
        assert!(to_b[0].teammate && !to_c[0].teammate);
        assert_eq!(
            (to_b[0].relation_rev, to_c[0].relation_rev),
            (1, 1),
            "one change of group"
        );
        assert!(!to_b[0].rewind.rewound);
    }
}

#[test]
fn a_respawn_after_a_death_starts_the_ledger_at_100_and_0() {
    let (_s, mut h, a) = commands("respawn-ledger");
    h.chat(a, "/armor 20");
    h.steps(2);
    damage(&mut h, a, 1, None, 54, 150.0);
    h.steps(2);
    assert!(!h.get::<Life>(a).alive);
    h.advance(dlmp::player::respawn::DEFAULT_RESPAWN_DELAY);
    h.request_respawn(a);
    h.steps(2);
    assert!(h.get::<Life>(a).alive);
    let l = ledger(&h, a);
    assert_eq!((l.health, l.armor, l.damage_seq), (100.0, 0.0, Seq(1)));
}

/// connection.md §3: GiveHealth, GiveArmor and GiveWeapon are normal events. On a full
/// lane the Lua call raises "queue full" and the ledger, the inventory and their
/// revisions stay: a raised vital_rev or weapon_rev whose packet never went would keep
/// the frames' echo from ever matching (ADR 0010).
mod lane {
    use super::*;
    use dlmp::lane::Delivery;
    use dlmp::player::Inventory;
    use dlmp::protocol::connection::weapons::{GiveArmor, GiveHealth, GiveWeapon};

    fn granted(h: &Harness, c: ClientId) -> usize {
        h.packets::<GiveHealth>(c).len()
            + h.packets::<GiveArmor>(c).len()
            + h.packets::<GiveWeapon>(c).len()
    }

    /// The error the gamemode kept, read once the lane has room again.
    fn kept(h: &mut Harness, c: ClientId) -> String {
        h.release_lane(c);
        h.clear(c);
        h.chat(c, "/err");
        h.steps(2);
        h.take_chat_lines(c).join("|")
    }

    #[test]
    fn grants_on_a_full_lane_raise_queue_full_and_change_no_revision() {
        for (command, method) in [
            ("/hp 150", "set_health"),
            ("/armor 50", "set_armor"),
            ("/gun 31 120", "give_weapon"),
        ] {
            let (_s, mut h, a) = commands("grant-lane-full");
            let (before, inventory) = (ledger(&h, a), h.get::<Inventory>(a));
            h.set_auto_ack(a, false);
            h.fill_lane(a, Delivery::Normal, 0);
            h.clear(a);
            h.chat(a, command);
            h.steps(2);
            let after = ledger(&h, a);
            assert_eq!(
                (after.health, after.armor, after.vital_rev),
                (before.health, before.armor, before.vital_rev)
            );
            let held = h.get::<Inventory>(a);
            assert!(!held.holds(31));
            assert_eq!(held.weapon_rev, inventory.weapon_rev);
            let error = kept(&mut h, a);
            assert!(error.contains(&format!("{method}: queue full")), "{error}");
            assert_eq!(granted(&h, a), 0, "nothing went later");
        }
    }

    /// ADR 0020: a chat line takes its lane place in the call, like a grant, so a line
    /// the gamemode sent first leaves no place for the grant that follows.
    #[test]
    fn a_line_sent_first_takes_the_last_place_and_the_grant_raises_queue_full() {
        let (_s, mut h, a) = commands("grant-lane-late");
        h.set_auto_ack(a, false);
        h.fill_lane(a, Delivery::Normal, 1);
        h.chat(a, "/said_hp 150");
        h.steps(2);
        let l = ledger(&h, a);
        assert_eq!((l.health, l.vital_rev), (100.0, Revision(0)));
        let error = kept(&mut h, a);
        assert!(error.contains("set_health: queue full"), "{error}");
        assert_eq!(granted(&h, a), 0);
        // With room the same command goes and stores.
        h.chat(a, "/said_hp 150");
        h.steps(2);
        let l = ledger(&h, a);
        assert_eq!((l.health, l.vital_rev), (150.0, Revision(1)));
        assert_eq!(h.packets::<GiveHealth>(a)[0].vital_rev, Revision(1));
    }
}
