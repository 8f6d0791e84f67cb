//! player.md, "Player streaming", in the harness: players spawn by the real connect
//! spawn, are then moved by writing their `Position` and `Scope`, and what each client is
//! sent shows the server's shown sets.

use bevy_ecs::entity::Entity;
use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness};
use dlmp::lane::Delivery;
use dlmp::player::LastFrame;
use dlmp::player::control::ControlCommand;
use dlmp::player::control::camera::CameraSetting;
use dlmp::player::scope::SetScope;
use dlmp::player::stream::{StreamState, StreamingSettings};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{PlayerId, Seq};
use dlmp::protocol::player::appearance::PlayerSkills;
use dlmp::protocol::player::streaming::PlayerStreamOut;
use dlmp::protocol::player::sync::{Frame, RemotePlayerSync};
use dlmp::session::{Name, Player, PlayerIndex, PlayerName};
use dlmp_core::position::{Position, StreamCenter};
use dlmp_core::viewers::Viewers;

fn entity(h: &Harness, c: ClientId) -> Entity {
    h.world()
        .resource::<PlayerIndex>()
        .get(h.player_id(c))
        .expect("a live player")
}

/// The real connect spawn of `c` at (x, 0, 0) in the default scope, and its tick.
fn spawn_x(h: &mut Harness, c: ClientId, x: f32) {
    h.spawn(c, Vec3::new(x, 0.0, 0.0));
}

/// Written: streaming's distance rules need bodies kilometres apart from one tick to the
/// next, further than the movement check lets a frame go; a teleport would add its own
/// packets and landing to every log.
fn move_to(h: &mut Harness, c: ClientId, x: f32) {
    let e = entity(h, c);
    h.world_mut()
        .entity_mut(e)
        .insert(Position(Vec3::new(x, 0.0, 0.0)));
}

/// The gamemode's scope setter (`SetScope`), applied in the next tick before streaming
/// reconciles it.
fn set_scope(h: &mut Harness, c: ClientId, virtual_world: u32, interior: u8) {
    let player = entity(h, c);
    h.world_mut().write_message(SetScope {
        player,
        virtual_world: Some(virtual_world),
        interior: Some(interior),
    });
}

fn viewers(h: &Harness, c: ClientId) -> Vec<PlayerId> {
    h.world()
        .get::<Viewers>(entity(h, c))
        .expect("a player's viewers")
        .iter()
        .collect()
}

/// What `to` applied about `subject`, in order: "skills", "nametag", "out".
fn stream_log(h: &Harness, to: ClientId, subject: PlayerId) -> Vec<&'static str> {
    h.received(to)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::PlayerSkills(p) if p.id == subject => Some("skills"),
            ServerPacket::PlayerNametag(p) if p.id == subject => Some("nametag"),
            ServerPacket::PlayerStreamOut(p) if p.player_id == subject => Some("out"),
            _ => None,
        })
        .collect()
}

/// Two players, `alice` at 0 and `bob` at `x`, spawned; what they got so far is cleared.
fn pair(x: f32) -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    spawn_x(&mut h, a, 0.0);
    spawn_x(&mut h, b, x);
    h.step();
    h.clear(a);
    h.clear(b);
    (h, a, b)
}

#[test]
fn a_player_within_420_m_is_shown_with_its_snapshot_in_order() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    spawn_x(&mut h, a, 0.0);
    spawn_x(&mut h, b, 419.0);
    h.step();
    let bob = h.player_id(b);
    assert_eq!(stream_log(&h, a, bob), ["skills", "nametag"]);
    assert_eq!(stream_log(&h, b, h.player_id(a)), ["skills", "nametag"]);
    let skills = h.packets::<PlayerSkills>(a);
    assert_eq!(skills[0].skills, [999; 11]);
    assert_eq!(skills[0].player_token, h.hello(b).player_token);
    let tags = h.packets::<dlmp::protocol::connection::roster::PlayerNametag>(a);
    assert_eq!(tags[0].name.as_str(), "bob");
    assert_eq!(viewers(&h, b), [h.player_id(a)]);
    // Nothing new while nothing changes.
    h.steps(3);
    assert_eq!(stream_log(&h, a, bob), ["skills", "nametag"]);
}

