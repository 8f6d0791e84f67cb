//! player.md, the life cycle in the harness: the connect spawn's gating (RequestSpawn,
//! SpawnPlayer), the death (DeathReport, PlayerWasted, the ledger's own commit), the
//! respawn (RespawnRequest, RespawnPlayer, PlayerSpawned, the new life's admission) and the
//! gamemode's respawn policy; each asserting what every client gets and does not get.

use std::f32::consts::FRAC_PI_2;
use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::lane::Delivery;
use dlmp::player::ledger::PreviousLifeDrops;
use dlmp::player::respawn::{RespawnDrops, RespawnPoint, SetRespawnPoint, SpawnPoint};
use dlmp::player::scope::SetScope;
use dlmp::player::spawn::SpawnRequestDrops;
use dlmp::player::{DeathEpoch, LastFrame, Ledger, Life, SpawnInfo, SpawnState};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::handshake::ServerDisconnect;
use dlmp::protocol::connection::roster::PlayerLeave;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::Seq;
use dlmp::protocol::player::life::{
    DeathPose, PlayerSpawned, PlayerWasted, RespawnPlayer, SpawnPlayer,
};
use dlmp::protocol::player::streaming::ScopeChanged;
use dlmp::protocol::player::sync::{Frame, RemotePlayerSync};
use dlmp_core::position::{Position, Scope};
use dlmp_core::viewers::Viewers;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);
/// Elsewhere, in interior 3.
const ELSEWHERE: Vec3 = Vec3::new(300.0, 400.0, 20.0);
const DELAY: Duration = Duration::from_secs(3);

fn info(at: Vec3) -> SpawnInfo {
    SpawnInfo {
        position: at,
        heading: FRAC_PI_2,
        interior: 0,
        skin: 7,
        variant: 2,
    }
}

fn spawn_drops(h: &Harness) -> SpawnRequestDrops {
    *h.world().resource::<SpawnRequestDrops>()
}

fn respawn_drops(h: &Harness) -> RespawnDrops {
    *h.world().resource::<RespawnDrops>()
}

fn dead_frame(at: Vec3) -> Frame {
    Frame {
        alive: false,
        hp: 0.0,
        ..Frame::standing(at)
    }
}

/// Alice and Bob at [`SPAWN`] (spawn info there), each shown to the other.
fn two() -> (Harness, ClientId, ClientId) {
    let mut h = Harness::new();
    let (a, b) = h.connect_pair_at(SPAWN);
    (h, a, b)
}

/// The gamemode sets the spawn info ([`info`] at [`SPAWN`]) when the player says
/// `/spawnme`, the way a gamemode does (`dlmp.spawn_player`).
const SPAWN_GM: &str = r#"
dlmp.add_command("spawnme", function(p) dlmp.spawn_player(p, 100, 200, 10, 90, 7, 2) end)
"#;

/// A harness running [`SPAWN_GM`] with `config`.
fn with_spawn_gm(test: &str, config: impl FnOnce(Config) -> Config) -> (TempScripts, Harness) {
    let scripts = TempScripts::new(test);
    scripts.resource("gm", SPAWN_GM);
    let h = scripts.harness_with(config);
    (scripts, h)
}

/// The gamemode's `spawn_player` for `c`, through [`SPAWN_GM`]'s command.
fn gamemode_spawn_info(h: &mut Harness, c: ClientId) {
    h.chat(c, "/spawnme");
    h.step();
}

// ---- The connect spawn (RequestSpawn) ----

#[test]
fn until_the_gamemode_sets_the_spawn_info_a_request_only_keeps_the_session_alive() {
    let (_s, mut h) = with_spawn_gm("life-spawn-wait", |c| Config {
        session_timeout_ms: 500,
        ..c
    });
    let a = h.connect("alice");
    for _ in 0..10 {
        h.request_spawn(a);
        h.advance(Duration::from_millis(200));
    }
    assert!(
        h.packets::<ServerDisconnect>(a).is_empty(),
        "2 s of requests kept it"
    );
    assert!(h.packets::<SpawnPlayer>(a).is_empty());
    assert!(!h.get::<Life>(a).spawned);
    assert_eq!(
        spawn_drops(&h),
        SpawnRequestDrops::default(),
        "waiting is not a drop"
    );

    gamemode_spawn_info(&mut h, a);
    h.request_spawn(a);
    h.step();
    assert_eq!(h.packets::<SpawnPlayer>(a), [info(SPAWN).packet()]);
    let life = h.get::<Life>(a);
    assert!(life.spawned && life.alive);
    assert_eq!(h.get::<Position>(a).0, SPAWN);
}

