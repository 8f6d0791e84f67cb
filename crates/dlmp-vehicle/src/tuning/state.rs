//! A vehicle's tuning as the gamemode sets it (vehicles.md VehicleTuning) and the rules of
//! each change, I/O-free: the same [`Tuning::apply`] checks a Lua call at once (so a
//! refusal is the call's error) and applies the queued change to the component. The nitro
//! charges are not here: they live with the frame rules that spend them
//! ([`HeldFields`](crate::frame::fields::HeldFields)); a change says what it does
//! to them ([`Nitro`]). Decisions: docs/decisions/0063-vehicle-tuning.md.

use bevy_ecs::prelude::*;

use super::data::{KIND_NAMES, TuningData, UNIVERSAL_KINDS, takes_parts};
use dlmp_protocol::ids::{EventId, VehicleId};
use dlmp_protocol::text::FixedText;
use dlmp_protocol::vehicle::tuning::{
    MAX_DIRT, MAX_NITRO_CHARGES, NO_DIRT, NO_PAINTJOB, TAXI_LIGHT, VehicleTuning, kind,
};

/// The models with a taxi light (VehicleTuning: "the taxi light only fits 420 and 438").
pub const TAXI_MODELS: [u16; 2] = [420, 438];

/// A nitro part's charges when installed (VehicleTuning: "1008: 5, 1009: 2, 1010: 10").
pub fn full_charges(part: u16) -> u8 {
    match part {
        1008 => 5,
        1009 => 2,
        1010 => 10,
        _ => 0,
    }
}

/// A plate of exactly 8 characters of A-Z, 0-9 and space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plate([u8; 8]);

/// Why a plate text is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlateError {
    Length(usize),
    Character(char),
}

impl std::fmt::Display for PlateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlateError::Length(n) => write!(
                f,
                "plate has {n} characters, expected 1..=8 (nil for the game's own)"
            ),
            PlateError::Character(c) => {
                write!(f, "plate character {c:?} is not A-Z, 0-9 or a space")
            }
        }
    }
}

impl Plate {
    /// 1..=8 characters of A-Z, 0-9 and space (a-z count as A-Z), padded with spaces to 8:
    /// the wire has no partly set plate.
    pub fn parse(text: &str) -> Result<Self, PlateError> {
        let n = text.chars().count();
        if !(1..=8).contains(&n) {
            return Err(PlateError::Length(n));
        }
        let mut bytes = [b' '; 8];
        for (slot, c) in bytes.iter_mut().zip(text.chars()) {
            let c = c.to_ascii_uppercase();
            if !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == ' ') {
                return Err(PlateError::Character(c));
            }
            *slot = c as u8;
        }
        Ok(Plate(bytes))
    }

    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// The gamemode's tuning of one vehicle; the default is none. A respawn keeps it.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tuning {
    /// The part of each kind, 0 = none. Of a pair, the side the gamemode named.
    pub parts: [u16; kind::COUNT],
    /// 0..count of the model; `None` = plain colors.
    pub paintjob: Option<u8>,
    /// `None` = the game's random plate.
    pub plate: Option<Plate>,
    /// 0..=15; `None` = the game's.
    pub dirt: Option<u8>,
    pub taxi_light: bool,
}

/// One change by the gamemode (the `dlmp.set_vehicle_*` tuning calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuningChange {
    Add(u16),
    Remove(u16),
    Paintjob(Option<u8>),
    Plate(Option<Plate>),
    Dirt(Option<u8>),
    TaxiLight(bool),
    NitroCharges(u8),
}

/// What a change does to the nitro charges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nitro {
    Unchanged,
    /// A nitro part went in, with this many (full) charges.
    Installed(u8),
    /// The nitro part came off.
    Removed,
    /// The charges are now this many.
    Charges(u8),
}

/// What an accepted change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// The parts, paintjob, plate, dirt or taxi light changed.
    pub changed: bool,
    pub nitro: Nitro,
}

/// Why a change is refused; the message is what a scripter reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TuningError {
    UnknownModel(u16),
    UnknownPart(u16),
    TakesNoParts {
        model: u16,
        name: String,
        class: &'static str,
    },
    DoesNotFit {
        part: u16,
        kind: &'static str,
        model: u16,
        name: String,
    },
    Paintjob {
        paintjob: u8,
        model: u16,
        name: String,
        count: u8,
    },
    Dirt(u8),
    TaxiLight {
        model: u16,
        name: String,
    },
    NoNitro,
    Charges(u8),
}

