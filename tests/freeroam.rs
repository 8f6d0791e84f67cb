//! The default gamemode, scripts/freeroam, in the harness: spawn points, greetings, join
//! and leave lines, and its chat commands. Runs from the crate root (cargo's working dir).

use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::control::TeleportPlayer;
use dlmp::protocol::player::hud::SetMoney;
use dlmp::protocol::player::life::SpawnPlayer;
use dlmp_core::position::Position;

/// scripts/freeroam/main.lua's SPAWNS: x, y, z, heading in degrees.
const POINTS: [(f32, f32, f32, f32); 5] = [
    (2495.33, -1687.82, 13.52, 0.0),
    (1481.02, -1741.58, 13.55, 180.0),
    (369.85, -2047.86, 7.67, 90.0),
    (-2026.16, 156.72, 29.04, 270.0),
    (2027.48, 1008.21, 10.82, 270.0),
];

fn freeroam() -> Harness {
    let h = Harness::with_config(Config {
        scripts: "scripts".into(),
        resources: vec!["freeroam".into()],
        ..Harness::config()
    });
    let running: Vec<&str> = h.script_host().running().collect();
    assert_eq!(running, ["freeroam"]);
    h
}

/// Sends `line` and returns what `c` was told in answer.
fn say(h: &mut Harness, c: ClientId, line: &str) -> Vec<String> {
    let before = h.chat_lines(c).len();
    h.chat(c, line);
    h.steps(2);
    h.chat_lines(c).split_off(before)
}

/// The grant may wait a few ticks for the stunt park's objects near the point (world.md,
/// "Ordering around spawns"), so this steps until it could have come.
fn request_spawn(h: &mut Harness, c: ClientId) -> SpawnPlayer {
    h.request_spawn(c);
    h.steps(4);
    let mut spawns = h.packets::<SpawnPlayer>(c);
    assert_eq!(spawns.len(), 1, "one grant");
    spawns.remove(0)
}

