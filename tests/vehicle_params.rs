//! vehicles.md VehicleParams, VehicleControl (with the vehicle event rate limit) and
//! VehicleColors, in the harness: the gamemode's calls through the Lua API, the driver's
//! keys through the decoder, and exactly the packets each client gets.

mod vehicle_support;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::protocol::ids::{EventId, VehicleId};
use dlmp::protocol::vehicle::params::{
    VehicleControl, VehicleControlKind, VehicleParams, door, param,
};
use dlmp::protocol::vehicle::sync::VehicleSync;
use dlmp::protocol::vehicle::transform::VehicleColors;
use dlmp::vehicle::Params;
use dlmp::vehicle::event_limit::{VEHICLE_EVENTS, VehicleEvents};
use dlmp::vehicle::params::{ControlDrop, ControlStats};
use dlmp_core::vehicle::Life;
use rstest::rstest;
use vehicle_support::*;

/// A gamemode with one command, `/x`, that runs a list of operations on vehicles by id and
/// players by slot (`/x engine 1 on lockfor 1 0 nil`), telling everyone each result or
/// error; and a `vehicle_control` handler that logs the key and refuses it after `/refuse`.
fn gamemode(test: &str) -> TempScripts {
    let s = TempScripts::new(test);
    s.resource(
        "gm",
        r#"
        local refuse = false
        local function vehicle(id)
            for _, v in ipairs(dlmp.vehicles()) do
                if v:id() == tonumber(id) then return v end
            end
        end
        local function player(slot)
            for _, p in ipairs(dlmp.players()) do
                if p:id() == tonumber(slot) then return p end
            end
        end
        local function flag(word)
            if word == "on" then return true elseif word == "off" then return false end
            return nil
        end
        local ops = {
            engine = { 2, function(v, on) return dlmp.set_vehicle_engine(v, flag(on)) end },
            lights = { 2, function(v, on) return dlmp.set_vehicle_lights(v, flag(on)) end },
            lock = { 2, function(v, on) return dlmp.set_vehicle_locked(v, flag(on)) end },
            alarm = { 2, function(v, on) return dlmp.set_vehicle_alarm(v, flag(on)) end },
            siren = { 2, function(v, on) return dlmp.set_vehicle_siren(v, flag(on)) end },
            hassiren = { 2, function(v, on) return dlmp.set_vehicle_has_siren(v, flag(on)) end },
            door = { 3, function(v, d, open) return dlmp.set_vehicle_door(v, d, flag(open)) end },
            winch = { 2, function(v, kind)
                if kind == "none" then kind = nil end
                return dlmp.set_vehicle_winch(v, kind)
            end },
            lockfor = { 3, function(v, p, on) return dlmp.set_vehicle_locked_for(v, player(p), flag(on)) end },
            objective = { 3, function(v, p, on) return dlmp.set_vehicle_objective(v, player(p), flag(on)) end },
            colors = { 3, function(v, c1, c2)
                dlmp.set_vehicle_colors(v, tonumber(c1), tonumber(c2))
                local a, b = v:colors()
                return a .. "/" .. b
            end },
        }
        dlmp.on("player_command", function(p, name, args)
            if name == "refuse" then refuse = true return true end
            if name ~= "x" then return false end
            local i = 1
            while i <= #args do
                local op = ops[args[i]]
                local n = op[1]
                local v = vehicle(args[i + 1])
                local ok, ret = pcall(op[2], v, table.unpack(args, i + 2, i + n))
                if ok then
                    dlmp.send_chat(args[i] .. " -> " .. tostring(ret))
                else
                    local msg = tostring(ret):match("(set_vehicle_[%w_]+:[^\n]*)") or tostring(ret)
                    dlmp.send_chat(args[i] .. " error " .. msg)
                end
                i = i + n + 1
            end
            return true
        end)
        dlmp.on("vehicle_control", function(v, p, control, on)
            dlmp.send_chat("control " .. p:name() .. " " .. v:id() .. " " .. control .. " " .. tostring(on))
            if refuse then return false end
        end)
        "#,
    );
    s
}

