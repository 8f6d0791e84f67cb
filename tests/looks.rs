//! player.md's looks and HUD values through the Lua API: SetSkin, SetWalkingStyle,
//! SetFightingStyle, SetHeadless, PlayerSkills, SetMoney, SetWanted, SetDrunkLevel and
//! SetPlayerStats; their packets byte for byte, their refusals, the stored state across
//! death, a respawn grant and a new connection, the relay's tail and the skills' routing.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::{Appearance, Hud, Life, Skills, SpawnState};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::appearance::{
    FightingStyle, PlayerSkills, SetFightingStyle, SetHeadless, SetSkin, SetWalkingStyle,
    WalkingStyle,
};
use dlmp::protocol::player::hud::{SetDrunkLevel, SetMoney, SetPlayerStats, SetWanted};
use dlmp::protocol::player::life::SpawnPlayer;
use dlmp::protocol::player::sync::{Frame, RemotePlayerSync};
use dlmp::protocol::{MAX_DATAGRAM, ServerPacket};
use dlmp_core::viewers::Viewers;

/// `/lua CODE` runs CODE with `p` the player and `say(x)` telling it; an error is told as
/// `error: ...`.
const GM: &str = r#"
local function say(p, s) dlmp.send_chat(tostring(s), nil, { p }) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_command", function(p, name, args)
    if name ~= "lua" then return end
    local env = setmetatable({ p = p, say = function(s) say(p, s) end }, { __index = _G })
    local f, err = load(table.concat(args, " "), "cmd", "t", env)
    if f then
        local ok, e = pcall(f)
        if not ok then err = e end
    end
    if err then say(p, "error: " .. tostring(err)) end
    return true
end)
"#;

const AT: Vec3 = Vec3::new(100.0, 200.0, 10.0);

/// Alice, connected and granted her connect spawn; what she got so far is cleared.
fn alice(test: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", GM);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.steps(2);
    h.clear(a);
    (s, h, a)
}

/// Runs `code` as alice's `/lua` command.
fn lua(h: &mut Harness, c: ClientId, code: &str) {
    h.chat(c, &format!("/lua {code}"));
    h.steps(2);
}

/// Runs `code`, which must fail, and returns its error line.
#[track_caller]
fn refused(h: &mut Harness, c: ClientId, code: &str) -> String {
    // One chat line a second refills the flood limit.
    h.advance(Duration::from_secs(1));
    h.clear(c);
    lua(h, c, code);
    let lines = h.chat_lines(c);
    assert_eq!(lines.len(), 1, "{code}: {lines:?}");
    assert!(lines[0].starts_with("error: "), "{code}: {lines:?}");
    lines[0].clone()
}

fn encode(packet: impl Into<ServerPacket>) -> Vec<u8> {
    let mut buf = vec![0; MAX_DATAGRAM];
    let n = packet.into().encode(&mut buf).expect("a valid packet");
    buf.truncate(n);
    buf
}

/// `id` and the little-endian fields after it.
fn wire(id: u8, fields: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![id];
    for f in fields {
        out.extend_from_slice(f);
    }
    out
}

/// The one packet of type `P` the client got.
#[track_caller]
fn only<P: TryFrom<ServerPacket>>(h: &Harness, c: ClientId) -> P {
    let mut got = h.packets::<P>(c);
    assert_eq!(got.len(), 1, "{}", std::any::type_name::<P>());
    got.remove(0)
}

/// The real respawn flow after a death: the grant comes from RespawnRequest.
fn respawn_grant(h: &mut Harness, c: ClientId) {
    h.respawn(c);
    assert!(h.get::<Life>(c).alive, "respawned");
}

fn set_health_0(h: &mut Harness, c: ClientId) {
    lua(h, c, "p:set_health(0)");
    assert!(!h.get::<Life>(c).alive, "dead");
}

mod skin {
    use super::*;

