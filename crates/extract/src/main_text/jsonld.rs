//! JSON-LD `articleBody` (and a declared product's `description`) as
//! evidence.
//!
//! Many article pages embed their body text in a JSON-LD script, and many
//! product pages their product's description. The text is never emitted
//! (it may be truncated, stale or stripped of structure), but blocks of the
//! page that repeat it are strong evidence of the container.

use std::collections::HashSet;

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeData};
use crate::tags::is_cjk;

/// Bodies shorter than this many characters are ignored.
const MIN_BODY_CHARS: usize = 200;

/// Decode the JSON string literal starting right after its opening quote.
fn json_string(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') | Some('r') | Some('t') => out.push(' '),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        out.push(ch);
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            _ => out.push(c),
        }
    }
    out
}

/// Product descriptions shorter than this many characters are ignored.
const MIN_DESCRIPTION_CHARS: usize = 100;

/// Does one of the page's JSON-LD scripts (their `texts`) declare a
/// product?
pub(crate) fn declares_product(texts: &[&str]) -> bool {
    texts.iter().any(|t| product_in(t))
}

/// Does the JSON-LD text declare a product (`"@type": "Product"`, alone or
/// first in a list)?
fn product_in(t: &str) -> bool {
    type_in(t, |n| n == "Product")
}

/// Does the JSON-LD text name a type (`"@type": "NewsArticle"`, alone or
/// first in a list) for which `wanted` holds?
pub(crate) fn type_in(text: &str, wanted: impl Fn(&str) -> bool) -> bool {
    let mut rest = text;
    while let Some(i) = rest.find("\"@type\"") {
        rest = rest.get(i + 7..).unwrap_or("");
        let v = rest
            .trim_start()
            .strip_prefix(':')
            .unwrap_or("")
            .trim_start();
        let v = v.strip_prefix('[').unwrap_or(v).trim_start();
        let name = v
            .strip_prefix('"')
            .and_then(|s| s.split('"').next())
            .unwrap_or("");
        if wanted(name) {
            return true;
        }
    }
    false
}

/// The string values of `key` in a JSON text, each followed by a space.
pub(crate) fn string_values(t: &str, key: &str, out: &mut String) {
    let mut rest = t;
    while let Some(i) = rest.find(key) {
        rest = rest.get(i + key.len()..).unwrap_or("");
        let after = rest.trim_start();
        if let Some(v) = after.strip_prefix(':') {
            if let Some(v) = v.trim_start().strip_prefix('"') {
                out.push_str(&json_string(v));
                out.push(' ');
            }
        }
    }
}

/// The text a page declares as its main content in JSON-LD: the
/// `articleBody` strings of its scripts, or else the `description` of the
/// product it declares (a product page's own words about the product).
/// `texts` are the page's JSON-LD scripts ([`ld_texts`]).
pub(crate) fn declared_body(texts: &[&str]) -> Option<String> {
    if let Some(body) = article_body(texts) {
        return Some(body);
    }
    let mut description = String::new();
    for t in texts {
        if product_in(t) {
            string_values(t, "\"description\"", &mut description);
        }
    }
    (description.chars().count() >= MIN_DESCRIPTION_CHARS).then_some(description)
}

/// The texts of the page's JSON-LD scripts, in document order (one pass
/// over the page).
pub(crate) fn ld_texts<'d>(dom: &'d Dom, a: &Analysis) -> Vec<&'d str> {
    a.order
        .iter()
        .copied()
        .filter(|&id| {
            dom.local_name(id) == Some(&local_name!("script"))
                && dom
                    .attr(id, &local_name!("type"))
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        })
        .flat_map(|id| dom.children(id))
        .filter_map(|c| match dom.get(c).map(|n| &n.data) {
            Some(NodeData::Text(t)) => Some(&**t),
            _ => None,
        })
        .collect()
}

