//! The lines of exported scripts (`.pwn`, `.inc`, `.txt`): the calls map editors write,
//! one statement a line, optionally assigned (`tmpobjid = CreateDynamicObject(...);`,
//! `new g = CreateObject(...);`), between comments, `#` directives, declarations, function
//! headers, braces and `return`. Read: `CreateObject`, `CreateDynamicObject`,
//! `AddStaticVehicle`, `AddStaticVehicleEx`, `CreateVehicle`, `CreatePickup`,
//! `AddStaticPickup`, `CreateDynamicPickup`, with positional or named (`.worldid = 1`)
//! arguments. Any other call (`SetDynamicObjectMaterial`, `RemoveBuildingForPlayer`, ...)
//! is skipped and counted in the [`Warnings`]. A line that is none of these, a bad
//! argument (not a finite number, an integer field given a fraction, out of its range,
//! too many or too few) is an error naming the line. Argument meanings: ADR 0050.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{
    At, DEFAULT_PICKUP_RESPAWN_MS, MAX_LINE_BYTES, MapError, MapFile, MapObject, MapPickup,
    MapVehicle, Warnings, check_count, interior_of, object_model, vehicle_color, vehicle_model,
    world_of,
};
use dlmp_protocol::geometry::Vec3;
use dlmp_world::pickup::Behavior;

/// Object-creating calls we do not read; refused rather than skipped, since skipping
/// would load a map without some of its objects.
const UNSUPPORTED: [&str; 2] = ["CreateDynamicObjectEx", "CreateDynamicPickupEx"];

/// The streamer's defaults, the constants exported maps name.
const CONSTANTS: [(&str, f64); 3] = [
    ("STREAMER_OBJECT_SD", 300.0),
    ("STREAMER_OBJECT_DD", 0.0),
    ("STREAMER_PICKUP_SD", 200.0),
];

#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Ident(&'a str),
    Number(&'a str),
    Str,
    Punct(char),
}

/// What a parse has read so far.
#[derive(Default)]
struct Parse {
    map: MapFile,
    warnings: Warnings,
    /// Names given a number (`new object_world = -1;`, `#define WORLD 3`), which later
    /// arguments may use, as the editors' exports do.
    names: HashMap<String, Value>,
}

/// Reads an exported script.
pub fn parse(text: &str) -> Result<(MapFile, Warnings), MapError> {
    let mut p = Parse::default();
    let mut comment_from: Option<usize> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        if raw.len() > MAX_LINE_BYTES {
            return Err(MapError::new(
                line,
                format!("the line is longer than {MAX_LINE_BYTES} bytes"),
            ));
        }
        let tokens = tokenize(raw, line, &mut comment_from).map_err(|m| MapError::new(line, m))?;
        statements(&tokens, line, &mut p)?;
    }
    if let Some(line) = comment_from {
        return Err(MapError::new(line, "a /* comment is never closed"));
    }
    Ok((p.map, p.warnings))
}

/// The tokens of one line; `comment_from` carries an open `/* */` comment over lines.
fn tokenize<'a>(
    raw: &'a str,
    line: usize,
    comment_from: &mut Option<usize>,
) -> Result<Vec<Token<'a>>, String> {
    let bytes = raw.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if comment_from.is_some() {
            match raw[i..].find("*/") {
                Some(end) => {
                    i += end + 2;
                    *comment_from = None;
                    continue;
                }
                None => break,
            }
        }
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        match c {
            b' ' | b'\t' | b'\r' | b'\x0C' => i += 1,
            b'/' if next == Some(b'/') => break,
            b'/' if next == Some(b'*') => {
                *comment_from = Some(line);
                i += 2;
            }
            // `#define NAME value` is read; any other directive is the rest of the line.
            b'#' if tokens.is_empty() => {
                if !raw[i + 1..].starts_with("define") {
                    break;
                }
                tokens.push(Token::Punct('#'));
                i += 1;
            }
            b'"' | b'\'' => {
                let mut j = i + 1;
                loop {
                    match bytes.get(j) {
                        None => return Err("a string is never closed".to_owned()),
                        Some(b'\\') => j += 2,
                        Some(q) if *q == c => break,
                        Some(_) => j += 1,
                    }
                }
                tokens.push(Token::Str);
                i = j + 1;
            }
            b'0'..=b'9' => {
                let start = i;
                i = number_end(bytes, i);
                tokens.push(Token::Number(&raw[start..i]));
            }
            b'.' if next.is_some_and(|n| n.is_ascii_digit()) => {
                let start = i;
                i = number_end(bytes, i);
                tokens.push(Token::Number(&raw[start..i]));
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'@' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'@')
                {
                    i += 1;
                }
                tokens.push(Token::Ident(&raw[start..i]));
            }
            c if c.is_ascii() => {
                tokens.push(Token::Punct(char::from(c)));
                i += 1;
            }
            _ => {
                let ch = raw[i..].chars().next().unwrap_or('?');
                tokens.push(Token::Punct(ch));
                i += ch.len_utf8();
            }
        }
    }
    Ok(tokens)
}

