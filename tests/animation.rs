//! player.md, ApplyAnimation, ClearAnimations, SetAnimationProgress / SetAnimationSpeed,
//! SetSpecialAction and the show snapshot of "Player streaming", in the harness: the
//! packets to the subject and the players it is shown to (and no one else), the stored
//! state and what ends it, the replay on show, the refusals of the Lua API.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::lane::Delivery;
use dlmp::player::animation::{
    AnimationCommand, AnimationDrops, AnimationOrder, AnimationSpec, CurrentAnimation, Progress,
    Speed,
};
use dlmp::player::frame::FrameState;
use dlmp::player::{Body, Life, SpawnState};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::chat::ChatMessage;
use dlmp::protocol::connection::roster::PlayerNametag;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, PlayerToken, Revision};
use dlmp::protocol::player::action::SpecialAction;
use dlmp::protocol::player::animation::{
    AnimationFlags, ApplyAnimation, ClearAnimations, SetAnimationProgress, SetAnimationSpeed,
};
use dlmp::protocol::player::appearance::PlayerSkills;
use dlmp::protocol::player::control::SetSpecialAction;
use dlmp::protocol::player::life::{DeathPose, RespawnPlayer};
use dlmp::protocol::player::sync::{Frame, Keys, RemotePlayerSync};
use dlmp::protocol::text::FixedText;
use dlmp::session::Player;
use dlmp_core::position::Position;
use dlmp_core::viewers::Viewers;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);
/// Far beyond the show distance from [`SPAWN`].
const FAR: Vec3 = Vec3::new(3000.0, 3000.0, 10.0);

/// Alice and Bob at [`SPAWN`], each shown to the other; Carol spawned at [`FAR`], shown
/// to neither. Everything received so far is forgotten.
fn three() -> (Harness, ClientId, ClientId, ClientId) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(SPAWN);
    let c = h.connect("carol");
    h.spawn(c, FAR);
    h.steps(2);
    assert!(!h.get::<Viewers>(a).contains(h.player_id(c)));
    for x in [a, b, c] {
        h.clear(x);
    }
    (h, a, b, c)
}

/// A living frame confirms the spawned life (SetSpecialAction goes only to a confirmed
/// life).
fn confirm_life(h: &mut Harness, c: ClientId) {
    h.sync(c, 1, Frame::standing(SPAWN));
    assert!(h.get::<SpawnState>(c).life_confirmed);
}

fn token(h: &Harness, c: ClientId) -> PlayerToken {
    h.get::<Player>(c).token
}

/// Writes the command for `c`'s player, as a Rust plugin would, and runs one tick.
fn order(h: &mut Harness, c: ClientId, order: AnimationOrder) {
    let player = h.entity(c);
    h.world_mut()
        .write_message(AnimationCommand { player, order });
    h.step();
}

fn dance() -> AnimationSpec {
    AnimationSpec::new(
        "DANCING",
        "dnce_M_a",
        4.1,
        AnimationFlags::LOOP | AnimationFlags::LOCK_X,
        0,
        1.5,
    )
    .expect("a valid animation")
}

fn timed(flags: AnimationFlags, time: u32) -> AnimationSpec {
    AnimationSpec::new("PED", "WALK_old", 4.1, flags, time, 1.0).expect("a valid animation")
}

fn playing(h: &Harness, c: ClientId) -> bool {
    h.get::<CurrentAnimation>(c).0.is_some()
}

/// The packets of type `P` the client got, with their event ids zeroed (each lane stamps
/// its own).
fn events<P: TryFrom<ServerPacket> + Into<ServerPacket>>(
    h: &Harness,
    c: ClientId,
) -> Vec<ServerPacket> {
    h.packets::<P>(c)
        .into_iter()
        .map(|p| {
            let mut p: ServerPacket = p.into();
            p.set_event_id(EventId(0));
            p
        })
        .collect()
}

