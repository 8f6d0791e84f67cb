//! The layering of docs/architecture.md holds: each crate depends only on the workspace
//! crates its layer may use (the compiler refuses a circle between crates, not a shortcut
//! down the table), the protocol knows no ECS and no Lua, and inside every crate the files
//! that import each other in a circle are few: no circle of more than 25 files, counted
//! from `use crate::` / `use super::` paths, and none through the config or the assembly.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each package, with the workspace crates (and the external crates that must not appear)
/// it may depend on.
const LAYERS: &[(&str, &[&str])] = &[
    ("crates/dlmp-protocol", &[]),
    ("crates/dlmp-net", &["dlmp-protocol"]),
    ("crates/dlmp-core", &["dlmp-protocol", "dlmp-net"]),
    (
        "crates/dlmp-script",
        &["dlmp-protocol", "dlmp-net", "dlmp-core"],
    ),
    (
        "crates/dlmp-player",
        &["dlmp-protocol", "dlmp-net", "dlmp-core", "dlmp-script"],
    ),
    (
        "crates/dlmp-vehicle",
        &[
            "dlmp-protocol",
            "dlmp-net",
            "dlmp-core",
            "dlmp-script",
            "dlmp-player",
        ],
    ),
    (
        "crates/dlmp-world",
        &[
            "dlmp-protocol",
            "dlmp-net",
            "dlmp-core",
            "dlmp-script",
            "dlmp-player",
            "dlmp-vehicle",
        ],
    ),
    (
        "crates/dlmp-ops",
        &[
            "dlmp-protocol",
            "dlmp-net",
            "dlmp-core",
            "dlmp-script",
            "dlmp-player",
            "dlmp-vehicle",
            "dlmp-world",
        ],
    ),
    (
        "crates/dlmp-admin",
        &[
            "dlmp-protocol",
            "dlmp-net",
            "dlmp-core",
            "dlmp-script",
            "dlmp-player",
            "dlmp-vehicle",
            "dlmp-world",
            "dlmp-ops",
        ],
    ),
    ("tools/dlmp-load", &["dlmp-protocol"]),
];

/// The workspace crates and every other dependency of a package's `[dependencies]`.
fn dependencies(package: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(package.join("Cargo.toml")).expect("a manifest");
    let manifest: toml::Table = toml::from_str(&text).expect("TOML");
    manifest
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn every_crate_depends_only_on_the_layers_below_it() {
    let all: BTreeSet<&str> = LAYERS
        .iter()
        .filter_map(|(p, _)| p.strip_prefix("crates/"))
        .collect();
    for (package, allowed) in LAYERS {
        let deps = dependencies(&root().join(package));
        for dep in &deps {
            if all.contains(dep.as_str()) {
                assert!(
                    allowed.contains(&dep.as_str()),
                    "{package} depends on {dep}, a layer it may not use (docs/architecture.md)"
                );
            }
        }
    }
    let protocol = dependencies(&root().join("crates/dlmp-protocol"));
    for forbidden in ["bevy_app", "bevy_ecs", "bevy_time", "mlua"] {
        assert!(
            !protocol.contains(forbidden),
            "the protocol uses {forbidden}"
        );
    }
    let load = dependencies(&root().join("tools/dlmp-load"));
    assert!(
        load.iter()
            .all(|d| !d.starts_with("dlmp") || d == "dlmp-protocol"),
        "the load tool uses {load:?}"
    );
}

/// The `.rs` files under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src` (`a/b.rs` and `a/b/mod.rs` are `[a, b]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file
        .strip_prefix(src)
        .expect("below src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text without line comments and without a trailing `#[cfg(test)] mod ... { }`.
fn code(text: &str) -> String {
    let stripped: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    match stripped.find("#[cfg(test)]\nmod ") {
        Some(at) => stripped[..at].to_owned(),
        None => stripped,
    }
}

/// Every path of a `use` tree, expanded: `crate::a::{b, c::d}` is `crate::a::b`,
/// `crate::a::c::d`.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], prefix, out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let n = head.len();
        prefix.extend(head);
        expand(&tree[open..], prefix, out);
        prefix.truncate(prefix.len() - n);
        return;
    }
    let path = tree.split(" as ").next().unwrap_or(tree);
    let mut full = prefix.clone();
    full.extend(path.split("::").map(|s| s.trim().to_owned()));
    out.push(full);
}

/// The `crate::`, `super::` and `self::` paths a file names, in `use` lines and elsewhere.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        let tree = &rest[..end];
        let first = tree.trim_start();
        if first.starts_with("crate::")
            || first.starts_with("super::")
            || first.starts_with("self::")
        {
            expand(tree, &mut Vec::new(), &mut out);
        }
    }
    for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
        if word.starts_with("crate::") || word.starts_with("super::") || word.starts_with("self::")
        {
            out.push(
                word.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    out
}

/// The file a path names: the longest module prefix that is a file of the crate.
fn resolve(
    modules: &HashMap<Vec<String>, usize>,
    current: &[String],
    path: &[String],
) -> Option<usize> {
    let mut base: Vec<String> = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("super" | "self") => {
            base = current.to_vec();
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    (0..=base.len())
        .rev()
        .find_map(|n| modules.get(&base[..n]).copied())
}

/// Tarjan's strongly connected components.
fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &s.edges[v].clone() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out.into_iter().filter(|c| c.len() > 1).collect()
}

/// The import circles of the crate whose sources are in `src`, as file lists.
fn circles_of(src: &Path) -> Vec<Vec<PathBuf>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.retain(|f| !f.starts_with(src.join("bin")));
    files.sort();
    let modules: HashMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (module_of(src, f), i))
        .collect();
    let edges: Vec<BTreeSet<usize>> = files
        .iter()
        .map(|f| {
            let current = module_of(src, f);
            let text = std::fs::read_to_string(f).expect("a source file");
            let me = modules[&current];
            paths(&code(&text))
                .iter()
                .filter_map(|p| resolve(&modules, &current, p))
                .filter(|&t| t != me)
                .collect()
        })
        .collect();
    circles(&edges)
        .into_iter()
        .map(|c| c.into_iter().map(|i| files[i].clone()).collect())
        .collect()
}

#[test]
fn no_crate_has_an_import_circle_of_more_than_25_files_or_one_through_the_config_or_assembly() {
    let mut crates: Vec<PathBuf> = vec![root().join("src")];
    for folder in ["crates", "tools"] {
        for entry in std::fs::read_dir(root().join(folder))
            .expect("a folder")
            .flatten()
        {
            crates.push(entry.path().join("src"));
        }
    }
    let mut largest: BTreeMap<String, usize> = BTreeMap::new();
    for src in crates {
        let name = src
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        for circle in circles_of(&src) {
            let list: Vec<String> = circle
                .iter()
                .map(|f| f.strip_prefix(&src).unwrap_or(f).display().to_string())
                .collect();
            assert!(
                circle.len() <= 25,
                "{name}: {} files import each other in a circle: {list:?}",
                circle.len()
            );
            assert!(
                !list
                    .iter()
                    .any(|f| f == "config.rs" || f.starts_with("server/")),
                "{name}: a circle runs through the config or the assembly: {list:?}"
            );
            let entry = largest.entry(name.clone()).or_default();
            *entry = (*entry).max(circle.len());
        }
    }
    println!("largest circle per crate: {largest:?}");
}
