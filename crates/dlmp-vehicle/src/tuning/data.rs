//! The game's tuning data (vehicles.md VehicleTuning: "The server refuses a part the model
//! does not take by the game's data (carmods)"; "A paintjob must be below the model's
//! paintjob count"): `assets/carmods.tsv` (the model's own parts, pairs included),
//! `assets/components.tsv` (each part's kind and its pair) and `assets/paintjobs.tsv`, cut
//! from the shared data tables (assets/README.md), parsed once and checked against the
//! vehicle model table at start, so a bad table stops the start with the line at fault.

use std::sync::LazyLock;

use bitvec::prelude::*;

use crate::models::{VehicleClass, VehicleModels};
use dlmp_protocol::vehicle::sync::MODELS;
use dlmp_protocol::vehicle::tuning::{MAX_PAINTJOB, PART_IDS, kind};

const CARMODS: &str = include_str!("../../../../assets/carmods.tsv");
const COMPONENTS: &str = include_str!("../../../../assets/components.tsv");
const PAINTJOBS: &str = include_str!("../../../../assets/paintjobs.tsv");

/// Part kinds that fit every model that takes parts (VehicleTuning: "wheels, nitro,
/// hydraulics and stereo fit every such model").
pub const UNIVERSAL_KINDS: [usize; 4] = [kind::WHEELS, kind::NITRO, kind::HYDRAULICS, kind::STEREO];

/// The kinds' names, by kind, for messages.
pub const KIND_NAMES: [&str; kind::COUNT] = [
    "hood",
    "vents",
    "spoiler",
    "side skirts",
    "front bull bar",
    "rear bull bar",
    "lamps",
    "roof",
    "nitro",
    "hydraulics",
    "stereo",
    "unused",
    "wheels",
    "exhaust",
    "front bumper",
    "rear bumper",
    "misc",
];

/// Whether a model of `class` takes parts at all (car, monster truck, quad bike).
pub fn takes_parts(class: VehicleClass) -> bool {
    matches!(
        class,
        VehicleClass::Car | VehicleClass::MonsterTruck | VehicleClass::QuadBike
    )
}

/// One part of 1000..=1193.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartInfo {
    /// 0..=16, the index into VehicleTuning's `components`.
    pub kind: usize,
    /// The other side of a left/right pair the game installs together.
    pub pair: Option<u16>,
}

/// One model's tuning facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelTuning {
    pub name: String,
    pub class: VehicleClass,
    /// The model's own parts (and their pairs), by part index (id − 1000).
    own: BitArray<[u64; 4]>,
    /// Paintjobs 0..paintjobs.
    pub paintjobs: u8,
}

/// The tables, by model and part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuningData {
    parts: Vec<PartInfo>,
    models: Vec<ModelTuning>,
}

static DATA: LazyLock<TuningData> = LazyLock::new(|| {
    TuningData::parse(&VehicleModels::load(), CARMODS, COMPONENTS, PAINTJOBS)
        .unwrap_or_else(|e| panic!("{e}"))
});

fn index(part: u16) -> Option<usize> {
    PART_IDS
        .contains(&part)
        .then(|| usize::from(part - PART_IDS.start()))
}

fn number<T: std::str::FromStr>(
    file: &str,
    line: usize,
    col: &str,
    word: &str,
) -> Result<T, String> {
    word.trim()
        .parse()
        .map_err(|_| format!("{file} line {line}: {col} {word:?} is not a number"))
}

/// The non-empty rows after the header, with their line numbers.
fn rows(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| (n + 1, l.split('\t').collect()))
}

