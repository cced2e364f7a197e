//! The HTTP/1.1 service over a [`ContentSeen`]: JSON in and out, bearer
//! token authentication for `/v1`, a body size limit, a request timeout,
//! a concurrency limit, Prometheus metrics and an OpenAPI document.
//!
//! Routes: `POST /v1/documents` (check and insert), `POST /v1/check`,
//! `POST /v1/batch` (NDJSON, one verdict per line),
//! `POST /v1/explain` (the check, explained against the original),
//! `GET /v1/recent` (the last verdicts), `GET`/`DELETE /v1/documents/{id}`,
//! `GET /v1/stats`, `GET /healthz`, `GET /metrics`, `GET /openapi.json`,
//! and the page `GET /ui/` with `POST /ui/login` and `POST /ui/logout`
//! (see `http/ui.rs` for its authentication). See `openapi.json` in this
//! crate.

mod batch;
mod connections;
mod handlers;
mod inspect;
mod metrics;
mod request;
mod ui;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Semaphore;

use crate::recent::{Recent, DEFAULT_RECENT};
use crate::seen::ContentSeen;
use metrics::Metrics;
use request::ApiError;

/// Settings of the HTTP layer.
#[derive(Debug, Clone)]
struct HttpConfig {
    token: Option<String>,
    max_body_bytes: usize,
    request_timeout: Duration,
    max_concurrency: usize,
    max_connections: usize,
    header_timeout: Duration,
    backup_dir: Option<std::path::PathBuf>,
    max_extracting_bytes: usize,
    recent: usize,
}

/// State shared by the handlers.
#[derive(Clone)]
pub(crate) struct App {
    seen: ContentSeen,
    config: Arc<HttpConfig>,
    metrics: Arc<Metrics>,
    limit: Arc<Semaphore>,
    /// Bytes of documents being extracted at once, in KiB.
    extracting: Arc<Semaphore>,
    store_duplicates: bool,
    /// The last verdicts, for `GET /v1/recent`.
    recent: Arc<Recent>,
}

/// The HTTP service; configure it, then [`Server::run`] or [`Server::spawn`].
///
/// ```no_run
/// use neardup_server::{http::Server, Config, ContentSeen};
/// let seen = ContentSeen::open("data", &Config::new())?;
/// let mut server = Server::new(seen);
/// server.token(Some("secret".into())).max_body_bytes(1 << 20);
/// let running = server.spawn("127.0.0.1:0".parse().unwrap())?;
/// println!("listening on {}", running.addr());
/// running.stop()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Server {
    seen: ContentSeen,
    config: HttpConfig,
    store_duplicates: bool,
}

/// The default body limit: 10 MB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 10_000_000;
pub use batch::MAX_BATCH_DOCUMENTS;
pub use inspect::MAX_EXPLAIN_CHARS;
/// The default limit of document bytes being extracted at once: 64 MiB
/// (extraction takes at most 8 times a page plus 15 MB).
pub const DEFAULT_MAX_EXTRACTING_BYTES: usize = 64 << 20;
/// The default limit of connections open at once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// The default time a client has to send a request head, on a new
/// connection and between keep-alive requests: 10 s.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

impl Server {
    /// A server over `seen`: no token, 10 MB bodies, 30 s timeout, 256
    /// requests at once, 1024 connections, 10 s to send a request head.
    pub fn new(seen: ContentSeen) -> Server {
        Server {
            seen,
            config: HttpConfig {
                token: None,
                max_body_bytes: DEFAULT_MAX_BODY_BYTES,
                request_timeout: Duration::from_secs(30),
                max_concurrency: 256,
                max_connections: DEFAULT_MAX_CONNECTIONS,
                header_timeout: DEFAULT_HEADER_TIMEOUT,
                backup_dir: None,
                max_extracting_bytes: DEFAULT_MAX_EXTRACTING_BYTES,
                recent: DEFAULT_RECENT,
            },
            store_duplicates: true,
        }
    }