/// Where a number literal starting at `i` ends: digits, letters (hex, exponent), `.` and
/// `_`, and the sign of a decimal exponent.
fn number_end(bytes: &[u8], mut i: usize) -> usize {
    let hex = bytes.get(i) == Some(&b'0') && matches!(bytes.get(i + 1), Some(b'x' | b'X'));
    while let Some(&b) = bytes.get(i) {
        let sign_of_exponent =
            !hex && matches!(b, b'+' | b'-') && i > 0 && matches!(bytes[i - 1], b'e' | b'E');
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || sign_of_exponent {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// The `;`-separated statements of one line.
fn statements(tokens: &[Token<'_>], line: usize, p: &mut Parse) -> Result<(), MapError> {
    if let [
        Token::Punct('#'),
        Token::Ident("define"),
        Token::Ident(name),
        value @ ..,
    ] = tokens
    {
        if let Ok(v) = self::value(value, &p.names) {
            p.names.insert((*name).to_owned(), v);
        }
        return Ok(());
    }
    let mut start = 0;
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match t {
            Token::Punct('(') => depth += 1,
            Token::Punct(')') => depth -= 1,
            Token::Punct(';') if depth == 0 => {
                statement(&tokens[start..i], line, p)?;
                start = i + 1;
            }
            _ => {}
        }
    }
    statement(&tokens[start..], line, p)
}

/// Splits `s` at the commas outside parentheses and brackets.
fn split_top<'s, 'a>(s: &'s [Token<'a>]) -> Vec<&'s [Token<'a>]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, t) in s.iter().enumerate() {
        match t {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => depth -= 1,
            Token::Punct(',') if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// `new a, b = 2, c[10], d = CreateObject(...)`: numbers are remembered, calls read.
fn declaration(decls: &[Token<'_>], line: usize, p: &mut Parse) -> Result<(), MapError> {
    for decl in split_top(decls) {
        match strip_tag(decl) {
            [Token::Ident(_)] | [Token::Ident(_), Token::Punct('['), ..] => {}
            [Token::Ident(name), Token::Punct('='), init @ ..] => {
                if let [Token::Ident(_), Token::Punct('('), ..] = init {
                    statement(init, line, p)?;
                } else if let Ok(v) = value(init, &p.names) {
                    p.names.insert((*name).to_owned(), v);
                }
                // Another initializer (a string, an expression) is not evaluated; an
                // argument naming the variable is an error then.
            }
            other => {
                return Err(MapError::new(
                    line,
                    format!("expected a declaration, found `{}`", shown(other)),
                ));
            }
        }
    }
    Ok(())
}

fn statement(mut s: &[Token<'_>], line: usize, p: &mut Parse) -> Result<(), MapError> {
    let err = |m: String| MapError::new(line, m);
    while let [Token::Punct('{' | '}'), rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., Token::Punct('{' | '}')] = s {
        s = rest;
    }
    match s {
        [] => return Ok(()),
        // Function headers and forward declarations, `return 1`.
        [
            Token::Ident("public" | "stock" | "forward" | "return" | "main"),
            ..,
        ] => return Ok(()),
        [Token::Ident("new" | "static"), rest @ ..] => return declaration(rest, line, p),
        _ => {}
    }
    // An assignment to a variable or an array element.
    if let [Token::Ident(_), rest @ ..] = s {
        let mut rest = rest;
        if let [Token::Punct('['), ..] = rest {
            let close = rest
                .iter()
                .position(|t| *t == Token::Punct(']'))
                .ok_or_else(|| err("a [ is never closed".to_owned()))?;
            rest = &rest[close + 1..];
        }
        if let [Token::Punct('='), value @ ..] = rest {
            // A number assigned: remembered when the target is a plain name.
            if let Ok(v) = self::value(value, &p.names) {
                if let [Token::Ident(name), Token::Punct('='), ..] = s {
                    p.names.insert((*name).to_owned(), v);
                }
                return Ok(());
            }
            s = value;
        }
    }
    let opened = s.iter().filter(|t| **t == Token::Punct('(')).count();
    let closed = s.iter().filter(|t| **t == Token::Punct(')')).count();
    if opened > closed {
        return Err(err(format!(
            "a ( is never closed (a call on one line ends with `);`): `{}`",
            shown(s)
        )));
    }
    let [
        Token::Ident(name),
        Token::Punct('('),
        inner @ ..,
        Token::Punct(')'),
    ] = s
    else {
        return Err(err(format!(
            "expected a call such as CreateObject(...); found `{}`",
            shown(s)
        )));
    };
    let args = split_args(inner).map_err(err)?;
    let known = |n: &str| name.eq_ignore_ascii_case(n);
    if UNSUPPORTED.iter().any(|u| known(u)) {
        return Err(err(format!(
            "{name} is not supported (use CreateDynamicObject / CreateDynamicPickup)"
        )));
    }
    let reads = known("CreateObject")
        || known("CreateDynamicObject")
        || known("AddStaticVehicle")
        || known("AddStaticVehicleEx")
        || known("CreateVehicle")
        || known("CreatePickup")
        || known("AddStaticPickup")
        || known("CreateDynamicPickup");
    if !reads {
        let why = if known("RemoveBuildingForPlayer") {
            ": the protocol cannot remove the game's own buildings"
        } else if name.to_ascii_lowercase().contains("material") {
            ": objects carry no materials on the wire"
        } else {
            ""
        };
        p.warnings
            .add(format!("call {name}(...) skipped{why}"), line);
        return Ok(());
    }
    check_count(&p.map, line)?;
    let call_err = |m: String| MapError::new(line, format!("{name}: {m}"));
    if known("CreateObject") {
        let a = Args::bind(&CREATE_OBJECT, 7, &args, &p.names).map_err(call_err)?;
        let item = object(&a, false).map_err(call_err)?;
        p.map.objects.push(At { line, item });
    } else if known("CreateDynamicObject") {
        let a = Args::bind(&CREATE_DYNAMIC_OBJECT, 7, &args, &p.names).map_err(call_err)?;
        let item = object(&a, true).map_err(call_err)?;
        p.map.objects.push(At { line, item });
    } else if known("AddStaticVehicle") {
        let a = Args::bind(&ADD_STATIC_VEHICLE, 7, &args, &p.names).map_err(call_err)?;
        p.map.vehicles.push(At {
            line,
            item: vehicle(&a).map_err(call_err)?,
        });
    } else if known("AddStaticVehicleEx") || known("CreateVehicle") {
        let a = Args::bind(&CREATE_VEHICLE, 8, &args, &p.names).map_err(call_err)?;
        p.map.vehicles.push(At {
            line,
            item: vehicle(&a).map_err(call_err)?,
        });
    } else if known("CreateDynamicPickup") {
        let a = Args::bind(&CREATE_DYNAMIC_PICKUP, 5, &args, &p.names).map_err(call_err)?;
        p.map.pickups.push(At {
            line,
            item: pickup(&a, true).map_err(call_err)?,
        });
    } else {
        let a = Args::bind(&CREATE_PICKUP, 5, &args, &p.names).map_err(call_err)?;
        p.map.pickups.push(At {
            line,
            item: pickup(&a, false).map_err(call_err)?,
        });
    }
    Ok(())
}

/// A tag prefix (`Float:`, `STREAMER_TAG_AREA:`) off the front.
fn strip_tag<'s, 'a>(s: &'s [Token<'a>]) -> &'s [Token<'a>] {
    match s {
        [Token::Ident(_), Token::Punct(':'), rest @ ..] => rest,
        _ => s,
    }
}

/// The statement as a short text for an error.
fn shown(s: &[Token<'_>]) -> String {
    let mut out = String::new();
    for t in s.iter().take(12) {
        match t {
            Token::Ident(x) | Token::Number(x) => out.push_str(x),
            Token::Str => out.push_str("\"...\""),
            Token::Punct(c) => out.push(*c),
        }
        out.push(' ');
    }
    if s.len() > 12 {
        out.push_str("...");
    }
    out.trim_end().to_owned()
}

/// One argument: its name when given as `.name = value`, and its tokens.
type Arg<'s, 'a> = (Option<&'a str>, &'s [Token<'a>]);

fn split_args<'s, 'a>(inner: &'s [Token<'a>]) -> Result<Vec<Arg<'s, 'a>>, String> {
    if inner.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for i in 0..=inner.len() {
        let at_end = i == inner.len();
        match inner.get(i) {
            Some(Token::Punct('(' | '[' | '{')) => depth += 1,
            Some(Token::Punct(')' | ']' | '}')) => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return Err("unbalanced parentheses".to_owned());
        }
        if at_end || (depth == 0 && inner.get(i) == Some(&Token::Punct(','))) {
            let arg = &inner[start..i];
            let named = match arg {
                [
                    Token::Punct('.'),
                    Token::Ident(n),
                    Token::Punct('='),
                    value @ ..,
                ] => (Some(*n), value),
                value => (None, value),
            };
            if named.1.is_empty() {
                return Err(format!("argument {} is empty", args.len() + 1));
            }
            args.push(named);
            start = i + 1;
        }
    }
    if depth != 0 {
        return Err("unbalanced parentheses".to_owned());
    }
    Ok(args)
}

/// A literal number's value, and whether it was written as a whole number.
#[derive(Debug, Clone, Copy)]
struct Value {
    number: f64,
    /// The literal read as an `f32` directly (no rounding through `f64`).
    single: f32,
    whole: bool,
}

fn value(tokens: &[Token<'_>], names: &HashMap<String, Value>) -> Result<Value, String> {
    let mut tokens = strip_tag(tokens);
    let mut negative = false;
    while let [Token::Punct(sign @ ('-' | '+')), rest @ ..] = tokens {
        negative ^= *sign == '-';
        tokens = rest;
    }
    let v = match tokens {
        [Token::Number(n)] => literal(n)?,
        [Token::Ident("true")] => whole(1),
        [Token::Ident("false")] => whole(0),
        [Token::Ident(name)] => names
            .get(*name)
            .copied()
            .or_else(|| {
                CONSTANTS
                    .iter()
                    .find(|(c, _)| c == name)
                    .map(|(_, v)| Value {
                        number: *v,
                        single: *v as f32,
                        whole: false,
                    })
            })
            .ok_or_else(|| format!("{name} is not a number or a known constant"))?,
        other => return Err(format!("`{}` is not a number", shown(other))),
    };
    Ok(if negative {
        Value {
            number: -v.number,
            single: -v.single,
            whole: v.whole,
        }
    } else {
        v
    })
}

fn whole(v: i64) -> Value {
    Value {
        number: v as f64,
        single: v as f32,
        whole: true,
    }
}

fn literal(n: &str) -> Result<Value, String> {
    let clean: String = n.chars().filter(|c| *c != '_').collect();
    let radix = |digits: &str, radix: u32| {
        i64::from_str_radix(digits, radix)
            .map(whole)
            .map_err(|_| format!("{n} is not a number in range"))
    };
    if let Some(hex) = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        return radix(hex, 16);
    }
    if let Some(bin) = clean.strip_prefix("0b") {
        return radix(bin, 2);
    }
    if clean.bytes().all(|b| b.is_ascii_digit()) {
        return radix(&clean, 10);
    }
    let not_a_number = || format!("{n} is not a number");
    let number: f64 = clean.parse().map_err(|_| not_a_number())?;
    let single: f32 = clean.parse().map_err(|_| not_a_number())?;
    if !number.is_finite() || !single.is_finite() {
        return Err(format!("{n} is not a finite number"));
    }
    Ok(Value {
        number,
        single,
        whole: false,
    })
}

/// A call's arguments bound to its parameters by position or by name.
struct Args<'s, 'a, 'n> {
    names: &'static [&'static str],
    values: Vec<Option<&'s [Token<'a>]>>,
    /// The script's named numbers.
    known: &'n HashMap<String, Value>,
}

impl<'s, 'a, 'n> Args<'s, 'a, 'n> {
    fn bind(
        names: &'static [&'static str],
        required: usize,
        args: &[Arg<'s, 'a>],
        known: &'n HashMap<String, Value>,
    ) -> Result<Self, String> {
        let mut values = vec![None; names.len()];
        let mut named_seen = false;
        for (i, (name, tokens)) in args.iter().enumerate() {
            let slot = match name {
                Some(n) => {
                    named_seen = true;
                    names
                        .iter()
                        .position(|p| p.eq_ignore_ascii_case(n))
                        .ok_or_else(|| format!("no parameter named {n}"))?
                }
                None if named_seen => {
                    return Err("a positional argument after a named one".to_owned());
                }
                None if i >= names.len() => {
                    return Err(format!(
                        "{} arguments, at most {} expected",
                        args.len(),
                        names.len()
                    ));
                }
                None => i,
            };
            if values[slot].replace(*tokens).is_some() {
                return Err(format!("{} is given twice", names[slot]));
            }
        }
        if let Some(missing) = values.iter().take(required).position(Option::is_none) {
            return Err(format!(
                "{} is missing ({required} arguments required)",
                names[missing]
            ));
        }
        Ok(Args {
            names,
            values,
            known,
        })
    }

    fn raw(&self, i: usize) -> Result<Option<Value>, String> {
        match self.values.get(i).copied().flatten() {
            None => Ok(None),
            Some(tokens) => value(tokens, self.known)
                .map(Some)
                .map_err(|e| format!("{}: {e}", self.names[i])),
        }
    }

    fn float(&self, i: usize) -> Result<f32, String> {
        Ok(self.float_or(i)?.unwrap_or(0.0))
    }

    fn float_or(&self, i: usize) -> Result<Option<f32>, String> {
        Ok(self.raw(i)?.map(|v| v.single))
    }

    fn integer(&self, i: usize, default: i64) -> Result<i64, String> {
        match self.raw(i)? {
            None => Ok(default),
            Some(v) if v.whole && v.number.abs() <= 9.0e15 => Ok(v.number as i64),
            Some(v) => Err(format!(
                "{}: {} is not a whole number",
                self.names[i], v.number
            )),
        }
    }

    fn position(&self, from: usize) -> Result<Vec3, String> {
        Ok(Vec3::new(
            self.float(from)?,
            self.float(from + 1)?,
            self.float(from + 2)?,
        ))
    }

    fn named(
        &self,
        i: usize,
        check: impl FnOnce(i64) -> Result<i64, String>,
    ) -> Result<i64, String> {
        check(self.integer(i, -1)?).map_err(|e| format!("{}: {e}", self.names[i]))
    }
}

