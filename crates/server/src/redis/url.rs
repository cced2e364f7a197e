//! [`StoreUrl`]: where the shared store is, parsed from one of
//! `redis://[USER:PASS@]HOST:PORT[/DB]` (one server),
//! `redis+cluster://[USER:PASS@]H1:P1,H2:P2,...` (Redis Cluster seeds) or
//! `redis+sentinel://[USER:PASS@]S1:P1,S2:P2,.../MASTER[/DB]` (Sentinel),
//! `valkey` for `redis` alike, and `rediss` (`valkeys`) in each for TLS,
//! with its credentials kept out of every message: its `Display` and
//! `Debug` show `***` for the password.

use std::fmt;

use crate::error::{Error, ErrorKind};

/// How the primary that holds the log is found.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Topology {
    /// One server, the URL's only node.
    Standalone,
    /// The URL's nodes are Cluster seeds: the primary is the owner of the
    /// slot of `{neardup}`.
    Cluster,
    /// The URL's nodes are sentinels, asked for this master's address.
    Sentinel(String),
}

/// A Redis or Valkey deployment (one server, a Cluster, or a primary
/// watched by sentinels) and how to log in to it.
#[derive(Clone, PartialEq, Eq)]
pub struct StoreUrl {
    pub(crate) topology: Topology,
    /// The server, the Cluster seeds, or the sentinels.
    pub(crate) nodes: Vec<(String, u16)>,
    pub(crate) db: i64,
    pub(crate) username: Option<String>,
    pub(crate) password: Option<String>,
    /// The sentinels' own ACL user (a `user` line in sentinel.conf),
    /// else their `default` user; never in the URL.
    pub(crate) sentinel_username: Option<String>,
    /// The sentinels' own password (`requirepass`, or their ACL user's),
    /// never in the URL.
    pub(crate) sentinel_password: Option<String>,
    /// `rediss`: every node (sentinels too) is reached over TLS.
    pub(crate) tls: bool,
    /// The CA certificates to trust (PEM), else the system's roots.
    pub(crate) tls_ca: Option<Vec<u8>>,
    /// A client certificate chain and its private key (PEM), for servers
    /// that require one (`tls-auth-clients yes`).
    pub(crate) tls_client: Option<(Vec<u8>, Vec<u8>)>,
    /// Replicas that must confirm every write before it is acknowledged;
    /// `None`: 1 if the primary has a replica when the instance joins,
    /// else 0.
    pub(crate) replicas: Option<u32>,
}

fn invalid(why: impl Into<String>) -> Error {
    Error::new(ErrorKind::SharedStore(why.into()))
}

const FORMS: &str = "redis://HOST:PORT[/DB], redis+cluster://H1:P1,H2:P2,... or redis+sentinel://S1:P1,S2:P2,.../MASTER[/DB] (rediss for TLS)";

/// Decodes `%XX` escapes (credentials may hold `@`, `:` or `/`).
fn percent_decode(s: &str) -> Result<String, Error> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| invalid("a bad %-escape in the store URL's credentials"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| invalid("the store URL's credentials are not UTF-8"))
}

/// `HOST[:PORT]`, `[V6]` or `[V6]:PORT`.
fn host_port(s: &str, default_port: u16) -> Result<(String, u16), Error> {
    let (host, port) = match s.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
            h,
            p.parse::<u16>()
                .map_err(|_| invalid(format!("the store URL's port {p:?} is not a port")))?,
        ),
        _ => (s, default_port),
    };
    if host.starts_with('[') != host.ends_with(']') || host.contains('?') {
        return Err(invalid(format!(
            "the store URL's host {host:?} is not a host"
        )));
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(invalid("the store URL has no host"));
    }
    Ok((host.to_string(), port))
}

fn database(d: &str) -> Result<i64, Error> {
    if d.is_empty() {
        return Ok(0);
    }
    d.parse::<i64>()
        .ok()
        .filter(|d| *d >= 0)
        .ok_or_else(|| invalid(format!("the store URL's database {d:?} is not a number")))
}