#[test]
fn players_see_and_are_seen_only_once_spawned() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    spawn_x(&mut h, a, 0.0);
    h.steps(2);
    assert!(stream_log(&h, a, h.player_id(b)).is_empty());
    assert!(stream_log(&h, b, h.player_id(a)).is_empty());
    spawn_x(&mut h, b, 0.0);
    h.step();
    assert_eq!(stream_log(&h, a, h.player_id(b)), ["skills", "nametag"]);
    assert_eq!(stream_log(&h, b, h.player_id(a)), ["skills", "nametag"]);
}

#[test]
fn no_hide_between_420_and_460_m_and_a_hide_beyond() {
    let (mut h, a, b) = pair(100.0);
    let bob = h.player_id(b);
    for x in [421.0, 440.0, 459.0, 425.0] {
        move_to(&mut h, b, x);
        h.step();
    }
    assert!(stream_log(&h, a, bob).is_empty(), "hysteresis: still shown");
    assert_eq!(viewers(&h, b), [h.player_id(a)]);

    move_to(&mut h, b, 461.0);
    h.step();
    assert_eq!(stream_log(&h, a, bob), ["out"]);
    let out = &h.packets::<PlayerStreamOut>(a)[0];
    assert_eq!(out.last_seq, Seq(0), "no frame relayed");
    assert_eq!(out.last_shot_order, Seq(0));
    assert_eq!(out.player_token, h.hello(b).player_token);
    assert!(viewers(&h, b).is_empty());
    // Bob hides alice too, from his side.
    assert_eq!(stream_log(&h, b, h.player_id(a)), ["out"]);
    assert_eq!(h.packets::<PlayerStreamOut>(b)[0].last_seq, Seq(0));
}

/// The `last_seq` of `subject`'s PlayerStreamOut(s) `to` received, in order.
/// ADR 0079: an answer is not decided again while it cannot have changed, yet a walk in
/// steps too small to be a jump still crosses the edges in the tick it reaches them, for
/// the subject's walk and for the recipient's own.
#[test]
fn small_steps_cross_the_420_and_460_m_edges_in_the_tick_they_reach_them() {
    let (mut h, a, b) = pair(400.0);
    let bob = h.player_id(b);
    for x in 401..=470 {
        move_to(&mut h, b, x as f32);
        h.step();
        let expected: &[&str] = if x <= 460 { &[] } else { &["out"] };
        assert_eq!(stream_log(&h, a, bob), expected, "bob at {x} m");
    }
    h.clear(a);
    // Alice walks towards bob (at 470 m) until he is within 420 m.
    for x in 1..=50 {
        move_to(&mut h, a, x as f32);
        h.step();
        let expected: &[&str] = if x < 50 { &[] } else { &["skills", "nametag"] };
        assert_eq!(stream_log(&h, a, bob), expected, "alice at {x} m");
    }
}

fn hidden_at(h: &Harness, to: ClientId, subject: ClientId) -> Vec<Seq> {
    let id = h.player_id(subject);
    h.packets::<PlayerStreamOut>(to)
        .iter()
        .filter(|p| p.player_id == id)
        .map(|p| p.last_seq)
        .collect()
}

/// The seqs of `subject`'s RemotePlayerSync `to` received, in order.
fn relayed_seqs(h: &Harness, to: ClientId, subject: ClientId) -> Vec<Seq> {
    let id = h.player_id(subject);
    h.packets::<RemotePlayerSync>(to)
        .iter()
        .filter(|p| p.player_id == id)
        .map(|p| p.seq)
        .collect()
}

fn standing_at(x: f32) -> Frame {
    Frame::standing(Vec3::new(x, 0.0, 0.0))
}