const CREATE_OBJECT: [&str; 8] = ["modelid", "x", "y", "z", "rx", "ry", "rz", "drawdistance"];
const CREATE_DYNAMIC_OBJECT: [&str; 14] = [
    "modelid",
    "x",
    "y",
    "z",
    "rx",
    "ry",
    "rz",
    "worldid",
    "interiorid",
    "playerid",
    "streamdistance",
    "drawdistance",
    "areaid",
    "priority",
];
const ADD_STATIC_VEHICLE: [&str; 7] = [
    "modelid", "spawn_x", "spawn_y", "spawn_z", "z_angle", "color1", "color2",
];
const CREATE_VEHICLE: [&str; 9] = [
    "modelid",
    "spawn_x",
    "spawn_y",
    "spawn_z",
    "z_angle",
    "color1",
    "color2",
    "respawn_delay",
    "addsiren",
];
const CREATE_PICKUP: [&str; 6] = ["model", "type", "x", "y", "z", "virtualworld"];
const CREATE_DYNAMIC_PICKUP: [&str; 11] = [
    "modelid",
    "type",
    "x",
    "y",
    "z",
    "worldid",
    "interiorid",
    "playerid",
    "streamdistance",
    "areaid",
    "priority",
];

/// Only -1 (everyone): a map is for every player.
fn everyone(v: i64) -> Result<i64, String> {
    if v == -1 {
        Ok(v)
    } else {
        Err(format!("{v}: a map object is for every player (-1)"))
    }
}

