//! [`StoreUrl`]: where the shared store is, parsed from
//! `redis://[user:pass@]HOST:PORT[/DB]`, with its credentials kept out of
//! every message: its `Display` and `Debug` show `***` for the password.

use std::fmt;

use crate::error::{Error, ErrorKind};

/// A standalone Redis or Valkey server and how to log in to it.
#[derive(Clone, PartialEq, Eq)]
pub struct StoreUrl {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) db: i64,
    pub(crate) username: Option<String>,
    pub(crate) password: Option<String>,
}

fn invalid(why: impl Into<String>) -> Error {
    Error::new(ErrorKind::SharedStore(why.into()))
}

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

impl StoreUrl {
    /// Parses `redis://[user:pass@]HOST:PORT[/DB]` (port 6379 and
    /// database 0 when left out). `rediss://` (TLS), Sentinel and Cluster
    /// URLs are refused with an error that says so. Errors never repeat
    /// the URL's credentials.
    ///
    /// # Errors
    /// [`ErrorKind::SharedStore`]: a URL this build does not take.
    pub fn parse(url: &str) -> Result<StoreUrl, Error> {
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(invalid(
                "the store URL must look like redis://HOST:PORT[/DB]",
            ));
        };
        match scheme {
            "redis" | "valkey" => {}
            "rediss" | "valkeys" => {
                return Err(invalid(
                    "TLS (rediss://) is not supported by this build yet: use redis:// on a trusted network or a TLS tunnel",
                ))
            }
            "redis+sentinel" | "redis+cluster" => {
                return Err(invalid(format!(
                    "{scheme}:// is not supported yet: only a standalone server (redis://HOST:PORT[/DB])"
                )))
            }
            _ => {
                return Err(invalid(format!(
                    "unknown store URL scheme {scheme:?}: expected redis://HOST:PORT[/DB]"
                )))
            }
        }
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
        let (hostport, db) = match rest.split_once('/') {
            None => (rest, 0),
            Some((h, "")) => (h, 0),
            Some((h, d)) => (
                h,
                d.parse::<i64>().ok().filter(|d| *d >= 0).ok_or_else(|| {
                    invalid(format!("the store URL's database {d:?} is not a number"))
                })?,
            ),
        };
        if hostport.contains('?') || hostport.contains(',') {
            return Err(invalid(
                "the store URL takes one HOST:PORT and no query: redis://HOST:PORT[/DB]",
            ));
        }
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h,
                p.parse::<u16>()
                    .map_err(|_| invalid(format!("the store URL's port {p:?} is not a port")))?,
            ),
            _ => (hostport, 6379),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(invalid("the store URL has no host"));
        }
        Ok(StoreUrl {
            host: host.to_string(),
            port,
            db,
            username,
            password,
        })
    }

    /// Uses this password (from an environment variable or a file) when
    /// the URL holds none.
    pub fn password_if_missing(&mut self, password: Option<String>) -> &mut StoreUrl {
        if self.password.is_none() {
            self.password = password.filter(|p| !p.is_empty());
        }
        self
    }

    /// Whether a password will be sent.
    pub fn has_password(&self) -> bool {
        self.password.is_some()
    }

    pub(crate) fn connection_info(&self) -> redis::RedisResult<redis::ConnectionInfo> {
        use redis::IntoConnectionInfo;
        let mut settings = redis::RedisConnectionInfo::default().set_db(self.db);
        if let Some(u) = &self.username {
            settings = settings.set_username(u);
        }
        if let Some(p) = &self.password {
            settings = settings.set_password(p);
        }
        Ok(redis::ConnectionAddr::Tcp(self.host.clone(), self.port)
            .into_connection_info()?
            .set_redis_settings(settings))
    }
}

impl fmt::Display for StoreUrl {
    /// The URL with its password as `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("redis://")?;
        match (&self.username, &self.password) {
            (Some(u), Some(_)) => write!(f, "{u}:***@")?,
            (Some(u), None) => write!(f, "{u}@")?,
            (None, Some(_)) => f.write_str(":***@")?,
            (None, None) => {}
        }
        if self.host.contains(':') {
            write!(f, "[{}]:{}/{}", self.host, self.port, self.db)
        } else {
            write!(f, "{}:{}/{}", self.host, self.port, self.db)
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
        assert_eq!((u.host.as_str(), u.port, u.db), ("cache.example", 6380, 2));
        assert_eq!(u.username.as_deref(), Some("bob"));
        assert_eq!(u.password.as_deref(), Some("s@cret"));
        for shown in [u.to_string(), format!("{u:?}")] {
            assert!(!shown.contains("cret"), "{shown}");
            assert!(shown.contains("bob:***@cache.example:6380/2"), "{shown}");
        }
        let u = StoreUrl::parse("redis://127.0.0.1").unwrap();
        assert_eq!((u.port, u.db, u.has_password()), (6379, 0, false));
        let mut u = StoreUrl::parse("redis://[::1]:7000/").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 7000));
        u.password_if_missing(Some("from-env".into()));
        assert!(u.has_password() && !u.to_string().contains("from-env"));
    }

    #[test]
    fn refuses_what_is_not_supported_without_echoing_secrets() {
        for (url, says) in [
            ("rediss://u:topsecret@h:1", "TLS"),
            ("redis+cluster://u:topsecret@h:1,h:2", "not supported"),
            ("http://u:topsecret@h:1", "scheme"),
            ("redis://u:topsecret@h:port", "port"),
            ("redis://u:topsecret@h:1/x", "database"),
            ("redis://u:top%zzsecret@h:1", "escape"),
            ("h:1", "redis://"),
        ] {
            let e = StoreUrl::parse(url).unwrap_err().to_string();
            assert!(e.contains(says), "{url}: {e}");
            assert!(!e.contains("topsecret") && !e.contains("top%zz"), "{e}");
        }
    }
}
