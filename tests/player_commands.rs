//! player.md, every server command to a player at once, each through its Lua function on a
//! spawned player with a second player watching: the exact bytes of the packet the owner
//! gets (and whether the watcher gets the same packet or none), and what a death, a real
//! respawn grant and a new connection do to the stored value the gamemode reads back.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::{DeathEpoch, LastFrame, Ledger, Life, SpawnState};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::animation::ApplyAnimation;
use dlmp::protocol::player::appearance::PlayerSkills;
use dlmp::protocol::player::life::DeathPose;
use dlmp::protocol::player::sync::Frame;
use dlmp::protocol::player::sync::RemotePlayerSync;
use dlmp::protocol::{MAX_DATAGRAM, ServerPacket};
use dlmp::session::Player;
use dlmp_core::position::Position;
use dlmp_core::viewers::Viewers;
use rstest::rstest;

/// `/lua CODE` runs CODE with `p` the player, `other` the other player and `say(x)` telling
/// it; an error is told as `error: ...`.
const GM: &str = r#"
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_command", function(p, name, args)
    if name ~= "lua" then return end
    local other
    for _, q in ipairs(dlmp.players()) do if q ~= p then other = q end end
    local env = setmetatable({
        p = p,
        other = other,
        say = function(s) dlmp.send_chat(tostring(s), nil, { p }) end,
    }, { __index = _G })
    local f, err = load(table.concat(args, " "), "cmd", "t", env)
    if f then
        local ok, e = pcall(f)
        if not ok then err = e end
    end
    if err then dlmp.send_chat("error: " .. tostring(err), nil, { p }) end
    return true
end)
"#;

const AT: Vec3 = Vec3::new(100.0, 200.0, 10.0);

/// Alice and Bob spawned at [`AT`] by the gamemode's spawn info, each shown to the other,
/// both lives confirmed by a living frame; what they got so far is cleared.
fn pair(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", GM);
    let mut h = s.harness();
    let (a, b) = h.connect_pair_at(AT);
    h.step();
    h.sync(a, 1, Frame::standing(AT));
    h.sync(b, 1, Frame::standing(AT));
    assert!(h.get::<SpawnState>(a).life_confirmed);
    h.clear(a);
    h.clear(b);
    (s, h, a, b)
}

/// Runs `code` as `c`'s `/lua` command; one chat line a second keeps under the flood limit.
fn lua(h: &mut Harness, c: ClientId, code: &str) {
    h.advance(Duration::from_secs(1));
    h.chat(c, &format!("/lua {code}"));
    h.steps(2);
}

/// Runs `code`, which must succeed, and returns what it said.
#[track_caller]
fn ask(h: &mut Harness, c: ClientId, code: &str) -> Vec<String> {
    h.clear(c);
    lua(h, c, code);
    let lines = h.chat_lines(c);
    assert!(
        lines.iter().all(|l| !l.starts_with("error: ")),
        "{code}: {lines:?}"
    );
    lines
}

fn encode(packet: &ServerPacket) -> Vec<u8> {
    let mut buf = vec![0; MAX_DATAGRAM];
    let n = packet.clone().encode(&mut buf).expect("a valid packet");
    buf.truncate(n);
    buf
}

/// The encodings of every packet with id `id` the client got, in order.
fn sent(h: &Harness, c: ClientId, id: u8) -> Vec<Vec<u8>> {
    h.received(c)
        .iter()
        .map(encode)
        .filter(|b| b[0] == id)
        .collect()
}

/// What the expected bytes need from the world: the subject's id and token, its life and
/// the watcher's id and token.
struct Ctx {
    id: u32,
    token: u32,
    epoch: u16,
    other_id: u32,
    other_token: u32,
}

/// Little-endian fields after a packet id.
struct Wire(Vec<u8>);

