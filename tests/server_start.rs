//! Start-up checks of `dlmp::Server` and the plugin settings' path: no gamemode resource is
//! refused with the folder named; plugins read their `[plugins.*]` tables through it.

use std::path::PathBuf;

use clap::Parser;
use dlmp::config::Cli;
use dlmp::harness::Harness;
use dlmp::prelude::*;
use dlmp::server::gamemode_check;

#[test]
fn no_gamemode_resource_is_refused_naming_the_folder() {
    let dir = std::env::temp_dir().join(format!("dlmp-no-gm-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("not-a-resource")).expect("temp dir");
    let e = gamemode_check(&dir, &[]).expect_err("no resource");
    assert!(e.0.contains(&dir.display().to_string()), "{e}");
    assert!(e.0.contains("resource.toml"), "{e}");
    let missing = gamemode_check(&dir.join("missing"), &[]).expect_err("no folder");
    assert!(
        missing.0.contains("cannot read the scripts folder"),
        "{missing}"
    );
    assert!(gamemode_check(&scripts(), &[]).is_ok());
}

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts")
}

/// The command line as an admin types it.
fn config_of(args: &[&str]) -> Config {
    let cli = Cli::parse_from(std::iter::once("dlmp-server").chain(args.iter().copied()));
    Config::from_cli(&cli).expect("valid settings")
}

#[test]
fn a_resource_flag_naming_no_resource_is_refused_naming_it_and_the_folder() {
    let folder = scripts();
    let path = folder.to_str().expect("UTF-8 path");
    let config = config_of(&["--scripts", path, "--resource", "freeroma"]);
    let e = gamemode_check(&config.scripts, &config.resources).expect_err("typo");
    assert!(e.0.contains("no resource named freeroma"), "{e}");
    assert!(e.0.contains(&folder.display().to_string()), "{e}");
    assert!(e.0.contains("freeroam"), "names the resources there: {e}");
    let config = config_of(&["--scripts", path, "--resource", "freeroam"]);
    assert!(gamemode_check(&config.scripts, &config.resources).is_ok());
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Probe {
    level: u8,
}

struct ProbePlugin;

#[derive(Resource)]
struct Read(Option<Probe>);

impl Plugin for ProbePlugin {
    fn build(&self, app: &mut App) {
        let read = plugin_settings::<Probe>(app, "probe");
        app.insert_resource(Read(read));
    }
}

#[test]
fn plugins_read_their_tables_and_unread_tables_are_listed() {
    let mut config = Harness::config();
    config
        .plugins
        .insert("probe".into(), toml::from_str("level = 3").expect("TOML"));
    config
        .plugins
        .insert("typo".into(), toml::from_str("x = 1").expect("TOML"));
    let h = Harness::with_app(config, |app| {
        app.add_plugins(ProbePlugin);
    });
    assert_eq!(h.world().resource::<Read>().0, Some(Probe { level: 3 }));
    let settings = h.world().resource::<PluginSettings>();
    assert_eq!(settings.unread(), ["typo"]);
    assert!(settings.errors().is_empty());
}
