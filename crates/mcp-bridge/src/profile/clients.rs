//! The words of each client product: what the bridge's messages call the
//! client and the place of its log. The error table writes them as
//! placeholders (`{client}`, `{log}`); a connection fills them with the
//! words of the client that its `initialize` names, so that a user of
//! Gemini CLI is not sent to VS Code's Output channel. A client that the
//! table does not know reads the behaviour spec's words, VS Code's.

/// What the bridge's messages call things of one client product.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Words {
    /// The product, as a message names it (`{client}`): "VS Code".
    pub client: String,
    /// Where the product shows the bridge's log (`{log}`): "the Output
    /// channel of the server".
    pub log_place: String,
    /// How its user carries a port of a remote host to their machine, when
    /// the product has a way of its own: "the Ports view of VS Code".
    pub port_forwarding: Option<String>,
}

impl Words {
    /// The words of a product: its name and the place of its log.
    pub fn new(client: impl Into<String>, log_place: impl Into<String>) -> Words {
        Words { client: client.into(), log_place: log_place.into(), port_forwarding: None }
    }

    /// VS Code's, as the behaviour spec writes its messages.
    pub fn vscode() -> Words {
        KNOWN[0].words()
    }

    /// A message of the error table with the product's words in place of
    /// its placeholders.
    pub(crate) fn fill(&self, template: &str) -> String {
        template.replace("{client}", &self.client).replace("{log}", &self.log_place)
    }
}

/// Where a known client that reached the bridge by URL reads its log.
const BY_URL_LOG_PLACE: &str = "the log of the server (ask its operator)";
/// What runs a bridge that a client reached by URL (the sandbox's owner).
const BY_URL_HOST: &str = "its host";

/// A client product that the bridge knows.
pub(crate) struct Known {
    /// Its name for `--client`.
    pub id: &'static str,
    /// The `clientInfo.name` values it sends in `initialize`, as measured
    /// (a trailing `*`: any name that starts so).
    pub client_info: &'static [&'static str],
    client: &'static str,
    log_place: &'static str,
    port_forwarding: Option<&'static str>,
}

impl Known {
    pub(crate) fn words(&self) -> Words {
        Words {
            client: self.client.to_owned(),
            log_place: self.log_place.to_owned(),
            port_forwarding: self.port_forwarding.map(str::to_owned),
        }
    }

    /// Its words when it reached the bridge by URL: the bridge runs on its
    /// own host then, whose log the client's own logs do not show, in
    /// whose sandbox if any, and no port of the client's host is forwarded.
    pub(crate) fn words_by_url(&self) -> Words {
        Words::new(BY_URL_HOST, BY_URL_LOG_PLACE)
    }

    /// The row of a `clientInfo.name`, when the bridge knows the client. A
    /// name of the table that ends with `*` is a prefix (Qwen Code adds the
    /// server's name to its own).
    pub(crate) fn by_client_info(name: &str) -> Option<&'static Known> {
        let names = |k: &&Known| {
            k.client_info.iter().any(|n| match n.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => *n == name,
            })
        };
        KNOWN.iter().find(names)
    }

    /// The row of a `--client` name.
    pub(crate) fn by_id(id: &str) -> Option<&'static Known> {
        KNOWN.iter().find(|k| k.id == id)
    }
}