impl Wire {
    fn new(id: u8) -> Self {
        Wire(vec![id])
    }
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32(mut self, v: f32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// The lane's event_id, compared apart (it only has to be stamped).
    fn event(self) -> Self {
        self.u32(0)
    }
    /// The subject's id, token and the lane's event_id.
    fn subject(self, c: &Ctx) -> Self {
        self.u32(c.id).u32(c.token).event()
    }
    /// A NUL-padded 32-byte name.
    fn name(mut self, s: &str) -> Self {
        let mut field = [0u8; 32];
        field[..s.len()].copy_from_slice(s.as_bytes());
        self.0.extend_from_slice(&field);
        self
    }
}

const DANCE: &str = r#"p:apply_animation("DANCING", "dnce_M_a", { loop = true, freeze = true, time = 5000, speed = 1.5, delta = 8 })"#;

/// Whom a command's packet goes to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum To {
    /// The recipient's own player: no subject id, never to observers.
    Owner,
    /// The subject and the players it is shown to, byte for byte the same.
    SubjectAndViewers,
}

/// Each command's packet as its section of player.md lays it out. The last packet of the
/// id is compared; `event_at` is the offset of its event_id, which the lane stamps.
#[rstest]
#[case::teleport_player(
    "p:teleport(10, 20, 30, { heading = 90, interior = 3, ground = true })",
    To::Owner, 1, 26,
    |_: &Ctx| Wire::new(0x15).event().f32(10.0).f32(20.0).f32(30.0).f32(90.0).i32(3).u8(1)
)]
#[case::scope_changed_after_a_teleport_into_an_interior(
    "p:teleport(10, 20, 30, { interior = 3 })",
    To::Owner, 1, 5,
    |_: &Ctx| Wire::new(0x5D).event()
)]
#[case::scope_changed_on_a_virtual_world(
    "p:set_virtual_world(7)",
    To::Owner, 1, 5,
    |_: &Ctx| Wire::new(0x5D).event()
)]
#[case::set_world_bounds(
    "p:set_world_bounds(-100, -50.5, 100, 50)",
    To::Owner, 1, 22,
    |_: &Ctx| Wire::new(0x94).event().u8(1).f32(-100.0).f32(-50.5).f32(100.0).f32(50.0)
)]
#[case::set_world_bounds_off(
    "p:set_world_bounds(-100, -50, 100, 50) p:clear_world_bounds()",
    To::Owner, 1, 22,
    |_: &Ctx| Wire::new(0x94).event().u8(0).f32(0.0).f32(0.0).f32(0.0).f32(0.0)
)]
#[case::set_velocity_in_units_per_step(
    "p:set_velocity(10, 0, 20)",
    To::Owner, 1, 21,
    |c: &Ctx| Wire::new(0x90).event().f32(10.0 / 50.0).f32(0.0).f32(20.0 / 50.0).u16(c.epoch).u16(1)
)]
#[case::set_gravity(
    "p:set_gravity(0.004)",
    To::Owner, 1, 11,
    |_: &Ctx| Wire::new(0x91).event().f32(0.004).u16(1)
)]
#[case::set_gravity_after_a_throw_shares_the_revision(
    "p:set_velocity(0, 0, 5) p:set_gravity(-0.01)",
    To::Owner, 1, 11,
    |_: &Ctx| Wire::new(0x91).event().f32(-0.01).u16(2)
)]
#[case::set_frozen(
    "p:set_frozen(true)",
    To::Owner, 1, 6,
    |_: &Ctx| Wire::new(0x72).event().u8(1)
)]
#[case::set_camera_fixed(
    "p:set_camera_fixed(1, 2, 3, 4, 5, 6, 1500)",
    To::Owner, 1, 51,
    |_: &Ctx| Wire::new(0x73).event().u8(1)
        .f32(1.0).f32(2.0).f32(3.0).f32(4.0).f32(5.0).f32(6.0)
        .u32(1500).u8(0).u32(0).u32(0).u32(0).u32(0)
)]
#[case::set_camera_spectate(
    "p:spectate(other, 7, 8)",
    To::Owner, 1, 51,
    |c: &Ctx| Wire::new(0x73).event().u8(2)
        .f32(0.0).f32(0.0).f32(0.0).f32(0.0).f32(0.0).f32(0.0)
        .u32(0).u8(1).u32(c.other_id).u32(c.other_token).u32(7).u32(8)
)]
#[case::set_camera_own(
    "p:set_camera_fixed(1, 2, 3, 4, 5, 6) p:reset_camera()",
    To::Owner, 1, 51,
    |_: &Ctx| Wire::new(0x73).event().u8(0)
        .f32(0.0).f32(0.0).f32(0.0).f32(0.0).f32(0.0).f32(0.0)
        .u32(0).u8(0).u32(0).u32(0).u32(0).u32(0)
)]
#[case::set_on_fire(
    "p:set_on_fire(true)",
    To::Owner, 1, 6,
    |_: &Ctx| Wire::new(0x58).event().u8(1)
)]
#[case::set_special_action(
    "p:set_special_action('phone')",
    To::Owner, 1, 8,
    |_: &Ctx| Wire::new(0x59).event().u8(3).u16(1)
)]
#[case::apply_animation(
    DANCE,
    To::SubjectAndViewers, 9, 94,
    // flags: loop (bit0) | freeze (bit3).
    |c: &Ctx| Wire::new(0x2B).subject(c).name("DANCING").name("dnce_M_a")
        .f32(8.0).u8(0b1001).u32(5000).f32(1.5).u32(0)
)]
#[case::clear_animations(
    "p:apply_animation('DANCING', 'dnce_M_a') p:clear_animations()",
    To::SubjectAndViewers, 9, 13,
    |c: &Ctx| Wire::new(0x2C).subject(c)
)]
#[case::set_animation_progress(
    "p:apply_animation('DANCING', 'dnce_M_a') p:set_animation_progress(0.25)",
    To::SubjectAndViewers, 9, 17,
    |c: &Ctx| Wire::new(0x2E).subject(c).f32(0.25)
)]
#[case::set_animation_speed(
    "p:apply_animation('DANCING', 'dnce_M_a') p:set_animation_speed(2.5)",
    To::SubjectAndViewers, 9, 17,
    |c: &Ctx| Wire::new(0x2F).subject(c).f32(2.5)
)]
fn each_command_sends_its_packet_byte_for_byte(
    #[case] code: &str,
    #[case] to: To,
    #[case] event_at: usize,
    #[case] len: usize,
    #[case] expected: fn(&Ctx) -> Wire,
) {
    let (_s, mut h, a, b) = pair("command-bytes");
    let player = |c| h.get::<Player>(c);
    let ctx = Ctx {
        id: player(a).id.0,
        token: player(a).token.0,
        epoch: h.get::<DeathEpoch>(a).0,
        other_id: player(b).id.0,
        other_token: player(b).token.0,
    };
    ask(&mut h, a, code);
    let expected = expected(&ctx).0;
    let id = expected[0];
    assert_eq!(expected.len(), len, "the page's total");
    let stamped = |mut bytes: Vec<u8>| {
        let event = &mut bytes[event_at..event_at + 4];
        assert_ne!(event, [0; 4], "the lane stamps event_id");
        event.fill(0);
        bytes
    };
    let own = sent(&h, a, id);
    let last = own.last().cloned().expect("the owner got the packet");
    assert_eq!(stamped(last), expected, "{code}");
    let watched = sent(&h, b, id);
    match to {
        To::Owner => assert!(watched.is_empty(), "{code}: not to observers"),
        To::SubjectAndViewers => {
            let last = watched.last().cloned().expect("the viewer got it");
            assert_eq!(stamped(last), expected, "{code}: the viewer's copy");
        }
    }
}

