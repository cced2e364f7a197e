//! [`Log`]: the shared store's arrival order, a Redis list that every
//! instance appends to and reads from with one Lua script per call (one
//! round trip): it checks that the store is the one the instance joined
//! and still holds what the instance applied, appends the new entries
//! (`RPUSH`: their list indexes are their sequence numbers), and returns
//! the entries from the instance's position on. Both keys share the hash
//! tag `{neardup}`, so the script is also valid on one Redis Cluster slot.

use std::sync::Mutex;
use std::time::Duration;

use crate::error::{Error, ErrorKind};
use crate::redis::entry;
use crate::redis::url::StoreUrl;

/// The key of the store's description (method and parameters, epoch).
pub(crate) const META_KEY: &str = "{neardup}:meta";
/// The key of the log (a list of entries).
pub(crate) const LOG_KEY: &str = "{neardup}:log";

/// Entries returned by one call at most.
pub(crate) const WINDOW: usize = 1024;

/// KEYS: meta, log. ARGV: the meta the instance joined, its position
/// (entries applied), the most entries to return, the token of the last
/// entry it applied (empty at position 0), then the entries to append.
/// Returns the log's length and the entries from the position on.
const SCRIPT: &str = r#"
local meta = redis.call('GET', KEYS[1])
if meta ~= ARGV[1] then
  return redis.error_reply('NEARDUP_LOST the store was reset or belongs to another configuration')
end
local from = tonumber(ARGV[2])
if from > 0 then
  local last = redis.call('LINDEX', KEYS[2], from - 1)
  if (not last) or string.sub(last, 1, string.len(ARGV[4])) ~= ARGV[4] then
    return redis.error_reply('NEARDUP_LOST the log no longer holds the entries this instance applied')
  end
end
local n
if #ARGV > 4 then
  n = redis.call('RPUSH', KEYS[2], unpack(ARGV, 5))
else
  n = redis.call('LLEN', KEYS[2])
end
local upto = math.min(n, from + tonumber(ARGV[3])) - 1
local entries = {}
if upto >= from then
  entries = redis.call('LRANGE', KEYS[2], from, upto)
end
return {n, entries}
"#;

/// Seconds a call waits for the server before it fails (503).
const TIMEOUT: Duration = Duration::from_secs(5);

/// A connection pool to the shared store and its log script.
pub(crate) struct Log {
    url: StoreUrl,
    client: redis::Client,
    idle: Mutex<Vec<redis::Connection>>,
    script: redis::Script,
    meta: Vec<u8>,
}

/// A Redis error as a service error, without the URL's credentials.
pub(crate) fn unavailable(url: &StoreUrl, e: &redis::RedisError) -> Error {
    let what = if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() {
        "unreachable".to_string()
    } else if e.code() == Some("NEARDUP_LOST") {
        e.detail().unwrap_or("the store lost entries").to_string()
    } else {
        // Server replies (NOAUTH, WRONGPASS, OOM...) name no secret: only
        // their code and detail are kept.
        format!(
            "{} {}",
            e.code().unwrap_or("error"),
            e.detail().unwrap_or_default()
        )
    };
    Error::new(ErrorKind::SharedStore(format!("{url}: {what}")))
}

impl Log {
    /// Connects, and joins the store: records `description` (the engine's
    /// method and parameters) with a new epoch when the store is empty,
    /// else checks that it was made with the same description.
    pub fn join(url: &StoreUrl, description: &str) -> Result<Log, Error> {
        let client = url
            .connection_info()
            .and_then(redis::Client::open)
            .map_err(|e| unavailable(url, &e))?;
        let log = Log {
            url: url.clone(),
            client,
            idle: Mutex::new(Vec::new()),
            script: redis::Script::new(SCRIPT),
            meta: Vec::new(),
        };
        let epoch = format!(
            "{:016x}",
            xxhash_rust::xxh3::xxh3_64(
                format!(
                    "{:?}{:?}",
                    std::time::SystemTime::now(),
                    std::thread::current().id()
                )
                .as_bytes()
            )
        );
        let fresh = format!("neardup-log 1\n{description}\n{epoch}");
        let meta: Vec<u8> = log.with(|c| {
            redis::cmd("SET")
                .arg(META_KEY)
                .arg(&fresh)
                .arg("NX")
                .exec(c)?;
            redis::cmd("GET").arg(META_KEY).query(c)
        })?;
        let text = String::from_utf8_lossy(&meta);
        let stored = text.lines().nth(1).unwrap_or_default();
        if !text.starts_with("neardup-log 1\n") || stored != description {
            return Err(Error::new(ErrorKind::MethodMismatch {
                stored: stored.to_string(),
                configured: description.to_string(),
            }));
        }
        Ok(Log { meta, ..log })
    }

    /// The server, for messages (no password).
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// Runs `f` on a pooled connection (a new one when none is idle); a
    /// connection that failed is dropped.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, Error> {
        let pooled = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => {
                let c = self
                    .client
                    .get_connection_with_timeout(TIMEOUT)
                    .map_err(|e| unavailable(&self.url, &e))?;
                c.set_read_timeout(Some(TIMEOUT))
                    .and_then(|()| c.set_write_timeout(Some(TIMEOUT)))
                    .map_err(|e| unavailable(&self.url, &e))?;
                c
            }
        };
        match f(&mut conn) {
            Ok(v) => {
                self.idle
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(conn);
                Ok(v)
            }
            Err(e) => {
                // A server error reply leaves the connection usable.
                if !(e.is_io_error() || e.is_connection_dropped() || e.is_timeout()) {
                    self.idle
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(conn);
                }
                Err(unavailable(&self.url, &e))
            }
        }
    }

    /// One round trip: appends `entries` after everything in the log and
    /// returns the log's length then and the entries from `from` on (at
    /// most [`WINDOW`]); `last` is the token of entry `from - 1`.
    pub fn append(
        &self,
        from: u64,
        last: &[u8],
        entries: &[Vec<u8>],
    ) -> Result<(u64, Vec<Vec<u8>>), Error> {
        self.with(|c| {
            let mut call = self.script.prepare_invoke();
            call.key(META_KEY)
                .key(LOG_KEY)
                .arg(&self.meta)
                .arg(from)
                .arg(WINDOW)
                .arg(entry::token(last));
            for e in entries {
                call.arg(e.as_slice());
            }
            call.invoke(c)
        })
    }
}