#[test]
fn a_hide_carries_the_seq_of_the_last_relay_sent_to_the_recipient() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.spawn(a, Vec3::new(0.0, 0.0, 0.0));
    h.spawn(b, Vec3::new(100.0, 0.0, 0.0));
    h.step();
    for seq in [5, 6, 9] {
        h.sync(b, seq, standing_at(100.0));
    }
    assert_eq!(relayed_seqs(&h, a, b), [Seq(5), Seq(6), Seq(9)]);
    move_to(&mut h, a, 1000.0);
    h.step();
    assert_eq!(hidden_at(&h, a, b), [Seq(9)]);
}

#[test]
fn a_recipient_shown_after_the_last_relay_and_hidden_before_the_next_gets_0() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    let c = h.connect("carol");
    h.spawn(a, Vec3::new(0.0, 0.0, 0.0));
    h.spawn(b, Vec3::new(1000.0, 0.0, 0.0));
    h.spawn(c, Vec3::new(1010.0, 0.0, 0.0));
    h.step();
    // Bob's frames go to carol, not to alice, who is far away.
    for seq in [1, 2, 3] {
        h.sync(b, seq, standing_at(1000.0));
    }
    assert_eq!(relayed_seqs(&h, c, b), [Seq(1), Seq(2), Seq(3)]);
    move_to(&mut h, a, 990.0);
    h.step();
    assert_eq!(stream_log(&h, a, h.player_id(b)), ["skills", "nametag"]);
    move_to(&mut h, a, 0.0);
    h.step();
    assert!(relayed_seqs(&h, a, b).is_empty());
    assert_eq!(hidden_at(&h, a, b), [Seq(0)], "none sent to alice");
    // Carol, still shown, gets the last one sent to her at her own hide.
    move_to(&mut h, c, 3000.0);
    h.step();
    assert_eq!(hidden_at(&h, c, b), [Seq(3)]);
}

#[test]
fn a_frame_accepted_in_the_tick_of_the_hide_is_not_the_last_seq() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.spawn(a, Vec3::new(0.0, 0.0, 0.0));
    h.spawn(b, Vec3::new(100.0, 0.0, 0.0));
    h.step();
    h.sync(b, 1, standing_at(100.0));
    h.sync(b, 2, standing_at(100.0));
    move_to(&mut h, a, 1000.0);
    h.sync(b, 3, standing_at(100.0));
    assert_eq!(h.get::<LastFrame>(b).seq, Some(Seq(3)), "accepted");
    assert_eq!(relayed_seqs(&h, a, b), [Seq(1), Seq(2)]);
    assert_eq!(hidden_at(&h, a, b), [Seq(2)], "the last one sent");
}

#[test]
fn a_reused_slot_starts_with_no_relay_sent() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.spawn(a, Vec3::new(0.0, 0.0, 0.0));
    h.spawn(b, Vec3::new(10.0, 0.0, 0.0));
    h.step();
    h.sync(a, 4, standing_at(0.0));
    assert_eq!(relayed_seqs(&h, b, a), [Seq(4)]);
    h.disconnect(b);
    h.steps(2);
    // Dave takes bob's slot next to alice and leaves her range before her next frame.
    let d = h.connect("dave");
    assert_eq!(h.player_id(d), h.player_id(b), "the slot is reused");
    spawn_x(&mut h, d, 20.0);
    h.step();
    assert_eq!(stream_log(&h, d, h.player_id(a)), ["skills", "nametag"]);
    move_to(&mut h, d, 3000.0);
    h.step();
    assert_eq!(hidden_at(&h, d, a), [Seq(0)], "bob's relays are not dave's");
}

#[test]
fn back_in_range_brings_a_fresh_snapshot() {
    let (mut h, a, b) = pair(100.0);
    let bob = h.player_id(b);
    move_to(&mut h, b, 1000.0);
    h.step();
    move_to(&mut h, b, 430.0);
    h.step();
    assert_eq!(
        stream_log(&h, a, bob),
        ["out"],
        "430 m is not close enough for a show"
    );
    move_to(&mut h, b, 400.0);
    h.step();
    assert_eq!(stream_log(&h, a, bob), ["out", "skills", "nametag"]);
}

