//! A scripts folder of its own for one test: resources written to a temporary directory,
//! removed again when the value drops.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Harness;
use dlmp_ops::config::Config;

/// A temporary scripts folder.
///
/// ```
/// use dlmp::harness::TempScripts;
///
/// let scripts = TempScripts::new("doc-example");
/// scripts.resource("gm", r#"dlmp.on("player_connect", function(p) end)"#);
/// let mut h = scripts.harness();
/// h.connect("alice");
/// ```
#[derive(Debug)]
pub struct TempScripts {
    dir: PathBuf,
}

impl TempScripts {
    /// An empty folder named after `test`, the process and a count of the folders made in
    /// it, so parallel runs and the cases of one table-driven test don't meet.
    pub fn new(test: &str) -> Self {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("dlmp-scripts-{test}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a writable temp dir");
        TempScripts { dir }
    }

    /// Writes resource `name` whose `main.lua` is `code`.
    pub fn resource(&self, name: &str, code: &str) -> &Self {
        self.resource_with(name, "", code)
    }

    /// Writes resource `name` with extra manifest lines (`depends = [...]`).
    pub fn resource_with(&self, name: &str, manifest_extra: &str, code: &str) -> &Self {
        let dir = self.dir.join(name);
        std::fs::create_dir_all(&dir).expect("a writable temp dir");
        std::fs::write(
            dir.join("resource.toml"),
            format!("name = \"{name}\"\n{manifest_extra}\n"),
        )
        .expect("a writable temp dir");
        std::fs::write(dir.join("main.lua"), code).expect("a writable temp dir");
        self
    }

    /// The harness config with this folder as the scripts folder.
    pub fn config(&self) -> Config {
        Config {
            scripts: self.dir.clone(),
            ..Harness::config()
        }
    }

    /// A harness running every resource of this folder.
    pub fn harness(&self) -> Harness {
        Harness::with_config(self.config())
    }

    /// A harness with `f` applied to the config.
    pub fn harness_with(&self, f: impl FnOnce(Config) -> Config) -> Harness {
        Harness::with_config(f(self.config()))
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for TempScripts {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
