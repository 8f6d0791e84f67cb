//! What a resource's Lua may reach of the machine (ADR 0035; docs/lua-api.md,
//! "Sandbox"): files only inside its own folder and the server's data folder, `require`
//! only of modules in its own folder, no loading of C code, no environment, no programs.

use std::path::{Component, Path, PathBuf};

use mlua::{Function, Lua, MultiValue, Result, Table, Value};

/// The prefix that addresses the server's data folder: `io.open("$data/scores.txt")`.
pub const DATA_PREFIX: &str = "$data/";

/// Where a resource's files may be.
#[derive(Debug, Clone)]
pub struct Roots {
    pub resource: PathBuf,
    /// The server's data folder, when configured ([`ScriptHost::set_data_dir`]).
    ///
    /// [`ScriptHost::set_data_dir`]: super::ScriptHost::set_data_dir
    pub data: Option<PathBuf>,
}

impl Roots {
    /// The file `path` names, or why it is refused: absolute paths, `..`, and anything
    /// that resolves (through symlinks) outside its root.
    pub fn resolve(&self, path: &str) -> std::result::Result<PathBuf, String> {
        let (root, rest) = match path.strip_prefix(DATA_PREFIX) {
            Some(rest) => match &self.data {
                Some(data) => (data, rest),
                None => return Err(format!("{path}: the server has no data folder")),
            },
            None => (&self.resource, path),
        };
        let relative = Path::new(rest);
        if rest.is_empty()
            || rest.starts_with(['/', '\\'])
            || !relative
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(format!(
                "{path}: only relative paths inside the resource's folder (or {DATA_PREFIX}...), without '..'"
            ));
        }
        let joined = root.join(relative);
        let outside = || format!("{path}: resolves outside the resource's folder");
        let root = root.canonicalize().map_err(|e| format!("{path}: {e}"))?;
        // A file that does not exist yet (a write) is checked by its folder.
        let real = match joined.canonicalize() {
            Ok(real) => real,
            Err(_) => {
                let parent = joined.parent().ok_or_else(outside)?;
                let name = joined.file_name().ok_or_else(outside)?;
                parent
                    .canonicalize()
                    .map_err(|e| format!("{path}: {e}"))?
                    .join(name)
            }
        };
        if real.starts_with(&root) {
            Ok(real)
        } else {
            Err(outside())
        }
    }
}

/// Removes from the shared globals what no resource may have: C modules
/// (`package.loadlib`, `require` of the search path), the environment (`os.getenv`), files
/// by any path (`dofile`, `loadfile`, `io.input`/`io.output` by name, `io.tmpfile`).
pub(super) fn strip_globals(lua: &Lua) -> Result<()> {
    let globals = lua.globals();
    for name in ["dofile", "loadfile", "require", "package"] {
        globals.set(name, Value::Nil)?;
    }
    let os: Table = globals.get("os")?;
    os.set("getenv", Value::Nil)?;
    let io: Table = globals.get("io")?;
    for name in ["input", "output", "tmpfile", "lines", "open"] {
        io.set(name, Value::Nil)?;
    }
    Ok(())
}

/// The per-resource `io` (with `open` and `lines` confined to `roots`), `require` and
/// `package.loaded`, set in the resource's environment `env`.
pub(super) fn install(
    lua: &Lua,
    env: &Table,
    roots: Roots,
    open: &Function,
    lines: &Function,
) -> Result<()> {
    let shared_io: Table = lua.globals().get("io")?;
    let io = lua.create_table()?;
    for pair in shared_io.pairs::<Value, Value>() {
        let (k, v) = pair?;
        io.set(k, v)?;
    }
    let r = roots.clone();
    let open = open.clone();
    io.set(
        "open",
        lua.create_function(move |lua, (path, mode): (String, Option<String>)| {
            match r.resolve(&path) {
                Ok(real) => open.call::<MultiValue>((real.to_string_lossy().into_owned(), mode)),
                // A refusal answers like a failed open: nil and the reason.
                Err(e) => Ok(MultiValue::from_iter([
                    Value::Nil,
                    Value::String(lua.create_string(format!("io.open: {e}"))?),
                ])),
            }
        })?,
    )?;
    let r = roots.clone();
    let lines = lines.clone();
    io.set(
        "lines",
        lua.create_function(move |lua, mut rest: MultiValue| {
            let path = match rest.pop_front() {
                Some(Value::String(s)) => s.to_str()?.to_owned(),
                _ => return Err(mlua::Error::runtime("io.lines: a file name is required")),
            };
            let real = r
                .resolve(&path)
                .map_err(|e| mlua::Error::runtime(format!("io.lines: {e}")))?;
            rest.push_front(Value::String(
                lua.create_string(real.to_string_lossy().as_bytes())?,
            ));
            lines.call::<MultiValue>(rest)
        })?,
    )?;
    env.set("io", io)?;

    let loaded = lua.create_table()?;
    let package = lua.create_table()?;
    package.set("loaded", &loaded)?;
    env.set("package", package)?;
    let env_ref = env.clone();
    env.set(
        "require",
        lua.create_function(move |lua, name: String| {
            if let Some(v) = loaded.get::<Option<Value>>(name.as_str())? {
                return Ok(v);
            }
            let valid = !name.is_empty()
                && name.split('.').all(|part| {
                    !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            if !valid {
                return Err(mlua::Error::runtime(format!(
                    "require: module name {name:?} must be words joined by '.' (a/b.lua is \"a.b\")"
                )));
            }
            let file = format!("{}.lua", name.replace('.', "/"));
            let real = roots
                .resolve(&file)
                .map_err(|e| mlua::Error::runtime(format!("require: {e}")))?;
            let code = std::fs::read_to_string(&real).map_err(|e| {
                mlua::Error::runtime(format!(
                    "require: module {name} not found in the resource's folder ({file}: {e})"
                ))
            })?;
            let value: Value = lua
                .load(&code)
                .set_name(format!("@{file}"))
                .set_environment(env_ref.clone())
                .call(name.as_str())?;
            let value = if value.is_nil() {
                Value::Boolean(true)
            } else {
                value
            };
            loaded.set(name.as_str(), &value)?;
            Ok(value)
        })?,
    )?;
    Ok(())
}