/// What happens to the player between setting a value and reading it back.
#[derive(Debug, Clone, Copy)]
enum Then {
    /// A lethal fall the ledger commits.
    Death,
    /// The lethal fall, then RespawnRequest after the least time dead: a new respawn grant,
    /// confirmed by a living frame.
    Respawn,
    /// A disconnect and a new connection under the same name, spawned again.
    Reconnect,
}

/// Kills `c` with a fall (DamageReport, weapon 54) and runs one tick.
fn fall(h: &mut Harness, c: ClientId) {
    let seq = h.get::<Ledger>(c).damage_seq.0 + 1;
    h.report_damage(c, seq, 54, 200.0);
    h.step();
    assert!(!h.get::<Life>(c).alive, "the fall kills");
}

/// Each stored value: set through its setter, then read back after a death, a real respawn
/// grant and a new connection, as its section of player.md says (kept, reset, default).
#[rstest]
#[case::skin(
    "p:set_skin(230, 3)",
    "local m, v = p:skin() say(m .. ' ' .. v)",
    "230 3",
    "230 3",
    "230 3",
    "0 1"
)]
#[case::walking_style(
    "p:set_walking_style(120)",
    "say(p:walking_style())",
    "120",
    "120",
    "120",
    "0"
)]
#[case::fighting_style(
    "p:set_fighting_style(5)",
    "say(p:fighting_style())",
    "5",
    "5",
    "5",
    "15"
)]
#[case::headless(
    "p:set_headless(true)",
    "say(p:is_headless())",
    "true",
    "true",
    "false",
    "false"
)]
#[case::skill("p:set_skill(0, 500)", "say(p:skill(0))", "500", "500", "500", "999")]
#[case::wanted("p:set_wanted(4)", "say(p:wanted())", "4", "4", "4", "0")]
#[case::money("p:set_money(500)", "say(p:money())", "500", "500", "500", "0")]
#[case::drunk_level(
    "p:set_drunk_level(100)",
    "say(p:drunk_level())",
    "100",
    "100",
    "0",
    "0"
)]
#[case::stats(
    "p:set_stats(250, 300)",
    "say(table.concat({p:stats()}, ' '))",
    "250 300",
    "250 300",
    "250 300",
    "1000 1000"
)]
#[case::frozen(
    "p:set_frozen(true)",
    "say(p:is_frozen())",
    "true",
    "true",
    "false",
    "false"
)]
#[case::camera(
    "p:set_camera_fixed(1, 2, 3, 4, 5, 6)",
    "say((p:camera()))",
    "fixed",
    "fixed",
    "own",
    "own"
)]
#[case::special_action(
    "p:set_special_action('phone')",
    "say((p:special_action()))",
    "phone",
    "none",
    "none",
    "none"
)]
#[case::animation(
    "p:apply_animation('DANCING', 'dnce_M_a', { loop = true })",
    "say(tostring((p:animation())))",
    "DANCING",
    "nil",
    "nil",
    "nil"
)]
#[case::gravity(
    "p:set_gravity(0.004)",
    "say(p:gravity())",
    "0.004",
    "0.004",
    "0.004",
    "0.008"
)]
#[case::world_bounds(
    "p:set_world_bounds(-100, -50, 100, 50)",
    "say(tostring((p:world_bounds())))",
    "-100.0",
    "-100.0",
    "-100.0",
    "nil"
)]
#[case::virtual_world("p:set_virtual_world(7)", "say(p:virtual_world())", "7", "7", "7", "0")]
// The respawn moves the interior scope to the spawn point's area (0 here).
#[case::interior("p:set_interior(3)", "say(p:interior())", "3", "3", "0", "0")]
fn a_stored_value_after_a_death_a_respawn_and_a_new_connection(
    #[case] set: &str,
    #[case] read: &str,
    #[case] after_set: &str,
    #[case] after_death: &str,
    #[case] after_respawn: &str,
    #[case] new_connection: &str,
    #[values(Then::Death, Then::Respawn, Then::Reconnect)] then: Then,
) {
    let (_s, mut h, a, _b) = pair("stored-values");
    assert_eq!(ask(&mut h, a, &format!("{set} {read}")), [after_set]);
    let (c, expected) = match then {
        Then::Death => {
            fall(&mut h, a);
            (a, after_death)
        }
        Then::Respawn => {
            fall(&mut h, a);
            h.respawn(a);
            assert!(h.get::<Life>(a).alive, "the respawn is granted");
            let seq = h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
            h.sync(a, seq, Frame::standing(AT));
            (a, after_respawn)
        }
        Then::Reconnect => {
            h.disconnect(a);
            h.steps(2);
            let again = h.connect("alice");
            h.step();
            h.request_spawn(again);
            h.steps(2);
            h.sync(again, 1, Frame::standing(AT));
            assert!(h.get::<SpawnState>(again).life_confirmed);
            (again, new_connection)
        }
    };
    assert_eq!(ask(&mut h, c, read), [expected], "{set} then {then:?}");
}

