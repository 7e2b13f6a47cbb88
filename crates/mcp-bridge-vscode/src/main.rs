//! `mcp-bridge-vscode`: glue between the command line, the VS Code profile
//! and the core library. Exit codes are chosen here, in one place.

mod check;
mod cli;
mod demo;
mod files;
mod hint;
mod listen;
mod log;
mod profile;
mod trim;
mod words;

use cli::{BridgeArgs, Command};
use mcp_bridge::cli_support::{self, Store};
use mcp_bridge::{
    AuthOptions, CaBundle, Config, Exit, HttpOptions, SecretHeader, SignInMode, StdioCommand, Timeouts, UpstreamSpec,
};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use url::Url;

/// Invalid arguments.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match words::read(std::env::args_os().collect()) {
        Ok(cli) => cli,
        // Help and version exit 0, a refused line 2 (clap's codes).
        Err(err) => err.exit(),
    };
    match cli.command {
        None if cli.listen.listen.is_some() => {
            let _log = log::init(profile::NAME, tracing::Level::INFO);
            let (address, options) = match listen::options(&cli.listen) {
                Ok(parsed) => parsed,
                Err(message) => return usage_error(&message),
            };
            let config = match config(&cli.bridge, (profile::NAME, true)) {
                Ok(config) => config,
                Err(message) => return usage_error(&message),
            };
            if let Err(message) = listen::check_passing(&options, &config.upstream, &cli.bridge) {
                return usage_error(&message);
            }
            files::raise(options.max_sessions);
            // Many sessions: every core serves them.
            let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
                Ok(runtime) => runtime,
                Err(err) => {
                    tracing::error!(error = %err, "cannot start the runtime");
                    return ExitCode::FAILURE;
                }
            };
            let served = runtime.block_on(listen::serve(address, config, options, profile::NAME));
            runtime.shutdown_timeout(Duration::from_millis(100));
            match served {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => usage_error(&message),
            }
        }
        None => {
            let _log = log::init(profile::NAME, tracing::Level::INFO);
            with_config(&cli.bridge, (profile::NAME, true), |config| async move {
                // Non-blocking pipes when VS Code gives pipes: reads and writes
                // then run on the reactor, without a thread hand-off per line.
                let (input, output) = rmcp::transport::stdio_pipes();
                let input = trim::when_quiet(input);
                cli_support::widen_pipe(std::io::stdout());
                match mcp_bridge::serve(config, input, output).await {
                    Exit::EndOfInput => ExitCode::SUCCESS,
                    Exit::UpstreamLost => ExitCode::FAILURE,
                    // An end that a later library names is no clean one.
                    _ => ExitCode::FAILURE,
                }
            })
        }
        Some(Command::Check(mut args)) => {
            // The report goes to stdout; only warnings go to the log.
            let (_log, tail, stdout) = log::init_check(profile::NAME, tracing::Level::WARN);
            if args.form == cli::Form::Absent {
                match demo_command() {
                    Ok(command) => (args.upstream, args.form) = (command, cli::Form::Dashed),
                    Err(message) => return usage_error(&message),
                }
            }
            let prefix = format!("{} check", profile::NAME);
            with_config(&args, (&prefix, false), |config| async move {
                let outcome = check::run(config, tail, stdout).await;
                if let Some(err) = outcome.write_failure {
                    eprintln!("{}: cannot write the report to stdout: {err}", profile::NAME);
                    return ExitCode::FAILURE;
                }
                if outcome.usable {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            })
        }
        Some(Command::Logout { url }) => logout(&url),
        Some(Command::DemoServer { refuse_discover }) => {
            let _log = log::init("mcp-bridge-demo", tracing::Level::WARN);
            run(async {
                let discover = if refuse_discover {
                    mcp_bridge::embed::Discover::Refuse
                } else {
                    mcp_bridge::embed::Discover::Answer
                };
                match demo::serve_stdio(discover).await {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(err) => {
                        tracing::error!(error = %err, "the demo server failed");
                        ExitCode::FAILURE
                    }
                }
            })
        }
    }
}

