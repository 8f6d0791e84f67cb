//! The world's Rust commands are checked like the Lua API's (ADR 0090): a plugin gets the
//! error from `checked()` for every value a page forbids, a time of day past 23:59 cannot
//! be made, and a command written without the check is refused where it is applied,
//! logged, counted in the console's `stats`, and shows nothing to anyone; the next good
//! command still applies.

use bevy_ecs::prelude::*;
use dlmp::console::execute;
use dlmp::harness::Harness;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::environment::SetTime;
use dlmp::protocol::world::label::Label3D;
use dlmp::protocol::world::markers::{
    Blip as BlipPacket, BlipFlags, CheckpointKind, ColshapeId, GangZone as GangZonePacket, Shape,
};
use dlmp::protocol::world::pickup::{PickupId, PickupSync};
use dlmp::protocol::world::shared::MarkerId;
use dlmp::world::attach::Attach;
use dlmp::world::check::{WorldError, WorldRefusals};
use dlmp::world::clock::{EnvironmentCommand, Recipients, TimeOfDay};
use dlmp::world::colshape::ColshapeCommand;
use dlmp::world::label::{LabelCommand, LabelText};
use dlmp::world::pickup::{Behavior, PickupCommand, PickupSpec, Pickups};
use dlmp_core::position::Scope;
use dlmp_world::blip::{BlipCommand, BlipSpec};
use dlmp_world::checkpoint::{CheckpointCommand, CheckpointSpec};
use dlmp_world::gang_zone::{GangZoneCommand, GangZoneSpec};
use dlmp_world::label::LabelSpec;
use rstest::rstest;

const HERE: Vec3 = Vec3::new(10.0, 0.0, 5.0);

fn pickup(model: u32, position: Vec3, scale: f32) -> PickupSpec {
    PickupSpec {
        model,
        position,
        scale,
        highlight: true,
        behavior: Behavior::Collectible,
        respawn: None,
        scope: Scope::default(),
    }
}

fn label(color: u32, position: Vec3, draw_distance: f32) -> LabelSpec {
    LabelSpec {
        text: LabelText::new("hello").expect("a text"),
        color,
        position,
        draw_distance,
        attach: None,
        scope: Scope::default(),
        viewer: None,
    }
}

fn blip(sprite: u8, size: f32, draw_distance: Option<f32>, attach: Option<Attach>) -> BlipSpec {
    BlipSpec {
        sprite,
        color: 0xFF0000,
        position: HERE,
        size,
        flags: BlipFlags::default(),
        draw_distance,
        attach,
        scope: Scope::default(),
        viewer: None,
    }
}

fn zone(min: [f32; 2], max: [f32; 2], color: u32) -> GangZoneSpec {
    GangZoneSpec {
        min,
        max,
        color,
        alpha: 128,
        flash: None,
        scope: Scope::default(),
        viewer: None,
    }
}

fn checkpoint(pos: Vec3, radius: f32, color: u32) -> CheckpointSpec {
    CheckpointSpec {
        kind: CheckpointKind::Normal,
        pos,
        next: pos,
        radius,
        color,
        scope: Scope::default(),
    }
}

const ID: MarkerId = MarkerId(900);

fn create_label(spec: LabelSpec) -> LabelCommand {
    LabelCommand::Create {
        id: ID,
        spec,
        owner: None,
    }
}

fn create_blip(spec: BlipSpec) -> BlipCommand {
    BlipCommand::Create {
        id: ID,
        spec,
        owner: None,
    }
}

fn create_zone(spec: GangZoneSpec) -> GangZoneCommand {
    GangZoneCommand::Create {
        id: ID,
        spec,
        owner: None,
    }
}

fn create_pickup(spec: PickupSpec) -> PickupCommand {
    PickupCommand::Create {
        id: PickupId(900),
        spec,
        owner: None,
    }
}

fn create_colshape(shape: Shape) -> ColshapeCommand {
    ColshapeCommand::Create {
        id: ColshapeId(900),
        shape,
        scope: Scope::default(),
        owner: None,
    }
}

