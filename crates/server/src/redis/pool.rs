//! [`Primary`]: pooled connections to the primary that holds the log,
//! found again ([`topology`]) when it moves: on Redis Cluster a `MOVED`,
//! `CLUSTERDOWN`, `TRYAGAIN` or `READONLY` reply, with Sentinel a
//! `READONLY` or `MASTERDOWN` one, or a connection that cannot be made.
//! Such a call was not run, so it is tried again, a bounded number of
//! times, before the caller gets a 503. An `ASK` reply (the slot is being
//! migrated) sends the call to the node it names, each command after
//! `ASKING`; the `TRYAGAIN` or `MOVED` that node may answer (the keys of
//! the call split between the two nodes, or the migration over) is tried
//! again in the same bounds. A connection that fails once the call is
//! sent is not retried (the call may have run): the caller gets a 503 at
//! once, and the next call finds the primary again.

use std::sync::Mutex;
use std::time::Duration;

use crate::error::{Error, ErrorKind};
use crate::redis::topology::{self, Addr};
use crate::redis::url::{StoreUrl, Topology};

/// How long a call waits for the server before it fails (503).
const TIMEOUT: Duration = Duration::from_secs(5);

/// Calls tried on Cluster or Sentinel before a 503 (discovery each
/// time), and the pause before the second one (doubled after).
const ATTEMPTS: u32 = 4;
const BACKOFF: Duration = Duration::from_millis(100);

/// Replies that say a call was not run here, and the primary must be
/// found again.
const MOVE_ON: [&str; 6] = [
    "MOVED",
    "CLUSTERDOWN",
    "TRYAGAIN",
    "READONLY",
    "MASTERDOWN",
    "LOADING",
];

/// A Redis error as a service error, without the URL's credentials.
pub(crate) fn unavailable(url: &StoreUrl, e: &redis::RedisError) -> Error {
    let what = match e.code() {
        Some("NEARDUP_LOST") => format!(
            "{}: this instance has applied entries the store no longer holds (a server restarted without them, or a failover to a replica that had not received them); restart it to replay the store's log",
            e.detail().unwrap_or("the store lost entries")
        ),
        Some("NEARDUP_UNREPLICATED") => e.detail().unwrap_or_default().to_string(),
        _ => topology::short(e),
    };
    Error::new(ErrorKind::SharedStore(format!("{url}: {what}")))
}

/// The node a `MOVED` or `ASK` reply names (`SLOT HOST:PORT`).
fn redirect(e: &redis::RedisError) -> Option<Addr> {
    let (addr, _slot) = e.redirect_node()?;
    let (host, port) = addr.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Some((host.to_string(), port.parse().ok()?))
}

/// The primary in use and what discovery learned.
struct State {
    /// The primary's address and client, with their generation.
    current: Option<(u64, Addr, redis::Client)>,
    generation: u64,
    /// Where a `MOVED` reply pointed.
    hint: Option<Addr>,
    /// Cluster nodes named by `CLUSTER SLOTS`.
    learned: Vec<Addr>,
}

/// Connections to the primary that holds the log.
pub(crate) struct Primary {
    url: StoreUrl,
    state: Mutex<State>,
    idle: Mutex<Vec<(u64, redis::Connection)>>,
}

impl Primary {
    pub fn new(url: &StoreUrl) -> Primary {
        Primary {
            url: url.clone(),
            state: Mutex::new(State {
                current: None,
                generation: 0,
                hint: None,
                learned: Vec::new(),
            }),
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The store, for messages (no password).
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// A connection to the primary: an idle one, else a new one (found
    /// again first if needed). The error says why none could be made.
    fn connection(&self) -> Result<(u64, redis::Connection), String> {
        let (generation, client) = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if s.current.is_none() {
                let hint = s.hint.take();
                let mut learned = std::mem::take(&mut s.learned);
                let found = topology::discover(&self.url, hint.as_ref(), &mut learned);
                s.learned = learned;
                let found = found?;
                s.generation += 1;
                s.current = Some((s.generation, found.addr, found.client));
            }
            let Some((g, _, client)) = &s.current else {
                return Err("no primary".into());
            };
            (*g, client.clone())
        };
        {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            idle.retain(|(g, _)| *g == generation);
            if let Some(c) = idle.pop() {
                return Ok(c);
            }
        }
        let made = client.get_connection_with_timeout(TIMEOUT).and_then(|c| {
            c.set_read_timeout(Some(TIMEOUT))?;
            c.set_write_timeout(Some(TIMEOUT))?;
            Ok(c)
        });
        match made {
            Ok(c) => Ok((generation, c)),
            Err(e) => {
                self.forget(generation, None);
                Err(topology::short(&e))
            }
        }
    }

    /// Stops using the primary of `generation`: the next call finds one
    /// again (starting with `hint`).
    fn forget(&self, generation: u64, hint: Option<Addr>) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.current.as_ref().is_some_and(|(g, _, _)| *g == generation) {
            s.current = None;
        }
        if hint.is_some() {
            s.hint = hint;
        }
        drop(s);
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        idle.retain(|(g, _)| *g != generation);
    }

