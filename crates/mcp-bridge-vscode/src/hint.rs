//! What to say of an upstream argument that is not a URL.
//!
//! A newcomer writes `mcp-bridge-vscode server.py` or `check python3
//! server.py`, without the `--` before a command. The words then arrive as
//! a URL (and clap's "unexpected argument" for the second one). When the
//! first word names a file or a program on `PATH`, the message shows the
//! command as it must be written; else it repeats the URL up to its origin
//! (its path and query can hold a key, and never appear in a message).

use std::path::Path;

/// What the first word names on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    File,
    Program,
    Nothing,
}

impl Names {
    /// Looks the word up: a file (relative to the current folder), or a
    /// program on `PATH`.
    pub fn of(word: &str) -> Names {
        if Path::new(word).is_file() {
            Names::File
        } else if !word.contains(['/', '\\']) && on_path(word) {
            Names::Program
        } else {
            Names::Nothing
        }
    }
}

/// The message for `words` given where a URL goes (the URL and the words
/// after it), `prefix` the command before them (`mcp-bridge-vscode check`),
/// `names` what the first word names.
pub fn not_a_url(prefix: &str, words: &[String], names: Names) -> String {
    let Some(first) = words.first() else {
        return "no upstream: give a URL, or the command after --".into();
    };
    match names {
        Names::File | Names::Program => {
            let what = if names == Names::File { "a file" } else { "a program" };
            let mut command: Vec<String> = interpreter(first).into_iter().map(str::to_owned).collect();
            command.extend(words.iter().map(|w| quoted(w)));
            format!(
                "{first} is {what}, not a URL. Give the command of a server after --, for example: {prefix} -- {}",
                command.join(" ")
            )
        }
        // A URL and more words: the words are not repeated, since the URL
        // may hold a key.
        Names::Nothing if words.len() > 1 && first.contains("://") => format!(
            "give one URL ({} and {} more word(s) were given), or the command of a server after --",
            origin(first),
            words.len() - 1
        ),
        Names::Nothing if words.len() > 1 => format!(
            "give one URL, or the command of a server after -- ({prefix} -- {}); {} is not a valid http or https URL",
            words.iter().map(|w| quoted(w)).collect::<Vec<_>>().join(" "),
            origin(first)
        ),
        Names::Nothing => format!("the URL {} is not a valid http or https URL", origin(first)),
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

/// Whether `name` is an executable file in a folder of `PATH`.
fn on_path(name: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else { return false };
    #[cfg(windows)]
    {
        let pathext = std::env::var_os("PATHEXT");
        let is_file = |p: &Path| p.is_file();
        mcp_bridge::resolve_program(std::ffi::OsStr::new(name), Some(path.as_os_str()), pathext.as_deref(), &is_file)
            .is_some()
    }
    #[cfg(not(windows))]
    {
        use std::os::unix::fs::PermissionsExt;
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(name)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn a_file_or_a_program_without_the_double_dash_gets_the_command_as_it_must_be_written() {
        let cases = [
            (
                "mcp-bridge-vscode",
                "server.py",
                Names::File,
                "server.py is a file, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode -- python3 server.py",
            ),
            (
                "mcp-bridge-vscode check",
                "python3",
                Names::Program,
                "python3 is a program, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode check -- python3",
            ),
            (
                "mcp-bridge-vscode check",
                "python3 server.py",
                Names::Program,
                "python3 is a program, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode check -- python3 server.py",
            ),
            (
                "mcp-bridge-vscode",
                "build/server.mjs --port",
                Names::File,
                "build/server.mjs is a file, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode -- node build/server.mjs --port",
            ),
            (
                "mcp-bridge-vscode",
                "./server",
                Names::File,
                "./server is a file, not a URL. Give the command of a server after --, for example: mcp-bridge-vscode -- ./server",
            ),
        ];
        for (prefix, given, names, expected) in cases {
            let expected =
                if cfg!(windows) { expected.replace("python3 server.py", "python server.py") } else { expected.into() };
            assert_eq!(not_a_url(prefix, &words(given), names), expected, "{given}");
        }
    }

    #[test]
    fn a_malformed_url_is_repeated_up_to_its_origin_only() {
        let cases = [
            (
                "htps://mcp.example.com/mcp?key=SECRET",
                "the URL htps://mcp.example.com is not a valid http or https URL",
            ),
            ("https//mcp.example.com/SECRET", "the URL https is not a valid http or https URL"),
            ("mcp.example.com/SECRET", "the URL mcp.example.com is not a valid http or https URL"),
            ("ftp://user:SECRET@host/x", "the URL ftp:// is not a valid http or https URL"),
            ("https://exa mple.com#SECRET", "the URL https://exa mple.com is not a valid http or https URL"),
        ];
        for (given, expected) in cases {
            let message = not_a_url("mcp-bridge-vscode", &[given.to_owned()], Names::Nothing);
            assert_eq!(message, expected);
            assert!(!message.contains("SECRET"), "{message}");
        }
    }

    #[test]
    fn more_words_than_a_url_say_how_to_give_a_command() {
        let message = not_a_url("mcp-bridge-vscode check", &words("srv --flag"), Names::Nothing);
        assert_eq!(
            message,
            "give one URL, or the command of a server after -- (mcp-bridge-vscode check -- srv --flag); srv is not a valid http or https URL"
        );
    }

    #[test]
    fn a_url_with_more_words_is_repeated_up_to_its_origin_only() {
        let words = ["https://mcp.example.com/mcp?key=SECRET".to_owned(), "extra".to_owned()];
        let message = not_a_url("mcp-bridge-vscode", &words, Names::Nothing);
        assert_eq!(
            message,
            "give one URL (https://mcp.example.com and 1 more word(s) were given), or the command of a server after --"
        );
    }

    #[test]
    fn a_word_names_a_file_here_or_a_program_on_the_path() {
        let file = std::env::temp_dir().join(format!("hint-{}.py", std::process::id()));
        std::fs::write(&file, "").expect("a temporary file");
        let name = file.to_str().expect("a UTF-8 temporary path");
        assert_eq!(Names::of(name), Names::File);
        let _ = std::fs::remove_file(&file);
        #[cfg(unix)]
        assert_eq!(Names::of("sh"), Names::Program, "sh is on the PATH of every Unix machine");
        assert_eq!(Names::of("no-such-program-anywhere"), Names::Nothing);
        assert_eq!(Names::of("https://mcp.example.com/mcp"), Names::Nothing);
    }
}