#[test]
fn a_repeat_before_confirmation_grants_again_idempotently_and_none_after_the_first_living_frame() {
    let (_s, mut h) = with_spawn_gm("life-a-repeat-before-confirmation", |c| c);
    let a = h.connect("alice");
    gamemode_spawn_info(&mut h, a);
    h.request_spawn(a);
    h.step();
    h.request_spawn(a);
    h.step();
    assert_eq!(
        h.packets::<SpawnPlayer>(a),
        [info(SPAWN).packet(), info(SPAWN).packet()]
    );
    h.sync(a, 1, Frame::standing(SPAWN));
    assert!(h.get::<SpawnState>(a).confirmed);
    h.request_spawn(a);
    h.step();
    assert_eq!(
        h.packets::<SpawnPlayer>(a).len(),
        2,
        "dropped after the first living frame"
    );
    assert_eq!(spawn_drops(&h).confirmed, 1);
}

#[test]
fn a_request_of_a_player_dead_before_its_first_frame_is_dropped_and_does_not_revive_it() {
    let (_s, mut h) = with_spawn_gm("life-a-request-of-a", |c| c);
    let a = h.connect("alice");
    gamemode_spawn_info(&mut h, a);
    h.request_spawn(a);
    h.step();
    h.die(a);
    h.clear(a);
    h.request_spawn(a);
    h.step();
    assert!(h.packets::<SpawnPlayer>(a).is_empty());
    assert!(!h.get::<Life>(a).alive, "not a second spawn path");
    assert_eq!(h.get::<Ledger>(a).health, 0.0);
    assert_eq!(spawn_drops(&h).dead, 1);
}

#[test]
fn after_a_respawn_a_request_is_dropped_even_before_a_living_frame() {
    let (_s, mut h) = with_spawn_gm("life-after-a-respawn-a", |c| c);
    let a = h.connect("alice");
    gamemode_spawn_info(&mut h, a);
    h.request_spawn(a);
    h.step();
    h.die(a);
    h.respawn(a);
    assert!(h.get::<Life>(a).alive);
    h.clear(a);
    h.request_spawn(a);
    h.step();
    assert!(h.packets::<SpawnPlayer>(a).is_empty());
    assert_eq!(spawn_drops(&h).respawned, 1);
}

// ---- Death (DeathReport, PlayerWasted) ----

#[test]
fn a_death_report_commits_once_per_life_with_its_pose_to_viewers_not_the_victim() {
    let (mut h, a, b) = two();
    h.clear(a);
    h.clear(b);
    let pose = DeathPose {
        weapon: 24,
        anim_group: 0,
        anim: 19,
    };
    h.report_death(a, pose);
    h.step();
    assert!(!h.get::<Life>(a).alive);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!(
        (wasted[0].id, wasted[0].player_token, wasted[0].pose()),
        (h.player_id(a), h.hello(a).player_token, pose)
    );
    assert!(
        h.packets::<PlayerWasted>(a).is_empty(),
        "the victim played it"
    );
    h.report_death(a, pose);
    h.step();
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1, "once per life");
    // The next life, confirmed by its first living frame, dies again.
    h.respawn(a);
    h.live(a);
    h.report_death(a, pose);
    h.step();
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 2);
}

