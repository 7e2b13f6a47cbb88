//! The upstream words of the command line: a URL, a command with or
//! without `--`, or a mistake and its message (`hint`).
//!
//! Clients store a server's command as they got it: `gemini mcp add` eats
//! the `--`, and the MCP Inspector CLI splits its own command line at the
//! first `--`. So a command also goes without `--`, the way `npx`, `env`
//! and `uvx` read theirs: the first word that is not an option starts it
//! unless it is a URL or a subcommand, and every word after it is the
//! command's, options too. `--` stays for a command named like a
//! subcommand or starting with `-`. docs/decisions.md has the rule of what
//! looks like a URL.

use crate::cli::{BridgeArgs, Cli, Command, Form};
use crate::hint;
use clap::Parser;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use url::Url;

/// The subcommands, for a word that names one where a command goes, and
/// for the suggestion of a typo.
pub const SUBCOMMANDS: [&str; 4] = ["check", "logout", "demo-server", "help"];

/// What the upstream words are.
#[derive(Debug)]
pub enum Upstream {
    Url(Url),
    Command(Vec<OsString>),
}

/// Reads the command line: clap, then the form of the upstream. Options
/// may follow a URL, as they could before commands went without `--`: a
/// first word that looks like a URL goes last and the line is read again.
pub fn read(argv: Vec<OsString>) -> Result<Cli, clap::Error> {
    let mut cli = parse(&argv)?;
    let Some(args) = upstream_args(&mut cli) else { return Ok(cli) };
    let form = form(&argv, &args.upstream);
    let url_first = form == Form::Bare && args.upstream.first().is_some_and(|w| looks_like_url(w));
    if url_first {
        let at = argv.len() - args.upstream.len();
        let url = argv[at].clone();
        // After `--`, so that no option takes the URL as its value.
        let mut again: Vec<OsString> = argv[..at].to_vec();
        again.extend(argv[at + 1..].iter().cloned());
        again.extend(["--".into(), url.clone()]);
        cli = parse(&again)?;
        if let Some(args) = upstream_args(&mut cli) {
            // The URL first again, then the words that are not options,
            // for the message of more words than a URL.
            args.upstream.pop();
            if args.upstream.last().is_some_and(|w| w == "--") {
                args.upstream.pop();
            }
            args.upstream.insert(0, url);
        }
    }
    if let Some(args) = upstream_args(&mut cli) {
        args.form = form;
    }
    Ok(cli)
}

/// clap's reading of `argv`, or the error to show (help and version too:
/// `clap::Error::exit` prints each where it goes, with its exit code). An
/// error quotes the words it could not read, whole, up to three times: a
/// word with a line break or another character that the text gate escapes
/// would write lines of its own into the client's Output channel, and a
/// long one would fill it. Then the line is read again with those words as
/// a message of [`hint`] shows them ([`hint::word`]: escaped, cut after
/// 200 characters), and that error is the one shown.
fn parse(argv: &[OsString]) -> Result<Cli, clap::Error> {
    let err = match Cli::try_parse_from(argv) {
        Ok(cli) => return Ok(cli),
        Err(err) => err,
    };
    // Help and version go to stdout and quote no word.
    if !err.use_stderr() {
        return Err(err);
    }
    let gated: Vec<OsString> = argv.iter().map(|word| gated(word)).collect();
    if gated == argv {
        return Err(err);
    }
    match Cli::try_parse_from(&gated) {
        Err(again) if again.use_stderr() => Err(again),
        // The shown words read well where the words did not (a word that
        // is not UTF-8 became text): say so without quoting them.
        _ => Err(clap::Error::raw(err.kind(), format!("{}\n", hint::CONTROL_IN_WORD))),
    }
}

/// A word as a message shows it, when that escapes or cuts something in
/// it (clap quotes a word that is not UTF-8 with its replacement
/// characters).
fn gated(word: &OsStr) -> OsString {
    let text = word.to_string_lossy();
    let shown = hint::word(&text);
    if shown == text {
        word.to_os_string()
    } else {
        shown.into()
    }
}

