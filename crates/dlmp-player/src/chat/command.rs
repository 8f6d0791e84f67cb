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

#[cfg(test)]
mod tests {
    use super::*;

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
