//! The models a pickup may show (world.md PickupSync: "an object model from the server's
//! model table, or one of the 50 weapon models (321..373)"). The weapon models are data,
//! `assets/weapon_models.tsv` (from the shared data tables, see its README), parsed once at
//! start. The object models are the objects' table ([`crate::object::models`]).

use std::sync::LazyLock;

const SOURCE: &str = include_str!("../../../../assets/weapon_models.tsv");

/// The weapon models of the table, ascending.
static WEAPON_MODELS: LazyLock<Vec<u32>> =
    LazyLock::new(|| parse(SOURCE).unwrap_or_else(|e| panic!("assets/weapon_models.tsv: {e}")));

/// The `model_id` column of a weapon model table (a header line, then tab-separated rows).
fn parse(text: &str) -> Result<Vec<u32>, String> {
    let mut models = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let id = line.split('\t').next().unwrap_or_default();
        let id: u32 = id
            .parse()
            .map_err(|_| format!("line {}: model_id {id:?} is not a number", n + 1))?;
        if !(321..=373).contains(&id) {
            return Err(format!("line {}: model {id} is outside 321..373", n + 1));
        }
        models.push(id);
    }
    models.sort_unstable();
    models.dedup();
    Ok(models)
}

/// Each weapon id of the table with its model, ascending by weapon id (rows of
/// weapon_id -1 have no weapon).
static WEAPON_IDS: LazyLock<Vec<(u8, u32)>> = LazyLock::new(|| weapon_ids(SOURCE));

/// The `weapon_id` and `model_id` columns; rows [`parse`] refuses do not reach here.
fn weapon_ids(text: &str) -> Vec<(u8, u32)> {
    let mut ids: Vec<(u8, u32)> = text
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut cols = line.split('\t');
            let model = cols.next()?.parse().ok()?;
            let weapon = cols.next()?.parse().ok()?;
            Some((weapon, model))
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// The model of weapon `id` (a map's weapon pickup, ADR 0050).
pub fn weapon_model(id: u8) -> Option<u32> {
    let ids = &*WEAPON_IDS;
    let at = ids.binary_search_by_key(&id, |(w, _)| *w).ok()?;
    ids.get(at).map(|(_, m)| *m)
}

/// Forces the table to load (the server calls it at start, so a bad table stops the
/// start, not a script call).
pub fn load() -> usize {
    WEAPON_MODELS.len()
}

/// Whether a pickup may show `model`: a weapon model or an object model of the table
/// (a map's health pickup is model 1240).
pub fn is_pickup_model(model: u32) -> bool {
    WEAPON_MODELS.binary_search(&model).is_ok() || crate::object::models::is_object_model(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_the_fifty_weapon_models() {
        assert_eq!(load(), 50);
        for m in [321, 346, 373, 1240, 1242, 1318] {
            assert!(is_pickup_model(m), "{m}");
        }
        for m in [0, 329, 332, 340, 374, 20000] {
            assert!(!is_pickup_model(m), "{m}");
        }
    }

    #[test]
    fn weapon_ids_name_their_models() {
        assert_eq!(weapon_model(31), Some(356));
        assert_eq!(weapon_model(1), Some(331));
        assert_eq!(weapon_model(46), Some(371));
        assert_eq!(weapon_model(0), None);
        assert_eq!(weapon_model(47), None);
    }

    #[test]
    fn a_bad_row_is_an_error_naming_the_line() {
        assert!(parse("model_id\n12\n").unwrap_err().contains("line 2"));
        assert!(parse("model_id\nx\n").unwrap_err().contains("line 2"));
    }
}
