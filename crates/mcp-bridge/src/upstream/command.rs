//! The program of an upstream command as Windows must start it.
//!
//! Users write `-- npx some-server`, as on Linux and macOS. On Windows `npx`
//! is `npx.cmd`, and `CreateProcess` (and so `std::process::Command`) only
//! adds `.exe` to a name without an extension: it never finds the shim. So
//! before the spawn the bridge resolves a name through `PATH` and
//! `PATHEXT`, as `cmd.exe` does, to the full path of the file.
//!
//! A `.cmd` or `.bat` file then starts through `cmd.exe`: the standard
//! library does that for a program with such an extension, and quotes each
//! argument so that `cmd.exe` reinterprets none of it (since Rust 1.77.2;
//! an argument it cannot quote safely fails the spawn, which is
//! `spawn_failed`, rather than run something else).
//!
//! [`resolve`] is a pure function of the command, `PATH`, `PATHEXT` and a
//! test of whether a file exists, so its rules are tested on every
//! platform; only [`spawnable`] reads the environment, on Windows.
//!
//! Choices beyond what `cmd.exe` does:
//! - the current folder is not searched (a program there cannot take the
//!   place of one on `PATH`; Rust's own search leaves it out too);
//! - only the extensions that `CreateProcess` can start, directly (`.exe`,
//!   `.com`) or through `cmd.exe` (`.bat`, `.cmd`), are tried; a `PATHEXT`
//!   entry such as `.js` or `.ps1` needs a program of its own;
//! - a name that cannot be resolved is started as given, so the error is
//!   the platform's own (`spawn_failed`, with the program in the log).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// `PATHEXT` when it is not set.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";
/// The extensions a process can be started from.
const STARTABLE: [&str; 4] = [".com", ".exe", ".bat", ".cmd"];

/// The program to pass to the spawn: on Windows, the resolved file of a
/// program found through `PATH` and `PATHEXT`; elsewhere, and when
/// nothing is found, the program as given.
pub(crate) fn spawnable(program: &OsStr) -> Cow<'_, OsStr> {
    #[cfg(windows)]
    {
        let path = std::env::var_os("PATH");
        let pathext = std::env::var_os("PATHEXT");
        if let Some(found) = resolve(program, path.as_deref(), pathext.as_deref(), &|p: &Path| p.is_file()) {
            return Cow::Owned(found.into_os_string());
        }
    }
    Cow::Borrowed(program)
}

/// Resolves `program` the way `cmd.exe` finds a command, with the choices
/// of the module: `None` when no file is found (or a value is not valid
/// Unicode), then the program goes to the spawn as given.
///
/// A program with a folder in it (`.\server`, `C:\tools\srv`, `bin/srv`)
/// is looked up where it is; a bare name in each folder of `path`, in
/// order. In each place the name is tried as given when its extension is
/// one of `pathext`, else with each extension of `pathext` in order.
pub fn resolve(
    program: &OsStr,
    path: Option<&OsStr>,
    pathext: Option<&OsStr>,
    is_file: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let program = program.to_str()?;
    if program.is_empty() {
        return None;
    }
    let extensions = extensions(pathext)?;
    let names = candidates(program, &extensions);
    if has_folder(program) {
        return names.into_iter().map(PathBuf::from).find(|p| is_file(p));
    }
    let path = path?.to_str()?;
    folders(path)
        .flat_map(|folder| names.iter().map(move |name| PathBuf::from(join(folder, name))))
        .find(|p| is_file(p))
}

/// The startable extensions of `PATHEXT`, lower case, in its order.
fn extensions(pathext: Option<&OsStr>) -> Option<Vec<String>> {
    let text = match pathext {
        Some(value) => value.to_str()?,
        None => DEFAULT_PATHEXT,
    };
    let text = if text.trim().is_empty() { DEFAULT_PATHEXT } else { text };
    let mut out: Vec<String> = Vec::new();
    for extension in text.split(';').map(|e| e.trim().to_ascii_lowercase()) {
        if STARTABLE.contains(&extension.as_str()) && !out.contains(&extension) {
            out.push(extension);
        }
    }
    Some(out)
}

/// The file names to try for `program`.
fn candidates(program: &str, extensions: &[String]) -> Vec<String> {
    let file = program.rsplit(['\\', '/']).next().unwrap_or(program);
    let extension = file.rfind('.').map(|at| file[at..].to_ascii_lowercase());
    if extension.is_some_and(|e| extensions.contains(&e)) {
        return vec![program.to_owned()];
    }
    extensions.iter().map(|e| format!("{program}{e}")).collect()
}

/// A folder or a drive in the program: it is looked up where it is.
fn has_folder(program: &str) -> bool {
    program.contains(['\\', '/']) || program.as_bytes().get(1) == Some(&b':')
}