#[test]
fn apply_animation_goes_to_the_subject_and_its_viewers_with_every_field() {
    let (mut h, a, b, c) = three();
    order(&mut h, a, AnimationOrder::Apply(dance()));
    let expected: ServerPacket = ApplyAnimation {
        id: h.player_id(a),
        player_token: token(&h, a),
        event_id: EventId(0),
        lib: FixedText::new("DANCING").expect("text"),
        name: FixedText::new("dnce_M_a").expect("text"),
        delta: 4.1,
        flags: AnimationFlags(0b11),
        time: 0,
        speed: 1.5,
        elapsed_ms: 0,
    }
    .into();
    assert_eq!(
        events::<ApplyAnimation>(&h, a),
        std::slice::from_ref(&expected)
    );
    assert_eq!(events::<ApplyAnimation>(&h, b), [expected]);
    assert!(h.packets::<ApplyAnimation>(c).is_empty());
    let stored = h.get::<CurrentAnimation>(a).0.expect("stored");
    assert_eq!(
        (stored.spec, stored.speed),
        (dance(), Speed::new(1.5).expect("speed"))
    );
}

#[test]
fn clear_progress_and_speed_go_to_the_subject_and_its_viewers() {
    let (mut h, a, b, c) = three();
    let (id, player_token) = (h.player_id(a), token(&h, a));
    order(&mut h, a, AnimationOrder::Apply(dance()));
    order(
        &mut h,
        a,
        AnimationOrder::Progress(Progress::new(0.25).expect("progress")),
    );
    order(
        &mut h,
        a,
        AnimationOrder::Speed(Speed::new(0.0).expect("speed")),
    );
    let stored = h.get::<CurrentAnimation>(a).0.expect("stored");
    assert_eq!((stored.progress.get(), stored.speed.get()), (0.25, 0.0));
    order(&mut h, a, AnimationOrder::Clear);
    assert!(!playing(&h, a));
    let progress: ServerPacket = SetAnimationProgress {
        id,
        player_token,
        event_id: EventId(0),
        progress: 0.25,
    }
    .into();
    let speed: ServerPacket = SetAnimationSpeed {
        id,
        player_token,
        event_id: EventId(0),
        speed: 0.0,
    }
    .into();
    let clear: ServerPacket = ClearAnimations {
        id,
        player_token,
        event_id: EventId(0),
    }
    .into();
    for x in [a, b] {
        assert_eq!(
            events::<SetAnimationProgress>(&h, x),
            std::slice::from_ref(&progress)
        );
        assert_eq!(
            events::<SetAnimationSpeed>(&h, x),
            std::slice::from_ref(&speed)
        );
        assert_eq!(
            events::<ClearAnimations>(&h, x),
            std::slice::from_ref(&clear)
        );
    }
    assert!(h.received(c).iter().all(|p| !matches!(
        p,
        ServerPacket::ApplyAnimation(_)
            | ServerPacket::SetAnimationProgress(_)
            | ServerPacket::SetAnimationSpeed(_)
            | ServerPacket::ClearAnimations(_)
    )));
}

#[test]
fn refused_commands_send_nothing_and_are_counted() {
    let (mut h, a, b, _) = three();
    // Progress and speed need a playing animation.
    order(
        &mut h,
        a,
        AnimationOrder::Progress(Progress::new(0.5).expect("progress")),
    );
    order(&mut h, a, AnimationOrder::Speed(Speed::NORMAL));
    // Apply and clear need a living spawned player. No packet unspawns a player, and a
    // real death would also end the life the special-action check below needs: written.
    h.with::<Life>(a, |l| l.alive = false);
    order(&mut h, a, AnimationOrder::Apply(dance()));
    order(&mut h, a, AnimationOrder::Clear);
    h.with::<Life>(a, |l| l.spawned = false);
    order(&mut h, a, AnimationOrder::Apply(dance()));
    // A special action needs a confirmed life.
    h.with::<Life>(a, |l| {
        *l = Life {
            spawned: true,
            alive: true,
        }
    });
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Phone),
    );
    assert_eq!(h.world().resource::<AnimationDrops>().refused, 6);
    for x in [a, b] {
        assert!(h.received(x).iter().all(|p| !matches!(
            p,
            ServerPacket::ApplyAnimation(_)
                | ServerPacket::SetAnimationProgress(_)
                | ServerPacket::SetAnimationSpeed(_)
                | ServerPacket::ClearAnimations(_)
                | ServerPacket::SetSpecialAction(_)
        )));
    }
    assert!(!playing(&h, a));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
}

