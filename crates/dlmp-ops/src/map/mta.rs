//! The element XML of `.map` files: `<object>`, `<pickup>` and `<vehicle>` elements with
//! their position and rotation attributes, anywhere below the root (`<map>`). Unknown
//! elements and attributes are skipped and counted in the [`Warnings`]; a file that is not
//! well-formed XML (an unterminated element, a mismatched end tag, a duplicated attribute),
//! a missing required attribute or a value that is not a finite number of its field's type
//! is an error naming the line. Fields and defaults: ADR 0050.

use std::fmt::Write as _;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{
    At, DEFAULT_PICKUP_RESPAWN_MS, Lines, MapError, MapFile, MapObject, MapPickup, MapVehicle,
    Warnings, check_count, finite, interior_of, object_model, vehicle_color, vehicle_model,
    world_of,
};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::vehicle::tuning::MAX_PAINTJOB;
use dlmp_vehicle::tuning::Plate;
use dlmp_world::pickup::Behavior;
use dlmp_world::pickup::models::weapon_model;

/// The models MTA gives its `health` and `armor` pickups.
pub const HEALTH_MODEL: u32 = 1240;
pub const ARMOR_MODEL: u32 = 1242;

/// Reads a `.map` file.
pub fn parse(text: &str) -> Result<(MapFile, Warnings), MapError> {
    let lines = Lines::new(text);
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut map = MapFile::default();
    let mut warnings = Warnings::default();
    // The elements open at this point and the line each started on.
    let mut open: Vec<(String, usize)> = Vec::new();
    loop {
        let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                return Err(MapError::new(
                    lines.line_of(at),
                    format!("not well-formed XML: {e}"),
                ));
            }
        };
        let line = lines.line_of(at);
        match event {
            Event::Start(e) => {
                element(&e, line, open.is_empty(), &mut map, &mut warnings)?;
                open.push((e.name().0.to_owned(), line));
            }
            Event::Empty(e) => element(&e, line, open.is_empty(), &mut map, &mut warnings)?,
            Event::End(_) => {
                open.pop();
            }
            Event::Text(t) => {
                if !t.xml10_content().trim().is_empty() {
                    warnings.add("text between elements skipped".to_owned(), line);
                }
            }
            Event::CData(_) | Event::GeneralRef(_) => {
                warnings.add("text between elements skipped".to_owned(), line);
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            Event::Eof => break,
        }
    }
    if let Some((name, line)) = open.last() {
        return Err(MapError::new(
            *line,
            format!("<{name}> is never closed (the file ends inside it)"),
        ));
    }
    Ok((map, warnings))
}

/// One element: an entry of the map, the root, or something skipped.
fn element(
    e: &BytesStart<'_>,
    line: usize,
    root: bool,
    map: &mut MapFile,
    warnings: &mut Warnings,
) -> Result<(), MapError> {
    let name = e.name().0;
    let err = |m: String| MapError::new(line, format!("<{name}>: {m}"));
    match name {
        "object" | "pickup" | "vehicle" => {
            check_count(map, line)?;
            let mut attrs = Attrs::read(e).map_err(err)?;
            match name {
                "object" => {
                    let item = object(&mut attrs).map_err(err)?;
                    map.objects.push(At { line, item });
                }
                "pickup" => {
                    let item = pickup(&mut attrs).map_err(err)?;
                    map.pickups.push(At { line, item });
                }
                _ => {
                    let item = vehicle(&mut attrs, warnings, line).map_err(err)?;
                    map.vehicles.push(At { line, item });
                }
            }
            attrs.warn_unused(name, warnings, line);
        }
        // The root's attributes are the editor's (edf:definitions).
        "map" if root => {}
        other => warnings.add(format!("element <{other}> skipped"), line),
    }
    Ok(())
}

/// The attributes of an element, each marked once read.
struct Attrs {
    list: Vec<(String, String, bool)>,
}

