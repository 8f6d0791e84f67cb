//! Checking the arguments of API calls, so that a bad one raises a Lua error naming the
//! function, the argument and the rule ("set_health: value 250 is outside 0..=200").

use core::ops::RangeInclusive;

use mlua::{Error, Result, Value};

use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::world::shared::{WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};

/// The world's horizontal extent on x and y (player.md, Admission: |x|, |y| <= 6000).
pub const WORLD_HORIZONTAL: RangeInclusive<f32> = -WORLD_XY..=WORLD_XY;
/// The world's height (player.md, Admission: z in -200..=4000).
pub const WORLD_HEIGHT: RangeInclusive<f32> = WORLD_Z_MIN..=WORLD_Z_MAX;

pub fn type_name(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{n}"),
        Value::Integer(i) => format!("{i}"),
        Value::String(s) => format!("\"{}\"", s.to_string_lossy()),
        other => other.type_name().to_owned(),
    }
}

/// A number as a scripter wrote it: 1e300, not its 301 digits.
fn shown(n: f64) -> String {
    if n != 0.0 && !(1e-6..1e16).contains(&n.abs()) {
        format!("{n:e}")
    } else {
        format!("{n}")
    }
}

/// A finite number.
pub fn number(func: &str, arg: &str, v: &Value) -> Result<f64> {
    let n = match v {
        Value::Integer(i) => *i as f64,
        Value::Number(n) => *n,
        other => {
            return Err(Error::runtime(format!(
                "{func}: {arg} must be a number, got {}",
                type_name(other)
            )));
        }
    };
    if n.is_finite() {
        Ok(n)
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} must be finite, got {n}"
        )))
    }
}

/// A Lua number that goes on the wire as an f32, inside `range` (the page's bound for the
/// field): the one conversion every API uses for such a number. A Lua number is an f64, so
/// 1e300 is finite in Lua and infinite as an f32; checking the range on the f64 refuses it
/// (and NaN, inf) before the cast, and the range's ends being f32 values keeps the cast
/// inside it (ADR 0022).
pub fn f32_in(func: &str, arg: &str, v: &Value, range: RangeInclusive<f32>) -> Result<f32> {
    f32_within(func, arg, v, range, "")
}

/// [`f32_in`] for a world coordinate: "x 7000 is outside the world (-6000..=6000)".
fn world_coordinate(func: &str, arg: &str, v: &Value, range: RangeInclusive<f32>) -> Result<f32> {
    f32_within(func, arg, v, range, "the world ")
}

fn f32_within(
    func: &str,
    arg: &str,
    v: &Value,
    range: RangeInclusive<f32>,
    what: &str,
) -> Result<f32> {
    let n = number(func, arg, v)?;
    let (min, max) = (*range.start(), *range.end());
    if (f64::from(min)..=f64::from(max)).contains(&n) {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "within an f32 range, so the nearest f32 is inside it too"
        )]
        Ok((n as f32).clamp(min, max))
    } else if what.is_empty() {
        Err(Error::runtime(format!(
            "{func}: {arg} {} is outside {min}..={max}",
            shown(n)
        )))
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} {} is outside {what}({min}..={max})",
            shown(n)
        )))
    }
}

/// A Lua number that goes on the wire as an f32 with no bound of its own beyond
/// finiteness (a heading): finite as an f32, so at most ±3.4e38.
pub fn f32_finite(func: &str, arg: &str, v: &Value) -> Result<f32> {
    let n = number(func, arg, v)?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "checked finite after the cast"
    )]
    let f = n as f32;
    if f.is_finite() {
        Ok(f)
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} {} is not finite as a 32-bit float (|v| <= 3.4e38)",
            shown(n)
        )))
    }
}

/// A heading in degrees, as the API takes it (lua-api.md, spawn_player), in radians for the
/// wire (SpawnPlayer, RespawnPlayer, PlayerSpawned): finite as an f32.
pub fn heading_radians(func: &str, arg: &str, v: &Value) -> Result<f32> {
    let degrees = f64::from(f32_finite(func, arg, v)?);
    #[expect(
        clippy::cast_possible_truncation,
        reason = "|radians| < |degrees|, an f32"
    )]
    Ok(degrees.to_radians() as f32)
}