/// The options that hold an upstream: the bridge's or `check`'s.
fn upstream_args(cli: &mut Cli) -> Option<&mut BridgeArgs> {
    match &mut cli.command {
        None => Some(&mut cli.bridge),
        Some(Command::Check(args)) => Some(args),
        Some(_) => None,
    }
}

/// The form of `upstream`, the words that clap gave, within `argv`. They
/// are always its last words: after `--` when `--` comes just before
/// them (a `--` among them is the command's own), else without.
pub fn form(argv: &[OsString], upstream: &[OsString]) -> Form {
    let dash = argv.len().checked_sub(upstream.len() + 1).and_then(|at| argv.get(at)).is_some_and(|w| w == "--");
    match (upstream.is_empty(), dash) {
        (true, true) => Form::EmptyDash,
        (true, false) => Form::Absent,
        (false, true) => Form::Dashed,
        (false, false) => Form::Bare,
    }
}

/// The upstream of the words. `prefix` is the command line before them
/// (`mcp-bridge-vscode check`), for the messages; `None` when none was
/// given. `top` is true outside `check`, where a subcommand can stand.
pub fn upstream(words: &[OsString], form: Form, prefix: &str, top: bool) -> Result<Option<Upstream>, String> {
    let first = match (form, words.first()) {
        (Form::EmptyDash, _) => return Err(hint::empty_dash(prefix)),
        (Form::Absent, _) | (_, None) => return Ok(None),
        (Form::Dashed, Some(_)) => return Ok(Some(Upstream::Command(words.to_vec()))),
        (Form::Bare, Some(first)) => first,
    };
    let shown: Vec<String> = words.iter().map(|w| w.to_string_lossy().into_owned()).collect();
    let Some(text) = first.to_str() else {
        // Not Unicode: no URL, no subcommand; a command.
        return Ok(Some(Upstream::Command(words.to_vec())));
    };
    if let Some(url) = http_url(text) {
        if words.len() > 1 {
            return Err(hint::not_a_url(&shown));
        }
        return Ok(Some(Upstream::Url(url)));
    }
    if has_scheme(text) {
        return Err(hint::not_a_url(&shown));
    }
    if SUBCOMMANDS.contains(&text) {
        return Err(hint::subcommand_word(prefix, text, top));
    }
    match Names::of(text) {
        Names::Program => Ok(Some(Upstream::Command(words.to_vec()))),
        Names::File { startable: true } if has_folder(text) => Ok(Some(Upstream::Command(words.to_vec()))),
        Names::File { startable } => Err(hint::file(prefix, &shown, startable)),
        Names::Nothing => match without_scheme(text, true) {
            Some(url) => Err(hint::no_scheme(text, &url)),
            None => Err(hint::names_nothing(text, top, typo_of(text, top))),
        },
    }
}

/// The URL of `logout`: any word is meant as one.
pub fn logout_url(text: &str) -> Result<Url, String> {
    if let Some(url) = http_url(text) {
        return Ok(url);
    }
    match without_scheme(text, false) {
        Some(url) if !has_scheme(text) => Err(hint::no_scheme(text, &url)),
        _ => Err(hint::not_a_url(&[text.to_owned()])),
    }
}

/// Whether a first word is read as a URL, valid or not (see the module
/// doc): options may follow it.
fn looks_like_url(word: &OsStr) -> bool {
    let Some(text) = word.to_str() else { return false };
    http_url(text).is_some()
        || has_scheme(text)
        || (Names::of(text) == Names::Nothing && without_scheme(text, true).is_some())
}

/// A valid http or https URL with a host.
fn http_url(text: &str) -> Option<Url> {
    Url::parse(text).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
}

/// A word that starts like a URL: `://` in it (`htps://`, `ftp://`), or
/// `http` or `https` before a `:` or a `/` (`https//host`, `http:/host`).
fn has_scheme(text: &str) -> bool {
    let lower = text.get(..6).unwrap_or(text).to_ascii_lowercase();
    text.contains("://") || ["http:", "http/", "https:", "https/"].iter().any(|p| lower.starts_with(p))
}