/// What the error says, for the table.
fn said(r: Result<(), WorldError>) -> String {
    r.err().map_or_else(|| "ok".to_owned(), |e| e.to_string())
}

#[rstest]
#[case::pickup_ok(create_pickup(pickup(1240, HERE, 1.0)).check(), "ok")]
#[case::pickup_model(create_pickup(pickup(7, HERE, 1.0)).check(), "model 7 is not a pickup model")]
#[case::pickup_x(create_pickup(pickup(1240, Vec3::new(4096.0, 0.0, 0.0), 1.0)).check(), "x 4096 is outside -4095..=4095")]
#[case::pickup_scale(create_pickup(pickup(1240, HERE, 0.0)).check(), "scale")]
#[case::pickup_nan_scale(create_pickup(pickup(1240, HERE, f32::NAN)).check(), "scale")]
#[case::pickup_move(PickupCommand::Move { id: PickupId(1), position: Vec3::new(0.0, 0.0, 4001.0) }.check(), "z 4001 is outside -200..=4000")]
#[case::label_ok(create_label(label(0xFFFFFF, HERE, 300.0)).check(), "ok")]
#[case::label_color(create_label(label(0x100_0000, HERE, 50.0)).check(), "color")]
#[case::label_draw(create_label(label(0xFF, HERE, 300.5)).check(), "draw_distance")]
#[case::label_set_color(LabelCommand::SetColor { id: ID, color: 0x100_0000 }.check(), "color 16777216 is outside 0..=16777215")]
#[case::label_set_position(LabelCommand::SetPosition { id: ID, position: Vec3::new(f32::NAN, 0.0, 0.0) }.check(), "x NaN is outside -6000..=6000")]
#[case::blip_ok(create_blip(blip(63, 4.0, Some(17_000.0), None)).check(), "ok")]
#[case::blip_sprite(create_blip(blip(64, 1.0, None, None)).check(), "sprite")]
#[case::blip_attached_sprite(create_blip(blip(5, 1.0, None, Some(Attach::Vehicle(dlmp::protocol::ids::VehicleId(1))))).check(), "sprite")]
#[case::blip_size(create_blip(blip(0, 4.5, None, None)).check(), "size")]
#[case::blip_draw(create_blip(blip(0, 1.0, Some(0.0), None)).check(), "draw_distance 0 is outside (0, 17000]")]
#[case::zone_ok(create_zone(zone([0.0, 0.0], [10.0, 10.0], 0xFF)).check(), "ok")]
#[case::zone_empty(create_zone(zone([10.0, 0.0], [10.0, 10.0], 0xFF)).check(), "max_x")]
#[case::zone_outside(create_zone(zone([0.0, 0.0], [6001.0, 10.0], 0xFF)).check(), "max_x")]
#[case::zone_flash(GangZoneCommand::Flash { id: ID, color: Some(0x100_0000) }.check(), "flash_color")]
#[case::checkpoint_ok(CheckpointCommand::Create { id: ID, player: Entity::PLACEHOLDER, spec: checkpoint(HERE, 100.0, 0xFF), owner: None }.check(), "ok")]
#[case::checkpoint_radius(CheckpointCommand::Create { id: ID, player: Entity::PLACEHOLDER, spec: checkpoint(HERE, 0.0, 0xFF), owner: None }.check(), "radius")]
#[case::checkpoint_pos(CheckpointCommand::Create { id: ID, player: Entity::PLACEHOLDER, spec: checkpoint(Vec3::new(0.0, 0.0, -201.0), 3.0, 0xFF), owner: None }.check(), "pos")]
#[case::colshape_radius(create_colshape(Shape::Sphere { center: HERE, radius: 0.0 }).check(), "b")]
#[case::colshape_box(create_colshape(Shape::Box { min: HERE, max: HERE }).check(), "b")]
#[case::weather(EnvironmentCommand::SetWeather { weather: 23, to: Recipients::Everyone }.check().map_err(WorldError::from), "weather 23 is outside 0..=22")]
fn a_bad_value_is_an_error_the_caller_gets(
    #[case] result: Result<(), WorldError>,
    #[case] says: &str,
) {
    let said = said(result);
    assert!(
        said.starts_with(says),
        "{said:?} should start with {says:?}"
    );
}