    /// The bearer token every `/v1` request must carry (none: open).
    pub fn token(&mut self, token: Option<String>) -> &mut Server {
        self.config.token = token.filter(|t| !t.is_empty());
        self
    }

    /// The largest request body (413 past it).
    pub fn max_body_bytes(&mut self, n: usize) -> &mut Server {
        self.config.max_body_bytes = n;
        self
    }

    /// How long a request may take, waiting included (503 past it).
    pub fn request_timeout(&mut self, t: Duration) -> &mut Server {
        self.config.request_timeout = t;
        self
    }

    /// How many requests are served at once; others wait their turn.
    pub fn max_concurrency(&mut self, n: usize) -> &mut Server {
        self.config.max_concurrency = n.max(1);
        self
    }

    /// How many connections may be open at once; past it a connection is
    /// answered `503` and closed.
    pub fn max_connections(&mut self, n: usize) -> &mut Server {
        self.config.max_connections = n.max(1);
        self
    }

    /// How long a client has to send a whole request head, on a new
    /// connection and between keep-alive requests (an idle connection is
    /// closed after it).
    pub fn header_timeout(&mut self, t: Duration) -> &mut Server {
        self.config.header_timeout = t.max(Duration::from_millis(1));
        self
    }

    /// How many bytes of documents are extracted at once, all requests
    /// together (at least the body limit: one largest document always
    /// fits); others wait. With extraction's bound of 8 times a page plus
    /// 15 MB, this bounds the service's extraction memory.
    pub fn max_extracting_bytes(&mut self, n: usize) -> &mut Server {
        self.config.max_extracting_bytes = n;
        self
    }

    /// Where `POST /v1/backup` writes consistent copies of the store
    /// (none: the route answers 404).
    pub fn backup_dir(&mut self, dir: Option<std::path::PathBuf>) -> &mut Server {
        self.config.backup_dir = dir;
        self
    }

    /// How many of the last verdicts `GET /v1/recent` (and the `/ui/`
    /// page) shows (default [`DEFAULT_RECENT`]; 0 keeps none).
    pub fn recent_verdicts(&mut self, n: usize) -> &mut Server {
        self.config.recent = n;
        self
    }

    /// Reported in `/v1/stats`: whether duplicates are stored (the store's
    /// [`Config::store_duplicates`](crate::Config::store_duplicates)).
    pub fn store_duplicates(&mut self, yes: bool) -> &mut Server {
        self.store_duplicates = yes;
        self
    }

    /// The router with every route and the guard layer.
    fn router(&self) -> Router {
        let app = App {
            seen: self.seen.clone(),
            config: Arc::new(self.config.clone()),
            metrics: Arc::new(Metrics::default()),
            limit: Arc::new(Semaphore::new(self.config.max_concurrency)),
            extracting: Arc::new(Semaphore::new(kib(self
                .config
                .max_extracting_bytes
                .max(self.config.max_body_bytes)))),
            store_duplicates: self.store_duplicates,
            recent: Arc::new(Recent::new(self.config.recent)),
        };
        Router::new()
            .route("/v1/documents", post(handlers::post_document))
            .route("/v1/check", post(handlers::post_check))
            .route("/v1/batch", post(batch::post_batch))
            .route("/v1/backup", post(handlers::post_backup))
            .route("/v1/explain", post(inspect::post_explain))
            .route("/v1/recent", get(inspect::get_recent))
            .route(
                "/v1/documents/{*id}",
                get(handlers::get_document).delete(handlers::delete_document),
            )
            .route("/v1/stats", get(handlers::stats))
            .route("/healthz", get(handlers::healthz))
            .route("/metrics", get(handlers::metrics))
            .route("/openapi.json", get(handlers::openapi))
            .route("/ui", get(ui::redirect))
            .route("/ui/", get(ui::page))
            .route("/ui/login", post(ui::login))
            .route("/ui/logout", post(ui::logout))
            .fallback(handlers::fallback)
            .method_not_allowed_fallback(handlers::method_not_allowed)
            .layer(middleware::from_fn_with_state(app.clone(), guard))
            .with_state(app)
    }

