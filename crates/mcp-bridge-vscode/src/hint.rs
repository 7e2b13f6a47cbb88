//! What to say of upstream words that the bridge cannot take (`words`
//! reads them): the command or the URL as it must be written, when that
//! can be told.
//!
//! A URL is repeated up to its origin when it is not valid (its path and
//! query can hold a key); a URL that only lacks its scheme keeps its path,
//! which the suggestion needs, but never its query or fragment; a word
//! that names nothing loses its user information, query and fragment too.
//! The arguments after a file are not repeated: they may hold a key. Every
//! word that is repeated passes the library's gate of outside text
//! ([`shown`]), so that a control character or a line break in an argument
//! cannot reach the terminal or VS Code's Output channel as itself.

use mcp_bridge::cli_support::{shown, NAME};
use std::path::Path;

/// A word of the command line as a message repeats it.
pub fn word(text: &str) -> String {
    shown(text, NAME).to_string()
}

/// A command line that clap refused but could read once its words were
/// shown through the gate (a word that is not UTF-8 and holds a control
/// character): the message quotes no word.
pub const CONTROL_IN_WORD: &str = "an argument is not valid: it holds a control character or bytes that are not UTF-8";

/// `--` with nothing after it (`prefix`: the command line before it).
pub fn empty_dash(prefix: &str) -> String {
    format!("nothing follows --: the command of a server comes after it, for example: {prefix} -- {}", example())
}

/// No upstream at all, outside `check`.
pub fn no_upstream(prefix: &str) -> String {
    format!("no upstream: give a URL or the command of a server, for example: {prefix} {}", example())
}

fn example() -> String {
    format!("{} server.py", interpreter("server.py").unwrap_or("python3"))
}

/// A subcommand's name where the command goes: after an option, or in
/// `check`.
pub fn subcommand_word(prefix: &str, word: &str, top: bool) -> String {
    let first = if top { ", which comes first, before any option" } else { "" };
    format!(
        "{word} is a subcommand{first}; a program named {word} is written after --, for example: {prefix} -- {word}"
    )
}

/// A first word that names a file that cannot start as it is written:
/// a bare name (the spawn looks it up on `PATH` only), or a file that is
/// not executable.
pub fn file(prefix: &str, words: &[String], startable: bool) -> String {
    let Some(first) = words.first() else { return no_upstream(prefix) };
    let rest = if words.len() > 1 { " …" } else { "" };
    let command = |lead: &str| format!("{}{rest}", quoted(&format!("{lead}{}", word(first))));
    let first = word(first);
    if startable {
        let here = if cfg!(windows) { ".\\" } else { "./" };
        return format!(
            "{first} is a file in this folder, and a program without a folder is looked up on PATH: write it with \
             its folder, for example: {prefix} {}",
            command(here)
        );
    }
    match interpreter(&first) {
        Some(program) => format!(
            "{first} is a file, not a program: give the program that runs it first, for example: {prefix} {program} {}",
            command("")
        ),
        None if cfg!(unix) => format!(
            "{first} is a file that is not executable: make it executable (chmod +x {}) or give the program that \
             runs it first",
            quoted(&first)
        ),
        None => format!("{first} is a file that Windows cannot start: give the program that runs it first"),
    }
}

/// A URL without its scheme, and the URL it stands for.
pub fn no_scheme(text: &str, url: &str) -> String {
    let given = &text[..text.find(['?', '#']).unwrap_or(text.len())];
    format!("the URL {} has no scheme; did you mean {}?", word(given), word(url))
}

/// A first word that is nothing the bridge knows, with the subcommand it
/// may be a typo of. `top`: outside `check`, where subcommands stand.
pub fn names_nothing(text: &str, top: bool, typo: Option<&str>) -> String {
    let what = if top { "a subcommand, a URL" } else { "a URL" };
    let given = word(&without_secrets(text));
    match typo {
        Some(subcommand) => {
            format!("{given} is not {what}, a file here or a program on PATH; did you mean {subcommand}?")
        }
        None => format!("{given} is not {what}, a file here or a program on PATH"),
    }
}