impl std::fmt::Display for TuningError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TuningError::UnknownModel(m) => write!(f, "model {m} is not a vehicle model"),
            TuningError::UnknownPart(p) => write!(f, "part {p} is outside 1000..=1193"),
            TuningError::TakesNoParts { model, name, class } => write!(
                f,
                "model {model} ({name}) is a {class}: only cars, monster trucks and quad bikes take parts"
            ),
            TuningError::DoesNotFit {
                part,
                kind,
                model,
                name,
            } => write!(
                f,
                "part {part} ({kind}) does not fit model {model} ({name})"
            ),
            TuningError::Paintjob {
                paintjob,
                model,
                name,
                count: 0,
            } => write!(
                f,
                "paintjob {paintjob}: model {model} ({name}) has no paintjobs"
            ),
            TuningError::Paintjob {
                paintjob,
                model,
                name,
                count,
            } => write!(
                f,
                "paintjob {paintjob} is not below model {model} ({name})'s {count} paintjobs"
            ),
            TuningError::Dirt(d) => write!(f, "dirt {d} is outside 0..=15"),
            TuningError::TaxiLight { model, name } => write!(
                f,
                "model {model} ({name}) has no taxi light (only 420 and 438)"
            ),
            TuningError::NoNitro => {
                f.write_str("the vehicle has no nitro part (add 1008, 1009 or 1010 first)")
            }
            TuningError::Charges(n) => write!(f, "charges {n} is outside 0..=100"),
        }
    }
}

impl std::error::Error for TuningError {}

impl Tuning {
    /// Nothing set: no VehicleTuning follows a show.
    pub fn is_empty(&self) -> bool {
        *self == Tuning::default()
    }

    /// The installed part of `part`'s pair (itself or its other side), if any.
    fn installed(&self, part: u16, data: &TuningData) -> Option<usize> {
        let info = data.part(part)?;
        let now = self.parts[info.kind];
        (now != 0 && (now == part || Some(now) == info.pair)).then_some(info.kind)
    }

    /// Applies `change` for a vehicle of `model` by the page's rules, or says why not (the
    /// state is then unchanged).
    pub fn apply(
        &mut self,
        change: TuningChange,
        model: u16,
        data: &TuningData,
    ) -> Result<Applied, TuningError> {
        let row = data.model(model).ok_or(TuningError::UnknownModel(model))?;
        let before = *self;
        let mut nitro = Nitro::Unchanged;
        match change {
            TuningChange::Add(part) => {
                let info = data.part(part).ok_or(TuningError::UnknownPart(part))?;
                if !takes_parts(row.class) {
                    return Err(TuningError::TakesNoParts {
                        model,
                        name: row.name.clone(),
                        class: row.class.name(),
                    });
                }
                if !UNIVERSAL_KINDS.contains(&info.kind) && !row.lists(part) {
                    return Err(TuningError::DoesNotFit {
                        part,
                        kind: KIND_NAMES[info.kind],
                        model,
                        name: row.name.clone(),
                    });
                }
                // The other side of an installed pair is the same pair.
                if self.installed(part, data).is_none() {
                    self.parts[info.kind] = part;
                }
                if info.kind == kind::NITRO {
                    nitro = Nitro::Installed(full_charges(part));
                }
            }
            TuningChange::Remove(part) => {
                data.part(part).ok_or(TuningError::UnknownPart(part))?;
                if let Some(k) = self.installed(part, data) {
                    self.parts[k] = 0;
                    if k == kind::NITRO {
                        nitro = Nitro::Removed;
                    }
                }
            }
            TuningChange::Paintjob(p) => {
                if let Some(n) = p
                    && n >= row.paintjobs
                {
                    return Err(TuningError::Paintjob {
                        paintjob: n,
                        model,
                        name: row.name.clone(),
                        count: row.paintjobs,
                    });
                }
                self.paintjob = p;
            }
            TuningChange::Plate(p) => self.plate = p,
            TuningChange::Dirt(d) => {
                if let Some(d) = d
                    && d > MAX_DIRT
                {
                    return Err(TuningError::Dirt(d));
                }
                self.dirt = d;
            }
            TuningChange::TaxiLight(on) => {
                if on && !TAXI_MODELS.contains(&model) {
                    return Err(TuningError::TaxiLight {
                        model,
                        name: row.name.clone(),
                    });
                }
                self.taxi_light = on;
            }
            TuningChange::NitroCharges(n) => {
                if n > MAX_NITRO_CHARGES {
                    return Err(TuningError::Charges(n));
                }
                if self.parts[kind::NITRO] == 0 {
                    return Err(TuningError::NoNitro);
                }
                nitro = Nitro::Charges(n);
            }
        }
        Ok(Applied {
            changed: *self != before,
            nitro,
        })
    }

