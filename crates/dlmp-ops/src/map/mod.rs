//! Map files (issue 13, "Maps"; lua-api.md `dlmp.load_map`): the two formats this game's
//! server communities share maps in, read into plain data, and written back.
//!
//! - [`mta`]: the element XML of `.map` files (`<object>`, `<pickup>`, `<vehicle>`).
//! - [`pawn`]: the `CreateObject(...)` / `CreateDynamicObject(...)` / `AddStaticVehicle(...)`
//!   lines of exported scripts (`.pwn`, `.inc`, `.txt`).
//! - [`load`]: what `dlmp.load_map` checks and creates, all or nothing.
//! - [`script`]: the Lua function.
//!
//! Both formats rotate an object as Rz·Rx·Ry in degrees, as ObjectState (0x8A) does, so
//! rotations are taken unchanged; the conventions and the mapping of each format's fields
//! are in docs/decisions/0050-map-files.md. A parser checks the syntax and that every
//! number is finite and of its field's type; the world rules (model table, bounds) are
//! checked by [`load`] with the same rules as the matching `dlmp.create_*`.

pub mod load;
pub mod mta;
pub mod pawn;
pub mod script;
mod warnings;

use std::fmt;

use bevy_app::{App, Plugin};
use dlmp_script::ScriptApi;

use dlmp_protocol::geometry::Vec3;
use dlmp_vehicle::tuning::Plate;
use dlmp_world::pickup::Behavior;

pub use warnings::{MapWarning, Warnings};

/// Adds `dlmp.load_map` to the Lua API.
pub struct MapPlugin;

impl Plugin for MapPlugin {
    fn build(&self, app: &mut App) {
        app.world_mut()
            .get_resource_or_init::<ScriptApi>()
            .functions(|lua, dlmp, resource| script::install(lua, dlmp, resource.id));
    }
}

/// The most entries (objects, pickups and vehicles together) one map may hold; a map past
/// it is refused, so a runaway file cannot fill the world.
pub const MAX_ENTRIES: usize = 100_000;
/// The largest map file, bytes.
pub const MAX_FILE_BYTES: usize = 32 * 1024 * 1024;
/// The longest line of an exported script, bytes.
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// The respawn of a pickup a format does not give one (MTA's default, SA-MP's type 2), ms.
pub const DEFAULT_PICKUP_RESPAWN_MS: u32 = 30_000;

/// An entry of a map and the line (1-based) it starts on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct At<T> {
    pub line: usize,
    pub item: T,
}

/// An object of a map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapObject {
    pub model: u16,
    pub position: Vec3,
    /// Degrees, applied as Rz(rz) Rx(rx) Ry(ry) (world.md, ObjectState).
    pub rotation: Vec3,
    pub interior: u8,
    pub virtual_world: u32,
    /// The streamer's stream distance (CreateDynamicObject), m; `None`: the server's.
    pub stream_distance: Option<f32>,
}

/// A pickup of a map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapPickup {
    pub model: u32,
    pub position: Vec3,
    pub behavior: Behavior,
    /// After a collection, active again this much later, ms; `None`: gone once collected.
    pub respawn_ms: Option<u32>,
    pub interior: u8,
    pub virtual_world: u32,
}

/// A vehicle of a map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapVehicle {
    pub model: u16,
    pub position: Vec3,
    /// Degrees about the up axis, the game's heading.
    pub heading: f32,
    /// Palette colors; `None`: the game's choice (SA-MP's -1).
    pub colors: [Option<u8>; 2],
    pub interior: u8,
    pub virtual_world: u32,
    /// The paintjob (vehicles.md VehicleTuning); `None`: none (an editor's `paintjob="3"`).
    pub paintjob: Option<u8>,
    /// The number plate; `None`: the game's own.
    pub plate: Option<Plate>,
}

/// What a map file holds, in file order per kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MapFile {
    pub objects: Vec<At<MapObject>>,
    pub pickups: Vec<At<MapPickup>>,
    pub vehicles: Vec<At<MapVehicle>>,
}

