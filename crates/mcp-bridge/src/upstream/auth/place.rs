//! Where the bridge runs, for the sign-in: on the user's own machine, or
//! on a remote host whose loopback the user's browser cannot reach.
//!
//! VS Code starts a stdio MCP server from the extension host that owns the
//! configuration: on the user's machine for the user `mcp.json`, on the
//! remote host for a workspace or remote one. Its remote extension host
//! sets `VSCODE_IPC_HOOK_CLI` in its own environment, which the server
//! inherits (`extHostExtensionService.ts`: only when
//! `remote.isRemote && remote.authority`); a local one never does. The
//! other variables are those the remote kinds set for every process: SSH
//! sessions (`SSH_CONNECTION`), GitHub Codespaces (`CODESPACES`), Dev
//! Containers (`REMOTE_CONTAINERS`), WSL (`WSL_DISTRO_NAME`) and Gitpod
//! (`GITPOD_WORKSPACE_ID`). A pure function of the environment, so that
//! each row is a test.

/// Where the bridge runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// On the user's machine: a browser can open there, and it reaches
    /// the redirect listener on 127.0.0.1.
    Local,
    /// On a remote host.
    Remote(Remote),
}

/// The kinds of remote hosts, each with its own way to carry a port back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Remote {
    /// GitHub Codespaces: often a browser window, with no listener on the
    /// user's machine at all.
    Codespaces,
    /// Gitpod, a browser-based workspace like Codespaces.
    Gitpod,
    /// A Dev Container on the user's machine or on a remote Docker host.
    DevContainer,
    /// WSL: WSL 2 carries a port on localhost to Windows by default.
    Wsl,
    /// A host reached over SSH (Remote-SSH, or a terminal session).
    Ssh,
    /// Another remote extension host of VS Code (a tunnel, code-server).
    VsCode,
}

impl Place {
    /// Where the bridge runs, from its environment (`var` reads one
    /// variable; an empty value counts as unset).
    pub(crate) fn of(var: impl Fn(&str) -> Option<String>) -> Place {
        let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
        let is_true = |name: &str| var(name).is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let remote = if is_true("CODESPACES") {
            Remote::Codespaces
        } else if set("GITPOD_WORKSPACE_ID") {
            Remote::Gitpod
        } else if is_true("REMOTE_CONTAINERS") || set("REMOTE_CONTAINERS_IPC") {
            Remote::DevContainer
        } else if set("WSL_DISTRO_NAME") {
            Remote::Wsl
        } else if set("SSH_CONNECTION") || set("SSH_CLIENT") {
            Remote::Ssh
        } else if set("VSCODE_IPC_HOOK_CLI") {
            Remote::VsCode
        } else {
            return Place::Local;
        };
        Place::Remote(remote)
    }

    /// Where this process runs.
    pub(crate) fn here() -> Place {
        Place::of(|name| std::env::var(name).ok())
    }
}

impl Remote {
    /// One line for the user of a browser sign-in on this host: how the
    /// browser on their machine reaches the redirect port, and the other
    /// ways out. `forwarding` is the client's own way to carry a port
    /// (VS Code's Ports view, whose remote hosts also read a user
    /// `mcp.json` on the user's machine); another client's user gets the
    /// ways that need no client.
    pub(crate) fn advice(self, port: u16, forwarding: Option<&str>) -> String {
        let generic = format!("forward port {port} of this host to the same port on your machine");
        let carry = match (self, forwarding) {
            (Remote::Codespaces | Remote::Gitpod, Some(view)) => format!(
                "a browser-based window cannot reach port {port} of this host; in VS Code Desktop, forward port {port} in {view}"
            ),
            (Remote::Codespaces | Remote::Gitpod, None) => {
                format!("a browser-based window cannot reach port {port} of this host; {generic}")
            }
            (Remote::DevContainer, view) => format!(
                "forward port {port} of the container to the same port on your machine (\"forwardPorts\": [{port}] in devcontainer.json{})",
                view.map(|v| format!(", or {v}")).unwrap_or_default()
            ),
            (Remote::Wsl, _) => format!("WSL 2 usually carries port {port} to Windows; open the URL in Windows"),
            (Remote::Ssh, view) => format!(
                "{generic} ({}ssh -L {port}:127.0.0.1:{port})",
                view.map(|v| format!("{v}, or ")).unwrap_or_default()
            ),
            (Remote::VsCode, Some(view)) => format!("{generic} ({view})"),
            (Remote::VsCode, None) => generic.clone(),
        };
        let home = if forwarding.is_some() { " (the user mcp.json)" } else { "" };
        format!(
            "the bridge runs on a remote host, and the sign-in redirects your browser to port {port} of it: {carry}. \
             Fix the port with --redirect-port, sign in with --sign-in device where the server allows it, \
             or run the bridge on your machine{home}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(vars: &[(&str, &str)]) -> Place {
        Place::of(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned()))
    }

