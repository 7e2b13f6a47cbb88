//! What the `mcp-bridge-vscode` executable needs beside [`serve`](crate::serve):
//! the size of its stdout pipe, the lookup of a program as Windows starts
//! it (for the hint of a command line), `logout` from the token store, and
//! the library's one gate of text from outside ([`shown`]), for what the
//! executable writes itself: the `check` report and the messages of its
//! command line.
//!
//! Not for an embedder: an embedder gives [`serve`](crate::serve) its own
//! reader and writer and its options, and the bridge keeps its tokens by
//! itself. These items serve the executable and can change with it.

pub use crate::gate::text::{shown, Shown, DETAIL, LINE, NAME};
pub use crate::pipe::widen_pipe;
pub use crate::upstream::auth::Store;
pub use crate::upstream::command::resolve as resolve_program;