#[test]
fn a_scope_change_hides_at_any_distance_and_a_common_scope_shows_again() {
    let (mut h, a, b) = pair(1.0);
    let bob = h.player_id(b);
    set_scope(&mut h, b, 0, 5);
    h.step();
    assert_eq!(stream_log(&h, a, bob), ["out"]);
    set_scope(&mut h, a, 0, 5);
    h.step();
    assert_eq!(stream_log(&h, a, bob), ["out", "skills", "nametag"]);
    set_scope(&mut h, a, 9, 5);
    h.step();
    assert_eq!(stream_log(&h, a, bob), ["out", "skills", "nametag", "out"]);
}

/// Sets `c`'s camera through the control feature, which drives the stream center.
fn set_camera(h: &mut Harness, c: ClientId, camera: CameraSetting) {
    let player = entity(h, c);
    h.world_mut()
        .write_message(ControlCommand::Camera { player, camera });
}

#[test]
fn a_spectator_far_away_sees_its_target() {
    let (mut h, a, b) = pair(3000.0);
    let bob = h.player_id(b);
    let spectate = CameraSetting::Spectate {
        target: entity(&h, b),
        id: bob,
        token: h.get::<Player>(b).token,
        prev_action: 0,
        next_action: 0,
    };
    set_camera(&mut h, a, spectate);
    h.step();
    assert_eq!(h.get::<StreamCenter>(a).spectating, Some(bob));
    assert_eq!(stream_log(&h, a, bob), ["skills", "nametag"]);
    assert!(
        stream_log(&h, b, h.player_id(a)).is_empty(),
        "not the other way"
    );
    set_camera(&mut h, a, CameraSetting::Own);
    h.step();
    assert_eq!(stream_log(&h, a, bob), ["skills", "nametag", "out"]);
}

#[test]
fn the_stream_center_follows_a_camera() {
    let (mut h, a, b) = pair(3000.0);
    let camera = CameraSetting::fixed(Vec3::new(2900.0, 0.0, 0.0), Vec3::new(3000.0, 0.0, 0.0), 0)
        .expect("a valid camera");
    set_camera(&mut h, a, camera);
    h.step();
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(2900.0, 0.0, 0.0))
    );
    assert_eq!(stream_log(&h, a, h.player_id(b)), ["skills", "nametag"]);
}

#[test]
fn a_weapon_range_extends_the_show_distance() {
    let (mut h, a, b) = pair(600.0);
    assert!(stream_log(&h, a, h.player_id(b)).is_empty());
    h.world_mut()
        .resource_mut::<StreamingSettings>()
        .weapon_range = Some(200.0);
    h.step();
    assert_eq!(stream_log(&h, a, h.player_id(b)), ["skills", "nametag"]);
}

#[test]
fn on_a_full_lane_the_hide_waits_and_still_precedes_the_next_show() {
    let (mut h, a, b) = pair(100.0);
    let bob = h.player_id(b);
    h.set_auto_ack(a, false);
    h.step();
    h.fill_lane(a, Delivery::Droppable, 0);

    move_to(&mut h, b, 1000.0);
    h.step();
    assert!(
        viewers(&h, b).is_empty(),
        "relays stop at once, the packet waits"
    );
    let pending: Vec<PlayerId> = h
        .world()
        .resource::<StreamState>()
        .pending_hides(h.player_id(a))
        .map(|p| p.player_id)
        .collect();
    assert_eq!(pending, [bob]);

    move_to(&mut h, b, 50.0);
    h.steps(3);
    assert!(viewers(&h, b).is_empty(), "the show waits for the hide");

    h.set_auto_ack(a, true);
    h.ack(a);
    h.steps(40);
    assert_eq!(stream_log(&h, a, bob), ["out", "skills", "nametag"]);
    assert_eq!(viewers(&h, b), [h.player_id(a)]);
    let state = h.world().resource::<StreamState>();
    assert_eq!(state.pending_hides(h.player_id(a)).count(), 0);
}

