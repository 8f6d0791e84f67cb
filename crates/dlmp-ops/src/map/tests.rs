//! Both map formats: what they read, what they refuse (naming the line), and that a map
//! written by our writer reads back the same.

use proptest::prelude::*;
use rstest::rstest;

use super::*;
use dlmp_vehicle::tuning::Plate;
use dlmp_world::pickup::Behavior;

const MTA: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<map edf:definitions="editor_main">
    <!-- a ramp by the beach -->
    <object id="object (1)" breakable="true" interior="0" collisions="true" alpha="255" model="1634" doublesided="false" scale="1" dimension="0" posX="335.5" posY="-1800.25" posZ="4.1" rotX="0" rotY="22.5" rotZ="352"></object>
    <object model="3458" posX="-2000" posY="150" posZ="30" interior="3" dimension="7"/>
    <pickup id="pickup (1)" type="health" amount="100" respawn="15000" posX="340" posY="-1790" posZ="5"/>
    <pickup type="31" amount="500" posX="341" posY="-1790" posZ="5" dimension="2"></pickup>
    <pickup type="custom" model="1318" posX="342" posY="-1790" posZ="5"/>
    <vehicle id="vehicle (Infernus) (1)" paintjob="3" model="411" plate="DLMP" color="1,3,0,0" posX="350" posY="-1780" posZ="5.6" rotX="0" rotY="0" rotZ="90"></vehicle>
    <spawnpoint id="spawnpoint (1)" posX="0" posY="0" posZ="3" rotZ="0" skin="0"/>
    <removeWorldObject radius="10" model="1278" posX="0" posY="0" posZ="0"/>
</map>
"#;

fn object(model: u16, p: [f32; 3], r: [f32; 3], interior: u8, world: u32) -> MapObject {
    MapObject {
        model,
        position: Vec3::new(p[0], p[1], p[2]),
        rotation: Vec3::new(r[0], r[1], r[2]),
        interior,
        virtual_world: world,
        stream_distance: None,
    }
}

fn items<T: Copy>(list: &[At<T>]) -> Vec<T> {
    list.iter().map(|a| a.item).collect()
}

fn lines<T>(list: &[At<T>]) -> Vec<usize> {
    list.iter().map(|a| a.line).collect()
}

#[test]
fn mta_reads_objects_pickups_and_vehicles_with_their_lines() {
    let (map, warnings) = mta::parse(MTA).expect("a good map");
    assert_eq!(
        items(&map.objects),
        vec![
            object(1634, [335.5, -1800.25, 4.1], [0.0, 22.5, 352.0], 0, 0),
            object(3458, [-2000.0, 150.0, 30.0], [0.0; 3], 3, 7),
        ]
    );
    assert_eq!(lines(&map.objects), vec![4, 5]);
    let pickups = items(&map.pickups);
    assert_eq!(
        pickups.iter().map(|p| p.model).collect::<Vec<_>>(),
        vec![1240, 356, 1318]
    );
    assert_eq!(pickups[0].respawn_ms, Some(15_000));
    assert_eq!(pickups[1].respawn_ms, Some(DEFAULT_PICKUP_RESPAWN_MS));
    assert_eq!(pickups[1].virtual_world, 2);
    assert!(pickups.iter().all(|p| p.behavior == Behavior::Collectible));
    assert_eq!(pickups[2].position, Vec3::new(342.0, -1790.0, 5.0));
    assert_eq!(lines(&map.pickups), vec![6, 7, 8]);
    assert_eq!(
        items(&map.vehicles),
        vec![MapVehicle {
            model: 411,
            position: Vec3::new(350.0, -1780.0, 5.6),
            heading: 90.0,
            colors: [Some(1), Some(3)],
            interior: 0,
            virtual_world: 0,
            paintjob: None,
            plate: Plate::parse("DLMP").ok(),
        }]
    );
    assert_eq!(lines(&map.vehicles), vec![9]);
    // Skipped, each counted once per kind with its first line.
    for (what, line, count) in [
        ("attribute breakable of <object> skipped", 4, 1),
        ("attribute alpha of <object> skipped", 4, 1),
        ("element <spawnpoint> skipped", 10, 1),
        ("element <removeWorldObject> skipped", 11, 1),
    ] {
        let w = warnings
            .iter()
            .find(|w| w.what == what)
            .unwrap_or_else(|| panic!("no warning {what:?} in {warnings:?}"));
        assert_eq!((w.first_line, w.count), (line, count), "{what}");
    }
    assert!(!warnings.mentions("attribute id"), "{warnings:?}");
    assert!(!warnings.mentions("amount"), "{warnings:?}");
    assert!(
        !warnings.mentions("paintjob") && !warnings.mentions("plate"),
        "{warnings:?}"
    );
    let unsupported: Vec<&str> = warnings
        .iter()
        .filter(|w| w.unsupported)
        .map(|w| w.what.as_str())
        .collect();
    assert_eq!(
        unsupported,
        [
            "attribute breakable of <object> skipped",
            "attribute collisions of <object> skipped",
            "attribute alpha of <object> skipped",
            "attribute doublesided of <object> skipped",
            "attribute scale of <object> skipped",
        ],
        "the editor's attributes without a protocol field, apart from real mistakes"
    );
}

