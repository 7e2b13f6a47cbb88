//! A remote host for real, on this machine: two network namespaces made by
//! the test, one for the user's machine (the browser) and one for the
//! remote host (the bridge and the server), joined by a veth pair. The
//! authorization server listens on both sides of the remote host: on its
//! loopback for the bridge and on the veth address for the user. So the
//! loopback redirect of the browser flow reaches nothing, as in a
//! browser-based window or a remote host without a forwarded port, and the
//! device grant completes.
//!
//! It needs root and `ip netns` (iproute2); without them it fails with a
//! message that says so, and skips nothing.

use super::*;

/// The two hosts; the namespaces go with the value.
struct Hosts {
    user: String,
    remote: String,
    /// The address of the remote host on the veth pair.
    remote_ip: String,
}

/// Runs `ip` with `args`; panics with a clear message when it fails.
#[track_caller]
fn ip(args: &[&str]) {
    let output = Command::new("ip").args(args).output();
    let ok = output.as_ref().is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "this test makes network namespaces and needs root and `ip netns` (Debian's iproute2): `ip {}` failed: {:?}",
        args.join(" "),
        output.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
    );
}

impl Hosts {
    fn new() -> Hosts {
        let n = std::process::id() % 200 + 20;
        let (user, remote) = (format!("mcpb-user-{n}"), format!("mcpb-remote-{n}"));
        let (veth_user, veth_remote) = (format!("mcpbu{n}"), format!("mcpbr{n}"));
        let hosts = Hosts { user: user.clone(), remote: remote.clone(), remote_ip: format!("10.77.{n}.2") };
        ip(&["netns", "add", &user]);
        ip(&["netns", "add", &remote]);
        ip(&["link", "add", &veth_user, "type", "veth", "peer", "name", &veth_remote]);
        ip(&["link", "set", &veth_user, "netns", &user]);
        ip(&["link", "set", &veth_remote, "netns", &remote]);
        ip(&["-n", &user, "addr", "add", &format!("10.77.{n}.1/24"), "dev", &veth_user]);
        ip(&["-n", &remote, "addr", "add", &format!("{}/24", hosts.remote_ip), "dev", &veth_remote]);
        for (ns, veth) in [(&user, &veth_user), (&remote, &veth_remote)] {
            ip(&["-n", ns, "link", "set", "lo", "up"]);
            ip(&["-n", ns, "link", "set", veth, "up"]);
        }
        hosts
    }

    /// A command that runs `program` on the host of namespace `ns`.
    fn on(ns: &str, program: &str) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", ns, program]);
        cmd
    }

    /// The browser on the user's machine, which trusts the test CA `ca`: a
    /// GET of `url` that follows the redirects; the status of the last
    /// page, or why there was none.
    fn browse(&self, url: &str, ca: &Path) -> String {
        let script = "import ssl, sys, urllib.request\n\
            try:\n    context = ssl.create_default_context(cafile=sys.argv[2])\n\
            \x20   print(urllib.request.urlopen(sys.argv[1], timeout=5, context=context).status)\n\
            except Exception as e:\n    print(type(e).__name__, e)\n";
        let output = Hosts::on(&self.user, "python3").args(["-c", script, url]).arg(ca).output();
        output.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_else(|e| e.to_string())
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in [&self.user, &self.remote] {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
            let _ = std::fs::remove_dir_all(Path::new("/etc/netns").join(ns));
        }
    }
}

/// A host name that the remote host's system resolves to its own loopback
/// (`ip netns exec` reads `/etc/netns/<name>/hosts` in place of
/// `/etc/hosts`).
const LOCAL_NAME: &str = "local-auth.test";

impl Hosts {
    fn name_loopback_on_remote(&self) {
        let dir = Path::new("/etc/netns").join(&self.remote);
        std::fs::create_dir_all(&dir).expect("/etc/netns/<name> is made (root)");
        std::fs::write(dir.join("hosts"), format!("127.0.0.1 localhost {LOCAL_NAME}\n")).expect("the hosts file");
    }
}

