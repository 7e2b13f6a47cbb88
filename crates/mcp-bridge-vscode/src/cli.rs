//! The command line (the README's "Command line"). Parsing only checks; the
//! front end's configuration is built from it in `main`.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;

/// A bridge that lets VS Code (MCP 2025-11-25) use an MCP server of
/// revision 2026-07-28.
#[derive(Debug, Parser)]
#[command(name = "mcp-bridge-vscode", version, args_conflicts_with_subcommands = true)]
#[command(
    override_usage = "mcp-bridge-vscode [OPTIONS] <COMMAND> [ARGS]...\n       mcp-bridge-vscode [OPTIONS] -- <COMMAND> [ARGS]...\n       mcp-bridge-vscode [OPTIONS] <URL>\n       mcp-bridge-vscode logout <URL>\n       mcp-bridge-vscode check [OPTIONS] [<COMMAND> [ARGS]... | -- <COMMAND> [ARGS]... | <URL>]\n       mcp-bridge-vscode demo-server [--refuse-discover]",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub listen: ListenArgs,
    #[command(flatten)]
    pub bridge: BridgeArgs,
}

/// The options of the HTTP face.
#[derive(Debug, Clone, Args)]
pub struct ListenArgs {
    /// Serve clients over HTTP instead of stdio, at HOST:PORT: Streamable
    /// HTTP at /mcp, HTTP+SSE at /sse. PORT 0 takes a free port; the line
    /// on stderr names it. A HOST that is not loopback needs
    /// --auth-token-env or --pass-authorization.
    #[arg(long, value_name = "HOST:PORT")]
    pub listen: Option<String>,
    /// The environment variable that holds the token every client must
    /// send as `Authorization: Bearer <token>` (never logged).
    #[arg(long, value_name = "VAR", requires = "listen")]
    pub auth_token_env: Option<String>,
    /// Each client's Authorization goes to the upstream server at a URL
    /// unchanged, instead of the bridge's own sign-in; the server's 401 and
    /// 403 reach the client, whose OAuth then signs in at the server's
    /// authorization server (the bridge as an operator's front).
    #[arg(long, requires = "listen", conflicts_with = "auth_token_env")]
    pub pass_authorization: bool,
    /// The URL clients reach the bridge at (behind a proxy): its host and
    /// origin are let in.
    #[arg(long, value_name = "URL", requires = "listen")]
    pub public_url: Option<String>,
    /// An origin whose pages may send requests (repeatable).
    #[arg(long, value_name = "ORIGIN", requires = "listen")]
    pub allow_origin: Vec<String>,
    /// The most sessions at one time.
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_sessions: u32,
    /// A session that nobody uses for this long ends, in seconds.
    #[arg(long, default_value_t = 1800, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub session_idle: u64,
    /// Start the upstream command once per session instead of once for
    /// every session: for a server that keeps state per client, at the
    /// price of a process per session.
    #[arg(long, requires = "listen")]
    pub child_per_session: bool,
    /// For tests: the idle time of a session, in ms.
    #[arg(long, hide = true, value_name = "MS")]
    pub test_session_idle_ms: Option<u64>,
}

/// What `--help` says after the options: what a user looks for when the
/// bridge misbehaves (exit codes, the log, the tokens, the proxy).
const AFTER_HELP: &str = "\
Exit codes:
  0  the input (stdin) ended
  1  the upstream command stopped, or an internal error
  2  invalid arguments, a missing variable of --header-env, a --ca-file that cannot be used,
     or a token store that does not open
  check: 0 when VS Code can use the server, else 1

Environment:
  MCP_BRIDGE_LOG  the filter of the log on stderr: error, warn, info (the default; check: warn), debug, trace
                  (VS Code shows stderr in the Output channel of the server)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (and lower case)
                  the proxy of a server at a URL

Sign-in tokens of a server at a URL are kept in mcp-bridge/auth/ in the user's config folder
(Linux: ~/.config, macOS: ~/Library/Application Support, Windows: %APPDATA%), their secrets
in the OS credential store where one runs. `logout <URL>` forgets them.";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the bridge as VS Code would and print what VS Code will see.
    /// Without an upstream, it uses the bundled demo server.
    Check(Box<BridgeArgs>),
    /// Forget the tokens and the client registration of a server at a URL.
    Logout {
        /// The URL of the server.
        #[arg(value_name = "URL")]
        url: String,
    },
    /// The bundled demo server on stdio, for clients of both revisions (it
    /// serves through the embedded bridge); `check` runs it when no
    /// upstream is given.
    DemoServer {
        /// Answer a server/discover before the first request with -32601
        /// (the embedded mode's `Discover::Refuse`).
        #[arg(long)]
        refuse_discover: bool,
    },
}