#[test]
fn a_show_that_does_not_fit_whole_waits_for_room() {
    let (mut h, a, b) = pair(3000.0);
    h.set_auto_ack(a, false);
    h.step();
    // Room for one event: the two-event snapshot does not go, not even in part.
    h.fill_lane(a, Delivery::Droppable, 1);
    move_to(&mut h, b, 10.0);
    h.steps(3);
    assert!(viewers(&h, b).is_empty());
    assert_eq!(
        viewers(&h, a),
        [h.player_id(b)],
        "bob's lane is free: he sees alice"
    );
    h.set_auto_ack(a, true);
    h.ack(a);
    h.steps(40);
    assert_eq!(stream_log(&h, a, h.player_id(b)), ["skills", "nametag"]);
}

#[test]
fn a_rename_reaches_the_viewers() {
    let (mut h, a, b) = pair(10.0);
    let c = h.connect("carol");
    spawn_x(&mut h, c, 5000.0);
    h.step();
    h.clear(c);
    let e = entity(&h, b);
    h.world_mut()
        .entity_mut(e)
        .insert(Name(PlayerName::new("robert").expect("a valid name")));
    h.step();
    let tags = h.packets::<dlmp::protocol::connection::roster::PlayerNametag>(a);
    assert_eq!(tags.len(), 1);
    assert_eq!(tags[0].name.as_str(), "robert");
    assert_eq!(
        h.packets::<dlmp::protocol::connection::roster::PlayerNametag>(b)[0]
            .name
            .as_str(),
        "robert",
        "and the subject itself"
    );
    assert!(
        stream_log(&h, c, h.player_id(b)).is_empty(),
        "carol is far away"
    );
}

#[test]
fn a_reused_slot_does_not_inherit_visibility_and_a_leaver_gets_no_hide() {
    let (mut h, a, b) = pair(10.0);
    let bob = h.player_id(b);
    // A hide of bob is waiting on alice's full lane when bob leaves.
    h.set_auto_ack(a, false);
    h.step();
    h.fill_lane(a, Delivery::Droppable, 0);
    move_to(&mut h, b, 1000.0);
    h.step();
    assert_eq!(
        h.world()
            .resource::<StreamState>()
            .pending_hides(h.player_id(a))
            .count(),
        1
    );
    move_to(&mut h, b, 10.0);
    h.step();
    h.disconnect(b);
    h.steps(2);
    assert_eq!(
        h.world()
            .resource::<StreamState>()
            .pending_hides(h.player_id(a))
            .count(),
        0,
        "PlayerLeave covers a leaver"
    );
    h.set_auto_ack(a, true);
    h.ack(a);
    h.steps(40);
    assert!(
        stream_log(&h, a, bob).is_empty(),
        "no PlayerStreamOut for a leaver"
    );

    // carol takes bob's slot, far away: alice must not count as seeing her, nor she alice.
    let c = h.connect("carol");
    assert_eq!(h.player_id(c), bob, "the slot is reused");
    spawn_x(&mut h, c, 3000.0);
    h.step();
    assert!(viewers(&h, c).is_empty());
    assert!(viewers(&h, a).is_empty());
    assert!(stream_log(&h, c, h.player_id(a)).is_empty());
}

#[test]
fn a_recipient_who_leaves_is_forgotten_by_its_subjects() {
    let (mut h, a, b) = pair(10.0);
    assert_eq!(viewers(&h, a), [h.player_id(b)]);
    h.disconnect(b);
    h.steps(2);
    assert!(viewers(&h, a).is_empty());
    // Bob's slot goes to dave: alice is shown to him only through a fresh show.
    let d = h.connect("dave");
    assert_eq!(h.player_id(d), h.player_id(b));
    assert!(viewers(&h, a).is_empty());
    spawn_x(&mut h, d, 20.0);
    h.step();
    assert_eq!(stream_log(&h, d, h.player_id(a)), ["skills", "nametag"]);
    assert_eq!(viewers(&h, a), [h.player_id(d)]);
}

