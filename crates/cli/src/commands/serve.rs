//! `neardup serve`: the ContentSeen HTTP service over a data directory.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use neardup_server::http::Server;
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen, Recovery};

use crate::method_args::MethodArgs;

/// Options of `neardup serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Directory of the store (created if missing). With --store, where
    /// this instance keeps its replica of the shared store (a fresh
    /// subdirectory, removed at exit).
    #[arg(long, value_name = "DIR")]
    pub data_dir: PathBuf,
    /// A shared store that any number of instances use at once, with the
    /// verdicts of one (Redis or Valkey; valkey:// alike):
    /// redis://[USER:PASSWORD@]HOST:PORT[/DB] (one server),
    /// redis+cluster://[USER:PASSWORD@]H1:P1,H2:P2,... (Cluster seed
    /// nodes) or redis+sentinel://[USER:PASSWORD@]S1:P1,S2:P2,.../MASTER[/DB]
    /// (sentinels and the master's name; the credentials are the data
    /// nodes'). rediss://, rediss+cluster:// and rediss+sentinel:// use
    /// TLS for every connection (see --store-cacert). Prefer
    /// --store-password-file or the NEARDUP_STORE_PASSWORD environment
    /// variable to a password in the URL (visible in the process list).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// Replicas of the store's primary that must confirm each write
    /// (WAIT) before its verdict is given, else 503: what a failover
    /// cannot lose. Default: 1 if the primary has a replica when the
    /// instance starts, else 0.
    #[arg(long, value_name = "N", requires = "store")]
    pub store_replicas: Option<u32>,
    /// What the shared store keeps to verify candidates: `exact`, each
    /// original's main text compressed (about 930 bytes for a 2 KB text),
    /// or `sketch`, a sample of its token shingles (about 120 bytes; an
    /// estimate of the same rule, see docs/serve.md). Every instance over
    /// one store must use the same.
    #[arg(long, value_name = "MODE", requires = "store", value_parser = ["exact", "sketch"])]
    pub store_verify: Option<String>,
    /// Read the shared store's password from this file (its first line).
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_password_file: Option<PathBuf>,
    /// Read the sentinels' own password (their requirepass, or their ACL
    /// user's) from this file (its first line); else the
    /// NEARDUP_STORE_SENTINEL_PASSWORD environment variable; else the
    /// sentinels are asked without one.
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_sentinel_password_file: Option<PathBuf>,
    /// Log in to the sentinels as this ACL user (a `user` line in their
    /// config), with the sentinels' password; else the
    /// NEARDUP_STORE_SENTINEL_USER environment variable; else their
    /// default user.
    #[arg(long, value_name = "NAME", requires = "store")]
    pub store_sentinel_user: Option<String>,
    /// With rediss://: trust the CA certificates in this PEM file to check
    /// the servers' certificates (default: the system's roots).
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_cacert: Option<PathBuf>,
    /// With rediss://: present this client certificate (PEM) to servers
    /// that require one (tls-auth-clients yes), with --store-key.
    #[arg(long, value_name = "FILE", requires_all = ["store", "store_key"])]
    pub store_cert: Option<PathBuf>,
    /// The private key (PEM) of --store-cert.
    #[arg(long, value_name = "FILE", requires_all = ["store", "store_cert"])]
    pub store_key: Option<PathBuf>,
    /// Address to listen on (port 0: any free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Bearer token required by every /v1 request. Visible to other users
    /// in the process list: prefer --token-file or the NEARDUP_TOKEN
    /// environment variable.
    #[arg(long, value_name = "T", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// Read the bearer token from this file (its first line).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Allow a non-loopback address without a token.
    #[arg(long)]
    pub insecure: bool,
    /// Answer duplicates without storing them.
    #[arg(long)]
    pub no_store_duplicates: bool,
    /// Refuse an id posted again with other content (409) instead of
    /// replacing the stored version with it.
    #[arg(long)]
    pub conflict_on_change: bool,
    /// Keep at most N documents: past it the oldest are evicted, after
    /// each operation (default: no limit). With --store, every instance
    /// must give the same limit.
    #[arg(long, value_name = "N")]
    pub max_documents: Option<u64>,
    /// Evict documents stored more than this many seconds ago, after each
    /// operation (default: never). With --store, age is measured in log
    /// time (the store server's clock when entries are appended: pages
    /// age out as new entries arrive), and every instance must give the
    /// same limit.
    #[arg(long, value_name = "SECONDS")]
    pub max_age: Option<u64>,
    /// Bytes of documents extracted at once, all requests together (at
    /// least --max-body-bytes); others wait. Extraction takes at most 8
    /// times a page plus 15 MB, so this bounds its memory.
    #[arg(long, value_name = "N", default_value_t = neardup_server::http::DEFAULT_MAX_EXTRACTING_BYTES)]
    pub max_extracting_bytes: usize,
    /// Where `POST /v1/backup` writes consistent copies of the store
    /// (default: backups off).
    #[arg(long, value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,
    /// How many of the last verdicts `GET /v1/recent` and the page at
    /// `/ui/` show (kept in memory; 0: none).
    #[arg(long, value_name = "N", default_value_t = neardup_server::DEFAULT_RECENT)]
    pub recent_verdicts: usize,
    /// Largest request body in bytes (413 past it).
    #[arg(long, value_name = "N", default_value_t = neardup_server::http::DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Request timeout in milliseconds (503 past it).
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    pub timeout_ms: u64,
    /// Requests served at once; others wait.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_concurrency: usize,
    /// Connections open at once; past it a connection is answered 503 and
    /// closed.
    #[arg(long, value_name = "N", default_value_t = neardup_server::http::DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Milliseconds a client has to send a whole request head, on a new
    /// connection and between keep-alive requests (an idle or slow
    /// connection is closed after it).
    #[arg(long, value_name = "MS", default_value_t = neardup_server::http::DEFAULT_HEADER_TIMEOUT.as_millis() as u64)]
    pub header_timeout_ms: u64,
    /// Make room in the in-memory index for this many documents at start
    /// (avoids a pause of seconds when a large index grows).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub expected_documents: usize,
    /// Async worker threads (extraction runs on a separate blocking pool).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub workers: usize,
    #[command(flatten)]
    pub method: MethodArgs,
}

