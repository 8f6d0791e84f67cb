//! The object API (lua-api.md "World and vehicles", objects; world.md ObjectState):
//! `dlmp.create_object`, `dlmp.destroy_object` and the `Object` handle. Each call checks
//! its arguments against the page's rules, shows its effect in the scripts' object book at
//! once and queues an [`ObjectCommand`] applied in the same tick.

use std::time::Duration;

use mlua::{Error, Lua, MetaMethod, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::args::{float, option, scope};
use crate::object::pose::{Motion, Pose, move_duration, turn};
use crate::object::script::{ObjectBook, book};
use crate::object::{
    Attachment, Object, ObjectCommand, ObjectError, ObjectId, ObjectSpec, Parent,
    STREAM_DISTANCE_MAX, check_model, check_offset, check_position, check_rotation, models,
};
use dlmp_player::script::LuaPlayer;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;
use dlmp_protocol::world::object::{Bone, MOVE_MS_MAX};
use dlmp_script::ResourceId;
use dlmp_script::api::args::known_options;
use dlmp_script::api::{args, queue_message};

/// A Lua handle to an object: its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaObject {
    pub id: ObjectId,
}

const OPTIONS: [&str; 4] = ["stream_distance", "viewer", "virtual_world", "interior"];

fn refuse(func: &str, e: ObjectError) -> Error {
    Error::runtime(format!("{func}: {e}"))
}

fn gone(func: &str, id: ObjectId) -> Error {
    refuse(func, ObjectError::NoSuchObject(id))
}

fn object_arg(func: &str, arg: &str, v: &Value) -> Result<LuaObject> {
    match v {
        Value::UserData(u) => u
            .borrow::<LuaObject>()
            .map(|o| *o)
            .map_err(|_| Error::runtime(format!("{func}: {arg} must be an Object"))),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be an Object, got {}",
            other.type_name()
        ))),
    }
}

/// Three numbers (an angle triple or an offset); missing ones are 0 when `optional`.
fn triple(func: &str, names: [&str; 3], v: [&Value; 3]) -> Result<Vec3> {
    let mut out = [0.0f32; 3];
    for (i, (name, value)) in names.iter().zip(v).enumerate() {
        if !value.is_nil() {
            out[i] = float(func, name, value, f32::is_finite, "a finite number")?;
        }
    }
    Ok(Vec3::new(out[0], out[1], out[2]))
}

/// Runs `f` on the book's object `id`, or "FUNC: object N no longer exists".
fn with_object<R>(
    lua: &Lua,
    func: &str,
    id: ObjectId,
    f: impl FnOnce(&mut ObjectBook) -> Result<R>,
) -> Result<R> {
    let mut book = book(lua)?;
    if book.get(id).is_none() {
        return Err(gone(func, id));
    }
    f(&mut book)
}

fn create(lua: &Lua, a: &Variadic<Value>, resource: ResourceId) -> Result<LuaObject> {
    const F: &str = "create_object";
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
    let model = args::integer(F, "model", &arg(0), 0..=i64::from(u32::MAX))? as u32;
    check_model(model).map_err(|e| refuse(F, e))?;
    let position = args::world_point(F, ["x", "y", "z"], [&arg(1), &arg(2), &arg(3)])?;
    let rotation = triple(F, ["rx", "ry", "rz"], [&arg(4), &arg(5), &arg(6)])?;
    check_rotation(rotation).map_err(|e| refuse(F, e))?;
    let opts = args::table_or_nil(F, "options", &arg(7))?;
    if let Some(t) = &opts {
        known_options(F, t, &OPTIONS)?;
    }
    let opts = opts.as_ref();
    let stream_distance = match option(opts, "stream_distance")? {
        Value::Nil => None,
        v => Some(float(
            F,
            "stream_distance",
            &v,
            |d| d > 0.0 && d <= STREAM_DISTANCE_MAX,
            "(0, 6000]",
        )?),
    };
    let viewer = match option(opts, "viewer")? {
        Value::Nil => None,
        v => {
            let p = dlmp_player::script::player_arg(F, "viewer", &v)?;
            p.present(lua, F)?;
            Some(p.entity)
        }
    };
    let scope = scope(F, opts)?;
    let spec = ObjectSpec {
        model,
        position,
        rotation,
        interior: scope.interior,
        virtual_world: scope.virtual_world,
        stream_distance,
        viewer,
    };
    spec.check().map_err(|e| refuse(F, e))?;
    create_from_spec(lua, spec, resource).map_err(|e| refuse(F, e))
}