#[rstest]
#[case::paintjob_and_plate(r#"paintjob="1" plate="ab 12""#, Some(1), Some("AB 12"))]
#[case::editor_none(r#"paintjob="3" plate="""#, None, None)]
fn mta_reads_a_vehicles_paintjob_and_plate(
    #[case] attrs: &str,
    #[case] paintjob: Option<u8>,
    #[case] plate: Option<&str>,
) {
    let text =
        format!("<map><vehicle model=\"560\" posX=\"0\" posY=\"0\" posZ=\"3\" {attrs}/></map>");
    let (map, warnings) = mta::parse(&text).expect("good");
    assert!(warnings.is_empty(), "{warnings:?}");
    let v = &map.vehicles[0].item;
    assert_eq!(v.paintjob, paintjob);
    assert_eq!(
        v.plate.map(|p| p.as_str().trim_end().to_owned()).as_deref(),
        plate
    );
    let back = mta::parse(&mta::write(&map)).expect("our own output").0;
    assert_eq!(back.vehicles[0].item, *v, "written back");
}

#[rstest]
#[case::paintjob_out_of_range(r#"paintjob="9""#, "paintjob: 9")]
#[case::plate_too_long(r#"plate="TOOLONGPLATE""#, "plate:")]
fn mta_refuses_a_bad_paintjob_or_plate_naming_the_line(#[case] attrs: &str, #[case] says: &str) {
    let text =
        format!("<map>\n<vehicle model=\"560\" posX=\"0\" posY=\"0\" posZ=\"3\" {attrs}/>\n</map>");
    let e = mta::parse(&text).expect_err("refused");
    assert_eq!(e.line, 2, "{e}");
    assert!(e.to_string().contains(says), "{e}");
}

#[test]
fn mta_counts_a_skipped_attribute_once_per_kind() {
    let text = (0..50)
        .map(|i| format!("<object model=\"1337\" alpha=\"1\" posX=\"{i}\" posY=\"0\" posZ=\"0\"/>"))
        .collect::<Vec<_>>()
        .join("\n");
    let (map, warnings) = mta::parse(&format!("<map>\n{text}\n</map>")).expect("good");
    assert_eq!(map.objects.len(), 50);
    assert_eq!(warnings.len(), 1);
    let w = warnings.iter().next().expect("one");
    assert_eq!((w.first_line, w.count), (2, 50));
}

#[test]
fn mta_drops_rgb_colors_and_a_tilt_with_a_warning() {
    let (map, warnings) = mta::parse(
        r#"<map><vehicle model="560" color="255,0,0,0,0,255,0,0,0,0,0,0" posX="1" posY="2" posZ="3" rotX="180" rotZ="45"/></map>"#,
    )
    .expect("good");
    let v = map.vehicles[0].item;
    assert_eq!((v.colors, v.heading), ([None, None], 45.0));
    assert!(warnings.mentions("RGB colors"), "{warnings:?}");
    assert!(warnings.mentions("tilt"), "{warnings:?}");
}

