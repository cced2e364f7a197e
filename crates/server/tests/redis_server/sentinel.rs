//! A real Sentinel deployment on free loopback ports: one primary, two
//! replicas, and 3 sentinels (`redis-server --sentinel`, their config files
//! in a temporary directory) with a quorum of 2 and a 1 s down-after, so
//! that a killed primary is replaced within a few seconds. The data
//! nodes and the sentinels may each require a password
//! ([`Sentinels::start_with_passwords`]), the sentinels as an ACL user of
//! their own, their `default` user off ([`Sentinels::start_with_acl_user`]).
//! Every process is killed when it is dropped.
// Shared with the CLI's tests, which use only some of it.
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};

use neardup_testkit::TempDir;

use super::{free_port, wait_until, RedisServer};

/// The master's name the sentinels watch.
pub const MASTER: &str = "neardup";

/// A running deployment.
pub struct Sentinels {
    /// The primary and the replicas, as started (the roles change).
    pub data: Vec<RedisServer>,
    sentinels: Vec<(Child, u16)>,
    /// The sentinels' own user and password (`default` with
    /// `requirepass`, or an ACL user).
    sentinel_auth: Option<(String, String)>,
    _dir: TempDir,
}

fn sentinel_query(
    port: u16,
    login: Option<&(String, String)>,
    args: &[&str],
) -> Option<redis::Value> {
    let auth = login.map_or(String::new(), |(u, p)| format!("{u}:{p}@"));
    let client = redis::Client::open(format!("redis://{auth}127.0.0.1:{port}")).ok()?;
    let mut c = client
        .get_connection_with_timeout(std::time::Duration::from_secs(1))
        .ok()?;
    let mut cmd = redis::cmd("SENTINEL");
    for a in args {
        cmd.arg(*a);
    }
    cmd.query(&mut c).ok()
}

impl Sentinels {
    /// Starts the primary, its 2 replicas (in sync), and 3 sentinels
    /// that know them and each other. With two replicas, the one that is
    /// not promoted in a failover replicates the new primary at once.
    pub fn start(name: &str) -> Sentinels {
        Sentinels::start_with_passwords(name, None, None)
    }

    /// As [`Sentinels::start`], the data nodes requiring `data` (and
    /// replicating with it), the sentinels requiring `sentinel` (and
    /// talking to each other with it).
    pub fn start_with_passwords(
        name: &str,
        data_password: Option<&str>,
        sentinel: Option<&str>,
    ) -> Sentinels {
        let auth = sentinel.map(|s| format!("requirepass {s}\nsentinel sentinel-pass {s}\n"));
        let login = sentinel.map(|s| ("default".to_string(), s.to_string()));
        Sentinels::start_with_auth(name, data_password, auth, login)
    }

    /// As [`Sentinels::start`], the sentinels' `default` user off and an
    /// ACL user `user` with `password` theirs (which they also use
    /// between themselves).
    pub fn start_with_acl_user(name: &str, user: &str, password: &str) -> Sentinels {
        let auth = format!(
            "user default off\nuser {user} on >{password} ~* &* +@all\n\
             sentinel sentinel-user {user}\nsentinel sentinel-pass {password}\n"
        );
        let login = (user.to_string(), password.to_string());
        Sentinels::start_with_auth(name, None, Some(auth), Some(login))
    }

    fn start_with_auth(
        name: &str,
        data_password: Option<&str>,
        sentinel_conf: Option<String>,
        login: Option<(String, String)>,
    ) -> Sentinels {
        let data = data_password;
        let primary = RedisServer::start_with(&format!("{name}-p"), data, &["--appendonly", "no"]);
        let p = primary.port.to_string();
        let mut data_nodes = vec![primary];
        let masterauth: Vec<&str> = data.map_or(Vec::new(), |d| vec!["--masterauth", d]);
        for i in 0..2 {
            let mut extra = vec!["--appendonly", "no", "--replicaof", "127.0.0.1", p.as_str()];
            extra.extend(&masterauth);
            let replica = RedisServer::start_with(&format!("{name}-r{i}"), data, &extra);
            wait_until(20, "a replica in sync", || {
                replica
                    .info("replication", "master_link_status")
                    .is_some_and(|s| s == "up")
            });
            data_nodes.push(replica);
        }
        let data = data_nodes;
        let mut auth = String::new();
        if let Some(d) = data_password {
            auth.push_str(&format!("sentinel auth-pass {MASTER} {d}\n"));
        }
        if let Some(conf) = &sentinel_conf {
            auth.push_str(conf);
        }
        let dir = TempDir::new(&format!("sentinels-{name}"));
        let sentinels: Vec<(Child, u16)> = (0..3)
            .map(|i| {
                let port = free_port();
                let conf = dir.join(format!("sentinel-{i}.conf"));
                std::fs::write(
                    &conf,
                    format!(
                        "port {port}\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\n\
                         dir {}\n\
                         sentinel monitor {MASTER} 127.0.0.1 {p} 2\n\
                         sentinel down-after-milliseconds {MASTER} 1000\n\
                         sentinel failover-timeout {MASTER} 5000\n\
                         sentinel parallel-syncs {MASTER} 1\n{auth}",
                        dir.display()
                    ),
                )
                .unwrap();
                let child = Command::new("redis-server")
                    .arg(&conf)
                    .arg("--sentinel")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("starting redis-server --sentinel");
                (child, port)
            })
            .collect();
        let s = Sentinels {
            data,
            sentinels,
            sentinel_auth: login,
            _dir: dir,
        };
        wait_until(30, "sentinels that know each other and the replica", || {
            s.sentinels.iter().all(|(_, port)| {
                let count =
                    |what| match sentinel_query(*port, s.sentinel_auth.as_ref(), &[what, MASTER]) {
                        Some(redis::Value::Array(a)) => a.len(),
                        _ => 0,
                    };
                count("sentinels") == 2 && count("replicas") == 2
            })
        });
        s
    }

    /// `redis+sentinel://` with the 3 sentinels.
    pub fn url(&self) -> String {
        let list: Vec<String> = self
            .sentinels
            .iter()
            .map(|(_, p)| format!("127.0.0.1:{p}"))
            .collect();
        format!("redis+sentinel://{}/{MASTER}", list.join(","))
    }

    /// The master's port, as the first sentinel that answers says.
    pub fn master_port(&self) -> Option<u16> {
        self.sentinels.iter().find_map(|(_, port)| {
            let v = sentinel_query(
                *port,
                self.sentinel_auth.as_ref(),
                &["get-master-addr-by-name", MASTER],
            )?;
            let (_, p): (String, u16) = redis::from_redis_value(v).ok()?;
            Some(p)
        })
    }

    /// The data node that is the master now.
    pub fn master(&self) -> usize {
        let p = self.master_port().expect("a master");
        self.data
            .iter()
            .position(|d| d.port == p)
            .expect("a known node")
    }

    /// Waits until the sentinels name another master than node `old`.
    pub fn wait_failover(&self, old: usize) -> usize {
        let old = self.data[old].port;
        wait_until(30, "the sentinels' failover", || {
            self.master_port().is_some_and(|p| p != old)
        });
        self.master()
    }
}

impl Drop for Sentinels {
    fn drop(&mut self) {
        for (c, _) in &mut self.sentinels {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