/// The folders of `PATH`: separated by `;`, each possibly in double quotes
/// (Windows allows `"C:\Program Files\nodejs"`), empty ones skipped.
fn folders(path: &str) -> impl Iterator<Item = &str> {
    path.split(';').map(|f| f.trim().trim_matches('"')).filter(|f| !f.is_empty())
}

fn join(folder: &str, name: &str) -> String {
    if folder.ends_with(['\\', '/']) {
        format!("{folder}{name}")
    } else {
        format!("{folder}\\{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    const PATH: &str = r#"C:\Windows\system32;"C:\Program Files\nodejs";;C:\Python312\;C:\tools"#;

    /// The files of a Windows machine. Lookups ignore the case, as NTFS does.
    const FILES: [&str; 8] = [
        r"C:\Windows\system32\cmd.exe",
        r"C:\Program Files\nodejs\node.exe",
        r"C:\Program Files\nodejs\npx.cmd",
        r"C:\Program Files\nodejs\npx",
        r"C:\Python312\python.exe",
        r"C:\tools\both.bat",
        r"C:\tools\both.exe",
        r"C:\tools\script.js",
    ];

    fn exists(path: &Path) -> bool {
        let path = path.to_string_lossy().to_ascii_lowercase();
        FILES.iter().any(|f| f.to_ascii_lowercase() == path) || path == r".\local.cmd"
    }

    fn resolved(program: &str, pathext: Option<&str>) -> Option<String> {
        let pathext = pathext.map(OsString::from);
        resolve(OsStr::new(program), Some(OsStr::new(PATH)), pathext.as_deref(), &exists)
            .map(|p| p.to_string_lossy().into_owned())
    }

    #[test]
    fn each_row_of_the_pathext_table_resolves_as_cmd_exe_finds_the_command() {
        let cases: [(&str, Option<&str>, Option<&str>); 18] = [
            // A shim without its extension: the reason for all this. The
            // file `npx` without an extension (npm ships one for Git Bash)
            // is not startable and is skipped.
            ("npx", None, Some(r"C:\Program Files\nodejs\npx.cmd")),
            ("npx", Some(".COM;.EXE;.BAT;.CMD;.VBS;.JS"), Some(r"C:\Program Files\nodejs\npx.cmd")),
            ("node", None, Some(r"C:\Program Files\nodejs\node.exe")),
            ("python", None, Some(r"C:\Python312\python.exe")),
            // An extension that is in PATHEXT is tried as written.
            ("npx.cmd", None, Some(r"C:\Program Files\nodejs\npx.cmd")),
            ("NPX.CMD", None, Some(r"C:\Program Files\nodejs\NPX.CMD")),
            ("node.exe", None, Some(r"C:\Program Files\nodejs\node.exe")),
            // The order of PATHEXT decides between two files of one folder.
            ("both", None, Some(r"C:\tools\both.exe")),
            ("both", Some(".BAT;.EXE"), Some(r"C:\tools\both.bat")),
            // Lower case and spaces in PATHEXT; an empty PATHEXT is the default.
            ("npx", Some(" .exe ; .cmd "), Some(r"C:\Program Files\nodejs\npx.cmd")),
            ("npx", Some(""), Some(r"C:\Program Files\nodejs\npx.cmd")),
            // Without .CMD in PATHEXT, the shim is not found: as given.
            ("npx", Some(".EXE"), None),
            // A script needs a program of its own, even when PATHEXT lists it.
            ("script", Some(".JS;.EXE"), None),
            // The first folder of PATH wins: cmd.exe is in system32.
            ("cmd", None, Some(r"C:\Windows\system32\cmd.exe")),
            // A program with a folder is looked up there, not on PATH.
            (r"C:\tools\both", None, Some(r"C:\tools\both.exe")),
            (r".\local", None, Some(r".\local.cmd")),
            (r"D:\elsewhere\npx", None, None),
            // Nothing of that name: the spawn gets it as given.
            ("missing", None, None),
        ];
        for (program, pathext, expected) in cases {
            assert_eq!(resolved(program, pathext).as_deref(), expected, "{program} with PATHEXT {pathext:?}");
        }
    }

    #[test]
    fn without_path_only_a_program_with_a_folder_resolves() {
        assert_eq!(resolve(OsStr::new("npx"), None, None, &exists), None);
        assert_eq!(
            resolve(OsStr::new(r"C:\tools\both"), None, None, &exists),
            Some(PathBuf::from(r"C:\tools\both.exe"))
        );
        assert_eq!(resolve(OsStr::new(""), Some(OsStr::new(PATH)), None, &exists), None);
    }

    #[cfg(not(windows))]
    #[test]
    fn a_program_is_spawned_as_given_off_windows() {
        assert_eq!(spawnable(OsStr::new("npx")), OsStr::new("npx"));
    }
}