    #[test]
    fn set_skin_sends_set_skin_stores_the_look_and_reads_back_in_the_same_call() {
        let (_s, mut h, a) = alice("skin");
        lua(
            &mut h,
            a,
            "p:set_skin(230, 3) local m, v = p:skin() say(m .. ' ' .. v)",
        );
        assert_eq!(h.chat_lines(a), ["230 3"]);
        let skin: SetSkin = only(&h, a);
        assert_eq!((skin.model, skin.variant), (230, 3));
        assert_eq!(
            encode(skin.clone()),
            wire(
                0x20,
                &[
                    &skin.event_id.0.to_le_bytes(),
                    &230u32.to_le_bytes(),
                    &3u16.to_le_bytes()
                ]
            )
        );
        assert_eq!(encode(skin).len(), 11);
        let look = h.get::<Appearance>(a);
        assert_eq!((look.skin, look.variant), (230, 3));
    }

    #[test]
    fn the_variant_defaults_to_1() {
        let (_s, mut h, a) = alice("skin-variant");
        lua(&mut h, a, "p:set_skin(0)");
        let skin: SetSkin = only(&h, a);
        assert_eq!((skin.model, skin.variant), (0, 1));
    }

    #[test]
    fn a_model_outside_the_catalog_or_variant_0_is_refused() {
        let (_s, mut h, a) = alice("skin-refused");
        let e = refused(&mut h, a, "p:set_skin(74)");
        assert!(
            e.contains("set_skin: model 74 is not an allowed skin"),
            "{e}"
        );
        let e = refused(&mut h, a, "p:set_skin(312)");
        assert!(
            e.contains("set_skin: model 312 is not an allowed skin"),
            "{e}"
        );
        let e = refused(&mut h, a, "p:set_skin(7, 0)");
        assert!(
            e.contains("set_skin: variant 0 is outside 1..=65535"),
            "{e}"
        );
        let e = refused(&mut h, a, "p:set_skin('cj')");
        assert!(e.contains("set_skin: model must be a number"), "{e}");
        assert!(h.packets::<SetSkin>(a).is_empty());
        assert_eq!(h.get::<Appearance>(a), Appearance::default());
    }

    #[test]
    fn spawn_player_checks_the_catalog_and_without_a_skin_keeps_the_current_look() {
        let s = TempScripts::new("spawn-skin");
        s.resource(
            "gm",
            r#"
            dlmp.on("player_connect", function(p)
                local ok, err = pcall(dlmp.spawn_player, p, 1, 2, 3, 0, 74)
                dlmp.send_chat(tostring(err), nil, { p })
                p:set_skin(120, 4)
                dlmp.spawn_player(p, 1, 2, 3, 0)
            end)
            "#,
        );
        let mut h = s.harness();
        let a = h.connect("alice");
        h.step();
        h.request_spawn(a);
        h.steps(2);
        let lines = h.chat_lines(a);
        assert!(
            lines[0].contains("spawn_player: skin 74 is not an allowed skin"),
            "{lines:?}"
        );
        let spawn: SpawnPlayer = only(&h, a);
        assert_eq!((spawn.skin, spawn.variant), (120, 4));
    }

    #[test]
    fn a_skin_change_before_the_spawn_is_confirmed_rides_a_repeated_spawn_player() {
        let (_s, mut h, a) = alice("skin-respawn-info");
        lua(&mut h, a, "p:set_skin(101, 2)");
        h.clear(a);
        h.request_spawn(a);
        h.steps(2);
        let spawn: SpawnPlayer = only(&h, a);
        assert_eq!((spawn.skin, spawn.variant), (101, 2));
        let look = h.get::<Appearance>(a);
        assert_eq!((look.skin, look.variant), (101, 2));
    }

    #[test]
    fn the_connect_spawn_puts_the_spawn_info_look_on_the_player() {
        let s = TempScripts::new("spawn-look");
        s.resource(
            "gm",
            r#"dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 1, 2, 3, 0, 46, 5) end)"#,
        );
        let mut h = s.harness();
        let a = h.connect("alice");
        h.step();
        assert_eq!(h.get::<Appearance>(a).skin, 0, "not before the grant");
        h.request_spawn(a);
        h.steps(2);
        let look = h.get::<Appearance>(a);
        assert_eq!((look.skin, look.variant), (46, 5));
    }
}

mod styles {
    use super::*;

