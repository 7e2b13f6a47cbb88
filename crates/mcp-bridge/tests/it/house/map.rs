//! ARCHITECTURE.md names only what exists (issue 36: "every name it gives
//! exists"). A code map that names a module, an item or a file that is
//! gone sends a newcomer nowhere; this test reads the map's code spans and
//! looks each name up in the workspace:
//!
//! - a path of the repository (`scripts/test`, `tests/fake/upstream.py`,
//!   `crates/.../main.rs`) or of a crate's `src/` (`upstream/http/`) must
//!   exist;
//! - a Rust path (`upstream::inbox`, `framing::decode`, `Method::parse`):
//!   its first segment is a module (a file or folder of a crate's `src/`)
//!   or a type, and its last segment is named in that module's files, or
//!   in the file that defines that type;
//! - a single identifier with an underscore or a capital letter
//!   (`raw_result`, `KeptBuffer`) is named somewhere in the sources, the
//!   fuzz targets, the scripts or the manifests (a feature's name);
//! - `mcp_bridge::` is the library's root; a path into another crate
//!   (`serde_json::Value`) and a placeholder (`upstream/<name>.rs`) are
//!   not looked up.
//!
//! It runs in the workspace only: the published package has no map.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` (recursively) whose name ends with `ext`.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.to_string_lossy().ends_with(ext) {
            out.push(path);
        }
    }
}

/// The `src/` folders of the three crates.
fn sources(root: &Path) -> Vec<PathBuf> {
    ["mcp-bridge", "mcp-bridge-vscode", "mcp-bridge-bench"]
        .iter()
        .map(|c| root.join("crates").join(c).join("src"))
        .collect()
}

/// The code spans of a Markdown text.
fn spans(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else { break };
        out.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

fn is_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().last().is_some_and(ident) && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The repository's paths that a span may name.
const PATH_ROOTS: [&str; 8] = ["scripts/", "tests/", "crates/", "fuzz/", "docs/", "npm/", ".ci/", ".github/"];
const FILE_ENDS: [&str; 8] = [".rs", ".py", ".mjs", ".json", ".tsv", ".md", ".toml", ".sh"];

/// The first segments of paths into crates that are not ours.
const OTHER_CRATES: [&str; 6] = ["serde_json", "tokio", "clippy", "std", "rmcp", "tracing"];

/// Why a span names nothing that exists, or `None`.
fn missing(span: &str, root: &Path, rust: &[(PathBuf, String)]) -> Option<String> {
    let span = span.trim_end_matches("()");
    if span.contains(' ') || span.starts_with('-') || span.contains("://") || span.contains('<') || span.is_empty() {
        return None;
    }
    let span = span.strip_prefix("mcp_bridge::").unwrap_or(span);
    if OTHER_CRATES.iter().any(|c| span.starts_with(&format!("{c}::"))) {
        return None;
    }
    let looks_like_path = span.contains('/') && !span.contains("::");
    if looks_like_path {
        let named = PATH_ROOTS.iter().any(|r| span.starts_with(r)) || FILE_ENDS.iter().any(|e| span.ends_with(e));
        if !named {
            return None;
        }
        let places = std::iter::once(root.to_path_buf()).chain(sources(root));
        let exists = places.into_iter().any(|base| base.join(span).exists());
        return (!exists).then(|| format!("the path `{span}` does not exist"));
    }
    let segments: Vec<&str> = span.split("::").collect();
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !segments.iter().all(|s| ident(s)) {
        return None;
    }
    if let [first, .., last] = segments.as_slice() {
        let in_module: Vec<&String> = rust
            .iter()
            .filter(|(path, text)| {
                let module =
                    path.components().any(|c| c.as_os_str() == *first) || path.file_stem().is_some_and(|s| s == *first);
                let defines =
                    ["struct", "enum", "trait", "type"].iter().any(|k| text.contains(&format!("{k} {first}")));
                module || defines
            })
            .map(|(_, text)| text)
            .collect();
        if in_module.is_empty() {
            return Some(format!("`{span}`: no module or type `{first}`"));
        }
        return (!in_module.iter().any(|text| is_word(text, last)))
            .then(|| format!("`{span}`: `{last}` is not in `{first}`"));
    }
    let identifier = span.contains('_') || span.chars().any(|c| c.is_ascii_uppercase());
    if !identifier || !ident(span) || span.chars().all(|c| c.is_ascii_uppercase() || c == '_') && span.len() < 4 {
        return None;
    }
    let named = rust.iter().any(|(_, text)| is_word(text, span));
    (!named).then(|| format!("`{span}` is named nowhere in the sources"))
}

/// ARCHITECTURE.md: every module, item and file it names exists.
#[test]
fn every_name_of_the_architecture_map_exists() {
    let root = workspace();
    let Ok(map) = std::fs::read_to_string(root.join("ARCHITECTURE.md")) else {
        // The published package is not in the workspace: no map to hold.
        assert!(!root.join("crates/mcp-bridge/src").is_dir(), "the workspace has no ARCHITECTURE.md");
        return;
    };
    let mut paths = Vec::new();
    for dir in sources(&root) {
        files(&dir, ".rs", &mut paths);
    }
    for dir in ["crates/mcp-bridge/tests", "crates/mcp-bridge-vscode/tests", "fuzz/fuzz_targets", "scripts"] {
        files(&root.join(dir), "", &mut paths);
    }
    for krate in ["", "crates/mcp-bridge", "crates/mcp-bridge-vscode"] {
        paths.push(root.join(krate).join("Cargo.toml"));
    }
    let rust: Vec<(PathBuf, String)> = paths
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((p.strip_prefix(&root).map(Path::to_path_buf).unwrap_or(p), text))
        })
        .collect();
    let mut gone: Vec<String> = spans(&map).iter().filter_map(|s| missing(s, &root, &rust)).collect();
    gone.sort();
    gone.dedup();
    assert!(gone.is_empty(), "ARCHITECTURE.md names what does not exist:\n{}", gone.join("\n"));
}