/// All `articleBody` strings found in the JSON-LD `texts`, concatenated.
pub(crate) fn article_body(texts: &[&str]) -> Option<String> {
    let mut body = String::new();
    for t in texts {
        string_values(t, "\"articleBody\"", &mut body);
    }
    (body.chars().count() >= MIN_BODY_CHARS).then_some(body)
}

fn hash(x: u64, s: &str) -> u64 {
    let mut h = x ^ 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b.to_ascii_lowercase());
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Word tokens of `text` (CJK characters are tokens of their own).
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(s) = start.take() {
                out.extend(text.get(s..i));
            }
            out.extend(text.get(i..i + c.len_utf8()));
        } else if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
            }
        } else if let Some(s) = start.take() {
            out.extend(text.get(s..i));
        }
    }
    if let Some(s) = start {
        out.extend(text.get(s..));
    }
    out
}

fn shingles(text: &str) -> impl Iterator<Item = u64> + '_ {
    let t = tokens(text);
    let n = t.len();
    (0..n.saturating_sub(2))
        .map(move |i| {
            let mut h = 0u64;
            for w in t.get(i..i + 3).unwrap_or(&[]) {
                h = hash(h.rotate_left(5), w);
            }
            h
        })
        .collect::<Vec<_>>()
        .into_iter()
}

/// Token 3-gram index of a reference text.
pub(crate) struct Reference {
    set: HashSet<u64>,
}

impl Reference {
    /// Index `text`.
    pub(crate) fn new(text: &str) -> Reference {
        Reference {
            set: shingles(text).collect(),
        }
    }

    /// Share of the 3-grams of `text` found in the reference (0 when too short).
    pub(crate) fn coverage(&self, text: &str) -> f32 {
        let mut total = 0u32;
        let mut hit = 0u32;
        for s in shingles(text) {
            total += 1;
            if self.set.contains(&s) {
                hit += 1;
            }
        }
        if total == 0 {
            0.0
        } else {
            hit as f32 / total as f32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::parse::parse;

    #[test]
    fn finds_article_body() {
        let body = "word ".repeat(60);
        let html = format!(
            "<script type='application/ld+json'>{{\"@type\":\"NewsArticle\",\"articleBody\" : \"{body}\\n\\u00e9\"}}</script>"
        );
        let dom = parse(&html, 512);
        let a = analyze(&dom);
        let got = article_body(&ld_texts(&dom, &a)).expect("body found");
        assert!(got.starts_with("word word"));
        assert!(got.contains('é'));
    }

    #[test]
    fn short_body_ignored() {
        let dom = parse(
            "<script type=application/ld+json>{\"articleBody\":\"short\"}</script>",
            512,
        );
        assert!(article_body(&ld_texts(&dom, &analyze(&dom))).is_none());
    }

    #[test]
    fn a_declared_product_gives_its_description() {
        let text = "A light alder body with a roasted maple neck, three pickups and a \
                    five-way switch, comfortable through a long set and bright in tone.";
        let html = format!(
            "<script type=application/ld+json>{{\"@context\":\"https://schema.org\",\
             \"@type\" : [\"Product\"],\"name\":\"Guitar\",\"description\":\"{text}\"}}</script>"
        );
        let dom = parse(&html, 512);
        let a = analyze(&dom);
        assert!(declares_product(&ld_texts(&dom, &a)));
        let got = declared_body(&ld_texts(&dom, &a)).expect("description found");
        assert_eq!(got.trim(), text);
        // The same description of something else is no product's.
        let other = html.replace("Product", "Organization");
        let dom = parse(&other, 512);
        let a = analyze(&dom);
        assert!(!declares_product(&ld_texts(&dom, &a)));
        assert!(declared_body(&ld_texts(&dom, &a)).is_none());
    }

    #[test]
    fn coverage() {
        let r = Reference::new("the quick brown fox jumps over the lazy dog");
        assert!(r.coverage("quick brown fox jumps") > 0.99);
        assert!(r.coverage("an entirely different sentence here") < 0.01);
        assert_eq!(r.coverage("two words"), 0.0);
    }
}