/// The packets of the life cycle byte for byte: SpawnPlayer to the spawning player with its
/// heading in radians, PlayerWasted with the reported pose to the viewer only, RespawnPlayer
/// to the respawning player and PlayerSpawned to the viewer with the barrier seq.
#[test]
fn the_life_cycle_packets_byte_for_byte() {
    let s = TempScripts::new("life-bytes");
    s.resource(
        "gm",
        r#"dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 90, 230, 3, 5) end)"#,
    );
    let mut h = s.harness();
    let c = h.connect("carol");
    h.step();
    h.request_spawn(c);
    h.step();
    let spawn = sent(&h, c, 0x2A);
    let expected = Wire::new(0x2A)
        .f32(100.0)
        .f32(200.0)
        .f32(10.0)
        .f32(std::f32::consts::FRAC_PI_2)
        .i32(5)
        .u32(230)
        .u16(3)
        .0;
    assert_eq!(expected.len(), 27);
    assert_eq!(spawn, [expected]);
    assert!(
        sent(&h, c, 0x5D).is_empty(),
        "the connect spawn into interior 5 sends no ScopeChanged"
    );

    let (_s, mut h, a, b) = pair("life-bytes-pair");
    ask(&mut h, a, "p:set_respawn_point(110, 210, 11, 90)");
    h.sync(a, 2, Frame::standing(AT));
    let ctx = (h.get::<Player>(a).id.0, h.get::<Player>(a).token.0);
    h.clear(a);
    h.clear(b);
    h.report_death(
        a,
        DeathPose {
            weapon: 24,
            anim_group: 0,
            anim: 16,
        },
    );
    h.step();
    assert!(sent(&h, a, 0x1C).is_empty(), "not to the victim");
    let wasted = Wire::new(0x1C)
        .u32(ctx.0)
        .u32(ctx.1)
        .event()
        .u8(24)
        .u16(0)
        .u16(16)
        .0;
    assert_eq!(wasted.len(), 18);
    let mut got = sent(&h, b, 0x1C);
    assert_eq!(got.len(), 1);
    got[0][9..13].fill(0);
    assert_eq!(got[0], wasted);

    h.respawn(a);
    let respawn = Wire::new(0x0D)
        .f32(110.0)
        .f32(210.0)
        .f32(11.0)
        .f32(std::f32::consts::FRAC_PI_2)
        .i32(0)
        .0;
    assert_eq!(respawn.len(), 21);
    assert_eq!(sent(&h, a, 0x0D), [respawn]);
    assert!(
        sent(&h, b, 0x0D).is_empty(),
        "only to the respawning player"
    );
    assert!(sent(&h, a, 0x1D).is_empty(), "not to the respawning player");
    let spawned = Wire::new(0x1D)
        .u32(ctx.0)
        .u32(ctx.1)
        .event()
        .f32(110.0)
        .f32(210.0)
        .f32(11.0)
        .f32(std::f32::consts::FRAC_PI_2)
        .u32(2)
        .0;
    assert_eq!(spawned.len(), 33);
    let mut got = sent(&h, b, 0x1D);
    assert_eq!(got.len(), 1);
    got[0][9..13].fill(0);
    assert_eq!(got[0], spawned, "sync_seq is the last accepted seq, 2");
}

