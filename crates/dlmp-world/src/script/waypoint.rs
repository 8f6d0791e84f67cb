//! `player:set_waypoint`, `player:clear_waypoint`, `player:waypoint` (world.md
//! SetWaypoint, PlayerWaypoint).

use mlua::{IntoLuaMulti, UserDataMethods, Value};

use super::args::float;
use super::{state, state_mut};
use crate::waypoint::WaypointCommand;
use dlmp_player::script::LuaPlayer;
use dlmp_player::script::movement::take_room;
use dlmp_protocol::world::waypoint::{MapPoint, WAYPOINT_MAX};
use dlmp_script::api::queue_message;

/// Takes the lane's room for SetWaypoint, holds `point` in the view at once and queues it.
fn set(
    lua: &mlua::Lua,
    this: &LuaPlayer,
    method: &str,
    point: Option<MapPoint>,
) -> mlua::Result<()> {
    this.with_mut(lua, method, |view| take_room(view, method))?;
    {
        let mut state = state_mut(lua)?;
        match point {
            Some(p) => state.world.waypoints.insert(this.entity, p),
            None => state.world.waypoints.remove(&this.entity),
        };
    }
    queue_message(
        lua,
        WaypointCommand {
            player: this.entity,
            point,
        },
    )
}

/// Adds the waypoint methods to `Player`.
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("set_waypoint", |lua, this, (x, y): (Value, Value)| {
        const F: &str = "set_waypoint";
        let ok = |c: f32| c.abs() <= WAYPOINT_MAX;
        let x = float(F, "x", &x, ok, "-3000..=3000")?;
        let y = float(F, "y", &y, ok, "-3000..=3000")?;
        set(lua, this, F, Some(MapPoint { x, y }))
    });
    methods.add_method("clear_waypoint", |lua, this, ()| {
        set(lua, this, "clear_waypoint", None)
    });
    methods.add_method("waypoint", |lua, this, ()| {
        this.with(lua, "waypoint", |_| ())?;
        let held = state(lua)?.world.waypoints.get(&this.entity).copied();
        match held {
            Some(p) => (f64::from(p.x), f64::from(p.y)).into_lua_multi(lua),
            None => Value::Nil.into_lua_multi(lua),
        }
    });
}
