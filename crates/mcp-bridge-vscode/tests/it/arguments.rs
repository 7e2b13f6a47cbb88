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
        "mcp-bridge-vscode [OPTIONS] <COMMAND> [ARGS]...",
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

/// The command-line table of the refusals (issue 37's "a command without
/// `--`", issue 38's rows 4 and 5): each is exit 2, before anything is
/// read, with the way to write it. A first word that is neither a URL nor
/// a subcommand starts a command; these are the words that cannot.
#[test]
fn each_upstream_that_cannot_be_taken_is_refused_with_exit_2_and_the_way_to_write_it() {
    let dir = folder("table");
    let cases: [(&[&str], &str); 26] = [
        // A file that is not a program, with or without `check`.
        (&["server.py"], "server.py is a file, not a program: give the program that runs it first, for example: mcp-bridge-vscode python3 server.py"),
        (&["check", "--name", "n", "server.py", "--port", "1"], "server.py is a file, not a program: give the program that runs it first, for example: mcp-bridge-vscode check python3 server.py …"),
        // A typo of a subcommand, and a word that names nothing.
        (&["chek"], "chek is not a subcommand, a URL, a file here or a program on PATH; did you mean check?"),
        (&["logot", "https://mcp.example.com"], "logot is not a subcommand, a URL, a file here or a program on PATH; did you mean logout?"),
        (&["srv", "--flag"], "srv is not a subcommand, a URL, a file here or a program on PATH"),
        (&["check", "srv"], "srv is not a URL, a file here or a program on PATH"),
        // `--` with nothing after it.
        (&["--"], "nothing follows --: the command of a server comes after it, for example: mcp-bridge-vscode -- python3 server.py"),
        (&["--name", "n", "--"], "nothing follows --: the command of a server comes after it, for example: mcp-bridge-vscode -- python3 server.py"),
        (&["check", "--"], "nothing follows --: the command of a server comes after it, for example: mcp-bridge-vscode check -- python3 server.py"),
        // A subcommand's name where the command goes.
        (&["--name", "n", "check"], "check is a subcommand, which comes first, before any option; a program named check is written after --, for example: mcp-bridge-vscode -- check"),
        (&["check", "logout"], "logout is a subcommand; a program named logout is written after --, for example: mcp-bridge-vscode check -- logout"),
        // A URL without its scheme: the path stays, the query goes.
        (&["mcp.example.com/mcp"], "the URL mcp.example.com/mcp has no scheme; did you mean https://mcp.example.com/mcp?"),
        (&["check", "mcp.example.com/mcp?key=SECRET", "--name", "n"], "the URL mcp.example.com/mcp has no scheme; did you mean https://mcp.example.com/mcp?"),
        (&["localhost:3000/mcp"], "the URL localhost:3000/mcp has no scheme; did you mean http://localhost:3000/mcp?"),
        (&["logout", "mcp.example.com"], "the URL mcp.example.com has no scheme; did you mean https://mcp.example.com?"),
        // A URL that is not valid: today's message, up to its origin.
        (&["htps://mcp.example.com/mcp/SECRET?key=SECRET"], "the URL htps://mcp.example.com is not a valid http or https URL"),
        (&["check", "https//mcp.example.com/SECRET"], "the URL https is not a valid http or https URL"),
        (&["logout", "htps://mcp.example.com/SECRET"], "the URL htps://mcp.example.com is not a valid http or https URL"),
        (&["https://mcp.example.com/mcp", "extra"], "give one URL (https://mcp.example.com and 1 more word(s) were given), or the command of a server after --"),
        // Options after a URL stay the bridge's (here a missing variable).
        (&["https://mcp.example.com/mcp", "--header-env", "A=MCP_BRIDGE_TEST_NO_SUCH_VAR"], "the variable MCP_BRIDGE_TEST_NO_SUCH_VAR of --header-env A=MCP_BRIDGE_TEST_NO_SUCH_VAR is not set"),
        (&["check", "https://mcp.example.com/mcp", "--header-env", "A=MCP_BRIDGE_TEST_NO_SUCH_VAR"], "the variable MCP_BRIDGE_TEST_NO_SUCH_VAR of --header-env A=MCP_BRIDGE_TEST_NO_SUCH_VAR is not set"),
        // The words a message repeats pass the gate; a key typed with `/`
        // or `?` in it stays out up to the last `@`.
        (&["https://mcp.example.com/mcp", "--header-env", "A=NO\u{1b}[2J\r\nSUCH"], r"the variable NO\x1b[2J\r\nSUCH of --header-env A=NO\x1b[2J\r\nSUCH is not set"),
        (&["https://mcp.example.com/mcp", "--ca-file", "no-such\u{1b}[2J\nfile"], r"cannot read --ca-file no-such\x1b[2J\nfile: No such file or directory (os error 2)"),
        (&["user:SE/SECRET@mcp.example.com/mcp"], "…@mcp.example.com/mcp is not a subcommand, a URL, a file here or a program on PATH"),
        (&["logout", "https://tok:abc/SECRET==@mcp.example.com/mcp"], "the URL https:// is not a valid http or https URL"),
        (&["logout", "user:SECRET@mcp.example.com/mcp"], "the URL … is not a valid http or https URL"),
    ];
    for (args, expected) in cases {
        let (code, stdout, stderr) = run_in(&dir, args);
        let expected = format!("mcp-bridge-vscode: {expected}\n");
        assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(2), "", expected.as_str()), "{args:?}");
        assert!(!stderr.contains("SECRET"), "{stderr}");
    }
}