/// (vehicle, params, doors, doors_set, siren_rev) of every VehicleParams `c` got.
fn params(h: &Harness, c: ClientId) -> Vec<(u32, u16, u8, u8, u16)> {
    h.packets::<VehicleParams>(c)
        .iter()
        .map(|p| {
            (
                p.vehicle_id.0,
                p.params,
                p.doors,
                p.doors_set,
                p.siren_rev.0,
            )
        })
        .collect()
}

/// The `params` word of the last show of the vehicle `c` got.
fn shown_params(h: &Harness, c: ClientId) -> Option<u16> {
    h.packets::<VehicleSync>(c)
        .iter()
        .rev()
        .find(|s| s.active)
        .map(|s| s.params)
}

/// The gamemode's result lines `c` heard (`op -> result`, `op error ...`).
fn results(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
        .into_iter()
        .filter(|l| l.contains(" -> ") || l.contains(" error "))
        .collect()
}

fn x(h: &mut Harness, c: ClientId, ops: &str) {
    h.chat(c, &format!("/x {ops}"));
    h.step();
}

struct Scene {
    h: Harness,
    /// Alice and Bob stand by the vehicle; Carol is 500 m away and does not see it.
    a: ClientId,
    b: ClientId,
    c: ClientId,
    id: VehicleId,
}

/// The three players and a vehicle of `model` 5 m from Alice and Bob, shown to both, every
/// client's record cleared.
fn scene(s: &TempScripts, model: u16) -> Scene {
    let mut h = s.harness();
    let (a, b, c) = (h.connect("alice"), h.connect("bob"), h.connect("carol"));
    let id = vehicle(&mut h, model, at(5.0));
    stand(&mut h, a, at(0.0));
    stand(&mut h, b, at(0.0));
    stand(&mut h, c, at(500.0));
    h.step();
    assert_eq!(syncs(&h, a), [(id.0, true)]);
    assert_eq!(syncs(&h, c), []);
    for p in [a, b, c] {
        h.clear(p);
    }
    Scene { h, a, b, c, id }
}

#[rstest]
#[case::engine("engine", param::ENGINE)]
#[case::lights("lights", param::LIGHTS)]
#[case::lock("lock", param::LOCKED)]
#[case::alarm("alarm", param::ALARM)]
fn a_vehicle_parameter_goes_to_everyone_it_is_streamed_to_on_a_change(
    #[case] op: &str,
    #[case] bit: u16,
) {
    let s = gamemode(&format!("params_{op}"));
    let Scene { mut h, a, b, c, id } = scene(&s, 400);
    x(&mut h, a, &format!("{op} {} on", id.0));
    for p in [a, b] {
        assert_eq!(params(&h, p), [(id.0, bit, 0, 0, 0)]);
    }
    assert_eq!(params(&h, c), [], "not streamed to Carol");
    x(&mut h, a, &format!("{op} {} on", id.0));
    assert_eq!(params(&h, b).len(), 1, "no change, no packet");
    x(&mut h, a, &format!("{op} {} off", id.0));
    assert_eq!(params(&h, b), [(id.0, bit, 0, 0, 0), (id.0, 0, 0, 0, 0)]);
    walk(&mut h, c, at(10.0));
    h.step();
    assert_eq!(shown_params(&h, c), Some(0), "a show carries the state");
}

#[test]
fn the_shows_of_a_late_viewer_carry_the_parameters() {
    let s = gamemode("params_late_show");
    let Scene {
        mut h, a, c, id, ..
    } = scene(&s, 400);
    x(
        &mut h,
        a,
        &format!("engine {0} on lights {0} on door {0} boot on", id.0),
    );
    walk(&mut h, c, at(10.0));
    h.step();
    assert_eq!(shown_params(&h, c), Some(param::ENGINE | param::LIGHTS));
    let show = h.packets::<VehicleSync>(c);
    assert_eq!(show.last().map(|s| s.doors), Some(door::BOOT));
    assert_eq!(params(&h, c), [], "the show is the whole state");
}

