//! Animations and special actions on `Player` handles (player.md: ApplyAnimation,
//! ClearAnimations, SetAnimationProgress / SetAnimationSpeed, SetSpecialAction). Each
//! setter checks its arguments and the script view (spawned, alive, animating, the lane's
//! room) with the same rules as the apply system, so a refusal is a Lua error in the call;
//! then it updates the view for reads in the same call and queues an [`AnimationCommand`].

use std::time::Duration;

use mlua::{Error, IntoLuaMulti, Lua, Result, Table, UserDataMethods, Value};

use super::args;
use super::player::LuaPlayer;
use super::queue_message;
use super::view::PlayerView;
use crate::animation::{
    Animation, AnimationCommand, AnimationOrder, AnimationSpec, Progress, Speed, Subject,
};
use dlmp_protocol::player::action::SpecialAction;
use dlmp_protocol::player::animation::{AnimationFlags, MAX_ANIMATION_SPEED, MAX_ANIMATION_TIME};

/// The special action names scripts use, by value.
pub const SPECIAL_ACTION_NAMES: [&str; 9] = [
    "none", "jetpack", "hands_up", "phone", "dance1", "dance2", "dance3", "dance4", "carry",
];

/// The blend-in rate when the options do not give one.
const DEFAULT_DELTA: f32 = 4.1;

/// The apply_animation options that are flags, with their bits.
const FLAG_OPTIONS: [(&str, AnimationFlags); 6] = [
    ("loop", AnimationFlags::LOOP),
    ("lock_x", AnimationFlags::LOCK_X),
    ("lock_y", AnimationFlags::LOCK_Y),
    ("freeze", AnimationFlags::FREEZE),
    ("dont_interrupt", AnimationFlags::DONT_INTERRUPT),
    ("retain_state", AnimationFlags::RETAIN_STATE),
];

/// Checks `order` against the view of `this` and queues it; `update` makes the view show
/// it at once (it gets the time of this script pass).
fn command(
    lua: &Lua,
    this: &LuaPlayer,
    method: &str,
    order: AnimationOrder,
    update: impl FnOnce(&mut PlayerView, Duration),
) -> Result<()> {
    let now = dlmp_script::api::state(lua)?.now();
    this.with_mut(lua, method, |view| {
        let subject = Subject {
            spawned: view.spawned,
            alive: view.alive,
            life_confirmed: view.life_confirmed,
            on_foot: !is_seated(lua, this.entity),
            animating: view.animation.is_some_and(|a| a.live(now)),
            room: view.lane_room,
        };
        order
            .check(&subject)
            .map_err(|refusal| Error::runtime(format!("{method}: {refusal}")))?;
        view.lane_room -= order.subject_events(subject.animating);
        update(view, now);
        Ok(())
    })?;
    queue_message(
        lua,
        AnimationCommand {
            player: this.entity,
            order,
        },
    )
}

/// The options table of apply_animation, with its defaults.
fn spec(lib: &Value, name: &Value, opts: &Value) -> Result<AnimationSpec> {
    const F: &str = "apply_animation";
    let lib = args::string(F, "lib", lib)?;
    let name = args::string(F, "name", name)?;
    let (mut delta, mut flags, mut time, mut speed) = (DEFAULT_DELTA, AnimationFlags::NONE, 0, 1.0);
    match opts {
        Value::Nil => {}
        Value::Table(t) => {
            check_option_names(t)?;
            let get = |key: &str| t.raw_get::<Value>(key);
            let v = get("delta")?;
            if !v.is_nil() {
                delta = args::f32_finite(F, "delta", &v)?;
            }
            for (key, bit) in FLAG_OPTIONS {
                if args::boolean_or(F, key, &get(key)?, false)? {
                    flags = flags | bit;
                }
            }
            time = args::integer_or(
                F,
                "time",
                &get("time")?,
                0..=i64::from(MAX_ANIMATION_TIME),
                0,
            )?;
            let v = get("speed")?;
            if !v.is_nil() {
                speed = args::f32_in(F, "speed", &v, 0.0..=MAX_ANIMATION_SPEED)?;
            }
        }
        other => {
            args::table_or_nil(F, "opts", other)?;
        }
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "time is checked to 0..=600000"
    )]
    AnimationSpec::new(&lib, &name, delta, flags, time as u32, speed)
        .map_err(|e| Error::runtime(format!("{F}: {e}")))
}

