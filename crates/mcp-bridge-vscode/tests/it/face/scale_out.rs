//! Scale-out behind a real load balancer (issue 43, "Scale-out on a real
//! load balancer"; docs/scale-out.md holds the same configuration): three
//! faces behind Debian's HAProxy, started here, with affinity on
//! `Mcp-Session-Id` (a stick table that learns the id from the response
//! of initialize), `option redispatch` and health checks on `/health`.
//!
//! Which replica holds a session is asked of the replicas themselves: a
//! session id is known to exactly one face, and every other one answers it
//! 404 `unknown_session` (asked directly, beside the balancer). So a
//! request that the balancer sends to the wrong replica fails, and every
//! other request of the test goes through HAProxy. Then one replica is killed (SIGKILL): its sessions get 404 on
//! their next request (the transport: a client that gets 404 for its
//! session starts a new one with initialize), start again and go on; the
//! sessions of the other replicas see no error, during and after.
//!
//! A missing `haproxy` is a failure with the command that installs it,
//! never a skip: `scripts/test` and `.ci/run` install it.

use super::*;
use crate::support::http::{assert_refused, send, STEP};
use crate::support::process::read_lines;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The revision of the sessions (a priming event opens each stream).
const REVISION: &str = "2025-11-25";
/// The replicas behind the balancer.
const REPLICAS: usize = 3;
/// The sessions opened through the balancer (round robin: three on each
/// replica).
const SESSIONS: usize = 9;
/// The longest wait for HAProxy to see a change of a replica: its checks
/// run every 200 ms and two failed ones take a replica out.
const NOTICE: Duration = Duration::from_secs(10);

/// A free port of the loopback for HAProxy: the faces must know it before
/// HAProxy starts (their `--public-url`), and HAProxy theirs.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// Debian's `haproxy`: on PATH, else in /usr/sbin, where the package puts
/// it (a user's PATH may lack the sbin folders). Missing, the test fails.
fn haproxy_program() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).chain([PathBuf::from("/usr/sbin")]).map(|dir| dir.join("haproxy"));
    found.into_iter().find(|p| p.is_file()).unwrap_or_else(|| {
        panic!(
            "haproxy is missing: the scale-out test runs the faces behind a real HAProxy. Install Debian's \
             package (apt-get install haproxy; scripts/test and .ci/run install it when missing), then run \
             the tests again."
        )
    })
}

/// The configuration of docs/scale-out.md, with the test's ports, short
/// check intervals and a stats socket through which the test sees what
/// HAProxy thinks of each replica.
fn config(port: u16, faces: &[Face], socket: &Path) -> String {
    let servers: String =
        faces.iter().enumerate().map(|(i, face)| format!("    server r{i} 127.0.0.1:{} check\n", face.port)).collect();
    format!(
        "global
    log stderr format raw local0
    stats socket {socket} mode 600 level user

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # The face's own probe of its upstream takes at most 5 s.
    timeout check 5s

frontend mcp
    bind 127.0.0.1:{port}
    default_backend faces

backend faces
    balance roundrobin
    # Affinity on the session: the id comes in the response of initialize,
    # and each later request of the session carries it.
    stick-table type string len 64 size 100k expire 30m
    stick store-response res.hdr(mcp-session-id)
    stick match req.hdr(mcp-session-id)
    # A replica that is down, or refuses the connection before the checks
    # noticed: the request goes to another one (at the first retry), which
    # answers 404 for a session it does not know.
    option redispatch
    retries 1
    # The face's Host check admits its --public-url's host, which every
    # replica has: the same check fits them all.
    option httpchk
    http-check send meth GET uri /health ver HTTP/1.1 hdr Host 127.0.0.1:{port}
    http-check expect status 200
    default-server inter 200ms fall 2 rise 1
{servers}",
        socket = socket.display()
    )
}