/// The URL that a word without a scheme stands for, when it starts with
/// a host: `localhost`, an IPv4 address, or a name with a dot whose last
/// label is letters (`mcp.example.com`), with an optional port. `http://`
/// for a host of this machine, else `https://`; the path stays, the
/// query and the fragment go (they can hold keys). With `needs_more`, a
/// host alone is not enough: a path or a port must follow, since
/// `server.py` is also a name with a dot.
fn without_scheme(text: &str, needs_more: bool) -> Option<String> {
    let text = &text[..text.find(['?', '#']).unwrap_or(text.len())];
    let (head, path) = text.split_at(text.find('/').unwrap_or(text.len()));
    let (host, port) = match head.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit()) => {
            (host, Some(port))
        }
        Some(_) => return None,
        None => (head, None),
    };
    let local = host.eq_ignore_ascii_case("localhost") || is_ipv4(host);
    if !(local || is_dns_name(host)) {
        return None;
    }
    if needs_more && path.len() <= 1 && port.is_none() {
        return None;
    }
    let scheme = if local { "http" } else { "https" };
    let url = format!("{scheme}://{text}");
    http_url(&url).map(|_| url)
}

fn is_ipv4(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>().is_ok()
}

/// Labels of letters, digits and hyphens, at least two, the last of
/// letters only (a top-level domain).
fn is_dns_name(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    let fine = |l: &&str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    labels.len() >= 2
        && labels.iter().all(fine)
        && labels.last().is_some_and(|l| l.len() >= 2 && l.bytes().all(|b| b.is_ascii_alphabetic()))
}

/// A path with a folder in it: the spawn takes it as it is; a bare name
/// is looked up on `PATH` only, never in the current folder.
fn has_folder(text: &str) -> bool {
    text.contains('/') || (cfg!(windows) && text.contains('\\'))
}

/// The subcommand that a word is a typo of: at most two edits from it, for
/// a word of three letters or more.
fn typo_of(word: &str, top: bool) -> Option<&'static str> {
    if !top || word.chars().count() < 3 {
        return None;
    }
    SUBCOMMANDS.into_iter().map(|s| (strsim::levenshtein(word, s), s)).filter(|(n, _)| *n <= 2).min().map(|(_, s)| s)
}

/// What a word names on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Names {
    /// A program on `PATH` (a bare name only).
    Program,
    /// A file, here or at its path; `startable` when the system can start
    /// it as it is (an executable file; on Windows, a `.exe`, `.com`,
    /// `.bat` or `.cmd`).
    File {
        startable: bool,
    },
    Nothing,
}

impl Names {
    fn of(word: &str) -> Names {
        if !has_folder(word) && on_path(word) {
            Names::Program
        } else if Path::new(word).is_file() {
            Names::File { startable: startable(Path::new(word)) }
        } else {
            Names::Nothing
        }
    }
}

fn startable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let extension = path.extension().and_then(OsStr::to_str).map(str::to_ascii_lowercase);
        matches!(extension.as_deref(), Some("exe" | "com" | "bat" | "cmd"))
    }
}