#[rstest]
#[case::bad_number(
    r#"<object model="1" posX="abc" posY="0" posZ="0"/>"#,
    2,
    "posX: \"abc\" is not a number"
)]
#[case::nan(
    r#"<object model="1" posX="NaN" posY="0" posZ="0"/>"#,
    2,
    "posX: \"NaN\" is not a number"
)]
#[case::inf(
    r#"<object model="1" posX="0" posY="inf" posZ="0"/>"#,
    2,
    "posY: \"inf\" is not a number"
)]
#[case::overflow(
    r#"<object model="1" posX="0" posY="0" posZ="1e999"/>"#,
    2,
    "posZ: \"1e999\" is not a finite number"
)]
#[case::f32_overflow(
    r#"<object model="1" posX="0" posY="0" posZ="1e39"/>"#,
    2,
    "not a finite number"
)]
#[case::missing_position(
    r#"<object model="1" posX="0" posZ="0"/>"#,
    2,
    "the attribute posY is missing"
)]
#[case::missing_model(
    r#"<object posX="0" posY="0" posZ="0"/>"#,
    2,
    "the attribute model is missing"
)]
#[case::model_too_high(
    r#"<object model="20000" posX="0" posY="0" posZ="0"/>"#,
    2,
    "object model 20000 is outside 0..=19999"
)]
#[case::model_negative(
    r#"<object model="-5" posX="0" posY="0" posZ="0"/>"#,
    2,
    "object model -5 is outside"
)]
#[case::model_fraction(
    r#"<object model="1.5" posX="0" posY="0" posZ="0"/>"#,
    2,
    "model: \"1.5\" is not an integer"
)]
#[case::interior(
    r#"<object model="1" posX="0" posY="0" posZ="0" interior="256"/>"#,
    2,
    "interior 256 is outside -1..=255"
)]
#[case::dimension(
    r#"<object model="1" posX="0" posY="0" posZ="0" dimension="-2"/>"#,
    2,
    "world -2 is outside"
)]
#[case::duplicate_attribute(
    r#"<object model="1" model="2" posX="0" posY="0" posZ="0"/>"#,
    2,
    "bad attribute"
)]
#[case::vehicle_model(
    r#"<vehicle model="399" posX="0" posY="0" posZ="0"/>"#,
    2,
    "<vehicle>: vehicle model 399 is outside 400..=611"
)]
#[case::vehicle_color(
    r#"<vehicle model="400" color="1,x" posX="0" posY="0" posZ="0"/>"#,
    2,
    "color: \"x\" is not an integer"
)]
#[case::pickup_type(
    r#"<pickup type="nitro" posX="0" posY="0" posZ="0"/>"#,
    2,
    "type \"nitro\" is neither"
)]
#[case::pickup_weapon(
    r#"<pickup type="99" posX="0" posY="0" posZ="0"/>"#,
    2,
    "type 99: no weapon has that id"
)]
#[case::pickup_custom(
    r#"<pickup type="custom" posX="0" posY="0" posZ="0"/>"#,
    2,
    "the attribute model is missing"
)]
#[case::pickup_respawn(
    r#"<pickup type="health" respawn="-1" posX="0" posY="0" posZ="0"/>"#,
    2,
    "respawn: -1 is outside"
)]
#[case::unterminated_element(
    r#"<object model="1" posX="0" posY="0" posZ="0">"#,
    2,
    "<object> is never closed"
)]
#[case::unterminated_tag(r#"<object model="1" posX="0""#, 2, "bad attribute")]
#[case::mismatched_end(
    r#"<object model="1" posX="0" posY="0" posZ="0"></vehicle>"#,
    2,
    "not well-formed XML"
)]
#[case::unquoted(
    r#"<object model=1 posX="0" posY="0" posZ="0"/>"#,
    2,
    "attribute value must be enclosed"
)]
fn mta_refuses_a_bad_element_naming_its_line(
    #[case] element: &str,
    #[case] line: usize,
    #[case] message: &str,
) {
    let text =
        format!("<map>\n{element}\n<object model=\"1\" posX=\"0\" posY=\"0\" posZ=\"0\"/>\n");
    // The first case closes the map; the unterminated ones must not.
    let text = if message.contains("never closed") || message.contains("well-formed") {
        text
    } else {
        format!("{text}</map>\n")
    };
    let e = mta::parse(&text).expect_err("refused");
    assert_eq!(e.line, line, "{e}");
    assert!(e.to_string().contains(message), "{e} lacks {message:?}");
}

#[rstest]
#[case::inside_a_tag("<map>\n<object model=\"1\"", 2)]
#[case::inside_a_comment("<map>\n<!-- never closed\n", 2)]
#[case::stray_end("<map>\n</map>\n</map>\n", 3)]
fn mta_refuses_a_file_that_ends_badly(#[case] text: &str, #[case] line: usize) {
    let e = mta::parse(text).expect_err("refused");
    assert_eq!(e.line, line, "{e}");
    assert!(e.message.starts_with("not well-formed XML"), "{e}");
}

