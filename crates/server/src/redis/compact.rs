//! Compaction of the shared store's log, so that Redis memory stays
//! bounded under eviction (`--max-documents`, `--max-age`): the state of
//! a replica after entries `[0, k)` (its documents' records:
//! [`crate::base::Base`]) is written to Redis as the compacted base, and
//! the log entries below `k` (less a tail that instances a little behind
//! still replay: [`keep`]) are removed, atomically with publishing the
//! base. Sequence numbers stay absolute: the log holds the entries from
//! `first` on, and the base's hash ([`BASE_KEY`]) says where (`first`),
//! at which position the base stands (`at`, with the token of entry
//! `at - 1` and the log time then), and the base's next sequence number
//! and eviction count. A joining instance, or one behind `first`, loads
//! the base then replays the log from `at` ([`load`]).
//!
//! One instance compacts at a time, under a lease ([`LEASE_KEY`], `SET
//! NX PX` with a random token): it reads its own replica at a position
//! it has applied, writes the records to a staging list in chunks (each
//! chunk renews the lease, and is refused once the lease is another's),
//! then one script checks the lease and the log, renames the staging
//! list over the base's, trims the log and records the new `first` and
//! `at`. A compactor killed midway leaves a lease that expires
//! ([`LEASE_MS`]) and a staging list that expires with it; the log is
//! only trimmed by the script that publishes a complete base. Every key
//! shares the hash tag `{neardup}` (one Cluster slot).
//!
//! Without eviction limits nothing could be trimmed (every document
//! stays live, so the base would be as large as the log): instances
//! compact only with limits set.

use redis::FromRedisValue;

use crate::base::Base;
use crate::error::{Error, ErrorKind};
use crate::redis::log::{Log, BASE_KEY, LOG_KEY, META_KEY};

/// The base's records: a list, each an id (`u32` length, little endian,
/// then its bytes) then the record.
pub(crate) const DOCS_KEY: &str = "{neardup}:base:docs";
/// Where a compactor writes the next base before it publishes it.
const STAGING_KEY: &str = "{neardup}:base:staging";
/// The compaction lease: the holder's token, with an expiry.
pub(crate) const LEASE_KEY: &str = "{neardup}:compact:lease";

/// How long a compaction lease lasts without renewal (every chunk of the
/// base written renews it): how long a killed compactor delays the next.
pub(crate) const LEASE_MS: u64 = 5_000;

/// Records written, or read, by one call.
const CHUNK: usize = 512;

/// When a compaction is due: the log holds more than [`FACTOR`] times as
/// many entries as there are live documents (at least [`MIN_LIVE`]).
/// It then keeps [`keep`] entries below the base. So the log holds
/// between a half and twice the live set (or [`MIN_LIVE`]), plus what
/// arrives while a compaction runs, beside the base's one record a live
/// document. The one place these constants are used.
pub(crate) fn due(held: u64, live: u64) -> bool {
    held > FACTOR * live.max(MIN_LIVE)
}

/// Entries kept below a new base: instances that far behind replay them
/// instead of loading the base.
pub(crate) fn keep(live: u64) -> u64 {
    live.max(MIN_LIVE) / 2
}

/// See [`due`].
pub(crate) const FACTOR: u64 = 2;
/// See [`due`].
pub(crate) const MIN_LIVE: u64 = 256;

/// Where a base stands in the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BaseAt {
    /// The entries it covers: `[0, at)`.
    pub at: u64,
    /// The token of entry `at - 1`.
    pub last: Vec<u8>,
    /// The log time at `at`.
    pub clock: u64,
}

/// KEYS: lease, staging. ARGV: token, lease ms, "1" to start the staging
/// list afresh, then the records to append. Refused unless the lease is
/// the caller's; renews it.
const STAGE: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply("NEARDUP_LEASE the compaction lease is no longer this instance's")
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] == '1' then redis.call('DEL', KEYS[2]) end
if #ARGV > 3 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 4)) end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return redis.call('LLEN', KEYS[2])
"#;

