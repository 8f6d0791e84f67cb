//! The catalog of allowed skins (player.md, SetSkin): the player models a SetSkin,
//! a SpawnPlayer or a RemotePlayerSync may carry. The list is data, `assets/skins.txt`,
//! compiled into the binary: clients check models against the same catalog, so it is part
//! of the protocol's contract and does not change with a server's working folder
//! (docs/decisions/0014-player-looks.md).

use std::sync::LazyLock;

use bitvec::vec::BitVec;

/// The catalog's source, one id or `first..=last` range per line, `#` comments.
const SOURCE: &str = include_str!("../../../assets/skins.txt");

/// The highest model id a catalog line may name: well above the game's 311, it keeps a
/// typo such as `3110` from allocating a huge set.
const MAX_MODEL: u32 = 4095;

static GAME: LazyLock<SkinCatalog> = LazyLock::new(|| {
    SkinCatalog::parse(SOURCE).unwrap_or_else(|e| panic!("assets/skins.txt: {e}"))
});

/// A set of allowed player model ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkinCatalog {
    allowed: BitVec,
}

/// A line of the catalog that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError {
    /// 1-based.
    pub line: usize,
    pub text: String,
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: \"{}\" is not a model id 0..={MAX_MODEL} or a range first..=last",
            self.line, self.text
        )
    }
}

impl std::error::Error for CatalogError {}

impl SkinCatalog {
    /// The game's catalog, `assets/skins.txt`. Parsed on first use; the server forces it
    /// at start (`LooksPlugin`), so a broken asset stops the boot, not a running game.
    pub fn game() -> &'static SkinCatalog {
        &GAME
    }

    /// Parses the catalog format.
    pub fn parse(source: &str) -> Result<SkinCatalog, CatalogError> {
        let mut allowed = BitVec::repeat(false, MAX_MODEL as usize + 1);
        for (i, raw) in source.lines().enumerate() {
            let text = raw.split('#').next().unwrap_or_default().trim();
            if text.is_empty() {
                continue;
            }
            let error = || CatalogError {
                line: i + 1,
                text: text.to_owned(),
            };
            let id = |s: &str| {
                s.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|&m| m <= MAX_MODEL)
                    .ok_or_else(error)
            };
            let (first, last) = match text.split_once("..=") {
                Some((a, b)) => (id(a)?, id(b)?),
                None => (id(text)?, id(text)?),
            };
            if first > last {
                return Err(error());
            }
            for m in first..=last {
                allowed.set(m as usize, true);
            }
        }
        Ok(SkinCatalog { allowed })
    }

    /// Whether `model` may be put on a player.
    pub fn allows(&self, model: u32) -> bool {
        usize::try_from(model)
            .ok()
            .and_then(|i| self.allowed.get(i).map(|b| *b))
            .unwrap_or(false)
    }

    /// How many models the catalog allows.
    pub fn len(&self) -> usize {
        self.allowed.count_ones()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_catalog_is_0_to_311_without_74() {
        let c = SkinCatalog::game();
        assert_eq!(c.len(), 311);
        assert!(c.allows(0) && c.allows(73) && c.allows(75) && c.allows(311));
        assert!(!c.allows(74) && !c.allows(312) && !c.allows(u32::MAX));
    }

    #[test]
    fn lines_are_ids_or_ranges_with_comments() {
        let c = SkinCatalog::parse("# header\n 3 \n5..=7 # tail\n\n").expect("parses");
        assert_eq!(c.len(), 4);
        assert!(c.allows(3) && c.allows(5) && c.allows(7) && !c.allows(4));
    }

    #[test]
    fn a_bad_line_is_named() {
        for bad in ["x", "7..=5", "1..=", "5000", "-1"] {
            let e = SkinCatalog::parse(&format!("0\n{bad}\n")).expect_err(bad);
            assert_eq!(e.line, 2, "{bad}");
        }
    }
}
