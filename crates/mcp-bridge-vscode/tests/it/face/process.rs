//! The face as a process: `mcp-bridge-vscode --listen ...` in its own
//! process group, which its drop kills (the face and every upstream
//! child); the port from its one ready line; its stderr; its children and
//! whether a process still runs, from /proc.

use crate::support::http::{send, Reply, Req, STEP};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The line the face writes on stderr once it listens, before the address.
const READY: &str = "mcp-bridge-vscode: listening on http://";

/// A running `mcp-bridge-vscode --listen`, in its own process group, which
/// its drop kills (the face and every upstream child).
pub struct Face {
    child: Child,
    /// The port it listens on, from its ready line.
    pub port: u16,
    stderr: Arc<Mutex<String>>,
    thread: Option<JoinHandle<()>>,
}

/// A face that did not start: how it ended, and its stderr.
#[derive(Debug)]
pub struct Refused {
    pub status: ExitStatus,
    pub stderr: String,
}

impl Face {
    /// `--listen 127.0.0.1:0 <options> -- <upstream>`, listening.
    #[track_caller]
    pub fn start(options: &[&str], upstream: &[String]) -> Face {
        Face::start_env(options, upstream, &[])
    }

    /// [`Face::start`] with environment variables.
    #[track_caller]
    pub fn start_env(options: &[&str], upstream: &[String], env: &[(&str, &str)]) -> Face {
        let mut args: Vec<String> = vec!["--listen".into(), "127.0.0.1:0".into()];
        args.extend(options.iter().map(|s| s.to_string()));
        args.push("--".into());
        args.extend(upstream.iter().cloned());
        match Face::launch(&args, env) {
            Ok(face) => face,
            Err(refused) => panic!("the face did not start ({}); stderr:\n{}", refused.status, refused.stderr),
        }
    }

    /// `--listen 127.0.0.1:0 <options> <url>`: a face in front of a server
    /// at a URL, listening (after `--` a word is a command, never a URL).
    #[track_caller]
    pub fn start_url(options: &[&str], url: &str, env: &[(&str, &str)]) -> Face {
        let mut args: Vec<String> = vec!["--listen".into(), "127.0.0.1:0".into()];
        args.extend(options.iter().map(|s| s.to_string()));
        args.push(url.into());
        match Face::launch(&args, env) {
            Ok(face) => face,
            Err(refused) => panic!("the face did not start ({}); stderr:\n{}", refused.status, refused.stderr),
        }
    }

    /// The binary with `args` as they are, which must not start: how it
    /// ended (at most [`STEP`]) and its stderr.
    #[track_caller]
    pub fn refuse(args: &[String], env: &[(&str, &str)]) -> Refused {
        match Face::launch(args, env) {
            Ok(face) => panic!("the face started on {args:?} (port {})", face.port),
            Err(refused) => refused,
        }
    }

    /// The binary with `args` as they are: the face once its ready line
    /// came, or how it ended without one (at most [`STEP`]).
    #[track_caller]
    pub fn launch(args: &[String], env: &[(&str, &str)]) -> Result<Face, Refused> {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(args).envs(env.iter().copied());
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).process_group(0);
        let mut child = cmd.spawn().expect("the bridge binary starts");
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let thread = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut text) = sink.lock() {
                    text.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        let mut face = Face { child, port: 0, stderr, thread: Some(thread) };
        let deadline = Instant::now() + STEP;
        loop {
            // Whole lines only: the ready line may be on its way.
            let text = face.stderr_text();
            let whole = text.rsplit_once('\n').map(|(whole, _)| whole).unwrap_or("");
            if let Some(line) = whole.lines().find(|l| l.starts_with(READY)) {
                face.port = ready_port(line);
                return Ok(face);
            }
            if let Ok(Some(status)) = face.child.try_wait() {
                if let Some(thread) = face.thread.take() {
                    let _ = thread.join();
                }
                return Err(Refused { status, stderr: face.stderr_text() });
            }
            assert!(Instant::now() < deadline, "no ready line in {STEP:?}; stderr:\n{}", face.stderr_text());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The `Host` of the face's own address.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `request` on a connection of its own; the `Host` is the
    /// face's address unless the request names one.
    #[track_caller]
    pub fn send(&self, request: Req) -> Reply {
        let request = if request.named("host").is_none() { request.header("Host", &self.host()) } else { request };
        send(self.port, &request)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal (`TERM`, `INT`) to the face alone.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill").args([&format!("-{name}"), &self.pid().to_string()]).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -{name} {}", self.pid());
    }

    /// Waits for the face to exit, at most `limit`, else the test fails.
    #[track_caller]
    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "the face did not exit in {limit:?}; stderr:\n{}", self.stderr_text());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn stderr_text(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The process ids of the face's children (its upstream commands).
    pub fn children(&self) -> Vec<u32> {
        children_of(self.pid())
    }
}

impl Drop for Face {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("the stderr of the face:\n{}", self.stderr_text());
        }
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The port of the ready line, which must be exactly the face's one line:
/// both URLs of the address it bound.
#[track_caller]
fn ready_port(line: &str) -> u16 {
    let address = line[READY.len()..].split('/').next().unwrap_or_default();
    let port = address.rsplit(':').next().and_then(|p| p.parse().ok());
    let expected = format!("{READY}{address}/mcp (Streamable HTTP) and http://{address}/sse (HTTP+SSE)");
    assert_eq!(line, expected, "the ready line");
    port.unwrap_or_else(|| panic!("no port in the ready line {line:?}"))
}

/// The processes whose parent is `pid`, from /proc.
pub fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| {
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            // pid (comm) state ppid ...: the comm may hold spaces.
            let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
            after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid)
        })
        .collect()
}

/// Whether process `pid` still runs (a zombie has ended).
pub fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
    matches!(state, Some(s) if s != "Z" && s != "X")
}

/// Waits until `done` holds, at most `limit`, polling; `false` when it
/// did not.
pub fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
