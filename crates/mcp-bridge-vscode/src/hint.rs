//! What to say of upstream words that the bridge cannot take (`words`
//! reads them): the command or the URL as it must be written, when that
//! can be told.
//!
//! A URL is repeated up to its origin when it is not valid (its path and
//! query can hold a key); a URL that only lacks its scheme keeps its path,
//! which the suggestion needs, but never its query or fragment.

use std::path::Path;

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
    let command = |lead: &str| {
        let mut all: Vec<String> = words.iter().map(|w| quoted(w)).collect();
        if let Some(word) = all.first_mut() {
            word.insert_str(0, lead);
        }
        all.join(" ")
    };
    if startable {
        let here = if cfg!(windows) { ".\\" } else { "./" };
        return format!(
            "{first} is a file in this folder, and a program without a folder is looked up on PATH: write it with \
             its folder, for example: {prefix} {}",
            command(here)
        );
    }
    match interpreter(first) {
        Some(program) => format!(
            "{first} is a file, not a program: give the program that runs it first, for example: {prefix} {program} {}",
            command("")
        ),
        None if cfg!(unix) => format!(
            "{first} is a file that is not executable: make it executable (chmod +x {first}) or give the program that \
             runs it first"
        ),
        None => format!("{first} is a file that Windows cannot start: give the program that runs it first"),
    }
}

/// A URL without its scheme, and the URL it stands for.
pub fn no_scheme(text: &str, url: &str) -> String {
    let shown = &text[..text.find(['?', '#']).unwrap_or(text.len())];
    format!("the URL {shown} has no scheme; did you mean {url}?")
}

/// A first word that is nothing the bridge knows, with the subcommand it
/// may be a typo of. `top`: outside `check`, where subcommands stand.
pub fn names_nothing(word: &str, top: bool, typo: Option<&str>) -> String {
    let what = if top { "a subcommand, a URL" } else { "a URL" };
    match typo {
        Some(subcommand) => {
            format!("{word} is not {what}, a file here or a program on PATH; did you mean {subcommand}?")
        }
        None => format!("{word} is not {what}, a file here or a program on PATH"),
    }
}

/// A URL that is not valid, alone or with more words after it.
pub fn not_a_url(words: &[String]) -> String {
    match words {
        [] => "no upstream: give a URL, or the command of a server".into(),
        [first] => format!("the URL {} is not a valid http or https URL", origin(first)),
        // The words are not repeated: they may hold a key too.
        [first, rest @ ..] => format!(
            "give one URL ({} and {} more word(s) were given), or the command of a server after --",
            origin(first),
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

/// The text of a URL up to its origin: the scheme and the host, never the
/// user information, the path, the query or the fragment.
pub fn origin(text: &str) -> &str {
    let text = &text[..text.find(['?', '#']).unwrap_or(text.len())];
    let (scheme_len, rest) = match text.find("://") {
        Some(at) => (at + 3, &text[at + 3..]),
        None => (0, text),
    };
    let authority = &rest[..rest.find(['/', '\\']).unwrap_or(rest.len())];
    if authority.contains('@') {
        // `user:secret@host`: the user information stays out.
        return &text[..scheme_len];
    }
    &text[..scheme_len + authority.len()]
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
                "build/server.mjs is a file, not a program: give the program that runs it first, for example: mcp-bridge-vscode check node build/server.mjs --port".to_owned(),
            ),
            (
                "mcp-bridge-vscode",
                "server --flag",
                true,
                format!("server is a file in this folder, and a program without a folder is looked up on PATH: write it with its folder, for example: mcp-bridge-vscode {here}server --flag"),
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
}