#[test]
fn a_players_own_lock_and_objective_go_to_that_player_only() {
    let s = gamemode("params_per_player");
    let Scene { mut h, a, b, c, id } = scene(&s, 400);
    let (ia, ib, ic) = (h.player_id(a).0, h.player_id(b).0, h.player_id(c).0);
    let v = id.0;
    x(
        &mut h,
        a,
        &format!("lockfor {v} {ib} on objective {v} {ia} on objective {v} {ic} on"),
    );
    assert_eq!(params(&h, a), [(v, param::OBJECTIVE, 0, 0, 0)]);
    assert_eq!(params(&h, b), [(v, param::LOCKED, 0, 0, 0)]);
    // The vehicle's lock changes Alice's view; Bob's own lock already locks it for him.
    x(&mut h, a, &format!("lock {v} on"));
    assert_eq!(
        params(&h, a).last(),
        Some(&(v, param::OBJECTIVE | param::LOCKED, 0, 0, 0))
    );
    assert_eq!(params(&h, b).len(), 1);
    // Alice's own unlock; Bob back on the vehicle's lock sees no change.
    x(
        &mut h,
        a,
        &format!("lockfor {v} {ia} off lockfor {v} {ib} nil"),
    );
    assert_eq!(params(&h, a).last(), Some(&(v, param::OBJECTIVE, 0, 0, 0)));
    assert_eq!(params(&h, b).len(), 1);
    assert_eq!(params(&h, c), []);
    // The locks hold at the door: Alice gets in, Bob is denied.
    enter(&mut h, a, id, 0);
    h.step();
    enter(&mut h, b, id, 1);
    h.step();
    let kinds: Vec<_> = seats(&h, b).into_iter().map(|(.., k)| k).collect();
    assert_eq!(
        kinds,
        [
            dlmp::protocol::vehicle::seats::OccupancyKind::Enter,
            dlmp::protocol::vehicle::seats::OccupancyKind::Deny
        ]
    );
    // Carol's show carries her view: locked, and the marker set while she was away.
    walk(&mut h, c, at(10.0));
    h.step();
    assert_eq!(shown_params(&h, c), Some(param::LOCKED | param::OBJECTIVE));
}

#[test]
fn a_player_leaving_takes_its_own_parameters_with_it() {
    let s = gamemode("params_leave");
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, 400);
    let ib = h.player_id(b).0;
    x(
        &mut h,
        a,
        &format!("lockfor {0} {ib} on objective {0} {ib} on", id.0),
    );
    let own = |h: &Harness| {
        h.world()
            .get::<Params>(entity(h, id))
            .map(|p| p.per_player.len())
    };
    assert_eq!(own(&h), Some(1));
    h.disconnect(b);
    // The session ends in the Outbound pass; the vehicles hear of it in the next tick.
    h.steps(2);
    assert_eq!(own(&h), Some(0));
}

#[test]
fn a_door_command_always_goes_with_its_door_in_doors_set() {
    let s = gamemode("params_doors");
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, 400);
    let v = id.0;
    x(&mut h, a, &format!("door {v} boot on"));
    x(&mut h, a, &format!("door {v} boot on"));
    x(&mut h, a, &format!("door {v} lf off"));
    assert_eq!(
        params(&h, b),
        [
            (v, 0, door::BOOT, door::BOOT, 0),
            (v, 0, door::BOOT, door::BOOT, 0),
            (v, 0, door::BOOT, door::LEFT_FRONT, 0),
        ]
    );
    // Commands of one tick make one packet: the full state, every door commanded.
    x(
        &mut h,
        a,
        &format!("door {v} bonnet on door {v} bonnet off door {v} rr on"),
    );
    let both = (
        door::BOOT | door::RIGHT_REAR,
        door::BONNET | door::RIGHT_REAR,
    );
    assert_eq!(params(&h, b).last(), Some(&(v, 0, both.0, both.1, 0)));
    h.advance(std::time::Duration::from_secs(1));
    x(&mut h, a, &format!("door {v} trunk on"));
    assert_eq!(params(&h, b).len(), 4);
    assert_eq!(
        results(&h, a).last().map(String::as_str),
        Some(
            "door error set_vehicle_door: door \"trunk\" is not one of bonnet, boot, lf, rf, lr, rr"
        )
    );
}