fn object(a: &Args<'_, '_, '_>, dynamic: bool) -> Result<MapObject, String> {
    let model = object_model(a.integer(0, 0)?)?;
    let position = a.position(1)?;
    let rotation = a.position(4)?;
    let (virtual_world, interior, stream_distance) = if dynamic {
        a.named(9, everyone)?;
        let stream = a.float_or(10)?;
        if let Some(d) = stream
            && d <= 0.0
        {
            return Err(format!("streamdistance: {d} is not above 0"));
        }
        (
            world_of(a.integer(7, -1)?)?,
            interior_of(a.integer(8, -1)?)?,
            stream,
        )
    } else {
        a.float_or(7)?;
        (0, 0, None)
    };
    Ok(MapObject {
        model,
        position,
        rotation,
        interior,
        virtual_world,
        stream_distance,
    })
}

fn vehicle(a: &Args<'_, '_, '_>) -> Result<MapVehicle, String> {
    let model = vehicle_model(a.integer(0, 0)?)?;
    let position = a.position(1)?;
    let heading = a.float(4)?;
    let colors = [
        vehicle_color(a.integer(5, -1)?).map_err(|e| format!("color1: {e}"))?,
        vehicle_color(a.integer(6, -1)?).map_err(|e| format!("color2: {e}"))?,
    ];
    // respawn_delay and addsiren are read for their type; the server's vehicles have no
    // per-vehicle respawn delay (ADR 0050).
    for i in 7..a.values.len() {
        a.integer(i, 0)?;
    }
    Ok(MapVehicle {
        model,
        position,
        heading,
        colors,
        interior: 0,
        virtual_world: 0,
        paintjob: None,
        plate: None,
    })
}