#[test]
fn mta_names_the_line_of_an_unclosed_root() {
    let e = mta::parse("<map>\n<object model=\"1\" posX=\"0\" posY=\"0\" posZ=\"0\"/>\n")
        .expect_err("refused");
    assert_eq!(
        (e.line, e.message.as_str()),
        (1, "<map> is never closed (the file ends inside it)")
    );
    assert_eq!(
        e.in_file("maps/beach.map").to_string(),
        "maps/beach.map line 1: <map> is never closed (the file ends inside it)"
    );
}

const PAWN: &str = r#"// Exported by an editor
#include <a_samp>
#include <streamer>
new tmpobjid;
public OnGameModeInit()
{
    /* the pier, two
       lines of comment */
    tmpobjid = CreateDynamicObject(19379, 1234.5, -567.25, 10.0, 0.0, 90.0, 0.0, -1, -1, -1, 300.00, 300.00);
    SetDynamicObjectMaterial(tmpobjid, 0, 10101, "2notherbuildsfe", "Bow_Abpave_Gen", 0x00000000);
    CreateObject(1337, -10, 20.5, 3.0, 0.0, 0.0, 45.0); // a bin
    new g = CreateObject(1225, 1.0, 2.0, 3.0, 0, 0, 0, 150.0);
    CreateDynamicObject(3458, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, .interiorid = 5, .worldid = 9);
    RemoveBuildingForPlayer(playerid, 1302, 0.0, 0.0, 0.0, 0.25);
    AddStaticVehicle(411, 100.0, 200.0, 10.5, 270.0, -1, -1);
    AddStaticVehicleEx(560, 101.0, 200.0, 10.5, 90.0, 1, 3, 600, 0);
    CreateVehicle(522, 102.0, 200.0, 10.5, 0.0, 6, 6, -1);
    CreatePickup(1240, 2, 10.0, 20.0, 3.0, 0);
    AddStaticPickup(356, 1, 11.0, 20.0, 3.0);
    CreateDynamicPickup(1242, 19, 12.0, 20.0, 3.0, 4, 2);
    return 1;
}
"#;