/// A point inside the world (player.md, Admission), from the three arguments named
/// `names`.
pub fn world_point(func: &str, names: [&str; 3], v: [&Value; 3]) -> Result<Vec3> {
    Ok(Vec3::new(
        world_coordinate(func, names[0], v[0], WORLD_HORIZONTAL)?,
        world_coordinate(func, names[1], v[1], WORLD_HORIZONTAL)?,
        world_coordinate(func, names[2], v[2], WORLD_HEIGHT)?,
    ))
}

/// A whole number in `range`.
pub fn integer(func: &str, arg: &str, v: &Value, range: RangeInclusive<i64>) -> Result<i64> {
    let n = number(func, arg, v)?;
    if n.fract() != 0.0 {
        return Err(Error::runtime(format!(
            "{func}: {arg} must be a whole number, got {n}"
        )));
    }
    let i = n as i64;
    if range.contains(&i) {
        Ok(i)
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} {i} is outside {}..={}",
            range.start(),
            range.end()
        )))
    }
}

/// An optional whole number in `range`, `default` when nil.
pub fn integer_or(
    func: &str,
    arg: &str,
    v: &Value,
    range: RangeInclusive<i64>,
    default: i64,
) -> Result<i64> {
    if v.is_nil() {
        Ok(default)
    } else {
        integer(func, arg, v, range)
    }
}

/// A boolean.
pub fn boolean(func: &str, arg: &str, v: &Value) -> Result<bool> {
    match v {
        Value::Boolean(b) => Ok(*b),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a boolean, got {}",
            type_name(other)
        ))),
    }
}

/// An optional boolean, `default` when nil.
pub fn boolean_or(func: &str, arg: &str, v: &Value, default: bool) -> Result<bool> {
    if v.is_nil() {
        Ok(default)
    } else {
        boolean(func, arg, v)
    }
}

/// A string.
pub fn string(func: &str, arg: &str, v: &Value) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.to_str()?.to_owned()),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a string, got {}",
            type_name(other)
        ))),
    }
}

/// An optional string, `default` when nil.
pub fn string_or(func: &str, arg: &str, v: &Value, default: &str) -> Result<String> {
    if v.is_nil() {
        Ok(default.to_owned())
    } else {
        string(func, arg, v)
    }
}

/// An optional table, `None` when nil.
pub fn table_or_nil(func: &str, arg: &str, v: &Value) -> Result<Option<mlua::Table>> {
    match v {
        Value::Nil => Ok(None),
        Value::Table(t) => Ok(Some(t.clone())),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a table, got {}",
            type_name(other)
        ))),
    }
}

/// A handle of type `H`, called `kind` in the error ("Player", "Vehicle").
pub fn handle<H: Copy + 'static>(func: &str, arg: &str, v: &Value, kind: &str) -> Result<H> {
    match v {
        Value::UserData(u) => match u.borrow::<H>() {
            Ok(h) => Ok(*h),
            Err(_) => Err(Error::runtime(format!("{func}: {arg} must be a {kind}"))),
        },
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a {kind}, got {}",
            type_name(other)
        ))),
    }
}

/// A function.
pub fn function(func: &str, arg: &str, v: Value) -> Result<mlua::Function> {
    match v {
        Value::Function(f) => Ok(f),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a function, got {}",
            type_name(&other)
        ))),
    }
}

/// A list of handles of type `H`, called `kind` in the error.
pub fn handles<H: Copy + 'static>(func: &str, arg: &str, v: &Value, kind: &str) -> Result<Vec<H>> {
    let Value::Table(t) = v else {
        return Err(Error::runtime(format!(
            "{func}: {arg} must be a list of {kind}, got {}",
            type_name(v)
        )));
    };
    t.sequence_values::<Value>()
        .map(|item| item.and_then(|item| handle(func, arg, &item, kind)))
        .collect()
}

/// Checks that `opts` has only `known` keys ("FUNC: unknown option KEY").
pub fn known_options(func: &str, opts: &mlua::Table, known: &[&str]) -> Result<()> {
    for pair in opts.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let name = match &key {
            Value::String(s) => s.to_str()?.to_owned(),
            other => format!("{other:?}"),
        };
        if !known.contains(&name.as_str()) {
            return Err(Error::runtime(format!(
                "{func}: unknown option {name} (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}