    #[test]
    fn set_walking_style_sends_the_id_on_the_allowlist() {
        let (_s, mut h, a) = alice("walk");
        lua(
            &mut h,
            a,
            "p:set_walking_style(127) p:set_walking_style(54) say(p:walking_style())",
        );
        assert_eq!(h.chat_lines(a), ["54"]);
        let sent = h.packets::<SetWalkingStyle>(a);
        assert_eq!(
            sent.iter().map(|s| s.style).collect::<Vec<_>>(),
            [WalkingStyle(127), WalkingStyle(54)]
        );
        assert_eq!(
            encode(sent[1].clone()),
            wire(0x2D, &[&sent[1].event_id.0.to_le_bytes(), &[54]])
        );
        assert_eq!(h.get::<Appearance>(a).walk_style, 54);
    }

    #[test]
    fn a_walking_style_off_the_allowlist_is_refused() {
        let (_s, mut h, a) = alice("walk-refused");
        for bad in [1, 53, 71, 117, 139, 256] {
            let e = refused(&mut h, a, &format!("p:set_walking_style({bad})"));
            assert!(e.contains("set_walking_style: style"), "{e}");
        }
        assert!(h.packets::<SetWalkingStyle>(a).is_empty());
    }

    #[test]
    fn set_fighting_style_takes_an_id_or_a_name() {
        let (_s, mut h, a) = alice("fight");
        lua(
            &mut h,
            a,
            "say(p:fighting_style()) p:set_fighting_style('kung_fu') p:set_fighting_style(16) local id, name = p:fighting_style() say(id .. ' ' .. name)",
        );
        assert_eq!(h.chat_lines(a), ["15", "16 elbow"]);
        let sent = h.packets::<SetFightingStyle>(a);
        assert_eq!(
            sent.iter().map(|s| s.style).collect::<Vec<_>>(),
            [FightingStyle::KungFu, FightingStyle::Elbow]
        );
        assert_eq!(
            encode(sent[0].clone()),
            wire(0x56, &[&sent[0].event_id.0.to_le_bytes(), &[6]])
        );
        assert_eq!(h.get::<Appearance>(a).fight_style, 16);
    }

    #[test]
    fn a_melee_weapons_combo_set_is_not_a_fighting_style() {
        let (_s, mut h, a) = alice("fight-refused");
        for bad in ["8", "14", "3", "17", "'karate'"] {
            let e = refused(&mut h, a, &format!("p:set_fighting_style({bad})"));
            assert!(e.contains("set_fighting_style: style"), "{e}");
        }
        assert!(h.packets::<SetFightingStyle>(a).is_empty());
    }

    #[test]
    fn set_headless_sends_the_flag_and_survives_a_skin_change() {
        let (_s, mut h, a) = alice("headless");
        lua(
            &mut h,
            a,
            "p:set_headless(true) p:set_skin(7) say(p:is_headless())",
        );
        assert_eq!(h.chat_lines(a), ["true"]);
        let sent: SetHeadless = only(&h, a);
        assert!(sent.headless);
        assert_eq!(
            encode(sent.clone()),
            wire(0x57, &[&sent.event_id.0.to_le_bytes(), &[1]])
        );
        assert!(h.get::<Appearance>(a).headless);
        let e = refused(&mut h, a, "p:set_headless(1)");
        assert!(
            e.contains("set_headless: headless must be a boolean"),
            "{e}"
        );
    }
}

mod hud {
    use super::*;

    #[test]
    fn set_money_sends_the_absolute_balance_and_give_money_the_clamped_sum() {
        let (_s, mut h, a) = alice("money");
        lua(
            &mut h,
            a,
            "p:set_money(500) say(p:give_money(-700)) say(p:money())",
        );
        assert_eq!(h.chat_lines(a), ["-200", "-200"]);
        let sent = h.packets::<SetMoney>(a);
        assert_eq!(
            sent.iter().map(|m| m.amount).collect::<Vec<_>>(),
            [500, -200]
        );
        assert_eq!(
            encode(sent[1].clone()),
            wire(
                0x28,
                &[&sent[1].event_id.0.to_le_bytes(), &(-200i32).to_le_bytes()]
            )
        );
        h.clear(a);
        lua(
            &mut h,
            a,
            "p:set_money(999999000) say(p:give_money(5000)) say(p:give_money(-3000000000))",
        );
        assert_eq!(h.chat_lines(a), ["999999999", "-999999999"]);
        assert_eq!(h.get::<Hud>(a).money, -999_999_999);
    }