impl Attrs {
    fn read(e: &BytesStart<'_>) -> Result<Attrs, String> {
        let mut list = Vec::new();
        let mut attributes = e.attributes();
        attributes.with_checks(true);
        for a in attributes {
            let a = a.map_err(|e| format!("bad attribute: {e}"))?;
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| format!("attribute {}: {e}", a.key.0))?;
            list.push((a.key.0.to_owned(), value.into_owned(), false));
        }
        Ok(Attrs { list })
    }

    fn get(&mut self, name: &str) -> Option<String> {
        let (_, value, used) = self.list.iter_mut().find(|(k, _, _)| k == name)?;
        *used = true;
        Some(value.clone())
    }

    fn required(&mut self, name: &str) -> Result<String, String> {
        self.get(name)
            .ok_or_else(|| format!("the attribute {name} is missing"))
    }

    fn float(&mut self, name: &str, default: Option<f32>) -> Result<f32, String> {
        match (self.get(name), default) {
            (Some(v), _) => finite(&v).map_err(|e| format!("{name}: {e}")),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("the attribute {name} is missing")),
        }
    }

    fn integer(&mut self, name: &str, default: Option<i64>) -> Result<i64, String> {
        match (self.get(name), default) {
            (Some(v), _) => integer(&v).map_err(|e| format!("{name}: {e}")),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("the attribute {name} is missing")),
        }
    }

    fn position(&mut self) -> Result<Vec3, String> {
        Ok(Vec3::new(
            self.float("posX", None)?,
            self.float("posY", None)?,
            self.float("posZ", None)?,
        ))
    }

    fn scope(&mut self) -> Result<(u8, u32), String> {
        let interior = interior_of(self.integer("interior", Some(0))?)?;
        let world = world_of(self.integer("dimension", Some(0))?)?;
        Ok((interior, world))
    }

    /// Counts every attribute nothing read (`id`, the editor's name, is expected); those
    /// of [`NO_FIELD`] apart, as unsupported.
    fn warn_unused(&self, element: &str, warnings: &mut Warnings, line: usize) {
        for (key, _, used) in &self.list {
            if *used || key == "id" {
                continue;
            }
            let what = format!("attribute {key} of <{element}> skipped");
            if NO_FIELD.contains(&(element, key.as_str())) {
                warnings.add_unsupported(what, line);
            } else {
                warnings.add(what, line);
            }
        }
    }
}

/// The attributes map editors write that the protocol has no field for (ObjectState has
/// no transparency, scale, collision or culling switch; VehicleSync no transparency).
const NO_FIELD: &[(&str, &str)] = &[
    ("object", "alpha"),
    ("object", "scale"),
    ("object", "collisions"),
    ("object", "doublesided"),
    ("object", "breakable"),
    ("object", "frozen"),
    ("vehicle", "alpha"),
    ("vehicle", "frozen"),
];

/// An editor's "no paintjob" (MTA's `getVehiclePaintjob` answers 3 without one).
const NO_PAINTJOB: i64 = 3;

/// A decimal integer.
fn integer(text: &str) -> Result<i64, String> {
    let t = text.trim();
    t.parse()
        .map_err(|_| format!("{t:?} is not an integer in range"))
}

fn object(a: &mut Attrs) -> Result<MapObject, String> {
    let model = object_model(a.integer("model", None)?)?;
    let position = a.position()?;
    let rotation = Vec3::new(
        a.float("rotX", Some(0.0))?,
        a.float("rotY", Some(0.0))?,
        a.float("rotZ", Some(0.0))?,
    );
    let (interior, virtual_world) = a.scope()?;
    Ok(MapObject {
        model,
        position,
        rotation,
        interior,
        virtual_world,
        stream_distance: None,
    })
}

/// `type` is `health`, `armor`, `custom` (with `model`) or a weapon id; `amount` (the
/// hit points or the ammo) is the gamemode's business (ADR 0019) and not kept.
fn pickup(a: &mut Attrs) -> Result<MapPickup, String> {
    let position = a.position()?;
    let kind = a.required("type")?;
    let model = match kind.trim() {
        "health" => HEALTH_MODEL,
        "armor" => ARMOR_MODEL,
        "custom" => u32::try_from(a.integer("model", None)?)
            .map_err(|_| "model: a pickup model is not negative".to_owned())?,
        weapon => {
            let id = integer(weapon).map_err(|_| {
                format!("type {weapon:?} is neither health, armor, custom nor a weapon id")
            })?;
            u8::try_from(id)
                .ok()
                .and_then(weapon_model)
                .ok_or_else(|| format!("type {id}: no weapon has that id"))?
        }
    };
    a.get("amount");
    let respawn = a.integer("respawn", Some(i64::from(DEFAULT_PICKUP_RESPAWN_MS)))?;
    let respawn = u32::try_from(respawn)
        .map_err(|_| format!("respawn: {respawn} is outside 0..=4294967295 ms"))?;
    let (interior, virtual_world) = a.scope()?;
    Ok(MapPickup {
        model,
        position,
        behavior: Behavior::Collectible,
        respawn_ms: Some(respawn),
        interior,
        virtual_world,
    })
}

