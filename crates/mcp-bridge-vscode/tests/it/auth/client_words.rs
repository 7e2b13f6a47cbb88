//! The client as data in the sign-in (docs/decisions.md, "Each client's
//! words"): the messages and the advice of a sign-in name the client that
//! `initialize` names, never VS Code for another client.

use super::*;

/// The initialize of a client named `client`.
fn send_initialize_as(driver: &mut Driver, client: &str) {
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}});
    driver.send_request(json!(INIT), "initialize", params);
}

/// "the sandbox of VS Code" is the spec's word for VS Code and an unknown
/// client; Claude Code's user reads Claude Code's sandbox and its log.
#[test]
fn the_sandbox_message_names_the_client_that_runs_the_bridge() {
    for (client, product) in [("claude-code", "Claude Code"), ("auth-test", "VS Code")] {
        let dir = TempDir::new("words-sandbox");
        let fake = Fake::start(dir.path(), &[]);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[("SANDBOX_RUNTIME", "1")]);
        send_initialize_as(&mut driver, client);
        let expected = message("sandbox").replace("the sandbox of VS Code", &format!("the sandbox of {product}"));
        assert_eq!(
            driver.response(&json!(INIT)),
            err(json!(INIT), bridge_error(-32603, &expected, "sandbox", None)),
            "{client}"
        );
    }
}

/// On a remote host (an SSH session) a browser sign-in's advice names VS
/// Code's Ports view for VS Code only; Gemini CLI's user reads the ways
/// that need no client.
#[test]
fn the_advice_of_a_remote_sign_in_names_the_ports_view_only_for_vs_code() {
    let ssh = ("SSH_CONNECTION", "10.0.0.2 50000 10.0.0.1 22");
    for (client, ports_view) in [("Visual Studio Code", true), ("gemini-cli-mcp-client", false)] {
        let dir = TempDir::new("words-advice");
        let fake = Fake::start(dir.path(), &[]);
        let mut driver = bridge(dir.path(), &fake.url(), &["--sign-in", "browser"], &[ssh]);
        send_initialize_as(&mut driver, client);
        driver.wait_stderr("redirects your browser", 1);
        let stderr = driver.stderr_text();
        let advice = stderr.lines().find(|l| l.contains("redirects your browser")).unwrap_or_default();
        assert!(advice.contains("ssh -L") && advice.contains("--sign-in device"), "{client}: {advice}");
        assert_eq!(advice.contains("the Ports view of VS Code"), ports_view, "{client}: {advice}");
        assert_eq!(advice.contains("mcp.json"), ports_view, "{client}: {advice}");
    }
}