    #[test]
    fn an_absolute_balance_outside_the_range_is_refused() {
        let (_s, mut h, a) = alice("money-refused");
        let e = refused(&mut h, a, "p:set_money(1000000000)");
        assert!(
            e.contains("set_money: amount 1000000000 is outside -999999999..=999999999"),
            "{e}"
        );
        let e = refused(&mut h, a, "p:give_money(1.5)");
        assert!(
            e.contains("give_money: delta must be a whole number"),
            "{e}"
        );
        assert!(h.packets::<SetMoney>(a).is_empty());
    }

    #[test]
    fn set_wanted_sends_0_to_6() {
        let (_s, mut h, a) = alice("wanted");
        lua(&mut h, a, "p:set_wanted(6) say(p:wanted())");
        assert_eq!(h.chat_lines(a), ["6"]);
        let sent: SetWanted = only(&h, a);
        assert_eq!(
            encode(sent.clone()),
            wire(0x11, &[&sent.event_id.0.to_le_bytes(), &[6]])
        );
        let e = refused(&mut h, a, "p:set_wanted(7)");
        assert!(e.contains("set_wanted: level 7 is outside 0..=6"), "{e}");
        assert_eq!(h.get::<Hud>(a).wanted, 6);
    }

    #[test]
    fn set_drunk_level_sends_0_to_255() {
        let (_s, mut h, a) = alice("drunk");
        lua(&mut h, a, "p:set_drunk_level(255) say(p:drunk_level())");
        assert_eq!(h.chat_lines(a), ["255"]);
        let sent: SetDrunkLevel = only(&h, a);
        assert_eq!(
            encode(sent.clone()),
            wire(0x92, &[&sent.event_id.0.to_le_bytes(), &[255]])
        );
        let e = refused(&mut h, a, "p:set_drunk_level(256)");
        assert!(
            e.contains("set_drunk_level: level 256 is outside 0..=255"),
            "{e}"
        );
    }

    #[test]
    fn set_stats_sends_stamina_and_lung_capacity() {
        let (_s, mut h, a) = alice("stats");
        lua(
            &mut h,
            a,
            "say(table.concat({p:stats()}, ' ')) p:set_stats(250, 0) say(table.concat({p:stats()}, ' '))",
        );
        assert_eq!(h.chat_lines(a), ["1000 1000", "250 0"]);
        let sent: SetPlayerStats = only(&h, a);
        assert_eq!(
            encode(sent.clone()),
            wire(
                0x93,
                &[
                    &sent.event_id.0.to_le_bytes(),
                    &250u16.to_le_bytes(),
                    &0u16.to_le_bytes()
                ]
            )
        );
        let e = refused(&mut h, a, "p:set_stats(1001, 5)");
        assert!(
            e.contains("set_stats: stamina 1001 is outside 0..=1000"),
            "{e}"
        );
        let e = refused(&mut h, a, "p:set_stats(5)");
        assert!(
            e.contains("set_stats: lung_capacity must be a number"),
            "{e}"
        );
        let hud = h.get::<Hud>(a);
        assert_eq!((hud.stamina, hud.lung_capacity), (250, 0));
    }
}

mod skills {
    use super::*;

    #[test]
    fn set_skill_sends_player_skills_to_the_subject_and_its_viewers_only() {
        let s = TempScripts::new("skills");
        s.resource("gm", GM);
        let mut h = s.harness();
        let (a, b) = h.connect_pair_at(AT);
        let c = h.connect("carol");
        h.steps(2);
        // Carol stays unspawned: nobody is shown to her, she is shown to nobody.
        assert!(!h.get::<Viewers>(a).contains(h.player_id(c)));
        for x in [a, b, c] {
            h.clear(x);
        }
        lua(
            &mut h,
            a,
            "p:set_skill('desert_eagle', 0) p:set_skill(10, 1000) say(p:skill('sniper_rifle') .. ' ' .. p:skill(2))",
        );
        assert_eq!(h.chat_lines(a), ["1000 0"]);
        let mut expected = [999; 11];
        expected[2] = 0;
        expected[10] = 1000;
        for x in [a, b] {
            let skills: PlayerSkills = only(&h, x);
            assert_eq!(
                (skills.id, skills.player_token, skills.skills),
                (h.player_id(a), h.hello(a).player_token, expected),
                "one snapshot for the tick's changes"
            );
        }
        assert!(h.packets::<PlayerSkills>(c).is_empty());
        let sent: PlayerSkills = only(&h, b);
        let mut fields: Vec<Vec<u8>> = vec![
            sent.id.0.to_le_bytes().to_vec(),
            sent.player_token.0.to_le_bytes().to_vec(),
            sent.event_id.0.to_le_bytes().to_vec(),
        ];
        fields.extend(expected.iter().map(|s| s.to_le_bytes().to_vec()));
        let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
        assert_eq!(encode(sent), wire(0x10, &refs));
        assert_eq!(h.get::<Skills>(a).0, expected);
    }