impl TuningData {
    /// The shipped tables.
    ///
    /// # Panics
    /// On the first use, if an asset does not parse (a broken build, caught by the unit
    /// tests; the plugin touches it at start).
    pub fn get() -> &'static TuningData {
        &DATA
    }

    /// Parses the three tables and checks them against the model table: every part has a
    /// kind and a pair of the same kind that pairs back; every row of carmods names a model
    /// that takes parts and a part of the table; paintjob counts are 1..=8.
    pub fn parse(
        models: &VehicleModels,
        carmods: &str,
        components: &str,
        paintjobs: &str,
    ) -> Result<Self, String> {
        const C: &str = "assets/components.tsv";
        let mut parts: Vec<Option<PartInfo>> = vec![None; PART_IDS.len()];
        for (line, cols) in rows(components) {
            let [id, k, _name, pair, ..] = cols[..] else {
                return Err(format!("{C} line {line}: fewer than 4 columns"));
            };
            let id: u16 = number(C, line, "component_id", id)?;
            let at = index(id)
                .ok_or_else(|| format!("{C} line {line}: part {id} is outside 1000..=1193"))?;
            let k: usize = number(C, line, "kind", k)?;
            if k >= kind::COUNT || k == kind::UNUSED {
                return Err(format!("{C} line {line}: kind {k} is not a part kind"));
            }
            let pair = match pair.trim() {
                "" => None,
                p => Some(number::<u16>(C, line, "paired_with", p)?),
            };
            if parts[at].replace(PartInfo { kind: k, pair }).is_some() {
                return Err(format!("{C} line {line}: part {id} is listed twice"));
            }
        }
        let parts: Vec<PartInfo> = parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| p.ok_or_else(|| format!("{C}: part {} is missing", 1000 + i)))
            .collect::<Result<_, _>>()?;
        for (i, p) in parts.iter().enumerate() {
            let Some(pair) = p.pair else { continue };
            let back = index(pair).map(|j| parts[j]);
            if back.is_none_or(|b| b.pair != Some(1000 + i as u16) || b.kind != p.kind) {
                return Err(format!(
                    "{C}: part {} pairs with {pair}, which does not pair back in the same kind",
                    1000 + i
                ));
            }
        }

        let mut table: Vec<ModelTuning> = MODELS
            .map(|m| {
                let info = models.get(m);
                ModelTuning {
                    name: info.map_or_else(String::new, |i| i.name.clone()),
                    class: info.map_or(VehicleClass::Trailer, |i| i.class),
                    own: BitArray::ZERO,
                    paintjobs: 0,
                }
            })
            .collect();
        let model_at = |file: &str, line: usize, word: &str| -> Result<usize, String> {
            let m: u16 = number(file, line, "model", word)?;
            if MODELS.contains(&m) {
                Ok(usize::from(m - MODELS.start()))
            } else {
                Err(format!(
                    "{file} line {line}: model {m} is outside 400..=611"
                ))
            }
        };

        const M: &str = "assets/carmods.tsv";
        for (line, cols) in rows(carmods) {
            let [model, part, ..] = cols[..] else {
                return Err(format!("{M} line {line}: fewer than 2 columns"));
            };
            let at = model_at(M, line, model)?;
            let part: u16 = number(M, line, "component_id", part)?;
            let i = index(part)
                .ok_or_else(|| format!("{M} line {line}: part {part} is outside 1000..=1193"))?;
            let row = &mut table[at];
            if !takes_parts(row.class) {
                return Err(format!(
                    "{M} line {line}: model {} is a {}, which takes no parts",
                    at + 400,
                    row.class.name()
                ));
            }
            row.own.set(i, true);
        }

        const P: &str = "assets/paintjobs.tsv";
        for (line, cols) in rows(paintjobs) {
            let [model, count, ..] = cols[..] else {
                return Err(format!("{P} line {line}: fewer than 2 columns"));
            };
            let at = model_at(P, line, model)?;
            let count: u8 = number(P, line, "count", count)?;
            if !(1..=MAX_PAINTJOB + 1).contains(&count) {
                return Err(format!("{P} line {line}: count {count} is outside 1..=8"));
            }
            table[at].paintjobs = count;
        }
        Ok(TuningData {
            parts,
            models: table,
        })
    }

    /// The part's kind and pair, for a part id of 1000..=1193.
    pub fn part(&self, part: u16) -> Option<PartInfo> {
        index(part).map(|i| self.parts[i])
    }

    /// The model's facts, for a model of 400..=611.
    pub fn model(&self, model: u16) -> Option<&ModelTuning> {
        let i = model.checked_sub(*MODELS.start())?;
        self.models.get(usize::from(i))
    }
}

impl ModelTuning {
    /// Whether the model's own list names the part (or its pair, which the list carries
    /// too).
    pub fn lists(&self, part: u16) -> bool {
        index(part).is_some_and(|i| self.own[i])
    }

    /// How many of its own parts the model lists.
    pub fn listed(&self) -> usize {
        self.own.count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD_C: &str = "component_id\tkind\tkind_name\tpaired_with\n";

    fn components(extra: &[(u16, &str)]) -> String {
        let mut s = HEAD_C.to_owned();
        for id in PART_IDS {
            let row = extra
                .iter()
                .find(|(i, _)| *i == id)
                .map_or_else(|| format!("{id}\t2\tspoiler\t"), |(_, r)| r.to_string());
            s.push_str(&row);
            s.push('\n');
        }
        s
    }

    #[test]
    fn the_shipped_tables_hold_the_data_readmes_counts() {
        let d = TuningData::get();
        let tuned = MODELS
            .filter(|&m| d.model(m).is_some_and(|r| takes_parts(r.class)))
            .count();
        assert_eq!(tuned, 147);
        let listed: usize = MODELS
            .filter_map(|m| d.model(m))
            .map(ModelTuning::listed)
            .sum();
        assert_eq!(listed, 3740);
        assert_eq!(
            d.part(1007).map(|p| (p.kind, p.pair)),
            Some((3, Some(1017)))
        );
        assert_eq!(d.part(1010).map(|p| p.kind), Some(kind::NITRO));
        assert_eq!(d.model(575).map(|m| m.paintjobs), Some(2));
        assert_eq!(d.model(411).map(|m| m.paintjobs), Some(0));
        assert!(d.model(560).is_some_and(|m| m.lists(1026) && m.lists(1027)));
        assert!(
            d.model(561).is_some_and(|m| !m.lists(1026)),
            "the README's dropped pairs"
        );
    }

    #[test]
    fn a_bad_table_is_an_error_naming_the_file_and_line() {
        let models = VehicleModels::load();
        let ok_c = components(&[]);
        let head_m = "model\tcomponent_id\n";
        let head_p = "model\tcount\n";
        let err =
            |m: &str, c: &str, p: &str| TuningData::parse(&models, m, c, p).expect_err("refused");
        assert!(
            err(&format!("{head_m}522\t1010\n"), &ok_c, head_p)
                .contains("carmods.tsv line 2: model 522 is a motorbike")
        );
        assert!(err(&format!("{head_m}411\t999\n"), &ok_c, head_p).contains("part 999"));
        assert!(err(head_m, &ok_c, &format!("{head_p}575\t9\n")).contains("paintjobs.tsv line 2"));
        let one_sided = components(&[(1007, "1007\t3\tsideskirt\t1017")]);
        assert!(err(head_m, &one_sided, head_p).contains("does not pair back"));
        let missing: String = ok_c.lines().take(10).collect::<Vec<_>>().join("\n");
        assert!(err(head_m, &missing, head_p).contains("is missing"));
        assert!(TuningData::parse(&models, head_m, &ok_c, head_p).is_ok());
    }
}