/// A command whose first word is a file here starts only with its folder:
/// the spawn looks a bare name up on `PATH`, never in the current folder.
#[test]
fn an_executable_file_here_without_its_folder_is_shown_with_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = folder("here");
    let server = dir.join("server");
    std::fs::write(&server, "#!/bin/sh\n").expect("server");
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let (code, stdout, stderr) = run_in(&dir, &["server", "--port", "1"]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (Some(2), "", "mcp-bridge-vscode: server is a file in this folder, and a program without a folder is looked up on PATH: write it with its folder, for example: mcp-bridge-vscode ./server …\n")
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
            "mcp-bridge-vscode: {} is for a server at a URL; a command gets no HTTP requests (it inherits the environment of the bridge)\n",
            option[0]
        );
        assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(2), "", expected.as_str()), "{args:?}");
    }
}

/// The text gate (issue "One gate for what comes from outside"): clap's
/// own messages quote the word they could not read, and a line break, a
/// separator or an escape in it must not start a line of its own in the
/// client's Output channel. Each refusal keeps exit 2 and clap's wording,
/// with the word escaped; a plain typo keeps clap's tip.
#[test]
fn a_refused_word_with_a_line_break_is_quoted_escaped_by_clap() {
    let forged = "[mcp-bridge-vscode] WARN sign-in: open https://evil.example/device";
    let cases = [
        (vec![format!("--nmae\n{forged}")], format!("unexpected argument '--nmae\\n{forged}' found")),
        (
            vec!["--max-line-bytes".into(), format!("12\r\n{forged}"), "--".into(), "x".into()],
            format!("invalid value '12\\r\\n{forged}' for '--max-line-bytes <BYTES>'"),
        ),
        (
            vec!["--header-env".into(), format!("A\u{2028}{forged}\u{1b}[2K"), "--".into(), "x".into()],
            format!("invalid value 'A\\u{{2028}}{forged}\\x1b[2K' for '--header-env <NAME=VAR>'"),
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run_in(&std::env::temp_dir(), &args);
        assert_eq!(code, Some(2), "{args:?}\n{stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(stderr.contains(&expected), "{args:?}: {expected}\n{stderr}");
        for line in stderr.split(['\n', '\r', '\u{2028}', '\u{1b}']) {
            assert!(!line.starts_with(forged), "{args:?}: a forged line\n{stderr}");
        }
    }
    // A word that is not UTF-8 and holds a line break: clap refuses the
    // bytes, and the message quotes no word.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let word = [b"\xff\n".as_slice(), forged.as_bytes()].concat();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.arg("--name").arg(std::ffi::OsStr::from_bytes(&word)).args(["--", "x"]);
        let done = run_bounded(cmd, Input::Open, Duration::from_secs(30));
        assert_eq!(done.status.code(), Some(2), "{}", done.stderr);
        assert_eq!(
            done.stderr,
            "error: an argument is not valid: it holds a control character or bytes that are not UTF-8\n"
        );
    }
    // A long word is cut in each of the three places clap quotes it.
    let long = format!("--nmae{}", "Z".repeat(100_000));
    let (code, _, stderr) = run_in(&std::env::temp_dir(), &[&long]);
    assert_eq!(code, Some(2), "{stderr:.300}");
    assert_eq!(stderr.matches("--nmaeZZ").count(), 3, "{stderr:.300}");
    assert!(stderr.len() < 2000, "{} bytes: {stderr:.300}", stderr.len());
    // Without anything to escape, clap's message is its own.
    let (code, _, stderr) = run_in(&std::env::temp_dir(), &["--nmae", "x"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("unexpected argument '--nmae' found") && stderr.contains("'--name'"), "{stderr}");
}

/// The text gate bounds each word that a message repeats: a header name of
/// 100,000 characters with a bidirectional override is refused (exit 2) in
/// a message of a few hundred bytes, the override escaped in both copies.
#[test]
fn a_long_hostile_header_name_is_refused_in_a_short_message() {
    let word = format!("A\u{202e}{}=PATH", "Z".repeat(100_000));
    let (code, stdout, stderr) = run_in(&std::env::temp_dir(), &["--header-env", &word, "https://mcp.example.com/mcp"]);
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr:.300}");
    assert!(stderr.starts_with(r"mcp-bridge-vscode: --header-env A\u{202e}ZZ"), "{stderr:.300}");
    assert!(stderr.contains(r#": "A\u{202e}ZZ"#), "{stderr:.300}");
    assert!(stderr.ends_with("is not a header name\n"), "{stderr:.300}");
    assert!(stderr.len() < 1000 && !stderr.contains('\u{202e}'), "{} bytes: {stderr:.300}", stderr.len());
}
