//! Accepting connections with limits: at most `max_connections` open at
//! once (past it a connection gets a `503` JSON answer and is closed), and
//! a header-read timeout that closes a connection whose client does not
//! send a whole request head in time, whether it is new or idle between
//! keep-alive requests (hyper starts the timer whenever it waits for a
//! request head). Slow and idle clients therefore cannot hold the service.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// The largest request head hyper reads before its own (bodiless) 431.
const HYPER_MAX_HEAD_BYTES: usize = 256 * 1024;
/// The most header fields hyper parses before its own 431.
const HYPER_MAX_HEADERS: usize = 512;

/// Limits on connections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time a client has to send a request head, on a new connection and
    /// between keep-alive requests.
    pub header_timeout: Duration,
    /// How long requests under way may take to finish at shutdown.
    pub drain_timeout: Duration,
}

/// Serves `router` on `listener` until `shutdown`, then lets the requests
/// under way finish (within the drain timeout).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors or a connection reset before it
                // was accepted: the listener is still good.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = open.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .keep_alive(true)
            // Room past the service's own limits (checked in the guard,
            // with JSON answers): hyper's bare 431 only past these.
            .max_buf_size(HYPER_MAX_HEAD_BYTES)
            .max_headers(HYPER_MAX_HEADERS);
        let service = TowerToHyperService::new(router.clone());
        let conn = builder.serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.drain_timeout, graceful.shutdown()).await;
    Ok(())
}

/// The answer to a connection past the limit.
const REFUSAL_BODY: &str = r#"{"error":{"code":"too_many_connections","message":"too many open connections; retry later"}}"#;

async fn refuse(mut stream: TcpStream) {
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{REFUSAL_BODY}",
        REFUSAL_BODY.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}
