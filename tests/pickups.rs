//! world.md PickupSync / PickupTouch and lua-api.md's pickup API, in the harness: pickups
//! made by a script, players moved by the harness, and exactly the PickupSync packets (and
//! `pickup_interact` lines) each client gets, in order.

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::lane::Delivery;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::EventId;
use dlmp::protocol::world::pickup::{PickupId, PickupSync, PickupTouch};
use dlmp::protocol::world::shared::EntityRev;
use dlmp::script::ScriptHost;
use dlmp::world::pickup::PickupStats;

/// A gamemode with one pickup per `spec` line (Lua create_pickup arguments), kept in the
/// global `pk` list, plus chat commands: `/move N x y z`, `/collect N`, `/destroy N`, and
/// `pickup_interact` told to the player as "touch ID BEHAVIOR MODEL".
fn gamemode(test: &str, specs: &[&str], extra: &str) -> TempScripts {
    let s = TempScripts::new(test);
    let creates: String = specs
        .iter()
        .map(|spec| format!("pk[#pk + 1] = dlmp.create_pickup({spec})\n"))
        .collect();
    s.resource(
        "gm",
        &format!(
            r#"
            pk = {{}}
            {creates}
            dlmp.on("pickup_interact", function(player, pickup, behavior, model)
                dlmp.send_chat("touch " .. pickup:id() .. " " .. behavior .. " " .. model, nil, {{player}})
            end)
            dlmp.on("player_command", function(p, name, args)
                local n = tonumber(args[1])
                if name == "move" then pk[n]:set_position(tonumber(args[2]), tonumber(args[3]), tonumber(args[4]))
                elseif name == "collect" then dlmp.collect_pickup(pk[n])
                elseif name == "destroy" then dlmp.destroy_pickup(pk[n])
                else return false end
                return true
            end)
            {extra}
            "#
        ),
    );
    s
}

/// One line of what a client was sent about pickups: (id, active, x, rev).
type Line = (u32, bool, f32, u32);

fn lines(h: &Harness, c: ClientId) -> Vec<Line> {
    h.packets::<PickupSync>(c)
        .iter()
        .map(|p| (p.pickup_id.0, p.active, p.pos.x, p.rev.0))
        .collect()
}

fn show(id: u32, x: f32) -> Line {
    (id, true, x, 0)
}

fn hide(id: u32) -> Line {
    (id, false, 0.0, 0)
}

/// Spawns `c` at (x, 0, 0) with a PlayerSync there (the touch checks the last one).
fn stand(h: &mut Harness, c: ClientId, x: f32) {
    h.spawn(c, Vec3::new(x, 0.0, 0.0));
    h.live(c);
}

/// The gamemode moves `c` to (x, 0, 0) and its game confirms it there with a frame.
fn walk(h: &mut Harness, c: ClientId, x: f32) {
    h.teleport(c, Vec3::new(x, 0.0, 0.0));
    h.live(c);
}

fn touch(h: &mut Harness, c: ClientId, id: u32) {
    let packet = PickupTouch {
        session_token: h.token(c),
        event_id: EventId(0),
        pickup_id: PickupId(id),
    };
    h.send_event(c, packet);
    h.step();
}

fn touches(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
        .into_iter()
        .filter(|l| l.starts_with("touch"))
        .collect()
}

