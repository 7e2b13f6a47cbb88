//! The shape of the house, checked where the compiler does not:
//!
//! - the import rule of ARCHITECTURE.md ("no file imports one that imports
//!   it back") between a module and its parent. Rust lets a child name its
//!   parent's items (`super::Name`), so a parent that re-exports or calls a
//!   child while the child takes an item of the parent closes a loop that
//!   no build refuses;
//! - small files: no source file over [`MAX_LINES`] lines;
//! - a forwarded method is parsed once, at dispatch, and travels as a
//!   `Method` from there: no `Method::parse` anywhere else;
//! - every name ARCHITECTURE.md gives exists (`map`).
//!
//! The check reads the source as text, the way rustfmt leaves it: items of
//! a module start at column 0, the tests of a file sit after its first
//! `#[cfg(test)]` module, and comment lines are left out. It covers this crate's `src/`, and the binary's
//! and the bench's when the workspace is beside it (not in the published
//! package).

mod map;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most lines of one source file: past it a file holds more than one
/// job.
const MAX_LINES: usize = 600;

/// One module file: its path in the crate (`["upstream", "http"]`), its
/// text without its tests, and the files of its children.
struct Module {
    path: Vec<String>,
    file: PathBuf,
    text: String,
    children: Vec<Module>,
}

