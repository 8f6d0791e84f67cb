//! The editor gamemode, scripts/editor, in the harness: off by default, started with
//! freeroam by `--resource editor`; /edit for the admins of its settings, /place, a commit
//! of the placed object through EntityEdit, /save writing the element XML the map loader
//! reads and /load reading it back: the map saved again is the same bytes.

use std::path::Path;
use std::time::Duration;

use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::edit::{EditAction, EditKind, EditSessionId, EditState, EntityEdit};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::EventId;
use dlmp::protocol::world::object::ObjectState;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a writable temp dir");
    for entry in std::fs::read_dir(from).expect("the resource folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copied");
        }
    }
}

/// A copy of the repository's freeroam and editor resources, so saves stay in the test's
/// folder.
fn scripts(test: &str) -> TempScripts {
    let s = TempScripts::new(test);
    for name in ["freeroam", "editor"] {
        copy_dir(&Path::new("scripts").join(name), &s.path().join(name));
    }
    s
}

fn server(s: &TempScripts, resources: &[&str]) -> Harness {
    Harness::with_config(Config {
        resources: resources.iter().map(|r| (*r).to_owned()).collect(),
        session_timeout_ms: 3_600_000,
        ..s.config()
    })
}

/// A player of freeroam, spawned and living.
fn arrive(h: &mut Harness, name: &str) -> ClientId {
    let c = h.connect(name);
    h.step();
    h.request_spawn(c);
    h.steps(4);
    h.live(c);
    h.clear(c);
    c
}

/// Sends `line` and returns what `c` was told in answer.
fn say(h: &mut Harness, c: ClientId, line: &str) -> Vec<String> {
    h.advance(Duration::from_secs(1));
    let before = h.chat_lines(c).len();
    h.chat(c, line);
    h.steps(2);
    h.chat_lines(c).split_off(before)
}

#[test]
fn the_editor_is_off_by_default_and_starts_with_freeroam_when_named() {
    let s = scripts("editor_off");
    let h = server(&s, &[]);
    let running: Vec<&str> = h.script_host().running().collect();
    assert_eq!(running, ["freeroam"]);
    let h = server(&s, &["editor"]);
    let mut running: Vec<&str> = h.script_host().running().collect();
    running.sort_unstable();
    assert_eq!(running, ["editor", "freeroam"], "its dependency first");
}

#[test]
fn only_admins_edit() {
    let s = scripts("editor_admins");
    let mut h = server(&s, &["editor"]);
    let bob = arrive(&mut h, "bob");
    assert_eq!(say(&mut h, bob, "/edit"), ["Only admins may edit the map."]);
    assert!(h.packets::<EditState>(bob).is_empty());
}

