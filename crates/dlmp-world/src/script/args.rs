//! Argument conversions of the world functions, in one place: every f32 a world call
//! takes goes through [`float`], so the strict conversion rule has one home.

use bevy_ecs::entity::Entity;
use mlua::{Error, Result, Table, Value};

use crate::attach::Attach;
use crate::label::LabelText;
use dlmp_core::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::text::strip_spoofing;
use dlmp_protocol::world::label::LABEL_TEXT;
use dlmp_protocol::world::shared::{WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};
use dlmp_script::api::args;

/// A finite number that is an f32 satisfying `ok`, else "FUNC: ARG N is outside RANGE".
pub(super) fn float(
    func: &str,
    arg: &str,
    v: &Value,
    ok: impl Fn(f32) -> bool,
    range: &str,
) -> Result<f32> {
    let n = args::number(func, arg, v)?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "checked against the range next"
    )]
    let f = n as f32;
    if f.is_finite() && ok(f) {
        Ok(f)
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} {n} is outside {range}"
        )))
    }
}

/// A point within world bounds (world.md: |x|, |y| ≤ 6000, z from −200 to 4000), its
/// arguments named `names`.
pub(super) fn world_point(func: &str, names: [&str; 3], v: [&Value; 3]) -> Result<Vec3> {
    let xy = |c: f32| c.abs() <= WORLD_XY;
    let x = float(func, names[0], v[0], xy, "-6000..=6000")?;
    let y = float(func, names[1], v[1], xy, "-6000..=6000")?;
    let z = float(
        func,
        names[2],
        v[2],
        |c| (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&c),
        "-200..=4000",
    )?;
    Ok(Vec3::new(x, y, z))
}

/// The option `key` of `opts`, nil when absent.
pub(super) fn option(opts: Option<&Table>, key: &str) -> Result<Value> {
    opts.map_or(Ok(Value::Nil), |t| t.get::<Value>(key))
}

/// `virtual_world` (default 0) and `interior` (0..=255, default 0) of `opts`.
pub(super) fn scope(func: &str, opts: Option<&Table>) -> Result<Scope> {
    let vw = args::integer_or(
        func,
        "virtual_world",
        &option(opts, "virtual_world")?,
        0..=i64::from(u32::MAX),
        0,
    )?;
    let interior = args::integer_or(func, "interior", &option(opts, "interior")?, 0..=255, 0)?;
    Ok(Scope {
        virtual_world: u32::try_from(vw).map_err(Error::external)?,
        interior: u8::try_from(interior).map_err(Error::external)?,
    })
}

/// A 0xRRGGBB color, `default` when nil.
pub(super) fn rgb_or(func: &str, arg: &str, v: &Value, default: u32) -> Result<u32> {
    let c = args::integer_or(func, arg, v, 0..=0x00FF_FFFF, i64::from(default))?;
    u32::try_from(c).map_err(Error::external)
}

/// The `viewer` option: a present Player, or `None` when nil.
pub(super) fn viewer(lua: &mlua::Lua, func: &str, opts: Option<&Table>) -> Result<Option<Entity>> {
    match option(opts, "viewer")? {
        Value::Nil => Ok(None),
        v => {
            let p = dlmp_player::script::player_arg(func, "viewer", &v)?;
            p.present(lua, func)?;
            Ok(Some(p.entity))
        }
    }
}

/// The `attach` option: a present Player or an existing Vehicle, or `None` when nil;
/// anything else is an error naming the option.
pub(super) fn attach(lua: &mlua::Lua, func: &str, opts: Option<&Table>) -> Result<Option<Attach>> {
    match option(opts, "attach")? {
        Value::Nil => Ok(None),
        v => {
            if let Some(id) = dlmp_vehicle::script::existing_vehicle(lua, func, &v)? {
                return Ok(Some(Attach::Vehicle(id)));
            }
            let p = dlmp_player::script::player_arg(func, "attach", &v).map_err(|_| {
                Error::runtime(format!("{func}: attach must be a Player or a Vehicle"))
            })?;
            p.present(lua, func)?;
            Ok(Some(Attach::Player(p.entity)))
        }
    }
}

/// A label text: a UTF-8 string of at most 255 bytes without NUL (world.md Label3D: the
/// 256-byte field is NUL-terminated).
/// A label's text, without the characters that make it display as something else
/// ([`strip_spoofing`]) unless `raw`.
pub(super) fn label_text(func: &str, v: &Value, raw: bool) -> Result<LabelText> {
    let Value::String(s) = v else {
        return Err(Error::runtime(format!(
            "{func}: text must be a string, got {}",
            v.type_name()
        )));
    };
    let bytes = s.as_bytes();
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| Error::runtime(format!("{func}: text must be UTF-8")))?;
    let text = if raw {
        std::borrow::Cow::Borrowed(text)
    } else {
        strip_spoofing(text)
    };
    if text.len() >= LABEL_TEXT {
        return Err(Error::runtime(format!(
            "{func}: text is {} bytes, at most {} fit",
            text.len(),
            LABEL_TEXT - 1
        )));
    }
    LabelText::new(&text).map_err(|_| Error::runtime(format!("{func}: text must not contain NUL")))
}
