//! Player methods that move and throw the body (docs/lua-api.md, "Moving players"):
//! teleports, the world scope, world bounds, throws and gravity. Each checks what the view
//! answers (spawned, alive, the new life, the physics queue, the lane's room), updates the
//! view for reads in the same call and queues the feature's message
//! (docs/decisions/0011-feature-commands.md, 0015-teleport-and-physics.md).

use mlua::{Error, Lua, Result, UserDataMethods, Value};

use bevy_ecs::entity::Entity;
use dlmp_core::position::Scope;

use super::player::{LuaPlayer, require_alive, require_confirmed_life};
use super::view::PlayerView;
use super::{args, queue_message};
use crate::SpawnState;
use crate::bounds::{BoundsRefusal, SetBounds};
use crate::frame::movement::MAX_PENDING;
use crate::frame::rules::STEPS_PER_SECOND;
use crate::frame::{Bounds, FrameState};
use crate::physics::{SetBodyGravity, ThrowPlayer};
use crate::scope::SetScope;
use crate::state::DEFAULT_GRAVITY;
use crate::teleport::{Teleport, TeleportRefusal};
use dlmp_core::session::Connection;
use dlmp_net::lane::Delivery;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::player::physics::{MAX_GRAVITY, MAX_THROW};

/// The fastest throw the Lua API takes, m/s (SetVelocity's 2 units per step).
pub(crate) const MAX_THROW_MPS: f32 = MAX_THROW * STEPS_PER_SECOND;

fn refuse(method: &str, why: &str) -> Error {
    Error::runtime(format!("{method}: {why}"))
}

/// Takes one place in the lane's normal room, or "queue full".
pub fn take_room(view: &mut PlayerView, method: &str) -> Result<()> {
    take_places(view, method, 1)
}

/// Takes `places` in the lane's normal room, all or none ("queue full"): a call whose
/// packets do not all fit changes nothing (connection.md §3).
pub fn take_places(view: &mut PlayerView, method: &str, places: usize) -> Result<()> {
    if view.lane_room < places {
        return Err(refuse(method, "queue full (the reliable lane is full)"));
    }
    view.lane_room -= places;
    Ok(())
}

/// Takes a place in the physics queue and one in the lane's room, or "queue full": at most
/// [`MAX_PENDING`] SetVelocity / SetGravity await their echo (player.md, SetVelocity; ADR
/// 0015).
fn take_physics_place(view: &mut PlayerView, method: &str) -> Result<()> {
    if view.physics_pending >= MAX_PENDING {
        return Err(refuse(
            method,
            "queue full (32 physics commands await their echo)",
        ));
    }
    take_room(view, method)?;
    view.physics_pending += 1;
    Ok(())
}

/// `v` through its shortest decimal form, so that a script reads back 0.004, not
/// 0.004000000189989805.
fn lua_number(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::from(v))
}

/// How many objects the floor of a landing of a player at a point in a scope may hold,
/// as the world's objects count them (Lua app data the world feature sets; world.md
/// ObjectState, docs/decisions/0049-object-landings.md). Without it a landing holds none.
#[derive(Clone, Copy)]
pub struct FloorPlaces(pub fn(&Lua, Entity, Vec3, Scope) -> usize);

/// The objects the floor of a landing may hold.
fn floor_places(lua: &Lua, player: Entity, at: Vec3, scope: Scope) -> usize {
    let Some(count) = lua.app_data_ref::<FloorPlaces>().map(|f| f.0) else {
        return 0;
    };
    count(lua, player, at, scope)
}

/// A teleport from `set_position` and `teleport`: checked, shown in the view, queued.
fn teleport(lua: &Lua, this: &LuaPlayer, method: &str, t: Teleport) -> Result<()> {
    this.with_mut(lua, method, |view| {
        require_alive(view, method)?;
        match t.check() {
            Err(TeleportRefusal::OutsideWorld) => {
                return Err(refuse(
                    method,
                    "the point is outside the world (|x|, |y| <= 6000, z -200..=4000)",
                ));
            }
            Err(_) => return Err(refuse(method, "the point must be finite")),
            Ok(()) => {}
        }
        // The floor at the landing point and ScopeChanged share the lane with
        // TeleportPlayer (world.md ObjectState; docs/decisions/0049-object-landings.md).
        let interior = t.interior.unwrap_or(view.interior);
        let scope = Scope {
            virtual_world: view.virtual_world,
            interior,
        };
        let floor = floor_places(lua, this.entity, t.pos, scope);
        let places = floor
            + crate::teleport::landing_places(interior != view.interior);
        if view.lane_room < places {
            return Err(refuse(
                method,
                &format!(
                    "queue full (no room for the {floor} objects at the landing point before the teleport)"
                ),
            ));
        }
        view.lane_room -= places;
        view.position = t.pos;
        view.velocity = Vec3::ZERO;
        if let Some(interior) = t.interior {
            view.interior = interior;
        }
        Ok(())
    })?;
    queue_message(lua, t)
}

