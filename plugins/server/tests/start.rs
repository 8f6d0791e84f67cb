//! The `dlmp-server` binary's plugins, started from a config file as an admin writes it:
//! each shipped plugin is off until its `[plugins.NAME]` table turns it on, and a table for
//! a plugin the server does not have stops the start naming the plugins it has; and
//! `--hash-password` prints a hash for the admin panel's accounts.

use clap::Parser;
use dlmp::config::{Cli, Config};
use dlmp::harness::Harness;
use dlmp::prelude::*;
use dlmp_anticheat::AntiCheatSettings;
use dlmp_idle_kick::IdleKickSettings;
use dlmp_server::ShippedPlugins;

/// The config `--config FILE` reads from `text` (beside the harness's own settings).
fn config_file(test: &str, text: &str) -> Config {
    let dir = std::env::temp_dir().join(format!("dlmp-server-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("server.toml");
    std::fs::write(&path, text).expect("write");
    let cli = Cli::parse_from([
        "dlmp-server",
        "--config",
        path.to_str().expect("UTF-8 path"),
    ]);
    let file = Config::from_cli(&cli).expect("valid settings");
    Config {
        plugins: file.plugins,
        ..Harness::config()
    }
}

fn server(config: Config) -> Harness {
    Harness::with_app(config, |app| {
        app.add_plugins(ShippedPlugins);
    })
}

#[test]
fn a_shipped_plugin_is_on_only_with_its_table() {
    let h = server(config_file("one", "[plugins.idle_kick]\nidle_secs = 60\n"));
    assert_eq!(
        h.world()
            .get_resource::<IdleKickSettings>()
            .map(|s| s.idle_secs),
        Some(60)
    );
    assert!(
        h.world().get_resource::<AntiCheatSettings>().is_none(),
        "off"
    );
    assert!(h.world().resource::<PluginSettings>().check().is_ok());
    let h = server(config_file("none", "max_players = 10\n"));
    assert!(h.world().get_resource::<IdleKickSettings>().is_none());
    assert!(h.world().get_resource::<AntiCheatSettings>().is_none());
    assert!(h.world().resource::<PluginSettings>().check().is_ok());
}

#[test]
fn a_table_for_a_plugin_the_server_does_not_have_stops_the_start_naming_the_known_ones() {
    let h = server(config_file(
        "typo",
        "[plugins.idle_kick]\n[plugins.anticheet]\nkick_at = 3\n",
    ));
    let e = h
        .world()
        .resource::<PluginSettings>()
        .check()
        .expect_err("an unknown plugin");
    assert_eq!(
        e.0,
        "[plugins.anticheet]: no plugin of this server reads it; the plugins of this server \
         are anticheat, idle_kick"
    );
    let h = server(config_file(
        "misfit",
        "[plugins.idle_kick]\nidle_secs = \"soon\"\n",
    ));
    let e = h
        .world()
        .resource::<PluginSettings>()
        .check()
        .expect_err("a table that does not fit");
    assert!(e.0.starts_with("[plugins.idle_kick]"), "{e}");
}

/// `dlmp-server --hash-password` (ADR 0102): the first line of stdin becomes an argon2
/// hash on stdout that verifies that password only; an empty one is refused.
#[test]
fn hash_password_prints_a_hash_of_the_line_on_stdin() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let run = |input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dlmp-server"))
            .arg("--hash-password")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server binary");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("written");
        child.wait_with_output().expect("it ends")
    };
    let out = run("a long passphrase\r\n");
    assert!(out.status.success(), "{out:?}");
    let hash = String::from_utf8(out.stdout).expect("text");
    let hash = hash.trim_end();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    assert_eq!(
        dlmp::password::verify_password("a long passphrase", hash),
        Ok(true)
    );
    assert_eq!(
        dlmp::password::verify_password("a long passphrase\r", hash),
        Ok(false)
    );
    let empty = run("\n");
    assert!(!empty.status.success());
    assert!(
        String::from_utf8_lossy(&empty.stderr).contains("the password is empty"),
        "{empty:?}"
    );
}