/// A word that may be a URL without its scheme, without what can hold a
/// key: the query, the fragment and the user information (`user:key@`
/// becomes `…@`).
fn without_secrets(text: &str) -> String {
    // The user information runs to the last `@`: a key typed as it is can
    // hold `/`, `?` or `#`.
    let (lead, text) = match text.rfind('@') {
        Some(at) => ("…", &text[at..]),
        None => ("", text),
    };
    format!("{lead}{}", &text[..text.find(['?', '#']).unwrap_or(text.len())])
}

/// A URL that is not valid, alone or with more words after it.
pub fn not_a_url(words: &[String]) -> String {
    match words {
        [] => "no upstream: give a URL, or the command of a server".into(),
        [first] => format!("the URL {} is not a valid http or https URL", shown_origin(first)),
        // The words are not repeated: they may hold a key too.
        [first, rest @ ..] => format!(
            "give one URL ({} and {} more word(s) were given), or the command of a server after --",
            shown_origin(first),
            rest.len()
        ),
    }
}

/// The program that runs a script that is not executable by itself.
fn interpreter(file: &str) -> Option<&'static str> {
    let extension = Path::new(file).extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "py" => Some(if cfg!(windows) { "python" } else { "python3" }),
        "js" | "mjs" | "cjs" => Some("node"),
        _ => None,
    }
}

/// A word as a shell reads it back: in quotes when it has a space.
fn quoted(word: &str) -> String {
    if word.is_empty() || word.contains(char::is_whitespace) {
        format!("\"{word}\"")
    } else {
        word.to_owned()
    }
}

/// [`origin`] as a message shows it: through the gate, and `…` when
/// nothing of it can be shown.
fn shown_origin(text: &str) -> String {
    match origin(text) {
        "" => "…".to_owned(),
        origin => word(origin),
    }
}

