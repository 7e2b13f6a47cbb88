//! The pipes of newline-delimited JSON: the bounded line reader, the
//! writer of a stream, the buffer of a big line kept for the next one, and
//! the size of a pipe. The I/O around the pure checks of `framing`.

mod kept;
mod reader;
mod writer;

pub(crate) use kept::KeptBuffer;
pub(crate) use reader::LineReader;
pub(crate) use writer::{write_lines, Line};

/// The size the bridge asks for its pipes (Linux's `pipe-max-size` by
/// default).
pub(crate) const PIPE_BYTES: usize = 1 << 20;

/// Asks for a pipe of 1 MiB instead of the 64 KiB default: a big
/// line then crosses with a sixteenth of the reads, writes and wake-ups.
/// Linux only; a descriptor that is no pipe, or a refusal (a limit lower
/// than 1 MiB), leaves the pipe as it was.
#[cfg(target_os = "linux")]
pub fn widen_pipe(fd: impl std::os::fd::AsFd) {
    if let Err(err) = rustix::pipe::fcntl_setpipe_size(fd, PIPE_BYTES) {
        tracing::debug!(error = %err, "the pipe keeps its size");
    }
}

/// Other systems keep their pipes as they are.
#[cfg(not(target_os = "linux"))]
pub fn widen_pipe<T>(_fd: T) {}
