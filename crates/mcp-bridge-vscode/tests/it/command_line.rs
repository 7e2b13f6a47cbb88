//! The command-line table of the commands that run (issue 37, "a command
//! without `--`"): the command with and without `--`, the bridge's options
//! before it and the command's after it, and programs named like a
//! subcommand or starting with `-` after `--`; for the bridge and for
//! `check` alike. The refusals are in `arguments`.
//!
//! The fake upstream without server information (`--server-info none`)
//! shows which name the bridge took: `--name` when the bridge got it, else
//! the file name of the command.

use crate::support::driver::Driver;
use crate::support::fake::fake_upstream;
use crate::support::process::{run_bounded, Input};
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

/// Runs `check` with `args`; the exit code, the report and stderr.
fn check(args: &[String], path: Option<&std::ffi::OsStr>) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.arg("check").args(args);
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(60));
    (done.status.code(), done.stdout, done.stderr)
}

/// The fake upstream that gives no server information, its options after
/// `before`.
fn nameless(before: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = before.iter().map(|s| s.to_string()).collect();
    args.extend(fake_upstream(&["--server-info", "none"]));
    args
}

/// The name in the first line of a report, `Server: NAME VERSION`.
fn server_name(report: &str) -> Option<&str> {
    report.lines().next()?.strip_prefix("Server: ")?.split(' ').next()
}

#[test]
fn check_takes_the_command_with_or_without_the_double_dash_and_its_options_before_it() {
    for (before, name) in [
        (&[][..], "python3"),
        (&["--"], "python3"),
        (&["--name", "mine"], "mine"),
        (&["--name", "mine", "--"], "mine"),
        (&["--discover-timeout", "9", "--name=mine"], "mine"),
    ] {
        let (code, report, stderr) = check(&nameless(before), None);
        assert_eq!(code, Some(0), "{before:?}\n{report}\n{stderr}");
        assert_eq!(server_name(&report), Some(name), "{before:?}\n{report}");
    }
}

/// Every word after the command is the command's, options too, as `npx`,
/// `env` and `uvx` read theirs: the fake upstream gets `--name` and
/// refuses it (argparse), and `check` shows its words.
#[test]
fn options_after_the_command_are_the_commands() {
    let mut args = fake_upstream(&["--server-info", "none"]);
    args.extend(["--name".to_string(), "mine".to_string()]);
    let (code, report, _) = check(&args, None);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("error: unrecognized arguments: --name mine"), "{report}");
}

/// The bridge itself, as a client starts it from its stored command line:
/// with and without `--`, with its options before the command.
#[test]
fn the_bridge_takes_the_command_with_or_without_the_double_dash() {
    for (before, name) in [(&[][..], "python3"), (&["--"], "python3"), (&["--name", "mine"], "mine")] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(nameless(before));
        let mut bridge = Driver::spawn(cmd);
        let response = bridge.initialize();
        let got = response.pointer("/result/serverInfo/name").and_then(Value::as_str);
        assert_eq!(got, Some(name), "{before:?}: {response}");
    }
}

/// `--` stays the way to run a program named like a subcommand or
/// starting with `-`: without it, `check` is the subcommand.
#[test]
fn after_the_double_dash_a_program_may_be_named_like_a_subcommand_or_start_with_a_dash() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("mcp-bridge-command-line-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let fake = fake_upstream(&["--server-info", "none"]).join(" ");
    for program in ["check", "-srv"] {
        let file = dir.join(program);
        std::fs::write(&file, format!("#!/bin/sh\nexec {fake} \"$@\"\n")).expect("a script");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let path = std::env::join_paths(
        std::iter::once(dir.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("a PATH");
    for program in ["check", "-srv"] {
        let (code, report, stderr) = check(&["--".to_string(), program.to_string()], Some(&path));
        assert_eq!(code, Some(0), "{program}\n{report}\n{stderr}");
        assert_eq!(server_name(&report), Some(program), "{report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