#[rstest]
#[case::fire_truck(407, true)]
#[case::ambulance(416, true)]
#[case::mr_whoopee(423, true)]
#[case::hpv1000(523, true)]
#[case::police_ls(596, true)]
#[case::swat(601, true)]
#[case::rhino(432, false)]
#[case::predator(430, false)]
#[case::landstalker(400, false)]
fn a_siren_exists_by_default_on_the_models_of_the_list(#[case] model: u16, #[case] has: bool) {
    let mut h = Harness::new();
    let a = h.connect("alice");
    vehicle(&mut h, model, at(5.0));
    stand(&mut h, a, at(0.0));
    h.step();
    assert_eq!(
        shown_params(&h, a),
        Some(if has { param::HAS_SIREN } else { 0 })
    );
}

#[test]
fn each_siren_command_raises_the_siren_revision_and_goes_to_everyone() {
    let s = gamemode("params_siren");
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, 596);
    let v = id.0;
    let has = param::HAS_SIREN;
    let siren = has | param::SIREN;
    // Every command raises the revision and goes to everyone, whatever it changes: a
    // frame in flight never undoes it (vehicles.md Siren).
    x(&mut h, a, &format!("siren {v} on siren {v} off"));
    assert_eq!(
        params(&h, b),
        [(v, has, 0, 0, 2)],
        "told once, two revisions"
    );
    x(&mut h, a, &format!("siren {v} on siren {v} on"));
    assert_eq!(params(&h, b).last(), Some(&(v, siren, 0, 0, 4)));
    x(&mut h, a, &format!("siren {v} on hassiren {v} off"));
    assert_eq!(
        params(&h, b)[2..],
        [(v, 0, 0, 0, 6)],
        "the same switch again, then the siren removed: one packet, two revisions"
    );
    assert_eq!(
        params(&h, b).last(),
        Some(&(v, 0, 0, 0, 6)),
        "a removed siren is silent"
    );
    x(&mut h, a, &format!("siren {v} on"));
    assert_eq!(
        params(&h, b).last(),
        Some(&(v, 0, 0, 0, 7)),
        "no siren to switch on, a revision all the same"
    );
    x(&mut h, a, &format!("hassiren {v} on"));
    assert_eq!(params(&h, b).last(), Some(&(v, has, 0, 0, 8)));
    assert_eq!(params(&h, b).len(), 5);
    assert_eq!(
        results(&h, a).last().map(String::as_str),
        Some("hassiren -> true")
    );
    let sync = h.packets::<VehicleSync>(a);
    assert!(sync.is_empty());
    let late = h.connect("dave");
    stand(&mut h, late, at(0.0));
    h.step();
    let show = h.packets::<VehicleSync>(late);
    assert_eq!(
        show.last().map(|s| (s.params, s.siren_rev.0)),
        Some((has, 8))
    );
}

#[rstest]
#[case::car(400, true)]
#[case::motorbike(461, true)]
#[case::bicycle(510, true)]
#[case::vortex(539, true)]
#[case::boat(446, false)]
#[case::helicopter(487, false)]
#[case::plane(513, false)]
#[case::train(537, false)]
#[case::trailer(435, false)]
#[case::rc(441, false)]
fn a_siren_is_given_only_where_it_sounds(#[case] model: u16, #[case] given: bool) {
    let s = gamemode(&format!("params_give_siren_{model}"));
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, model);
    x(&mut h, a, &format!("hassiren {} on", id.0));
    assert_eq!(results(&h, a), [format!("hassiren -> {given}")]);
    let expected: Vec<_> = if given {
        vec![(id.0, param::HAS_SIREN, 0, 0, 1)]
    } else {
        Vec::new()
    };
    assert_eq!(params(&h, b), expected);
}