#[test]
fn many_players_each_see_exactly_their_neighbours() {
    let mut h = Harness::with_config(Config {
        max_players: 64,
        ..Harness::config()
    });
    let clients: Vec<ClientId> = (0..12).map(|i| h.connect(&format!("p{i:02}"))).collect();
    // Two groups 2 km apart, 100 m between neighbours.
    for (i, &c) in clients.iter().enumerate() {
        let x = if i < 6 {
            i as f32 * 100.0
        } else {
            2000.0 + i as f32 * 100.0
        };
        spawn_x(&mut h, c, x);
    }
    h.steps(2);
    for (i, &c) in clients.iter().enumerate() {
        let mut expected: Vec<PlayerId> = clients
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i && (i < 6) == (j < 6) && i.abs_diff(j) * 100 <= 420)
            .map(|(_, &o)| h.player_id(o))
            .collect();
        expected.sort();
        let mut got = viewers(&h, c);
        got.sort();
        assert_eq!(got, expected, "player {i}");
    }
}

mod scripts {
    use super::*;
    use std::path::PathBuf;

    struct Dir(PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn stream_events_reach_a_lua_handler_but_not_on_disconnect() {
        let dir = Dir(
            std::env::temp_dir().join(format!("dlmp-scripts-streaming-{}", std::process::id()))
        );
        let res = dir.0.join("gm");
        std::fs::create_dir_all(&res).expect("temp dir");
        std::fs::write(res.join("resource.toml"), "name = \"gm\"\n").expect("manifest");
        std::fs::write(
            res.join("main.lua"),
            r#"
            dlmp.on("player_stream_in", function(p, f) dlmp.send_chat("in " .. p:name() .. " for " .. f:name(), nil, {f}) end)
            dlmp.on("player_stream_out", function(p, f) dlmp.send_chat("out " .. p:name() .. " for " .. f:name(), nil, {f}) end)
            "#,
        )
        .expect("main.lua");
        let mut h = Harness::with_config(Config {
            scripts: dir.0.clone(),
            ..Harness::config()
        });
        let a = h.connect("alice");
        let b = h.connect("bob");
        spawn_x(&mut h, a, 0.0);
        spawn_x(&mut h, b, 10.0);
        h.steps(2);
        assert_eq!(h.chat_lines(a), ["in bob for alice"]);
        assert_eq!(h.chat_lines(b), ["in alice for bob"]);
        set_scope(&mut h, b, 1, 0);
        h.steps(2);
        assert_eq!(h.chat_lines(a), ["in bob for alice", "out bob for alice"]);
        set_scope(&mut h, b, 0, 0);
        h.steps(2);
        h.disconnect(b);
        h.steps(3);
        assert_eq!(
            h.chat_lines(a),
            ["in bob for alice", "out bob for alice", "in bob for alice"],
            "a disconnect raises no stream event"
        );
    }
}

#[test]
fn relays_stop_at_once_on_a_hide_whatever_the_queue() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.spawn(a, Vec3::new(0.0, 0.0, 0.0));
    h.spawn(b, Vec3::new(100.0, 0.0, 0.0));
    h.step();
    let bob = h.player_id(b);
    let standing = Frame::standing(Vec3::new(100.0, 0.0, 0.0));
    h.sync(b, 1, standing);
    assert_eq!(h.packets::<RemotePlayerSync>(a).len(), 1, "shown: relayed");

    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Droppable, 0);
    h.clear(a);
    move_to(&mut h, a, 1000.0);
    h.sync(b, 2, standing);
    h.sync(b, 3, standing);
    assert!(
        h.packets::<RemotePlayerSync>(a).is_empty(),
        "no relay after the hide decision, though the hide waits for room"
    );
    assert!(
        stream_log(&h, a, bob).is_empty(),
        "the hide is not sent yet"
    );

    h.release_lane(a);
    let out = h.packets::<PlayerStreamOut>(a);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].last_seq,
        Seq(1),
        "the last relay sent: the frames of the hide's tick and after are not"
    );
    assert!(h.packets::<RemotePlayerSync>(a).is_empty());
}

