//! Start-up checks of `dlmp::Server` and the plugin settings' path: no gamemode resource is
//! refused with the folder named; plugins read their `[plugins.*]` tables through it;
//! `--hash-password` prints a hash for the admin panel's accounts.

use std::path::PathBuf;

use dlmp::harness::Harness;
use dlmp::prelude::*;
use dlmp::server::gamemode_check;

#[test]
fn no_gamemode_resource_is_refused_naming_the_folder() {
    let dir = std::env::temp_dir().join(format!("dlmp-no-gm-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("not-a-resource")).expect("temp dir");
    let e = gamemode_check(&dir).expect_err("no resource");
    assert!(e.0.contains(&dir.display().to_string()), "{e}");
    assert!(e.0.contains("resource.toml"), "{e}");
    let missing = gamemode_check(&dir.join("missing")).expect_err("no folder");
    assert!(
        missing.0.contains("cannot read the scripts folder"),
        "{missing}"
    );
    assert!(gamemode_check(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts")).is_ok());
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
        dlmp_ops::password::verify_password("a long passphrase", hash),
        Ok(true)
    );
    assert_eq!(
        dlmp_ops::password::verify_password("a long passphrase\r", hash),
        Ok(false)
    );
    let empty = run("\n");
    assert!(!empty.status.success());
    assert!(
        String::from_utf8_lossy(&empty.stderr).contains("the password is empty"),
        "{empty:?}"
    );
}
