//! `player:set_frozen`, the camera setters and `player:set_on_fire` (player.md, SetFrozen,
//! SetCamera, SetOnFire). Each refuses in the call what the view can answer and queues a
//! [`ControlCommand`]; the control feature applies it in the same tick. A spawned
//! player's packets are normal events: each call takes their places in the lane's room or
//! raises "queue full" and changes nothing (connection.md §3, ADR 0016). While a
//! map-editing session holds the camera, every camera setter fails with "camera held by an
//! edit session" (editing.md §3).

use mlua::{Error, IntoLuaMulti, Lua, Result, UserDataMethods, Value, Variadic};

use super::movement::{take_places, take_room};
use super::player::{LuaPlayer, require_alive, require_confirmed_life};
use super::view::{PlayerView, PlayerViews};
use super::{args, queue_message};
use crate::control::camera::CameraSetting;
use crate::control::{ControlCommand, control_packets};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::player::control::{MAX_CAMERA_COORD, MAX_CAMERA_TRANSITION_MS};

/// Takes the lane's places for the packets that bring the view's freeze and camera to
/// `to(view)` (none before the spawn: they go at the spawn grant), then shows them in the
/// view, so that a read later in the same call sees the command.
fn update(
    lua: &Lua,
    this: &LuaPlayer,
    method: &str,
    to: impl FnOnce(&PlayerView) -> (bool, CameraSetting),
) -> Result<()> {
    this.with_mut(lua, method, |view| {
        let to = to(view);
        if view.spawned {
            let places = control_packets((view.frozen, view.camera), to);
            take_places(view, method, places)?;
        }
        (view.frozen, view.camera) = to;
        Ok(())
    })
}

/// Sets the camera in the view and queues it; refused while an edit session holds it.
fn set_camera(lua: &Lua, this: &LuaPlayer, method: &str, camera: CameraSetting) -> Result<()> {
    if this.with(lua, method, |v| v.camera_held)? {
        return Err(Error::runtime(format!(
            "{method}: camera held by an edit session"
        )));
    }
    update(lua, this, method, |v| (v.frozen, camera))?;
    queue_message(
        lua,
        ControlCommand::Camera {
            player: this.entity,
            camera,
        },
    )
}

/// Three numbers from `a` at `i`, as a point.
fn point(f: &str, names: [&str; 3], a: &Variadic<Value>, i: usize) -> Result<Vec3> {
    let arg = |k: usize| a.get(i + k).cloned().unwrap_or(Value::Nil);
    let n = |k: usize| args::f32_in(f, names[k], &arg(k), -MAX_CAMERA_COORD..=MAX_CAMERA_COORD);
    Ok(Vec3::new(n(0)?, n(1)?, n(2)?))
}

/// Adds the freeze, camera and fire methods (player.md, SetFrozen, SetCamera, SetOnFire) to `Player`.
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("set_frozen", |lua, this, v: Value| {
        const F: &str = "set_frozen";
        let frozen = args::boolean(F, "frozen", &v)?;
        update(lua, this, F, |v| (frozen, v.camera))?;
        queue_message(
            lua,
            ControlCommand::Freeze {
                player: this.entity,
                frozen,
            },
        )
    });
    methods.add_method("is_frozen", |lua, this, ()| {
        this.with(lua, "is_frozen", |p| p.frozen)
    });
    methods.add_method("set_camera_fixed", |lua, this, a: Variadic<Value>| {
        const F: &str = "set_camera_fixed";
        let pos = point(F, ["x", "y", "z"], &a, 0)?;
        let look_at = point(F, ["look_x", "look_y", "look_z"], &a, 3)?;
        let ms = args::integer_or(
            F,
            "transition_ms",
            &a.get(6).cloned().unwrap_or(Value::Nil),
            0..=i64::from(MAX_CAMERA_TRANSITION_MS),
            0,
        )?;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked range"
        )]
        let camera = CameraSetting::fixed(pos, look_at, ms as u32)
            .map_err(|e| Error::runtime(format!("{F}: {e}")))?;
        set_camera(lua, this, F, camera)
    });
    methods.add_method(
        "spectate",
        |lua, this, (target, prev, next): (Value, Value, Value)| {
            const F: &str = "spectate";
            let target = crate::script::player_arg(F, "target", &target)?;
            let prev_action =
                args::integer_or(F, "prev_action", &prev, 0..=i64::from(u32::MAX), 0)?;
            let next_action =
                args::integer_or(F, "next_action", &next, 0..=i64::from(u32::MAX), 0)?;
            let me = this.with_mut(lua, F, |p| Ok(p.clone()))?;
            let them = lua
                .app_data_ref::<PlayerViews>()
                .and_then(|s| s.player(target.entity, target.token).cloned())
                .filter(|t| t.connected)
                .ok_or_else(|| Error::runtime(format!("{F}: target has left the server")))?;
            if target == *this {
                return Err(Error::runtime(format!(
                    "{F}: a player cannot spectate itself"
                )));
            }
            if !them.spawned {
                return Err(Error::runtime(format!(
                    "{F}: target {} is not spawned",
                    them.name
                )));
            }
            if (them.virtual_world, them.interior) != (me.virtual_world, me.interior) {
                return Err(Error::runtime(format!(
                    "{F}: target {} is in virtual world {} interior {}, not in the player's \
                     (virtual world {} interior {})",
                    them.name, them.virtual_world, them.interior, me.virtual_world, me.interior
                )));
            }
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "checked ranges"
            )]
            let camera = CameraSetting::Spectate {
                target: target.entity,
                id: them.id,
                token: target.token,
                prev_action: prev_action as u32,
                next_action: next_action as u32,
            };
            set_camera(lua, this, F, camera)
        },
    );
    methods.add_method("set_camera_free", |lua, this, ()| -> Result<()> {
        const F: &str = "set_camera_free";
        if this.with_mut(lua, F, |v| Ok(v.camera_held))? {
            return Err(Error::runtime(format!(
                "{F}: camera held by an edit session"
            )));
        }
        Err(Error::runtime(format!(
            "{F}: a free camera exists only in a map editing session (dlmp.start_edit with camera = \"free\")"
        )))
    });
    methods.add_method("reset_camera", |lua, this, ()| {
        set_camera(lua, this, "reset_camera", CameraSetting::Own)
    });
    methods.add_method("camera", |lua, this, ()| {
        let camera = this.with(lua, "camera", |p| p.camera)?;
        let mode = camera.mode_name();
        match camera {
            CameraSetting::Own | CameraSetting::Free => mode.into_lua_multi(lua),
            CameraSetting::Fixed {
                pos,
                look_at,
                transition_ms,
            } => (
                mode,
                pos.x,
                pos.y,
                pos.z,
                look_at.x,
                look_at.y,
                look_at.z,
                transition_ms,
            )
                .into_lua_multi(lua),
            CameraSetting::Spectate {
                target,
                token,
                prev_action,
                next_action,
                ..
            } => (
                mode,
                dlmp_script::api::handles::Cached(LuaPlayer {
                    entity: target,
                    token,
                }),
                prev_action,
                next_action,
            )
                .into_lua_multi(lua),
        }
    });
    methods.add_method("set_on_fire", |lua, this, v: Value| {
        const F: &str = "set_on_fire";
        let on_fire = args::boolean(F, "on", &v)?;
        this.with_mut(lua, F, |p| {
            require_alive(p, F)?;
            if on_fire {
                require_confirmed_life(p, F)?;
            }
            take_room(p, F)
        })?;
        queue_message(
            lua,
            ControlCommand::Fire {
                player: this.entity,
                on_fire,
            },
        )
    });
}
