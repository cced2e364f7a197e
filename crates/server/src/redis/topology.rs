//! Finding the primary that holds the log: the URL's server; on Redis
//! Cluster, the primary that owns the slot of the hash tag `{neardup}`
//! (`CLUSTER SLOTS`, asked of the seeds and of the nodes learned); with
//! Sentinel, the master the sentinels name. Every candidate must say it
//! is a primary (`ROLE`) before it is used. Replies are read without
//! trusting them: a node answering garbage is skipped, never a panic.

use std::time::Duration;

use redis::Value;

use crate::redis::url::{StoreUrl, Topology};

/// How long discovery waits for one node.
const NODE_TIMEOUT: Duration = Duration::from_secs(1);

/// CRC16/XMODEM, Redis Cluster's key hash.
const fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    let mut i = 0;
    while i < bytes.len() {
        crc ^= (bytes[i] as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        i += 1;
    }
    crc
}

/// The Cluster slot of every key of the store (hash tag `{neardup}`).
pub(crate) const SLOT: u16 = crc16(b"neardup") % 16384;

/// A node's address.
pub(crate) type Addr = (String, u16);

/// The primary found: its address and client.
pub(crate) struct Found {
    pub addr: Addr,
    pub client: redis::Client,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => String::from_utf8(b.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        other => text(other)?.parse().ok(),
    }
}

fn connect(client: &redis::Client) -> Result<redis::Connection, String> {
    let c = client
        .get_connection_with_timeout(NODE_TIMEOUT)
        .map_err(|e| short(&e))?;
    c.set_read_timeout(Some(NODE_TIMEOUT))
        .and_then(|()| c.set_write_timeout(Some(NODE_TIMEOUT)))
        .map_err(|e| short(&e))?;
    Ok(c)
}

