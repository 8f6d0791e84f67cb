//! `dlmp.load_map` (lua-api.md, maps; issue 13 "Maps") in the harness: a resource loads a
//! map file of its own folder, gets the handles back, and the objects and pickups exist,
//! owned by it; a map with an error creates nothing and names the file and line; the
//! sandbox's path rules hold; stopping the resource removes what the map made.

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::pickup::PickupSync;
use dlmp::script::{Owned, ScriptHost};
use dlmp::vehicle::components::{Colors, Vehicle, VehicleScope};
use dlmp::world::object::{Object, Objects};
use dlmp::world::pickup::{Pickup, Pickups};
use dlmp_core::vehicle::Pose;
use dlmp_core::vehicle::Vehicles;

const GOOD_MTA: &str = r#"<map edf:definitions="editor_main">
    <object id="ramp" model="1634" posX="10" posY="0" posZ="3" rotX="0" rotY="0" rotZ="90" alpha="255"></object>
    <object model="1225" posX="20" posY="5" posZ="3" interior="2" dimension="4"/>
    <pickup type="health" posX="5" posY="0" posZ="3" respawn="10000"/>
    <pickup type="31" amount="200" posX="6" posY="0" posZ="3"/>
    <vehicle model="411" posX="30" posY="0" posZ="3" rotZ="90" color="1,1"/>
</map>
"#;

const GOOD_PAWN: &str = r#"// objects exported from an editor
new tmpobjid;
tmpobjid = CreateDynamicObject(3458, 40.0, 0.0, 3.0, 0.0, 0.0, 45.0, -1, -1, -1, 400.0, 400.0);
SetDynamicObjectMaterial(tmpobjid, 0, 10101, "2notherbuildsfe", "Bow_Abpave_Gen", 0x00000000);
CreateObject(1225, 41.0, 0.0, 3.0, 0.0, 0.0, 0.0);
AddStaticPickup(1242, 2, 42.0, 0.0, 3.0, 0);
AddStaticVehicle(411, 43.0, 0.0, 3.0, 0.0, -1, -1);
"#;

