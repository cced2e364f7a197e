//! Which copy of a group is kept: the order in which documents claim to be
//! originals.

use std::cmp::Reverse;

/// How the kept document of each group is chosen. Documents are visited in
/// the policy's order; a document becomes a duplicate of the most similar
/// document already kept, so the first document of a group in that order is
/// the kept one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum KeepPolicy {
    /// The first document in input order (the default; what a crawler that
    /// fetches in order sees).
    #[default]
    First,
    /// The document with the longest main text; ties by input order.
    Longest,
    /// Documents whose URL (or id, when it has no URL) matches the pattern
    /// first, then input order. The pattern is a glob: `*` matches any run of
    /// characters, everything else matches itself; without a `*` it matches
    /// anywhere in the URL.
    PreferUrl(String),
}

impl std::str::FromStr for KeepPolicy {
    type Err = String;

    /// `first`, `longest` or `url:GLOB`.
    fn from_str(s: &str) -> Result<KeepPolicy, String> {
        match s {
            "first" => Ok(KeepPolicy::First),
            "longest" => Ok(KeepPolicy::Longest),
            _ => match s.strip_prefix("url:") {
                Some(p) if !p.is_empty() => Ok(KeepPolicy::PreferUrl(p.to_string())),
                _ => Err(format!(
                    "a keep policy is first, longest or url:PATTERN, not {s:?}"
                )),
            },
        }
    }
}

/// What the policy looks at for one document.
#[derive(Debug, Clone, Copy)]
pub struct KeepKey<'a> {
    /// URL or id.
    pub url: &'a str,
    /// Main text length in bytes.
    pub text_len: usize,
}

impl KeepPolicy {
    /// The visiting order of documents `0..keys.len()`.
    pub fn order(&self, keys: &[KeepKey<'_>]) -> Vec<u32> {
        self.order_by(keys.len(), |i| keys[i as usize])
    }

    /// The visiting order of documents `0..n`, given each one's key (asked
    /// for as the order is made, so no array of keys is held).
    pub fn order_by<'k>(&self, n: usize, key: impl Fn(u32) -> KeepKey<'k>) -> Vec<u32> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        match self {
            KeepPolicy::First => {}
            KeepPolicy::Longest => order.sort_by_key(|&i| (Reverse(key(i).text_len), i)),
            KeepPolicy::PreferUrl(p) => order.sort_by_key(|&i| (!glob_match(p, key(i).url), i)),
        }
        order
    }
}

/// Glob match with `*` wildcards; a pattern without `*` matches as a
/// substring.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    if !pattern.contains('*') {
        return text.contains(pattern);
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = match parts.split_first() {
        Some(x) => x,
        None => return true,
    };
    let Some(mut tail) = text.strip_prefix(first) else {
        return false;
    };
    let (last, middle) = match rest.split_last() {
        Some(x) => x,
        None => return tail.is_empty(),
    };
    for part in middle {
        match tail.find(part) {
            Some(at) => tail = &tail[at + part.len()..],
            None => return false,
        }
    }
    tail.len() >= last.len() && tail.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let cases = [
            ("example.com", "https://www.example.com/a", true),
            ("example.org", "https://www.example.com/a", false),
            ("https://*.example.com/*", "https://www.example.com/a", true),
            ("https://*.example.com/*", "http://www.example.com/a", false),
            ("*", "", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(glob_match(p, t), want, "{p} {t}");
        }
    }

    #[test]
    fn parses() {
        assert_eq!("first".parse(), Ok(KeepPolicy::First));
        assert_eq!("longest".parse(), Ok(KeepPolicy::Longest));
        assert_eq!(
            "url:*.gov/*".parse(),
            Ok(KeepPolicy::PreferUrl("*.gov/*".into()))
        );
        assert!("url:".parse::<KeepPolicy>().is_err());
        assert!("newest".parse::<KeepPolicy>().is_err());
    }

    #[test]
    fn orders() {
        let keys = [
            KeepKey {
                url: "http://mirror.net/a",
                text_len: 10,
            },
            KeepKey {
                url: "http://origin.com/a",
                text_len: 30,
            },
            KeepKey {
                url: "http://other.net/a",
                text_len: 30,
            },
        ];
        assert_eq!(KeepPolicy::First.order(&keys), [0, 1, 2]);
        assert_eq!(KeepPolicy::Longest.order(&keys), [1, 2, 0]);
        assert_eq!(
            KeepPolicy::PreferUrl("origin.com".into()).order(&keys),
            [1, 0, 2]
        );
    }
}