/// Creates an object from a script call (or a map a script loads): the book shows it at
/// once and [`ObjectCommand::Create`] makes it in this tick, owned by `resource`. `spec`
/// must have passed [`ObjectSpec::check`]. For `dlmp.load_map` and other callers inside
/// a script pass.
pub fn create_from_spec(
    lua: &Lua,
    spec: ObjectSpec,
    resource: ResourceId,
) -> std::result::Result<LuaObject, ObjectError> {
    spec.check()?;
    let id = {
        let mut book = book(lua).map_err(|_| ObjectError::IdsExhausted)?;
        let id = book.reserve().ok_or(ObjectError::IdsExhausted)?;
        let settings = book.settings;
        book.add(Object::new(id, &spec, &settings));
        id
    };
    queue_message(
        lua,
        ObjectCommand::Create {
            id,
            spec,
            owner: Some(resource),
        },
    )
    .map_err(|_| ObjectError::IdsExhausted)?;
    Ok(LuaObject { id })
}

fn destroy(lua: &Lua, id: ObjectId, func: &str) -> Result<()> {
    with_object(lua, func, id, |book| {
        book.remove_chain(id);
        Ok(())
    })?;
    queue_message(lua, ObjectCommand::Destroy { id })
}

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    book(lua)?;
    dlmp.set(
        "create_object",
        lua.create_function(move |lua, a: Variadic<Value>| create(lua, &a, resource))?,
    )?;
    dlmp.set(
        "destroy_object",
        lua.create_function(|lua, o: Value| {
            let o = object_arg("destroy_object", "object", &o)?;
            destroy(lua, o.id, "destroy_object")
        })?,
    )?;
    Ok(())
}

/// The parent of `attach_to`: a Player, an Object or a Vehicle.
fn parent_arg(lua: &Lua, func: &str, v: &Value) -> Result<Parent> {
    if let Some(id) = dlmp_vehicle::script::existing_vehicle(lua, func, v)? {
        return Ok(Parent::Vehicle(id));
    }
    if let Value::UserData(u) = v {
        if let Ok(p) = u.borrow::<LuaPlayer>() {
            p.present(lua, func)?;
            return Ok(Parent::Player(p.entity));
        }
        if let Ok(o) = u.borrow::<LuaObject>() {
            return Ok(Parent::Object(o.id));
        }
    }
    Err(Error::runtime(format!(
        "{func}: parent must be a Player, an Object or a Vehicle, got {}",
        v.type_name()
    )))
}

fn bone_arg(func: &str, v: &Value) -> Result<Bone> {
    let n = args::integer_or(func, "bone", v, 0..=17, 0)?;
    u8::try_from(n)
        .ok()
        .and_then(Bone::from_repr)
        .ok_or_else(|| Error::runtime(format!("{func}: bone {n} is outside 0..=17")))
}

/// The attachment rules of world.md ("Bones"), on the book.
fn check_attach(
    book: &ObjectBook,
    id: ObjectId,
    parent: Parent,
    bone: Bone,
    in_place: bool,
) -> std::result::Result<(), ObjectError> {
    if matches!(parent, Parent::Vehicle(_)) && bone != Bone::Root {
        return Err(ObjectError::Bone("a bone is only on a player"));
    }
    if let Parent::Object(p) = parent {
        let parent = book.get(p).ok_or(ObjectError::NoSuchObject(p))?;
        if bone != Bone::Root {
            return Err(ObjectError::Bone("a bone is only on a player"));
        }
        if parent.on_bone() {
            return Err(ObjectError::Bone(
                "an object on a bone carries no other objects",
            ));
        }
        if book.carries(id, p) {
            return Err(ObjectError::Cycle);
        }
    }
    if bone != Bone::Root {
        if in_place {
            return Err(ObjectError::Bone("there is no attach in place onto a bone"));
        }
        if book.has_children(id) {
            return Err(ObjectError::Bone(
                "an object on a bone carries no other objects",
            ));
        }
        if book.get(id).is_some_and(|o| o.broken) {
            return Err(ObjectError::BrokenOnBone);
        }
    }
    Ok(())
}