/// KEYS: meta, log, base, docs, staging, lease. ARGV: meta, token, at,
/// last, clock, next_seq, evicted, records, entries to keep below `at`.
/// Publishes the staged base and trims the log, or (0) does nothing when
/// a base at `at` or later is published already.
const PUBLISH: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('NEARDUP_LOST the store was reset or belongs to another configuration')
end
if redis.call('GET', KEYS[6]) ~= ARGV[2] then
  return redis.error_reply("NEARDUP_LEASE the compaction lease is no longer this instance's")
end
local base = redis.call('HMGET', KEYS[3], 'first', 'at')
local first = tonumber(base[1]) or 0
local at = tonumber(ARGV[3])
if at <= (tonumber(base[2]) or 0) then
  redis.call('DEL', KEYS[5], KEYS[6])
  return 0
end
local e = redis.call('LINDEX', KEYS[2], at - 1 - first)
if (not e) or string.sub(e, 1, string.len(ARGV[4])) ~= ARGV[4] then
  return redis.error_reply('NEARDUP_LOST the log does not hold the entries the base covers')
end
if redis.call('LLEN', KEYS[5]) ~= tonumber(ARGV[8]) then
  return redis.error_reply('NEARDUP_LEASE the staged base is incomplete')
end
if tonumber(ARGV[8]) > 0 then
  redis.call('RENAME', KEYS[5], KEYS[4])
  redis.call('PERSIST', KEYS[4])
else
  redis.call('DEL', KEYS[4])
end
local keep = math.max(first, at - tonumber(ARGV[9]))
redis.call('LTRIM', KEYS[2], keep - first, -1)
redis.call('HSET', KEYS[3], 'first', keep, 'at', ARGV[3], 'last', ARGV[4],
  'clock', ARGV[5], 'next_seq', ARGV[6], 'evicted', ARGV[7], 'docs', ARGV[8])
redis.call('DEL', KEYS[6])
return 1
"#;

/// KEYS: base, docs. ARGV: the first record, how many. Returns the base's
/// position, its last token, log time, next sequence number, eviction
/// count, number of records, and the records asked for (position 0: no
/// base).
const LOAD: &str = r#"
local b = redis.call('HMGET', KEYS[1], 'at', 'last', 'clock', 'next_seq', 'evicted', 'docs')
if not b[1] then return {0, '', 0, 0, 0, 0, {}} end
local from = tonumber(ARGV[1])
local docs = redis.call('LRANGE', KEYS[2], from, from + tonumber(ARGV[2]) - 1)
return {tonumber(b[1]), b[2], tonumber(b[3]), tonumber(b[4]), tonumber(b[5]), tonumber(b[6]), docs}
"#;

/// Runs `script` once (sent whole: compaction is rare).
fn eval<T: FromRedisValue>(
    log: &Log,
    script: &str,
    keys: &[&str],
    args: &[&[u8]],
) -> Result<T, Error> {
    log.primary.with(|c, asking| {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(script).arg(keys.len());
        for k in keys {
            cmd.arg(*k);
        }
        for a in args {
            cmd.arg(*a);
        }
        let mut pipe = redis::pipe();
        asking.prefix(&mut pipe).add_command(cmd);
        pipe.query::<(T,)>(c).map(|(v,)| v)
    })
}

/// Takes the compaction lease with `token`; false when another holds it.
pub(crate) fn acquire(log: &Log, token: &str) -> Result<bool, Error> {
    let got: Option<String> = log.primary.with(|c, asking| {
        let mut pipe = redis::pipe();
        asking
            .prefix(&mut pipe)
            .cmd("SET")
            .arg(LEASE_KEY)
            .arg(token)
            .arg("NX")
            .arg("PX")
            .arg(LEASE_MS);
        pipe.query::<(Option<String>,)>(c).map(|(v,)| v)
    })?;
    Ok(got.is_some())
}