#[test]
fn reports_in_the_respawn_window_belong_to_the_previous_life() {
    let (mut h, a, b) = two();
    h.sync(a, 1, Frame::standing(SPAWN));
    // The ledger commits the death; the client's DeathReport is held back on its lane.
    h.die(a);
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 1);
    h.respawn(a);
    assert!(h.get::<Life>(a).alive, "the respawn is granted");
    let epoch = h.get::<DeathEpoch>(a);

    // The late report arrives before the first living frame of the new life.
    h.report_death(a, DeathPose::DEFAULT);
    h.step();
    assert!(h.get::<Life>(a).alive, "the new life survives");
    assert_eq!(h.get::<DeathEpoch>(a), epoch);
    assert_eq!(
        h.packets::<PlayerWasted>(b).len(),
        1,
        "no second PlayerWasted"
    );
    assert_eq!(
        h.world().resource::<PreviousLifeDrops>().deaths,
        1,
        "counted"
    );

    // So does a late DamageReport: its seq counts, its damage does not.
    let seq = h.get::<Ledger>(a).damage_seq.0 + 1;
    h.report_damage(a, seq, 54, 150.0);
    h.step();
    assert!(
        h.get::<Life>(a).alive,
        "the new life survives the late damage"
    );
    assert_eq!(h.get::<Ledger>(a).health, 100.0);
    assert_eq!(h.get::<Ledger>(a).damage_seq.0, seq);
    assert_eq!(h.world().resource::<PreviousLifeDrops>().damage, 1);

    // Once a living frame confirmed the new life, its own death commits.
    h.live(a);
    h.report_death(a, DeathPose::DEFAULT);
    h.step();
    assert!(!h.get::<Life>(a).alive);
    assert_eq!(h.packets::<PlayerWasted>(b).len(), 2);
}

#[test]
fn a_pose_the_game_does_not_produce_becomes_the_default() {
    let cases = [
        ((31, 0, 15), (31, 0, 15)),
        ((31, 0, 20), (31, 0, 20)),
        ((31, 0, 21), (0, 0, 15)),
        ((31, 0, 22), (31, 0, 22)),
        ((31, 0, 27), (31, 0, 27)),
        ((31, 0, 28), (0, 0, 15)),
        ((31, 0, 36), (31, 0, 36)),
        ((31, 0, 39), (31, 0, 39)),
        ((31, 0, 140), (31, 0, 140)),
        ((31, 0, 191), (31, 0, 191)),
        ((31, 33, 219), (31, 33, 219)),
        ((31, 43, 221), (31, 43, 221)),
        ((31, 43, 222), (0, 0, 15)),
        ((31, 44, 219), (0, 0, 15)),
        ((31, 87, 352), (31, 87, 352)),
        ((31, 87, 219), (0, 0, 15)),
        ((55, 0, 15), (0, 0, 15)),
    ];
    for ((weapon, anim_group, anim), want) in cases {
        let (mut h, a, b) = two();
        h.report_death(
            a,
            DeathPose {
                weapon,
                anim_group,
                anim,
            },
        );
        h.step();
        let wasted = h.packets::<PlayerWasted>(b);
        assert_eq!(wasted.len(), 1);
        let got = (wasted[0].weapon, wasted[0].anim_group, wasted[0].anim);
        assert_eq!(got, want, "{weapon} {anim_group} {anim}");
    }
}

/// The gamemode's respawn point for `c` (`player:set_respawn_point`), as the command a
/// gameplay plugin writes, and one tick.
fn set_respawn_point(h: &mut Harness, c: ClientId, point: SpawnPoint) {
    let player = h.entity(c);
    h.world_mut().write_message(SetRespawnPoint {
        player,
        point: Some(point),
    });
    h.step();
}

#[test]
fn a_death_report_of_a_player_not_spawned_is_ignored() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.spawn(b, SPAWN);
    // Streaming never shows a player that has not spawned: the show is written, so that
    // only the spawn rule can keep PlayerWasted from Bob.
    let idb = h.player_id(b);
    h.with::<Viewers>(a, |v| v.insert(idb));
    h.report_death(a, DeathPose::DEFAULT);
    h.steps(2);
    assert!(h.packets::<PlayerWasted>(b).is_empty());
    assert_eq!(h.get::<Life>(a), Life::default());
}