impl StoreUrl {
    /// Parses a store URL:
    /// - `redis://[USER:PASS@]HOST[:PORT][/DB]`: one server (port 6379,
    ///   database 0 when left out);
    /// - `redis+cluster://[USER:PASS@]H1:P1,H2:P2,...`: Redis Cluster
    ///   seed nodes (any reachable one will do; database 0 only);
    /// - `redis+sentinel://[USER:PASS@]S1:P1,S2:P2,.../MASTER[/DB]`:
    ///   sentinels (port 26379 when left out) and the master's name; the
    ///   credentials are the data nodes', the sentinels are asked without
    ///   (or with [`StoreUrl::sentinel_password_if_missing`]).
    ///
    /// `valkey` may replace `redis` in each, and `rediss` (`valkeys`) makes
    /// every connection TLS, sentinels' too (`rediss+cluster://`,
    /// `rediss+sentinel://`): the servers' certificates are checked
    /// against the system's roots, or [`StoreUrl::tls_ca`]. Errors never
    /// repeat the credentials.
    ///
    /// # Errors
    /// [`ErrorKind::SharedStore`]: a URL this build does not take.
    pub fn parse(url: &str) -> Result<StoreUrl, Error> {
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(invalid(format!("the store URL must look like {FORMS}")));
        };
        let (kind, tls) = match scheme {
            "redis" | "valkey" => (0, false),
            "redis+cluster" | "valkey+cluster" => (1, false),
            "redis+sentinel" | "valkey+sentinel" => (2, false),
            "rediss" | "valkeys" => (0, true),
            "rediss+cluster" | "valkeys+cluster" => (1, true),
            "rediss+sentinel" | "valkeys+sentinel" => (2, true),
            _ => {
                return Err(invalid(format!(
                    "unknown store URL scheme {scheme:?}: expected {FORMS}"
                )))
            }
        };
        let (auth, rest) = match rest.rsplit_once('@') {
            Some((a, r)) => (Some(a), r),
            None => (None, rest),
        };
        let (username, password) = match auth {
            None => (None, None),
            Some(a) => {
                let (u, p) = a.split_once(':').unwrap_or((a, ""));
                let u = percent_decode(u)?;
                let p = percent_decode(p)?;
                (
                    Some(u).filter(|u| !u.is_empty()),
                    Some(p).filter(|p| !p.is_empty()),
                )
            }
        };
        if rest.contains('?') || rest.contains('#') {
            return Err(invalid(format!(
                "the store URL takes no query or fragment: {FORMS}"
            )));
        }
        let (hosts, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (topology, db) = match kind {
            0 => (Topology::Standalone, database(path)?),
            1 if database(path)? == 0 => (Topology::Cluster, 0),
            1 => return Err(invalid("Redis Cluster has database 0 only")),
            _ => {
                let (master, db) = path.split_once('/').unwrap_or((path, ""));
                if master.is_empty() {
                    return Err(invalid(
                        "the Sentinel URL names no master: redis+sentinel://S1:P1,S2:P2/MASTER[/DB]",
                    ));
                }
                (Topology::Sentinel(master.to_string()), database(db)?)
            }
        };
        let default_port = if kind == 2 { 26379 } else { 6379 };
        let nodes = hosts
            .split(',')
            .map(|h| host_port(h, default_port))
            .collect::<Result<Vec<_>, Error>>()?;
        if kind == 0 && nodes.len() > 1 {
            return Err(invalid(
                "redis:// takes one HOST:PORT: use redis+cluster:// for Cluster seeds or redis+sentinel:// for sentinels",
            ));
        }
        Ok(StoreUrl {
            topology,
            nodes,
            db,
            username,
            password,
            sentinel_username: None,
            sentinel_password: None,
            tls,
            tls_ca: None,
            tls_client: None,
            replicas: None,
        })
    }