#[test]
fn a_connecting_player_is_greeted_and_spawned_at_a_freeroam_point() {
    let mut h = freeroam();
    let mut used = Vec::new();
    for name in ["alice", "bob", "carol"] {
        let c = h.connect(name);
        h.step();
        assert!(
            h.chat_lines(c)
                .iter()
                .any(|t| t.starts_with(&format!("Welcome to freeroam, {name}!"))),
            "{:?}",
            h.chat_lines(c)
        );
        let sp = request_spawn(&mut h, c);
        let point = POINTS
            .iter()
            .position(|&(x, y, z, heading)| {
                (sp.spawn.x, sp.spawn.y, sp.spawn.z) == (x, y, z)
                    && (sp.heading - heading.to_radians()).abs() < 1e-5
            })
            .unwrap_or_else(|| panic!("{sp:?} is not a freeroam point"));
        assert_eq!(sp.area, 0, "every point is outside");
        used.push(point);
    }
    assert_eq!(used, [0, 1, 2], "round-robin");
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn others_see_who_joins_and_leaves() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    let b = h.connect("bob");
    h.step();
    assert!(
        h.chat_lines(a)
            .contains(&"bob joined the server.".to_owned())
    );
    assert!(
        !h.chat_lines(b).iter().any(|t| t.contains("joined")),
        "the newcomer is greeted instead: {:?}",
        h.chat_lines(b)
    );
    h.disconnect(b);
    h.steps(2);
    assert!(h.chat_lines(a).contains(&"bob left.".to_owned()));
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn help_lists_every_command_the_gamemode_defines_in_order() {
    let main = std::fs::read_to_string("scripts/freeroam/main.lua").expect("freeroam's main");
    let defined: Vec<&str> = main
        .lines()
        .filter_map(|l| l.strip_prefix("command(\""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert!(defined.len() >= 7, "{defined:?}");
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    // Only the commands that work.
    let v_works = !say(&mut h, a, "/v 411").contains(&"/v is not available yet.".to_owned());
    h.advance(std::time::Duration::from_secs(1));
    let got = say(&mut h, a, "/help");
    assert_eq!(got[0], "Commands:");
    let working: Vec<&&str> = defined.iter().filter(|n| **n != "v" || v_works).collect();
    assert_eq!(got.len(), working.len() + 1, "{got:?}");
    for (line, name) in got[1..].iter().zip(&working) {
        assert!(line.starts_with(&format!("/{name} ")), "{name}: {got:?}");
        assert!(line.contains(" - "), "{line}: usage - help");
    }
    for name in &defined {
        h.advance(std::time::Duration::from_secs(1));
        let answer = say(&mut h, a, &format!("/{name}"));
        assert!(!answer.contains(&"Unknown command".to_owned()), "{name}");
    }
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn v_spawns_the_model_3_m_beside_the_player_and_tells_a_refusal() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.steps(2);
    request_spawn(&mut h, a);
    h.live(a);
    let p = h.get::<dlmp_core::position::Position>(a).0;
    assert_eq!(say(&mut h, a, "/v 411"), ["Here is your vehicle 411."]);
    h.step();
    let shows = h.packets::<dlmp::protocol::vehicle::sync::VehicleSync>(a);
    assert_eq!(shows.len(), 1, "shown to its player");
    assert_eq!(
        (shows[0].model, shows[0].pos.x, shows[0].pos.y),
        (411, p.x + 3.0, p.y)
    );
    h.advance(std::time::Duration::from_secs(1));
    let refused = say(&mut h, a, "/v 570");
    assert!(refused[0].contains("train carriage"), "{refused:?}");
}

#[test]
fn kill_tells_a_player_not_spawned_yet_instead_of_calling_it_dead() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    assert_eq!(say(&mut h, a, "/kill"), ["You have not spawned yet."]);
    request_spawn(&mut h, a);
    h.sync(
        a,
        1,
        dlmp::protocol::player::sync::Frame::standing(Vec3::new(2495.33, -1687.82, 13.52)),
    );
    h.advance(std::time::Duration::from_secs(1));
    assert!(
        say(&mut h, a, "/kill")
            .iter()
            .any(|l| l.starts_with("You died."))
    );
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(say(&mut h, a, "/kill"), ["You are already dead."]);
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn bad_arguments_get_the_usage_line() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    for (line, usage) in [
        ("/tp", "Usage: /tp x y z"),
        ("/tp 1 2", "Usage: /tp x y z"),
        ("/tp 1 two 3", "Usage: /tp x y z"),
        ("/tp 1 2 3 4", "Usage: /tp x y z"),
        ("/v", "Usage: /v model|name"),
        ("/v 12", "Usage: /v model|name"),
        ("/w rocket", "Usage: /w weapon [ammo]"),
        ("/w 24 lots", "Usage: /w weapon [ammo]"),
        ("/skin", "Usage: /skin id [variant]"),
        ("/skin cj", "Usage: /skin id [variant]"),
        ("/skin 7 0", "Usage: /skin id [variant]"),
    ] {
        assert_eq!(say(&mut h, a, line), [usage], "{line}");
        // Five lines at once, then one a second (the chat limit).
        h.advance(std::time::Duration::from_secs(1));
    }
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn commands_of_later_features_say_they_are_not_available_yet() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    assert_eq!(
        say(&mut h, a, "/tp 9000 0 10"),
        ["That is outside the world (|x|, |y| <= 6000, z -200..4000)."]
    );
    // give_weapon exists now (the ledger branch).
    assert_eq!(say(&mut h, a, "/w 24"), ["Weapon 24 with 500 ammo."]);
    assert_eq!(say(&mut h, a, "/fly"), ["Unknown command"]);
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn skin_changes_the_look_and_tells_the_player_about_a_model_not_in_the_catalog() {
    use dlmp::player::Appearance;
    use dlmp::protocol::player::appearance::SetSkin;
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    assert_eq!(say(&mut h, a, "/skin 230 2"), ["Skin 230, variant 2."]);
    let skin = h.packets::<SetSkin>(a);
    assert_eq!((skin[0].model, skin[0].variant), (230, 2));
    assert_eq!(
        say(&mut h, a, "/skin 74"),
        ["set_skin: model 74 is not an allowed skin (0..=311 except 74)"]
    );
    assert_eq!(h.get::<Appearance>(a).skin, 230);
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn tp_teleports_a_spawned_player_and_explains_a_refusal() {
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    assert_eq!(
        say(&mut h, a, "/tp 2495 -1688 13.5"),
        ["set_position: the player has not spawned"]
    );
    request_spawn(&mut h, a);
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/tp 2495 -1688 13.5"),
        ["Teleported to 2495.0, -1688.0, 13.5."]
    );
    let t = h.packets::<TeleportPlayer>(a);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].pos, Vec3::new(2495.0, -1688.0, 13.5));
    assert_eq!(h.get::<Position>(a).0, t[0].pos);
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn anim_plays_a_named_animation_and_stop_clears_it() {
    use dlmp::protocol::player::animation::{AnimationFlags, ApplyAnimation, ClearAnimations};
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    assert_eq!(
        say(&mut h, a, "/anim dance"),
        ["apply_animation: the player has not spawned (PlayerNotSpawned)"]
    );
    request_spawn(&mut h, a);
    h.advance(std::time::Duration::from_secs(1));
    assert!(say(&mut h, a, "/anim dance").is_empty());
    let apply = h.packets::<ApplyAnimation>(a);
    assert_eq!(
        (
            apply[0].lib.as_str(),
            apply[0].name.as_str(),
            apply[0].flags
        ),
        ("DANCING", "dnce_M_a", AnimationFlags::LOOP)
    );
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/anim PED WALK_old"),
        ["Playing PED WALK_old."]
    );
    h.advance(std::time::Duration::from_secs(1));
    assert!(say(&mut h, a, "/anim stop").is_empty());
    assert_eq!(h.packets::<ClearAnimations>(a).len(), 1);
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/anim"),
        ["Usage: /anim dance|sit|wave|lay|smoke|handsup|stop, or /anim LIB NAME"]
    );
    assert_eq!(h.script_host().errors(), 0);
}