#[test]
fn a_winch_is_a_helicopters_with_one_magnet_at_most() {
    let s = gamemode("params_winch");
    let mut h = s.harness();
    let a = h.connect("alice");
    let heli = vehicle(&mut h, 417, at(5.0)).0;
    let car = vehicle(&mut h, 400, at(-5.0)).0;
    stand(&mut h, a, at(0.0));
    h.step();
    for kind in ["magnet", "small", "none"] {
        x(&mut h, a, &format!("winch {heli} {kind}"));
    }
    assert_eq!(
        params(&h, a),
        [
            (heli, param::MAGNET, 0, 0, 0),
            (heli, param::SMALL_MAGNET, 0, 0, 0),
            (heli, 0, 0, 0, 0)
        ]
    );
    x(&mut h, a, &format!("winch {car} magnet winch {heli} hook"));
    assert_eq!(params(&h, a).len(), 3);
    assert_eq!(
        results(&h, a)[3..],
        [
            "winch error set_vehicle_winch: model 400 is a car: only helicopters carry a winch",
            "winch error set_vehicle_winch: kind \"hook\" is not \"magnet\", \"small\" or nil"
        ]
    );
}

fn control(h: &mut Harness, c: ClientId, id: VehicleId, kind: VehicleControlKind, on: bool) {
    let packet = VehicleControl {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: id,
        control: kind,
        value: on,
    };
    h.send_event(c, packet);
}

fn controls(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
        .into_iter()
        .filter(|l| l.starts_with("control "))
        .collect()
}

fn dropped(h: &Harness, why: ControlDrop) -> u64 {
    h.world()
        .resource::<ControlStats>()
        .dropped
        .get(&why)
        .copied()
        .unwrap_or(0)
}

#[test]
fn the_drivers_engine_and_lights_apply_as_gamemode_commands() {
    let s = gamemode("control_accepted");
    let Scene { mut h, a, b, c, id } = scene(&s, 400);
    put(&mut h, a, id, 0);
    control(&mut h, a, id, VehicleControlKind::Engine, true);
    h.step();
    control(&mut h, a, id, VehicleControlKind::Lights, true);
    h.step();
    let v = id.0;
    assert_eq!(
        controls(&h, b),
        [
            format!("control alice {v} engine true"),
            format!("control alice {v} lights true")
        ]
    );
    for p in [a, b] {
        assert_eq!(
            params(&h, p),
            [
                (v, param::ENGINE, 0, 0, 0),
                (v, param::ENGINE | param::LIGHTS, 0, 0, 0)
            ]
        );
    }
    assert_eq!(params(&h, c), []);
    control(&mut h, a, id, VehicleControlKind::Lights, true);
    h.step();
    assert_eq!(controls(&h, b).len(), 3, "raised again");
    assert_eq!(params(&h, b).len(), 2, "but nothing changed");
}

/// One failing rule each (vehicles.md VehicleControl).
#[derive(Debug, Clone, Copy)]
enum Break {
    /// Control 2: only the gamemode locks a vehicle.
    LockKey,
    /// Alice sits in seat 1.
    Passenger,
    /// Alice stands beside it.
    OnFoot,
    Frozen,
    Wrecked,
    NoVehicle,
}

