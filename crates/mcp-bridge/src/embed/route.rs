//! The route of an embedded connection (behaviour spec, "The first line",
//! "The discover rule"): the first lines of the client choose the path
//! that serves the rest.

use super::options::{Discover, Options};
use super::readable;
use crate::framing::{self, Decoded, Frame};
use crate::jsonrpc::{self, Cause, Id, Message};
use crate::pipe::LineReader;
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use std::io::Cursor;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// The path a connection serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Route {
    /// A client of revision 2025-11-25, through the bridge's front end.
    Legacy,
    /// A client of revision 2026-07-28, through rmcp's own server.
    Modern,
}

/// The first line again, then the rest of the input.
pub(crate) type Replay<R> = tokio::io::Chain<Cursor<Vec<u8>>, BufReader<R>>;

pub(crate) enum Chosen<R> {
    /// The input ended before a request.
    Nothing,
    Legacy(Replay<R>),
    Modern(Replay<R>),
}

/// Reads lines until one picks a path. A blank line is skipped; a line
/// over the limit is dropped without a response; a line that is not valid
/// (JSON, depth, JSON-RPC, UTF-8) gets its error here and the modern path
/// goes on from the next line.
pub(crate) async fn choose<S, F, R, W>(
    make: &Arc<F>,
    options: &Options,
    input: R,
    output: &mut W,
) -> std::io::Result<Chosen<R>>
where
    S: ServerHandler,
    F: Fn(Route) -> S + Send + Sync + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let mut reader = LineReader::new(input, options.max_line_bytes);
    loop {
        let Some(frame) = reader.next_frame().await? else {
            return Ok(Chosen::Nothing);
        };
        let Frame::Line(line) = &frame else {
            tracing::debug!("dropped a first line over the line limit");
            continue;
        };
        let replay = |reader: LineReader<R>, line: &[u8]| {
            let mut bytes = line.to_vec();
            bytes.push(b'\n');
            Cursor::new(bytes).chain(reader.into_inner())
        };
        match framing::decode(&frame, options.max_line_bytes, options.max_depth) {
            None => continue,
            Some(Decoded::Message(Message::Request { id, method, params })) => match method.as_str() {
                "initialize" => return Ok(Chosen::Legacy(replay(reader, line))),
                "server/discover" => discover(make, options, (&id, params.as_ref()), line, output).await?,
                _ => return Ok(Chosen::Modern(replay(reader, line))),
            },
            Some(Decoded::Message(_)) => return Ok(Chosen::Modern(replay(reader, line))),
            Some(Decoded::Bad { id, error }) => {
                write(output, &jsonrpc::error_response(id.as_ref(), error.to_value())).await?;
                return Ok(Chosen::Modern(Cursor::new(Vec::new()).chain(reader.into_inner())));
            }
        }
    }
}

/// The discover rule: the server answers (over a link of its own, which
/// picks no path), or the bridge refuses.
async fn discover<S, F, W>(
    make: &Arc<F>,
    options: &Options,
    (id, params): (&Id, Option<&Value>),
    line: &[u8],
    output: &mut W,
) -> std::io::Result<()>
where
    S: ServerHandler,
    F: Fn(Route) -> S + Send + Sync + 'static,
    W: AsyncWrite + Unpin,
{
    if options.discover == Discover::Refuse {
        let error = crate::jsonrpc::BridgeError::new(Cause::MethodNotFound).to_value();
        return write(output, &jsonrpc::error_response(Some(id), error)).await;
    }
    if !readable::by_rmcp(line) {
        return write(output, &jsonrpc::error_response(Some(id), readable::refusal(params).to_value())).await;
    }
    let (client, server) = tokio::io::duplex(1 << 20);
    let handler = make(Route::Modern);
    let service = tokio::spawn(async move {
        if let Ok(service) = handler.serve(tokio::io::split(server)).await {
            let _ = service.waiting().await;
        }
    });
    let (read, mut write_half) = tokio::io::split(client);
    let mut bytes = line.to_vec();
    bytes.push(b'\n');
    write_half.write_all(&bytes).await?;
    let mut answer = String::new();
    BufReader::new(read).read_line(&mut answer).await?;
    drop(write_half);
    service.abort();
    output.write_all(answer.trim_end().as_bytes()).await?;
    output.write_all(b"\n").await?;
    output.flush().await
}

async fn write<W: AsyncWrite + Unpin>(output: &mut W, message: &serde_json::Value) -> std::io::Result<()> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    output.write_all(&line).await?;
    output.flush().await
}