fn read(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    // A checkout on Windows can have CRLF line ends.
    let text = text.replace("\r\n", "\n");
    // The tests of a file: its first `#[cfg(test)]` module with a body.
    let code = text.find("#[cfg(test)]\nmod tests {").map_or(text.as_str(), |at| &text[..at]);
    // Comments name paths too (doc links), but import nothing.
    code.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The module at `file` and its children, declared as `mod name;` at
/// column 0 and not only for tests.
fn load(file: &Path, path: Vec<String>) -> Module {
    let text = read(file);
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let dir = match stem {
        "mod" | "lib" | "main" => file.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => file.with_extension(""),
    };
    let mut children = Vec::new();
    let mut test_only = false;
    for line in text.lines() {
        let declared = line.strip_prefix("pub(crate) ").or_else(|| line.strip_prefix("pub ")).unwrap_or(line);
        if let Some(name) = declared.strip_prefix("mod ").and_then(|rest| rest.strip_suffix(';')) {
            let child =
                [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")].into_iter().find(|f| f.exists());
            if let Some(child) = child.filter(|_| !test_only) {
                let mut child_path = path.clone();
                child_path.push(name.to_owned());
                children.push(load(&child, child_path));
            }
        }
        test_only = line == "#[cfg(test)]";
    }
    Module { path, file: file.to_path_buf(), text, children }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The items that a module defines at column 0 (not those it re-exports).
fn items(text: &str) -> BTreeSet<String> {
    const KINDS: [&str; 9] = ["fn ", "async fn ", "struct ", "enum ", "type ", "const ", "static ", "trait ", "union "];
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let mut rest = line;
        for visibility in ["pub(crate) ", "pub(super) ", "pub "] {
            rest = rest.strip_prefix(visibility).unwrap_or(rest);
        }
        if let Some(after) = KINDS.iter().find_map(|kind| rest.strip_prefix(kind)) {
            let name: String = after.chars().take_while(|c| is_ident(*c)).collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

/// The first segments of the paths that `text` names after `prefix`:
/// `super::Name`, `super::{A, b::{C, D}}` give `Name`, `A` and `b`. A
/// longer prefix (`super::super::`) does not count for a shorter one.
fn named_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let first = |entry: &str| -> String { entry.trim().chars().take_while(|c| is_ident(*c)).collect() };
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices(prefix) {
        let before = &text[..at];
        if before.ends_with("::") || before.chars().last().is_some_and(is_ident) {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        let Some(group) = rest.strip_prefix('{') else {
            names.insert(first(rest));
            continue;
        };
        // The entries of the group, split at its own commas only.
        let (mut depth, mut start) = (0usize, 0);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    names.insert(first(&group[start..i]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    names.insert(first(&group[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    names.remove("");
    names
}

/// Whether the text of a module names its child `child` (`child::...`).
fn uses_child(text: &str, child: &str) -> bool {
    let prefix = format!("{child}::");
    text.match_indices(&prefix).any(|(at, _)| {
        let before = &text[..at];
        !before.chars().last().is_some_and(is_ident) && (!before.ends_with("::") || before.ends_with("self::"))
    })
}

/// Each descendant of `module`, with how deep it sits below it.
fn descendants<'a>(module: &'a Module, depth: usize, out: &mut Vec<(&'a Module, usize)>) {
    for child in &module.children {
        out.push((child, depth));
        descendants(child, depth + 1, out);
    }
}

/// The loops of `module` and of every module below it: an item of a module
/// named by a module below it, while the module names the child that leads
/// there.
fn loops(module: &Module, found: &mut Vec<String>) {
    let own = items(&module.text);
    let absolute = match module.path.is_empty() {
        true => "crate::".to_owned(),
        false => format!("crate::{}::", module.path.join("::")),
    };
    for child in &module.children {
        let Some(name) = child.path.last() else { continue };
        if !uses_child(&module.text, name) {
            continue;
        }
        let mut below = vec![(child, 1)];
        descendants(child, 2, &mut below);
        for (descendant, depth) in below {
            let relative = "super::".repeat(depth);
            let taken: BTreeSet<String> = named_after(&descendant.text, &relative)
                .into_iter()
                .chain(named_after(&descendant.text, &absolute))
                .filter(|n| own.contains(n))
                .collect();
            if !taken.is_empty() {
                found.push(format!(
                    "{} takes {taken:?} from {}, which names `{name}`",
                    descendant.file.display(),
                    module.file.display()
                ));
            }
        }
    }
    for child in &module.children {
        loops(child, found);
    }
}

/// The crate roots to check: this crate's, and the workspace's other
/// crates when they are beside it.
fn roots() -> Vec<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![manifest.join("src/lib.rs")];
    for sibling in ["mcp-bridge-vscode/src/main.rs", "mcp-bridge-bench/src/main.rs"] {
        let root = manifest.join("..").join(sibling);
        if root.exists() {
            roots.push(root);
        }
    }
    roots
}

/// ARCHITECTURE.md, "layers import downward only, and no file imports one
/// that imports it back", a folder's `mod.rs` and a crate's root included.
#[test]
fn no_module_takes_an_item_of_a_parent_that_names_it() {
    let mut found = Vec::new();
    for root in roots() {
        let crate_root = load(&root, Vec::new());
        assert!(!crate_root.children.is_empty(), "{}: no module found", root.display());
        loops(&crate_root, &mut found);
    }
    assert!(found.is_empty(), "imports that close a loop:\n{}", found.join("\n"));
}

/// The reader of the rule finds the loops it must find: a child that takes
/// its parent's item, by `super::` and by the crate path, while the parent
/// re-exports it; and no loop when the parent only declares the child.
#[test]
fn the_import_rule_sees_a_loop_through_the_parent() {
    let module = |path: &[&str], text: &str, children: Vec<Module>| Module {
        path: path.iter().map(|s| (*s).to_owned()).collect(),
        file: PathBuf::from(path.join("/")),
        text: text.to_owned(),
        children,
    };
    let parent = |child_text: &str, parent_text: &str| {
        module(&["top"], parent_text, vec![module(&["top", "child"], child_text, Vec::new())])
    };
    let uses = "mod child;\npub(crate) use child::Thing;\npub(crate) struct Config;\n";
    let declares = "mod child;\npub(crate) struct Config;\n";
    for (child, parent_text, loops_found) in [
        ("use super::Config;\n", uses, 1),
        ("use super::{child_helper, Config};\n", uses, 1),
        ("use super::{other::{A, B}, Config};\n", uses, 1),
        ("use super::{other::{A, Config}};\n", uses, 0),
        ("use crate::top::Config;\n", uses, 1),
        ("use super::super::Config;\n", uses, 0),
        ("use super::sibling::Config;\n", uses, 0),
        ("use super::Config;\n", declares, 0),
    ] {
        let mut found = Vec::new();
        loops(&parent(child, parent_text), &mut found);
        assert_eq!(found.len(), loops_found, "{child:?} under {parent_text:?}: {found:?}");
    }
}

/// Every `.rs` file under `dir`, in order.
fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path();
        if path.is_dir() {
            files.extend(source_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The `src/` folders of the crates that [`roots`] finds.
fn source_dirs() -> Vec<PathBuf> {
    roots().iter().filter_map(|root| root.parent().map(Path::to_path_buf)).collect()
}

/// ARCHITECTURE.md: no source file has more than [`MAX_LINES`] lines, and
/// no file of a crate's tests either: a test file holds one job too.
#[test]
fn no_source_file_is_longer_than_the_limit() {
    let mut dirs = source_dirs();
    let tests = dirs.iter().filter_map(|src| src.parent().map(|krate| krate.join("tests")));
    dirs.extend(tests.filter(|dir| dir.is_dir()).collect::<Vec<_>>());
    let mut long = Vec::new();
    for file in dirs.iter().flat_map(|dir| source_files(dir)) {
        let lines = read_whole(&file).lines().count();
        if lines > MAX_LINES {
            long.push(format!("{}: {lines} lines", file.display()));
        }
    }
    assert!(long.is_empty(), "source files over {MAX_LINES} lines (split them by job):\n{}", long.join("\n"));
}

/// ARCHITECTURE.md: the front end parses a forwarded method once, at
/// dispatch, and so does the face's dispatch of a 2026-07-28 client's
/// request (`face/modern.rs`); `method.rs` defines the parse and tests it.
#[test]
fn a_method_is_parsed_at_dispatch_only() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed = [src.join("frontend").join("dispatch.rs"), src.join("face").join("modern.rs"), src.join("method.rs")];
    let mut found = Vec::new();
    for file in source_files(&src).into_iter().filter(|f| !allowed.contains(f)) {
        for (i, line) in read_whole(&file).lines().enumerate() {
            if !line.trim_start().starts_with("//") && line.contains("Method::parse") {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "a method parsed again after dispatch (pass the Method on):\n{}", found.join("\n"));
}

/// A file's whole text, its tests included.
fn read_whole(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}