/// HAProxy, in the foreground (`-db`), killed and waited for on drop, with
/// its folder (the configuration, the stats socket).
struct Balancer {
    child: Child,
    front: Front,
    dir: PathBuf,
    socket: PathBuf,
    log: Arc<Mutex<String>>,
}

impl Balancer {
    #[track_caller]
    fn start(port: u16, faces: &[Face]) -> Balancer {
        let program = haproxy_program();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("mcp-bridge-scale-out-{}-{}", std::process::id(), nanos.unwrap_or(0)));
        std::fs::create_dir_all(&dir).expect("the folder of HAProxy's configuration");
        let socket = dir.join("stats.sock");
        let file = dir.join("haproxy.cfg");
        std::fs::write(&file, config(port, faces, &socket)).expect("HAProxy's configuration is written");
        let mut cmd = Command::new(&program);
        cmd.arg("-db").arg("-f").arg(&file).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        // Its log (one line per request, with the replica that served it)
        // and its warnings, shown when the test fails.
        let lines = read_lines(child.stderr.take().expect("stderr is piped"));
        let log = Arc::new(Mutex::new(String::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in lines {
                if let Ok(mut text) = sink.lock() {
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        });
        let mut balancer = Balancer { child, front: Front { port }, dir, socket, log };
        // Up once its stats socket answers: HAProxy binds every listener
        // before it serves any (a port it cannot bind ends it).
        let deadline = Instant::now() + STEP;
        while balancer.servers().is_none() {
            if let Ok(Some(status)) = balancer.child.try_wait() {
                panic!("HAProxy ended ({status}) before it listened; its output:\n{}", balancer.log_text());
            }
            assert!(
                Instant::now() < deadline,
                "HAProxy did not listen in {STEP:?}; its output:\n{}",
                balancer.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        balancer
    }

    fn log_text(&self) -> String {
        self.log.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// What HAProxy thinks of each replica (`show stat`): its name, its
    /// status (`UP`, `DOWN`, ...) and the result of its last check
    /// (`L7OK`, `L4CON`, ...); `None` while the socket does not answer.
    fn servers(&self) -> Option<Vec<(String, String, String)>> {
        let mut stream = UnixStream::connect(&self.socket).ok()?;
        stream.set_read_timeout(Some(STEP)).ok()?;
        stream.write_all(b"show stat\n").ok()?;
        let mut csv = String::new();
        stream.read_to_string(&mut csv).ok()?;
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next()?.trim_start_matches("# ").split(',').collect();
        let column = |name: &str| header.iter().position(|h| *h == name);
        let (px, sv, status, check) =
            (column("pxname")?, column("svname")?, column("status")?, column("check_status")?);
        let rows = lines.map(|l| l.split(',').collect::<Vec<_>>()).filter(|r| r.len() == header.len());
        let servers = rows.filter(|r| r[px] == "faces" && r[sv] != "BACKEND");
        Some(servers.map(|r| (r[sv].to_owned(), r[status].to_owned(), r[check].to_owned())).collect())
    }

    /// Waits until HAProxy's view of replica `name` satisfies `wanted`
    /// (its status and last check), at most [`NOTICE`].
    #[track_caller]
    fn await_server(&self, name: &str, rule: &str, wanted: impl Fn(&str, &str) -> bool) {
        let mut seen = None;
        let held = eventually(NOTICE, || {
            seen = self.servers().and_then(|all| all.into_iter().find(|(n, _, _)| n == name));
            seen.as_ref().is_some_and(|(_, status, check)| wanted(status, check))
        });
        assert!(
            held,
            "rule: {rule}; HAProxy's view of {name} after {NOTICE:?}: {seen:?}; its output:\n{}",
            self.log_text()
        );
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("the output of HAProxy:\n{}", self.log_text());
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The balancer's address, as clients reach it; `Send`, for the
/// survivors' loop.
#[derive(Clone, Copy)]
struct Front {
    port: u16,
}

impl Front {
    /// The `Host` that clients name: the balancer's address, the faces'
    /// `--public-url`.
    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn send(&self, request: Req) -> Reply {
        send(self.port, &request.header("Host", &self.host()))
    }
}

/// Opens a session through the balancer: initialize (200, JSON, the
/// session id), then notifications/initialized (202), which reaches the
/// replica of the session only through the affinity.
#[track_caller]
fn open(lb: Front, n: usize) -> Session {
    let init = request(json!(0), "initialize", init_params(REVISION, json!({})));
    let reply = lb.send(Req::post(&init));
    assert_eq!(reply.status, 200, "session {n}: initialize through HAProxy: {reply}");
    let id = reply.header("mcp-session-id").unwrap_or_else(|| panic!("session {n}: no Mcp-Session-Id: {reply}"));
    let session = Session { id: id.to_owned(), revision: REVISION.into() };
    let ack = lb.send(session.req(Req::post(&initialized())));
    assert_eq!(ack.status, 202, "rule: affinity, the session's notification reaches its replica (session {n}): {ack}");
    session
}

/// A call of `add` through the balancer, which must get its sum: the
/// request's stream (a priming event, then the response, then the end).
#[track_caller]
fn add(lb: Front, session: &Session, call_id: u64, rule: &str) {
    let (a, b) = (call_id, 1000);
    let reply = lb.send(session.req(Req::post(&call(json!(call_id), "add", json!({"a": a, "b": b})))));
    assert_eq!(reply.status, 200, "rule: {rule}; add {call_id} of session {}: {reply}", session.id);
    let mut events = sse(reply);
    let response = events.any_message();
    let sum = &response["result"]["structuredContent"]["sum"];
    let good =
        response["id"] == json!(call_id) && response["result"]["isError"] == json!(false) && *sum == json!(a + b);
    assert!(good, "rule: {rule}; add {call_id} of session {}: {response}", session.id);
    events.assert_end();
}

/// The one replica among `faces` (the live ones, by index) that knows the
/// session, asked directly: it answers a ping, every other one 404.
#[track_caller]
fn owner(faces: &[Face], live: &[usize], session: &Session) -> usize {
    let ping = request(json!("where"), "ping", json!({}));
    let mut owners = Vec::new();
    for &i in live {
        let reply = faces[i].send(session.req(Req::post(&ping)));
        if reply.status == 404 {
            assert_refused(&reply, "unknown_session");
        } else {
            let mut events = sse(reply);
            assert_eq!(events.any_message()["result"], json!({}), "the ping of replica {i}");
            owners.push(i);
        }
    }
    assert_eq!(owners.len(), 1, "rule: a session lives on exactly one replica; {} is known to {owners:?}", session.id);
    owners[0]
}

/// Three faces behind HAProxy with affinity on `Mcp-Session-Id`: every
/// request of a session reaches its replica; one replica is killed; its
/// sessions get 404, initialize again and go on; the other sessions see
/// no error, while the balancer notices the loss and after.
#[test]
fn sessions_keep_their_replica_and_survive_the_loss_of_another() {
    let port = free_port();
    // An operator gives every replica the URL that clients reach (the
    // balancer's): the face then admits that Host, which HAProxy passes
    // on as the client sent it, and still refuses any other (DNS
    // rebinding). Rewriting Host on the balancer would also work, but
    // would hide the public name from the face.
    let public = format!("--public-url=http://127.0.0.1:{port}/mcp");
    let mut faces: Vec<Face> = (0..REPLICAS).map(|_| Face::start(&[public.as_str()], &demo())).collect();
    let balancer = Balancer::start(port, &faces);
    let lb = balancer.front;
    for i in 0..REPLICAS {
        balancer.await_server(
            &format!("r{i}"),
            "the health check of /health passes on a live replica",
            |status, check| status == "UP" && check == "L7OK",
        );
    }
    let all: Vec<usize> = (0..REPLICAS).collect();
    let sessions: Vec<Session> = (0..SESSIONS).map(|n| open(lb, n)).collect();
    let mut homes = Vec::new();
    for (n, session) in sessions.iter().enumerate() {
        add(lb, session, n as u64, "affinity, a session's call reaches its replica");
        homes.push(owner(&faces, &all, session));
    }
    for i in 0..REPLICAS {
        let count = homes.iter().filter(|&&h| h == i).count();
        assert!(count > 0, "rule: the balancer spreads new sessions over the replicas; none on replica {i}: {homes:?}");
    }

    // The survivors' sessions call in a loop while replica 0 dies.
    let dead = 0;
    let live: Vec<usize> = (1..REPLICAS).collect();
    let (lost, kept): (Vec<_>, Vec<_>) = sessions.into_iter().zip(homes).partition(|(_, home)| *home == dead);
    let kept: Vec<Session> = kept.into_iter().map(|(s, _)| s).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicUsize::new(0));
    let looping = {
        let (stop, rounds) = (stop.clone(), rounds.clone());
        let kept: Vec<Session> =
            kept.iter().map(|s| Session { id: s.id.clone(), revision: s.revision.clone() }).collect();
        std::thread::spawn(move || {
            let mut next = 1000;
            while !stop.load(Ordering::Acquire) {
                for session in &kept {
                    next += 1;
                    add(lb, session, next, "the other replicas' sessions see no error during the loss of one");
                }
                rounds.fetch_add(1, Ordering::AcqRel);
            }
        })
    };
    let started = eventually(STEP, || rounds.load(Ordering::Acquire) > 0 || looping.is_finished());
    assert!(started && !looping.is_finished(), "the survivors' loop made no round");

    faces[dead].signal("KILL");
    faces[dead].wait_exit(STEP);
    let killed_at = rounds.load(Ordering::Acquire);
    // At once, before the health check may have noticed: the connection to
    // the dead replica is refused and the request redispatched (or, once
    // the check noticed, balanced among the live ones).
    let mut again = Vec::new();
    for (n, (session, _)) in lost.iter().enumerate() {
        let reply = lb.send(session.req(Req::post(&call(json!(50), "add", json!({"a": 1, "b": 2})))));
        assert_eq!(
            reply.status, 404,
            "rule: a session of the dead replica gets 404 from a survivor, so its client initializes again: {reply}"
        );
        assert_refused(&reply, "unknown_session");
        let fresh = open(lb, SESSIONS + n);
        add(lb, &fresh, 60 + n as u64, "a session started again after the loss works");
        let home = owner(&faces, &live, &fresh);
        assert_ne!(home, dead, "rule: a new session goes to a live replica");
        again.push(fresh);
    }
    balancer.await_server(&format!("r{dead}"), "the health check takes a dead replica out", |status, _| {
        status.starts_with("DOWN")
    });
    for &i in &live {
        balancer.await_server(&format!("r{i}"), "the live replicas stay in", |status, check| {
            status == "UP" && check == "L7OK"
        });
    }
    // At least one whole round of the survivors after the kill.
    let later = killed_at + 2;
    eventually(STEP, || rounds.load(Ordering::Acquire) >= later || looping.is_finished());
    stop.store(true, Ordering::Release);
    if let Err(panic) = looping.join() {
        let why =
            panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        panic!("rule: the other replicas' sessions see no error during the loss of one: {}", why.unwrap_or_default());
    }
    let made = rounds.load(Ordering::Acquire);
    assert!(made >= later, "the survivors' loop stalled after the kill: {killed_at} rounds before it, {made} in all");

    // After: every live session still works, and the lost ids stay gone.
    for (n, session) in kept.iter().chain(&again).enumerate() {
        add(lb, session, 5000 + n as u64, "every live session works after the loss");
    }
    for (session, _) in &lost {
        let reply = lb.send(session.req(Req::post(&request(json!(70), "ping", json!({})))));
        assert_eq!(reply.status, 404, "rule: a lost session does not come back: {reply}");
    }
}