/// The options of the bridge and the upstream command.
#[derive(Debug, Clone, Args)]
pub struct BridgeArgs {
    /// The server name when the upstream server gives none (default: the
    /// file name of the upstream command without its extension).
    #[arg(long)]
    pub name: Option<String>,
    /// The client whose words the error messages use (the place of its
    /// log), instead of the one that initialize names.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(mcp_bridge::Profile::client_names()))]
    pub client: Option<String>,
    /// The time limit of server/discover during initialize, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub discover_timeout: u64,
    /// The longest JSON response, and the longest event of a stream, in
    /// bytes, of an upstream server at a URL.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=(u32::MAX as u64)))]
    pub max_response_bytes: u64,
    /// Sends the header NAME with the value of the environment variable VAR
    /// to an upstream server at a URL (repeatable). The value is never
    /// logged.
    #[arg(long, value_name = "NAME=VAR", value_parser = parse_header_env)]
    pub header_env: Vec<(String, String)>,
    /// A PEM bundle of CA certificates trusted beside the platform's roots,
    /// for an upstream server at an https URL.
    #[arg(long, value_name = "PATH")]
    pub ca_file: Option<std::path::PathBuf>,
    /// The longest line, in bytes, from the client and from the upstream server.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=(u32::MAX as u64)))]
    pub max_line_bytes: u64,
    /// The time limit of a sign-in, in seconds. During initialize the
    /// discover limit grows by it when a sign-in can start.
    #[arg(long, default_value_t = 300, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub sign_in_timeout: u64,
    /// A client ID registered at the authorization server (with
    /// --client-issuer).
    #[arg(long, value_name = "ID", requires = "client_issuer")]
    pub client_id: Option<String>,
    /// The issuer of the authorization server of --client-id.
    #[arg(long, value_name = "URL", requires = "client_id")]
    pub client_issuer: Option<String>,
    /// The environment variable that holds the secret of a confidential
    /// --client-id (never on the command line; never logged).
    #[arg(long, value_name = "VAR", requires = "client_id")]
    pub client_secret_env: Option<String>,
    /// The https URL of a client ID metadata document to sign in with.
    #[arg(long, value_name = "URL")]
    pub client_metadata_url: Option<String>,
    /// The port of the redirect listener of the sign-in, on 127.0.0.1
    /// (default: the port this server used before, else a new free one).
    #[arg(long, value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..))]
    pub redirect_port: Option<u16>,
    /// Do not open a browser: the sign-in line on stderr has the URL.
    #[arg(long)]
    pub no_browser: bool,
    /// How to sign in: `device` (RFC 8628: a URL and a code, from any
    /// machine), `browser` (a redirect to 127.0.0.1 of this host), or
    /// `auto`: the device grant on a remote host (SSH, a container, WSL,
    /// Codespaces) when the server offers it, else the browser.
    /// (default: auto)
    #[arg(long, value_enum, value_name = "HOW")]
    pub sign_in: Option<SignIn>,
    /// For tests: one time limit for every forwarded request, in ms.
    #[arg(long, hide = true, value_name = "MS")]
    pub test_request_timeout_ms: Option<u64>,
    /// For tests: divides the default time limits of the forwarded requests
    /// and of the answers of the client by N, each class keeping its own
    /// limit (120 s becomes 120 ms with 1000), so that a test can tell which
    /// limit applies where. The discover limit stays `--discover-timeout`.
    #[arg(long, hide = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub test_time_divisor: Option<u32>,
    /// For tests: the time limit of the answers of one round of input requests, in ms.
    #[arg(long, hide = true, value_name = "MS")]
    pub test_input_timeout_ms: Option<u64>,
    /// For tests: the listen stream's first back-off, longest back-off,
    /// stable life and acknowledgment limit, in ms.
    #[arg(long, hide = true, value_name = "MS,MS,MS,MS", value_parser = parse_listen_ms)]
    pub test_listen_ms: Option<[u64; 4]>,
    /// For tests: the grace period of the end, in ms.
    #[arg(long, hide = true, value_name = "MS")]
    pub test_shutdown_grace_ms: Option<u64>,
    /// For tests: the time limit of each request of the sign-in and of a
    /// refresh, in ms.
    #[arg(long, hide = true, value_name = "MS")]
    pub test_oauth_timeout_ms: Option<u64>,
    /// For tests: an access token is refreshed when fewer than this many
    /// seconds of its life are left (a long margin makes it due at once).
    #[arg(long, hide = true, value_name = "SECONDS")]
    pub test_refresh_ahead_secs: Option<u64>,
    /// The upstream: the URL of a server over Streamable HTTP (http or
    /// https), or the command of a stdio server and its arguments, passed
    /// as given, without a shell. Every word after the command is the
    /// command's, options too; write -- before a command named like a
    /// subcommand or starting with -.
    #[arg(value_name = "URL | COMMAND", trailing_var_arg = true)]
    pub upstream: Vec<OsString>,
    /// How the upstream was given (`words::read` sets it).
    #[arg(skip)]
    pub form: Form,
}

/// `NAME=VAR`: a header name and the environment variable of its value.
fn parse_header_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, var)) if !name.is_empty() && !var.is_empty() => Ok((name.to_owned(), var.to_owned())),
        _ => Err("expected NAME=VAR, for example Authorization=MY_TOKEN".into()),
    }
}

/// Four numbers separated by commas.
fn parse_listen_ms(text: &str) -> Result<[u64; 4], String> {
    let numbers: Vec<u64> =
        text.split(',').map(|n| n.trim().parse::<u64>()).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    numbers.try_into().map_err(|_| "expected four numbers: BACKOFF,MAX,STABLE,ACK".to_string())
}

/// How the upstream was given (`words` tells).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Form {
    /// No word and no `--`.
    #[default]
    Absent,
    /// `--` with nothing after it.
    EmptyDash,
    /// The words after `--`: a command, whatever its first word.
    Dashed,
    /// Words without `--`: a URL, or a command.
    Bare,
}

/// The values of `--sign-in`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SignIn {
    Auto,
    Browser,
    Device,
}