/// An optional interior argument, 0..=255.
fn interior(method: &str, v: &Value) -> Result<Option<u8>> {
    if v.is_nil() {
        return Ok(None);
    }
    let n = args::integer(method, "interior", v, 0..=255)?;
    Ok(u8::try_from(n).ok())
}

fn point(method: &str, x: &Value, y: &Value, z: &Value) -> Result<Vec3> {
    args::world_point(method, ["x", "y", "z"], [x, y, z])
}

/// Fills what these methods read of a player this tick: the new life, the physics queue,
/// the gravity set, the world bounds and the lane's room.
pub(crate) fn fill_view(
    view: &mut PlayerView,
    frame: Option<&FrameState>,
    spawn: Option<&SpawnState>,
    conn: Option<&Connection>,
) {
    view.life_confirmed = spawn.is_some_and(|s| s.life_confirmed);
    view.physics_pending = frame.map_or(0, |f| f.movement.pending());
    view.gravity = frame.map_or(DEFAULT_GRAVITY, |f| f.movement.gravity_set());
    view.world_bounds = frame.and_then(|f| f.bounds);
    view.lane_room = conn.map_or(0, |c| c.room(Delivery::Normal));
}

/// Adds the teleport, scope, bounds and physics methods (lua-api.md, "Moving players") to `Player`.
/// Moves the view's scope at once and queues the [`SetScope`] (ScopeChanged, streaming).
fn set_scope(
    lua: &Lua,
    this: &LuaPlayer,
    method: &str,
    virtual_world: Option<u32>,
    interior: Option<u8>,
) -> Result<()> {
    this.with_mut(lua, method, |view| {
        view.virtual_world = virtual_world.unwrap_or(view.virtual_world);
        view.interior = interior.unwrap_or(view.interior);
        Ok(())
    })?;
    queue_message(
        lua,
        SetScope {
            player: this.entity,
            virtual_world,
            interior,
        },
    )
}

pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method(
        "set_position",
        |lua, this, (x, y, z, i): (Value, Value, Value, Value)| {
            const F: &str = "set_position";
            let t = Teleport {
                player: this.entity,
                pos: point(F, &x, &y, &z)?,
                heading: None,
                interior: interior(F, &i)?,
                ground: false,
            };
            teleport(lua, this, F, t)
        },
    );
    methods.add_method(
        "teleport",
        |lua, this, (x, y, z, opts): (Value, Value, Value, Value)| {
            const F: &str = "teleport";
            let pos = point(F, &x, &y, &z)?;
            let (mut heading, mut area, mut ground) = (None, None, false);
            if let Some(opts) = args::table_or_nil(F, "opts", &opts)? {
                let h: Value = opts.get("heading")?;
                if !h.is_nil() {
                    heading = Some(args::f32_finite(F, "heading", &h)?);
                }
                area = interior(F, &opts.get::<Value>("interior")?)?;
                ground = args::boolean_or(F, "ground", &opts.get::<Value>("ground")?, false)?;
            }
            let t = Teleport {
                player: this.entity,
                pos,
                heading,
                interior: area,
                ground,
            };
            teleport(lua, this, F, t)
        },
    );
    methods.add_method("set_virtual_world", |lua, this, n: Value| {
        const F: &str = "set_virtual_world";
        let world = args::integer(F, "world", &n, 0..=i64::from(u32::MAX))?;
        let world = u32::try_from(world).map_err(|_| refuse(F, "world out of range"))?;
        set_scope(lua, this, F, Some(world), None)
    });
    methods.add_method("set_interior", |lua, this, n: Value| {
        const F: &str = "set_interior";
        let area = args::integer(F, "interior", &n, 0..=255)?;
        let area = u8::try_from(area).map_err(|_| refuse(F, "interior out of range"))?;
        set_scope(lua, this, F, None, Some(area))
    });
    methods.add_method(
        "set_world_bounds",
        |lua, this, (a, b, c, d): (Value, Value, Value, Value)| {
            const F: &str = "set_world_bounds";
            let edge = |arg: &str, v: &Value| args::f32_in(F, arg, v, args::WORLD_HORIZONTAL);
            let bounds = Bounds::new(
                edge("min_x", &a)?,
                edge("min_y", &b)?,
                edge("max_x", &c)?,
                edge("max_y", &d)?,
            )
            .map_err(|e| {
                refuse(
                    F,
                    match e {
                        BoundsRefusal::NotFinite => "bounds must be finite",
                        BoundsRefusal::OutsideWorld => "a bound is beyond ±6000",
                        BoundsRefusal::Empty => "min must be below max on both axes",
                    },
                )
            })?;
            this.with_mut(lua, F, |view| {
                take_room(view, F)?;
                view.world_bounds = Some(bounds);
                Ok(())
            })?;
            queue_message(
                lua,
                SetBounds {
                    player: this.entity,
                    bounds: Some(bounds),
                },
            )
        },
    );
    methods.add_method("clear_world_bounds", |lua, this, ()| {
        const F: &str = "clear_world_bounds";
        this.with_mut(lua, F, |view| {
            take_room(view, F)?;
            view.world_bounds = None;
            Ok(())
        })?;
        queue_message(
            lua,
            SetBounds {
                player: this.entity,
                bounds: None,
            },
        )
    });
    methods.add_method("world_bounds", |lua, this, ()| {
        this.with(lua, "world_bounds", |view| {
            let b = view.world_bounds;
            (
                b.map(|b| lua_number(b.min_x)),
                b.map(|b| lua_number(b.min_y)),
                b.map(|b| lua_number(b.max_x)),
                b.map(|b| lua_number(b.max_y)),
            )
        })
    });
    methods.add_method(
        "set_velocity",
        |lua, this, (x, y, z): (Value, Value, Value)| {
            const F: &str = "set_velocity";
            let axis = |arg: &str, v: &Value| {
                args::f32_in(F, arg, v, -MAX_THROW_MPS..=MAX_THROW_MPS).map(f64::from)
            };
            let v = [axis("x", &x)?, axis("y", &y)?, axis("z", &z)?];
            let speed = v.iter().map(|c| c * c).sum::<f64>().sqrt();
            if speed > f64::from(MAX_THROW_MPS) {
                return Err(refuse(
                    F,
                    &format!("speed {speed:.1} m/s is above {MAX_THROW_MPS} m/s"),
                ));
            }
            #[expect(clippy::cast_possible_truncation, reason = "at most 100 m/s")]
            let per_step = |c: f64| (c / f64::from(STEPS_PER_SECOND)) as f32;
            let mut vel = Vec3::new(per_step(v[0]), per_step(v[1]), per_step(v[2]));
            // Rounding to f32 must not carry a throw at the limit past it.
            if vel.length() > MAX_THROW {
                let k = MAX_THROW / vel.length() * (1.0 - 1e-6);
                vel = Vec3::new(vel.x * k, vel.y * k, vel.z * k);
            }
            this.with_mut(lua, F, |view| {
                require_alive(view, F)?;
                require_confirmed_life(view, F)?;
                take_physics_place(view, F)
            })?;
            queue_message(
                lua,
                ThrowPlayer {
                    player: this.entity,
                    vel,
                },
            )
        },
    );
    methods.add_method("set_gravity", |lua, this, g: Value| {
        const F: &str = "set_gravity";
        let gravity = args::f32_in(F, "gravity", &g, -MAX_GRAVITY..=MAX_GRAVITY)?;
        this.with_mut(lua, F, |view| {
            take_physics_place(view, F)?;
            view.gravity = gravity;
            Ok(())
        })?;
        queue_message(
            lua,
            SetBodyGravity {
                player: this.entity,
                gravity,
            },
        )
    });
    methods.add_method("gravity", |lua, this, ()| {
        this.with(lua, "gravity", |view| lua_number(view.gravity))
    });
}
