//! Parsing a `/command args` line (connection.md §4).

use bevy_ecs::entity::Entity;

/// A command a player typed, as its handler receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandCall {
    pub player: Entity,
    /// Lower-case, without the slash.
    pub name: String,
    /// Everything after the name, trimmed.
    pub args: String,
}

/// `"/Tp  12 34"` → `("tp", "12 34")`; `None` for a line that is not a command (no
/// leading slash, or nothing after it).
pub fn parse_command(text: &str) -> Option<(String, &str)> {
    let rest = text.strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    (!name.is_empty()).then(|| (name.to_lowercase(), args.trim()))
}

/// Commands whose arguments are passwords (the account commands of gamemodes, as
/// freeroam's `/register` and `/login`, ADR 0105): the chat log keeps the name, never the
/// rest.
pub const SECRET_COMMANDS: [&str; 4] = ["login", "register", "password", "changepassword"];

/// A chat line as the chat log keeps it: a secret command's arguments hidden.
pub(crate) fn logged_text(text: &str) -> std::borrow::Cow<'_, str> {
    match parse_command(text) {
        Some((name, args)) if !args.is_empty() && SECRET_COMMANDS.contains(&name.as_str()) => {
            std::borrow::Cow::Owned(format!("/{name} ***"))
        }
        _ => std::borrow::Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_hides_the_arguments_of_password_commands_only() {
        assert_eq!(logged_text("/LOGIN hunter2"), "/login ***");
        assert_eq!(logged_text("/register  hunter2 "), "/register ***");
        assert_eq!(logged_text("/login"), "/login");
        assert_eq!(logged_text("/tp 1 2 3"), "/tp 1 2 3");
        assert_eq!(logged_text("my login is hunter2"), "my login is hunter2");
    }

    #[test]
    fn commands_split_name_and_args() {
        assert_eq!(parse_command("/help"), Some(("help".to_owned(), "")));
        assert_eq!(
            parse_command("/Tp  12 34 "),
            Some(("tp".to_owned(), "12 34"))
        );
        assert_eq!(parse_command("hello /x"), None);
        assert_eq!(parse_command("/"), None);
        assert_eq!(parse_command("/ x"), None);
    }
}
