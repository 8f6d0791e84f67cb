//! docs/lua-api.md documents every function, method and event the API registers, and
//! nothing else (lua-api.md: "the rest ... must be documented with an example each").

use std::collections::BTreeSet;

use bevy_ecs::entity::Entity;
use dlmp_protocol::ids::PlayerToken;
use dlmp_script::api::timer::LuaTimer;
use dlmp_script::events::host_events;
use mlua::{IntoLua, Lua, Table, Value};

use crate::harness::Harness;
use dlmp_player::script::LuaPlayer;
use dlmp_world::pickup::script::LuaPickup;

const DOCS: &str = include_str!("../../docs/lua-api.md");

fn keys(t: &Table) -> BTreeSet<String> {
    t.pairs::<String, Value>()
        .map(|pair| pair.expect("string keys").0)
        .collect()
}

/// The method names of a handle type, from the method table its metatable indexes.
fn methods<T: IntoLua>(lua: &Lua, value: T) -> BTreeSet<String> {
    let Value::UserData(ud) = value.into_lua(lua).expect("a handle") else {
        panic!("a handle is a userdata");
    };
    let index: Table = ud
        .metatable()
        .expect("a metatable")
        .get("__index")
        .expect("a method table");
    keys(&index)
}

/// The identifiers written right after `prefix` in the docs, when followed by `(` (or, for
/// `dlmp.`, anything: `dlmp.resource_name` is a field).
fn documented(prefix: &str, call_only: bool) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in DOCS.match_indices(prefix) {
        let before = DOCS[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &DOCS[at + prefix.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && (!call_only || rest[name.len()..].starts_with('(')) {
            found.insert(name);
        }
    }
    found
}

/// The Lua examples of the page, joined.
fn examples() -> String {
    DOCS.split("```lua\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .collect()
}

/// The Lua VM of the assembled server's API.
fn lua() -> Lua {
    Harness::api_host().lua().clone()
}

#[test]
fn every_dlmp_function_is_documented_with_an_example_and_every_documented_one_exists() {
    let host = Harness::api_host();
    let dlmp = host.api_table("docs").expect("the dlmp table");
    assert_eq!(keys(&dlmp), documented("dlmp.", false));
    let examples = examples();
    for name in keys(&dlmp) {
        assert!(
            examples.contains(&format!("dlmp.{name}")),
            "no example uses dlmp.{name}"
        );
    }
}

#[test]
fn every_player_method_is_documented_with_an_example_and_every_documented_one_exists() {
    let lua = lua();
    let player = LuaPlayer {
        entity: Entity::PLACEHOLDER,
        token: PlayerToken(0),
    };
    assert_eq!(methods(&lua, player), documented("player:", true));
    let examples = examples();
    for name in methods(&lua, player) {
        assert!(
            examples.contains(&format!(":{name}(")) || examples.contains(&format!(".{name},")),
            "no example calls player:{name}"
        );
    }
}

#[test]
fn every_pickup_method_is_documented_with_an_example_and_every_documented_one_exists() {
    let lua = lua();
    let pickup = LuaPickup {
        id: dlmp_protocol::world::pickup::PickupId(1),
    };
    assert_eq!(methods(&lua, pickup), documented("pickup:", true));
    let examples = examples();
    for name in methods(&lua, pickup) {
        assert!(
            examples.contains(&format!(":{name}(")),
            "no example calls pickup:{name}"
        );
    }
}

#[test]
fn every_vehicle_method_is_documented_with_an_example_and_every_documented_one_exists() {
    let lua = lua();
    let vehicle = dlmp_vehicle::script::LuaVehicle {
        id: dlmp_protocol::ids::VehicleId(1),
    };
    assert_eq!(methods(&lua, vehicle), documented("vehicle:", true));
    let examples = examples();
    for name in methods(&lua, vehicle) {
        assert!(
            examples.contains(&format!(":{name}(")),
            "no example calls vehicle:{name}"
        );
    }
}

#[test]
fn every_object_method_is_documented_with_an_example_and_every_documented_one_exists() {
    let lua = lua();
    let object = dlmp_world::script::LuaObject {
        id: dlmp_world::object::ObjectId(1),
    };
    assert_eq!(methods(&lua, object), documented("object:", true));
    let examples = examples();
    for name in methods(&lua, object) {
        assert!(
            examples.contains(&format!(":{name}(")),
            "no example calls object:{name}"
        );
    }
}

#[test]
fn every_timer_method_is_documented_and_every_documented_one_exists() {
    let lua = lua();
    assert_eq!(
        methods(&lua, LuaTimer { id: 0 }),
        documented("timer:", true)
    );
}

#[test]
fn every_checkpoint_colshape_and_gang_zone_method_is_documented_and_every_documented_one_exists() {
    use dlmp_protocol::world::markers::ColshapeId;
    use dlmp_protocol::world::shared::MarkerId;
    use dlmp_world::script::{LuaCheckpoint, LuaColshape, LuaGangZone};
    let lua = lua();
    assert_eq!(
        methods(&lua, LuaCheckpoint { id: MarkerId(1) }),
        documented("checkpoint:", true)
    );
    assert_eq!(
        methods(&lua, LuaColshape { id: ColshapeId(1) }),
        documented("colshape:", true)
    );
    assert_eq!(
        methods(&lua, LuaGangZone { id: MarkerId(1) }),
        documented("zone:", true)
    );
}

#[test]
fn every_label_and_blip_method_is_documented_and_every_documented_one_exists() {
    use dlmp_protocol::world::shared::MarkerId;
    use dlmp_world::script::{LuaBlip, LuaLabel};
    let lua = lua();
    assert_eq!(
        methods(&lua, LuaLabel { id: MarkerId(1) }),
        documented("label:", true)
    );
    assert_eq!(
        methods(&lua, LuaBlip { id: MarkerId(1) }),
        documented("blip:", true)
    );
}

#[test]
fn every_event_has_a_heading_and_an_example_and_every_heading_is_an_event() {
    let events = DOCS
        .split_once("\n## Events\n")
        .expect("an Events section")
        .1;
    let events = events.split("\n## ").next().unwrap_or(events);
    let headed: BTreeSet<String> = events
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .flat_map(|l| l.split(" and "))
        .filter_map(|h| h.split('(').next())
        .map(|n| n.trim().to_owned())
        .collect();
    let host = Harness::api_host();
    let raised: BTreeSet<String> = host
        .api()
        .event_names()
        .iter()
        .chain(host_events::NAMES)
        .map(|n| (*n).to_owned())
        .collect();
    assert_eq!(raised, headed);
    let examples = examples();
    for name in raised {
        assert!(
            examples.contains(&format!("\"{name}\"")),
            "no example handles {name}"
        );
    }
}