#[test]
fn the_ledger_and_a_death_report_of_one_tick_commit_once_by_whichever_came_first() {
    // The report of lethal damage first: the ledger's commit, the default pose.
    let (mut h, a, b) = two();
    h.report_damage(a, 1, 54, 150.0);
    h.report_death(
        a,
        DeathPose {
            weapon: 54,
            anim_group: 0,
            anim: 19,
        },
    );
    h.step();
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!(
        wasted[0].pose(),
        DeathPose {
            weapon: 54,
            ..DeathPose::DEFAULT
        }
    );

    // The DeathReport first: its pose; the damage finds the player dead.
    let (mut h, a, b) = two();
    let pose = DeathPose {
        weapon: 54,
        anim_group: 0,
        anim: 19,
    };
    h.report_death(a, pose);
    h.report_damage(a, 1, 54, 150.0);
    h.step();
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(wasted.len(), 1);
    assert_eq!(wasted[0].pose(), pose);
    assert!(h.packets::<PlayerWasted>(a).is_empty());
}

// ---- Respawn (RespawnRequest, RespawnPlayer, PlayerSpawned) ----

#[test]
fn a_respawn_request_is_ignored_from_the_living_the_unspawned_and_before_the_time_dead() {
    let (mut h, a, b) = two();
    let c = h.connect("carol");
    h.sync(a, 1, Frame::standing(SPAWN));
    h.request_respawn(a);
    h.request_respawn(c);
    h.step();
    h.die(a);
    h.advance(DELAY - Duration::from_millis(100));
    h.request_respawn(a);
    h.step();
    for client in [a, b, c] {
        assert!(h.packets::<RespawnPlayer>(client).is_empty());
        assert!(h.packets::<PlayerSpawned>(client).is_empty());
    }
    assert!(!h.get::<Life>(a).alive && !h.get::<Life>(c).spawned);
    assert_eq!(
        respawn_drops(&h),
        RespawnDrops {
            not_spawned: 1,
            alive: 1,
            too_early: 1,
            no_point: 0,
        }
    );
    h.advance(Duration::from_millis(100));
    h.request_respawn(a);
    h.step();
    assert_eq!(
        h.packets::<RespawnPlayer>(a).len(),
        1,
        "the time dead has passed"
    );
}

#[test]
fn a_grant_sends_respawn_player_to_the_player_player_spawned_to_viewers_and_starts_a_life() {
    let s = TempScripts::new("respawn-ledger");
    s.resource(
        "gm",
        r#"dlmp.on("player_command", function(p, _, args) p:set_armor(tonumber(args[1])) return true end)"#,
    );
    let mut h = s.harness();
    let (a, b) = h.connect_pair_at(SPAWN);
    for seq in 1..=3 {
        h.sync(a, seq, Frame::standing(SPAWN));
    }
    h.chat(a, "/armor 40");
    h.steps(2);
    assert_eq!(h.get::<Ledger>(a).armor, 40.0, "the gamemode's set_armor");
    h.die(a);
    h.clear(a);
    h.clear(b);
    h.respawn(a);

    let point = SpawnPoint {
        position: SPAWN,
        heading: 0.0,
        interior: 0,
    };
    assert_eq!(
        h.packets::<RespawnPlayer>(a),
        [point.packet()],
        "the connect point"
    );
    assert!(h.packets::<PlayerSpawned>(a).is_empty(), "not to itself");
    assert!(h.packets::<ScopeChanged>(a).is_empty(), "the same interior");
    assert!(h.packets::<RespawnPlayer>(b).is_empty());
    let spawned = h.packets::<PlayerSpawned>(b);
    assert_eq!(spawned.len(), 1);
    let s = &spawned[0];
    assert_eq!(
        (s.id, s.player_token, s.spawn, s.heading, s.sync_seq),
        (h.player_id(a), h.hello(a).player_token, SPAWN, 0.0, Seq(3))
    );

    assert_eq!(
        h.get::<Life>(a),
        Life {
            spawned: true,
            alive: true
        }
    );
    let l = h.get::<Ledger>(a);
    assert_eq!((l.health, l.armor, l.damage_seq), (100.0, 0.0, Seq(1)));
    assert_eq!(h.get::<DeathEpoch>(a), DeathEpoch(1));
    assert!(!h.get::<SpawnState>(a).life_confirmed);
    assert_eq!(h.get::<Position>(a).0, SPAWN);
}