/// Builds the configuration and runs `work` with it, or exits with 2.
/// `prefix` is the command line before the upstream, for the hints, and
/// whether it is the bridge's own (not `check`'s).
fn with_config<F, Fut>(args: &BridgeArgs, prefix: (&str, bool), work: F) -> ExitCode
where
    F: FnOnce(Config) -> Fut,
    Fut: std::future::Future<Output = ExitCode>,
{
    match config(args, prefix) {
        Ok(config) => run(work(config)),
        Err(message) => usage_error(&message),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("{}: {message}", profile::NAME);
    ExitCode::from(EXIT_USAGE)
}

/// Runs a future on a runtime of one thread: the bridge is I/O-bound, and
/// one thread saves the cross-thread wake-ups of each hop, which lowers
/// both the latency and the peak memory (`docs/benchmarks.md`).
fn run(work: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            tracing::error!(error = %err, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(work);
    // A blocked read of stdin must not hold the process open.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

/// This executable with the hidden `demo-server` subcommand.
fn demo_command() -> Result<Vec<std::ffi::OsString>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable for the demo server: {e}"))?;
    Ok(vec![exe.into_os_string(), "demo-server".into()])
}

/// The upstream of the arguments and its fallback name: a command (named
/// after its file name without extension), or a URL, which has no such
/// name: the profile's name serves (behaviour spec, "The profile": "It is
/// also the server name when no other name exists").
fn upstream(args: &BridgeArgs, (prefix, top): (&str, bool)) -> Result<(UpstreamSpec, String), String> {
    match words::upstream(&args.upstream, args.form, prefix, top)? {
        None => Err(hint::no_upstream(prefix)),
        Some(words::Upstream::Command(command)) => {
            if let Some(option) = url_only_option(args) {
                return Err(format!(
                    "{option} is for a server at a URL; a command gets no HTTP requests \
                     (it inherits the environment of the bridge)"
                ));
            }
            let Some((program, rest)) = command.split_first() else { return Err(hint::no_upstream(prefix)) };
            let name = Path::new(program)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| profile::NAME.into());
            Ok((UpstreamSpec::Stdio(StdioCommand::new(program, rest)), name))
        }
        Some(words::Upstream::Url(url)) => {
            Ok((UpstreamSpec::Http(Box::new(http_options(args, url)?)), profile::NAME.to_owned()))
        }
    }
}

/// The first option given that only a server at a URL uses. With a
/// command it would do nothing, so it is refused rather than ignored: a
/// user who gives `--header-env` expects the header to be sent.
fn url_only_option(args: &BridgeArgs) -> Option<&'static str> {
    [
        ("--header-env", !args.header_env.is_empty()),
        ("--ca-file", args.ca_file.is_some()),
        ("--client-id", args.client_id.is_some()),
        ("--client-issuer", args.client_issuer.is_some()),
        ("--client-secret-env", args.client_secret_env.is_some()),
        ("--client-metadata-url", args.client_metadata_url.is_some()),
        ("--redirect-port", args.redirect_port.is_some()),
        ("--no-browser", args.no_browser),
        ("--sign-in", args.sign_in.is_some()),
    ]
    .into_iter()
    .find_map(|(option, given)| given.then_some(option))
}

/// The most bytes of a `--ca-file`: many times a platform's whole bundle
/// (Mozilla's is about 220 KB), and a bound on what a wrong path makes the
/// bridge read.
const CA_FILE_LIMIT: u64 = 4 * 1024 * 1024;