#[test]
fn a_pickup_in_the_draw_distance_is_shown_with_every_field_and_removed_beyond_it() {
    let s = gamemode(
        "show",
        &["346, 100, 0, 5, {scale = 2, highlight = false}"],
        "",
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    assert!(lines(&h, a).is_empty(), "not shown before the spawn");
    stand(&mut h, a, 0.0);
    h.step();
    assert_eq!(
        h.packets::<PickupSync>(a),
        [PickupSync {
            event_id: h.packets::<PickupSync>(a)[0].event_id,
            pickup_id: PickupId(1),
            active: true,
            model: 346,
            pos: Vec3::new(100.0, 0.0, 5.0),
            scale: 2.0,
            highlight: false,
            rev: EntityRev(0),
        }]
    );
    walk(&mut h, a, -55.0); // 155 m: inside the 10 m hysteresis
    h.step();
    assert_eq!(lines(&h, a), [show(1, 100.0)]);
    walk(&mut h, a, -61.0); // 161 m
    h.step();
    assert_eq!(lines(&h, a), [show(1, 100.0), hide(1)]);
    walk(&mut h, a, -49.0); // 149 m: shown again
    h.step();
    assert_eq!(lines(&h, a), [show(1, 100.0), hide(1), show(1, 100.0)]);
}

#[test]
fn only_the_players_scope_sees_a_pickup() {
    let s = gamemode("scope", &["346, 10, 0, 0, {virtual_world = 2}"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    assert!(lines(&h, a).is_empty());
    h.set_scope(a, Some(2), None);
    assert_eq!(lines(&h, a), [show(1, 10.0)]);
    h.set_scope(a, Some(0), None);
    assert_eq!(lines(&h, a), [show(1, 10.0), hide(1)]);
}

#[test]
fn a_move_is_a_critical_show_with_a_new_rev_to_its_viewers_only() {
    let s = gamemode("move", &["346, 10, 0, 0"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    stand(&mut h, a, 0.0);
    stand(&mut h, b, 3000.0);
    h.step();
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Droppable, 0);
    h.chat(b, "/move 1 20 0 0");
    h.step();
    h.release_lane(a);
    assert_eq!(lines(&h, a), [show(1, 10.0), (1, true, 20.0, 1)]);
    assert!(lines(&h, b).is_empty(), "bob is 3 km away");
}

#[test]
fn a_collected_pickup_is_removed_and_shown_again_after_respawn_ms() {
    let s = gamemode("collect", &["346, 10, 0, 0, {respawn_ms = 1000}"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.chat(a, "/collect 1");
    h.step();
    assert_eq!(lines(&h, a), [show(1, 10.0), hide(1)]);
    h.advance(Duration::from_millis(900));
    assert_eq!(lines(&h, a).len(), 2, "not before respawn_ms");
    h.advance(Duration::from_millis(200));
    assert_eq!(lines(&h, a), [show(1, 10.0), hide(1), show(1, 10.0)]);
}

#[rstest::rstest]
#[case::at_once(0)]
#[case::within_a_tick(5)]
fn a_respawn_shorter_than_a_tick_still_hides_the_pickup_from_everyone_first(#[case] ms: u32) {
    let spec = format!("346, 10, 0, 0, {{respawn_ms = {ms}}}");
    let s = gamemode("short_respawn", &[&spec], "");
    let mut h = s.harness();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    stand(&mut h, a, 0.0);
    stand(&mut h, b, 5.0);
    h.chat(a, "/collect 1");
    h.steps(2);
    for c in [a, b] {
        assert_eq!(lines(&h, c), [show(1, 10.0), hide(1), show(1, 10.0)]);
    }
}

#[test]
fn destroying_removes_it_for_every_viewer() {
    let s = gamemode("destroy", &["346, 10, 0, 0", "347, 20, 0, 0"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    stand(&mut h, a, 0.0);
    stand(&mut h, b, 30.0);
    h.chat(a, "/destroy 1");
    h.step();
    assert_eq!(lines(&h, a), [show(1, 10.0), show(2, 20.0), hide(1)]);
    assert_eq!(
        lines(&h, b),
        [show(2, 20.0), show(1, 10.0), hide(1)],
        "nearest first from 30 m"
    );
}

#[test]
fn stopping_the_resource_removes_its_pickups_as_if_destroyed() {
    let s = gamemode("stop", &["346, 10, 0, 0", "347, 20, 0, 0"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    assert_eq!(
        lines(&h, a),
        [show(1, 10.0), show(2, 20.0), hide(1), hide(2)]
    );
    assert!(
        h.world()
            .resource::<dlmp::world::pickup::Pickups>()
            .is_empty()
    );
}

#[test]
fn a_new_connection_receives_its_pickups_again() {
    let s = gamemode("reconnect", &["346, 10, 0, 0", "347, 20, 0, 0"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    assert_eq!(lines(&h, a), [show(1, 10.0), show(2, 20.0)]);
    h.disconnect(a);
    h.steps(2);
    let again = h.connect("alice");
    stand(&mut h, again, 0.0);
    h.step();
    assert_eq!(
        lines(&h, again),
        [show(1, 10.0), show(2, 20.0)],
        "nearest first"
    );
}

#[test]
fn on_a_full_lane_the_show_waits_and_a_removal_precedes_the_next_show() {
    let s = gamemode("full", &["346, 10, 0, 0"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    h.set_auto_ack(a, false);
    h.fill_lane(a, Delivery::Droppable, 0);
    walk(&mut h, a, 500.0); // hide decided, the lane refuses it
    walk(&mut h, a, 0.0); // back in range: the show waits for the hide
    h.step();
    h.release_lane(a);
    assert_eq!(lines(&h, a), [show(1, 10.0), hide(1), show(1, 10.0)]);
}

#[test]
fn a_collectible_touch_fires_pickup_interact_every_time_until_collected() {
    let s = gamemode("collectible", &["346, 1, 0, 0"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    touch(&mut h, a, 1);
    touch(&mut h, a, 1);
    assert_eq!(touches(&h, a), ["touch 1 collectible 346"; 2]);
    h.chat(a, "/collect 1");
    h.step();
    touch(&mut h, a, 1);
    assert_eq!(
        touches(&h, a).len(),
        2,
        "a retransmission after the removal does nothing"
    );
    assert_eq!(h.world().resource::<PickupStats>().no_pickup, 1);
}

/// A gamemode that pays for a collectible pickup and collects it, as the docs' example
/// does, but forgets `is_active()`: "paid NAME" told to everyone.
const PAYS: &str = r#"
    dlmp.on("pickup_interact", function(player, pickup, behavior)
        if behavior == "collectible" then
            dlmp.collect_pickup(pickup)
            dlmp.send_chat("paid " .. player:name())
        end
    end)
"#;

fn paid(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
        .into_iter()
        .filter(|l| l.starts_with("paid"))
        .collect()
}

/// A touch sent without stepping the server: several land in one tick.
fn touch_unstepped(h: &mut Harness, c: ClientId, id: u32) {
    let packet = PickupTouch {
        session_token: h.token(c),
        event_id: EventId(0),
        pickup_id: PickupId(id),
    };
    h.send_event(c, packet);
}

#[test]
fn two_players_reaching_a_collectible_pickup_in_one_tick_are_paid_once() {
    let s = gamemode("paid_once", &["346, 1, 0, 0"], PAYS);
    let mut h = s.harness();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    stand(&mut h, a, 0.0);
    stand(&mut h, b, 1.5);
    h.step();
    touch_unstepped(&mut h, a, 1);
    touch_unstepped(&mut h, b, 1);
    h.step();
    assert_eq!(
        paid(&h, a),
        ["paid alice"],
        "the first touch in order is paid"
    );
    assert_eq!(
        paid(&h, b),
        ["paid alice"],
        "bob's touch of the collected pickup is moot"
    );
    let moot = h.world().non_send::<ScriptHost>().stats().moot;
    assert_eq!(moot, 1);
    h.steps(3);
    assert_eq!(paid(&h, b).len(), 1, "nothing later either");
}

#[test]
fn a_burst_of_touches_from_one_client_pays_once() {
    let s = gamemode("burst_once", &["346, 1, 0, 0"], PAYS);
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    for _ in 0..5 {
        touch_unstepped(&mut h, a, 1);
    }
    h.step();
    assert_eq!(paid(&h, a), ["paid alice"]);
    assert_eq!(lines(&h, a), [show(1, 1.0), hide(1)]);
}

#[test]
fn a_declined_touch_leaves_the_next_one_in_the_tick_its_turn() {
    // The gamemode declines for alice (full health, say) and pays bob.
    let s = gamemode(
        "declined",
        &["346, 1, 0, 0"],
        r#"
        dlmp.on("pickup_interact", function(player, pickup)
            if player:name() == "bob" then
                dlmp.collect_pickup(pickup)
                dlmp.send_chat("paid " .. player:name())
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let (a, b) = (h.connect("alice"), h.connect("bob"));
    stand(&mut h, a, 0.0);
    stand(&mut h, b, 1.5);
    h.step();
    touch_unstepped(&mut h, a, 1);
    touch_unstepped(&mut h, b, 1);
    h.step();
    assert_eq!(paid(&h, b), ["paid bob"]);
}

#[test]
fn a_static_touch_fires_once_per_entry_and_the_latch_clears_outside_the_radius() {
    let s = gamemode("static", &["346, 1, 0, 0, {behavior = \"static\"}"], "");
    let mut h = s.harness();
    let a = h.connect("alice");
    stand(&mut h, a, 0.0);
    h.step();
    touch(&mut h, a, 1);
    touch(&mut h, a, 1);
    assert_eq!(touches(&h, a), ["touch 1 static 346"]);
    walk(&mut h, a, 10.0);
    walk(&mut h, a, 0.0);
    touch(&mut h, a, 1);
    assert_eq!(touches(&h, a), ["touch 1 static 346"; 2]);
    assert_eq!(lines(&h, a), [show(1, 1.0)], "a touch never removes it");
}

#[test]
fn a_touch_is_refused_unless_alive_near_active_and_shown() {
    let s = gamemode(
        "refuse",
        &[
            "346, 1, 0, 0",
            "347, 1, 0, 0, {virtual_world = 1}",
            "348, 50, 0, 0",
        ],
        "",
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    touch(&mut h, a, 1); // not spawned
    stand(&mut h, a, 0.0);
    h.step();
    touch(&mut h, a, 9); // no such pickup
    touch(&mut h, a, 3); // 50 m away
    touch(&mut h, a, 2); // near, but in another scope: never shown
    h.set_scope(a, None, Some(3)); // removed from view
    touch(&mut h, a, 1); // a delayed packet of a pickup no longer shown
    h.set_scope(a, None, Some(0));
    h.die(a);
    touch(&mut h, a, 1); // dead
    assert!(touches(&h, a).is_empty());
    let stats = h.world().resource::<PickupStats>().clone();
    assert_eq!(
        (
            stats.not_alive,
            stats.no_pickup,
            stats.too_far,
            stats.not_shown
        ),
        (2, 1, 1, 2)
    );
}

#[test]
fn the_lua_handle_reads_and_a_destroyed_one_says_so() {
    let s = gamemode(
        "handle",
        &["346, 10, 20, 30"],
        r#"
        local p = pk[1]
        local x, y, z = p:position()
        local before = string.format("%d %d %s %s %d %d %d", p:id(), p:model(), tostring(p:exists()), tostring(p:is_active()), x, y, z)
        p:set_position(11, 21, 31)
        local x2 = string.format("%d", (p:position()))
        dlmp.collect_pickup(p)
        local active = tostring(p:is_active())
        p:destroy()
        local ok, err = pcall(function() return p:model() end)
        dlmp.on("player_connect", function(pl)
            dlmp.send_chat(before .. " | " .. x2 .. " " .. active .. " " .. tostring(p:exists()) .. " | " .. tostring(err), nil, {pl})
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    let line = h.chat_lines(a).pop().expect("the report");
    assert!(
        line.starts_with("1 346 true true 10 20 30 | 11 false false | "),
        "{line}"
    );
    assert!(line.contains("model: pickup 1 no longer exists"), "{line}");
}

#[rstest::rstest]
#[case("5, 0, 0, 0", "create_pickup: model 5 is not a pickup model")]
#[case("329, 0, 0, 0", "create_pickup: model 329 is not a pickup model")]
#[case("346, 4096, 0, 0", "create_pickup: x 4096 is outside -4095..=4095")]
#[case("346, 0, -5000, 0", "create_pickup: y -5000 is outside -4095..=4095")]
#[case("346, 0, 0, 4001", "create_pickup: z 4001 is outside -200..=4000")]
#[case(
    "346, 0, 0, 0, {scale = 11}",
    "create_pickup: scale 11 is outside 0.1..=10"
)]
#[case(
    "346, 0, 0, 0, {scale = 0.05}",
    "create_pickup: scale 0.05 is outside 0.1..=10"
)]
#[case(
    "346, 0, 0, 0, {behavior = \"sticky\"}",
    "create_pickup: behavior \"sticky\" is neither"
)]
#[case(
    "346, 0, 0, 0, {respawn_ms = -1}",
    "create_pickup: respawn_ms -1 is outside"
)]
#[case("346, 0, 0, 0, {colour = 1}", "create_pickup: unknown option colour")]
#[case(
    "346, 0, 0, 0, {interior = 256}",
    "create_pickup: interior 256 is outside 0..=255"
)]
#[case("346, 0, 0", "create_pickup: z must be a number")]
fn a_bad_argument_is_a_lua_error_naming_it_and_its_range(#[case] args: &str, #[case] error: &str) {
    let s = TempScripts::new("badarg");
    s.resource(
        "gm",
        &format!(
            r#"
            local ok, err = pcall(dlmp.create_pickup, {args})
            dlmp.on("player_connect", function(p) dlmp.send_chat(tostring(err), nil, {{p}}) end)
            "#
        ),
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    let line = h.chat_lines(a).pop().expect("the error");
    assert!(line.contains(error), "{line:?} lacks {error:?}");
}