/// Whether `name` is an executable file in a folder of `PATH`.
fn on_path(name: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else { return false };
    #[cfg(windows)]
    {
        let pathext = std::env::var_os("PATHEXT");
        let is_file = |p: &Path| p.is_file();
        mcp_bridge::cli_support::resolve_program(OsStr::new(name), Some(path.as_os_str()), pathext.as_deref(), &is_file)
            .is_some()
    }
    #[cfg(not(windows))]
    {
        std::env::split_paths(&path).any(|dir| {
            let file = dir.join(name);
            file.is_file() && startable(&file)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    /// The upstream words are the last words of the line: after a `--`
    /// just before them they are a command whatever they say; a `--`
    /// among them is the command's own.
    #[test]
    fn the_form_tells_a_dash_of_the_bridge_from_one_of_the_command() {
        for (argv, upstream, want) in [
            (&["b"][..], &[][..], Form::Absent),
            (&["b", "--name", "n"], &[], Form::Absent),
            (&["b", "--"], &[], Form::EmptyDash),
            (&["b", "check", "--"], &[], Form::EmptyDash),
            (&["b", "--", "python3", "s.py"], &["python3", "s.py"], Form::Dashed),
            (&["b", "--", "check"], &["check"], Form::Dashed),
            (&["b", "--", "srv", "--", "x"], &["srv", "--", "x"], Form::Dashed),
            (&["b", "python3", "s.py"], &["python3", "s.py"], Form::Bare),
            (&["b", "srv", "--", "x"], &["srv", "--", "x"], Form::Bare),
            (&["b", "--name", "n", "srv", "--"], &["srv", "--"], Form::Bare),
            (&["b", "--name=--", "srv"], &["srv"], Form::Bare),
        ] {
            assert_eq!(form(&os(argv), &os(upstream)), want, "{argv:?}");
        }
    }

    /// The rule of docs/decisions.md: what looks like a URL, and the URL
    /// that a word without a scheme stands for.
    #[test]
    fn a_word_looks_like_a_url_by_its_scheme_or_by_a_host_with_a_path_or_a_port() {
        for (word, scheme) in [
            ("https://mcp.example.com/mcp", true),
            ("htps://mcp.example.com", true),
            ("ftp://host/x", true),
            ("https//mcp.example.com", true),
            ("HTTP:/host", true),
            ("mcp.example.com/mcp", false),
            ("server.py", false),
            ("http", false),
        ] {
            assert_eq!(has_scheme(word) || http_url(word).is_some(), scheme, "{word}");
        }
        for (word, needs_more, want) in [
            ("mcp.example.com/mcp", true, Some("https://mcp.example.com/mcp")),
            ("mcp.example.com/mcp?key=SECRET#f", true, Some("https://mcp.example.com/mcp")),
            ("mcp.example.com:8443", true, Some("https://mcp.example.com:8443")),
            ("localhost:3000/mcp", true, Some("http://localhost:3000/mcp")),
            ("127.0.0.1:8080", true, Some("http://127.0.0.1:8080")),
            ("mcp.example.com", true, None),
            ("mcp.example.com", false, Some("https://mcp.example.com")),
            ("server.py", true, None),
            ("dist.v2/index.js", true, None),
            ("node_modules.x/y", true, None),
            ("localhost", true, None),
            ("user@mcp.example.com/mcp", true, None),
            ("srv", false, None),
        ] {
            assert_eq!(without_scheme(word, needs_more).as_deref(), want, "{word}");
        }
    }

    #[test]
    fn a_typo_of_a_subcommand_is_at_most_two_edits_and_only_at_the_top() {
        for (word, top, want) in [
            ("chek", true, Some("check")),
            ("chekc", true, Some("check")),
            ("logot", true, Some("logout")),
            ("demo-sever", true, Some("demo-server")),
            ("chek", false, None),
            ("ch", true, None),
            ("hepl", true, Some("help")),
            ("python3", true, None),
        ] {
            assert_eq!(typo_of(word, top), want, "{word}");
        }
    }

    #[test]
    fn a_word_names_a_file_here_or_a_program_on_the_path() {
        let file = std::env::temp_dir().join(format!("words-{}.py", std::process::id()));
        std::fs::write(&file, "").expect("a temporary file");
        let name = file.to_str().expect("a UTF-8 temporary path");
        assert_eq!(Names::of(name), Names::File { startable: false });
        let _ = std::fs::remove_file(&file);
        #[cfg(unix)]
        assert_eq!(Names::of("sh"), Names::Program, "sh is on the PATH of every Unix machine");
        assert_eq!(Names::of("no-such-program-anywhere"), Names::Nothing);
        assert_eq!(Names::of("https://mcp.example.com/mcp"), Names::Nothing);
    }
}