#[test]
fn a_timed_animation_expires_at_start_plus_time_and_is_then_neither_read_nor_rewound() {
    let (mut h, a, b, _) = three();
    order(
        &mut h,
        a,
        AnimationOrder::Apply(timed(AnimationFlags::NONE, 500)),
    );
    let start = h.now();
    while h.now() + h.tick() < start + Duration::from_millis(500) {
        h.step();
        assert!(playing(&h, a), "still playing at {:?}", h.now() - start);
    }
    h.step();
    assert!(h.now() >= start + Duration::from_millis(500));
    assert!(!playing(&h, a));
    order(
        &mut h,
        a,
        AnimationOrder::Progress(Progress::new(0.0).expect("progress")),
    );
    assert!(h.packets::<SetAnimationProgress>(b).is_empty());
    assert_eq!(h.world().resource::<AnimationDrops>().refused, 1);
}

#[test]
fn freeze_never_expires() {
    let (mut h, a, _, _) = three();
    order(
        &mut h,
        a,
        AnimationOrder::Apply(timed(AnimationFlags::FREEZE, 100)),
    );
    h.advance(Duration::from_secs(2));
    assert!(playing(&h, a));
}

fn moving(keys: Keys) -> Frame {
    Frame {
        keys,
        ..Frame::standing(SPAWN)
    }
}

#[test]
fn a_movement_key_in_an_accepted_frame_ends_an_interruptable_animation() {
    let (mut h, a, b, _) = three();
    order(&mut h, a, AnimationOrder::Apply(dance()));
    h.sync(a, 1, moving(Keys::FIRE | Keys::AIM | Keys::SNEAK));
    assert!(playing(&h, a), "fire, aim and walk do not move the body");
    h.sync(a, 2, moving(Keys::LEFT));
    assert!(!playing(&h, a));
    // Clients cancel it themselves: the server sends nothing.
    assert!(h.packets::<ClearAnimations>(a).is_empty());
    assert!(h.packets::<ClearAnimations>(b).is_empty());
    // A paused frame's keys count as none.
    order(&mut h, a, AnimationOrder::Apply(dance()));
    let paused = Frame {
        paused: true,
        ..Frame::standing(SPAWN)
    };
    h.sync(a, 3, paused);
    assert!(playing(&h, a));
}

#[test]
fn freeze_and_dont_interrupt_hold_against_movement() {
    let (mut h, a, _, _) = three();
    order(
        &mut h,
        a,
        AnimationOrder::Apply(timed(AnimationFlags::DONT_INTERRUPT, 0)),
    );
    h.sync(a, 1, moving(Keys::FORWARD | Keys::SPRINT));
    assert!(playing(&h, a));
    order(
        &mut h,
        a,
        AnimationOrder::Apply(timed(AnimationFlags::FREEZE, 0)),
    );
    h.sync(a, 2, moving(Keys::JUMP));
    assert!(playing(&h, a));
}

#[test]
fn death_ends_the_animation_and_the_special_action() {
    let (mut h, a, _, _) = three();
    confirm_life(&mut h, a);
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Dance3),
    );
    order(&mut h, a, AnimationOrder::Apply(dance()));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::Dance3);
    h.report_death(
        a,
        DeathPose {
            weapon: 54,
            ..DeathPose::DEFAULT
        },
    );
    h.step();
    assert!(!h.get::<Life>(a).alive);
    assert!(!playing(&h, a));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
}