/// Runs the service until SIGINT or SIGTERM.
pub fn run(args: ServeArgs) -> Result<()> {
    let addr: SocketAddr = args.listen.parse().with_context(|| {
        format!(
            "--listen {:?} is not an address like 127.0.0.1:8080",
            args.listen
        )
    })?;
    let from_file = first_line(args.token_file.as_deref(), "--token-file", "token")?;
    let token = args
        .token
        .clone()
        .or(from_file)
        .or_else(|| std::env::var("NEARDUP_TOKEN").ok())
        .filter(|t| !t.is_empty());
    if !addr.ip().is_loopback() && token.is_none() && !args.insecure {
        bail!(
            "refusing to listen on {addr} without a token: set --token-file, NEARDUP_TOKEN or --token, or pass --insecure"
        );
    }
    let mut config = Config::new();
    config
        .method(args.method.method()?)
        .verifier(store_verifier(&args)?)
        .composite(args.method.composite())
        .store_duplicates(!args.no_store_duplicates)
        .replace_changed(!args.conflict_on_change)
        .max_documents(args.max_documents)
        .max_age(args.max_age.map(Duration::from_secs))
        .expected_documents(args.expected_documents);
    let replica = match &args.store {
        Some(url) => {
            let url = store_url(&args, url)?;
            Some((open_replica_dir(&args.data_dir)?, url))
        }
        None => None,
    };
    let seen = match &replica {
        Some((dir, url)) => ContentSeen::open_shared(url, dir, &config)
            .with_context(|| format!("joining the shared store {url}"))
            .inspect_err(|_| drop(std::fs::remove_dir_all(dir)))?,
        None => ContentSeen::open(&args.data_dir, &config)
            .with_context(|| format!("opening the store in {}", args.data_dir.display()))?,
    };
    let shared = seen.shared_store().zip(seen.shared_store_replicas());
    let stats = seen.stats();
    let recovery = seen.recovery().clone();
    let mut server = Server::new(seen);
    server
        .token(token)
        .max_body_bytes(args.max_body_bytes)
        .request_timeout(Duration::from_millis(args.timeout_ms))
        .max_concurrency(args.max_concurrency)
        .max_connections(args.max_connections)
        .backup_dir(args.backup_dir.clone())
        .recent_verdicts(args.recent_verdicts)
        .max_extracting_bytes(args.max_extracting_bytes)
        .header_timeout(Duration::from_millis(args.header_timeout_ms))
        .store_duplicates(!args.no_store_duplicates);
    let served = server.serve_until_signal(addr, args.workers, |bound| {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "neardup serve: {} documents ({}), listening on http://{bound}",
                stats.documents, stats.method
            );
            match &shared {
                Some((url, replicas)) => {
                    let _ = writeln!(
                        out,
                        "neardup serve: shared store {url}: its log replayed into this instance's replica; {replicas} replica(s) confirm each write"
                    );
                }
                None => {
                    let _ = writeln!(out, "neardup serve: {}", recovery_line(&recovery));
                }
            }
            let _ = writeln!(out, "neardup serve: the page is at http://{bound}/ui/");
            let _ = out.flush();
        });
    if let Some((dir, _)) = &replica {
        // The replica is a cache of the shared store's log.
        let _ = std::fs::remove_dir_all(dir);
    }
    served.with_context(|| format!("serving on {addr}"))?;
    Ok(())
}

