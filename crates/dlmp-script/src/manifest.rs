//! Resource manifests (lua-api.md, "Resources"): a folder under the scripts folder with a
//! `resource.toml` naming its main file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// `resource.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The Lua file run at start, relative to the resource's folder.
    #[serde(default = "default_main")]
    pub main: String,
    /// Lua files run before `main`, in order, in the same environment (relative to the
    /// folder, inside it).
    #[serde(default)]
    pub files: Vec<String>,
    /// Resources started before this one.
    #[serde(default)]
    pub depends: Vec<String>,
    /// Started at boot when no resource is named (`--resource`); `false` leaves a resource
    /// off by default, for the console's `start` or a `--resource` that names it or a
    /// resource depending on it (docs/decisions/0114-the-editor-gamemode.md).
    #[serde(default = "autostart")]
    pub autostart: bool,
}

fn default_main() -> String {
    "main.lua".to_owned()
}

fn autostart() -> bool {
    true
}

/// A resource found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceDir {
    pub manifest: Manifest,
    pub dir: PathBuf,
}

impl ResourceDir {
    pub fn main_path(&self) -> PathBuf {
        self.dir.join(&self.manifest.main)
    }
}

/// Every folder of `scripts` with a readable manifest, by name. Folders without one are
/// skipped; a broken manifest is reported and skipped.
pub fn discover(scripts: &Path) -> (BTreeMap<String, ResourceDir>, Vec<String>) {
    let mut found = BTreeMap::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(scripts) else {
        problems.push(format!(
            "cannot read the scripts folder {}",
            scripts.display()
        ));
        return (found, problems);
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let path = dir.join("resource.toml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        match toml::from_str::<Manifest>(&text) {
            Ok(manifest) if found.contains_key(&manifest.name) => {
                problems.push(format!(
                    "{}: a second resource named {}",
                    path.display(),
                    manifest.name
                ));
            }
            Ok(manifest) => {
                found.insert(manifest.name.clone(), ResourceDir { manifest, dir });
            }
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    (found, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_needs_a_name_and_defaults_main() {
        let m: Manifest = toml::from_str("name = \"race\"\ndepends = [\"maps\"]").expect("valid");
        assert_eq!((m.name.as_str(), m.main.as_str()), ("race", "main.lua"));
        assert_eq!(m.depends, ["maps"]);
        assert!(m.autostart);
        let off: Manifest = toml::from_str("name = \"editor\"\nautostart = false").expect("valid");
        assert!(!off.autostart);
        assert!(toml::from_str::<Manifest>("description = \"x\"").is_err());
        assert!(toml::from_str::<Manifest>("name = \"x\"\nmian = \"y\"").is_err());
    }
}