#[test]
fn a_respawn_grant_clears_the_animation_and_ends_an_action_of_the_previous_life() {
    let (mut h, a, b, _) = three();
    confirm_life(&mut h, a);
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Jetpack),
    );
    order(&mut h, a, AnimationOrder::Apply(dance()));
    die(&mut h, a);
    h.clear(a);
    h.clear(b);
    h.respawn(a);
    assert!(h.get::<Life>(a).alive, "the real grant");
    assert!(!playing(&h, a));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
    let got: Vec<&ServerPacket> = h
        .received(a)
        .iter()
        .filter(|p| {
            matches!(
                p,
                ServerPacket::RespawnPlayer(_) | ServerPacket::SetSpecialAction(_)
            )
        })
        .collect();
    assert!(
        matches!(
            got.as_slice(),
            [
                ServerPacket::RespawnPlayer(_),
                ServerPacket::SetSpecialAction(_)
            ]
        ),
        "SetSpecialAction(0) after the grant: {got:?}"
    );
    let reset = h.packets::<SetSpecialAction>(a);
    assert_eq!(
        (reset[0].action, reset[0].rev),
        (SpecialAction::None, Revision(2))
    );
    assert_eq!(h.get::<FrameState>(a).special_rev, Revision(2));
    // The respawn neither clears nor replays on clients: the death animation ended it.
    for x in [a, b] {
        assert!(h.packets::<ClearAnimations>(x).is_empty());
        assert!(h.packets::<ApplyAnimation>(x).is_empty());
    }
    // A life without an action needs no reset.
    h.live(a);
    die(&mut h, a);
    h.clear(a);
    h.respawn(a);
    assert!(h.get::<Life>(a).alive);
    assert!(h.packets::<RespawnPlayer>(a).len() == 1);
    assert!(h.packets::<SetSpecialAction>(a).is_empty());
}

/// A death by a fall, reported by the victim, committed in the tick.
fn die(h: &mut Harness, c: ClientId) {
    h.report_death(
        c,
        DeathPose {
            weapon: 54,
            ..DeathPose::DEFAULT
        },
    );
    h.step();
    assert!(!h.get::<Life>(c).alive);
}

/// Moves Carol next to the others and steps until Alice is shown to her; returns the
/// server time of that show.
fn bring_carol(h: &mut Harness, a: ClientId, c: ClientId) -> Duration {
    h.teleport(c, SPAWN);
    let carol = h.player_id(c);
    for _ in 0..10 {
        if h.get::<Viewers>(a).contains(carol) {
            return h.now();
        }
        h.step();
    }
    panic!("Alice was not shown to Carol");
}

/// What Carol received about `subject`, in order, of the show's snapshot kinds.
fn snapshot_of(h: &Harness, c: ClientId, subject: ClientId) -> Vec<ServerPacket> {
    let id = h.player_id(subject);
    h.received(c)
        .iter()
        .filter(|p| match p {
            ServerPacket::PlayerSkills(p) => p.id == id,
            ServerPacket::PlayerNametag(p) => p.id == id,
            ServerPacket::ApplyAnimation(p) => p.id == id,
            _ => false,
        })
        .cloned()
        .collect()
}

#[test]
fn a_show_replays_the_current_animation_with_the_time_played() {
    let (mut h, a, _, c) = three();
    order(&mut h, a, AnimationOrder::Apply(dance()));
    let start = h.now();
    order(
        &mut h,
        a,
        AnimationOrder::Speed(Speed::new(2.0).expect("speed")),
    );
    h.advance(Duration::from_millis(300));
    let shown = bring_carol(&mut h, a, c);
    let snapshot = snapshot_of(&h, c, a);
    assert!(matches!(
        snapshot.as_slice(),
        [
            ServerPacket::PlayerSkills(_),
            ServerPacket::PlayerNametag(_),
            ServerPacket::ApplyAnimation(_)
        ]
    ));
    let ServerPacket::ApplyAnimation(replay) = &snapshot[2] else {
        unreachable!()
    };
    let played = u32::try_from((shown - start).as_millis()).expect("short");
    assert!(played >= 300);
    assert_eq!(replay.elapsed_ms, played);
    assert_eq!(
        (
            replay.lib.as_str(),
            replay.name.as_str(),
            replay.flags,
            replay.time,
            replay.delta
        ),
        (
            "DANCING",
            "dnce_M_a",
            AnimationFlags::LOOP | AnimationFlags::LOCK_X,
            0,
            4.1
        )
    );
    assert_eq!(replay.speed, 2.0, "the replay carries the current speed");
}

