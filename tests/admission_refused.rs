//! `AdmissionRefused` names the player and the reason at each refusal site: a toggle past
//! its rate limit, a shot from a paused player (player.md "Admission", connection.md §6).

use std::time::Duration;

use dlmp::harness::Harness;
use dlmp::player::shots::ShotDrop;
use dlmp::prelude::*;
use dlmp::protocol::connection::weapons::{HitKind, WeaponShot};
use dlmp::protocol::ids::{Revision, Seq};
use dlmp::protocol::player::sync::Frame;

#[derive(Resource, Default)]
struct Seen(Vec<AdmissionRefused>);

fn record(mut seen: ResMut<Seen>, mut refused: MessageReader<AdmissionRefused>) {
    seen.0.extend(refused.read().copied());
}

#[test]
fn rate_limited_toggles_and_dropped_shots_are_announced() {
    let mut h = Harness::with_app(Harness::config(), |app| {
        app.init_resource::<Seen>()
            .add_systems(FixedUpdate, record.in_set(GameplaySystems::Intake));
    });
    let alice = h.connect("alice");
    h.step();
    let at = Vec3::new(0.0, 0.0, 3.0);
    h.spawn(alice, at);
    h.live(alice);
    h.advance(Duration::from_secs(2));
    let seq = h.get::<LastFrame>(alice).seq.expect("a frame").0;
    let paused = Frame {
        paused: true,
        ..Frame::standing(at)
    };
    h.sync(alice, seq + 1, paused);
    h.sync(alice, seq + 2, Frame::standing(at));
    let player = h.entity(alice);
    assert_eq!(
        h.world().resource::<Seen>().0,
        [AdmissionRefused {
            player,
            reason: RefusalReason::RateLimit(RateLimit::Pause),
        }],
        "unpaused within a second of the pause"
    );
    h.send(
        alice,
        WeaponShot {
            session_token: h.token(alice),
            order: Seq(1),
            weapon: 24,
            origin: at,
            hit: Vec3::new(5.0, 0.0, 3.0),
            hit_kind: HitKind::Nothing,
            hit_id: 0xFFFF_FFFF,
            props_rev: Revision(0),
        },
    );
    h.step();
    let seen = &h.world().resource::<Seen>().0;
    assert_eq!(seen.len(), 2, "{seen:?}");
    // Still paused (the unpause was refused): not in control.
    assert_eq!(seen[1].reason, RefusalReason::Shot(ShotDrop::NotInControl));
    assert_eq!(seen[1].reason.name(), "shot_not_in_control");
    assert_eq!(seen[1].reason.kind(), RefusalKind::Shot);
}