#[test]
fn a_repeated_request_before_the_first_living_frame_resends_respawn_player_only() {
    let (mut h, a, b) = two();
    h.die(a);
    h.respawn(a);
    h.request_respawn(a);
    h.step();
    let grants = h.packets::<RespawnPlayer>(a);
    assert_eq!(grants.len(), 2);
    assert_eq!(grants[0], grants[1]);
    assert_eq!(h.packets::<PlayerSpawned>(b).len(), 1, "once per grant");
    assert_eq!(h.get::<DeathEpoch>(a), DeathEpoch(1));
    // The first living frame confirms; then a request comes from the living.
    h.sync(
        a,
        1,
        Frame {
            death_epoch: 1,
            ..Frame::standing(SPAWN)
        },
    );
    assert!(h.get::<SpawnState>(a).life_confirmed);
    h.request_respawn(a);
    h.step();
    assert_eq!(h.packets::<RespawnPlayer>(a).len(), 2);
    assert_eq!(respawn_drops(&h).alive, 1);
}

#[test]
fn a_living_frame_before_the_grant_does_not_revive_and_the_first_after_it_confirms() {
    let (mut h, a, b) = two();
    h.sync(a, 1, Frame::standing(SPAWN));
    h.die(a);
    h.clear(b);
    // The client claims to live again: the server owns the life.
    let moved = Vec3::new(SPAWN.x + 2.0, SPAWN.y, SPAWN.z);
    h.sync(a, 2, Frame::standing(moved));
    assert!(!h.get::<Life>(a).alive);
    let relay = h.packets::<RemotePlayerSync>(b);
    assert_eq!(relay.len(), 1);
    assert!(!relay[0].frame.alive);
    assert_eq!(
        relay[0].frame.pos, SPAWN,
        "the server's last position of the dead"
    );

    h.respawn(a);
    h.clear(b);
    h.sync(
        a,
        3,
        Frame {
            death_epoch: 1,
            ..Frame::standing(moved)
        },
    );
    let s = h.get::<SpawnState>(a);
    assert!(s.life_confirmed && s.confirmed);
    let relay = h.packets::<RemotePlayerSync>(b);
    assert_eq!(relay.len(), 1);
    assert!(relay[0].frame.alive);
    assert_eq!(relay[0].frame.death_epoch, 1);
    assert_eq!(relay[0].frame.pos, moved);
}

#[test]
fn a_living_frame_of_the_previous_life_does_not_confirm_the_new_one() {
    let (mut h, a, b) = two();
    h.sync(a, 1, Frame::standing(SPAWN));
    h.die(a);
    h.respawn(a);
    h.clear(b);
    // A frame sent alive before the death (epoch 0), delayed past the grant.
    let moved = Vec3::new(SPAWN.x + 2.0, SPAWN.y, SPAWN.z);
    h.sync(a, 2, Frame::standing(moved));
    let s = h.get::<SpawnState>(a);
    assert!(
        !s.life_confirmed,
        "the previous life's frame confirms nothing"
    );
    assert_eq!(h.get::<Position>(a).0, SPAWN, "its position is not taken");
    assert!(
        h.packets::<RemotePlayerSync>(b)
            .iter()
            .all(|r| r.frame.pos == SPAWN)
    );
    // The revived client's frame, with the new epoch, does.
    h.sync(
        a,
        3,
        Frame {
            death_epoch: 1,
            ..Frame::standing(moved)
        },
    );
    assert!(h.get::<SpawnState>(a).life_confirmed);
    assert_eq!(h.get::<Position>(a).0, moved);
}

#[test]
fn a_set_respawn_point_wins_and_a_new_interior_moves_the_scope_with_scope_changed() {
    let (mut h, a, b) = two();
    let player = h.entity(a);
    h.world_mut().write_message(SetScope {
        player,
        virtual_world: Some(9),
        interior: None,
    });
    h.step();
    assert_eq!(h.get::<Scope>(a).virtual_world, 9);
    let point = SpawnPoint {
        position: ELSEWHERE,
        heading: FRAC_PI_2,
        interior: 3,
    };
    set_respawn_point(&mut h, a, point);
    h.die(a);
    h.clear(a);
    h.respawn(a);
    assert_eq!(h.packets::<RespawnPlayer>(a), [point.packet()]);
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 1);
    assert_eq!(
        h.get::<Scope>(a),
        Scope {
            virtual_world: 9,
            interior: 3
        },
        "the virtual world stays"
    );
    assert_eq!(h.get::<Position>(a).0, ELSEWHERE);
    assert!(h.packets::<ScopeChanged>(b).is_empty());
}