#[rstest]
#[case::lock_key(Break::LockKey, ControlDrop::Lock)]
#[case::a_passenger(Break::Passenger, ControlDrop::NotDriver)]
#[case::on_foot(Break::OnFoot, ControlDrop::NotDriver)]
#[case::frozen(Break::Frozen, ControlDrop::Frozen)]
#[case::wrecked(Break::Wrecked, ControlDrop::Wrecked)]
#[case::no_vehicle(Break::NoVehicle, ControlDrop::NoVehicle)]
fn a_key_breaking_a_rule_is_dropped_silently(#[case] broken: Break, #[case] why: ControlDrop) {
    let s = gamemode(&format!("control_{broken:?}"));
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, 400);
    let mut target = id;
    let mut kind = VehicleControlKind::Engine;
    match broken {
        Break::LockKey => {
            put(&mut h, a, id, 0);
            kind = VehicleControlKind::Lock;
        }
        Break::Passenger => put(&mut h, a, id, 1),
        Break::OnFoot => {}
        Break::Frozen => {
            put(&mut h, a, id, 0);
            h.freeze(a, true);
        }
        // No explosion path on this branch: the wreck as VehicleExplode leaves it.
        Break::Wrecked => {
            put(&mut h, a, id, 0);
            with_vehicle::<Life>(&mut h, id, |l| l.wrecked = true);
        }
        Break::NoVehicle => {
            put(&mut h, a, id, 0);
            target = VehicleId(999);
        }
    }
    h.clear(a);
    h.clear(b);
    control(&mut h, a, target, kind, true);
    h.step();
    assert_eq!(controls(&h, b), Vec::<String>::new(), "no event");
    assert_eq!(params(&h, a), []);
    assert_eq!(params(&h, b), []);
    assert_eq!(dropped(&h, why), 1);
    assert_eq!(
        h.world().get::<Params>(entity(&h, id)).map(|p| p.bits),
        Some(0)
    );
}

#[test]
fn a_handler_returning_false_refuses_the_key() {
    let s = gamemode("control_refused");
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, 400);
    put(&mut h, a, id, 0);
    h.chat(a, "/refuse");
    h.step();
    control(&mut h, a, id, VehicleControlKind::Engine, true);
    h.step();
    assert_eq!(
        controls(&h, b),
        [format!("control alice {} engine true", id.0)]
    );
    assert_eq!(params(&h, a), []);
    assert_eq!(params(&h, b), []);
    assert_eq!(dropped(&h, ControlDrop::Refused), 1);
}

#[test]
fn the_vehicle_event_limit_drops_the_31st_key_at_once_and_lets_one_through_per_interval() {
    let s = gamemode("control_rate_limit");
    let Scene {
        mut h, a, b, id, ..
    } = scene(&s, 400);
    put(&mut h, a, id, 0);
    h.clear(b);
    // The burst: the put took no token; 31 keys in one tick, lights on, off, ... on. The
    // 30 let through leave the lights off (one packet a tick: none); the 31st would have
    // switched them on.
    let burst = VEHICLE_EVENTS.burst() as usize;
    for i in 0..=burst {
        control(&mut h, a, id, VehicleControlKind::Lights, i % 2 == 0);
    }
    h.step();
    assert_eq!(controls(&h, b).len(), burst);
    assert_eq!(h.world().resource::<ControlStats>().applied, burst as u64);
    assert_eq!(params(&h, b), []);
    assert_eq!(h.get::<VehicleEvents>(a).dropped, 1);
    // The bucket is empty: the next tick's key is dropped, as is the shared VehicleExit.
    control(&mut h, a, id, VehicleControlKind::Engine, true);
    exit(&mut h, a, id);
    assert_eq!(h.get::<VehicleEvents>(a).dropped, 3);
    assert!(
        h.world()
            .get::<dlmp_core::vehicle::Seated>(h.entity(a))
            .is_some(),
        "the exit was dropped"
    );
    // One interval later exactly one more goes through.
    h.advance(VEHICLE_EVENTS.interval());
    control(&mut h, a, id, VehicleControlKind::Engine, true);
    control(&mut h, a, id, VehicleControlKind::Engine, false);
    h.step();
    assert_eq!(controls(&h, b).len(), burst + 1);
    assert_eq!(
        controls(&h, b).last(),
        Some(&format!("control alice {} engine true", id.0))
    );
    assert_eq!(h.get::<VehicleEvents>(a).dropped, 4);
    assert_eq!(params(&h, b), [(id.0, param::ENGINE, 0, 0, 0)]);
}