/// Sends `line` and steps until `c` is told a line starting with `answer` (an account
/// command waits for the database and the password worker, a few ticks); every line `c`
/// was told meanwhile. A second passes first, as a player types, so the chat's rate limit
/// never holds the line.
fn say_until(h: &mut Harness, c: ClientId, line: &str, answer: &str) -> Vec<String> {
    h.advance(std::time::Duration::from_secs(1));
    let before = h.chat_lines(c).len();
    h.chat(c, line);
    for _ in 0..20 {
        h.step();
        let told = h.chat_lines(c).split_off(before);
        if told.iter().any(|l| l.starts_with(answer)) {
            return told;
        }
    }
    panic!(
        "{line}: no {answer:?} in {:?}",
        h.chat_lines(c).split_off(before)
    );
}

/// A copy of freeroam beside a `cash` resource that sets the balance with the API's
/// `set_money`, as a shop or a job would (freeroam has no money command).
fn freeroam_with_cash() -> (TempScripts, Harness) {
    let scripts = TempScripts::new("freeroam-money");
    let copy = scripts.path().join("freeroam");
    std::fs::create_dir_all(copy.join("maps")).expect("a writable temp dir");
    for file in ["resource.toml", "main.lua", "maps/santa_maria_stunts.map"] {
        std::fs::copy(
            std::path::Path::new("scripts/freeroam").join(file),
            copy.join(file),
        )
        .expect("scripts/freeroam");
    }
    scripts.resource(
        "cash",
        r#"dlmp.add_command("cash", function(p, args) p:set_money(tonumber(args[1])) end)"#,
    );
    let h = scripts.harness_with(|c| Config {
        resources: vec!["freeroam".into(), "cash".into()],
        ..c
    });
    (scripts, h)
}

