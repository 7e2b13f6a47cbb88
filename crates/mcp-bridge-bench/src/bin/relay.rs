//! `relay -- <command> [args...]`: starts the command and copies bytes
//! between this process's stdio and the command's, with a blocking thread
//! each way and no JSON work at all. The bench puts it where the bridge
//! goes, to measure the floor of any bridge on the machine at hand: two
//! more pipe hops each way, and the wake-ups that come with them.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).skip_while(|a| a == "--");
    let Some(program) = args.next() else {
        eprintln!("usage: relay -- <command> [args...]");
        return ExitCode::from(2);
    };
    let child = Command::new(&program).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => {
            eprintln!("relay: cannot start {program}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let (Some(mut to_child), Some(mut from_child)) = (child.stdin.take(), child.stdout.take()) else {
        return ExitCode::FAILURE;
    };
    let back = std::thread::spawn(move || copy(&mut from_child, &mut std::io::stdout().lock()));
    copy(&mut std::io::stdin().lock(), &mut to_child);
    drop(to_child);
    let _ = back.join();
    match child.wait() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// Copies until the end of `from` or an error, each read written and
/// flushed at once.
fn copy(from: &mut impl Read, to: &mut impl Write) {
    let mut buffer = vec![0; 1 << 16];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buffer[..n]).and_then(|()| to.flush()).is_err() {
            return;
        }
    }
}