    /// The whole state on the wire, with the charges left (0 without a nitro part).
    pub fn packet(&self, vehicle_id: VehicleId, charges: u8) -> VehicleTuning {
        VehicleTuning {
            event_id: EventId(0),
            vehicle_id,
            components: self.parts,
            paintjob: self.paintjob.unwrap_or(NO_PAINTJOB),
            plate: self
                .plate
                .and_then(|p| FixedText::new(p.as_str()).ok())
                .unwrap_or_default(),
            dirt: self.dirt.unwrap_or(NO_DIRT),
            flags: if self.taxi_light { TAXI_LIGHT } else { 0 },
            nitro: if self.parts[kind::NITRO] == 0 {
                0
            } else {
                charges.min(MAX_NITRO_CHARGES)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::wire::Validate;

    fn add(t: &mut Tuning, model: u16, part: u16) -> Result<Applied, TuningError> {
        t.apply(TuningChange::Add(part), model, TuningData::get())
    }

    #[rstest]
    #[case::universal_wheels_on_a_quad(471, 1025, true)]
    #[case::universal_nitro_on_a_monster_truck(444, 1010, true)]
    #[case::own_list(560, 1138, true)]
    #[case::the_pair_of_an_own_part(560, 1027, true)]
    #[case::not_in_the_list(411, 1004, false)]
    #[case::sultan_skirts_on_the_stratum(561, 1026, false)]
    #[case::a_motorbike(522, 1010, false)]
    #[case::a_boat(430, 1087, false)]
    #[case::a_plane(520, 1025, false)]
    fn parts_by_the_model_data(#[case] model: u16, #[case] part: u16, #[case] fits: bool) {
        let mut t = Tuning::default();
        assert_eq!(add(&mut t, model, part).is_ok(), fits, "{model} {part}");
        assert_eq!(t.is_empty(), !fits);
    }

    #[test]
    fn a_pair_is_one_installation() {
        let mut t = Tuning::default();
        assert!(add(&mut t, 560, 1026).is_ok_and(|a| a.changed));
        assert!(
            add(&mut t, 560, 1027).is_ok_and(|a| !a.changed),
            "the other side"
        );
        assert_eq!(t.parts[kind::SIDE_SKIRTS], 1026);
        let removed = t.apply(TuningChange::Remove(1027), 560, TuningData::get());
        assert!(removed.is_ok_and(|a| a.changed));
        assert!(t.is_empty());
    }

    #[test]
    fn nitro_is_installed_full_and_charges_need_the_part() {
        let mut t = Tuning::default();
        let d = TuningData::get();
        assert_eq!(
            t.apply(TuningChange::NitroCharges(3), 411, d),
            Err(TuningError::NoNitro)
        );
        for (part, full) in [(1008, 5), (1009, 2), (1010, 10), (1010, 10)] {
            assert_eq!(
                add(&mut t, 411, part).map(|a| a.nitro),
                Ok(Nitro::Installed(full))
            );
        }
        assert_eq!(
            t.apply(TuningChange::NitroCharges(101), 411, d),
            Err(TuningError::Charges(101))
        );
        assert_eq!(
            t.apply(TuningChange::Remove(1010), 411, d).map(|a| a.nitro),
            Ok(Nitro::Removed)
        );
    }

    #[rstest]
    #[case::below_the_count(575, Some(1), true)]
    #[case::the_count(575, Some(2), false)]
    #[case::a_model_without_paintjobs(411, Some(0), false)]
    #[case::plain_colors(411, None, true)]
    fn paintjobs(#[case] model: u16, #[case] p: Option<u8>, #[case] ok: bool) {
        let mut t = Tuning::default();
        let r = t.apply(TuningChange::Paintjob(p), model, TuningData::get());
        assert_eq!(r.is_ok(), ok, "{r:?}");
    }

    #[rstest]
    #[case::plain("DLMP 1", Ok("DLMP 1  "))]
    #[case::lower_case("abc", Ok("ABC     "))]
    #[case::eight("12345678", Ok("12345678"))]
    #[case::nine("123456789", Err(PlateError::Length(9)))]
    #[case::empty("", Err(PlateError::Length(0)))]
    #[case::dash("AB-12", Err(PlateError::Character('-')))]
    #[case::umlaut("ÄB", Err(PlateError::Character('Ä')))]
    fn plates(#[case] text: &str, #[case] out: Result<&str, PlateError>) {
        assert_eq!(
            Plate::parse(text).as_ref().map(Plate::as_str),
            out.as_deref()
        );
    }

    #[test]
    fn every_state_encodes_to_a_packet_the_decoder_takes() {
        let d = TuningData::get();
        let mut t = Tuning::default();
        let empty = t.packet(VehicleId(1), 0);
        assert!(empty.validate().is_ok());
        assert_eq!((empty.paintjob, empty.dirt), (NO_PAINTJOB, NO_DIRT));
        for c in [
            TuningChange::Add(1010),
            TuningChange::Add(1087),
            TuningChange::Plate(Plate::parse("A").ok()),
            TuningChange::Dirt(Some(15)),
            TuningChange::TaxiLight(true),
        ] {
            assert!(t.apply(c, 420, d).is_ok(), "{c:?}");
        }
        let p = t.packet(VehicleId(1), 7);
        assert!(p.validate().is_ok(), "{p:?}");
        assert_eq!((p.nitro, p.flags, p.dirt), (7, TAXI_LIGHT, 15));
        assert_eq!(p.plate.as_str(), "A       ");
    }
}