    /// The table of contexts: each variable that a kind of remote host
    /// sets, alone and with those of a local VS Code.
    #[test]
    fn each_context_is_told_by_its_variables() {
        for (vars, expected) in [
            (vec![], Place::Local),
            (vec![("TERM_PROGRAM", "vscode"), ("VSCODE_PID", "42"), ("VSCODE_IPC_HOOK", "/tmp/x.sock")], Place::Local),
            (vec![("VSCODE_IPC_HOOK_CLI", "")], Place::Local),
            (vec![("VSCODE_IPC_HOOK_CLI", "/run/user/1000/vscode-ipc-1.sock")], Place::Remote(Remote::VsCode)),
            (vec![("SSH_CONNECTION", "10.0.0.2 51000 10.0.0.1 22")], Place::Remote(Remote::Ssh)),
            (vec![("SSH_CLIENT", "10.0.0.2 51000 22")], Place::Remote(Remote::Ssh)),
            (vec![("SSH_CONNECTION", "a b c d"), ("VSCODE_IPC_HOOK_CLI", "/tmp/v.sock")], Place::Remote(Remote::Ssh)),
            (vec![("CODESPACES", "true"), ("VSCODE_IPC_HOOK_CLI", "/tmp/v.sock")], Place::Remote(Remote::Codespaces)),
            (vec![("CODESPACES", "false")], Place::Local),
            (vec![("GITPOD_WORKSPACE_ID", "w-1")], Place::Remote(Remote::Gitpod)),
            (vec![("REMOTE_CONTAINERS", "true")], Place::Remote(Remote::DevContainer)),
            (
                vec![("REMOTE_CONTAINERS_IPC", "/tmp/vscode-remote-containers-ipc.sock")],
                Place::Remote(Remote::DevContainer),
            ),
            (vec![("WSL_DISTRO_NAME", "Ubuntu"), ("WSL_INTEROP", "/run/WSL/1_interop")], Place::Remote(Remote::Wsl)),
        ] {
            assert_eq!(place(&vars), expected, "{vars:?}");
        }
    }

    #[test]
    fn the_advice_names_the_port_and_the_ways_out() {
        for remote in
            [Remote::Codespaces, Remote::Gitpod, Remote::DevContainer, Remote::Wsl, Remote::Ssh, Remote::VsCode]
        {
            let line = remote.advice(53682, Some("the Ports view of VS Code"));
            assert!(line.contains("53682") && line.contains("--redirect-port"), "{remote:?}: {line}");
            assert!(line.contains("--sign-in device") && line.contains("user mcp.json"), "{remote:?}: {line}");
            // Another client's user reads no word of VS Code.
            let line = remote.advice(53682, None);
            assert!(line.contains("53682") && line.contains("--sign-in device"), "{remote:?}: {line}");
            assert!(!line.contains("Ports view") && !line.contains("mcp.json"), "{remote:?}: {line}");
        }
        assert!(Remote::Ssh.advice(5, None).contains("ssh -L 5:127.0.0.1:5"));
        assert!(Remote::Ssh
            .advice(5, Some("the Ports view of VS Code"))
            .contains("(the Ports view of VS Code, or ssh -L"));
    }
}