#[test]
fn the_least_time_dead_comes_from_the_config() {
    let mut h = Harness::with_config(Config {
        respawn_delay_ms: 1000,
        ..Harness::config()
    });
    let (a, _) = h.connect_pair_at(SPAWN);
    h.die(a);
    h.advance(Duration::from_millis(900));
    h.request_respawn(a);
    h.step();
    assert!(h.packets::<RespawnPlayer>(a).is_empty());
    h.advance(Duration::from_millis(100));
    h.request_respawn(a);
    h.step();
    assert_eq!(h.packets::<RespawnPlayer>(a).len(), 1);
}

/// The watcher's packets about `subject`, by name, with the life fields of relays.
fn about(h: &Harness, watcher: ClientId, subject: ClientId) -> Vec<String> {
    let id = h.player_id(subject);
    h.received(watcher)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::PlayerWasted(w) if w.id == id => Some("PlayerWasted".to_owned()),
            ServerPacket::PlayerSpawned(s) if s.id == id => {
                Some(format!("PlayerSpawned sync_seq {}", s.sync_seq.0))
            }
            ServerPacket::RemotePlayerSync(r) if r.player_id == id => Some(format!(
                "RemotePlayerSync alive {} epoch {}",
                u8::from(r.frame.alive),
                r.frame.death_epoch
            )),
            ServerPacket::PlayerStreamOut(o) if o.player_id == id => {
                Some("PlayerStreamOut".to_owned())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_full_life_seen_by_a_watcher_who_follows_and_one_who_stays() {
    let (_s, mut h) = with_spawn_gm("life-full-life", |c| c);
    let a = h.connect("alice");
    let b = h.connect("bob");
    let c = h.connect("carol");
    for client in [a, b, c] {
        gamemode_spawn_info(&mut h, client);
        h.request_spawn(client);
    }
    h.step();
    for client in [a, b, c] {
        assert_eq!(h.packets::<SpawnPlayer>(client), [info(SPAWN).packet()]);
        h.sync(client, 1, Frame::standing(SPAWN));
    }
    h.step();
    let (idb, idc) = (h.player_id(b), h.player_id(c));
    let viewers = h.get::<Viewers>(a);
    assert!(
        viewers.contains(idb) && viewers.contains(idc),
        "streaming shows alice"
    );
    h.sync(a, 2, Frame::standing(SPAWN));
    let point = SpawnPoint {
        position: ELSEWHERE,
        heading: FRAC_PI_2,
        interior: 3,
    };
    set_respawn_point(&mut h, a, point);
    for client in [a, b, c] {
        h.clear(client);
    }

    // Death by damage, then the dead body's frames.
    h.report_damage(a, 1, 54, 150.0);
    h.step();
    h.sync(a, 3, dead_frame(SPAWN));
    h.advance(DELAY);
    // Bob goes into the interior of the point as Alice respawns there; Carol stays.
    // Written: his scope and body change in the very tick of her grant, which a teleport
    // (acked, then a frame) cannot place.
    h.with::<Scope>(b, |s| s.interior = 3);
    h.with::<Position>(b, |p| p.0 = ELSEWHERE);
    h.request_respawn(a);
    h.step();
    h.sync(
        a,
        4,
        Frame {
            death_epoch: 1,
            ..Frame::standing(ELSEWHERE)
        },
    );

    assert_eq!(
        about(&h, b, a),
        [
            "PlayerWasted",
            "RemotePlayerSync alive 0 epoch 0",
            "PlayerSpawned sync_seq 3",
            "RemotePlayerSync alive 1 epoch 1",
        ]
    );
    assert_eq!(
        about(&h, c, a),
        [
            "PlayerWasted",
            "RemotePlayerSync alive 0 epoch 0",
            "PlayerSpawned sync_seq 3",
            "PlayerStreamOut",
        ]
    );
    assert!(
        about(&h, a, a).is_empty(),
        "alice hears of herself by her own packets"
    );
    assert_eq!(h.packets::<RespawnPlayer>(a), [point.packet()]);
    assert_eq!(h.packets::<ScopeChanged>(a).len(), 1);
    let wasted = h.packets::<PlayerWasted>(b);
    assert_eq!(
        wasted[0].pose(),
        DeathPose {
            weapon: 54,
            ..DeathPose::DEFAULT
        }
    );
    let spawned = h.packets::<PlayerSpawned>(b);
    assert_eq!(
        (spawned[0].spawn, spawned[0].heading),
        (ELSEWHERE, FRAC_PI_2)
    );
    assert_eq!(
        h.packets::<RemotePlayerSync>(b).last().map(|r| r.frame.pos),
        Some(ELSEWHERE)
    );
    assert_eq!(h.get::<LastFrame>(a).seq, Some(Seq(4)));
    assert!(h.get::<SpawnState>(a).life_confirmed);
    assert_eq!(h.get::<DeathEpoch>(a), DeathEpoch(1));
}

// ---- The gamemode ----

const GM: &str = r#"
local function say(p, s) dlmp.send_chat(s, nil, { p }) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 100, 200, 10, 0) end)
dlmp.on("player_spawn", function(p) say(p, "spawn " .. tostring(p:is_alive())) end)
dlmp.on("player_command", function(p, name, args)
    local ok, err = pcall(function()
        if name == "point" then
            p:set_respawn_point(tonumber(args[1]), tonumber(args[2]), tonumber(args[3]),
                tonumber(args[4]), tonumber(args[5]))
        elseif name == "clear" then
            p:clear_respawn_point()
        elseif name == "delay" then
            dlmp.set_respawn_delay(tonumber(args[1]))
        elseif name == "nan" then
            p:set_respawn_point(0, 0, 0, 0 / 0)
        end
    end)
    if not ok then say(p, tostring(err):match("^[^\n]*")) end
    return true
end)
"#;