    #[test]
    fn a_show_carries_the_current_skills() {
        let (_s, mut h, a) = alice("skills-show");
        lua(&mut h, a, "p:set_skill('ak47', 10)");
        let b = h.connect("bob");
        h.step();
        h.spawn(b, AT);
        h.teleport(a, AT);
        h.step();
        let shown: Vec<PlayerSkills> = h
            .packets::<PlayerSkills>(b)
            .into_iter()
            .filter(|s| s.id == h.player_id(a))
            .collect();
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].skills[8], 10);
    }

    #[test]
    fn a_bad_slot_or_value_is_refused() {
        let (_s, mut h, a) = alice("skills-refused");
        let e = refused(&mut h, a, "p:set_skill(11, 5)");
        assert!(e.contains("set_skill: slot 11 is outside 0..=10"), "{e}");
        let e = refused(&mut h, a, "p:set_skill('minigun', 5)");
        assert!(
            e.contains("set_skill: slot \"minigun\" is not a skill weapon"),
            "{e}"
        );
        let e = refused(&mut h, a, "p:set_skill(0, 1001)");
        assert!(
            e.contains("set_skill: value 1001 is outside 0..=1000"),
            "{e}"
        );
        assert!(h.packets::<PlayerSkills>(a).is_empty());
    }
}

mod lifecycle {
    use super::*;

    const LOOKS: &str =
        "p:set_skin(230, 3) p:set_walking_style(120) p:set_fighting_style(5) p:set_headless(true)";
    const HUD: &str =
        "p:set_money(1234) p:set_wanted(4) p:set_drunk_level(80) p:set_stats(300, 400)";

    fn set_everything(h: &mut Harness, a: ClientId) {
        lua(h, a, LOOKS);
        lua(h, a, HUD);
        lua(h, a, "p:set_skill(0, 5)");
        assert!(h.chat_lines(a).is_empty(), "{:?}", h.chat_lines(a));
    }

    fn expected_look() -> Appearance {
        Appearance {
            skin: 230,
            variant: 3,
            walk_style: 120,
            fight_style: 5,
            headless: true,
        }
    }

    fn expected_hud() -> Hud {
        Hud {
            money: 1234,
            wanted: 4,
            drunk_level: 80,
            stamina: 300,
            lung_capacity: 400,
        }
    }

    #[test]
    fn a_death_keeps_everything() {
        let (_s, mut h, a) = alice("death");
        set_everything(&mut h, a);
        h.clear(a);
        set_health_0(&mut h, a);
        h.steps(2);
        assert_eq!(h.get::<Appearance>(a), expected_look());
        assert_eq!(h.get::<Hud>(a), expected_hud());
        assert!(h.packets::<SetHeadless>(a).is_empty());
        assert!(h.packets::<SetDrunkLevel>(a).is_empty());
    }

    #[test]
    fn a_respawn_grant_clears_the_head_and_sobers_and_keeps_the_rest() {
        let (_s, mut h, a) = alice("respawn");
        set_everything(&mut h, a);
        set_health_0(&mut h, a);
        h.clear(a);
        respawn_grant(&mut h, a);
        let headless: SetHeadless = only(&h, a);
        assert!(!headless.headless);
        let drunk: SetDrunkLevel = only(&h, a);
        assert_eq!(drunk.level, 0);
        assert!(h.packets::<SetMoney>(a).is_empty(), "money is not resent");
        assert!(h.packets::<SetPlayerStats>(a).is_empty());
        assert_eq!(
            h.get::<Appearance>(a),
            Appearance {
                headless: false,
                ..expected_look()
            }
        );
        assert_eq!(
            h.get::<Hud>(a),
            Hud {
                drunk_level: 0,
                ..expected_hud()
            }
        );
        lua(
            &mut h,
            a,
            "say(p:drunk_level()) say(p:is_headless()) say(p:money())",
        );
        assert_eq!(h.chat_lines(a), ["0", "false", "1234"]);
    }