impl MapFile {
    pub fn len(&self) -> usize {
        self.objects.len() + self.pickups.len() + self.vehicles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The two formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The element XML of `.map` files.
    Mta,
    /// The lines of an exported script.
    Pawn,
}

impl Format {
    /// The format a file name's extension says: `.map` is element XML; `.pwn`, `.inc` and
    /// `.txt` are exported script lines.
    pub fn of_path(path: &str) -> Option<Format> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "map" => Some(Format::Mta),
            "pwn" | "inc" | "txt" => Some(Format::Pawn),
            _ => None,
        }
    }

    /// Reads `text` in this format.
    pub fn parse(self, text: &str) -> Result<(MapFile, Warnings), MapError> {
        match self {
            Format::Mta => mta::parse(text),
            Format::Pawn => pawn::parse(text),
        }
    }

    /// Writes `map` in this format (what it can hold of it: see each writer).
    pub fn write(self, map: &MapFile) -> String {
        match self {
            Format::Mta => mta::write(map),
            Format::Pawn => pawn::write(map),
        }
    }
}

/// Why a map was refused: the line (1-based; 0 when the whole file is meant) and what is
/// wrong there. The file name is added by [`MapError::in_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapError {
    pub file: Option<String>,
    pub line: usize,
    pub message: String,
}

impl MapError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        MapError {
            file: None,
            line,
            message: message.into(),
        }
    }

    /// The same error, naming `file`.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(file.to_owned());
        self
    }
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.as_deref().unwrap_or("map");
        if self.line == 0 {
            write!(f, "{file}: {}", self.message)
        } else {
            write!(f, "{file} line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for MapError {}

/// The 1-based line of each byte offset of a text.
pub(crate) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { starts }
    }

    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }
}

/// A finite `f32` from a map's text, or why not.
pub(crate) fn finite(text: &str) -> Result<f32, String> {
    let t = text.trim();
    let starts_like_a_number = t
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    let value: f32 = if starts_like_a_number {
        t.parse().map_err(|_| format!("{t:?} is not a number"))?
    } else {
        return Err(format!("{t:?} is not a number"));
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("{t:?} is not a finite number"))
    }
}

/// Counts entries against [`MAX_ENTRIES`].
pub(crate) fn check_count(map: &MapFile, line: usize) -> Result<(), MapError> {
    if map.len() >= MAX_ENTRIES {
        Err(MapError::new(
            line,
            format!("more than {MAX_ENTRIES} entries in one map"),
        ))
    } else {
        Ok(())
    }
}

/// The virtual world of a format's field: -1 ("every world" in both communities) is the
/// default world 0 (ADR 0050).
pub(crate) fn world_of(value: i64) -> Result<u32, String> {
    match value {
        -1 => Ok(0),
        v => u32::try_from(v).map_err(|_| format!("world {v} is outside -1..=4294967295")),
    }
}

/// The interior of a format's field: -1 ("every interior") is 0, the outside.
pub(crate) fn interior_of(value: i64) -> Result<u8, String> {
    match value {
        -1 => Ok(0),
        v => u8::try_from(v).map_err(|_| format!("interior {v} is outside -1..=255")),
    }
}

/// An object model of a format's field: at most 19999 (world.md ObjectState).
pub(crate) fn object_model(value: i64) -> Result<u16, String> {
    use dlmp_protocol::world::object::OBJECT_MODEL_MAX;
    u16::try_from(value)
        .ok()
        .filter(|m| *m <= OBJECT_MODEL_MAX)
        .ok_or_else(|| format!("object model {value} is outside 0..={OBJECT_MODEL_MAX}"))
}

/// A vehicle model: 400..=611 (vehicles.md).
pub(crate) fn vehicle_model(value: i64) -> Result<u16, String> {
    u16::try_from(value)
        .ok()
        .filter(|m| (400..=611).contains(m))
        .ok_or_else(|| format!("vehicle model {value} is outside 400..=611"))
}

/// A vehicle color: -1 (the game's choice) or a palette index 0..=255.
pub(crate) fn vehicle_color(value: i64) -> Result<Option<u8>, String> {
    match value {
        -1 => Ok(None),
        v => u8::try_from(v)
            .map(Some)
            .map_err(|_| format!("color {v} is outside -1..=255")),
    }
}

#[cfg(test)]
mod tests;