/// A SA-MP pickup type as a behavior and a respawn: 1 and 23 stay (static); 8 and 19 go
/// once collected; any other goes and comes back after 30 s (ADR 0050).
fn behavior_of(kind: i64) -> Result<(Behavior, Option<u32>), String> {
    match kind {
        1 | 23 => Ok((Behavior::Static, None)),
        8 | 19 => Ok((Behavior::Collectible, None)),
        k if (0..=i64::from(u8::MAX)).contains(&k) => {
            Ok((Behavior::Collectible, Some(DEFAULT_PICKUP_RESPAWN_MS)))
        }
        k => Err(format!("type: {k} is outside 0..=255")),
    }
}

fn pickup(a: &Args<'_, '_, '_>, dynamic: bool) -> Result<MapPickup, String> {
    let model = u32::try_from(a.integer(0, 0)?)
        .map_err(|_| format!("{}: a pickup model is not negative", a.names[0]))?;
    let (behavior, respawn_ms) = behavior_of(a.integer(1, 0)?)?;
    let position = a.position(2)?;
    let (virtual_world, interior) = if dynamic {
        a.named(7, everyone)?;
        if let Some(d) = a.float_or(8)?
            && d <= 0.0
        {
            return Err(format!("streamdistance: {d} is not above 0"));
        }
        (
            world_of(a.integer(5, -1)?)?,
            interior_of(a.integer(6, -1)?)?,
        )
    } else {
        (world_of(a.integer(5, 0)?)?, 0)
    };
    Ok(MapPickup {
        model,
        position,
        behavior,
        respawn_ms,
        interior,
        virtual_world,
    })
}

