//! `reload`: reads the config file again and applies the settings that can change while
//! the server runs (ADR 0034): `name`, `gamemode`, `language`, `website` (the server
//! query) and `stats_interval_secs`. Every other setting takes effect at the next start;
//! the command says so when one changed.

use std::path::PathBuf;
use std::time::Duration;

use bevy_ecs::prelude::*;

use crate::config::Config;
use crate::stats::StatsSettings;

/// The `--config` file and what it held when the server started (none without a file).
#[derive(Resource, Debug, Clone, Default)]
pub struct ConfigFile {
    pub path: Option<PathBuf>,
    pub at_start: Option<Config>,
}

impl ConfigFile {
    /// The file `path` as read at start.
    pub fn new(path: Option<PathBuf>) -> Self {
        let at_start = path.as_deref().and_then(|p| Config::from_file(p).ok());
        ConfigFile { path, at_start }
    }
}

/// Sets the reloadable settings of `to` on `from`, so what is left to compare is the rest.
fn with_reloadables(mut from: Config, to: &Config) -> Config {
    from.name.clone_from(&to.name);
    from.gamemode.clone_from(&to.gamemode);
    from.language.clone_from(&to.language);
    from.website.clone_from(&to.website);
    from.stats_interval_secs = to.stats_interval_secs;
    from
}

pub(super) fn reload(world: &mut World) -> Vec<String> {
    let Some(file) = world.get_resource::<ConfigFile>().cloned() else {
        return vec!["reload: the server was started without --config".to_owned()];
    };
    let Some(path) = file.path else {
        return vec!["reload: the server was started without --config".to_owned()];
    };
    let config = match Config::from_file(&path).and_then(|c| c.validate().map(|()| c)) {
        Ok(config) => config,
        Err(e) => return vec![format!("reload: {e}; nothing changed")],
    };
    world.insert_resource(crate::query::ServerIdentity::from(&config));
    if let Some(mut stats) = world.get_resource_mut::<StatsSettings>() {
        stats.interval = Duration::from_secs(config.stats_interval_secs);
    }
    let mut lines = vec![format!(
        "reloaded {}: name, gamemode, language, website, stats_interval_secs",
        path.display()
    )];
    if let Some(start) = file.at_start
        && with_reloadables(start, &config) != config
    {
        lines.push("other settings changed in the file; they take effect at the next start".into());
    }
    lines
}