/// A resource `gm` with `files` (path, text) in its folder and `/load PATH`, which tells
/// the player "loaded N: MODEL MODEL ..." (the model of each handle) or the first line
/// of the error; `/first` tells the first handle's position and destroys it.
fn gamemode(test: &str, files: &[(&str, &str)]) -> TempScripts {
    let s = TempScripts::new(test);
    s.resource(
        "gm",
        r#"
        dlmp.on("player_command", function(p, name, args)
            if name == "first" then
                local x, y, z = loaded[1]:position()
                dlmp.send_chat(string.format("first %g %g %g", x, y, z), nil, { p })
                loaded[1]:destroy()
                return true
            end
            if name ~= "load" then return false end
            local ok, r = pcall(dlmp.load_map, args[1])
            if ok then
                loaded = r
                local models = {}
                for _, h in ipairs(r) do models[#models + 1] = tostring(h:model()) end
                dlmp.send_chat("loaded " .. #r .. ": " .. table.concat(models, " "), nil, { p })
            else
                dlmp.send_chat((tostring(r):match("^[^\n]*"):gsub("^runtime error: ", "")), nil, { p })
            end
            return true
        end)
        "#,
    );
    for (path, text) in files {
        let file = s.path().join("gm").join(path);
        std::fs::create_dir_all(file.parent().expect("a folder")).expect("writable");
        std::fs::write(file, text).expect("writable");
    }
    s
}

/// `/load path` by `c`, and the answer.
fn load(h: &mut Harness, c: ClientId, path: &str) -> String {
    let before = h.chat_lines(c).len();
    h.chat(c, &format!("/load {path}"));
    h.steps(2);
    h.chat_lines(c).split_off(before).join("\n")
}

/// Every object: (model, position, rotation z, interior, world, owned).
fn objects(h: &mut Harness) -> Vec<(u16, Vec3, f32, u8, u32, bool)> {
    let mut q = h.world_mut().query::<(&Object, Option<&Owned>)>();
    let mut list: Vec<_> = q
        .iter(h.world())
        .map(|(o, owned)| {
            (
                o.id.0,
                (
                    o.model,
                    o.pose.position,
                    o.pose.rotation.z,
                    o.scope.interior,
                    o.scope.virtual_world,
                    owned.is_some(),
                ),
            )
        })
        .collect();
    list.sort_by_key(|(id, _)| *id);
    list.into_iter().map(|(_, o)| o).collect()
}

fn pickup_models(h: &mut Harness) -> Vec<(u32, bool)> {
    let mut q = h.world_mut().query::<(&Pickup, Option<&Owned>)>();
    let mut list: Vec<_> = q
        .iter(h.world())
        .map(|(p, owned)| (p.id.0, (p.spec.model, owned.is_some())))
        .collect();
    list.sort_by_key(|(id, _)| *id);
    list.into_iter().map(|(_, p)| p).collect()
}

fn counts(h: &Harness) -> (usize, usize, usize) {
    (
        h.world().resource::<Objects>().len(),
        h.world().resource::<Pickups>().len(),
        h.world().resource::<Vehicles>().len(),
    )
}

/// A vehicle as the tests compare it: model, position, colors, (virtual world, interior).
type VehicleRow = (u16, Vec3, (u8, u8), (u32, u8));

fn vehicles(h: &mut Harness) -> Vec<VehicleRow> {
    let mut q = h
        .world_mut()
        .query::<(&Vehicle, &Pose, &Colors, &VehicleScope)>();
    let mut all: Vec<_> = q
        .iter(h.world())
        .map(|(v, p, c, s)| {
            (
                v.id.0,
                (
                    v.model,
                    p.position,
                    (c.color1, c.color2),
                    (s.0.virtual_world, s.0.interior),
                ),
            )
        })
        .collect();
    all.sort_by_key(|(id, _)| *id);
    all.into_iter().map(|(_, v)| v).collect()
}

#[test]
fn an_mta_map_creates_its_objects_and_pickups_owned_by_the_resource() {
    let s = gamemode("mta", &[("maps/beach.map", GOOD_MTA)]);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.spawn(a, Vec3::new(0.0, 0.0, 3.0));
    h.live(a);
    h.step();
    // The objects, then the pickups (health and the M4, weapon 31), then the vehicle.
    assert_eq!(
        load(&mut h, a, "maps/beach.map"),
        "loaded 5: 1634 1225 1240 356 411"
    );
    assert_eq!(
        vehicles(&mut h),
        [(411, Vec3::new(30.0, 0.0, 3.0), (1, 1), (0, 0))]
    );
    assert_eq!(
        objects(&mut h),
        [
            (1634, Vec3::new(10.0, 0.0, 3.0), 90.0, 0, 0, true),
            (1225, Vec3::new(20.0, 5.0, 3.0), 0.0, 2, 4, true),
        ]
    );
    assert_eq!(pickup_models(&mut h), [(1240, true), (356, true)]);
    let shown: Vec<(u32, Vec3)> = h
        .packets::<PickupSync>(a)
        .iter()
        .map(|p| (p.model, p.pos))
        .collect();
    assert_eq!(
        shown,
        [
            (1240, Vec3::new(5.0, 0.0, 3.0)),
            (356, Vec3::new(6.0, 0.0, 3.0))
        ],
        "the pickups stream like any other"
    );

    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    assert_eq!(counts(&h), (0, 0, 0), "the resource's map goes with it");
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn an_exported_script_creates_its_objects_and_pickups() {
    let s = gamemode("pawn", &[("interior.pwn", GOOD_PAWN)]);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert_eq!(
        load(&mut h, a, "interior.pwn"),
        "loaded 4: 3458 1225 1242 411"
    );
    assert_eq!(
        vehicles(&mut h),
        [(411, Vec3::new(43.0, 0.0, 3.0), (0, 0), (0, 0))],
        "a color left to the game (-1) is 0"
    );
    assert_eq!(
        objects(&mut h),
        [
            (3458, Vec3::new(40.0, 0.0, 3.0), 45.0, 0, 0, true),
            (1225, Vec3::new(41.0, 0.0, 3.0), 0.0, 0, 0, true),
        ]
    );
    let mut q = h.world_mut().query::<&Object>();
    let distances: Vec<f32> = q.iter(h.world()).map(|o| o.stream_distance).collect();
    assert!(
        distances.contains(&400.0),
        "{distances:?}: the map's stream distance"
    );
    assert_eq!(pickup_models(&mut h), [(1242, true)]);
    let before = h.chat_lines(a).len();
    h.chat(a, "/first");
    h.steps(2);
    assert_eq!(h.chat_lines(a).split_off(before), ["first 40 0 3"]);
    assert_eq!(
        objects(&mut h).iter().map(|o| o.0).collect::<Vec<_>>(),
        [1225],
        "the returned handle is the object's"
    );
}

#[test]
fn a_map_loaded_twice_creates_it_twice_with_new_ids() {
    let s = gamemode("twice", &[("m.map", GOOD_MTA)]);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert_eq!(load(&mut h, a, "m.map"), "loaded 5: 1634 1225 1240 356 411");
    assert_eq!(load(&mut h, a, "m.map"), "loaded 5: 1634 1225 1240 356 411");
    assert_eq!(counts(&h), (4, 4, 2));
}

const BAD_LATE: &str = "<map>\n<object model=\"1225\" posX=\"0\" posY=\"0\" posZ=\"3\"/>\n<pickup type=\"health\" posX=\"1\" posY=\"0\" posZ=\"3\"/>\n<object model=\"400\" posX=\"0\" posY=\"0\" posZ=\"3\"/>\n</map>\n";
const BAD_SYNTAX: &str = "<map>\n<object model=\"1225\" posX=\"0\" posY=\"0\" posZ=\"3\"/>\n<object model=\"1225\" posX=\"zero\" posY=\"0\" posZ=\"3\"/>\n</map>\n";
const BAD_VEHICLE: &str = "<map>\n<object model=\"1225\" posX=\"0\" posY=\"0\" posZ=\"3\"/>\n<vehicle model=\"570\" posX=\"0\" posY=\"0\" posZ=\"3\"/>\n</map>\n";
const BAD_PAWN: &str = "CreateObject(1225, 0, 0, 3, 0, 0, 0);\nCreatePickup(1240, 2, 0, 0, 3);\nCreateObject(1225, 0, 0, 3, 0, 0\n";

#[test]
fn a_map_with_an_error_creates_nothing_and_names_the_file_and_line() {
    let s = gamemode(
        "bad",
        &[
            ("late.map", BAD_LATE),
            ("syntax.map", BAD_SYNTAX),
            ("bad.pwn", BAD_PAWN),
            ("latin1.map", "<map>\n<!-- caf\u{e9} -->\n</map>\n"),
            ("carriage.map", BAD_VEHICLE),
        ],
    );
    // A byte that is not UTF-8 on line 2.
    let latin1 = s.path().join("gm").join("latin1.map");
    std::fs::write(&latin1, b"<map>\n<!-- caf\xe9 -->\n</map>\n").expect("writable");
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    for (path, error) in [
        (
            "late.map",
            "load_map: late.map line 4: object: model 400 is not an object model of the server's model table",
        ),
        (
            "syntax.map",
            "load_map: syntax.map line 3: <object>: posX: \"zero\" is not a number",
        ),
        (
            "bad.pwn",
            "load_map: bad.pwn line 3: a ( is never closed (a call on one line ends with `);`): `CreateObject ( 1225 , 0 , 0 , 3 , 0 , ...`",
        ),
        (
            "latin1.map",
            "load_map: latin1.map line 2: the text is not UTF-8",
        ),
        (
            "carriage.map",
            "load_map: carriage.map line 3: vehicle: model 570 is a train carriage: spawn its locomotive (537, 538)",
        ),
    ] {
        assert_eq!(load(&mut h, a, path), error, "{path}");
        assert_eq!(counts(&h), (0, 0, 0), "{path}: nothing was created");
    }
}

#[test]
fn a_map_path_follows_the_sandbox() {
    let s = gamemode("paths", &[("m.map", GOOD_MTA), ("m.lua", "-- not a map")]);
    std::fs::write(s.path().join("outside.map"), GOOD_MTA).expect("writable");
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    for (path, error) in [
        (
            "../outside.map",
            "load_map: ../outside.map: only relative paths inside the resource's folder",
        ),
        (
            "/etc/passwd.map",
            "load_map: /etc/passwd.map: only relative paths inside the resource's folder",
        ),
        (
            "$data/m.map",
            "load_map: $data/m.map: a map is a file of the resource's own folder",
        ),
        (
            "m.lua",
            "load_map: m.lua: a map file ends in .map (element XML) or .pwn, .inc, .txt",
        ),
        ("missing.map", "load_map: missing.map: "),
    ] {
        let answer = load(&mut h, a, path);
        assert!(answer.starts_with(error), "{path}: {answer}");
    }
    assert_eq!(counts(&h), (0, 0, 0));
}

#[test]
fn a_vehicles_paintjob_and_plate_are_applied_and_one_the_model_cannot_take_loads_nothing() {
    use dlmp::vehicle::tuning::{Plate, Tuning};
    let s = gamemode(
        "tuned",
        &[
            (
                "tuned.map",
                "<map>\n<vehicle model=\"560\" posX=\"30\" posY=\"0\" posZ=\"3\" paintjob=\"1\" plate=\"ab 12\"/>\n\
                 <vehicle model=\"411\" posX=\"35\" posY=\"0\" posZ=\"3\" paintjob=\"3\" plate=\"DLMP\"/>\n</map>\n",
            ),
            (
                "wrong.map",
                "<map>\n<object model=\"1225\" posX=\"20\" posY=\"5\" posZ=\"3\"/>\n\
                 <vehicle model=\"411\" posX=\"30\" posY=\"0\" posZ=\"3\" paintjob=\"1\"/>\n</map>\n",
            ),
        ],
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert!(
        load(&mut h, a, "wrong.map").starts_with("load_map: wrong.map line 3: vehicle: "),
        "the paintjob an Infernus cannot take is the map's error"
    );
    assert_eq!(counts(&h), (0, 0, 0), "nothing was created");
    assert_eq!(load(&mut h, a, "tuned.map"), "loaded 2: 560 411");
    let mut q = h.world_mut().query::<(&Vehicle, &Tuning)>();
    let mut tuned: Vec<(u16, Option<u8>, Option<Plate>)> = q
        .iter(h.world())
        .map(|(v, t)| (v.model, t.paintjob, t.plate))
        .collect();
    tuned.sort_by_key(|(model, ..)| *model);
    assert_eq!(
        tuned,
        [
            (411, None, Plate::parse("DLMP").ok()),
            (560, Some(1), Plate::parse("AB 12").ok()),
        ]
    );
}
