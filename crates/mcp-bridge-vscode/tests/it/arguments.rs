//! What the command line tells a newcomer: `--help`, and the arguments it
//! refuses (exit 2, behaviour spec: "It is 2 for arguments that are not
//! valid") with the way to write them.

use crate::support::process::{run_bounded, Input};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Runs the bridge in `dir` with its stdin open (a refusal must come before
/// anything is read); fails after 30 s.
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.args(args).current_dir(dir);
    let done = run_bounded(cmd, Input::Open, Duration::from_secs(30));
    (done.status.code(), done.stdout, done.stderr)
}

/// A folder of its own with a `server.py` in it.
fn folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-arguments-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    std::fs::write(dir.join("server.py"), "").expect("server.py");
    dir
}

#[test]
fn help_names_every_usage_the_exit_codes_the_log_the_token_store_and_the_proxy() {
    let (code, help, _) = run_in(&std::env::temp_dir(), &["--help"]);
    assert_eq!(code, Some(0));
    for expected in [
        "mcp-bridge-vscode [OPTIONS] -- <COMMAND> [ARGS]...",
        "mcp-bridge-vscode check [OPTIONS]",
        "mcp-bridge-vscode demo-server [--refuse-discover]",
        "Exit codes:\n  0  the input (stdin) ended\n  1  the upstream command stopped, or an internal error\n  2  invalid arguments",
        "MCP_BRIDGE_LOG",
        "HTTPS_PROXY, HTTP_PROXY, NO_PROXY",
        "mcp-bridge/auth/",
    ] {
        assert!(help.contains(expected), "--help lacks {expected:?}:\n{help}");
    }
}

/// A command written without `--` arrives where a URL goes: the message
/// shows it as it must be written, when its first word names a file here
/// or a program on `PATH`.
#[test]
fn a_command_without_the_double_dash_is_shown_as_it_must_be_written() {
    let dir = folder("dash");
    let cases: [(&[&str], &str); 3] = [
        (&["server.py"], "mcp-bridge-vscode: server.py is a file, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode -- python3 server.py\n"),
        (&["check", "python3"], "mcp-bridge-vscode: python3 is a program, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode check -- python3\n"),
        (&["check", "python3", "server.py"], "mcp-bridge-vscode: python3 is a program, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode check -- python3 server.py\n"),
    ];
    for (args, expected) in cases {
        let (code, stdout, stderr) = run_in(&dir, args);
        assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(2), "", expected), "{args:?}");
    }
}

/// A malformed URL is repeated up to its origin: its path and query can
/// hold a key, which never appears in a message.
#[test]
fn a_malformed_url_is_repeated_up_to_its_origin() {
    let (code, stdout, stderr) = run_in(&std::env::temp_dir(), &["htps://mcp.example.com/mcp/SECRET?key=SECRET"]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (Some(2), "", "mcp-bridge-vscode: the URL htps://mcp.example.com is not a valid http or https URL\n")
    );
}

/// An option that only a server at a URL uses does nothing for a command:
/// it is refused rather than silently ignored (a user who gives
/// `--header-env` expects the header to go somewhere).
#[test]
fn an_option_of_a_url_with_a_command_is_refused_with_exit_2() {
    for option in [&["--header-env", "Authorization=TOKEN"][..], &["--no-browser"], &["--ca-file", "ca.pem"]] {
        let mut args = option.to_vec();
        args.extend(["--", "python3", "server.py"]);
        let (code, stdout, stderr) = run_in(&std::env::temp_dir(), &args);
        let expected = format!(
            "mcp-bridge-vscode: {} is for a server at a URL; a command after -- gets no HTTP requests (it inherits the environment of the bridge)\n",
            option[0]
        );
        assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(2), "", expected.as_str()), "{args:?}");
    }
}
