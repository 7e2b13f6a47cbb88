//! The scripts a newcomer meets first, on a machine as it comes (issue
//! 38): the test command's Secret Service (its system packages, row 1, and
//! its private D-Bus session, row 10), and the local npm route (the usage
//! of scripts/package-npm and the launcher's message, row 6).

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

/// Runs scripts/package-npm with `args`; only what needs no build.
fn package_npm(args: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(repo_root().join("scripts/package-npm"));
    cmd.args(args);
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(30));
    (done.status.code(), done.stdout, done.stderr)
}

/// Run bare, the script says its usage instead of a shell error; `--help`
/// says what each way costs and that both tarballs go together.
#[test]
fn package_npm_says_its_usage_and_has_a_help() {
    let usage = "scripts/package-npm OUT_DIR [--binary PATH | --binaries DIR]";
    for (args, expected) in [
        (&[][..], format!("package-npm: give the folder of the tarballs: {usage} (--help says more)\n")),
        (&["out", "--bogus"], format!("package-npm: unknown option --bogus: {usage} (--help says more)\n")),
        (&["out", "--binary"], format!("package-npm: --binary takes one path: {usage}\n")),
        (&["out", "--binary", "/no/such/binary"], "package-npm: --binary /no/such/binary: no such file\n".to_owned()),
    ] {
        assert_eq!(package_npm(args), (Some(2), String::new(), expected), "{args:?}");
    }
    let (code, help, stderr) = package_npm(&["--help"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert!(help.starts_with(&format!("usage: {usage}\n")), "{help}");
    for expected in ["fat LTO: about 5 minutes", "--binary PATH", "install both tarballs together"] {
        assert!(help.contains(expected), "--help lacks {expected:?}:\n{help}");
    }
}

/// The launcher of the npm package, installed without the package of this
/// platform (the main tarball alone): it names that package, its version,
/// and both ways to get it.
#[test]
fn the_npm_launcher_names_the_missing_platform_package() {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-launcher-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).expect("a folder");
    let npm = repo_root().join("npm");
    std::fs::copy(npm.join("mcp-bridge-vscode/bin/mcp-bridge-vscode.js"), dir.join("bin/mcp-bridge-vscode.js"))
        .expect("the launcher");
    std::fs::copy(npm.join("platforms.json"), dir.join("platforms.json")).expect("platforms.json");
    std::fs::write(dir.join("package.json"), r#"{"name": "mcp-bridge-vscode", "version": "1.2.3"}"#)
        .expect("package.json");
    let node = std::env::var_os("MCP_BRIDGE_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(dir.join("bin/mcp-bridge-vscode.js")).arg("--version");
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(30));
    let cpu = if cfg!(target_arch = "aarch64") { "arm64" } else { "x64" };
    let package = format!("mcp-bridge-vscode-linux-{cpu}");
    let expected = format!(
        "mcp-bridge-vscode: the package {package}@1.2.3, with the binary for linux {cpu}, is not installed. npm installs it with mcp-bridge-vscode unless optional dependencies are left out (--omit=optional, --no-optional); from tarballs, install both: npm install mcp-bridge-vscode-1.2.3.tgz {package}-1.2.3.tgz\n"
    );
    assert_eq!((done.status.code(), done.stdout.as_str(), done.stderr.as_str()), (Some(1), "", expected.as_str()));
    let _ = std::fs::remove_dir_all(&dir);
}
