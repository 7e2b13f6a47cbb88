//! The scripts of the test command on a machine as a newcomer has it
//! (issue 38, rows 1 and 10): the Secret Service's system packages, and
//! the private D-Bus session that the tests run in.

use crate::support::process::{run_bounded, Input};
use crate::support::repo_root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A file of the machine's `PATH`.
fn which(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|file| file.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH (the test command installs it)"))
}

/// A folder for `PATH` with links to `programs` only.
fn path_with(name: &str, programs: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-scripts-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    for program in programs {
        std::os::unix::fs::symlink(which(program), dir.join(program)).expect("a link");
    }
    dir
}

/// Runs scripts/install-secret-service with `args` and `PATH` set to
/// `path` (bash itself comes by its full path).
fn install(args: &[&str], path: &Path) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(which("bash"));
    cmd.arg(repo_root().join("scripts/install-secret-service")).args(args).env("PATH", path);
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(30));
    (done.status.code(), done.stdout, done.stderr)
}

/// The command as this user runs it: root without sudo.
fn apt_get() -> &'static str {
    let uid = Command::new("id").arg("-u").output().expect("id runs");
    if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        "apt-get install dbus-bin dbus-daemon gnome-keyring"
    } else {
        "sudo apt-get install dbus-bin dbus-daemon gnome-keyring"
    }
}

/// On a machine without the daemon, the check says which programs are
/// missing and the one command that installs them; without apt-get it
/// installs nothing and says the same. With everything there it is silent.
#[test]
fn the_dependency_check_names_what_is_missing_and_the_one_command() {
    let no_daemon = path_with("no-daemon", &["dbus-run-session", "dbus-send"]);
    let nothing = path_with("nothing", &[]);
    let need = "install-secret-service: the keyring tests need a Secret Service (D-Bus and gnome-keyring), and";
    let then = "missing. Install them, then run the tests again:";
    for (args, path, names) in [
        (&["--check"][..], &no_daemon, "gnome-keyring-daemon is"),
        (&[], &no_daemon, "gnome-keyring-daemon is"),
        (&["--check"], &nothing, "dbus-run-session, dbus-send and gnome-keyring-daemon are"),
    ] {
        let expected = format!("{need} {names} {then}\n  {}\n", apt_get());
        assert_eq!(install(args, path), (Some(1), String::new(), expected), "{args:?} {names}");
    }
    let everything = std::env::var_os("PATH").unwrap_or_default();
    assert_eq!(install(&["--check"], Path::new(&everything)), (Some(0), String::new(), String::new()));
    let _ = std::fs::remove_dir_all(&no_daemon);
    let _ = std::fs::remove_dir_all(&nothing);
}

/// The private session says nothing of its own: no dbus-daemon line about
/// its fd limit (root in a container may not raise it), while the
/// command's own stdout and stderr pass as they are.
#[test]
fn the_secret_service_session_adds_no_line_to_the_output() {
    let mut cmd = Command::new(repo_root().join("scripts/with-secret-service"));
    cmd.args(["sh", "-c", "echo inside; echo on-stderr >&2"]);
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(30));
    assert_eq!((done.status.code(), done.stdout.as_str(), done.stderr.as_str()), (Some(0), "inside\n", "on-stderr\n"));
}