#[test]
fn a_time_of_day_past_23_59_cannot_be_made() {
    assert_eq!(TimeOfDay::new(24, 0), None);
    assert_eq!(TimeOfDay::new(23, 60), None);
    let t = TimeOfDay::new(23, 59).expect("a time");
    assert_eq!((t.hours(), t.minutes()), (23, 59));
}

#[test]
fn checked_hands_back_the_command_or_the_error() {
    let good = create_pickup(pickup(1240, HERE, 1.0));
    assert_eq!(good.clone().checked(), Ok(good));
    assert!(create_pickup(pickup(7, HERE, 1.0)).checked().is_err());
}

/// A harness with alice standing at the origin.
fn alice() -> (Harness, dlmp::harness::ClientId) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    h.spawn(a, Vec3::ZERO);
    h.live(a);
    h.clear(a);
    (h, a)
}

fn write<M: Message>(h: &mut Harness, m: M) {
    h.world_mut().write_message(m);
}

#[test]
fn an_unchecked_bad_command_is_refused_counted_and_shows_nothing() {
    let (mut h, a) = alice();
    let id = h.world().resource::<Pickups>().reserve().expect("an id");
    // What a plugin that skipped the check writes, one of each kind.
    write(
        &mut h,
        PickupCommand::Create {
            id,
            spec: pickup(1240, HERE, 0.0),
            owner: None,
        },
    );
    write(&mut h, create_label(label(0x100_0000, HERE, 50.0)));
    write(&mut h, create_blip(blip(64, 1.0, None, None)));
    write(&mut h, create_zone(zone([10.0, 0.0], [0.0, 10.0], 0xFF)));
    write(
        &mut h,
        EnvironmentCommand::SetWeather {
            weather: 40,
            to: Recipients::Everyone,
        },
    );
    h.steps(3);
    assert!(h.packets::<PickupSync>(a).is_empty());
    assert!(h.packets::<Label3D>(a).is_empty());
    assert!(h.packets::<BlipPacket>(a).is_empty());
    assert!(h.packets::<GangZonePacket>(a).is_empty());
    let refusals = h.world().resource::<WorldRefusals>().clone();
    assert_eq!(
        refusals.by_kind.into_iter().collect::<Vec<_>>(),
        [
            ("blip", 1),
            ("environment", 1),
            ("gang zone", 1),
            ("label", 1),
            ("pickup", 1)
        ]
    );
    let stats = execute(h.world_mut(), "stats").join("\n");
    assert!(
        stats.contains("world commands refused")
            && stats.contains("blip 1, environment 1, gang zone 1, label 1, pickup 1"),
        "{stats}"
    );

    // The same pickup made right is shown.
    let id = h.world().resource::<Pickups>().reserve().expect("an id");
    write(
        &mut h,
        PickupCommand::Create {
            id,
            spec: pickup(1240, HERE, 1.0),
            owner: None,
        },
    );
    h.steps(2);
    assert_eq!(
        h.packets::<PickupSync>(a)
            .iter()
            .map(|p| p.pickup_id)
            .collect::<Vec<_>>(),
        [id]
    );
}

#[test]
fn a_good_time_from_a_plugin_reaches_everyone_and_the_next_hello() {
    let (mut h, a) = alice();
    write(
        &mut h,
        EnvironmentCommand::SetTime {
            time: TimeOfDay::new(23, 59).expect("a time"),
            to: Recipients::Everyone,
        },
    );
    h.step();
    assert_eq!(
        h.packets::<SetTime>(a)
            .iter()
            .map(|t| (t.hours, t.minutes))
            .collect::<Vec<_>>(),
        [(23, 59)]
    );
    let b = h.connect("bob");
    assert_eq!((h.hello(b).hours, h.hello(b).minutes), (23, 59));
}
