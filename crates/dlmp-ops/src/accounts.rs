//! The admin panel's accounts (`[[admin_users]]`, ADR 0102): a name, an argon2 hash and a
//! role. An `owner` may do everything; a `moderator` the players, kicks, bans, the chat
//! log and the map, but not the console, the resources or the settings.

use serde::{Deserialize, Serialize};

/// One `[[admin_users]]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AdminUser {
    pub name: String,
    /// `dlmp-server --hash-password` prints it.
    pub password_hash: String,
    pub role: AdminRole,
}

/// What an account may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AdminRole {
    Owner,
    Moderator,
}

/// The panel's areas, each needing a role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    Dashboard,
    Players,
    Bans,
    ChatLog,
    Map,
    Console,
    Resources,
    Settings,
}

impl AdminRole {
    #[must_use]
    pub fn may(self, area: Area) -> bool {
        match self {
            AdminRole::Owner => true,
            AdminRole::Moderator => {
                !matches!(area, Area::Console | Area::Resources | Area::Settings)
            }
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AdminRole::Owner => "owner",
            AdminRole::Moderator => "moderator",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn a_moderator_may_not_use_the_console_resources_or_settings() {
        for area in [
            Area::Dashboard,
            Area::Players,
            Area::Bans,
            Area::ChatLog,
            Area::Map,
        ] {
            assert!(AdminRole::Moderator.may(area), "{area:?}");
        }
        for area in [Area::Console, Area::Resources, Area::Settings] {
            assert!(!AdminRole::Moderator.may(area), "{area:?}");
            assert!(AdminRole::Owner.may(area), "{area:?}");
        }
    }

    #[test]
    fn the_panel_without_an_account_or_with_a_bad_hash_is_refused() {
        let c: Config = toml::from_str("admin = \"127.0.0.1:8080\"").expect("parses");
        let e = c.validate().expect_err("no account");
        assert!(e.0.contains("admin_users"), "{e}");
        let hash = crate::password::hash_password("pw").expect("a hash");
        let c: Config = toml::from_str(&format!(
            "admin = \"127.0.0.1:8080\"\n[[admin_users]]\nname = \"ann\"\npassword_hash = \"{hash}\"\nrole = \"owner\"\n"
        ))
        .expect("parses");
        assert!(c.validate().is_ok());
        let bad: Config = toml::from_str(
            "admin = \"127.0.0.1:8080\"\n[[admin_users]]\nname = \"ann\"\npassword_hash = \"hunter2\"\nrole = \"owner\"\n",
        )
        .expect("parses");
        assert!(
            bad.validate()
                .expect_err("plain")
                .0
                .contains("password_hash")
        );
        assert!(
            toml::from_str::<Config>(
                "[[admin_users]]\nname = \"a\"\npassword_hash = \"x\"\nrole = \"god\"\n"
            )
            .is_err(),
            "an unknown role"
        );
        let half: Config = toml::from_str("admin_tls_cert = \"c.pem\"").expect("parses");
        assert!(half.validate().is_err());
    }
}