/// The clients the bridge knows, VS Code first. The `clientInfo` names are
/// those the real clients sent (`scripts/clients`, the e2e test of VS Code
/// in code-server); the places are where each shows a stdio server's
/// stderr, read in its code (docs/clients.md, "Where each client shows the
/// log"). A client that shows none is told to run the command in a
/// terminal.
pub(crate) const KNOWN: [Known; 12] = [
    Known {
        id: "vscode",
        client_info: &["Visual Studio Code", "Visual Studio Code - Insiders", "Code - OSS", "code-server", "VSCodium"],
        client: "VS Code",
        log_place: "the Output channel of the server",
        port_forwarding: Some("the Ports view of VS Code"),
    },
    Known {
        id: "claude-code",
        client_info: &["claude-code"],
        client: "Claude Code",
        log_place: "the MCP logs of Claude Code (claude --debug, or the mcp-logs folders in ~/.cache/claude-cli-nodejs)",
        port_forwarding: None,
    },
    Known {
        id: "claude-desktop",
        client_info: &["claude-ai"],
        client: "Claude Desktop",
        log_place: "the log of the server in Claude Desktop (mcp-server-<name>.log in ~/Library/Logs/Claude or %APPDATA%\\Claude\\logs)",
        port_forwarding: None,
    },
    Known {
        id: "claude-ai",
        client_info: &["Anthropic/ClaudeAI"],
        client: "claude.ai",
        log_place: BY_URL_LOG_PLACE,
        port_forwarding: None,
    },
    Known {
        id: "chatgpt",
        client_info: &["openai-mcp"],
        client: "ChatGPT",
        log_place: BY_URL_LOG_PLACE,
        port_forwarding: None,
    },
    Known {
        id: "codex",
        client_info: &["codex-mcp-client"],
        client: "Codex",
        log_place: "the log of Codex (~/.codex/log/codex-tui.log)",
        port_forwarding: None,
    },
    Known {
        id: "gemini",
        client_info: &["gemini-cli-mcp-client"],
        client: "Gemini CLI",
        log_place: "the debug console of Gemini CLI (gemini --debug)",
        port_forwarding: None,
    },
    Known {
        id: "qwen",
        client_info: &["qwen-cli-mcp-client-*"],
        client: "Qwen Code",
        log_place: "the debug log of Qwen Code (qwen --debug)",
        port_forwarding: None,
    },
    Known {
        id: "opencode",
        client_info: &["opencode"],
        client: "opencode",
        log_place: "the stderr of the bridge (opencode does not show it: run the command in a terminal)",
        port_forwarding: None,
    },
    Known {
        id: "cline",
        client_info: &["@cline/core"],
        client: "Cline",
        log_place: "the stderr that Cline shows when the server exits",
        port_forwarding: None,
    },
    Known {
        id: "mcporter",
        client_info: &["mcporter"],
        client: "mcporter",
        log_place: "the output of mcporter (set MCPORTER_STDIO_LOGS=1)",
        port_forwarding: None,
    },
    Known {
        id: "inspector",
        client_info: &["inspector"],
        client: "MCP Inspector",
        log_place: "the stderr of the bridge (the Inspector CLI does not show it: run the command in a terminal)",
        port_forwarding: None,
    },
];

#[cfg(test)]
mod tests {
    use super::{Known, Words, KNOWN};

    /// The behaviour spec's words are VS Code's; an unknown client keeps them.
    #[test]
    fn vscode_words_are_the_specs_and_an_unknown_client_has_no_row() {
        let words = Words::vscode();
        assert_eq!(words.fill("See {log}."), "See the Output channel of the server.");
        assert_eq!(words.fill("the sandbox of {client}"), "the sandbox of VS Code");
        assert!(Known::by_client_info("my-client").is_none());
        assert!(Known::by_client_info("").is_none());
        assert!(Known::by_client_info("qwen-cli-mcp-client").is_none(), "a prefix needs its server name");
        assert!(Known::by_client_info("claude-code-x").is_none(), "only a name with * is a prefix");
    }

    /// Every row is found by each of its names, and no name or id is in two rows.
    #[test]
    fn each_known_client_is_found_by_its_names_and_only_by_them() {
        for known in &KNOWN {
            assert_eq!(Known::by_id(known.id).map(|k| k.client_info), Some(known.client_info), "{}", known.id);
            for name in known.client_info {
                let name = name.replace('*', "demo");
                let found = Known::by_client_info(&name).map(|k| k.id);
                assert_eq!(found, Some(known.id), "{name}");
            }
            let words = known.words();
            assert!(!words.log_place.contains("Output channel") || known.id == "vscode", "{}", known.id);
            assert!(!words.fill("{log} {client}").contains('{'), "{}", known.id);
        }
    }
}