#[test]
fn an_account_is_registered_and_logged_into_with_a_password_and_kept_across_a_reconnect() {
    let (_scripts, mut h) = freeroam_with_cash();
    let a = h.connect("alice");
    h.steps(2);
    assert!(h.chat_lines(a).contains(
        &"Your account: /login PASSWORD, or /register PASSWORD for a new one.".to_owned()
    ));
    assert_eq!(
        h.get::<dlmp::player::Hud>(a).money,
        0,
        "nothing before a login"
    );
    say_until(
        &mut h,
        a,
        "/login hunter22",
        "No account for this name: /register PASSWORD.",
    );
    say_until(&mut h, a, "/register abc", "Usage: /register PASSWORD");
    say_until(
        &mut h,
        a,
        "/register hunter22",
        "Registered and logged in, alice.",
    );
    assert_eq!(
        h.get::<dlmp::player::Hud>(a).money,
        500,
        "a new account's money"
    );
    say_until(
        &mut h,
        a,
        "/register hunter22",
        "You are logged in already.",
    );
    let saved = Vec3::new(100.0, -250.0, 12.5);
    h.spawn(a, saved);
    h.advance(std::time::Duration::from_secs(2));
    say(&mut h, a, "/skin 230");
    say(&mut h, a, "/cash 1234");
    assert_eq!(
        h.packets::<SetMoney>(a).last().map(|m| m.amount),
        Some(1234),
        "SetMoney (player.md)"
    );
    h.advance(std::time::Duration::from_secs(2));
    h.disconnect(a);
    h.steps(3);

    // Connected again without logging in: nothing is loaded, and nothing saved.
    let b = h.connect("alice");
    h.steps(3);
    assert_eq!(h.get::<dlmp::player::Hud>(b).money, 0);
    assert!(
        !h.chat_lines(b)
            .iter()
            .any(|l| l.starts_with("Welcome back"))
    );
    h.spawn(b, Vec3::new(-900.0, 900.0, 20.0));
    say(&mut h, b, "/cash 7");
    h.advance(std::time::Duration::from_secs(2));
    h.disconnect(b);
    h.steps(3);

    let again = h.connect("alice");
    h.steps(2);
    say_until(
        &mut h,
        again,
        "/register hunter22",
        "This name has an account: /login PASSWORD.",
    );
    say_until(&mut h, again, "/login hunter23", "Wrong password.");
    assert_eq!(h.get::<dlmp::player::Hud>(again).money, 0);
    let told = say_until(&mut h, again, "/login hunter22", "Welcome back");
    assert!(
        told.contains(
            &"Welcome back, alice: your money, skin and position are restored.".to_owned()
        ),
        "{told:?}"
    );
    assert_eq!(h.get::<dlmp::player::Hud>(again).money, 1234);
    let spawn = request_spawn(&mut h, again);
    assert_eq!(
        (spawn.spawn.x, spawn.spawn.y, spawn.spawn.z),
        (100.0, -250.0, 12.5)
    );
    assert_eq!(spawn.skin, 230);
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn three_wrong_passwords_end_the_session() {
    let (_scripts, mut h) = freeroam_with_cash();
    let a = h.connect("alice");
    h.steps(2);
    say_until(&mut h, a, "/register hunter22", "Registered and logged in");
    h.disconnect(a);
    h.steps(3);
    let b = h.connect("alice");
    h.steps(2);
    say_until(&mut h, b, "/login wrong1", "Wrong password.");
    say_until(&mut h, b, "/login wrong2", "Wrong password.");
    say_until(
        &mut h,
        b,
        "/login wrong3",
        "You were kicked: too many wrong passwords",
    );
    assert!(
        h.packets::<dlmp::protocol::connection::handshake::ServerDisconnect>(b)
            .iter()
            .any(|d| d.reason == dlmp::protocol::connection::handshake::LeaveReason::Kicked)
    );
}

#[test]
fn restarting_freeroam_keeps_where_the_logged_in_players_were() {
    let (_scripts, mut h) = freeroam_with_cash();
    let a = h.connect("alice");
    h.steps(2);
    say_until(&mut h, a, "/register hunter22", "Registered and logged in");
    h.spawn(a, Vec3::new(100.0, -250.0, 12.5));
    h.advance(std::time::Duration::from_secs(2));
    // Moved after the last periodic note: only the stop's own note has this place.
    say(&mut h, a, "/tp 321 -654 15");
    assert_eq!(
        dlmp::console::execute(h.world_mut(), "restart freeroam"),
        ["restarted freeroam"]
    );
    h.steps(2);
    assert!(
        h.chat_lines(a)
            .iter()
            .filter(|l| l.starts_with("Your account: /login PASSWORD"))
            .count()
            == 2,
        "asked again after the restart: {:?}",
        h.chat_lines(a)
    );
    h.disconnect(a);
    h.steps(3);

    let again = h.connect("alice");
    h.steps(2);
    say_until(&mut h, again, "/login hunter22", "Welcome back");
    let spawn = request_spawn(&mut h, again);
    assert_eq!(
        (spawn.spawn.x, spawn.spawn.y, spawn.spawn.z),
        (321.0, -654.0, 15.0)
    );
    assert_eq!(h.script_host().errors(), 0);
}

/// The stunt park freeroam loads at start (scripts/freeroam/maps/santa_maria_stunts.map):
/// every object of the file exists as written, owned by the resource, with the three
/// pickups; the handles load_map returned are the ones the gamemode grants by (touching
/// the health pickup collects it), and stopping freeroam removes the park.
#[test]
fn freeroam_loads_its_stunt_park_and_uses_the_handles_it_returned() {
    use dlmp::map::Format;
    use dlmp::protocol::ids::EventId;
    use dlmp::protocol::world::pickup::{PickupSync, PickupTouch};
    use dlmp::script::{Owned, ScriptHost};
    use dlmp::world::object::{Object, Objects};
    use dlmp::world::pickup::{Pickup, Pickups};

    let text =
        std::fs::read_to_string("scripts/freeroam/maps/santa_maria_stunts.map").expect("the park");
    let (park, _) = Format::Mta.parse(&text).expect("the park parses");
    assert_eq!(
        (park.objects.len(), park.pickups.len(), park.vehicles.len()),
        (41, 3, 4)
    );
    let mut h = freeroam();
    h.step();
    let mut q = h.world_mut().query::<(&Object, Option<&Owned>)>();
    let mut made: Vec<_> = q
        .iter(h.world())
        .map(|(o, owned)| {
            (
                o.id.0,
                o.model,
                o.pose.position,
                o.pose.rotation,
                owned.is_some(),
            )
        })
        .collect();
    made.sort_by_key(|m| m.0);
    let expected: Vec<_> = park
        .objects
        .iter()
        .map(|o| (o.item.model, o.item.position, o.item.rotation, true))
        .collect();
    let made: Vec<_> = made
        .into_iter()
        .map(|(_, m, p, r, o)| (m, p, r, o))
        .collect();
    assert_eq!(made, expected);
    let mut q = h.world_mut().query::<(&Pickup, Option<&Owned>)>();
    let mut pickups: Vec<_> = q
        .iter(h.world())
        .map(|(p, owned)| (p.id.0, p.spec.model, owned.is_some()))
        .collect();
    pickups.sort_unstable();
    assert_eq!(
        pickups.iter().map(|p| (p.1, p.2)).collect::<Vec<_>>(),
        [(1240, true), (1242, true), (365, true)]
    );

    let c = h.connect("alice");
    // The grant waits until the park's objects there are acknowledged (world.md,
    // "Ordering around spawns"); the harness client acknowledges as it receives.
    h.offer_spawn(c, Vec3::new(430.5, -1675.2, 7.8));
    h.steps(4);
    assert_eq!(
        h.packets::<SpawnPlayer>(c).len(),
        1,
        "granted after the objects"
    );
    h.live(c);
    h.step();
    let health = h
        .packets::<PickupSync>(c)
        .iter()
        .find(|p| p.model == 1240 && p.active)
        .map(|p| p.pickup_id)
        .expect("the health pickup is shown by it");
    h.send_event(
        c,
        PickupTouch {
            session_token: h.token(c),
            event_id: EventId(0),
            pickup_id: health,
        },
    );
    h.steps(2);
    assert!(
        h.packets::<PickupSync>(c)
            .iter()
            .any(|p| p.pickup_id == health && !p.active),
        "collected: the gamemode knew it from load_map's handles"
    );
    assert_eq!(h.script_host().errors(), 0);

    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("freeroam")
        .expect("running");
    h.steps(2);
    assert!(h.world().resource::<Objects>().is_empty());
    assert!(h.world().resource::<Pickups>().is_empty());
}

#[test]
fn train_spawns_at_the_nearest_station_of_its_line_with_the_player_driving() {
    use dlmp::protocol::vehicle::seats::{OccupancyKind, VehicleOccupancy};
    use dlmp::protocol::vehicle::sync::{VehicleSync, flag};
    let mut h = freeroam();
    let a = h.connect("alice");
    h.steps(2);
    request_spawn(&mut h, a);
    h.live(a);
    assert_eq!(
        say(&mut h, a, "/train"),
        ["Your passenger train waits at Unity Station, Los Santos."]
    );
    h.step();
    let shows = h.packets::<VehicleSync>(a);
    let train = shows.last().expect("the train is shown to its driver");
    assert_eq!(
        (train.model, train.pos, train.flags & flag::ALONG_TRACK),
        (538, Vec3::new(1700.76, -1953.65, 14.88), flag::ALONG_TRACK)
    );
    let seat = h.packets::<VehicleOccupancy>(a);
    assert_eq!(
        seat.iter()
            .map(|o| (o.vehicle_id, o.seat, o.kind))
            .collect::<Vec<_>>(),
        [(train.vehicle_id, 0, OccupancyKind::Warp)]
    );
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/train tram"),
        ["Your tram waits at the tram stop at Cranberry Station, San Fierro."]
    );
    h.step();
    let trains: Vec<u16> = h
        .world()
        .resource::<dlmp_core::vehicle::Vehicles>()
        .iter()
        .filter_map(|(_, e)| h.world().get::<dlmp::vehicle::Vehicle>(e).map(|v| v.model))
        .filter(|m| [449, 537, 538].contains(m))
        .collect();
    assert_eq!(trains, [449], "the new train replaces the player's old one");
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/train monorail"),
        ["Usage: /train [freight|passenger|tram]"]
    );
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn vrespawn_brings_back_the_vehicle_its_player_sits_in() {
    use dlmp::protocol::vehicle::sync::VehicleSync;
    let mut h = freeroam();
    let a = h.connect("alice");
    h.steps(2);
    request_spawn(&mut h, a);
    h.live(a);
    assert_eq!(say(&mut h, a, "/vrespawn"), ["You are not in a vehicle."]);
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(say(&mut h, a, "/v 411"), ["Here is your vehicle 411."]);
    h.step();
    let id = h.packets::<VehicleSync>(a)[0].vehicle_id;
    let player = h.entity(a);
    let token = h.get::<dlmp::session::Player>(a).token;
    h.world_mut()
        .write_message(dlmp::vehicle::SeatCommand::Put {
            player,
            token,
            vehicle: id,
            seat: 0,
        });
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(say(&mut h, a, "/vrespawn"), ["Vehicle respawned."]);
    h.step();
    let last = h.packets::<VehicleSync>(a).last().cloned().expect("a show");
    assert_eq!((last.vehicle_id, last.epoch.0), (id, 1));
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn tow_hitches_the_nearest_vehicle_behind_the_drivers_truck_and_again_unhitches() {
    use dlmp::protocol::vehicle::towing::VehicleTrailer;
    use dlmp::vehicle::{SeatCommand, Vehicle, VehicleSpec, create_vehicle};
    let mut h = freeroam();
    let a = h.connect("alice");
    h.steps(2);
    request_spawn(&mut h, a);
    h.live(a);
    assert_eq!(
        say(&mut h, a, "/tow"),
        ["Drive a tow truck or a tractor first."]
    );
    let p = h.get::<Position>(a).0;
    let make = |h: &mut Harness, model: u16, dy: f32| {
        let at = Vec3::new(p.x, p.y + dy, p.z);
        let e = create_vehicle(h.world_mut(), VehicleSpec::new(model, at, 0.0), None)
            .expect("a vehicle");
        h.world().get::<Vehicle>(e).expect("a vehicle").id
    };
    let truck = make(&mut h, 525, 0.0);
    let ahead = make(&mut h, 411, 6.0);
    let behind = make(&mut h, 400, -9.0);
    h.step();
    let player = h.entity(a);
    let token = h.get::<dlmp::session::Player>(a).token;
    h.world_mut().write_message(SeatCommand::Put {
        player,
        token,
        vehicle: truck,
        seat: 0,
    });
    h.step();
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/tow"),
        [format!("Towing vehicle {} (model 400).", behind.0)]
    );
    let hitches: Vec<(u32, u32, bool)> = h
        .packets::<VehicleTrailer>(a)
        .iter()
        .map(|t| (t.trailer_id.0, t.tractor_id.0, t.place))
        .collect();
    assert_eq!(hitches, [(behind.0, truck.0, true)], "not {}", ahead.0);
    h.advance(std::time::Duration::from_secs(1));
    assert_eq!(
        say(&mut h, a, "/tow"),
        [format!("Unhitched vehicle {}.", behind.0)]
    );
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn lock_and_color_change_the_vehicle_the_player_drives() {
    use dlmp::protocol::ids::EventId;
    use dlmp::protocol::vehicle::params::{VehicleParams, param};
    use dlmp::protocol::vehicle::seats::VehicleEnter;
    use dlmp::protocol::vehicle::sync::VehicleSync;
    use dlmp::protocol::vehicle::transform::VehicleColors;
    let second = std::time::Duration::from_secs(1);
    let mut h = freeroam();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    h.steps(2);
    request_spawn(&mut h, a);
    h.live(a);
    request_spawn(&mut h, b);
    let p = h.get::<Position>(a).0;
    h.teleport(b, Vec3::new(p.x - 2.0, p.y, p.z));
    h.live(b);
    assert_eq!(say(&mut h, a, "/lock"), ["You are not driving a vehicle."]);
    say(&mut h, a, "/v 411");
    h.step();
    let id = h.packets::<VehicleSync>(a)[0].vehicle_id;
    let enter = VehicleEnter {
        session_token: h.token(a),
        event_id: EventId(0),
        vehicle_id: id,
        seat: 0,
    };
    h.send_event(a, enter);
    h.steps(2);
    h.advance(second);
    assert_eq!(say(&mut h, a, "/lock"), ["Locked: only you can get in."]);
    let words = |h: &Harness, c| -> Vec<u16> {
        h.packets::<VehicleParams>(c)
            .iter()
            .map(|p| p.params)
            .collect()
    };
    assert_eq!(words(&h, b), [param::LOCKED]);
    assert_eq!(words(&h, a), Vec::<u16>::new(), "not locked for its driver");
    h.advance(second);
    assert_eq!(say(&mut h, a, "/lock"), ["Unlocked."]);
    assert_eq!(words(&h, b), [param::LOCKED, 0]);
    h.advance(second);
    assert_eq!(say(&mut h, a, "/color 3 1"), ["Colors 3 and 1."]);
    let paints: Vec<(u8, u8)> = h
        .packets::<VehicleColors>(b)
        .iter()
        .map(|c| (c.color1, c.color2))
        .collect();
    assert_eq!(paints, [(3, 1)]);
    h.advance(second);
    assert_eq!(say(&mut h, a, "/color 128 1"), ["Usage: /color c1 c2"]);
    assert_eq!(
        say(&mut h, b, "/color 1 1"),
        ["You are not driving a vehicle."]
    );
    assert_eq!(h.script_host().errors(), 0);
}

/// The models of every vehicle on the server, by id.
fn vehicle_models(h: &Harness) -> Vec<u16> {
    let mut list: Vec<(u32, u16)> = h
        .world()
        .resource::<dlmp_core::vehicle::Vehicles>()
        .iter()
        .filter_map(|(_, e)| {
            h.world()
                .get::<dlmp::vehicle::Vehicle>(e)
                .map(|v| (v.id.0, v.model))
        })
        .collect();
    list.sort_unstable();
    list.into_iter().map(|(_, m)| m).collect()
}

#[test]
fn a_player_keeps_at_most_three_spawned_vehicles_and_they_go_when_the_player_leaves() {
    let mut h = freeroam();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    h.steps(2);
    let park = vehicle_models(&h);
    assert!(!park.is_empty(), "the stunt park's vehicles");
    for c in [a, b] {
        request_spawn(&mut h, c);
        h.live(c);
    }
    let spawn = |h: &mut Harness, c: ClientId, line: &str| {
        h.advance(std::time::Duration::from_secs(1));
        say(h, c, line)
    };
    assert_eq!(spawn(&mut h, a, "/v 411"), ["Here is your vehicle 411."]);
    assert_eq!(spawn(&mut h, a, "/v Sultan"), ["Here is your vehicle 560."]);
    spawn(&mut h, a, "/rc 464");
    assert_eq!(spawn(&mut h, b, "/v 522"), ["Here is your vehicle 522."]);
    assert_eq!(vehicle_models(&h)[park.len()..], [411, 560, 464, 522]);
    let fourth = spawn(&mut h, a, "/v infernus");
    assert_eq!(fourth.len(), 2, "{fourth:?}");
    assert!(
        fourth[0].starts_with("Your oldest vehicle (") && fourth[0].ends_with("at most 3 at once."),
        "{fourth:?}"
    );
    assert_eq!(fourth[1], "Here is your vehicle 411.");
    h.step();
    assert_eq!(
        vehicle_models(&h)[park.len()..],
        [560, 464, 522, 411],
        "the oldest of alice's went, bob's stays"
    );
    h.disconnect(a);
    h.steps(3);
    assert_eq!(
        vehicle_models(&h)[park.len()..],
        [522],
        "alice's went with her"
    );
    assert_eq!(
        vehicle_models(&h)[..park.len()],
        park,
        "the map's vehicles stay"
    );
    assert_eq!(h.script_host().errors(), 0);
}

#[test]
fn the_chat_log_keeps_the_account_commands_without_the_password() {
    use dlmp::logs::{Stream, tap};

    tap_the_log();
    let (_scripts, mut h) = freeroam_with_cash();
    let a = h.connect("Password_Keeper");
    h.steps(2);
    say_until(&mut h, a, "/register hunter22", "Registered and logged in");
    say(&mut h, a, "hello hunter22");
    let logged: Vec<String> = tap()
        .last(Stream::Chat, dlmp::logs::KEPT)
        .lines
        .into_iter()
        .map(|l| l.text)
        .filter(|t| t.contains("Password_Keeper"))
        .collect();
    assert!(
        logged.iter().any(|t| t.contains("chat: /register ***")),
        "{logged:?}"
    );
    assert_eq!(
        logged.iter().filter(|t| t.contains("hunter22")).count(),
        1,
        "only the plain chat line has it: {logged:?}"
    );
}

/// Sends this test binary's log to the panel's log tap, once: a global subscriber, as the
/// server has (a thread's own subscriber misses events whose callsites other tests' threads
/// cached first).
fn tap_the_log() {
    use tracing_subscriber::layer::SubscriberExt;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let subscriber = tracing_subscriber::registry()
            .with(tracing_subscriber::filter::LevelFilter::INFO)
            .with(dlmp::logs::TapLayer);
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
    });
}

