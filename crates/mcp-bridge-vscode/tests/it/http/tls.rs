//! TLS and `--ca-file`: an https upstream signed by a test CA.

use super::redirects::run_with_open_stdin;
use super::*;

/// A fake upstream over TLS, with a fresh test CA for 127.0.0.1 and localhost.
pub(super) fn tls_fake(name: &str) -> (Fake, Pki) {
    let dir = folder(name);
    let files = pki(&dir, &["127.0.0.1", "localhost"]);
    let (cert, key) = (files.cert.display().to_string(), files.key.display().to_string());
    (Fake::start_in(&dir, &["--tls-cert", &cert, "--tls-key", &key]), files)
}

/// `--ca-file PATH`, "a PEM bundle added to the platform roots": an https
/// upstream whose certificate a test CA signed works at 127.0.0.1 and at
/// localhost with that CA file.
#[test]
fn an_https_upstream_works_with_the_ca_file_of_its_ca() {
    let (fake, files) = tls_fake("tls-ca");
    let ca = files.ca.display().to_string();
    for host in ["127.0.0.1", "localhost"] {
        let mut driver = bridge(&fake.url_at(host), &["--ca-file", &ca]);
        let response = driver.initialize_with(json!({}));
        assert_json(
            &format!("serverInfo at {host}"),
            &response["result"]["serverInfo"],
            &json!({"name": "fake-http-upstream", "version": "0.0.1"}),
        );
        exchange(&mut driver, call(json!(1), "sse", json!({})), text(json!(1), "sse ok"));
        finish(driver);
    }
}

/// Without the CA file the certificate is not trusted: initialize fails
/// with transport_failed (the TLS handshake failed, so there is no status),
/// and the bridge stays open.
#[test]
fn an_https_upstream_without_the_ca_file_fails_with_transport_failed() {
    let (fake, _files) = tls_fake("tls-no-ca");
    let mut driver = bridge(&fake.url(), &[]);
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    exchange(
        &mut driver,
        request(json!(1), "initialize", params),
        err(json!(1), transport_failed("cannot connect to the upstream server")),
    );
    fake.wait("the failed handshake", |e| e.iter().any(|x| x["event"] == "tls-error"));
    assert_json("the requests of the fake", &json!(fake.posts()), &json!([]));
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "It is also 2 for a --ca-file that the bridge cannot use": a file that
/// does not exist, an empty file, a file that is not PEM, and a PEM file
/// without a certificate, before anything is read from stdin.
#[test]
fn an_unusable_ca_file_exits_2() {
    let dir = folder("ca-unusable");
    let files = pki(&dir, &["127.0.0.1", "localhost"]);
    let empty = dir.join("empty.pem");
    std::fs::write(&empty, "").expect("write");
    let garbage = dir.join("garbage.pem");
    std::fs::write(&garbage, "this is not a certificate\n").expect("write");
    let broken = dir.join("broken.pem");
    std::fs::write(&broken, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
        .expect("write");
    let cases = [
        ("missing", dir.join("missing.pem")),
        ("empty", empty),
        ("not PEM", garbage),
        ("a certificate that is not DER", broken),
        ("a key without a certificate", files.key.clone()),
    ];
    let mut seen = Vec::new();
    for (case, path) in &cases {
        let path = path.display().to_string();
        let (code, stdout, stderr) = run_with_open_stdin(&["--ca-file", &path, "https://127.0.0.1:9/mcp"], &[]);
        assert_eq!(stdout, "", "{case}: nothing on stdout; stderr:\n{stderr}");
        seen.push((*case, code));
    }
    let expected: Vec<(&str, Option<i32>)> = cases.iter().map(|(case, _)| (*case, Some(2))).collect();
    assert_eq!(seen, expected, "the exit code of each --ca-file (None: still waiting for stdin after {EXIT:?})");
}

/// "Every read is bounded in size, every wait is bounded": a --ca-file that
/// is a folder or a pipe (whose open waits for a writer) is not a regular
/// file, and one over 4 MiB is not read to its end; each exits 2 at once
/// with its reason, before anything is read from stdin.
#[test]
fn a_ca_file_that_is_not_a_regular_file_or_is_too_large_exits_2_at_once() {
    let dir = folder("ca-bounded");
    let large = dir.join("large.pem");
    std::fs::write(&large, vec![b'A'; 4 * 1024 * 1024 + 1]).expect("write");
    let mut cases = vec![(dir.clone(), "it is not a regular file"), (large, "it is larger than 4 MiB")];
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo.pem");
        let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success(), "mkfifo {}", fifo.display());
        cases.push((fifo, "it is not a regular file"));
    }
    for (path, reason) in cases {
        let path = path.display().to_string();
        let (code, stdout, stderr) = run_with_open_stdin(&["--ca-file", &path, "https://127.0.0.1:9/mcp"], &[]);
        let expected = format!("mcp-bridge-vscode: cannot read --ca-file {path}: {reason}\n");
        assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(2), "", expected.as_str()), "{path}");
    }
}
