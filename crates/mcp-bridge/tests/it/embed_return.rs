//! The return of the embedded bridge (behaviour spec, "The embedded bridge
//! (M5)", "The end of the input"): at the return of `embed::serve` the
//! server has no listen stream, on either path, and each handler saw the
//! path it serves. In process, over in-memory pipes, so that the test can
//! count the server's own listen streams.

use mcp_bridge::embed::{self, Options, Route};
use mcp_bridge::Profile;
use rmcp::model::{ServerCapabilities, ServerConfig, SubscriptionFilter};
use rmcp::service::SubscriptionContext;
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What the servers of one connection saw.
#[derive(Default)]
struct Record {
    /// Listen streams open now.
    open: AtomicUsize,
    /// The path of each listen stream that opened.
    paths: Mutex<Vec<Route>>,
}

struct Counting {
    path: Route,
    record: Arc<Record>,
}

impl ServerHandler for Counting {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.record.open.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut paths) = self.record.paths.lock() {
            paths.push(self.path);
        }
        context.cancelled().await;
        self.record.open.fetch_sub(1, Ordering::SeqCst);
        Ok(())
    }
}

fn line(message: Value) -> Vec<u8> {
    let mut bytes = message.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// Serves each line of `steps` after the output showed the text before
/// it, ends the input, and returns what the servers saw once `serve` has
/// returned.
async fn serve_then_end(steps: Vec<(Vec<u8>, &str)>) -> Arc<Record> {
    let record = Arc::new(Record::default());
    let servers = record.clone();
    let (mut to_bridge, input) = tokio::io::duplex(1 << 16);
    let (output, from_bridge) = tokio::io::duplex(1 << 16);
    let mut options = Options::new(Profile::vscode(), "counting");
    options.shutdown_grace = Duration::from_millis(500);
    let serving =
        tokio::spawn(embed::serve(move |path| Counting { path, record: servers.clone() }, options, input, output));
    let mut lines = BufReader::new(from_bridge).lines();
    for (bytes, until) in steps {
        to_bridge.write_all(&bytes).await.expect("the bridge reads");
        let wait = async {
            while let Ok(Some(text)) = lines.next_line().await {
                if text.contains(until) {
                    return;
                }
            }
            panic!("the output ended before {until}");
        };
        tokio::time::timeout(Duration::from_secs(10), wait).await.expect("the answer came in time");
    }
    // Let the listen handler run before the end of the input.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(record.open.load(Ordering::SeqCst), 1, "one listen stream is open before the end");
    drop(to_bridge);
    let returned = tokio::time::timeout(Duration::from_secs(10), serving).await;
    assert!(matches!(returned, Ok(Ok(Ok(())))), "serve returned Ok at the end of the input: {returned:?}");
    record
}

#[tokio::test(flavor = "current_thread")]
async fn at_the_return_of_the_modern_path_the_server_has_no_listen_stream() {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let listen = json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}});
    let record = serve_then_end(vec![(line(listen), "notifications/subscriptions/acknowledged")]).await;
    assert_eq!(record.open.load(Ordering::SeqCst), 0, "a listen stream outlived the return");
    assert_eq!(*record.paths.lock().expect("not poisoned"), [Route::Modern]);
}

#[tokio::test(flavor = "current_thread")]
async fn at_the_return_of_the_legacy_path_the_server_has_no_listen_stream() {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    // The front end opens the listen stream at notifications/initialized in
    // ready; its acknowledgment gives the client the list change of the gap.
    let steps =
        vec![(line(initialize), "\"protocolVersion\""), (line(initialized), "notifications/tools/list_changed")];
    let record = serve_then_end(steps).await;
    assert_eq!(record.open.load(Ordering::SeqCst), 0, "a listen stream outlived the return");
    assert_eq!(*record.paths.lock().expect("not poisoned"), [Route::Legacy]);
}
