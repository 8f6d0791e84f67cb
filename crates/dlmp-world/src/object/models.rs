//! The object model table (world.md ObjectState: "from the server's model table, at most
//! 19999"; Breaking: "flag b of the server's model table"): `assets/object_models.tsv`,
//! copied from the shared data tables (see assets/README.md), parsed once at start. Which
//! models exist and which the game can break (docs/decisions/0047-objects.md).

use std::sync::LazyLock;

use bitvec::prelude::*;

use dlmp_protocol::world::object::OBJECT_MODEL_MAX;

const SOURCE: &str = include_str!("../../../../assets/object_models.tsv");

/// One bit per model id up to [`OBJECT_MODEL_MAX`]: whether it exists, and whether it breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelTable {
    exists: BitVec,
    breakable: BitVec,
}

static TABLE: LazyLock<ModelTable> = LazyLock::new(|| {
    ModelTable::parse(SOURCE).unwrap_or_else(|e| panic!("assets/object_models.tsv: {e}"))
});

impl ModelTable {
    /// A table of `model_id <TAB> name <TAB> breakable` rows after a header line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let size = usize::from(OBJECT_MODEL_MAX) + 1;
        let mut table = ModelTable {
            exists: bitvec![0; size],
            breakable: bitvec![0; size],
        };
        for (n, line) in text.lines().enumerate().skip(1) {
            if line.trim().is_empty() {
                continue;
            }
            let mut cols = line.split('\t');
            let id = cols.next().unwrap_or_default();
            let id: u16 = id
                .parse()
                .map_err(|_| format!("line {}: model_id {id:?} is not a number", n + 1))?;
            if id > OBJECT_MODEL_MAX {
                return Err(format!(
                    "line {}: model {id} is above {OBJECT_MODEL_MAX}",
                    n + 1
                ));
            }
            let breakable = match cols.nth(1).map(str::trim) {
                Some("1") => true,
                Some("0") | None => false,
                Some(other) => {
                    return Err(format!(
                        "line {}: breakable {other:?} is neither 0 nor 1",
                        n + 1
                    ));
                }
            };
            table.exists.set(usize::from(id), true);
            table.breakable.set(usize::from(id), breakable);
        }
        Ok(table)
    }

    pub fn exists(&self, model: u32) -> bool {
        usize::try_from(model)
            .ok()
            .and_then(|i| self.exists.get(i).map(|b| *b))
            .unwrap_or(false)
    }

    pub fn breakable(&self, model: u32) -> bool {
        usize::try_from(model)
            .ok()
            .and_then(|i| self.breakable.get(i).map(|b| *b))
            .unwrap_or(false)
    }

    /// How many models exist and how many break.
    pub fn counts(&self) -> (usize, usize) {
        (self.exists.count_ones(), self.breakable.count_ones())
    }
}

/// Forces the table to load (the server calls it at start, so a bad table stops the start,
/// not a script call). Returns (models, breakable models).
pub fn load() -> (usize, usize) {
    TABLE.counts()
}

/// Whether `model` is an object model of the table.
pub fn is_object_model(model: u32) -> bool {
    TABLE.exists(model)
}

/// Whether the game can break `model` (flag b).
pub fn is_breakable(model: u32) -> bool {
    TABLE.breakable(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_the_base_game_models_and_the_breakable_ones() {
        assert_eq!(load(), (14_360, 303));
        for m in [1, 300, 1225, 3859, 18630] {
            assert!(is_object_model(m), "{m}");
        }
        for m in [0, 2, 299, 329, 400, 18631, 19999, 20000, u32::MAX] {
            assert!(!is_object_model(m), "{m}");
        }
        assert!(is_breakable(3859), "a glass model added by hand");
        assert!(!is_breakable(1), "model 1 does not break");
    }

    #[test]
    fn a_bad_row_is_an_error_naming_the_line() {
        for bad in [
            "id\tn\tb\nx\t\t0\n",
            "id\tn\tb\n20000\t\t0\n",
            "id\tn\tb\n5\t\t2\n",
        ] {
            assert!(
                ModelTable::parse(bad).unwrap_err().contains("line 2"),
                "{bad:?}"
            );
        }
    }
}