/// The loopback redirect of the browser flow reaches nothing from the
/// user's machine, so that sign-in ends with `sign_in_timeout`; the device
/// grant completes through the authorization server that both hosts
/// reach.
#[test]
fn on_a_remote_host_the_loopback_redirect_fails_and_the_device_grant_completes() {
    let hosts = Hosts::new();
    let dir = TempDir::new("remote-host");
    // The authorization server's pages for the user are https (the URL
    // rule of a sign-in), on the remote host's address, signed by a test CA
    // that the user's browser trusts.
    let files = crate::support::tls::pki(dir.path(), &[&hosts.remote_ip]);
    let (cert, key) = (files.cert.display().to_string(), files.key.display().to_string());
    let public = [
        "--device",
        "--bind",
        "0.0.0.0",
        "--public-host",
        &hosts.remote_ip,
        "--public-tls-cert",
        &cert,
        "--public-tls-key",
        &key,
    ];
    let fake = Fake::spawn(Hosts::on(&hosts.remote, "python3"), dir.path(), "/mcp", &public);
    let on_remote = ["ip", "netns", "exec", hosts.remote.as_str()];
    let ssh = [("SSH_CONNECTION", "10.77.0.1 50000 10.77.0.2 22")];

    let browser = ["--sign-in", "browser", "--sign-in-timeout", "3"];
    let mut driver = Driver::spawn(bridge_command(&on_remote, dir.path(), &fake.url(), &browser, &ssh));
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    let page = hosts.browse(&start, &files.ca);
    assert!(page.starts_with("URLError"), "the browser reached the loopback of the remote host: {page}");
    assert_eq!(
        driver.response(&json!(INIT)),
        err(
            json!(INIT),
            bridge_error(
                -32603,
                &message_with("sign_in_timeout", &[("seconds", "3"), ("name", "mcp-bridge-vscode")]),
                "sign_in_timeout",
                None
            )
        )
    );
    drop(driver);

    let mut driver = Driver::spawn(bridge_command(&on_remote, dir.path(), &fake.url(), &[], &ssh));
    send_initialize(&mut driver);
    let (url, _) = device::device_line(&mut driver);
    assert!(url.starts_with(&format!("https://{}:", hosts.remote_ip)), "{url}");
    assert_eq!(hosts.browse(&url, &files.ca), "200", "the user approves the code on their machine");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
}

/// "Endpoints on the user's machine only for a server on the user's
/// machine": the MCP server is at the remote host's network address over
/// https (a test CA with `--ca-file`), and its sign-in points one URL at a
/// service on the loopback of the host that runs the bridge (the fake's
/// second listener, which records what reaches it). For each of the
/// challenge's `resource_metadata`, the authorization server, and the
/// registration, device authorization and token endpoints, the sign-in
/// fails with `sign_in_failed` before anything reaches that service, and
/// the log says why; also when the URL names the service by a host name
/// that the system resolves to the loopback (the service then serves https
/// with a certificate for that name, which the bridge would trust).
#[test]
fn a_remote_servers_sign_in_never_reaches_a_service_on_the_users_machine() {
    let hosts = Hosts::new();
    hosts.name_loopback_on_remote();
    let on_remote = ["ip", "netns", "exec", hosts.remote.as_str()];
    let cases = ["resource-metadata", "issuer", "register", "device", "token"]
        .into_iter()
        .flat_map(|route| [(route, "127.0.0.1"), (route, LOCAL_NAME)]);
    for (route, local_name) in cases {
        let dir = TempDir::new("remote-server-local");
        let files = crate::support::tls::pki(dir.path(), &[&hosts.remote_ip, LOCAL_NAME]);
        let (cert, key) = (files.cert.display().to_string(), files.key.display().to_string());
        let options = [
            "--device",
            "--bind",
            "0.0.0.0",
            "--base-host",
            &hosts.remote_ip,
            "--public-host",
            &hosts.remote_ip,
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--local",
            route,
            "--local-name",
            local_name,
        ];
        let fake = Fake::spawn(Hosts::on(&hosts.remote, "python3"), dir.path(), "/mcp", &options);
        let url = format!("https://{}:{}/mcp", hosts.remote_ip, fake.served.port);
        let ca = files.ca.display().to_string();
        let bridge_options = ["--ca-file", ca.as_str(), "--sign-in", "device"];
        let mut driver = Driver::spawn(bridge_command(&on_remote, dir.path(), &url, &bridge_options, &[]));
        send_initialize(&mut driver);
        let response = driver.response(&json!(INIT));
        let case = format!("{route} at {local_name}");
        assert_eq!(response["error"]["data"]["cause"], "sign_in_failed", "{case}: {response}");
        let why =
            if local_name == LOCAL_NAME { "resolves to the user's machine" } else { "it is on the user's machine" };
        driver.wait_stderr(why, 1);
        let local: Vec<Value> = fake.records().into_iter().filter(|r| r["listener"] == "local").collect();
        assert_eq!(local, Vec::<Value>::new(), "{case}: a request reached the user's machine");
        assert!(!fake.requests_to("/mcp").is_empty(), "{case}: the bridge reached the remote server");
    }
}