/// `rotZ` is the heading; a tilt (`rotX`, `rotY`) is dropped with a warning, since a
/// vehicle is created upright (vehicles.md VehicleSync).
fn vehicle(a: &mut Attrs, warnings: &mut Warnings, line: usize) -> Result<MapVehicle, String> {
    let model = vehicle_model(a.integer("model", None)?)?;
    let position = a.position()?;
    let tilt = [a.float("rotX", Some(0.0))?, a.float("rotY", Some(0.0))?];
    if tilt.iter().any(|r| *r != 0.0) {
        warnings.add(
            "the tilt (rotX, rotY) of a <vehicle> dropped: vehicles are created upright".to_owned(),
            line,
        );
    }
    let heading = a.float("rotZ", Some(0.0))?;
    let colors = match a.get("color") {
        None => [None, None],
        Some(list) => colors(&list, warnings, line)?,
    };
    let (interior, virtual_world) = a.scope()?;
    let paintjob = match a.integer("paintjob", Some(NO_PAINTJOB))? {
        NO_PAINTJOB => None,
        n => Some(
            u8::try_from(n)
                .ok()
                .filter(|n| *n <= MAX_PAINTJOB)
                .ok_or_else(|| {
                    format!("paintjob: {n} is outside 0..={MAX_PAINTJOB} (3 is none)")
                })?,
        ),
    };
    let plate = match a.get("plate") {
        Some(text) if !text.trim().is_empty() => {
            Some(Plate::parse(text.trim()).map_err(|e| format!("plate: {e}"))?)
        }
        _ => None,
    };
    Ok(MapVehicle {
        model,
        position,
        heading,
        colors,
        interior,
        virtual_world,
        paintjob,
        plate,
    })
}

/// `color="c1,c2[,c3,c4]"` is palette indices; the RGB form of newer editors (six or more
/// values) has no palette index and is dropped with a warning.
fn colors(list: &str, warnings: &mut Warnings, line: usize) -> Result<[Option<u8>; 2], String> {
    let values = list
        .split(',')
        .map(|v| integer(v).map_err(|e| format!("color: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    match values.len() {
        1..=4 => Ok([
            vehicle_color(values[0])?,
            values.get(1).map_or(Ok(None), |c| vehicle_color(*c))?,
        ]),
        6.. if values.iter().all(|v| (0..=255).contains(v)) => {
            warnings.add(
                "RGB colors of a <vehicle> dropped: colors are palette indices".to_owned(),
                line,
            );
            Ok([None, None])
        }
        _ => Err(format!(
            "color {list:?} is neither 1..=4 palette indices nor RGB values"
        )),
    }
}

/// Writes `map` as a `.map` file. What the format cannot hold is left out: an object's
/// stream distance, a pickup's static behavior (MTA pickups are collectible) and a
/// respawn of `None` (written as MTA's default), a vehicle's single color.
pub fn write(map: &MapFile) -> String {
    let mut out = String::from("<map>\n");
    for At { item: o, .. } in &map.objects {
        let _ = writeln!(
            out,
            "    <object model=\"{}\" posX=\"{}\" posY=\"{}\" posZ=\"{}\" rotX=\"{}\" rotY=\"{}\" rotZ=\"{}\" interior=\"{}\" dimension=\"{}\"></object>",
            o.model,
            o.position.x,
            o.position.y,
            o.position.z,
            o.rotation.x,
            o.rotation.y,
            o.rotation.z,
            o.interior,
            o.virtual_world
        );
    }
    for At { item: p, .. } in &map.pickups {
        let _ = writeln!(
            out,
            "    <pickup type=\"custom\" model=\"{}\" posX=\"{}\" posY=\"{}\" posZ=\"{}\" respawn=\"{}\" interior=\"{}\" dimension=\"{}\"/>",
            p.model,
            p.position.x,
            p.position.y,
            p.position.z,
            p.respawn_ms.unwrap_or(DEFAULT_PICKUP_RESPAWN_MS),
            p.interior,
            p.virtual_world
        );
    }
    for At { item: v, .. } in &map.vehicles {
        let mut extra = match v.colors {
            [Some(a), Some(b)] => format!(" color=\"{a},{b}\""),
            _ => String::new(),
        };
        if let Some(n) = v.paintjob {
            let _ = write!(extra, " paintjob=\"{n}\"");
        }
        if let Some(plate) = v.plate {
            let _ = write!(extra, " plate=\"{}\"", plate.as_str().trim_end());
        }
        let _ = writeln!(
            out,
            "    <vehicle model=\"{}\" posX=\"{}\" posY=\"{}\" posZ=\"{}\" rotZ=\"{}\"{} interior=\"{}\" dimension=\"{}\"/>",
            v.model,
            v.position.x,
            v.position.y,
            v.position.z,
            v.heading,
            extra,
            v.interior,
            v.virtual_world
        );
    }
    out.push_str("</map>\n");
    out
}