/// The ids of the packets about the recipient's own player: never sent to anyone else.
const OWN_ONLY: [u8; 17] = [
    0x11, 0x15, 0x20, 0x28, 0x2D, 0x56, 0x57, 0x58, 0x59, 0x5D, 0x72, 0x73, 0x90, 0x91, 0x92, 0x93,
    0x94,
];

/// A show of a subject carries its skills, nametag and the replay of its animation, and its
/// looks ride the relay; none of the subject's own commands reach the newcomer, and the show
/// changes nothing the gamemode reads.
#[test]
fn a_show_carries_the_subjects_slow_state_and_none_of_its_own_commands() {
    let (_s, mut h, a, _b) = pair("show");
    for set in [
        "p:set_skin(230, 3) p:set_walking_style(120) p:set_fighting_style(5)",
        "p:set_headless(true) p:set_skill(0, 500) p:set_money(500) p:set_wanted(4)",
        "p:set_drunk_level(100) p:set_stats(250, 300) p:set_gravity(0.004)",
        "p:set_world_bounds(-5000, -5000, 5000, 5000) p:set_on_fire(true)",
        "p:apply_animation('DANCING', 'dnce_M_a', { loop = true }) p:set_frozen(true)",
    ] {
        ask(&mut h, a, set);
    }
    let read = |h: &mut Harness| {
        [
            "say(table.concat({p:skin()}, ' '))",
            "say(p:walking_style() .. ' ' .. p:fighting_style())",
            "say(tostring(p:is_headless()) .. ' ' .. p:skill(0) .. ' ' .. p:money())",
            "say(p:wanted() .. ' ' .. p:drunk_level() .. ' ' .. p:gravity())",
            "say(table.concat({p:stats()}, ' ') .. ' ' .. (p:world_bounds()))",
            "say((p:animation()) .. ' ' .. tostring(p:is_frozen()))",
        ]
        .map(|code| ask(h, a, code).join(" "))
        .join(" ")
    };
    let before = read(&mut h);
    assert_eq!(
        before,
        "230 3 120 5 true 500 500 4 100 0.004 250 300 -5000.0 DANCING true"
    );
    let far = Vec3::new(3000.0, 3000.0, 10.0);
    let c = h.connect("carol");
    h.step();
    h.spawn(c, far);
    h.sync(c, 1, Frame::standing(far));
    let carol = h.player_id(c);
    assert!(!h.get::<Viewers>(a).contains(carol), "carol is far away");
    h.clear(c);
    // Written: a teleport would put Carol's own TeleportPlayer among what this test
    // checks she never receives about Alice.
    h.with::<Position>(c, |p| p.0 = AT);
    for _ in 0..10 {
        if h.get::<Viewers>(a).contains(carol) {
            break;
        }
        h.step();
    }
    assert!(
        h.get::<Viewers>(a).contains(carol),
        "alice is shown to carol"
    );
    h.sync(a, 2, Frame::standing(AT));
    let about_alice: Vec<u8> = h.received(c).iter().map(|p| encode(p)[0]).collect();
    for id in OWN_ONLY {
        assert!(!about_alice.contains(&id), "{id:#04x} reached a viewer");
    }
    let skills: Vec<PlayerSkills> = h.packets(c);
    assert!(
        skills
            .iter()
            .any(|s| s.id == h.player_id(a) && s.skills[0] == 500)
    );
    let replay: Vec<ApplyAnimation> = h.packets(c);
    assert!(
        matches!(replay.as_slice(), [r] if r.id == h.player_id(a) && r.elapsed_ms > 0),
        "{replay:?}"
    );
    let relay: Vec<RemotePlayerSync> = h.packets(c);
    let relay = relay
        .iter()
        .rfind(|r| r.player_id == h.player_id(a))
        .expect("alice's frame relayed to carol");
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
    assert_eq!(read(&mut h), before, "the show changes nothing");
}

/// player.md: SetOnFire(0) and SetSpecialAction(0) follow a grant only if such a command went
/// out in the previous life, SetDrunkLevel(0) only if the level is not 0, SetFrozen(0) and
/// the own camera only if control was taken; SetHeadless(0) on every grant (the client does
/// not clear it itself), and no ScopeChanged for a respawn in the same interior.
#[test]
fn a_grant_after_a_life_without_commands_sends_only_respawn_player_and_the_head() {
    let (_s, mut h, a, _b) = pair("quiet-respawn");
    h.clear(a);
    h.die_and_respawn(a);
    h.steps(2);
    let ids: Vec<u8> = h.received(a).iter().map(|p| encode(p)[0]).collect();
    for id in [0x58, 0x59, 0x72, 0x73, 0x92, 0x5D, 0x2C] {
        assert!(
            !ids.contains(&id),
            "{id:#04x} after a quiet life: {ids:02x?}"
        );
    }
    assert_eq!(sent(&h, a, 0x0D).len(), 1);
    assert_eq!(sent(&h, a, 0x57).len(), 1);
}
