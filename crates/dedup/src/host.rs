//! Hosts of document URLs.

/// The host of a URL (`scheme://host[:port]/...`), lower-cased; `None`
/// when the id is not a URL.
pub fn host_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme_ok = scheme
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    if scheme.is_empty() || !scheme_ok {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or(host)
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_urls() {
        let cases = [
            ("https://www.Example.com/a/b?c", Some("www.example.com")),
            ("http://user@host.org:8080/x", Some("host.org")),
            ("http://[::1]:80/", Some("[::1]")),
            ("https://news.example.cn", Some("news.example.cn")),
            ("a.html", None),
            ("/tmp/x.html", None),
            ("://nohost", None),
            ("file:///tmp/x.html", None),
        ];
        for (url, host) in cases {
            assert_eq!(host_of(url).as_deref(), host, "{url}");
        }
    }
}
