//! The checks a world item passes whoever makes or changes it: a Lua call, a map file or a
//! Rust plugin writing a command (ADR 0090). A value the page forbids is a [`WorldError`]
//! returned to the caller by `check()` (or `checked()`), and a command that skipped the
//! check is refused where it is applied, logged and counted ([`WorldRefusals`]): never an
//! item that silently never shows, never a packet a client rejects.

use std::collections::BTreeMap;
use std::fmt;

use bevy_ecs::prelude::*;
use tracing::warn;

use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::world::shared::{WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};
use dlmp_protocol::{FieldError, Validate};

/// A value a world item may not have, named as the scripts' errors name it.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldError {
    /// `what` is `value`, outside `range` (or not a finite number).
    OutOfRange {
        what: &'static str,
        value: f64,
        range: &'static str,
    },
    /// The packet that would show it breaks a rule of its page: a client would reject it.
    Wire(FieldError),
    /// Anything else a page forbids, in words.
    Invalid(String),
}

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldError::OutOfRange { what, value, range } => {
                write!(f, "{what} {value} is outside {range}")
            }
            WorldError::Wire(e) => write!(f, "{}: {}", e.field, e.rule),
            WorldError::Invalid(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for WorldError {}

/// `value` for `what` within `ok`, else [`WorldError::OutOfRange`]; NaN and infinities
/// are never within.
pub fn range(
    what: &'static str,
    value: f32,
    ok: impl Fn(f32) -> bool,
    range: &'static str,
) -> Result<(), WorldError> {
    if value.is_finite() && ok(value) {
        Ok(())
    } else {
        Err(WorldError::OutOfRange {
            what,
            value: f64::from(value),
            range,
        })
    }
}

/// A point within world bounds (world.md: |x|, |y| ≤ 6000, z from −200 to 4000).
pub fn world_point(what: [&'static str; 3], p: Vec3) -> Result<(), WorldError> {
    let xy = |c: f32| c.abs() <= WORLD_XY;
    range(what[0], p.x, xy, "-6000..=6000")?;
    range(what[1], p.y, xy, "-6000..=6000")?;
    range(
        what[2],
        p.z,
        |z| (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&z),
        "-200..=4000",
    )
}

/// The packet that would show an item, by its page's own rules (the decoder's).
pub fn shows(packet: &impl Validate) -> Result<(), WorldError> {
    packet.validate().map_err(WorldError::Wire)
}

/// A 0xRRGGBB color.
pub fn rgb(what: &'static str, color: u32) -> Result<(), WorldError> {
    if color <= 0x00FF_FFFF {
        Ok(())
    } else {
        Err(WorldError::OutOfRange {
            what,
            value: f64::from(color),
            range: "0..=16777215",
        })
    }
}

/// Commands refused where they were applied because their creator skipped the check, by
/// kind (console `stats`).
#[derive(Resource, Debug, Default, Clone, PartialEq, Eq)]
pub struct WorldRefusals {
    pub by_kind: BTreeMap<&'static str, u64>,
}

impl WorldRefusals {
    /// Counts and logs a refused `kind` command.
    pub fn refuse(&mut self, kind: &'static str, command: &dyn fmt::Debug, error: &WorldError) {
        *self.by_kind.entry(kind).or_default() += 1;
        warn!("a {kind} command was refused: {error} ({command:?}); check it before writing it");
    }

    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }
}