    #[test]
    fn a_sober_player_gets_no_set_drunk_level_on_a_respawn_grant() {
        let (_s, mut h, a) = alice("respawn-sober");
        set_health_0(&mut h, a);
        h.clear(a);
        respawn_grant(&mut h, a);
        assert!(h.packets::<SetDrunkLevel>(a).is_empty());
        // The head is cleared on every grant: the client does not clear it itself.
        assert_eq!(h.packets::<SetHeadless>(a).len(), 1);
    }

    #[test]
    fn a_new_connection_starts_at_the_defaults_without_a_packet() {
        let (_s, mut h, a) = alice("reconnect");
        set_everything(&mut h, a);
        h.disconnect(a);
        h.steps(2);
        let again = h.connect("alice");
        h.step();
        h.request_spawn(again);
        h.steps(2);
        assert_eq!(h.get::<Appearance>(again), Appearance::default());
        assert_eq!(h.get::<Hud>(again), Hud::default());
        assert_eq!(h.get::<Skills>(again), Skills::default());
        let hud = Hud::default();
        assert_eq!(
            (
                hud.money,
                hud.wanted,
                hud.drunk_level,
                hud.stamina,
                hud.lung_capacity
            ),
            (0, 0, 0, 1000, 1000)
        );
        assert_eq!(h.get::<Appearance>(again).fight_style, 15);
        let stored_state = h.received(again).iter().filter(|p| {
            matches!(
                p,
                ServerPacket::SetMoney(_)
                    | ServerPacket::SetWanted(_)
                    | ServerPacket::SetDrunkLevel(_)
                    | ServerPacket::SetPlayerStats(_)
                    | ServerPacket::SetSkin(_)
                    | ServerPacket::SetHeadless(_)
                    | ServerPacket::SetWalkingStyle(_)
                    | ServerPacket::SetFightingStyle(_)
            )
        });
        assert_eq!(stored_state.count(), 0);
        assert!(h.get::<SpawnState>(again).granted);
    }

    #[test]
    fn the_relay_stamps_skin_variant_styles_and_head_for_a_viewer() {
        let s = TempScripts::new("relay");
        s.resource("gm", GM);
        let mut h = s.harness();
        let (a, b) = h.connect_pair_at(AT);
        h.step();
        set_everything(&mut h, a);
        h.clear(b);
        h.sync(a, 1, Frame::standing(AT));
        let relay: RemotePlayerSync = only(&h, b);
        assert_eq!(
            (
                relay.skin,
                relay.variant,
                relay.walk_style,
                relay.fight_style,
                relay.headless
            ),
            (230, 3, 120, 5, true)
        );
        assert!(
            h.packets::<SetSkin>(b).is_empty(),
            "the owner's commands stay with the owner"
        );
        assert!(h.packets::<SetMoney>(b).is_empty());
        // The new look goes with the next frame, after a respawn grant cleared the head.
        set_health_0(&mut h, a);
        respawn_grant(&mut h, a);
        h.clear(b);
        h.sync(a, 2, Frame::standing(AT));
        let relay: RemotePlayerSync = only(&h, b);
        assert!(!relay.headless);
        assert_eq!((relay.skin, relay.fight_style), (230, 5));
    }
}

/// connection.md §3: the look and HUD packets are normal events, so a full lane refuses
/// the gamemode's call with "queue full" and the server keeps the old value.
mod lane {
    use super::*;
    use dlmp::lane::Delivery;
    use dlmp::player::hud::{HudChange, HudCommand};
    use dlmp::player::looks::{LookChange, LookCommand};

