//! The fast path of [`crate::jsonl_fields::pick`] for the common line: an
//! object whose wanted values are strings (or `null`), with no `\u` escape
//! and no control character; other fields may hold numbers, literals or
//! nested values (dolma's `metadata`), which are skipped and checked. Such a line is checked to be UTF-8 once, as a
//! whole; each wanted string is then unescaped straight into its `String`
//! by slices of the line (one copy, no second validation), and each other
//! string is only scanned. Any other line (a number, a nested value, a
//! `\u` escape, a tab between tokens, a syntax error) is left to the
//! `serde_json` parse, which gives the same fields: a property test checks
//! that both agree on every line this path takes.

use serde_json::Value;

use crate::jsonl::JsonlFields;
use crate::jsonl_fields::{roles, Picked};

/// The wanted fields of `line` when it is a flat object of strings this
/// path reads; `None` to leave the line to the full parser.
pub(crate) fn pick_flat(line: &[u8], fields: &JsonlFields) -> Option<Picked> {
    // A line ending is whitespace after the object; any other control
    // byte (inside a string it is an error, between tokens rare) is left
    // to the full parser.
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    if has_control(body) {
        return None;
    }
    let text = simdutf8::basic::from_utf8(body).ok()?;
    let mut p = Parser { text, at: 0 };
    let mut picked = Picked::default();
    p.spaces();
    p.eat(b'{')?;
    p.spaces();
    if p.peek() == Some(b'}') {
        p.at += 1;
    } else {
        loop {
            p.eat(b'"')?;
            let key = p.raw_key()?;
            let bits = roles(fields, key);
            p.spaces();
            p.eat(b':')?;
            p.spaces();
            let value = match p.peek()? {
                b'"' => {
                    p.at += 1;
                    if bits == 0 {
                        p.skip_string()?;
                        None
                    } else {
                        Some(Value::String(p.string()?))
                    }
                }
                b'n' if p.text[p.at..].starts_with("null") => {
                    p.at += 4;
                    Some(Value::Null)
                }
                // A number, literal or nested value of a field not wanted
                // (dolma's `metadata`, `added`): skipped, checked.
                _ if bits == 0 => {
                    p.skip_other()?;
                    None
                }
                _ => return None,
            };
            if let Some(value) = value {
                picked.set(bits, value);
            }
            p.spaces();
            match p.peek()? {
                b',' => {
                    p.at += 1;
                    p.spaces();
                }
                b'}' => {
                    p.at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    p.spaces();
    (p.at == text.len()).then_some(picked)
}

/// Whether `bytes` holds a byte below 0x20 (counted without an early
/// exit, which the compiler turns into wide compares).
fn has_control(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|c| c.iter().fold(0u8, |acc, &b| acc | u8::from(b < 0x20)) != 0)
}

/// A position in the line being read.
struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// Skips JSON whitespace (control bytes are not in the line: spaces).
    fn spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    /// Where the next `"` or `\` is, from the current position.
    fn next_special(&self) -> Option<usize> {
        memchr::memchr2(b'"', b'\\', &self.text.as_bytes()[self.at..]).map(|i| self.at + i)
    }

    /// A key (after its opening quote) without escapes, as it is.
    fn raw_key(&mut self) -> Option<&'a str> {
        let end = self.next_special()?;
        if self.text.as_bytes()[end] != b'"' {
            return None;
        }
        let key = &self.text[self.at..end];
        self.at = end + 1;
        Some(key)
    }

    /// The escape at the current position (after its backslash), `None`
    /// for `\u` and invalid ones.
    fn escape(&mut self) -> Option<char> {
        let c = match self.peek()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => return None,
        };
        self.at += 1;
        Some(c)
    }

    /// A string value (after its opening quote), unescaped.
    fn string(&mut self) -> Option<String> {
        let mut out = String::new();
        loop {
            let end = self.next_special()?;
            let run = &self.text[self.at..end];
            self.at = end + 1;
            if self.text.as_bytes()[end] == b'"' {
                if out.is_empty() {
                    return Some(run.to_string());
                }
                out.push_str(run);
                return Some(out);
            }
            if out.capacity() == 0 {
                out.reserve(self.text.len() - end + run.len());
            }
            out.push_str(run);
            out.push(self.escape()?);
        }
    }

    /// Skips a value that is not a string (a number, `true`, `false`,
    /// `null`, an object or an array), checked by `serde_json` without
    /// being built; `None` when it is not valid JSON (the full parser then
    /// says so).
    fn skip_other(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        match self.peek()? {
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.at += 1;
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while let Some(&b) = bytes.get(self.at) {
                    if matches!(b, b',' | b'}' | b']' | b' ') {
                        break;
                    }
                    self.at += 1;
                }
            }
        }
        serde_json::from_str::<serde::de::IgnoredAny>(&self.text[start..self.at])
            .ok()
            .map(|_| ())
    }

    /// Skips a string value (after its opening quote), checking its
    /// escapes as [`Parser::string`] does.
    fn skip_string(&mut self) -> Option<()> {
        loop {
            let end = self.next_special()?;
            self.at = end + 1;
            if self.text.as_bytes()[end] == b'"' {
                return Some(());
            }
            self.escape()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::jsonl_fields::pick_serde;

    fn fields() -> JsonlFields {
        JsonlFields::default()
    }

    #[test]
    fn takes_common_lines_and_agrees() {
        let lines = [
            r#"{"id":"a","text":"hello"}"#,
            "{\"cluster\":\"c\",\"id\":\"r1\",\"text\":\"one\\n\\ntwo \\\"q\\\" caf\u{e9} \u{201c}x\u{201d}\"}\n",
            r#"{ "id" : "b" , "html" : "<p>x</p>", "url": null }"#,
            r#"{"text":"t","text":"last wins","meta":"\/\b\f\r\t\\"}"#,
            r#"{"id":"a","meta":{"x":1}}"#,
            r#"{"id":"d","n":-1.5e3,"ok":true,"no":false,"text":"t","metadata":{"x":[1,"a\"b]",{}]},"added":"2026"}"#,
            "{}\r\n",
        ];
        for line in lines {
            let fast = pick_flat(line.as_bytes(), &fields());
            assert!(fast.is_some(), "{line}");
            assert_eq!(fast, pick_serde(line.as_bytes(), &fields()), "{line}");
        }
    }

    #[test]
    fn leaves_other_lines_to_the_full_parser() {
        for line in [
            r#"{"id":7,"text":"n"}"#,
            r#"{"text":"\u00e9"}"#,
            r#"{"id":"a","meta":{"x":1,}}"#,
            r#"{"id":"a","n":1.2.3}"#,
            r#"{"id":"a","m":{"u":"\u00e9"}}"#,
            "{\"text\":\"tab\there\"}",
            "{\"id\":\"a\",\t\"text\":\"t\"}",
            r#"{"text":"bad \x escape"}"#,
            r#"{"id":"a",}"#,
            r#"{"id":"a"} x"#,
            r#"{"te\"xt":"k"}"#,
            r#"["id","a"]"#,
            r#"{"id":"unterminated}"#,
        ] {
            assert_eq!(pick_flat(line.as_bytes(), &fields()), None, "{line}");
        }
        assert_eq!(pick_flat(b"{\"text\":\"\xff\"}", &fields()), None);
    }

    /// Lines of JSON-like pieces: objects of strings with escapes, nulls,
    /// numbers and nested values, and broken ones.
    fn line() -> impl Strategy<Value = String> {
        let string = prop_oneof![
            any::<String>(),
            "[a-z \"\\\\/\u{e9}\u{201c}\t]{0,12}",
            Just(r"\n".to_string()),
            Just(r#"\""#.to_string()),
            Just(r"\u00e9".to_string()),
            Just(r"\x".to_string()),
        ];
        let key = prop_oneof![
            Just("id".to_string()),
            Just("text".to_string()),
            Just("html".to_string()),
            Just("url".to_string()),
            "[a-z]{1,4}",
        ];
        let value = prop_oneof![
            4 => proptest::collection::vec(string, 0..4)
                .prop_map(|parts| format!("\"{}\"", parts.concat())),
            1 => Just("null".to_string()),
            1 => Just("12".to_string()),
            1 => Just("{\"x\":[1]}".to_string()),
            1 => Just("\"unterminated".to_string()),
        ];
        let sep = prop_oneof![Just(""), Just(" "), Just("\t"), Just("  ")];
        proptest::collection::vec((key, value, sep.clone()), 0..5).prop_flat_map(move |kvs| {
            (
                sep.clone(),
                prop_oneof![Just(""), Just("\n"), Just(","), Just(" x")],
            )
                .prop_map(move |(s, end)| {
                    let body: Vec<String> = kvs
                        .iter()
                        .map(|(k, v, s2)| format!("\"{k}\"{s2}:{s}{v}"))
                        .collect();
                    format!("{s}{{{}}}{end}", body.join(","))
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn the_fast_path_agrees_with_the_full_parse(line in line()) {
            if let Some(fast) = pick_flat(line.as_bytes(), &fields()) {
                prop_assert_eq!(Some(fast), pick_serde(line.as_bytes(), &fields()), "{}", line);
            }
        }

        #[test]
        fn arbitrary_bytes_agree_too(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let mut line = b"{\"text\":\"".to_vec();
            line.extend(&bytes);
            line.extend(b"\"}");
            if let Some(fast) = pick_flat(&line, &fields()) {
                prop_assert_eq!(Some(fast), pick_serde(&line, &fields()));
            }
        }
    }
}