#[test]
fn a_frozen_pose_is_replayed_long_after_its_time() {
    let (mut h, a, _, c) = three();
    order(
        &mut h,
        a,
        AnimationOrder::Apply(timed(AnimationFlags::FREEZE, 100)),
    );
    h.advance(Duration::from_secs(1));
    bring_carol(&mut h, a, c);
    let replay = h.packets::<ApplyAnimation>(c);
    assert_eq!(replay.len(), 1);
    assert!(replay[0].elapsed_ms >= 1000 && replay[0].time == 100);
}

#[test]
fn a_show_without_a_live_animation_has_no_replay() {
    let (mut h, a, _, c) = three();
    order(
        &mut h,
        a,
        AnimationOrder::Apply(timed(AnimationFlags::NONE, 200)),
    );
    h.advance(Duration::from_millis(300));
    bring_carol(&mut h, a, c);
    let snapshot = snapshot_of(&h, c, a);
    assert_eq!(snapshot.len(), 2);
    assert!(
        h.packets::<PlayerSkills>(c)
            .iter()
            .any(|p| p.id == h.player_id(a))
    );
    assert!(
        h.packets::<PlayerNametag>(c)
            .iter()
            .any(|p| p.id == h.player_id(a))
    );
}

#[test]
fn a_show_waits_until_the_lane_takes_the_whole_snapshot_with_the_replay() {
    let (mut h, a, _, c) = three();
    order(&mut h, a, AnimationOrder::Apply(dance()));
    // Carol's lane takes two droppable events: not the three of the snapshot.
    h.set_auto_ack(c, false);
    h.fill_lane(c, Delivery::Droppable, 2);
    // Written: with the lane full a teleport is refused (its TeleportPlayer needs room).
    h.with::<Position>(c, |p| p.0 = SPAWN);
    h.steps(3);
    assert!(!h.get::<Viewers>(a).contains(h.player_id(c)));
    h.set_auto_ack(c, true);
    h.ack(c);
    bring_carol(&mut h, a, c);
    // The snapshot waits behind the filler on the lane.
    h.steps(20);
    assert_eq!(snapshot_of(&h, c, a).len(), 3);
}

#[test]
fn a_special_action_clears_a_playing_animation_first() {
    let (mut h, a, b, c) = three();
    confirm_life(&mut h, a);
    order(&mut h, a, AnimationOrder::Apply(dance()));
    h.clear(a);
    h.clear(b);
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Dance2),
    );
    let (id, player_token) = (h.player_id(a), token(&h, a));
    let got: Vec<ServerPacket> = h
        .received(a)
        .iter()
        .filter(|p| {
            matches!(
                p,
                ServerPacket::ClearAnimations(_) | ServerPacket::SetSpecialAction(_)
            )
        })
        .cloned()
        .map(|mut p| {
            p.set_event_id(EventId(0));
            p
        })
        .collect();
    let clear: ServerPacket = ClearAnimations {
        id,
        player_token,
        event_id: EventId(0),
    }
    .into();
    let action: ServerPacket = SetSpecialAction {
        event_id: EventId(0),
        action: SpecialAction::Dance2,
        rev: Revision(1),
    }
    .into();
    assert_eq!(got, [clear.clone(), action]);
    assert_eq!(events::<ClearAnimations>(&h, b), [clear]);
    assert!(
        h.packets::<SetSpecialAction>(b).is_empty(),
        "the subject's own"
    );
    assert!(h.packets::<ClearAnimations>(c).is_empty());
    assert!(!playing(&h, a));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::Dance2);
    assert_eq!(h.get::<FrameState>(a).special_rev, Revision(1));
    // Observers see it in the relay.
    h.sync(a, 2, Frame::standing(SPAWN));
    let relay = h.packets::<RemotePlayerSync>(b).pop().expect("a relay");
    assert_eq!(relay.frame.special_action, SpecialAction::Dance2);
    // Without an animation, only the action goes; every one raises the revision.
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::None),
    );
    assert_eq!(h.packets::<ClearAnimations>(a).len(), 1);
    assert_eq!(
        h.packets::<SetSpecialAction>(a)
            .last()
            .map(|s| (s.action, s.rev)),
        Some((SpecialAction::None, Revision(2)))
    );
}