#[test]
fn pawn_reads_the_calls_of_an_exported_script_with_their_lines() {
    let (map, warnings) = pawn::parse(PAWN).expect("a good script");
    let mut pier = object(19379, [1234.5, -567.25, 10.0], [0.0, 90.0, 0.0], 0, 0);
    pier.stream_distance = Some(300.0);
    assert_eq!(
        items(&map.objects),
        vec![
            pier,
            object(1337, [-10.0, 20.5, 3.0], [0.0, 0.0, 45.0], 0, 0),
            object(1225, [1.0, 2.0, 3.0], [0.0; 3], 0, 0),
            object(3458, [1.0, 2.0, 3.0], [0.0; 3], 5, 9),
        ]
    );
    assert_eq!(lines(&map.objects), vec![9, 11, 12, 13]);
    let vehicles = items(&map.vehicles);
    assert_eq!(
        vehicles
            .iter()
            .map(|v| (v.model, v.heading, v.colors))
            .collect::<Vec<_>>(),
        vec![
            (411, 270.0, [None, None]),
            (560, 90.0, [Some(1), Some(3)]),
            (522, 0.0, [Some(6), Some(6)]),
        ]
    );
    assert_eq!(lines(&map.vehicles), vec![15, 16, 17]);
    assert_eq!(
        items(&map.pickups),
        vec![
            MapPickup {
                model: 1240,
                position: Vec3::new(10.0, 20.0, 3.0),
                behavior: Behavior::Collectible,
                respawn_ms: Some(DEFAULT_PICKUP_RESPAWN_MS),
                interior: 0,
                virtual_world: 0,
            },
            MapPickup {
                model: 356,
                position: Vec3::new(11.0, 20.0, 3.0),
                behavior: Behavior::Static,
                respawn_ms: None,
                interior: 0,
                virtual_world: 0,
            },
            MapPickup {
                model: 1242,
                position: Vec3::new(12.0, 20.0, 3.0),
                behavior: Behavior::Collectible,
                respawn_ms: None,
                interior: 2,
                virtual_world: 4,
            },
        ]
    );
    assert!(
        warnings.mentions("SetDynamicObjectMaterial(...) skipped"),
        "{warnings:?}"
    );
    assert!(
        warnings.mentions("RemoveBuildingForPlayer(...) skipped"),
        "{warnings:?}"
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}

#[rstest]
#[case::garbage("this is not a call", "expected a call such as CreateObject(...)")]
#[case::bad_number(
    "CreateObject(1337, 1.2.3, 0, 0, 0, 0, 0);",
    "x: 1.2.3 is not a number"
)]
#[case::nan(
    "CreateObject(1337, NaN, 0, 0, 0, 0, 0);",
    "x: NaN is not a number or a known constant"
)]
#[case::inf(
    "CreateObject(1337, 0, 1e999, 0, 0, 0, 0);",
    "y: 1e999 is not a finite number"
)]
#[case::f32_overflow(
    "CreateObject(1337, 0, 0, 1e39, 0, 0, 0);",
    "z: 1e39 is not a finite number"
)]
#[case::fraction_model(
    "CreateObject(1337.5, 0, 0, 0, 0, 0, 0);",
    "modelid: 1337.5 is not a whole number"
)]
#[case::model_range(
    "CreateObject(20000, 0, 0, 0, 0, 0, 0);",
    "object model 20000 is outside 0..=19999"
)]
#[case::too_few(
    "CreateObject(1337, 0, 0, 0, 0, 0);",
    "rz is missing (7 arguments required)"
)]
#[case::too_many(
    "CreateObject(1337, 0, 0, 0, 0, 0, 0, 0, 0);",
    "9 arguments, at most 8 expected"
)]
#[case::empty_arg("CreateObject(1337, , 0, 0, 0, 0, 0);", "argument 2 is empty")]
#[case::unknown_name(
    "CreateDynamicObject(1337, 0, 0, 0, 0, 0, 0, .world = 1);",
    "no parameter named world"
)]
#[case::twice(
    "CreateDynamicObject(1337, 0, 0, 0, 0, 0, 0, 1, .worldid = 1);",
    "worldid is given twice"
)]
#[case::player_object(
    "CreateDynamicObject(1337, 0, 0, 0, 0, 0, 0, -1, -1, 5);",
    "playerid: 5: a map object is for every player"
)]
#[case::stream_distance(
    "CreateDynamicObject(1337, 0, 0, 0, 0, 0, 0, -1, -1, -1, -5.0);",
    "streamdistance: -5 is not above 0"
)]
#[case::world(
    "CreateDynamicObject(1337, 0, 0, 0, 0, 0, 0, -7);",
    "world -7 is outside"
)]
#[case::vehicle_model(
    "AddStaticVehicle(300, 0, 0, 0, 0, 1, 1);",
    "vehicle model 300 is outside 400..=611"
)]
#[case::vehicle_color(
    "AddStaticVehicle(400, 0, 0, 0, 0, 256, 1);",
    "color1: color 256 is outside -1..=255"
)]
#[case::pickup_type("CreatePickup(1240, -3, 0, 0, 0);", "type: -3 is outside 0..=255")]
#[case::unclosed_string("SetObjectMaterialText(tmp, \"hello);", "a string is never closed")]
#[case::unbalanced("CreateObject(1337, (0, 0, 0, 0, 0, 0);", "a ( is never closed")]
#[case::unclosed_call("CreateObject(1337, 0, 0, 0, 0, 0, 0", "a ( is never closed")]
#[case::unsupported(
    "CreateDynamicObjectEx(1337, 0, 0, 0, 0, 0, 0);",
    "CreateDynamicObjectEx is not supported"
)]
#[case::declaration("new = 5;", "expected a declaration, found `=")]
#[case::unset_name(
    "CreateObject(1337, 0, 0, 0, 0, 0, 0, far);",
    "drawdistance: far is not a number or a known constant"
)]
#[case::huge_integer(
    "CreateObject(99999999999999999999, 0, 0, 0, 0, 0, 0);",
    "is not a number in range"
)]
#[case::expression(
    "CreateObject(1337, 1 + 2, 0, 0, 0, 0, 0);",
    "x: `1 + 2` is not a number"
)]
fn pawn_refuses_a_bad_line_naming_it(#[case] bad: &str, #[case] message: &str) {
    let text = format!(
        "CreateObject(1337, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);\n{bad}\nCreateObject(1, 0, 0, 0, 0, 0, 0);\n"
    );
    let e = pawn::parse(&text).expect_err("refused");
    assert_eq!(e.line, 2, "{e}");
    assert!(e.to_string().contains(message), "{e} lacks {message:?}");
}

