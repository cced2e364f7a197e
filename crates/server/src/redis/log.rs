//! [`Log`]: the shared store's arrival order, a Redis list that every
//! instance appends to and reads from with one Lua script per call (one
//! round trip): it checks that the store is the one the instance joined
//! and still holds what the instance applied, appends the new entries
//! (`RPUSH`: their list indexes are their sequence numbers), and returns
//! the entries from the instance's position on. Every key shares the hash
//! tag `{neardup}`, so the script is also valid on one Redis Cluster slot.
//! When replicas must confirm writes, `WAIT` goes in the same pipeline:
//! still one round trip.

use crate::error::{Error, ErrorKind};
use crate::redis::entry;
use crate::redis::pool::{Asking, Primary};
use crate::redis::topology;
use crate::redis::url::StoreUrl;

/// The key of the store's description (method and parameters, epoch).
pub(crate) const META_KEY: &str = "{neardup}:meta";
/// The key of the log (a list of entries).
pub(crate) const LOG_KEY: &str = "{neardup}:log";

/// Entries returned by one call at most.
pub(crate) const WINDOW: usize = 1024;

/// The key a call without entries writes when replicas must confirm
/// (so that `WAIT` covers the entries it read).
pub(crate) const SYNC_KEY: &str = "{neardup}:sync";

/// The key of the compacted base's description (a hash: see
/// [`crate::redis::compact`]): where the log starts (`first`, the
/// sequence number of its first entry held), the base's position (`at`)
/// and the token of the entry before it (`last`).
pub(crate) const BASE_KEY: &str = "{neardup}:base";

/// KEYS: meta, log, sync, base. ARGV: the meta the instance joined, its
/// position (entries applied), the most entries to return, the token of
/// the last entry it applied (empty at position 0), whether to write the
/// sync key when nothing is appended ("1"), then the entries to append.
/// Sequence numbers are absolute: the list holds the entries from the
/// base's `first` on (0 before any compaction). A position whose entry
/// before is no longer held (except the base's own position, checked
/// against the base's `last`) is answered "trimmed" (the fourth value 1)
/// without appending: the instance loads the base, then calls again.
/// An entry whose kind has the [`entry::TIMED`] bit is stamped first: the
/// server's `TIME` in milliseconds, 8 bytes little endian, appended to it
/// (one clock for the whole log; `redis.replicate_commands` makes the
/// script replicated by its effects on servers older than 7, where
/// `TIME` would otherwise be refused before a write). Returns the log's
/// length, the entries from the position on, the sequence number of the
/// first entry held, and whether the position was trimmed.
const SCRIPT: &str = r#"
local meta = redis.call('GET', KEYS[1])
if meta ~= ARGV[1] then
  return redis.error_reply('NEARDUP_LOST the store was reset or belongs to another configuration')
end
local base = redis.call('HMGET', KEYS[4], 'first', 'at', 'last')
local first = tonumber(base[1]) or 0
local held = redis.call('LLEN', KEYS[2])
local from = tonumber(ARGV[2])
if from > 0 then
  local last
  if from - 1 >= first then
    last = redis.call('LINDEX', KEYS[2], from - 1 - first)
  elseif from == tonumber(base[2]) then
    last = base[3]
  else
    return {first + held, {}, first, 1}
  end
  if (not last) or string.sub(last, 1, string.len(ARGV[4])) ~= ARGV[4] then
    return redis.error_reply('NEARDUP_LOST the log no longer holds the entries this instance applied')
  end
elseif first > 0 then
  return {first + held, {}, first, 1}
