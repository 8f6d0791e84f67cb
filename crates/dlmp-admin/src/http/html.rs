//! HTML text: escaping (every player name, chat line, reason and log line goes through
//! [`esc`]) and the page frame with its navigation.

use std::fmt::Write as _;

use dlmp_ops::accounts::Area;

use super::auth::Session;

/// `text` safe inside an element or a quoted attribute.
#[must_use]
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The pages of the navigation: path, title, area.
pub const PAGES: &[(&str, &str, Area)] = &[
    ("/", "Dashboard", Area::Dashboard),
    ("/players", "Players", Area::Players),
    ("/bans", "Bans", Area::Bans),
    ("/map", "Map", Area::Map),
    ("/chat", "Chat log", Area::ChatLog),
    ("/resources", "Resources", Area::Resources),
    ("/console", "Console", Area::Console),
    ("/settings", "Settings", Area::Settings),
];

/// A whole page: the head, the navigation the admin's role allows, an optional notice,
/// and `body`.
#[must_use]
pub fn page(
    title: &str,
    server: &str,
    session: &Session,
    notice: Option<&str>,
    body: &str,
) -> String {
    let mut nav = String::new();
    for (path, name, area) in PAGES {
        if session.role.may(*area) {
            let current = if *name == title {
                " class=\"current\""
            } else {
                ""
            };
            let _ = write!(nav, "<a href=\"{path}\"{current}>{name}</a>");
        }
    }
    let notice = notice
        .filter(|n| !n.is_empty())
        .map(|n| format!("<p class=\"notice\" id=\"notice\">{}</p>", esc(n)))
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"csrf\" content=\"{csrf}\">\
         <title>{title} · {server}</title>\
         <link rel=\"stylesheet\" href=\"/assets/style.css\">\
         <script src=\"/assets/app.js\" defer></script></head>\
         <body><header><span class=\"brand\">{server}</span><nav>{nav}</nav>\
         <form method=\"post\" action=\"/logout\" class=\"signout\">{hidden}\
         <span class=\"who\">{who} ({role})</span> <button>Sign out</button></form></header>\
         <main><h1>{title}</h1>{notice}{body}</main></body></html>\n",
        csrf = esc(&session.csrf),
        title = esc(title),
        server = esc(server),
        hidden = csrf_field(session),
        who = esc(&session.name),
        role = session.role.as_str(),
    )
}

/// The hidden CSRF field every form carries.
#[must_use]
pub fn csrf_field(session: &Session) -> String {
    format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">",
        esc(&session.csrf)
    )
}

/// The sign-in page: a form with `name` and `password`.
#[must_use]
pub fn sign_in(server: &str, error: Option<&str>) -> String {
    let error = error
        .map(|e| format!("<p class=\"error\" id=\"error\">{}</p>", esc(e)))
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Sign in · {server}</title><link rel=\"stylesheet\" href=\"/assets/style.css\">\
         </head><body class=\"signin\"><main><h1>{server}</h1>{error}\
         <form method=\"post\" action=\"/login\" id=\"signin\">\
         <label>Name <input name=\"name\" autocomplete=\"username\" required autofocus></label>\
         <label>Password <input name=\"password\" type=\"password\" \
         autocomplete=\"current-password\" required></label>\
         <button type=\"submit\">Sign in</button></form></main></body></html>\n",
        server = esc(server),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped() {
        assert_eq!(
            esc("<script>alert(\"x\")</script> & 'y'"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(esc("a\u{0}b"), "a\u{fffd}b");
    }
}