#[test]
fn a_special_action_over_an_animation_needs_room_for_both_packets() {
    let (mut h, a, _, _) = three();
    confirm_life(&mut h, a);
    order(&mut h, a, AnimationOrder::Apply(dance()));
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Normal, 1);
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Carry),
    );
    assert_eq!(h.world().resource::<AnimationDrops>().refused, 1);
    assert!(playing(&h, a));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
    assert_eq!(h.get::<FrameState>(a).special_rev, Revision(0));
    h.fill_lane(a, Delivery::Normal, 0);
    h.set_auto_ack(a, true);
    h.ack(a);
    h.steps(20);
    h.fill_lane(a, Delivery::Normal, 2);
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Carry),
    );
    assert_eq!(h.world().resource::<AnimationDrops>().refused, 1);
    assert!(!playing(&h, a));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::Carry);
    h.steps(20);
    let last: Vec<&ServerPacket> = h.received(a).iter().rev().take(2).collect();
    assert!(matches!(
        last.as_slice(),
        [
            ServerPacket::SetSpecialAction(_),
            ServerPacket::ClearAnimations(_)
        ]
    ));
}

// The Lua API.

/// A gamemode whose `/lua CODE` runs CODE with `p` as the player and answers
/// `ok RESULTS...` or `err MESSAGE`.
const GM: &str = r#"
dlmp.on("player_command", function(p, name, args)
    if name ~= "lua" then return end
    local f, err = load("local p = ... " .. table.concat(args, " "))
    local out
    if not f then
        out = "syntax " .. err
    else
        local r = table.pack(pcall(f, p))
        local parts = {}
        for i = 2, r.n do parts[#parts + 1] = tostring(r[i]) end
        out = (r[1] and "ok" or "err") .. " " .. table.concat(parts, " ")
    end
    dlmp.send_chat(out:match("^[^\n]*"), nil, { p })
    return true
end)
"#;

fn scripted(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", GM);
    let mut h = s.harness();
    let (a, b) = h.connect_pair_at(SPAWN);
    confirm_life(&mut h, a);
    h.steps(2);
    h.clear(a);
    h.clear(b);
    (s, h, a, b)
}

/// Runs `code` as the client's `/lua` and returns the answer; a second first, so the chat
/// rate limit never speaks instead.
#[track_caller]
fn lua(h: &mut Harness, c: ClientId, code: &str) -> String {
    h.advance(Duration::from_secs(1));
    let before = h.packets::<ChatMessage>(c).len();
    h.chat(c, &format!("/lua {code}"));
    h.steps(2);
    let lines = h.packets::<ChatMessage>(c);
    assert_eq!(lines.len(), before + 1, "one answer to {code}");
    lines[before].text.as_str().to_owned()
}

#[track_caller]
fn assert_err(answer: &str, message: &str) {
    assert!(
        answer.starts_with("err") && answer.contains(message),
        "{answer:?} should be an error with {message:?}"
    );
}

#[test]
fn lua_apply_animation_with_options_sends_it_and_reads_back_in_the_same_call() {
    let (_s, mut h, a, b) = scripted("anim-lua-apply");
    let answer = lua(
        &mut h,
        a,
        "p:apply_animation('PED','SEAT_idle',{loop=true,freeze=true,time=2000,speed=0.5,delta=8}) p:set_animation_progress(0.5) return p:animation()",
    );
    assert_eq!(answer, "ok PED SEAT_idle 0.5 0.5");
    for x in [a, b] {
        let apply = h.packets::<ApplyAnimation>(x);
        assert_eq!(apply.len(), 1);
        let p = &apply[0];
        assert_eq!(
            (
                p.lib.as_str(),
                p.name.as_str(),
                p.delta,
                p.flags,
                p.time,
                p.speed,
                p.elapsed_ms
            ),
            (
                "PED",
                "SEAT_idle",
                8.0,
                AnimationFlags::LOOP | AnimationFlags::FREEZE,
                2000,
                0.5,
                0
            )
        );
        assert_eq!(h.packets::<SetAnimationProgress>(x)[0].progress, 0.5);
    }
    assert_eq!(
        lua(&mut h, a, "p:set_animation_speed(3) return p:animation()"),
        "ok PED SEAT_idle 3.0 0.5"
    );
    assert_eq!(
        lua(&mut h, a, "p:clear_animations() return p:animation()"),
        "ok nil"
    );
    assert!(!playing(&h, a));
    assert_eq!(h.packets::<ClearAnimations>(b).len(), 1);
}

#[test]
fn lua_defaults_are_the_usual_blend_and_pace() {
    let (_s, mut h, a, _) = scripted("anim-lua-defaults");
    assert_eq!(lua(&mut h, a, "p:apply_animation('PED','WALK_old')"), "ok ");
    let p = &h.packets::<ApplyAnimation>(a)[0];
    assert_eq!(
        (p.delta, p.flags, p.time, p.speed),
        (4.1, AnimationFlags::NONE, 0, 1.0)
    );
}

#[test]
fn lua_refuses_by_the_players_state() {
    let (_s, mut h, a, _) = scripted("anim-lua-state");
    assert_err(
        &lua(&mut h, a, "p:set_animation_progress(0.5)"),
        "set_animation_progress: no animation is playing (PlayerNotAnimating)",
    );
    assert_err(
        &lua(&mut h, a, "p:set_animation_speed(1)"),
        "set_animation_speed: no animation is playing",
    );
    // Written, not a real death: no packet unspawns a player, and the check of an
    // unconfirmed life below needs the same life back.
    h.with::<Life>(a, |l| l.alive = false);
    assert_err(
        &lua(&mut h, a, "p:apply_animation('PED','WALK_old')"),
        "apply_animation: the player is dead (PlayerNotAlive)",
    );
    assert_err(
        &lua(&mut h, a, "p:clear_animations()"),
        "clear_animations: the player is dead",
    );
    assert_err(
        &lua(&mut h, a, "p:set_special_action('phone')"),
        "set_special_action: the player is dead",
    );
    h.with::<Life>(a, |l| l.spawned = false);
    assert_err(
        &lua(&mut h, a, "p:apply_animation('PED','WALK_old')"),
        "apply_animation: the player has not spawned (PlayerNotSpawned)",
    );
    h.with::<Life>(a, |l| {
        *l = Life {
            spawned: true,
            alive: true,
        }
    });
    h.with::<SpawnState>(a, |s| s.life_confirmed = false);
    assert_err(
        &lua(&mut h, a, "p:set_special_action('phone')"),
        "set_special_action: the player's new life is not confirmed yet",
    );
    assert!(h.packets::<ApplyAnimation>(a).is_empty());
    assert!(h.packets::<SetSpecialAction>(a).is_empty());
    assert_eq!(h.world().resource::<AnimationDrops>().refused, 0);
}

#[test]
fn lua_refuses_bad_arguments_by_name() {
    let (_s, mut h, a, _) = scripted("anim-lua-args");
    let cases = [
        (
            "p:apply_animation(string.rep('x',32),'a')",
            "apply_animation: lib \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" must be 1 to 31 ASCII characters",
        ),
        (
            "p:apply_animation('PED','')",
            "apply_animation: name \"\" must be 1 to 31",
        ),
        (
            "p:apply_animation('PED',7)",
            "apply_animation: name must be a string",
        ),
        (
            "p:apply_animation('PED','a',{delta=0})",
            "apply_animation: delta 0 must be finite and greater than 0",
        ),
        (
            "p:apply_animation('PED','a',{time=600001})",
            "apply_animation: time 600001 is outside 0..=600000",
        ),
        (
            "p:apply_animation('PED','a',{speed=11})",
            "apply_animation: speed 11 is outside 0..=10",
        ),
        (
            "p:apply_animation('PED','a',{loop=1})",
            "apply_animation: loop must be a boolean",
        ),
        (
            "p:apply_animation('PED','a',{lopo=true})",
            "apply_animation: unknown option lopo",
        ),
        (
            "p:apply_animation('PED','a',5)",
            "apply_animation: opts must be a table",
        ),
        (
            "p:set_special_action('fly')",
            "set_special_action: unknown action \"fly\"",
        ),
        (
            "p:set_special_action(9)",
            "set_special_action: action 9 is outside 0..=8",
        ),
    ];
    for (code, message) in cases {
        assert_err(&lua(&mut h, a, code), message);
    }
    lua(&mut h, a, "p:apply_animation('PED','a')");
    assert_err(
        &lua(&mut h, a, "p:set_animation_progress(1.5)"),
        "set_animation_progress: progress 1.5 is outside 0..=1",
    );
    assert_err(
        &lua(&mut h, a, "p:set_animation_speed(-1)"),
        "set_animation_speed: speed -1 is outside 0..=10",
    );
}

#[test]
fn lua_special_actions_by_name_or_number_read_back_and_replace_the_animation() {
    let (_s, mut h, a, b) = scripted("anim-lua-action");
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:set_special_action(5) return p:special_action()"
        ),
        "ok dance2 5"
    );
    assert_eq!(
        lua(
            &mut h,
            a,
            "p:apply_animation('PED','a') p:set_special_action('hands_up') return p:animation(), p:special_action()"
        ),
        "ok nil hands_up 2"
    );
    let kinds: Vec<&str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::ApplyAnimation(_) => Some("apply"),
            ServerPacket::ClearAnimations(_) => Some("clear"),
            ServerPacket::SetSpecialAction(s) => Some(if s.action == SpecialAction::Dance2 {
                "dance2"
            } else {
                "hands_up"
            }),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["dance2", "apply", "clear", "hands_up"]);
    assert_eq!(h.packets::<ClearAnimations>(b).len(), 1);
    assert_eq!(h.get::<FrameState>(a).special_rev, Revision(2));
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::HandsUp);
}

