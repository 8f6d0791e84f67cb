//! The `dlmp-server` binary's plugins: the server's built-in features and [`ShippedPlugins`],
//! the gameplay plugins of `plugins/`, each off until the config has its `[plugins.NAME]`
//! table (ADR 0036, 0095). A `[plugins.NAME]` table no plugin reads stops the start, naming
//! the plugins there are (`PluginSettings::check`).

use bevy_app::{App, Plugin};

use dlmp_anticheat::AntiCheatPlugin;
use dlmp_idle_kick::IdleKickPlugin;

/// Every gameplay plugin of `plugins/`: `[plugins.anticheat]`, `[plugins.idle_kick]`.
pub struct ShippedPlugins;

impl Plugin for ShippedPlugins {
    fn build(&self, app: &mut App) {
        app.add_plugins((AntiCheatPlugin, IdleKickPlugin));
    }
}