/// The type written for a pickup: 1 (static), 19 (gone once collected) or 2 (back after
/// 30 s, whatever its respawn).
fn type_of(p: &MapPickup) -> u8 {
    match (p.behavior, p.respawn_ms) {
        (Behavior::Static, _) => 1,
        (Behavior::Collectible, None) => 19,
        (Behavior::Collectible, Some(_)) => 2,
    }
}

/// Writes `map` as script lines: objects and pickups with the streamer's calls (they hold
/// the world and interior), vehicles with `AddStaticVehicle` (world 0, outside; a color
/// the game chooses is -1). A pickup's respawn is what its type says (see `type_of`).
pub fn write(map: &MapFile) -> String {
    let mut out = String::from("// written by dlmp\n");
    for At { item: o, .. } in &map.objects {
        let p = o.position;
        let r = o.rotation;
        let _ = write!(
            out,
            "CreateDynamicObject({}, {}, {}, {}, {}, {}, {}, {}, {}, -1",
            o.model,
            float(p.x),
            float(p.y),
            float(p.z),
            float(r.x),
            float(r.y),
            float(r.z),
            o.virtual_world,
            o.interior
        );
        if let Some(d) = o.stream_distance {
            let _ = write!(out, ", {}", float(d));
        }
        out.push_str(");\n");
    }
    for At { item: p, .. } in &map.pickups {
        let _ = writeln!(
            out,
            "CreateDynamicPickup({}, {}, {}, {}, {}, {}, {});",
            p.model,
            type_of(p),
            float(p.position.x),
            float(p.position.y),
            float(p.position.z),
            p.virtual_world,
            p.interior
        );
    }
    for At { item: v, .. } in &map.vehicles {
        let color = |c: Option<u8>| c.map_or(-1, i16::from);
        let _ = writeln!(
            out,
            "AddStaticVehicle({}, {}, {}, {}, {}, {}, {});",
            v.model,
            float(v.position.x),
            float(v.position.y),
            float(v.position.z),
            float(v.heading),
            color(v.colors[0]),
            color(v.colors[1])
        );
    }
    out
}

/// A float literal as Pawn writes one (always with a point).
fn float(v: f32) -> String {
    let s = v.to_string();
    if s.contains('.') { s } else { format!("{s}.0") }
}