#[test]
fn weapon_gives_the_projectile_weapons_by_name_or_id() {
    use dlmp::player::Inventory;
    let mut h = freeroam();
    let a = h.connect("alice");
    h.step();
    for (line, answer, weapon, ammo) in [
        ("/weapon grenade", "Weapon grenade with 10 ammo.", 16, 10),
        ("/weapon teargas", "Weapon teargas with 10 ammo.", 17, 10),
        ("/weapon molotov 3", "Weapon molotov with 3 ammo.", 18, 3),
        ("/weapon rocket", "Weapon rocket with 10 ammo.", 35, 10),
        (
            "/weapon heatseeker",
            "Weapon heatseeker with 10 ammo.",
            36,
            10,
        ),
        ("/weapon satchel", "Weapon satchel with 5 ammo.", 39, 5),
        ("/weapon 24 7", "Weapon 24 with 7 ammo.", 24, 7),
    ] {
        assert_eq!(say(&mut h, a, line), [answer], "{line}");
        let inv = h.get::<Inventory>(a);
        assert!(inv.holds(weapon), "{line}");
        assert_eq!(inv.ammo[usize::from(weapon)], ammo, "{line}");
        h.advance(std::time::Duration::from_secs(1));
    }
    for line in [
        "/weapon",
        "/weapon bazooka",
        "/weapon 47",
        "/weapon grenade none",
    ] {
        assert_eq!(
            say(&mut h, a, line),
            ["Usage: /weapon grenade|teargas|molotov|rocket|heatseeker|satchel|ID [ammo]"],
            "{line}"
        );
        h.advance(std::time::Duration::from_secs(1));
    }
    assert_eq!(h.script_host().errors(), 0);
}

