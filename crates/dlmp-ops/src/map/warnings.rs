//! What a parser skipped (an unknown element, attribute or call), counted per kind so that
//! a map of 5000 objects with an attribute we do not use gives one line, not 5000. An
//! attribute map editors always write that the protocol has no field for (an object's
//! `alpha`, `scale`, ...) is no mistake of the map: it is kept apart as `unsupported`, so
//! the loader reports it at debug level, not as a warning on every start.

use std::collections::HashMap;
use std::fmt;

/// One kind of skipped input: what, where it first occurred, how often.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapWarning {
    pub what: String,
    pub first_line: usize,
    pub count: usize,
    /// An editor's attribute the protocol has no field for (not a mistake of the map).
    pub unsupported: bool,
}

impl fmt::Display for MapWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (line {}", self.what, self.first_line)?;
        if self.count > 1 {
            write!(f, " and {} more", self.count - 1)?;
        }
        f.write_str(")")
    }
}

/// The skipped kinds of one parse, in the order first seen.
#[derive(Debug, Clone, Default)]
pub struct Warnings(Vec<MapWarning>, HashMap<String, usize>);

impl Warnings {
    pub fn add(&mut self, what: String, line: usize) {
        self.add_kind(what, line, false);
    }

    /// Counts an editor's attribute the protocol has no field for.
    pub fn add_unsupported(&mut self, what: String, line: usize) {
        self.add_kind(what, line, true);
    }

    fn add_kind(&mut self, what: String, line: usize, unsupported: bool) {
        match self.1.get(&what) {
            Some(&i) => self.0[i].count += 1,
            None => {
                self.1.insert(what.clone(), self.0.len());
                self.0.push(MapWarning {
                    what,
                    first_line: line,
                    count: 1,
                    unsupported,
                });
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &MapWarning> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether any kind's text contains `needle`.
    pub fn mentions(&self, needle: &str) -> bool {
        self.0.iter().any(|w| w.what.contains(needle))
    }
}