/// Reads `--ca-file`, a regular file of at most [`CA_FILE_LIMIT`] bytes: a
/// pipe would keep the bridge waiting for a writer, and a device such as
/// /dev/zero would never end.
fn read_ca_file(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    if !std::fs::metadata(path).map_err(|e| e.to_string())?.is_file() {
        return Err("it is not a regular file".into());
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut pem = Vec::new();
    file.take(CA_FILE_LIMIT + 1).read_to_end(&mut pem).map_err(|e| e.to_string())?;
    if pem.len() as u64 > CA_FILE_LIMIT {
        return Err(format!("it is larger than {} MiB", CA_FILE_LIMIT >> 20));
    }
    Ok(pem)
}

/// The options of an upstream server at a URL. A missing variable of
/// `--header-env` or a `--ca-file` that cannot be used is an invalid
/// argument (exit 2), found before anything is read from stdin.
fn http_options(args: &BridgeArgs, url: Url) -> Result<HttpOptions, String> {
    // The words of the command line that a message repeats pass the gate.
    let word = hint::word;
    let mut headers = Vec::new();
    for (name, var) in &args.header_env {
        let given = format!("{}={}", word(name), word(var));
        let value =
            std::env::var(var).map_err(|_| format!("the variable {} of --header-env {given} is not set", word(var)))?;
        headers.push(SecretHeader::new(name, &value).map_err(|e| format!("--header-env {given}: {e}"))?);
    }
    let ca = match &args.ca_file {
        None => None,
        Some(path) => {
            let shown_path = word(&path.to_string_lossy());
            let pem = read_ca_file(path).map_err(|e| format!("cannot read --ca-file {shown_path}: {e}"))?;
            Some(CaBundle::from_pem(&pem).map_err(|e| format!("--ca-file {shown_path}: {e}"))?)
        }
    };
    let max_response_bytes =
        usize::try_from(args.max_response_bytes).map_err(|_| "--max-response-bytes is too large".to_string())?;
    let client_secret = match &args.client_secret_env {
        Some(var) => {
            let missing = || format!("the variable {} of --client-secret-env is not set", word(var));
            Some(std::env::var(var).map_err(|_| missing())?)
        }
        None => None,
    };
    let mut auth = AuthOptions::new(profile::NAME)?;
    auth.client.pre_registered = args.client_id.clone().zip(args.client_issuer.clone());
    auth.client.client_secret = client_secret;
    auth.client.metadata_url = args.client_metadata_url.clone();
    auth.redirect_port = args.redirect_port;
    auth.browser = !args.no_browser;
    auth.sign_in_timeout = Duration::from_secs(args.sign_in_timeout);
    auth.sandbox = std::env::var("SANDBOX_RUNTIME").is_ok_and(|v| v == "1");
    if let Some(ms) = args.test_oauth_timeout_ms {
        auth.request_limit = Duration::from_millis(ms);
    }
    auth.refresh_ahead = args.test_refresh_ahead_secs.map(Duration::from_secs);
    auth.sign_in = match args.sign_in {
        None | Some(cli::SignIn::Auto) => SignInMode::Auto,
        Some(cli::SignIn::Browser) => SignInMode::Browser,
        Some(cli::SignIn::Device) => SignInMode::Device,
    };
    let mut options = HttpOptions::new(url.as_str())?;
    options.headers = headers;
    options.ca = ca;
    options.max_response_bytes = max_response_bytes;
    options.auth = Some(auth);
    Ok(options)
}

/// `logout <URL>`: forgets the tokens and the registration of the server;
/// exit 0 also when there were none, 2 when the store does not open.
fn logout(url: &str) -> ExitCode {
    let url = match words::logout_url(url) {
        Ok(url) => url,
        Err(message) => return usage_error(&message),
    };
    let store = match Store::open() {
        Ok(store) => store,
        Err(message) => return usage_error(&message),
    };
    match store.forget(url.as_str()) {
        Ok(true) => {
            eprintln!("{}: forgot the sign-in of the server", profile::NAME);
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("{}: the server had no sign-in", profile::NAME);
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{}: {message}", profile::NAME);
            ExitCode::FAILURE
        }
    }
}

/// The configuration of the front end, from the arguments.
fn config(args: &BridgeArgs, prefix: (&str, bool)) -> Result<Config, String> {
    let (upstream, fallback_name) = upstream(args, prefix)?;
    let fallback_name = args.name.clone().unwrap_or(fallback_name);
    let mut timeouts = Timeouts::default();
    timeouts.discover = Duration::from_secs(args.discover_timeout);
    timeouts.sign_in = Duration::from_secs(args.sign_in_timeout);
    if let Some(n) = args.test_time_divisor {
        for limit in [
            &mut timeouts.list,
            &mut timeouts.first_round,
            &mut timeouts.later_round,
            &mut timeouts.call,
            &mut timeouts.input,
        ] {
            *limit /= n;
        }
    }
    if let Some(ms) = args.test_request_timeout_ms {
        let limit = Duration::from_millis(ms);
        (timeouts.list, timeouts.first_round, timeouts.later_round, timeouts.call) = (limit, limit, limit, limit);
    }
    if let Some(ms) = args.test_input_timeout_ms {
        timeouts.input = Duration::from_millis(ms);
    }
    if let Some([backoff, max_backoff, stable, ack_timeout]) = args.test_listen_ms {
        let listen = &mut timeouts.listen;
        listen.backoff = Duration::from_millis(backoff);
        listen.max_backoff = Duration::from_millis(max_backoff);
        listen.stable = Duration::from_millis(stable);
        listen.ack_timeout = Duration::from_millis(ack_timeout);
    }
    if let Some(ms) = args.test_shutdown_grace_ms {
        timeouts.shutdown_grace = Duration::from_millis(ms);
    }
    let profile = match &args.client {
        Some(name) => mcp_bridge::Profile::vscode().for_client(name).ok_or("--client names no known client")?,
        None => mcp_bridge::Profile::vscode(),
    };
    let mut config = Config::new(profile, upstream);
    config.fallback_name = fallback_name;
    config.max_line_bytes =
        usize::try_from(args.max_line_bytes).map_err(|_| "--max-line-bytes is too large".to_string())?;
    config.timeouts = timeouts;
    Ok(config)
}