#[test]
fn colors_go_to_everyone_streamed_on_a_change_and_never_for_a_wreck() {
    let s = gamemode("colors");
    let Scene { mut h, a, b, c, id } = scene(&s, 400);
    let v = id.0;
    let colors = |h: &Harness, p| -> Vec<(u32, u8, u8)> {
        h.packets::<VehicleColors>(p)
            .iter()
            .map(|c| (c.vehicle_id.0, c.color1, c.color2))
            .collect()
    };
    // The support's vehicle is painted 1 / 2: the same colors are no change.
    x(&mut h, a, &format!("colors {v} 1 2 colors {v} 3 127"));
    for p in [a, b] {
        assert_eq!(colors(&h, p), [(v, 3, 127)]);
    }
    assert_eq!(colors(&h, c), []);
    assert_eq!(results(&h, a), ["colors -> 1/2", "colors -> 3/127"]);
    x(&mut h, a, &format!("colors {v} 128 0 colors {v} 0 -1"));
    assert_eq!(
        results(&h, a)[2..],
        [
            "colors error set_vehicle_colors: color1 128 is outside 0..=127",
            "colors error set_vehicle_colors: color2 -1 is outside 0..=127"
        ]
    );
    walk(&mut h, c, at(10.0));
    h.step();
    let show = h.packets::<VehicleSync>(c);
    assert_eq!(show.last().map(|s| (s.color1, s.color2)), Some((3, 127)));
    // No explosion path on this branch: the wreck as VehicleExplode leaves it.
    with_vehicle::<Life>(&mut h, id, |l| l.wrecked = true);
    h.step();
    x(&mut h, a, &format!("colors {v} 5 5"));
    assert_eq!(colors(&h, b).len(), 1);
    assert_eq!(
        results(&h, a).last().map(String::as_str),
        Some(format!("colors error set_vehicle_colors: vehicle {v} is a wreck").as_str())
    );
}

/// VehicleExit from `c` without a tick: the next packets share the tick's lane with it.
fn send_exit(h: &mut Harness, c: ClientId, id: VehicleId) {
    let packet = dlmp::protocol::vehicle::seats::VehicleExit {
        session_token: h.token(c),
        event_id: EventId(0),
        vehicle_id: id,
    };
    h.send_event(c, packet);
}

fn seated(h: &Harness, c: ClientId) -> bool {
    h.world()
        .get::<dlmp_core::vehicle::Seated>(h.entity(c))
        .is_some()
}

#[rstest]
#[case::key_then_exit(false, 1)]
#[case::exit_then_key(true, 0)]
fn a_key_and_the_drivers_exit_in_one_tick_are_judged_in_lane_order(
    #[case] exit_first: bool,
    #[case] applied: u64,
) {
    let s = gamemode(if exit_first {
        "lane_exit_key"
    } else {
        "lane_key_exit"
    });
    let Scene { mut h, a, id, .. } = scene(&s, 400);
    put(&mut h, a, id, 0);
    if exit_first {
        send_exit(&mut h, a, id);
    }
    control(&mut h, a, id, VehicleControlKind::Engine, true);
    if !exit_first {
        send_exit(&mut h, a, id);
    }
    h.step();
    assert!(!seated(&h, a), "the exit is taken either way");
    let stats = h.world().resource::<ControlStats>();
    assert_eq!(
        stats.applied, applied,
        "the key counts as the driver's only before the exit"
    );
    assert_eq!(
        stats
            .dropped
            .get(&ControlDrop::NotDriver)
            .copied()
            .unwrap_or(0),
        1 - applied
    );
}

#[test]
fn the_shared_limit_drops_the_later_events_of_the_lane_whatever_their_kind() {
    let s = gamemode("lane_limit");
    let Scene { mut h, a, id, .. } = scene(&s, 400);
    put(&mut h, a, id, 0);
    // 30 keys, then the exit: the exit is the 31st event of the lane, so it is the one
    // past the limit, though the seats are taken before the keys in the tick.
    let burst = VEHICLE_EVENTS.burst() as usize;
    for i in 0..burst {
        control(&mut h, a, id, VehicleControlKind::Lights, i % 2 == 0);
    }
    send_exit(&mut h, a, id);
    h.step();
    assert_eq!(h.world().resource::<ControlStats>().applied, burst as u64);
    assert_eq!(h.get::<VehicleEvents>(a).dropped, 1);
    assert!(seated(&h, a), "the exit was past the limit");
}