end
local n
if #ARGV > 5 then
  local entries = {}
  local stamp = nil
  for i = 6, #ARGV do
    local e = ARGV[i]
    if string.byte(e, 1) >= 16 then
      if not stamp then
        if redis.replicate_commands then redis.replicate_commands() end
        local t = redis.call('TIME')
        local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local b = {}
        for j = 1, 8 do
          b[j] = string.char(ms % 256)
          ms = math.floor(ms / 256)
        end
        stamp = table.concat(b)
      end
      e = e .. stamp
    end
    entries[#entries + 1] = e
  end
  n = first + redis.call('RPUSH', KEYS[2], unpack(entries))
else
  n = first + held
  if ARGV[5] == '1' then
    redis.call('SET', KEYS[3], n)
  end
end
local upto = math.min(n, from + tonumber(ARGV[3])) - 1
local entries = {}
if upto >= from then
  entries = redis.call('LRANGE', KEYS[2], from - first, upto - first)
end
return {n, entries, first, 0}
"#;

/// What one call of the log script answers.
pub(crate) struct Window {
    /// The log's length (the sequence number of the next entry).
    pub end: u64,
    /// The entries from the position on (none when trimmed).
    pub entries: Vec<Vec<u8>>,
    /// The sequence number of the first entry the log holds.
    pub first: u64,
    /// Whether the log no longer holds the entries after the position:
    /// nothing was appended, the instance must load the base.
    pub trimmed: bool,
}

/// How long a call waits for the replicas to confirm its write.
const WAIT_MS: u64 = 1000;

/// The shared store's log, on the primary that holds it.
pub(crate) struct Log {
    pub(crate) primary: Primary,
    script: redis::Script,
    pub(crate) meta: Vec<u8>,
    /// Replicas that must confirm each call's write before its entries
    /// are applied and its verdicts given.
    replicas: u32,
}

/// A reply that is not the script's, as an error.
fn garbage(what: &str) -> redis::RedisError {
    redis::make_extension_error("NEARDUP_GARBAGE".into(), Some(what.into()))
}

impl Log {
    /// Connects, and joins the store: records `description` (the engine's
    /// method and parameters) with a new epoch when the store is empty,
    /// else checks that it was made with the same description. Then
    /// settles how many replicas must confirm each write: the URL's
    /// number, else 1 if the primary has a replica now, else 0.
    pub fn join(url: &StoreUrl, description: &str) -> Result<Log, Error> {
        let primary = Primary::new(url);
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
        let meta: Vec<u8> = primary.with(|c, asking| {
            let mut pipe = redis::pipe();
            asking
                .prefix(&mut pipe)
                .cmd("SET")
                .arg(META_KEY)
                .arg(&fresh)
                .arg("NX")
                .ignore();
            // The base's hash exists from the start: every key of the
            // log script exists, so that during a slot migration the
            // script runs where all of them are (a key missing on the
            // importing node would be answered TRYAGAIN).
            asking
                .prefix(&mut pipe)
                .cmd("HSETNX")
                .arg(BASE_KEY)
                .arg("first")
                .arg(0)
                .ignore();
            asking
                .prefix(&mut pipe)
                .cmd("GET")
                .arg(META_KEY)
                .query::<(Vec<u8>,)>(c)
                .map(|(m,)| m)
        })?;
        let text = String::from_utf8_lossy(&meta);
        let stored = text.lines().nth(1).unwrap_or_default();
        if !text.starts_with("neardup-log 1\n") || stored != description {
            return Err(Error::new(ErrorKind::MethodMismatch {
                stored: stored.to_string(),
                configured: description.to_string(),
            }));
        }
        let has = match url.replicas {
            Some(_) => 0,
            None => {
                let role: redis::Value = primary.with(|c, _| redis::cmd("ROLE").query(c))?;
                topology::role_replicas(&role)
                    .map_err(|why| Error::new(ErrorKind::SharedStore(format!("{url}: {why}"))))?
            }
        };
        let replicas = url.replicas.unwrap_or(has.min(1));
        Ok(Log {
            primary,
            script: redis::Script::new(SCRIPT),
            meta: meta.clone(),
            replicas,
        })
    }

    /// The store, for messages (no password).
    pub fn url(&self) -> &StoreUrl {
        self.primary.url()
    }

    /// Replicas that confirm each write before it is acknowledged.
    pub fn replicas(&self) -> u32 {
        self.replicas
    }

    /// One round trip: appends `entries` after everything in the log and
    /// returns the log's length then and the entries from `from` on (at
    /// most [`WINDOW`]); `last` is the token of entry `from - 1`. When
    /// the log no longer holds what follows `from` (compacted:
    /// [`Window::trimmed`]), nothing is appended. With
    /// replicas to wait for, `WAIT` goes in the same round trip, and the
    /// call fails unless they confirm: the entries it returns (all before
    /// its write in the replication stream) are then on them too.
    pub fn append(&self, from: u64, last: &[u8], entries: &[Vec<u8>]) -> Result<Window, Error> {
        let sync = if self.replicas > 0 { "1" } else { "0" };
        let call = |eval: bool, asking: Asking| {
            let mut cmd = if eval {
                redis::cmd("EVAL").arg(SCRIPT).to_owned()
            } else {
                redis::cmd("EVALSHA").arg(self.script.get_hash()).to_owned()
            };
            cmd.arg(4)
                .arg(META_KEY)
                .arg(LOG_KEY)
                .arg(SYNC_KEY)
                .arg(BASE_KEY)
                .arg(&self.meta)
                .arg(from)
                .arg(WINDOW)
                .arg(entry::token(last))
                .arg(sync);
            for e in entries {
                cmd.arg(e.as_slice());
            }
            let mut pipe = redis::pipe();
            asking.prefix(&mut pipe).add_command(cmd);
            if self.replicas > 0 {
                pipe.cmd("WAIT").arg(self.replicas).arg(WAIT_MS);
            }
            pipe.ignore_errors();
            pipe
        };
        self.primary.with(|c, asking| {
            let mut replies: Vec<redis::Value> = call(false, asking).query(c)?;
            if matches!(replies.first(), Some(redis::Value::ServerError(e)) if e.code() == "NOSCRIPT")
            {
                // A server restarted, or a replica promoted: the script is
                // sent whole once (it was not run).
                replies = call(true, asking).query(c)?;
            }
            let mut replies = replies.into_iter();
            let got = match replies.next() {
                Some(redis::Value::ServerError(e)) => return Err(e.into()),
                Some(v) => redis::from_redis_value::<(u64, Vec<Vec<u8>>, u64, u8)>(v)
                    .map(|(end, entries, first, trimmed)| Window {
                        end,
                        entries,
                        first,
                        trimmed: trimmed == 1,
                    })
                    .map_err(|_| garbage("the log script answered something else"))?,
                None => return Err(garbage("no reply")),
            };
            if self.replicas > 0 {
                let confirmed = match replies.next() {
                    Some(redis::Value::Int(n)) => n,
                    Some(redis::Value::ServerError(e)) => return Err(e.into()),
                    _ => return Err(garbage("WAIT answered something else")),
                };
                if confirmed < i64::from(self.replicas) {
                    return Err(redis::make_extension_error(
                        "NEARDUP_UNREPLICATED".into(),
                        Some(format!(
                            "{confirmed} of the {} replicas required confirmed the write within {WAIT_MS} ms: not acknowledged (it may be applied later)",
                            self.replicas
                        )),
                    ));
                }
            }
            Ok(got)
        })
    }
}