    /// Serves on `listener` until `shutdown` completes, then finishes the
    /// requests under way.
    pub async fn run(
        &self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let limits = connections::ConnectionLimits {
            max_connections: self.config.max_connections,
            header_timeout: self.config.header_timeout,
            drain_timeout: self.config.request_timeout + Duration::from_secs(1),
        };
        connections::serve(listener, self.router(), limits, shutdown).await
    }

    /// Binds `addr` and serves on a runtime of its own in a background
    /// thread, until [`Running::stop`].
    pub fn spawn(&self, addr: SocketAddr) -> io::Result<Running> {
        let runtime = runtime(2, self.config.max_concurrency)?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind(addr))?;
        let addr = listener.local_addr()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = self.clone();
        let thread = std::thread::Builder::new()
            .name("neardup-http".into())
            .spawn(move || {
                let r = runtime.block_on(server.run(listener, async {
                    let _ = rx.await;
                }));
                drop(server);
                runtime.shutdown_timeout(Duration::from_secs(10));
                r
            })?;
        Ok(Running {
            addr,
            stop: Some(tx),
            thread: Some(thread),
        })
    }
}

impl Server {
    /// Binds `addr`, calls `ready` with the bound address, and serves until
    /// the process gets SIGINT or SIGTERM; then finishes the requests under
    /// way and returns (the store closes when the last handle is dropped).
    pub fn serve_until_signal(
        &self,
        addr: SocketAddr,
        workers: usize,
        ready: impl FnOnce(SocketAddr),
    ) -> io::Result<()> {
        let runtime = runtime(workers, self.config.max_concurrency)?;
        let result = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            ready(listener.local_addr()?);
            self.run(listener, shutdown_signal()).await
        });
        runtime.shutdown_timeout(Duration::from_secs(10));
        result
    }
}

#[cfg(not(unix))]
async fn shutdown_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(unix)]
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// A tokio runtime for the service: `workers` async threads and enough
/// blocking threads for every request in flight.
pub fn runtime(workers: usize, max_concurrency: usize) -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .max_blocking_threads(max_concurrency.max(1) + 8)
        .enable_io()
        .enable_time()
        .thread_name("neardup-worker")
        .build()
}

/// A server started by [`Server::spawn`]; stopped when dropped.
#[derive(Debug)]
pub struct Running {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<io::Result<()>>>,
}

impl Running {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, finishes the requests under way, and releases the
    /// store (once no other handle holds it).
    pub fn stop(mut self) -> io::Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> io::Result<()> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("the server thread panicked")),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

/// The metrics label of a request's route.
fn route_of(path: &str) -> &'static str {
    match path {
        "/v1/documents" => "/v1/documents",
        "/v1/check" => "/v1/check",
        "/v1/batch" => "/v1/batch",
        "/v1/backup" => "/v1/backup",
        "/v1/stats" => "/v1/stats",
        "/v1/explain" => "/v1/explain",
        "/v1/recent" => "/v1/recent",
        "/ui" | "/ui/" => "/ui/",
        "/ui/login" => "/ui/login",
        "/ui/logout" => "/ui/logout",
        "/healthz" => "/healthz",
        "/metrics" => "/metrics",
        "/openapi.json" => "/openapi.json",
        p if p.starts_with("/v1/documents/") => "/v1/documents/{id}",
        _ => "other",
    }
}

fn method_of(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::PUT => "PUT",
        Method::HEAD => "HEAD",
        _ => "OTHER",
    }
}

/// Constant-time comparison of the token.
fn same_token(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorized(token: &str, req: &Request) -> bool {
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            // The scheme is case-insensitive (RFC 9110, section 11.1).
            let (scheme, rest) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(rest)
        })
        .is_some_and(|t| same_token(t.trim().as_bytes(), token.as_bytes()))
}