/// Runs ticks for `d`, each client in `live` sending a living frame a second.
fn live_for(h: &mut Harness, live: &[ClientId], d: std::time::Duration) {
    let until = h.now() + d;
    while h.now() < until {
        for &c in live {
            h.live(c);
        }
        h.advance(std::time::Duration::from_secs(1));
    }
}

#[test]
fn demolition_a_grenade_blows_up_a_parked_car_and_its_passenger_the_feed_tells_who_and_the_wreck_comes_back()
 {
    use dlmp::player::weapons::launch::LaunchStats;
    use dlmp::player::{DeathEpoch, Inventory, LastFrame};
    use dlmp::protocol::ids::{EventId, Seq, VehicleEpoch, VehicleId};
    use dlmp::protocol::player::life::DeathPose;
    use dlmp::protocol::player::sync::Frame;
    use dlmp::protocol::vehicle::frame::VehicleFrame;
    use dlmp::protocol::vehicle::life::{
        VehicleDeath, VehicleDeathCause, VehicleExplode, VehicleSyncer,
    };
    use dlmp::protocol::vehicle::seats::VehicleEnter;
    use dlmp::protocol::vehicle::state::VehicleState;
    use dlmp::protocol::vehicle::sync::VehicleSync;
    use dlmp::protocol::weapons::projectile::{Launch, ProjectileCreate, ProjectileWeapon};
    use dlmp::session::Connection;

    let mut h = freeroam();
    let (a, b, c) = (h.connect("alice"), h.connect("bob"), h.connect("carol"));
    let d = h.connect("dave");
    h.steps(2);
    for x in [a, b, c, d] {
        request_spawn(&mut h, x);
        h.live(x);
    }
    h.advance(std::time::Duration::from_secs(1));
    // Bob goes to the corner first (the parked cars' syncer from then on), then Alice;
    // Carol watches from 20 m.
    say(&mut h, b, "/demolition");
    h.live(b);
    let told = say(&mut h, a, "/demolition");
    assert!(
        told.iter()
            .any(|l| l.starts_with("The demolition corner: blow up the parked cars")),
        "{told:?}"
    );
    let corner = h.get::<Position>(a).0;
    let inv = h.get::<Inventory>(a);
    assert!(inv.holds(39) && inv.holds(16) && inv.holds(35), "{inv:?}");
    let first = h
        .packets::<VehicleSync>(a)
        .into_iter()
        .find(|s| s.active && s.model == 404)
        .expect("the row's Perennial is shown to Alice");
    let (car, at) = (first.vehicle_id, first.pos);
    assert!(
        ((at.x - corner.x).powi(2) + (at.y - corner.y).powi(2)).sqrt() < 30.0,
        "the row is by the corner: {at:?} {corner:?}"
    );
    say(
        &mut h,
        c,
        &format!("/tp {} {} {}", corner.x + 20.0, corner.y, corner.z),
    );
    live_for(&mut h, &[a, b, c, d], std::time::Duration::from_secs(1));
    let syncs: Vec<_> = h
        .packets::<VehicleSyncer>(b)
        .into_iter()
        .filter(|s| s.vehicle_id == car)
        .collect();
    assert_eq!(
        syncs.last().map(|s| s.active),
        Some(true),
        "Bob, there first, syncs the car"
    );
    // Bob gets in beside the driver's seat: the first passenger syncs it.
    h.send_event(
        b,
        VehicleEnter {
            session_token: h.token(b),
            event_id: EventId(0),
            vehicle_id: car,
            seat: 1,
        },
    );
    h.steps(2);
    assert_eq!(
        h.world()
            .get::<dlmp_core::vehicle::Seated>(h.entity(b))
            .map(|s| (s.id, s.seat)),
        Some((car, 1))
    );

    // Alice arms a grenade and throws it at the car.
    let inv = h.get::<Inventory>(a);
    let seq = h.get::<LastFrame>(a).seq.map_or(1, |s| s.0 + 1);
    let arming = Frame {
        death_epoch: h.get::<DeathEpoch>(a).0,
        weapon: 16,
        clip: 1,
        total: inv.ammo[16],
        weapon_rev: inv.weapon_rev,
        ..Frame::standing(corner)
    };
    h.sync(a, seq, arming);
    let throw = ProjectileCreate {
        session_token: h.token(a),
        event_id: EventId(0),
        seen_event: h
            .world()
            .get::<Connection>(h.entity(a))
            .expect("connected")
            .last_queued(),
        launch: Launch {
            weapon: ProjectileWeapon::Grenade,
            vehicle_id: VehicleId::NONE,
            origin: Vec3::new(corner.x, corner.y, corner.z + 1.0),
            velocity: Vec3::new(-0.5, -0.3, 0.2),
            target_id: VehicleId::NONE,
            target_epoch: VehicleEpoch(0),
        },
    };
    h.send_event(a, throw);
    h.step();
    assert_eq!(h.world().resource::<LaunchStats>().accepted, 1);

    // Bob's game: the car burns, and after 4 s of burning he reports its explosion, naming
    // Alice as the last to damage it.
    let burning = VehicleState {
        health: 249.0,
        ..VehicleState::at_rest(at)
    };
    for vseq in 1..=5 {
        h.send(
            b,
            VehicleFrame {
                session_token: h.token(b),
                seq: Seq(vseq),
                vehicle_id: car,
                state: burning,
            },
        );
        live_for(&mut h, &[a, c, d], std::time::Duration::from_secs(1));
    }
    for x in [a, b, c, d] {
        h.take_chat_lines(x);
        h.clear(x);
    }
    let explode = VehicleExplode {
        session_token: h.token(b),
        event_id: EventId(0),
        vehicle_id: car,
        epoch: VehicleEpoch(0),
        cause: VehicleDeathCause::Exploded,
        has_attacker: true,
        attacker_id: h.player_id(a),
        attacker_token: h.hello(a).player_token,
    };
    h.send_event(b, explode);
    h.steps(3);
    let deaths = h.packets::<VehicleDeath>(c);
    assert_eq!(deaths.len(), 1, "Carol saw it blow up");
    assert_eq!(
        (deaths[0].has_killer, deaths[0].killer_id),
        (true, h.player_id(a)),
        "credited to the grenade's thrower"
    );
    assert_eq!(
        h.chat_lines(c),
        ["alice blew up a Perennial (grenade)"],
        "the kill feed"
    );
    // Bob dies in the blast: within 5 s of the credited explosion, Alice killed him.
    h.report_death(
        b,
        DeathPose {
            weapon: 51,
            ..DeathPose::DEFAULT
        },
    );
    h.steps(3);
    assert_eq!(
        h.chat_lines(c),
        [
            "alice blew up a Perennial (grenade)",
            "alice killed bob (explosion)"
        ],
        "the kill feed"
    );
    assert_eq!(h.chat_lines(d), Vec::<String>::new(), "Dave is far away");

    // The wreck comes back at its place within the corner's respawn time.
    live_for(&mut h, &[a, b, c, d], std::time::Duration::from_secs(4));
    let back = h
        .packets::<VehicleSync>(c)
        .into_iter()
        .rfind(|s| s.vehicle_id == car && s.active)
        .expect("the car is shown again");
    assert_eq!((back.epoch, back.pos), (VehicleEpoch(1), at));
    assert_eq!(h.script_host().errors(), 0);
}
