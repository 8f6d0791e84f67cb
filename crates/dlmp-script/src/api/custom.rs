//! Events between resources and gamemode commands (ADR 0035): `dlmp.emit` raises a custom
//! event to every resource's `dlmp.on` handlers; `dlmp.on` refuses a name that is neither
//! a built-in event nor a custom one (custom names contain a `:`), suggesting the nearest
//! built-in; `dlmp.add_command` registers one `/command`.

use mlua::{Error, Lua, MultiValue, Result, Table, Value};
use tracing::error;

use super::super::state::{ChatCommand, ResourceId};
use super::{args, state, state_mut};

/// Checks a name given to `dlmp.on`: a built-in event (the host's and those the crates
/// registered, `known`), or a custom one (`race:finish`).
pub(super) fn check_event_name(func: &str, name: &str, known: &[&'static str]) -> Result<()> {
    if known.contains(&name) || is_custom(name) {
        return Ok(());
    }
    let nearest = known
        .iter()
        .min_by_key(|built_in| distance(name, built_in))
        .filter(|built_in| distance(name, built_in) <= 3);
    let hint = nearest.map_or(String::new(), |n| format!(" (did you mean {n}?)"));
    Err(Error::runtime(format!(
        "{func}: unknown event {name}{hint}; custom event names contain a ':', such as \"race:finish\""
    )))
}

/// A custom event's name: `resource:what`, a non-empty text around a `:`.
fn is_custom(name: &str) -> bool {
    name.split_once(':')
        .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
}

/// Levenshtein distance, for the typo hint.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The longest command name.
const MAX_COMMAND: usize = 32;

pub(super) fn install(lua: &Lua, dlmp: &Table, resource: ResourceId) -> Result<()> {
    dlmp.set(
        "emit",
        lua.create_function(|lua, mut rest: MultiValue| {
            let name = args::string("emit", "name", &rest.pop_front().unwrap_or(Value::Nil))?;
            if !is_custom(&name) {
                return Err(Error::runtime(format!(
                    "emit: {name} is not a custom event name (it must contain a ':', such as \"race:finish\")"
                )));
            }
            // The handlers as they are now; one may add or remove handlers while it runs.
            let handlers: Vec<(String, mlua::Function)> = {
                let state = state(lua)?;
                state
                    .handlers
                    .get(&name)
                    .map(|list| {
                        list.iter()
                            .map(|h| {
                                let owner = state.resource_names.get(&h.resource);
                                (owner.cloned().unwrap_or_default(), h.func.clone())
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let ran = handlers.len();
            for (owner, func) in handlers {
                if let Err(e) = func.call::<()>(rest.clone()) {
                    if e.to_string().contains("budget exceeded") {
                        return Err(e);
                    }
                    error!(resource = owner, "{name}: {e}");
                    state_mut(lua)?.emit_errors += 1;
                }
            }
            Ok(ran)
        })?,
    )?;

    dlmp.set(
        "fetch",
        lua.create_function(move |lua, (url, opts, func): (Value, Value, Value)| {
            const F: &str = "fetch";
            let url = args::string(F, "url", &url)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(Error::runtime(format!(
                    "fetch: only http:// and https:// URLs are supported, got {url}"
                )));
            }
            let func = args::function(F, "fn", func)?;
            let mut request = super::super::fetch::Request {
                id: 0,
                url,
                method: "GET".to_owned(),
                headers: Vec::new(),
                body: String::new(),
                timeout: std::time::Duration::from_secs(10),
            };
            match opts {
                Value::Nil => {}
                Value::Table(t) => {
                    for pair in t.pairs::<String, Value>() {
                        let (k, v) = pair?;
                        match k.as_str() {
                            "method" => {
                                request.method = args::string(F, "method", &v)?.to_ascii_uppercase()
                            }
                            "body" => request.body = args::string(F, "body", &v)?,
                            "timeout_ms" => {
                                let ms = args::integer(F, "timeout_ms", &v, 1..=600_000)?;
                                request.timeout =
                                    std::time::Duration::from_millis(ms.unsigned_abs());
                            }
                            "headers" => {
                                let Value::Table(h) = v else {
                                    return Err(Error::runtime("fetch: headers must be a table"));
                                };
                                for pair in h.pairs::<String, String>() {
                                    let (k, v) = pair?;
                                    if !super::super::fetch::valid_header(&k, &v) {
                                        return Err(Error::runtime(format!(
                                            "fetch: header {k:?} is not a valid header"
                                        )));
                                    }
                                    request.headers.push((k, v));
                                }
                            }
                            other => {
                                return Err(Error::runtime(format!(
                                    "fetch: unknown option {other}"
                                )));
                            }
                        }
                    }
                }
                other => {
                    return Err(Error::runtime(format!(
                        "fetch: opts must be a table, got {}",
                        other.type_name()
                    )));
                }
            }
            if !request.method.chars().all(|c| c.is_ascii_uppercase()) || request.method.is_empty()
            {
                return Err(Error::runtime(format!(
                    "fetch: method {:?} is not a method",
                    request.method
                )));
            }
            let mut state = state_mut(lua)?;
            let pending = state
                .fetches
                .values()
                .filter(|(r, _)| *r == resource)
                .count();
            if pending >= super::super::fetch::PER_RESOURCE {
                return Err(Error::runtime(format!(
                    "fetch: this resource has {pending} requests pending (at most {})",
                    super::super::fetch::PER_RESOURCE
                )));
            }
            if state.fetch.is_none() {
                let client = super::super::fetch::Client::start(&state.fetch_settings)
                    .map_err(|e| Error::runtime(format!("fetch: cannot start the worker: {e}")))?;
                state.fetch = Some(client);
            }
            request.id = state.next_handle();
            let id = request.id;
            if !state.fetch.as_ref().is_some_and(|c| c.send(request)) {
                return Err(Error::runtime(
                    "fetch: queue full (too many requests waiting)",
                ));
            }
            state.fetches.insert(id, (resource, func));
            Ok(())
        })?,
    )?;

    dlmp.set(
        "add_command",
        lua.create_function(move |lua, (command, func): (Value, Value)| {
            const F: &str = "add_command";
            let command = args::string(F, "name", &command)?;
            let func = args::function(F, "fn", func)?;
            let valid = !command.is_empty()
                && command.len() <= MAX_COMMAND
                && command
                    .chars()
                    .all(|c| c.is_ascii_graphic() && !c.is_ascii_uppercase() && c != '/');
            if !valid {
                return Err(Error::runtime(format!(
                    "{F}: name {command:?} must be 1..={MAX_COMMAND} lower-case characters without spaces or '/'"
                )));
            }
            let mut state = state_mut(lua)?;
            if let Some(taken) = state.chat_commands.get(&command)
                && taken.resource != resource
            {
                let other = state
                    .resource_names
                    .get(&taken.resource)
                    .cloned()
                    .unwrap_or_default();
                return Err(Error::runtime(format!(
                    "{F}: /{command} is already a command of {other}"
                )));
            }
            let handle = state.next_handle();
            state.chat_commands.insert(
                command,
                ChatCommand {
                    handle,
                    resource,
                    func,
                },
            );
            Ok(())
        })?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_of_a_built_in_event_is_refused_with_the_nearest_name() {
        let known = &["player_connect", "tick"];
        let e = check_event_name("on", "player_conect", known).expect_err("a typo");
        assert!(
            e.to_string().contains("did you mean player_connect?"),
            "{e}"
        );
        assert!(check_event_name("on", "player_connect", known).is_ok());
        assert!(check_event_name("on", "race:finish", known).is_ok());
        assert!(check_event_name("on", "finish", known).is_err());
        assert!(check_event_name("on", ":finish", known).is_err());
    }
}