fn scripted(test: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", GM);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.steps(3);
    assert_eq!(h.take_chat_lines(a), ["spawn true"]);
    (s, h, a)
}

#[test]
fn player_spawn_fires_on_a_respawn_at_the_gamemodes_point_in_degrees() {
    let (_s, mut h, a) = scripted("respawn-point");
    h.chat(a, "/point 300 400 20 90 3");
    h.step();
    h.die(a);
    h.clear(a);
    h.respawn(a);
    let grant = h.packets::<RespawnPlayer>(a);
    assert_eq!(grant.len(), 1);
    assert_eq!((grant[0].spawn, grant[0].area), (ELSEWHERE, 3));
    assert!(
        (grant[0].heading - FRAC_PI_2).abs() < 1e-6,
        "degrees become radians"
    );
    assert_eq!(h.get::<Scope>(a).interior, 3);
    h.step();
    assert_eq!(
        h.take_chat_lines(a),
        ["spawn true"],
        "the tick after the grant"
    );

    // Cleared: back to the connect spawn's point.
    h.chat(a, "/clear");
    h.step();
    h.live(a);
    h.die(a);
    h.respawn(a);
    let grant = h.packets::<RespawnPlayer>(a);
    assert_eq!(grant.len(), 1);
    assert_eq!((grant[0].spawn, grant[0].area), (SPAWN, 0));
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn set_respawn_delay_changes_the_least_time_dead() {
    let (_s, mut h, a) = scripted("respawn-delay");
    h.chat(a, "/delay 0");
    h.step();
    h.die(a);
    h.request_respawn(a);
    h.step();
    assert_eq!(h.packets::<RespawnPlayer>(a).len(), 1, "at once");
    h.chat(a, "/delay 10000");
    h.step();
    h.live(a);
    h.die(a);
    h.respawn(a);
    assert_eq!(h.packets::<RespawnPlayer>(a).len(), 1, "not after 3 s");
    assert!(h.get::<Life>(a).spawned && !h.get::<Life>(a).alive);
}

#[test]
fn bad_respawn_arguments_are_clear_errors() {
    let (_s, mut h, a) = scripted("respawn-errors");
    for (line, error) in [
        (
            "/point 7000 0 0 0",
            "set_respawn_point: x 7000 is outside the world (-6000..=6000)",
        ),
        (
            "/point 0 0 5000 0",
            "set_respawn_point: z 5000 is outside the world (-200..=4000)",
        ),
        (
            "/point 0 0 0 0 256",
            "set_respawn_point: interior 256 is outside 0..=255",
        ),
        (
            "/point 0 0 0",
            "set_respawn_point: heading must be a number, got nil",
        ),
        ("/nan", "set_respawn_point: heading must be finite, got NaN"),
        (
            "/delay -1",
            "set_respawn_delay: ms -1 is outside 0..=3600000",
        ),
    ] {
        h.chat(a, line);
        h.step();
        let got = h.take_chat_lines(a);
        assert_eq!(got.len(), 1, "{line}: {got:?}");
        assert!(got[0].ends_with(error), "{line}: {got:?}");
        h.advance(Duration::from_secs(1));
    }
    assert_eq!(h.get::<RespawnPoint>(a), RespawnPoint(None));
}

// ---- freeroam ----

#[test]
fn freeroam_kill_and_respawn_at_the_next_spawn_point() {
    let mut h = Harness::with_config(Config {
        scripts: "scripts".into(),
        resources: vec!["freeroam".into()],
        ..Harness::config()
    });
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.step();
    let first = h.packets::<SpawnPlayer>(a);
    assert_eq!(
        first[0].spawn,
        Vec3::new(2495.33, -1687.82, 13.52),
        "Grove Street"
    );
    h.sync(a, 1, Frame::standing(first[0].spawn));
    h.clear(a);
    h.chat(a, "/kill");
    h.step();
    assert!(!h.get::<Life>(a).alive);
    h.step();
    let lines = h.take_chat_lines(a);
    assert!(
        lines.contains(&"You died. Respawning at Pershing Square.".to_owned()),
        "{lines:?}"
    );
    h.respawn(a);
    let grant = h.packets::<RespawnPlayer>(a);
    assert_eq!(grant.len(), 1);
    assert_eq!(grant[0].spawn, Vec3::new(1481.02, -1741.58, 13.55));
    assert!((grant[0].heading - std::f32::consts::PI).abs() < 1e-5);
    h.clear(a);
    h.chat(a, "/kill now");
    h.steps(2);
    assert_eq!(h.take_chat_lines(a), ["Usage: /kill"]);
    assert_eq!(h.script_host().errors(), 0);
}

/// The packets of `subject`'s life edges `c` applied: "wasted" and "spawned".
fn edges(h: &Harness, c: ClientId, subject: ClientId) -> Vec<&'static str> {
    let id = h.player_id(subject);
    h.received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::PlayerWasted(p) if p.id == id => Some("wasted"),
            ServerPacket::PlayerSpawned(p) if p.id == id => Some("spawned"),
            _ => None,
        })
        .collect()
}

