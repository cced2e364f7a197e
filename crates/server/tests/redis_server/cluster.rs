//! A real Redis Cluster of 3 primaries and 3 replicas on free loopback
//! ports, made with `redis-cli --cluster create`, with a given node
//! timeout (1 s: a killed primary's replica takes over within a few
//! seconds; longer where a busy machine must not cause a failover). Its
//! nodes are killed when it is dropped.

use std::process::{Command, Stdio};

use super::{wait_until, RedisServer};

/// The slot of `{neardup}` (CLUSTER KEYSLOT).
pub const SLOT: u16 = 3979;

/// A running cluster.
pub struct Cluster {
    pub nodes: Vec<RedisServer>,
}

impl Cluster {
    /// Starts 6 nodes and makes them a cluster (3 primaries, each with a
    /// replica), then waits until every node says `cluster_state:ok` and
    /// the primary of [`SLOT`] has its replica in sync.
    pub fn start(name: &str, node_timeout_ms: u32) -> Cluster {
        let timeout = node_timeout_ms.to_string();
        let nodes: Vec<RedisServer> = (0..6)
            .map(|i| {
                RedisServer::start_with(
                    &format!("{name}-{i}"),
                    None,
                    &[
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        &timeout,
                        "--appendonly",
                        "no",
                    ],
                )
            })
            .collect();
        let mut cmd = Command::new("redis-cli");
        cmd.arg("--cluster").arg("create");
        for n in &nodes {
            cmd.arg(format!("127.0.0.1:{}", n.port));
        }
        let out = cmd
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .expect("running redis-cli --cluster create");
        assert!(
            out.status.success(),
            "redis-cli --cluster create: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let cluster = Cluster { nodes };
        wait_until(30, "cluster_state:ok on every node", || {
            cluster.nodes.iter().all(|n| {
                redis::cmd("CLUSTER")
                    .arg("INFO")
                    .query::<String>(&mut n.connection())
                    .is_ok_and(|i| i.contains("cluster_state:ok"))
            })
        });
        cluster.wait_replicated();
        cluster
    }

    /// `redis+cluster://` with every node as a seed.
    pub fn url(&self) -> String {
        let seeds: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        format!("redis+cluster://{}", seeds.join(","))
    }

    /// The node that owns [`SLOT`] as a primary, as a running node sees
    /// it (`CLUSTER NODES`), if any.
    pub fn owner(&self) -> Option<usize> {
        let asked = self.nodes.iter().find(|n| n.running())?;
        let nodes: String = redis::cmd("CLUSTER")
            .arg("NODES")
            .query(&mut asked.connection())
            .ok()?;
        let line = nodes.lines().find(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            f.len() > 8
                && f[2].contains("master")
                && !f[2].contains("fail")
                && f[8..].iter().any(|r| {
                    let (a, b) = r.split_once('-').unwrap_or((r, r));
                    matches!((a.parse::<u16>(), b.parse::<u16>()), (Ok(a), Ok(b)) if (a..=b).contains(&SLOT))
                })
        })?;
        let port: u16 = line
            .split(' ')
            .nth(1)?
            .split(['@', ':'])
            .nth(1)?
            .parse()
            .ok()?;
        self.nodes.iter().position(|n| n.port == port)
    }

    /// Waits until the primary of [`SLOT`] has a replica in sync.
    pub fn wait_replicated(&self) {
        wait_until(30, "a replica in sync with the slot's primary", || {
            self.owner().is_some_and(|o| {
                let n = &self.nodes[o];
                n.running()
                    && n.info("replication", "slave0")
                        .is_some_and(|s| s.contains("state=online"))
            })
        });
    }

    /// Kills the primary of [`SLOT`] (SIGKILL); its index.
    pub fn kill_owner(&mut self) -> usize {
        let o = self.owner().expect("a primary owns the slot");
        self.nodes[o].kill();
        o
    }

    /// Waits until another node than `old` owns [`SLOT`] as a primary.
    pub fn wait_failover(&self, old: usize) -> usize {
        let mut new = None;
        wait_until(30, "a replica promoted", || {
            new = self
                .owner()
                .filter(|o| *o != old && self.nodes[*o].running());
            new.is_some()
        });
        new.unwrap()
    }

    /// The log's ids on the primary of [`SLOT`].
    pub fn logged_ids(&self) -> Vec<String> {
        let o = self.owner().expect("a primary owns the slot");
        super::logged_ids(&mut self.nodes[o].connection())
    }
}
