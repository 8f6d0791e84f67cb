//! Settings of Rust gameplay plugins: the config's `[plugins.NAME]` tables, kept as TOML
//! values for each plugin to read into its own type (ADR 0036). A table no added plugin
//! reads (a typo, a plugin this server does not have) and a table that does not fit the
//! plugin's type stop the start with the error ([`PluginSettings::check`], ADR 0095).

use std::collections::{BTreeMap, BTreeSet};

use bevy_app::App;
use bevy_ecs::prelude::*;
use serde::de::DeserializeOwned;

use dlmp_ops::config::ConfigError;

/// The `[plugins.*]` tables of the config, and what the plugins made of them.
#[derive(Resource, Debug, Clone, Default)]
pub struct PluginSettings {
    tables: BTreeMap<String, toml::Value>,
    read: BTreeSet<String>,
    errors: Vec<ConfigError>,
}

impl PluginSettings {
    pub fn new(tables: BTreeMap<String, toml::Value>) -> Self {
        PluginSettings {
            tables,
            ..PluginSettings::default()
        }
    }

    /// The table `[plugins.<name>]` as a `T`: `None` when the config has no such table (the
    /// plugin is off) or it does not fit `T` (the error is kept and the server refuses to
    /// start, see [`PluginSettings::errors`]).
    pub fn read<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        self.read.insert(name.to_owned());
        let value = self.tables.get(name)?.clone();
        match value.try_into::<T>() {
            Ok(settings) => Some(settings),
            Err(e) => {
                self.errors
                    .push(ConfigError(format!("[plugins.{name}]: {}", e.message())));
                None
            }
        }
    }

    /// Tables that did not fit their plugin's settings.
    pub fn errors(&self) -> &[ConfigError] {
        &self.errors
    }

    /// The start's verdict: the first table that did not fit its plugin, else the tables
    /// no plugin reads, with the names the plugins of this server read.
    pub fn check(&self) -> Result<(), ConfigError> {
        if let Some(e) = self.errors.first() {
            return Err(e.clone());
        }
        let unread = self.unread();
        if unread.is_empty() {
            return Ok(());
        }
        let tables: Vec<String> = unread.iter().map(|n| format!("[plugins.{n}]")).collect();
        let known = if self.read.is_empty() {
            "this server has no plugin".to_owned()
        } else {
            let names: Vec<&str> = self.read.iter().map(String::as_str).collect();
            format!("the plugins of this server are {}", names.join(", "))
        };
        Err(ConfigError(format!(
            "{}: no plugin of this server reads it; {known}",
            tables.join(", ")
        )))
    }

    /// Tables no plugin asked for: a typo, or a plugin this server was built without.
    pub fn unread(&self) -> Vec<&str> {
        self.tables
            .keys()
            .filter(|k| !self.read.contains(*k))
            .map(String::as_str)
            .collect()
    }
}

/// Reads `[plugins.<name>]` in a plugin's `build`: see [`PluginSettings::read`].
///
/// ```
/// # use bevy_app::{App, Plugin};
/// #[derive(serde::Deserialize)]
/// struct Greeter { text: String }
/// struct GreeterPlugin;
/// impl Plugin for GreeterPlugin {
///     fn build(&self, app: &mut App) {
///         let Some(settings) = dlmp::prelude::plugin_settings::<Greeter>(app, "greeter") else {
///             return; // no [plugins.greeter] table: off
///         };
///         // ... add systems that use settings.text
///         # let _ = settings.text;
///     }
/// }
/// ```
pub fn plugin_settings<T: DeserializeOwned>(app: &mut App, name: &str) -> Option<T> {
    app.world_mut()
        .get_resource_or_init::<PluginSettings>()
        .read(name)
}