#[test]
fn lua_refuses_a_special_action_when_the_queue_lacks_room_for_the_clear() {
    let (_s, mut h, a, _) = scripted("anim-lua-room");
    lua(&mut h, a, "p:apply_animation('PED','a',{loop=true})");
    h.set_auto_ack(a, false);
    // One place for the answer line: the action would need two.
    h.fill_lane(a, Delivery::Normal, 1);
    h.chat(a, "/lua p:set_special_action('carry')");
    h.steps(2);
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
    assert!(playing(&h, a));
    assert_eq!(
        h.world().resource::<AnimationDrops>().refused,
        0,
        "refused in Lua"
    );
    h.set_auto_ack(a, true);
    h.ack(a);
    h.steps(30);
    let answer = h.packets::<ChatMessage>(a).pop().expect("the answer");
    assert_err(answer.text.as_str(), "set_special_action: queue full");
}

#[test]
fn a_new_connection_starts_without_a_special_action_at_rev_0() {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(SPAWN);
    confirm_life(&mut h, a);
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Jetpack),
    );
    assert_eq!(h.packets::<SetSpecialAction>(a).len(), 1);
    h.disconnect(a);
    h.step();

    // Alice again, on a new connection: no action, revision 0, without a packet.
    let a = h.connect("alice");
    h.step();
    h.spawn(a, SPAWN);
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
    assert_eq!(h.get::<FrameState>(a).special_rev, Revision(0));
    assert!(h.packets::<SetSpecialAction>(a).is_empty());
    assert!(h.is_shown(a, b));
    // Her client still claims the jetpack of the previous connection and echoes its
    // revision: the server's action stays none, and so does the relay.
    let claim = Frame {
        special_action: SpecialAction::Jetpack,
        special_rev: Revision(1),
        ..Frame::standing(SPAWN)
    };
    h.sync(a, 1, claim);
    assert_eq!(h.get::<Body>(a).special_action, SpecialAction::None);
    let relay = h.packets::<RemotePlayerSync>(b).pop().expect("a relay");
    assert_eq!(relay.frame.special_action, SpecialAction::None);
    // The connection's first SetSpecialAction is revision 1.
    order(
        &mut h,
        a,
        AnimationOrder::SpecialAction(SpecialAction::Phone),
    );
    let sent = h.packets::<SetSpecialAction>(a);
    assert_eq!(
        (sent.len(), sent[0].action, sent[0].rev),
        (1, SpecialAction::Phone, Revision(1))
    );
}