#[test]
fn a_placed_and_moved_object_is_saved_and_a_reload_saves_the_same_bytes() {
    let s = scripts("editor_save");
    let mut h = server(&s, &["editor"]);
    let admin = arrive(&mut h, "admin");
    let told = say(&mut h, admin, "/edit");
    assert!(told[0].starts_with("Editing (session 1)"), "{told:?}");
    let state = h.packets::<EditState>(admin);
    assert!(state[0].flags.free_camera(), "the settings' free camera");
    say(&mut h, admin, "/place 1225");
    let told = say(&mut h, admin, "/place 1337");
    assert!(told[0].starts_with("Placed object"), "{told:?}");
    h.steps(15);
    let selected = h.packets::<EditState>(admin).pop().expect("a selection");
    assert_eq!(
        selected.selected_kind,
        EditKind::Object,
        "the last placed is selected"
    );
    let to = Vec3::new(2500.5, -1680.25, 14.0);
    let commit = EntityEdit {
        session_token: h.token(admin),
        event_id: EventId(0),
        session: EditSessionId(1),
        action: EditAction::Commit,
        kind: EditKind::Object,
        entity_id: selected.selected_id,
        rev: selected.selected_rev,
        a: to,
        b: [0.0, 0.0, 33.3, 0.0],
    };
    h.clear(admin);
    h.send_event(admin, commit);
    h.steps(2);
    let moved = h.packets::<ObjectState>(admin);
    assert_eq!(
        moved.last().map(|o| o.pos),
        Some(to),
        "the commit is applied"
    );

    assert_eq!(
        say(&mut h, admin, "/save park"),
        ["Saved 2 objects to maps/park.map."]
    );
    let first = std::fs::read_to_string(s.path().join("editor/maps/park.map")).expect("saved");
    assert!(
        first.starts_with("<map edf:definitions=\"editor_main\">\n"),
        "{first}"
    );
    assert!(
        first.contains(r#"model="1337" dimension="0" posX="2500.5" posY="-1680.25" posZ="14.0" rotX="0.0" rotY="0.0" rotZ="33.3""#),
        "{first}"
    );
    assert_eq!(first.lines().count(), 4, "{first}");

    assert_eq!(
        say(&mut h, admin, "/load park"),
        ["Loaded 2 objects from maps/park.map."]
    );
    assert_eq!(
        say(&mut h, admin, "/save again"),
        ["Saved 2 objects to maps/again.map."]
    );
    let second = std::fs::read(s.path().join("editor/maps/again.map")).expect("saved");
    assert_eq!(second, first.as_bytes(), "byte for byte");

    // The other format the map loader reads: CreateDynamicObject lines.
    assert_eq!(
        say(&mut h, admin, "/save park pwn"),
        ["Saved 2 objects to maps/park.pwn."]
    );
    let pwn = std::fs::read_to_string(s.path().join("editor/maps/park.pwn")).expect("saved");
    assert!(
        pwn.contains("CreateDynamicObject(1337, 2500.5, -1680.25, 14.0, 0.0, 0.0, 33.3, 0, 0);\n"),
        "{pwn}"
    );
    assert_eq!(pwn.lines().count(), 3, "{pwn}");
    assert_eq!(
        say(&mut h, admin, "/load park pwn"),
        ["Loaded 2 objects from maps/park.pwn."]
    );
    say(&mut h, admin, "/save again pwn");
    let again = std::fs::read(s.path().join("editor/maps/again.pwn")).expect("saved");
    assert_eq!(again, pwn.as_bytes(), "byte for byte");
    say(&mut h, admin, "/save third");
    let third = std::fs::read(s.path().join("editor/maps/third.map")).expect("saved");
    assert_eq!(
        third,
        first.as_bytes(),
        "the poses and scopes went through the .pwn unchanged"
    );
    assert_eq!(
        say(&mut h, admin, "/save park xml"),
        ["Usage: /save NAME [map|pwn] (NAME: letters, digits, _ and -)"]
    );
}

#[test]
fn the_world_and_interior_of_each_object_go_through_both_formats() {
    let s = scripts("editor_scope");
    let mut h = server(&s, &["editor"]);
    let admin = arrive(&mut h, "admin");
    h.set_scope(admin, Some(7), Some(3));
    say(&mut h, admin, "/edit");
    say(&mut h, admin, "/place 1225");
    h.steps(15);
    say(&mut h, admin, "/save inside pwn");
    let pwn = std::fs::read_to_string(s.path().join("editor/maps/inside.pwn")).expect("saved");
    assert!(pwn.contains(", 7, 3);\n"), "{pwn}");
    assert_eq!(
        say(&mut h, admin, "/load inside pwn"),
        ["Loaded 1 objects from maps/inside.pwn."]
    );
    h.steps(5);
    let shown = h
        .world()
        .resource::<dlmp::world::object::ObjectStream>()
        .shown()
        .of(h.player_id(admin))
        .len();
    assert_eq!(
        shown, 1,
        "the loaded object is in the admin's world and interior"
    );
    say(&mut h, admin, "/save inside");
    let map = std::fs::read_to_string(s.path().join("editor/maps/inside.map")).expect("saved");
    assert!(
        map.contains(r#"interior="3" model="1225" dimension="7""#),
        "{map}"
    );
}