#[test]
fn pawn_reads_the_numbers_an_export_names() {
    let (map, warnings) = pawn::parse(
        r#"#define PARK_WORLD 3
new tmpobjid, object_world = -1, object_int = -1, Float:sd = 250.0, label[32] = "x";
new a, b = CreateObject(1337, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
object_int = 2;
tmpobjid = CreateDynamicObject(19377, 1525.963745, -1370.151977, 327.036102, 0.000000, 90.000000, 0.000000, object_world, object_int, -1, sd, 300.00);
CreateDynamicObject(1225, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, PARK_WORLD);
"#,
    )
    .expect("a Texture Studio style export");
    assert!(warnings.is_empty(), "{warnings:?}");
    // The f32 nearest each literal, as the parser reads it.
    let f = |t: &str| t.parse::<f32>().expect("a literal");
    let objects = items(&map.objects);
    assert_eq!(objects.len(), 3);
    assert_eq!(objects[0].model, 1337);
    assert_eq!(
        (
            objects[1].virtual_world,
            objects[1].interior,
            objects[1].stream_distance
        ),
        (0, 2, Some(250.0))
    );
    assert_eq!(
        objects[1].position,
        Vec3::new(f("1525.963745"), f("-1370.151977"), f("327.036102"))
    );
    assert_eq!(objects[2].virtual_world, 3);
}

#[test]
fn pawn_names_the_line_where_an_unclosed_comment_opened() {
    let e = pawn::parse(
        "CreateObject(1, 0, 0, 0, 0, 0, 0);\n/* open\nCreateObject(1, 0, 0, 0, 0, 0, 0);\n",
    )
    .expect_err("refused");
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "a /* comment is never closed")
    );
}

#[test]
fn pawn_refuses_a_line_past_the_limit() {
    let text = format!(
        "CreateObject(1, 0, 0, 0, 0, 0, 0);\n// {}\n",
        "x".repeat(MAX_LINE_BYTES)
    );
    let e = pawn::parse(&text).expect_err("refused");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("longer than"), "{e}");
}

#[rstest]
#[case::pawn(Format::Pawn, "CreateObject(1337, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);\n")]
#[case::mta(
    Format::Mta,
    "<object model=\"1337\" posX=\"0\" posY=\"0\" posZ=\"0\"/>\n"
)]
fn a_map_past_the_entry_limit_is_refused(#[case] format: Format, #[case] line: &str) {
    let body = line.repeat(MAX_ENTRIES + 1);
    let text = match format {
        Format::Mta => format!("<map>\n{body}</map>\n"),
        Format::Pawn => body,
    };
    let e = format.parse(&text).expect_err("refused");
    assert!(e.message.contains("more than 100000 entries"), "{e}");
    let at_limit = match format {
        Format::Mta => format!("<map>\n{}</map>\n", line.repeat(MAX_ENTRIES)),
        Format::Pawn => line.repeat(MAX_ENTRIES),
    };
    assert_eq!(
        format.parse(&at_limit).expect("at the limit").0.len(),
        MAX_ENTRIES
    );
}

#[rstest]
#[case("maps/beach.map", Some(Format::Mta))]
#[case("maps/BEACH.MAP", Some(Format::Mta))]
#[case("objects.pwn", Some(Format::Pawn))]
#[case("export.txt", Some(Format::Pawn))]
#[case("x.inc", Some(Format::Pawn))]
#[case("map.xml", None)]
#[case("map", None)]
fn the_extension_names_the_format(#[case] path: &str, #[case] format: Option<Format>) {
    assert_eq!(Format::of_path(path), format);
}

fn coordinate() -> impl Strategy<Value = f32> {
    prop_oneof![
        prop::num::f32::NORMAL | prop::num::f32::ZERO | prop::num::f32::SUBNORMAL,
        -6000.0f32..6000.0,
    ]
}