/// The map and the README fit a newcomer's first read (issue 36): the map
/// at most 320 lines, the README, which links to `docs/` for how the
/// project is verified, at most 450.
#[test]
fn the_map_and_the_readme_stay_short() {
    let root = workspace();
    for (file, limit) in [("ARCHITECTURE.md", 320), ("README.md", 450)] {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            assert!(!root.join("crates/mcp-bridge/src").is_dir(), "the workspace has no {file}");
            continue;
        };
        let lines = text.lines().count();
        assert!(lines <= limit, "{file} has {lines} lines, more than {limit}");
    }
}

/// The reader finds what it must find: a gone module item, a gone file, a
/// gone identifier; and takes what exists.
#[test]
fn the_reader_of_the_map_sees_a_name_that_is_gone() {
    // The crate's own folder: it has `tests/` in the workspace and in the
    // published package alike, where the workspace's `scripts/` is absent.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let rust = vec![
        (PathBuf::from("crates/mcp-bridge/src/framing/mod.rs"), "pub(crate) fn decode() {}".to_owned()),
        (PathBuf::from("crates/mcp-bridge/src/pipe/kept.rs"), "pub(crate) struct KeptBuffer;".to_owned()),
    ];
    assert_eq!(missing("framing::decode", &root, &rust), None);
    assert!(missing("framing::KeptBuffer", &root, &rust).is_some());
    assert!(missing("gone::thing", &root, &rust).is_some());
    assert_eq!(missing("KeptBuffer", &root, &rust), None);
    assert!(missing("fast_path", &root, &rust).is_some());
    assert_eq!(missing("tests/it/house/map.rs", &root, &rust), None);
    assert!(missing("tests/no-such-test.rs", &root, &rust).is_some());
    assert_eq!(missing("--max-line-bytes", &root, &rust), None);
    assert_eq!(missing("notifications/initialized", &root, &rust), None);
    assert_eq!(missing("mcp_bridge::KeptBuffer", &root, &rust), None);
    assert!(missing("mcp_bridge::FastPath", &root, &rust).is_some());
    assert_eq!(missing("serde_json::Value", &root, &rust), None);
    assert_eq!(missing("upstream/<name>.rs", &root, &rust), None);
}