/// Whether an I/O error is TLS's (a certificate not trusted, a
/// handshake refused): rustls says so in its message.
fn is_tls_failure(e: &redis::RedisError) -> bool {
    let text = e.to_string();
    [
        "certificate",
        "TLS",
        "handshake",
        "alert",
        "Unable to parse",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// A Redis error in a few words, without any secret.
pub(crate) fn short(e: &redis::RedisError) -> String {
    if e.is_io_error() && is_tls_failure(e) {
        return format!("TLS failed: {}", first_line(&e.to_string()));
    }
    if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() {
        return "unreachable".into();
    }
    if e.kind() == redis::ErrorKind::Parse {
        return "it answered something that is not the Redis protocol".into();
    }
    // One line of at most 200 characters of what a server said (or of
    // the client's error: redis-rs's messages name no secret).
    let text = match e.code() {
        Some(_) => e.detail().unwrap_or_default().to_string(),
        None => e.to_string(),
    };
    let detail = first_line(&text);
    match e.code() {
        Some(code) => format!("{code} {detail}"),
        None => detail,
    }
}

/// The first line of `text`, at most 200 characters of it.
fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(200)
        .collect()
}

/// The number of replicas in a `ROLE` reply, or why it is not a
/// primary's.
pub(crate) fn role_replicas(role: &Value) -> Result<u32, String> {
    let Value::Array(parts) = role else {
        return Err("ROLE answered no array".into());
    };
    match parts.first().and_then(text).as_deref() {
        Some("master") => {}
        Some(other) => return Err(format!("it is a {other}, not a primary")),
        None => return Err("ROLE answered no role".into()),
    }
    Ok(match parts.get(2) {
        Some(Value::Array(r)) => u32::try_from(r.len()).unwrap_or(u32::MAX),
        _ => 0,
    })
}

/// A client of the node at `addr` once it says it is a primary.
fn primary(url: &StoreUrl, addr: &Addr) -> Result<redis::Client, String> {
    let client = url
        .node_client(&addr.0, addr.1, false)
        .map_err(|e| short(&e))?;
    let mut c = connect(&client)?;
    let role: Value = redis::cmd("ROLE").query(&mut c).map_err(|e| short(&e))?;
    role_replicas(&role)?;
    Ok(client)
}

/// The owner of [`SLOT`] in a `CLUSTER SLOTS` reply, and every node it
/// names; `asked` stands for a node given as an empty host.
fn slot_owner(reply: &Value, asked: &Addr) -> (Option<Addr>, Vec<Addr>) {
    let node = |v: &Value| -> Option<Addr> {
        let Value::Array(n) = v else { return None };
        let host = text(n.first()?)?;
        let port = u16::try_from(int(n.get(1)?)?).ok()?;
        match host.as_str() {
            "?" => None,
            "" => Some((asked.0.clone(), port)),
            _ => Some((host, port)),
        }
    };
    let (mut owner, mut all) = (None, Vec::new());
    let Value::Array(ranges) = reply else {
        return (None, all);
    };
    for range in ranges {
        let Value::Array(r) = range else { continue };
        let (Some(start), Some(end)) = (r.first().and_then(int), r.get(1).and_then(int)) else {
            continue;
        };
        let nodes: Vec<Addr> = r.iter().skip(2).filter_map(node).collect();
        if (start..=end).contains(&i64::from(SLOT)) && r.get(2).and_then(node).is_some() {
            owner = r.get(2).and_then(node);
        }
        all.extend(nodes);
    }
    (owner, all)
}

/// Finds the primary: `hint` (a redirection) first, then the URL's
/// nodes, then `learned` (nodes named by earlier answers, extended
/// here). The error says what each node answered (no secret).
pub(crate) fn discover(
    url: &StoreUrl,
    hint: Option<&Addr>,
    learned: &mut Vec<Addr>,
) -> Result<Found, String> {
    let mut why = Vec::new();
    match &url.topology {
        Topology::Standalone => {
            let addr = url.nodes[0].clone();
            let client = url
                .node_client(&addr.0, addr.1, false)
                .map_err(|e| short(&e))?;
            return Ok(Found { addr, client });
        }
        Topology::Cluster => {
            let mut candidates: Vec<Addr> = hint.into_iter().cloned().collect();
            candidates.extend(url.nodes.iter().cloned());
            candidates.extend(learned.iter().cloned());
            let mut tried = Vec::new();
            for addr in candidates {
                if tried.contains(&addr) {
                    continue;
                }
                tried.push(addr.clone());
                let owner = if hint == Some(&addr) {
                    Ok(addr.clone())
                } else {
                    ask_slots(url, &addr, learned)
                };
                match owner.and_then(|o| primary(url, &o).map(|c| (o, c))) {
                    Ok((addr, client)) => return Ok(Found { addr, client }),
                    Err(e) => why.push(format!("{}:{}: {e}", addr.0, addr.1)),
                }
            }
        }
        Topology::Sentinel(master) => {
            for addr in &url.nodes {
                match ask_sentinel(url, addr, master).and_then(|o| primary(url, &o).map(|c| (o, c)))
                {
                    Ok((addr, client)) => return Ok(Found { addr, client }),
                    Err(e) => why.push(format!("{}:{}: {e}", addr.0, addr.1)),
                }
            }
        }
    }
    Err(format!("no primary found ({})", why.join("; ")))
}

/// The owner of [`SLOT`] according to the node at `addr`.
fn ask_slots(url: &StoreUrl, addr: &Addr, learned: &mut Vec<Addr>) -> Result<Addr, String> {
    let client = url
        .node_client(&addr.0, addr.1, false)
        .map_err(|e| short(&e))?;
    let mut c = connect(&client)?;
    let reply: Value = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query(&mut c)
        .map_err(|e| short(&e))?;
    let (owner, nodes) = slot_owner(&reply, addr);
    for n in nodes {
        if !learned.contains(&n) && learned.len() < 1000 {
            learned.push(n);
        }
    }
    owner.ok_or_else(|| format!("no node owns slot {SLOT}"))
}

/// The master's address according to the sentinel at `addr`.
fn ask_sentinel(url: &StoreUrl, addr: &Addr, master: &str) -> Result<Addr, String> {
    let client = url
        .node_client(&addr.0, addr.1, true)
        .map_err(|e| short(&e))?;
    let mut c = connect(&client)?;
    let reply: Value = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg(master)
        .query(&mut c)
        .map_err(|e| short(&e))?;
    let Value::Array(parts) = reply else {
        return Err(format!("it knows no master {master:?}"));
    };
    let host = parts.first().and_then(text);
    let port = parts
        .get(1)
        .and_then(int)
        .and_then(|p| u16::try_from(p).ok());
    match (host, port) {
        (Some(h), Some(p)) if !h.is_empty() => Ok((h, p)),
        _ => Err("it answered no address".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_is_redis_clusters() {
        // CLUSTER KEYSLOT {neardup}:log; the reference vector of CRC16/XMODEM.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(SLOT, 3979);
    }

    #[test]
    fn garbage_slot_replies_give_no_owner() {
        let asked = ("seed".to_string(), 1);
        let bulk = |s: &str| Value::BulkString(s.as_bytes().to_vec());
        for reply in [
            Value::Nil,
            Value::Int(3),
            Value::Array(vec![Value::Int(1)]),
            Value::Array(vec![Value::Array(vec![Value::Int(0), Value::Int(16383)])]),
            Value::Array(vec![Value::Array(vec![
                Value::Int(0),
                Value::Int(16383),
                Value::Array(vec![bulk("h"), Value::Int(70000)]),
            ])]),
            Value::Array(vec![Value::Array(vec![
                Value::Int(0),
                Value::Int(100),
                Value::Array(vec![bulk("h"), Value::Int(7000)]),
            ])]),
        ] {
            assert_eq!(slot_owner(&reply, &asked).0, None, "{reply:?}");
        }
        let good = Value::Array(vec![Value::Array(vec![
            Value::Int(3000),
            Value::Int(5000),
            Value::Array(vec![bulk(""), Value::Int(7001), bulk("id")]),
            Value::Array(vec![bulk("r"), Value::Int(7004), bulk("id2")]),
        ])]);
        let (owner, all) = slot_owner(&good, &asked);
        assert_eq!(owner, Some(("seed".to_string(), 7001)));
        assert_eq!(all.len(), 2);
    }
}