    /// Whether every connection is TLS (`rediss`).
    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// Trusts the CA certificates in `pem` (PEM, one or more) instead of
    /// the system's roots.
    ///
    /// # Errors
    /// [`ErrorKind::SharedStore`]: not a `rediss` URL, or no certificate
    /// in `pem`.
    pub fn tls_ca(&mut self, pem: Vec<u8>) -> Result<&mut StoreUrl, Error> {
        use rustls::pki_types::{pem::PemObject, CertificateDer};
        self.tls_only("a CA certificate")?;
        let certs = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(format!("not a PEM certificate: {e}")))?;
        if certs.is_empty() {
            return Err(invalid("it holds no PEM certificate"));
        }
        self.tls_ca = Some(pem);
        Ok(self)
    }

    /// Presents this client certificate chain and private key (PEM) to
    /// servers that require one (mutual TLS).
    ///
    /// # Errors
    /// [`ErrorKind::SharedStore`]: not a `rediss` URL, no certificate in
    /// `cert`, or no private key in `key` (never shown).
    pub fn tls_client(&mut self, cert: Vec<u8>, key: Vec<u8>) -> Result<&mut StoreUrl, Error> {
        use rustls::pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer};
        self.tls_only("a client certificate")?;
        let certs = CertificateDer::pem_slice_iter(&cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(format!("the client certificate is not PEM: {e}")))?;
        if certs.is_empty() {
            return Err(invalid(
                "the client certificate file holds no PEM certificate",
            ));
        }
        if PrivateKeyDer::from_pem_slice(&key).is_err() {
            return Err(invalid("the client key file holds no PEM private key"));
        }
        self.tls_client = Some((cert, key));
        Ok(self)
    }

    fn tls_only(&self, what: &str) -> Result<(), Error> {
        if self.tls {
            Ok(())
        } else {
            Err(invalid(format!(
                "{what} is for TLS: use rediss://, rediss+cluster:// or rediss+sentinel://"
            )))
        }
    }

    /// Logs in to the sentinels as this ACL user (a `user` line in their
    /// config, Redis 6.2 or later), with the sentinels' password, when no
    /// user was given before; else they are asked as their `default` user.
    pub fn sentinel_username_if_missing(&mut self, username: Option<String>) -> &mut StoreUrl {
        if self.sentinel_username.is_none() {
            self.sentinel_username = username.filter(|u| !u.is_empty());
        }
        self
    }

    /// Uses this password for the sentinels (`requirepass` in their
    /// config, or their ACL user's), when none was given before.
    pub fn sentinel_password_if_missing(&mut self, password: Option<String>) -> &mut StoreUrl {
        if self.sentinel_password.is_none() {
            self.sentinel_password = password.filter(|p| !p.is_empty());
        }
        self
    }

    /// Uses this password (from an environment variable or a file) when
    /// the URL holds none.
    pub fn password_if_missing(&mut self, password: Option<String>) -> &mut StoreUrl {
        if self.password.is_none() {
            self.password = password.filter(|p| !p.is_empty());
        }
        self
    }

    /// Acknowledges a write once `n` replicas of the primary confirm it
    /// (`WAIT`), else answers 503; `None` (the default): 1 if the primary
    /// has a replica when the instance joins, else 0.
    pub fn require_replicas(&mut self, n: Option<u32>) -> &mut StoreUrl {
        self.replicas = n;
        self
    }

    /// Whether a password will be sent.
    pub fn has_password(&self) -> bool {
        self.password.is_some()
    }

    /// A client of the node at `host:port`: a data node (the URL's
    /// database and credentials), or with `sentinel` a sentinel (its own
    /// password, if any); over TLS with `rediss`.
    pub(crate) fn node_client(
        &self,
        host: &str,
        port: u16,
        sentinel: bool,
    ) -> redis::RedisResult<redis::Client> {
        use redis::IntoConnectionInfo;
        let mut settings = redis::RedisConnectionInfo::default();
        if sentinel {
            if let Some(u) = &self.sentinel_username {
                settings = settings.set_username(u);
            }
            if let Some(p) = &self.sentinel_password {
                settings = settings.set_password(p);
            }
        } else {
            settings = settings.set_db(self.db);
            if let Some(u) = &self.username {
                settings = settings.set_username(u);
            }
            if let Some(p) = &self.password {
                settings = settings.set_password(p);
            }
        }
        let addr = if self.tls {
            redis::ConnectionAddr::TcpTls {
                host: host.to_string(),
                port,
                insecure: false,
                tls_params: None,
            }
        } else {
            redis::ConnectionAddr::Tcp(host.to_string(), port)
        };
        let info = addr.into_connection_info()?.set_redis_settings(settings);
        if self.tls && (self.tls_ca.is_some() || self.tls_client.is_some()) {
            redis::Client::build_with_tls(
                info,
                redis::TlsCertificates {
                    client_tls: self.tls_client.as_ref().map(|(cert, key)| {
                        redis::ClientTlsConfig {
                            client_cert: cert.clone(),
                            client_key: key.clone(),
                        }
                    }),
                    root_cert: self.tls_ca.clone(),
                },
            )
        } else {
            redis::Client::open(info)
        }
    }
}

impl fmt::Display for StoreUrl {
    /// The URL with its password as `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.tls { "rediss" } else { "redis" })?;
        f.write_str(match self.topology {
            Topology::Standalone => "://",
            Topology::Cluster => "+cluster://",
            Topology::Sentinel(_) => "+sentinel://",
        })?;
        match (&self.username, &self.password) {
            (Some(u), Some(_)) => write!(f, "{u}:***@")?,
            (Some(u), None) => write!(f, "{u}@")?,
            (None, Some(_)) => f.write_str(":***@")?,
            (None, None) => {}
        }
        for (i, (host, port)) in self.nodes.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            if host.contains(':') {
                write!(f, "{sep}[{host}]:{port}")?;
            } else {
                write!(f, "{sep}{host}:{port}")?;
            }
        }
        match &self.topology {
            Topology::Standalone => write!(f, "/{}", self.db),
            Topology::Cluster => Ok(()),
            Topology::Sentinel(m) => write!(f, "/{m}/{}", self.db),
        }
    }
}

impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreUrl({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_hides_the_password() {
        let u = StoreUrl::parse("redis://bob:s%40cret@cache.example:6380/2").unwrap();
        assert_eq!(u.nodes, [("cache.example".to_string(), 6380)]);
        assert_eq!(u.db, 2);
        assert_eq!(u.username.as_deref(), Some("bob"));
        assert_eq!(u.password.as_deref(), Some("s@cret"));
        for shown in [u.to_string(), format!("{u:?}")] {
            assert!(!shown.contains("cret"), "{shown}");
            assert!(shown.contains("bob:***@cache.example:6380/2"), "{shown}");
        }
        let u = StoreUrl::parse("redis://127.0.0.1").unwrap();
        assert_eq!((u.nodes[0].1, u.db, u.has_password()), (6379, 0, false));
        let mut u = StoreUrl::parse("redis://[::1]:7000/").unwrap();
        assert_eq!(u.nodes, [("::1".to_string(), 7000)]);
        u.password_if_missing(Some("from-env".into()));
        assert!(u.has_password() && !u.to_string().contains("from-env"));
    }

    #[test]
    fn parses_cluster_and_sentinel_urls() {
        let u = StoreUrl::parse("valkey+cluster://:pw@a:7000,[::1]:7001,c").unwrap();
        assert_eq!(u.topology, Topology::Cluster);
        assert_eq!(u.nodes.len(), 3);
        assert_eq!(u.nodes[2], ("c".to_string(), 6379));
        assert_eq!(
            u.to_string(),
            "redis+cluster://:***@a:7000,[::1]:7001,c:6379"
        );
        let u = StoreUrl::parse("redis+sentinel://s1:26380,s2/mymaster/3").unwrap();
        assert_eq!(u.topology, Topology::Sentinel("mymaster".into()));
        assert_eq!(u.nodes[1], ("s2".to_string(), 26379));
        assert_eq!(u.db, 3);
        assert_eq!(
            u.to_string(),
            "redis+sentinel://s1:26380,s2:26379/mymaster/3"
        );
        let u = StoreUrl::parse("redis+sentinel://s1/m").unwrap();
        assert_eq!((u.db, u.replicas), (0, None));
    }

    #[test]
    fn parses_tls_urls() {
        let mut u = StoreUrl::parse("rediss://u:pw@h:6380/1").unwrap();
        assert!(u.is_tls() && u.topology == Topology::Standalone);
        assert_eq!(u.to_string(), "rediss://u:***@h:6380/1");
        let u2 = StoreUrl::parse("valkeys+cluster://a:1,b:2").unwrap();
        assert!(u2.is_tls() && u2.topology == Topology::Cluster);
        assert_eq!(u2.to_string(), "rediss+cluster://a:1,b:2");
        let u3 = StoreUrl::parse("rediss+sentinel://s1/m").unwrap();
        assert_eq!(u3.to_string(), "rediss+sentinel://s1:26379/m/0");
        assert!(!StoreUrl::parse("redis://h").unwrap().is_tls());
        let e = u.tls_ca(b"no pem here".to_vec()).unwrap_err().to_string();
        assert!(e.contains("no PEM certificate"), "{e}");
        let e = StoreUrl::parse("redis://u:pw@h")
            .unwrap()
            .tls_ca(Vec::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("rediss://") && !e.contains("pw"), "{e}");
        u.sentinel_password_if_missing(Some("sentinel-secret".into()));
        assert!(!format!("{u} {u:?}").contains("sentinel-secret"));
    }

    #[test]
    fn refuses_what_is_not_supported_without_echoing_secrets() {
        for (url, says) in [
            ("rediss://u:topsecret@h:1,h:2", "redis+cluster://"),
            ("redis://u:topsecret@h:1,h:2", "redis+cluster://"),
            ("redis+cluster://u:topsecret@h:1,h:2/3", "database 0"),
            ("redis+cluster://u:topsecret@h:1,,h:2", "no host"),
            ("redis+sentinel://u:topsecret@h:1,h:2", "no master"),
            ("redis+sentinel://u:topsecret@h:1/m/x", "database"),
            ("redis://u:topsecret@h:1?x=1", "query"),
            ("http://u:topsecret@h:1", "scheme"),
            ("redis://u:topsecret@h:port", "port"),
            ("redis://u:topsecret@h:1/x", "database"),
            ("redis://u:top%zzsecret@h:1", "escape"),
            ("redis://u:topsecret@[::1:5", "host"),
            ("h:1", "redis://"),
        ] {
            let e = StoreUrl::parse(url).unwrap_err().to_string();
            assert!(e.contains(says), "{url}: {e}");
            assert!(!e.contains("topsecret") && !e.contains("top%zz"), "{e}");
        }
    }
}