/// Every key of the options table is one apply_animation knows.
fn check_option_names(t: &Table) -> Result<()> {
    for pair in t.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let known = match &key {
            Value::String(s) => {
                let s = s.to_string_lossy();
                matches!(s.as_str(), "delta" | "time" | "speed")
                    || FLAG_OPTIONS.iter().any(|(name, _)| *name == s)
            }
            _ => false,
        };
        if !known {
            return Err(Error::runtime(format!(
                "apply_animation: unknown option {}",
                key.to_string()
                    .unwrap_or_else(|_| key.type_name().to_owned())
            )));
        }
    }
    Ok(())
}

/// A special action by name or number.
fn special_action(v: &Value) -> Result<SpecialAction> {
    const F: &str = "set_special_action";
    let value = match v {
        Value::String(s) => {
            let s = s.to_string_lossy();
            SPECIAL_ACTION_NAMES
                .iter()
                .position(|n| *n == s)
                .ok_or_else(|| {
                    Error::runtime(format!(
                        "{F}: unknown action \"{s}\" (one of {})",
                        SPECIAL_ACTION_NAMES.join(", ")
                    ))
                })?
        }
        other => {
            let n = args::integer(F, "action", other, 0..=8)?;
            usize::try_from(n).unwrap_or_default()
        }
    };
    u8::try_from(value)
        .ok()
        .and_then(SpecialAction::from_repr)
        .ok_or_else(|| Error::runtime(format!("{F}: action {value} is outside 0..=8")))
}

/// Adds the animation and special action methods (player.md, ApplyAnimation ... SetSpecialAction) to `Player`.
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method(
        "apply_animation",
        |lua, this, (lib, name, opts): (Value, Value, Value)| {
            let spec = spec(&lib, &name, &opts)?;
            command(
                lua,
                this,
                "apply_animation",
                AnimationOrder::Apply(spec),
                |v, now| {
                    v.animation = Some(Animation::start(spec, now));
                },
            )
        },
    );
    methods.add_method("clear_animations", |lua, this, ()| {
        command(
            lua,
            this,
            "clear_animations",
            AnimationOrder::Clear,
            |v, _| {
                v.animation = None;
            },
        )
    });
    methods.add_method("set_animation_progress", |lua, this, p: Value| {
        const F: &str = "set_animation_progress";
        let progress = Progress::new(args::f32_in(F, "progress", &p, 0.0..=1.0)?)
            .map_err(|e| Error::runtime(format!("{F}: {e}")))?;
        command(lua, this, F, AnimationOrder::Progress(progress), |v, _| {
            if let Some(a) = v.animation.as_mut() {
                a.progress = progress;
            }
        })
    });
    methods.add_method("set_animation_speed", |lua, this, s: Value| {
        const F: &str = "set_animation_speed";
        let speed = Speed::new(args::f32_in(F, "speed", &s, 0.0..=MAX_ANIMATION_SPEED)?)
            .map_err(|e| Error::runtime(format!("{F}: {e}")))?;
        command(lua, this, F, AnimationOrder::Speed(speed), |v, _| {
            if let Some(a) = v.animation.as_mut() {
                a.speed = speed;
            }
        })
    });
    methods.add_method("animation", |lua, this, ()| {
        match this.with(lua, "animation", |v| v.animation)? {
            Some(a) => (
                a.spec.lib(),
                a.spec.name(),
                f64::from(a.speed.get()),
                f64::from(a.progress.get()),
            )
                .into_lua_multi(lua),
            None => Value::Nil.into_lua_multi(lua),
        }
    });
    methods.add_method("set_special_action", |lua, this, a: Value| {
        let action = special_action(&a)?;
        command(
            lua,
            this,
            "set_special_action",
            AnimationOrder::SpecialAction(action),
            |v, _| {
                if action != SpecialAction::None {
                    v.animation = None;
                }
                v.special_action = action;
            },
        )
    });
    methods.add_method("special_action", |lua, this, ()| {
        this.with(lua, "special_action", |v| {
            let n = v.special_action.to_repr();
            (SPECIAL_ACTION_NAMES[usize::from(n)], n)
        })
    });
}

/// Whether a player sits in a vehicle, as the scripts' view of the vehicles says (a seat
/// taken or freed by a call earlier in this pass included): Lua app data the vehicle
/// feature sets. Without it nobody is seated.
#[derive(Clone, Copy)]
pub struct SeatedInView(pub fn(&Lua, bevy_ecs::entity::Entity) -> bool);

fn is_seated(lua: &Lua, player: bevy_ecs::entity::Entity) -> bool {
    let Some(check) = lua.app_data_ref::<SeatedInView>().map(|c| c.0) else {
        return false;
    };
    check(lua, player)
}
