//! Checking the arguments of API calls, so that a bad one raises a Lua error naming the
//! function, the argument and the rule ("set_health: value 250 is outside 0..=200").

use core::ops::RangeInclusive;

use mlua::{Error, Result, Value};

use super::player::LuaPlayer;

fn type_name(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{n}"),
        Value::Integer(i) => format!("{i}"),
        Value::String(s) => format!("\"{}\"", s.to_string_lossy()),
        other => other.type_name().to_owned(),
    }
}

/// A finite number.
pub(crate) fn number(func: &str, arg: &str, v: &Value) -> Result<f64> {
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

/// A whole number in `range`.
pub(crate) fn integer(func: &str, arg: &str, v: &Value, range: RangeInclusive<i64>) -> Result<i64> {
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
pub(crate) fn integer_or(
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
pub(crate) fn boolean(func: &str, arg: &str, v: &Value) -> Result<bool> {
    match v {
        Value::Boolean(b) => Ok(*b),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a boolean, got {}",
            type_name(other)
        ))),
    }
}

/// An optional boolean, `default` when nil.
pub(crate) fn boolean_or(func: &str, arg: &str, v: &Value, default: bool) -> Result<bool> {
    if v.is_nil() {
        Ok(default)
    } else {
        boolean(func, arg, v)
    }
}

/// A string.
pub(crate) fn string(func: &str, arg: &str, v: &Value) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.to_str()?.to_owned()),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a string, got {}",
            type_name(other)
        ))),
    }
}

/// An optional string, `default` when nil.
pub(crate) fn string_or(func: &str, arg: &str, v: &Value, default: &str) -> Result<String> {
    if v.is_nil() {
        Ok(default.to_owned())
    } else {
        string(func, arg, v)
    }
}

/// An optional table, `None` when nil.
pub(crate) fn table_or_nil(func: &str, arg: &str, v: &Value) -> Result<Option<mlua::Table>> {
    match v {
        Value::Nil => Ok(None),
        Value::Table(t) => Ok(Some(t.clone())),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a table, got {}",
            type_name(other)
        ))),
    }
}

/// A Player handle.
pub(crate) fn player(func: &str, arg: &str, v: &Value) -> Result<LuaPlayer> {
    match v {
        Value::UserData(u) => match u.borrow::<LuaPlayer>() {
            Ok(p) => Ok(*p),
            Err(_) => Err(Error::runtime(format!("{func}: {arg} must be a Player"))),
        },
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a Player, got {}",
            type_name(other)
        ))),
    }
}

/// A function.
pub(crate) fn function(func: &str, arg: &str, v: Value) -> Result<mlua::Function> {
    match v {
        Value::Function(f) => Ok(f),
        other => Err(Error::runtime(format!(
            "{func}: {arg} must be a function, got {}",
            type_name(&other)
        ))),
    }
}

/// A list of Player handles.
pub(crate) fn players(func: &str, arg: &str, v: &Value) -> Result<Vec<LuaPlayer>> {
    let Value::Table(t) = v else {
        return Err(Error::runtime(format!(
            "{func}: {arg} must be a list of Player, got {}",
            type_name(v)
        )));
    };
    t.sequence_values::<Value>()
        .map(|item| item.and_then(|item| player(func, arg, &item)))
        .collect()
}