    /// Runs `code` on a lane without room; `_G.E` keeps its error for a later read.
    fn on_a_full_lane(h: &mut Harness, a: ClientId, code: &str) {
        h.set_auto_ack(a, false);
        h.fill_lane(a, Delivery::Normal, 0);
        h.clear(a);
        h.chat(
            a,
            &format!("/lua _G.E = select(2, pcall(function() {code} end))"),
        );
        h.steps(2);
    }

    /// Lets the client ack everything, then reads the kept error.
    fn error_kept(h: &mut Harness, a: ClientId) -> String {
        h.release_lane(a);
        h.clear(a);
        lua(h, a, "say(_G.E)");
        h.chat_lines(a).join("|")
    }

    #[test]
    fn a_look_setter_on_a_full_lane_fails_with_queue_full_and_keeps_the_look() {
        let (_s, mut h, a) = alice("lane-look");
        on_a_full_lane(&mut h, a, "p:set_skin(230, 3)");
        assert!(h.packets::<SetSkin>(a).is_empty());
        assert_eq!(h.get::<Appearance>(a), Appearance::default());
        let error = error_kept(&mut h, a);
        assert!(error.contains("set_skin: queue full"), "{error}");
        assert!(h.packets::<SetSkin>(a).is_empty(), "nothing went later");
    }

    #[test]
    fn a_hud_setter_on_a_full_lane_fails_with_queue_full_and_keeps_the_value() {
        let (_s, mut h, a) = alice("lane-hud");
        on_a_full_lane(&mut h, a, "p:set_money(500)");
        assert!(h.packets::<SetMoney>(a).is_empty());
        assert_eq!(h.get::<Hud>(a).money, 0);
        let error = error_kept(&mut h, a);
        assert!(error.contains("set_money: queue full"), "{error}");
    }

    #[test]
    fn a_rust_command_on_a_full_lane_is_refused_and_stores_nothing() {
        let (_s, mut h, a) = alice("lane-rust");
        h.set_auto_ack(a, false);
        h.fill_lane(a, Delivery::Normal, 0);
        let player = h.entity(a);
        h.world_mut().write_message(LookCommand {
            player,
            change: LookChange::Headless(true),
        });
        h.world_mut().write_message(HudCommand {
            player,
            change: HudChange::DrunkLevel(50),
        });
        h.step();
        assert!(!h.get::<Appearance>(a).headless);
        assert_eq!(h.get::<Hud>(a).drunk_level, 0);
        h.set_auto_ack(a, true);
        h.ack(a);
        h.steps(30);
        assert!(h.packets::<SetHeadless>(a).is_empty());
        assert!(h.packets::<SetDrunkLevel>(a).is_empty());
        // With room, the same commands go and store.
        h.world_mut().write_message(LookCommand {
            player,
            change: LookChange::Headless(true),
        });
        h.step();
        assert!(h.get::<Appearance>(a).headless);
        assert_eq!(h.packets::<SetHeadless>(a).len(), 1);
    }
}

mod weapons {
    use super::*;
    use dlmp::player::Inventory;
    use dlmp::protocol::connection::weapons::GiveWeapon;
    use dlmp::protocol::ids::Revision;

    #[test]
    fn give_weapon_adds_ammo_saturating_and_raises_weapon_rev_per_command() {
        let (_s, mut h, a) = alice("give-weapon");
        lua(
            &mut h,
            a,
            "p:give_weapon(24, 65000) p:give_weapon(24, 1000)",
        );
        let sent = h.packets::<GiveWeapon>(a);
        assert_eq!(
            sent.iter()
                .map(|g| (g.weapon, g.ammo, g.weapon_rev))
                .collect::<Vec<_>>(),
            [(24, 65000, Revision(1)), (24, 1000, Revision(2))]
        );
        assert_eq!(
            encode(sent[1].clone()),
            wire(
                0x16,
                &[
                    &sent[1].event_id.0.to_le_bytes(),
                    &[24],
                    &1000u16.to_le_bytes(),
                    &2u16.to_le_bytes()
                ]
            )
        );
        let inv = h.get::<Inventory>(a);
        assert!(inv.holds(24));
        assert_eq!((inv.ammo[24], inv.weapon_rev), (u16::MAX, Revision(2)));
        let e = refused(&mut h, a, "p:give_weapon(47, 1)");
        assert!(
            e.contains("give_weapon: weapon 47 is outside 0..=46"),
            "{e}"
        );
    }
}