/// connection.md §4 and ADR 0020: PlayerJoin waits outside the lane past
/// `ROSTER_WINDOW` events, and a show must never precede the join of its subject. A
/// newcomer joining 264 spawned players gets each show only after that player's join.
#[test]
fn after_a_mass_connect_no_show_precedes_its_join() {
    use dlmp::protocol::connection::roster::PlayerJoin;
    const OTHERS: usize = 264;
    let mut h = Harness::new();
    let others: Vec<ClientId> = (0..OTHERS)
        .map(|i| h.connect(&format!("player{i}")))
        .collect();
    let newcomer = h.connect("newcomer");
    for &c in others.iter().chain([&newcomer]) {
        h.offer_spawn(c, Vec3::new(0.0, 0.0, 0.0));
    }
    let waiting = h
        .world()
        .get::<dlmp::session::Connection>(h.entity(newcomer))
        .expect("a session")
        .roster_backlog();
    assert!(waiting > 0, "some joins wait outside the newcomer's lane");
    h.steps(60);
    let mut joined = std::collections::HashSet::new();
    let mut shown = 0;
    for p in h.received(newcomer) {
        match p {
            ServerPacket::PlayerJoin(PlayerJoin { id, .. }) => {
                joined.insert(*id);
            }
            ServerPacket::PlayerSkills(s) => {
                assert!(joined.contains(&s.id), "show of {:?} before its join", s.id);
                shown += 1;
            }
            _ => {}
        }
    }
    assert_eq!(joined.len(), OTHERS);
    assert_eq!(shown, OTHERS, "every player is shown in the end");
}

/// player.md, "Player streaming", and ADR 0020: PlayerWasted, PlayerSpawned and a rename's
/// PlayerNametag are normal events to the viewers. A viewer whose full lane refused one
/// would keep a wrong copy; instead it is hidden at once and shown afresh (PlayerStreamOut,
/// then the whole snapshot) once its lane has room.
#[rstest::rstest]
#[case::wasted("wasted")]
#[case::spawned("spawned")]
#[case::renamed("renamed")]
fn a_viewer_whose_full_lane_missed_a_change_gets_a_fresh_show(#[case] change: &str) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(Vec3::new(0.0, 0.0, 0.0));
    let bob = h.player_id(b);
    if change == "spawned" {
        h.die(b);
    }
    h.steps(2);
    h.clear(a);
    h.set_auto_ack(a, false);
    h.step();
    h.fill_lane(a, Delivery::Normal, 0);
    match change {
        "wasted" => h.die(b),
        "spawned" => h.respawn(b),
        _ => {
            let e = entity(&h, b);
            h.world_mut()
                .entity_mut(e)
                .insert(Name(PlayerName::new("robert").expect("a valid name")));
            h.steps(2);
        }
    }
    assert!(
        viewers(&h, b).is_empty(),
        "hidden at once: no relay to a wrong copy"
    );
    assert_eq!(h.world().resource::<dlmp::streaming::Reshows>().made(), 1);
    h.release_lane(a);
    h.steps(5);
    assert_eq!(stream_log(&h, a, bob), ["out", "skills", "nametag"]);
    assert_eq!(viewers(&h, b), [h.player_id(a)]);
    if change == "renamed" {
        let tags = h.packets::<dlmp::protocol::connection::roster::PlayerNametag>(a);
        assert_eq!(
            tags[0].name.as_str(),
            "robert",
            "the show carries the new name"
        );
    }
}