/// The text of a URL up to its origin: the scheme and the host, never the
/// user information, the path, the query or the fragment.
fn origin(text: &str) -> &str {
    let (scheme_len, rest) = match text.find("://") {
        Some(at) => (at + 3, &text[at + 3..]),
        None => (0, text),
    };
    if rest.contains('@') {
        // `user:secret@host`: the user information stays out, and it runs
        // to the last `@`, since a key typed as it is can hold `/`, `?`
        // or `#`.
        return &text[..scheme_len];
    }
    let rest = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    &text[..scheme_len + rest.find(['/', '\\']).unwrap_or(rest.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    /// A file as the first word starts only as a program with a folder:
    /// the message shows the command as it must be written.
    #[test]
    fn a_file_that_cannot_start_as_written_gets_the_command_as_it_must_be_written() {
        let python = if cfg!(windows) { "python" } else { "python3" };
        let here = if cfg!(windows) { ".\\" } else { "./" };
        let cases = [
            (
                "mcp-bridge-vscode",
                "server.py",
                false,
                format!("server.py is a file, not a program: give the program that runs it first, for example: mcp-bridge-vscode {python} server.py"),
            ),
            (
                "mcp-bridge-vscode check",
                "build/server.mjs --port",
                false,
                "build/server.mjs is a file, not a program: give the program that runs it first, for example: mcp-bridge-vscode check node build/server.mjs …".to_owned(),
            ),
            (
                "mcp-bridge-vscode",
                "server --flag",
                true,
                format!("server is a file in this folder, and a program without a folder is looked up on PATH: write it with its folder, for example: mcp-bridge-vscode {here}server …"),
            ),
        ];
        for (prefix, given, startable, expected) in cases {
            assert_eq!(file(prefix, &words(given), startable), expected, "{given}");
        }
        #[cfg(unix)]
        assert_eq!(
            file("mcp-bridge-vscode", &words("./server"), false),
            "./server is a file that is not executable: make it executable (chmod +x ./server) or give the program that runs it first"
        );
    }

    #[test]
    fn a_malformed_url_is_repeated_up_to_its_origin_only() {
        let cases = [
            (
                "htps://mcp.example.com/mcp?key=SECRET",
                "the URL htps://mcp.example.com is not a valid http or https URL",
            ),
            ("https//mcp.example.com/SECRET", "the URL https is not a valid http or https URL"),
            ("ftp://user:SECRET@host/x", "the URL ftp:// is not a valid http or https URL"),
            ("https://exa mple.com#SECRET", "the URL https://exa mple.com is not a valid http or https URL"),
            // A key typed as it is, with `/`, `?` or `#` in it.
            ("https://tok:abc/SECRET==@mcp.example.com/mcp", "the URL https:// is not a valid http or https URL"),
            ("htps://user:SE?SECRET@host/", "the URL htps:// is not a valid http or https URL"),
            ("user:SECRET@host/path?token=SECRET", "the URL … is not a valid http or https URL"),
        ];
        for (given, expected) in cases {
            let message = not_a_url(&[given.to_owned()]);
            assert_eq!(message, expected);
            assert!(!message.contains("SECRET"), "{message}");
        }
    }

    #[test]
    fn a_url_with_more_words_is_repeated_up_to_its_origin_only() {
        let words = ["https://mcp.example.com/mcp?key=SECRET".to_owned(), "extra".to_owned()];
        assert_eq!(
            not_a_url(&words),
            "give one URL (https://mcp.example.com and 1 more word(s) were given), or the command of a server after --"
        );
    }

    /// A URL without its scheme keeps its path in the suggestion, which
    /// needs it, but never its query or fragment.
    #[test]
    fn a_url_without_a_scheme_keeps_its_path_but_not_its_query() {
        assert_eq!(
            no_scheme("mcp.example.com/mcp?key=SECRET", "https://mcp.example.com/mcp"),
            "the URL mcp.example.com/mcp has no scheme; did you mean https://mcp.example.com/mcp?"
        );
    }

    #[test]
    fn a_word_that_names_nothing_says_what_it_is_not_and_the_subcommand_it_may_mean() {
        assert_eq!(
            names_nothing("chek", true, Some("check")),
            "chek is not a subcommand, a URL, a file here or a program on PATH; did you mean check?"
        );
        assert_eq!(names_nothing("srv", false, None), "srv is not a URL, a file here or a program on PATH");
    }

    /// The words a message repeats pass the gate, and what can hold a key
    /// stays out: the arguments after a file, the user information, query
    /// and fragment of a word that names nothing.
    #[test]
    fn a_repeated_word_is_escaped_and_holds_no_key() {
        assert_eq!(
            names_nothing("user:SECRET@mcp.example.com/path?token=SECRET#SECRET", true, None),
            "…@mcp.example.com/path is not a subcommand, a URL, a file here or a program on PATH"
        );
        assert_eq!(
            names_nothing("user:SE/SECRET?#SECRET@host.example/p?SECRET", true, None),
            "…@host.example/p is not a subcommand, a URL, a file here or a program on PATH"
        );
        assert_eq!(
            names_nothing("ch\u{1b}[31mck\r\nWARN fake\u{202e}", true, None),
            r"ch\x1b[31mck\r\nWARN fake\u{202e} is not a subcommand, a URL, a file here or a program on PATH"
        );
        let long = names_nothing(&"x".repeat(20_000), false, None);
        assert_eq!(long, format!("{}… is not a URL, a file here or a program on PATH", "x".repeat(200)));
        let python = if cfg!(windows) { "python" } else { "python3" };
        assert_eq!(
            file("mcp-bridge-vscode", &words("srv\u{7}.py --api-key SECRET"), false),
            format!(
                r"srv\x07.py is a file, not a program: give the program that runs it first, for example: mcp-bridge-vscode {python} srv\x07.py …"
            )
        );
        assert_eq!(
            no_scheme("mcp.example.com/p\u{1b}[31m\r\nX?token=SECRET", "https://mcp.example.com/p\u{1b}[31m\r\nX"),
            r"the URL mcp.example.com/p\x1b[31m\r\nX has no scheme; did you mean https://mcp.example.com/p\x1b[31m\r\nX?"
        );
        assert_eq!(
            not_a_url(&["ht\u{1b}tp://host/SECRET".to_owned()]),
            r"the URL ht\x1btp://host is not a valid http or https URL"
        );
    }
}