#[test]
fn player_wasted_and_player_spawned_are_normal_events_refused_on_a_full_lane() {
    let (mut h, a, b) = two();
    let bob = h.player_id(b);
    // 512 events wait on Bob's lane: a normal event is refused, a critical one would
    // overflow the lane and end Bob's session (connection.md §3).
    h.set_auto_ack(b, false);
    h.fill_lane(b, Delivery::Normal, 0);
    h.die(a);
    h.set_auto_ack(b, true);
    h.steps(12);
    assert!(
        !h.packets::<PlayerLeave>(a).iter().any(|l| l.id == bob),
        "Bob's session goes on"
    );
    assert!(h.packets::<ServerDisconnect>(b).is_empty());
    assert!(edges(&h, b, a).is_empty(), "the death was refused");

    h.set_auto_ack(b, false);
    h.advance(DELAY);
    h.fill_lane(b, Delivery::Normal, 0);
    h.request_respawn(a);
    h.step();
    assert!(h.get::<Life>(a).alive, "the grant went out");
    h.set_auto_ack(b, true);
    h.steps(12);
    assert!(!h.packets::<PlayerLeave>(a).iter().any(|l| l.id == bob));
    assert!(edges(&h, b, a).is_empty(), "the respawn was refused");

    // With room, both edges reach Bob.
    h.live(a);
    h.step();
    h.die(a);
    h.respawn(a);
    h.steps(2);
    assert_eq!(edges(&h, b, a), ["wasted", "spawned"]);
}