/// Writes `base` at `at` under the lease of `token`, then publishes it
/// and trims the log, keeping `keep` entries below `at`. False when a
/// base at `at` or later was published already.
pub(crate) fn publish(
    log: &Log,
    token: &str,
    at: &BaseAt,
    base: &Base,
    keep: u64,
) -> Result<bool, Error> {
    let ms = LEASE_MS.to_string();
    let mut chunks = base.docs.chunks(CHUNK).peekable();
    let mut fresh = true;
    while fresh || chunks.peek().is_some() {
        let flag: &[u8] = if fresh { b"1" } else { b"0" };
        let records: Vec<Vec<u8>> = chunks
            .next()
            .unwrap_or_default()
            .iter()
            .map(|(id, r)| record(id, r))
            .collect();
        let mut args: Vec<&[u8]> = vec![token.as_bytes(), ms.as_bytes(), flag];
        args.extend(records.iter().map(Vec::as_slice));
        eval::<u64>(log, STAGE, &[LEASE_KEY, STAGING_KEY], &args)?;
        fresh = false;
    }
    let count = base.docs.len() as u64;
    let nums = [at.at, at.clock, base.next_seq, base.evicted, count, keep].map(|n| n.to_string());
    let done: u8 = eval(
        log,
        PUBLISH,
        &[
            META_KEY,
            LOG_KEY,
            BASE_KEY,
            DOCS_KEY,
            STAGING_KEY,
            LEASE_KEY,
        ],
        &[
            &log.meta,
            token.as_bytes(),
            nums[0].as_bytes(),
            &at.last,
            nums[1].as_bytes(),
            nums[2].as_bytes(),
            nums[3].as_bytes(),
            nums[4].as_bytes(),
            nums[5].as_bytes(),
        ],
    )?;
    Ok(done == 1)
}

/// The published base, read in chunks (again from the start, a bounded
/// number of times, when another is published meanwhile); `None` when
/// the log was never compacted.
pub(crate) fn load(log: &Log) -> Result<Option<(BaseAt, Base)>, Error> {
    type Chunk = (u64, Vec<u8>, u64, u64, u64, u64, Vec<Vec<u8>>);
    for _ in 0..8 {
        let mut base = Base::default();
        let mut head: Option<(BaseAt, u64)> = None;
        loop {
            let from = base.docs.len().to_string();
            let n = CHUNK.to_string();
            let (at, last, clock, next_seq, evicted, count, docs): Chunk = eval(
                log,
                LOAD,
                &[BASE_KEY, DOCS_KEY],
                &[from.as_bytes(), n.as_bytes()],
            )?;
            if at == 0 {
                return Ok(None);
            }
            let here = BaseAt { at, last, clock };
            match &head {
                Some((h, _)) if *h != here => break,
                Some(_) => {}
                None => {
                    base.next_seq = next_seq;
                    base.evicted = evicted;
                    head = Some((here, count));
                }
            }
            let got = docs.len();
            for d in docs {
                base.docs.push(unrecord(&d)?);
            }
            let Some((h, count)) = &head else { break };
            if base.docs.len() as u64 >= *count || got == 0 {
                if base.docs.len() as u64 != *count {
                    break;
                }
                return Ok(Some((h.clone(), base)));
            }
        }
    }
    Err(Error::new(ErrorKind::SharedStore(format!(
        "{}: the log's base changed at every attempt to read it",
        log.url()
    ))))
}

/// A base record: the id's length and bytes, then the record.
fn record(id: &str, r: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + id.len() + r.len());
    out.extend_from_slice(&(id.len() as u32).to_le_bytes());
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(r);
    out
}

/// Reads [`record`].
fn unrecord(b: &[u8]) -> Result<(String, Vec<u8>), Error> {
    let bad = || {
        Error::new(ErrorKind::SharedStore(
            "a base record cannot be read".into(),
        ))
    };
    let n = b
        .get(..4)
        .map(|n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize)
        .ok_or_else(bad)?;
    let id = b.get(4..4 + n).ok_or_else(bad)?;
    let id = String::from_utf8(id.to_vec()).map_err(|_| bad())?;
    Ok((id, b[4 + n..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_cuts_are_refused() {
        let r = record("doc-é", b"\x01record");
        assert_eq!(
            unrecord(&r).unwrap(),
            ("doc-é".to_string(), b"\x01record".to_vec())
        );
        assert!(unrecord(&r[..3]).is_err());
        assert!(unrecord(&r[..6]).is_err());
    }

    #[test]
    fn compaction_is_due_past_twice_the_live_set() {
        assert!(!due(2 * MIN_LIVE, 0));
        assert!(due(2 * MIN_LIVE + 1, 10));
        assert!(!due(20_000, 10_000) && due(20_001, 10_000));
        assert_eq!(keep(10_000), 5_000);
        assert_eq!(keep(3), MIN_LIVE / 2);
    }
}