fn vec3() -> impl Strategy<Value = Vec3> {
    (coordinate(), coordinate(), coordinate()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn color() -> impl Strategy<Value = Option<u8>> {
    prop::option::of(any::<u8>())
}

/// A map of what `format` can hold (see each writer), entries numbered by line later.
fn map_in(format: Format) -> impl Strategy<Value = MapFile> {
    let pawn = format == Format::Pawn;
    let object = (
        0u16..=19999,
        vec3(),
        vec3(),
        any::<u8>(),
        any::<u32>(),
        prop::option::of(0.5f32..5000.0),
    )
        .prop_map(
            move |(model, position, rotation, interior, virtual_world, sd)| MapObject {
                model,
                position,
                rotation,
                interior,
                virtual_world,
                stream_distance: if pawn { sd } else { None },
            },
        );
    let pickup = (
        any::<u32>(),
        vec3(),
        0u8..3,
        any::<u32>(),
        any::<u8>(),
        any::<u32>(),
    )
        .prop_map(
            move |(model, position, kind, respawn, interior, virtual_world)| {
                let (behavior, respawn_ms) = match (pawn, kind) {
                    (true, 0) => (Behavior::Static, None),
                    (true, 1) => (Behavior::Collectible, None),
                    (true, _) => (Behavior::Collectible, Some(DEFAULT_PICKUP_RESPAWN_MS)),
                    (false, _) => (Behavior::Collectible, Some(respawn)),
                };
                MapPickup {
                    model,
                    position,
                    behavior,
                    respawn_ms,
                    interior,
                    virtual_world,
                }
            },
        );
    let vehicle = (
        400u16..=611,
        vec3(),
        coordinate(),
        color(),
        color(),
        any::<u8>(),
        any::<u32>(),
    )
        .prop_map(
            move |(model, position, heading, a, b, interior, virtual_world)| {
                let colors = match (pawn, a, b) {
                    (true, _, _) => [a, b],
                    (false, Some(a), Some(b)) => [Some(a), Some(b)],
                    (false, _, _) => [None, None],
                };
                MapVehicle {
                    model,
                    position,
                    heading,
                    colors,
                    interior: if pawn { 0 } else { interior },
                    virtual_world: if pawn { 0 } else { virtual_world },
                    paintjob: None,
                    plate: None,
                }
            },
        );
    (
        prop::collection::vec(object.prop_map(at), 0..20),
        prop::collection::vec(pickup.prop_map(at), 0..8),
        prop::collection::vec(vehicle.prop_map(at), 0..8),
    )
        .prop_map(|(objects, pickups, vehicles)| MapFile {
            objects,
            pickups,
            vehicles,
        })
}

fn at<T>(item: T) -> At<T> {
    At { line: 0, item }
}

fn same_entries(a: &MapFile, b: &MapFile) -> bool {
    items(&a.objects) == items(&b.objects)
        && items(&a.pickups) == items(&b.pickups)
        && items(&a.vehicles) == items(&b.vehicles)
}

proptest! {
    #[test]
    fn an_mta_map_written_reads_back_the_same(map in map_in(Format::Mta)) {
        let text = Format::Mta.write(&map);
        let (back, warnings) = Format::Mta.parse(&text).expect("our own output");
        prop_assert!(same_entries(&map, &back), "{text}");
        prop_assert!(warnings.is_empty(), "{warnings:?}");
        // And once more: a parsed map re-serialised parses to the same entries.
        let (again, _) = Format::Mta.parse(&Format::Mta.write(&back)).expect("again");
        prop_assert!(same_entries(&back, &again));
    }

    #[test]
    fn a_pawn_map_written_reads_back_the_same(map in map_in(Format::Pawn)) {
        let text = Format::Pawn.write(&map);
        let (back, warnings) = Format::Pawn.parse(&text).expect("our own output");
        prop_assert!(same_entries(&map, &back), "{text}");
        prop_assert!(warnings.is_empty(), "{warnings:?}");
        let (again, _) = Format::Pawn.parse(&Format::Pawn.write(&back)).expect("again");
        prop_assert!(same_entries(&back, &again));
    }

    #[test]
    fn arbitrary_bytes_never_panic_either_parser(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = mta::parse(&text);
        let _ = pawn::parse(&text);
    }

    #[test]
    fn near_miss_text_never_panics_either_parser(
        text in r#"[<>/=" a-zA-Z0-9.,;()_\-\n\[\]{}#*:'&!?+]{0,300}"#
    ) {
        let _ = mta::parse(&text);
        let _ = pawn::parse(&text);
        let _ = mta::parse(&format!("<map><object {text}/></map>"));
        let _ = pawn::parse(&format!("CreateDynamicObject({text});"));
    }
}