/// Authentication, concurrency limit, timeout and metrics around every
/// request.
async fn guard(State(app): State<App>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let route = route_of(req.uri().path());
    let method = method_of(req.method());
    let response = guarded(&app, req, next).await;
    app.metrics
        .observe(method, route, response.status().as_u16(), start.elapsed());
    response
}

/// The longest request target answered (a JSON 414 past it).
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The largest header block answered, names and values (a JSON 431 past
/// it).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

async fn guarded(app: &App, req: Request, next: Next) -> Response {
    let uri_len = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if uri_len > MAX_URI_BYTES {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("the request target is {uri_len} bytes, more than {MAX_URI_BYTES}"),
        )
        .into_response();
    }
    let header_bytes: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            format!("the headers are {header_bytes} bytes, more than {MAX_HEADER_BYTES}"),
        )
        .into_response();
    }
    let path = req.uri().path();
    if path == "/v1" || path.starts_with("/v1/") {
        if let Some(token) = &app.config.token {
            if !authorized(token, &req) && !ui::ui_call_authorized(token, req.headers()) {
                let mut r = ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    "a valid \"Authorization: Bearer <token>\" header is required",
                )
                .into_response();
                r.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static("Bearer"),
                );
                return r;
            }
        }
    }
    let limit = app.limit.clone();
    let deadline = Instant::now() + app.config.request_timeout;
    let work = async move {
        let permit = limit.acquire_owned().await.ok();
        // The handler moves the permit into its blocking work, so that a
        // request that times out still counts until its work has ended.
        let mut req = req;
        req.extensions_mut().insert(Budget::new(permit, deadline));
        next.run(req).await
    };
    match tokio::time::timeout(app.config.request_timeout, work).await {
        Ok(r) => r,
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!(
                "the request took longer than {} ms; a document whose work had reached the store may be stored: \
                 post it again to learn its verdict (the same content gets the same answer)",
                app.config.request_timeout.as_millis()
            ),
        )
        .into_response(),
    }
}

/// Bytes in KiB for the extraction semaphore (at least 1, at most what a
/// semaphore holds).
fn kib(bytes: usize) -> usize {
    (bytes / 1024).clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize))
}

/// Waits until `bytes` of document may be extracted; the permit is held
/// until dropped. A document larger than the whole budget waits for all
/// of it.
pub(crate) async fn extraction_permit(
    app: &App,
    bytes: usize,
) -> Option<tokio::sync::OwnedSemaphorePermit> {
    let total = kib(app
        .config
        .max_extracting_bytes
        .max(app.config.max_body_bytes));
    let want = kib(bytes).min(total).min(u32::MAX as usize) as u32;
    app.extracting.clone().acquire_many_owned(want).await.ok()
}

/// What a request may spend: its concurrency permit (held until its work
/// ends, even past a timeout) and its deadline (work not yet stored by
/// then is cancelled).
#[derive(Clone)]
pub(crate) struct Budget {
    permit: Arc<std::sync::Mutex<Option<tokio::sync::OwnedSemaphorePermit>>>,
    deadline: Instant,
}

impl Budget {
    fn new(permit: Option<tokio::sync::OwnedSemaphorePermit>, deadline: Instant) -> Budget {
        Budget {
            permit: Arc::new(std::sync::Mutex::new(permit)),
            deadline,
        }
    }

    /// Takes the permit, to be dropped when the work ends.
    pub(crate) fn take_permit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.permit.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Whether the deadline has passed.
    pub(crate) fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_tokens() {
        assert_eq!(route_of("/v1/documents/a/b"), "/v1/documents/{id}");
        assert_eq!(route_of("/nope"), "other");
        assert!(same_token(b"abc", b"abc"));
        assert!(!same_token(b"abc", b"abd"));
        assert!(!same_token(b"abc", b"ab"));
    }
}