    fn keep(&self, generation: u64, conn: redis::Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        idle.push((generation, conn));
    }

    /// Runs `f` on a connection to the primary, found again and tried
    /// again (bounded) while the answer says that it was not run there.
    /// `f`'s [`Asking`] says whether each of its commands must follow
    /// `ASKING` (see [`Asking::prefix`]).
    pub fn with<T>(
        &self,
        mut f: impl FnMut(&mut redis::Connection, Asking) -> redis::RedisResult<T>,
    ) -> Result<T, Error> {
        let attempts = match self.url.topology {
            Topology::Standalone => 1,
            _ => ATTEMPTS,
        };
        let failed =
            |why: String| Error::new(ErrorKind::SharedStore(format!("{}: {why}", self.url)));
        let mut last = failed("no attempt".into());
        for attempt in 0..attempts {
            if attempt > 0 {
                std::thread::sleep(BACKOFF * (1 << (attempt - 1)));
            }
            let (generation, mut conn) = match self.connection() {
                Ok(c) => c,
                Err(why) => {
                    last = failed(why);
                    continue;
                }
            };
            let e = match f(&mut conn, Asking(false)) {
                Ok(v) => {
                    self.keep(generation, conn);
                    return Ok(v);
                }
                Err(e) => e,
            };
            if e.code() == Some("ASK") {
                self.keep(generation, conn);
                match self.asking(&e, &mut f) {
                    Ok(v) => return Ok(v),
                    // Not run there: tried again like any other.
                    Err(again) if again.code().is_some_and(|c| MOVE_ON.contains(&c)) => {
                        self.forget(generation, None);
                        last = failed(format!("after ASK: {}", topology::short(&again)));
                        continue;
                    }
                    Err(other) => return Err(unavailable(&self.url, &other)),
                }
            }
            match e.code() {
                Some(code) if MOVE_ON.contains(&code) => {
                    let hint = redirect(&e);
                    self.forget(generation, hint);
                    last = failed(topology::short(&e));
                }
                // Not run either; maybe a node that restarted empty and
                // does not know yet that it lost its slots: another
                // discovery may find the primary that holds the log.
                Some("NEARDUP_LOST") if attempts > 1 => {
                    self.forget(generation, None);
                    last = unavailable(&self.url, &e);
                }
                _ if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() => {
                    self.forget(generation, None);
                    return Err(unavailable(&self.url, &e));
                }
                _ => {
                    // A server error reply leaves the connection usable.
                    self.keep(generation, conn);
                    return Err(unavailable(&self.url, &e));
                }
            }
        }
        Err(last)
    }

    /// Runs `f` once on the node an `ASK` reply names (the slot is being
    /// migrated there), each of its commands after `ASKING`.
    fn asking<T>(
        &self,
        ask: &redis::RedisError,
        f: &mut impl FnMut(&mut redis::Connection, Asking) -> redis::RedisResult<T>,
    ) -> redis::RedisResult<T> {
        let Some((host, port)) = redirect(ask) else {
            return Err(ask.clone());
        };
        let client = self.url.node_client(&host, port, false)?;
        let mut c = client.get_connection_with_timeout(TIMEOUT)?;
        c.set_read_timeout(Some(TIMEOUT))?;
        c.set_write_timeout(Some(TIMEOUT))?;
        f(&mut c, Asking(true))
    }
}

/// Whether a call goes to the node an `ASK` reply named: there, every
/// command on a key of the migrating slot must follow `ASKING` (which
/// holds for one command only, so a pipeline of several, or a script
/// sent again after `NOSCRIPT`, needs it before each).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asking(bool);

impl Asking {
    /// Adds `ASKING` (its reply ignored) to `pipe` when asking: call it
    /// before each command on a key.
    pub fn prefix(self, pipe: &mut redis::Pipeline) -> &mut redis::Pipeline {
        if self.0 {
            pipe.cmd("ASKING").ignore();
        }
        pipe
    }
}