/// The verifier: the method's, with a verification sketch under
/// `--store-verify sketch` (which needs verification on).
fn store_verifier(args: &ServeArgs) -> Result<Option<neardup::Verifier>> {
    let verifier = args.method.verifier();
    if args.store_verify.as_deref() != Some("sketch") {
        return Ok(verifier);
    }
    let Some(v) = verifier else {
        bail!("--store-verify sketch needs verification on");
    };
    Ok(Some(v.sketched()))
}

/// The first line of a secret's file, when given.
fn first_line(path: Option<&std::path::Path>, option: &str, what: &str) -> Result<Option<String>> {
    let Some(path) = path else {
        return Ok(None);
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("{option} {}", path.display()))?;
    let line = text.lines().next().unwrap_or("").trim().to_string();
    if line.is_empty() {
        bail!("{option} {}: the file holds no {what}", path.display());
    }
    Ok(Some(line))
}

/// The shared store's URL, its password from the URL, else
/// --store-password-file, else NEARDUP_STORE_PASSWORD; the sentinels'
/// from --store-sentinel-password-file, else
/// NEARDUP_STORE_SENTINEL_PASSWORD, and their user from
/// --store-sentinel-user, else NEARDUP_STORE_SENTINEL_USER; its TLS files. Errors never repeat
/// the URL (it may hold the password) or a file's content.
fn store_url(args: &ServeArgs, url: &str) -> Result<StoreUrl> {
    let mut parsed = StoreUrl::parse(url).context("--store")?;
    let password = first_line(
        args.store_password_file.as_deref(),
        "--store-password-file",
        "password",
    )?
    .or_else(|| std::env::var("NEARDUP_STORE_PASSWORD").ok());
    let sentinel_password = first_line(
        args.store_sentinel_password_file.as_deref(),
        "--store-sentinel-password-file",
        "password",
    )?
    .or_else(|| std::env::var("NEARDUP_STORE_SENTINEL_PASSWORD").ok());
    parsed
        .password_if_missing(password)
        .sentinel_password_if_missing(sentinel_password)
        .sentinel_username_if_missing(
            args.store_sentinel_user
                .clone()
                .or_else(|| std::env::var("NEARDUP_STORE_SENTINEL_USER").ok()),
        )
        .require_replicas(args.store_replicas);
    let read = |path: &std::path::Path, option: &str| {
        std::fs::read(path).with_context(|| format!("{option} {}", path.display()))
    };
    if let Some(ca) = &args.store_cacert {
        parsed
            .tls_ca(read(ca, "--store-cacert")?)
            .with_context(|| format!("--store-cacert {}", ca.display()))?;
    }
    if let (Some(cert), Some(key)) = (&args.store_cert, &args.store_key) {
        parsed
            .tls_client(read(cert, "--store-cert")?, read(key, "--store-key")?)
            .with_context(|| {
                format!(
                    "--store-cert {} --store-key {}",
                    cert.display(),
                    key.display()
                )
            })?;
    }
    Ok(parsed)
}

/// A fresh directory for this instance's replica of the shared store, in
/// the data directory.
fn open_replica_dir(data_dir: &std::path::Path) -> Result<PathBuf> {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let dir = data_dir.join(format!("replica-{}-{ms}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// How the index came up, for the start-up message.
fn recovery_line(r: &Recovery) -> String {
    let source = if r.from_snapshot {
        "index snapshot loaded".to_string()
    } else {
        match &r.snapshot_refused {
            Some(why) => format!("index snapshot not used ({why})"),
            None => "no index snapshot".to_string(),
        }
    };
    format!(
        "{} documents stored again from the journal; {source}, {} documents replayed and {} removals applied from the store in {:.2} s",
        r.from_journal,
        r.replayed,
        r.removals,
        r.took.as_secs_f64()
    )
}