fn attach(
    lua: &Lua,
    this: &LuaObject,
    func: &str,
    parent: Parent,
    offset: Pose,
    bone: Bone,
    in_place: bool,
) -> Result<()> {
    with_object(lua, func, this.id, |book| {
        check_attach(book, this.id, parent, bone, in_place).map_err(|e| refuse(func, e))?;
        let now = book.now;
        if let Some(o) = book.get_mut(this.id) {
            if !in_place {
                o.pose = offset;
            }
            o.pose = o.pose_at(now);
            o.motion = None;
            o.attachment = Some(Attachment { parent, bone });
        }
        Ok(())
    })?;
    queue_message(
        lua,
        ObjectCommand::Attach {
            id: this.id,
            parent,
            offset,
            bone,
            in_place,
        },
    )
}

impl UserData for LuaObject {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.id.0));
        methods.add_method("exists", |lua, this, ()| {
            Ok(book(lua)?.get(this.id).is_some())
        });
        methods.add_method("destroy", |lua, this, ()| destroy(lua, this.id, "destroy"));
        methods.add_method("model", |lua, this, ()| {
            with_object(lua, "model", this.id, |b| {
                Ok(b.get(this.id).map_or(0, |o| o.model))
            })
        });
        methods.add_method("position", |lua, this, ()| {
            with_object(lua, "position", this.id, |b| {
                let p = b.pose(this.id).unwrap_or_default().position;
                Ok((f64::from(p.x), f64::from(p.y), f64::from(p.z)))
            })
        });
        methods.add_method("rotation", |lua, this, ()| {
            with_object(lua, "rotation", this.id, |b| {
                let r = b.pose(this.id).unwrap_or_default().rotation;
                Ok((f64::from(r.x), f64::from(r.y), f64::from(r.z)))
            })
        });
        methods.add_method(
            "set_position",
            |lua, this, (x, y, z): (Value, Value, Value)| {
                const F: &str = "set_position";
                let p = triple(F, ["x", "y", "z"], [&x, &y, &z])?;
                if x.is_nil() || y.is_nil() || z.is_nil() {
                    return Err(Error::runtime(format!("{F}: x, y and z are required")));
                }
                with_object(lua, F, this.id, |b| {
                    let now = b.now;
                    let o = b.get_mut(this.id).ok_or_else(|| gone(F, this.id))?;
                    if o.attachment.is_some() {
                        check_offset(p)
                    } else {
                        check_position(p)
                    }
                    .map_err(|e| refuse(F, e))?;
                    o.pose = o.pose_at(now);
                    o.pose.position = p;
                    o.motion = None;
                    Ok(())
                })?;
                queue_message(
                    lua,
                    ObjectCommand::SetPosition {
                        id: this.id,
                        position: p,
                    },
                )
            },
        );
        methods.add_method(
            "set_rotation",
            |lua, this, (x, y, z): (Value, Value, Value)| {
                const F: &str = "set_rotation";
                let r = triple(F, ["rx", "ry", "rz"], [&x, &y, &z])?;
                check_rotation(r).map_err(|e| refuse(F, e))?;
                with_object(lua, F, this.id, |b| {
                    let now = b.now;
                    let o = b.get_mut(this.id).ok_or_else(|| gone(F, this.id))?;
                    o.pose = o.pose_at(now);
                    o.pose.rotation = r;
                    o.motion = None;
                    Ok(())
                })?;
                queue_message(
                    lua,
                    ObjectCommand::SetRotation {
                        id: this.id,
                        rotation: r,
                    },
                )
            },
        );
        methods.add_method("move_to", |lua, this, a: Variadic<Value>| {
            const F: &str = "move_to";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let to = args::world_point(F, ["x", "y", "z"], [&arg(0), &arg(1), &arg(2)])?;
            let speed = float(F, "speed_mps", &arg(3), |s| s > 0.0, "above 0")?;
            let (ms, target) = with_object(lua, F, this.id, |b| {
                let now = b.now;
                let o = b.get(this.id).ok_or_else(|| gone(F, this.id))?;
                if o.attachment.is_some() {
                    return Err(refuse(F, ObjectError::Attached));
                }
                let from = o.pose_at(now);
                let rotation = if arg(4).is_nil() && arg(5).is_nil() && arg(6).is_nil() {
                    from.rotation
                } else {
                    triple(F, ["rx", "ry", "rz"], [&arg(4), &arg(5), &arg(6)])?
                };
                check_rotation(rotation).map_err(|e| refuse(F, e))?;
                let target = Pose {
                    position: to,
                    rotation,
                };
                let ms = move_duration(
                    distance(from.position, to),
                    turn(from.rotation, rotation),
                    speed,
                )
                .ok_or_else(|| refuse(F, ObjectError::Speed(speed)))?;
                if ms > u64::from(MOVE_MS_MAX) {
                    return Err(refuse(F, ObjectError::MoveTooLong(ms)));
                }
                let o = b.get_mut(this.id).ok_or_else(|| gone(F, this.id))?;
                o.pose = from;
                o.motion = (ms > 0).then_some(Motion {
                    from,
                    to: target,
                    start: now,
                    duration: Duration::from_millis(ms),
                });
                if ms == 0 {
                    o.pose = target;
                }
                Ok((ms, target))
            })?;
            queue_message(
                lua,
                ObjectCommand::Move {
                    id: this.id,
                    to: target,
                    duration: Duration::from_millis(ms),
                },
            )?;
            Ok(ms)
        });
        methods.add_method("stop", |lua, this, ()| {
            with_object(lua, "stop", this.id, |b| {
                let now = b.now;
                if let Some(o) = b.get_mut(this.id) {
                    o.pose = o.pose_at(now);
                    o.motion = None;
                }
                Ok(())
            })?;
            queue_message(lua, ObjectCommand::Stop { id: this.id })
        });
        methods.add_method("attach_to", |lua, this, a: Variadic<Value>| {
            const F: &str = "attach_to";
            let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Nil);
            let parent = parent_arg(lua, F, &arg(0))?;
            let offset = triple(F, ["ox", "oy", "oz"], [&arg(1), &arg(2), &arg(3)])?;
            check_offset(offset).map_err(|e| refuse(F, e))?;
            let rotation = triple(F, ["rx", "ry", "rz"], [&arg(4), &arg(5), &arg(6)])?;
            check_rotation(rotation).map_err(|e| refuse(F, e))?;
            let bone = bone_arg(F, &arg(7))?;
            let offset = Pose {
                position: offset,
                rotation,
            };
            attach(lua, this, F, parent, offset, bone, false)
        });
        methods.add_method("attach_in_place", |lua, this, p: Value| {
            const F: &str = "attach_in_place";
            let parent = parent_arg(lua, F, &p)?;
            attach(lua, this, F, parent, Pose::default(), Bone::Root, true)
        });
        methods.add_method("detach", |lua, this, ()| {
            with_object(lua, "detach", this.id, |b| {
                if let Some(o) = b.get_mut(this.id) {
                    o.attachment = None;
                }
                Ok(())
            })?;
            queue_message(lua, ObjectCommand::Detach { id: this.id })
        });
        methods.add_method("set_broken", |lua, this, broken: Value| {
            const F: &str = "set_broken";
            let broken = args::boolean(F, "broken", &broken)?;
            with_object(lua, F, this.id, |b| {
                let o = b.get_mut(this.id).ok_or_else(|| gone(F, this.id))?;
                if !models::is_breakable(u32::from(o.model)) {
                    return Err(refuse(F, ObjectError::NotBreakable(u32::from(o.model))));
                }
                if broken && o.on_bone() {
                    return Err(refuse(F, ObjectError::BrokenOnBone));
                }
                o.broken = broken;
                Ok(())
            })?;
            queue_message(
                lua,
                ObjectCommand::SetBroken {
                    id: this.id,
                    broken,
                },
            )
        });
        methods.add_method("is_broken", |lua, this, ()| {
            with_object(lua, "is_broken", this.id, |b| {
                Ok(b.get(this.id).is_some_and(|o| o.broken))
            })
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<Self>| {
            Ok(*this == *other)
        });
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("Object({})", this.id.0))
        });
    }
}
