//! `?` marks to PostgreSQL's `$1, $2, ...` (lua-api.md: "the same gamemode SQL runs on
//! both"), outside quoted text: string literals (`'it''s?'`), quoted identifiers (`"a?"`),
//! dollar-quoted strings (`$$?$$`, `$tag$?$tag$`) and comments (`-- ?`, `/* ? */`).

/// `sql` with every `?` outside quoted text and comments numbered in order.
#[must_use]
pub fn numbered(sql: &str) -> String {
    rewrite(sql).0
}

/// The `?` marks of `sql` outside quoted text and comments.
#[must_use]
pub fn count(sql: &str) -> usize {
    rewrite(sql).1 as usize
}

fn rewrite(sql: &str) -> (String, u32) {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0u32;
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        let taken = match c {
            '\'' | '"' => quoted(rest, c),
            '-' if rest.starts_with("--") => rest.find('\n').map_or(rest.len(), |i| i + 1),
            '/' if rest.starts_with("/*") => rest[2..].find("*/").map_or(rest.len(), |i| i + 4),
            '$' => dollar_quoted(rest).unwrap_or(1),
            '?' => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
                rest = &rest[1..];
                continue;
            }
            _ => c.len_utf8(),
        };
        out.push_str(&rest[..taken]);
        rest = &rest[taken..];
    }
    (out, n)
}

/// The length of the quoted text `rest` starts with, up to its closing `quote` (a doubled
/// quote is an escaped one, and reads as a close and a new open), or all of it.
fn quoted(rest: &str, quote: char) -> usize {
    rest[1..].find(quote).map_or(rest.len(), |i| i + 2)
}

/// The length of the dollar-quoted string `rest` starts with (`$tag$ ... $tag$`), if it
/// starts with one; a `$1` parameter or a lone `$` is not one.
fn dollar_quoted(rest: &str) -> Option<usize> {
    let tag_end = rest[1..].find('$')? + 2;
    let tag = &rest[..tag_end];
    let inner = &tag[1..tag.len() - 1];
    let is_tag = inner
        .chars()
        .enumerate()
        .all(|(i, c)| c == '_' || c.is_alphabetic() || (i > 0 && c.is_ascii_digit()));
    if !is_tag {
        return None;
    }
    let close = rest[tag_end..].find(tag)?;
    Some(tag_end + close + tag.len())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::{count, numbered};

    #[rstest]
    #[case::plain(
        "SELECT * FROM t WHERE a = ? AND b = ?",
        "SELECT * FROM t WHERE a = $1 AND b = $2"
    )]
    #[case::none("SELECT 1", "SELECT 1")]
    #[case::string("SELECT '?', ?", "SELECT '?', $1")]
    #[case::escaped_quote("SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1")]
    #[case::identifier(
        r#"SELECT "a?b" FROM t WHERE x = ?"#,
        r#"SELECT "a?b" FROM t WHERE x = $1"#
    )]
    #[case::line_comment("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2")]
    #[case::block_comment("SELECT /* ? */ ?", "SELECT /* ? */ $1")]
    #[case::dollar("SELECT $$ ? $$, ?", "SELECT $$ ? $$, $1")]
    #[case::dollar_tag("SELECT $x$ ' ? $x$, ?", "SELECT $x$ ' ? $x$, $1")]
    #[case::existing_parameter("SELECT $1, ?", "SELECT $1, $1")]
    #[case::unclosed_string("SELECT ?, 'open ?", "SELECT $1, 'open ?")]
    #[case::unicode("SELECT 'é?', ? -- ü", "SELECT 'é?', $1 -- ü")]
    #[case::many("?,?,?,?,?,?,?,?,?,?,?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11")]
    fn question_marks_outside_quotes_are_numbered(#[case] sql: &str, #[case] expected: &str) {
        assert_eq!(numbered(sql), expected);
    }

    #[test]
    fn marks_in_quotes_do_not_count() {
        assert_eq!(count("INSERT INTO t VALUES (?, '?', ?) -- ?"), 2);
        assert_eq!(count("SELECT 1"), 0);
    }
}
