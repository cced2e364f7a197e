//! JSON Lines input: one document per line, `{"id": ..., "text": ...}` or
//! `{"id": ..., "html": ...}`, with configurable field names.

use std::io::{BufRead, Read};

use serde_json::Value;

use crate::document::{Content, Item, RawDocument};
use crate::error::{DocError, DocErrorKind};

/// The field names read from each JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonlFields {
    /// The document id (a string or a number). Default `id`; when a line has
    /// none, the id is `PATH:LINE`.
    pub id: String,
    /// Plain text, used as main text as is. Default `text`.
    pub text: String,
    /// HTML to extract from; preferred over `text` when both are present.
    /// Default `html`.
    pub html: String,
    /// An optional URL. Default `url`.
    pub url: String,
}

impl Default for JsonlFields {
    fn default() -> JsonlFields {
        JsonlFields {
            id: "id".into(),
            text: "text".into(),
            html: "html".into(),
            url: "url".into(),
        }
    }
}

/// Reads documents from JSON Lines; invalid lines are reported with their
/// line numbers and skipped.
pub struct JsonlReader<R> {
    reader: R,
    name: String,
    fields: JsonlFields,
    limit: u64,
    line: u64,
    done: bool,
    /// The line being read (kept between lines for its capacity).
    buf: Vec<u8>,
}

impl<R: BufRead> JsonlReader<R> {
    /// A reader over `reader`; `name` names the input in ids and errors;
    /// lines longer than `limit` bytes are reported as too large.
    pub fn new(reader: R, name: impl Into<String>, fields: JsonlFields, limit: u64) -> Self {
        JsonlReader {
            reader,
            name: name.into(),
            fields,
            limit,
            line: 0,
            done: false,
            buf: Vec::new(),
        }
    }

    /// The reader of a part of a file that starts after `lines` lines:
    /// ids and errors number lines as in the whole file.
    pub fn after_lines(mut self, lines: u64) -> Self {
        self.line = lines;
        self
    }

    fn line_id(&self) -> String {
        format!("{}:{}", self.name, self.line)
    }

    fn error(&self, kind: DocErrorKind) -> Item {
        Item::Error(DocError {
            id: self.line_id(),
            kind,
        })
    }

    fn parse(&self, buf: &[u8]) -> Item {
        match crate::jsonl_fields::pick(buf, &self.fields) {
            Some(p) => self.document(p.id, p.url, p.html, p.text),
            // Not an object, or not JSON: the full parse names the error.
            None => self.parse_value(buf),
        }
    }

    fn parse_value(&self, buf: &[u8]) -> Item {
        let value: Value = match serde_json::from_slice(buf) {
            Ok(v) => v,
            Err(e) => return self.error(DocErrorKind::Json(format!("line {}: {e}", self.line))),
        };
        let Value::Object(mut obj) = value else {
            return self.error(DocErrorKind::Json(format!(
                "line {}: not a JSON object",
                self.line
            )));
        };
        let (id, url) = (obj.get(&self.fields.id), obj.get(&self.fields.url));
        let (id, url) = (id.cloned(), url.cloned());
        let (html, text) = (obj.remove(&self.fields.html), obj.remove(&self.fields.text));
        self.document(id, url, html, text)
    }

    /// The item of an object with these fields.
    fn document(
        &self,
        id: Option<Value>,
        url: Option<Value>,
        html: Option<Value>,
        text: Option<Value>,
    ) -> Item {
        let id = match id {
            Some(Value::String(s)) => s,
            Some(Value::Number(n)) => n.to_string(),
            None | Some(Value::Null) => self.line_id(),
            Some(_) => {
                return self.error(DocErrorKind::Json(format!(
                    "line {}: field {:?} is neither a string nor a number",
                    self.line, self.fields.id
                )))
            }
        };
        let url = match url {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let content = match (html, text) {
            (Some(Value::String(h)), _) => Content::Html {
                bytes: h.into_bytes(),
                content_type: Some("text/html; charset=utf-8".into()),
            },
            (_, Some(Value::String(t))) => Content::Text(t),
            _ => {
                return Item::Error(DocError {
                    id,
                    kind: DocErrorKind::Json(format!(
                        "line {}: no string field {:?} or {:?}",
                        self.line, self.fields.html, self.fields.text
                    )),
                })
            }
        };
        Item::Document(RawDocument { id, url, content })
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        let mut buf = std::mem::take(&mut self.buf);
        let item = self.next_line(&mut buf);
        // A very long line does not keep its buffer.
        if buf.capacity() <= 1 << 20 {
            self.buf = buf;
        }
        item
    }
}

/// `reader.take(limit).read_until(b'\n', buf)`, with the newline found by
/// SIMD (`memchr`) in the reader's buffer: the bytes up to and including
/// the next newline, or up to the end of input, or `limit` bytes, whichever
/// comes first, appended to `buf`; how many.
fn read_line_limited<R: BufRead>(
    reader: &mut R,
    limit: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut read = 0usize;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = usize::try_from(limit.saturating_sub(read as u64))
            .unwrap_or(usize::MAX)
            .min(available.len());
        let chunk = &available[..room];
        let (used, newline) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (room, false),
        };
        buf.extend_from_slice(&chunk[..used]);
        reader.consume(used);
        read += used;
        if newline || used == 0 {
            return Ok(read);
        }
    }
}

impl<R: BufRead> JsonlReader<R> {
    fn next_line(&mut self, buf: &mut Vec<u8>) -> Option<Item> {
        while !self.done {
            buf.clear();
            let read = read_line_limited(&mut self.reader, self.limit + 1, buf);
            self.line += 1;
            match read {
                Ok(0) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(self.error(DocErrorKind::Read(e.to_string())));
                }
                Ok(_) if buf.len() as u64 > self.limit && buf.last() != Some(&b'\n') => {
                    // Discard the rest of the over-long line.
                    let mut rest = 0u64;
                    loop {
                        let mut chunk = Vec::new();
                        match (&mut self.reader)
                            .take(1 << 20)
                            .read_until(b'\n', &mut chunk)
                        {
                            Ok(0) | Err(_) => break,
                            Ok(n) => rest += n as u64,
                        }
                        if chunk.last() == Some(&b'\n') {
                            break;
                        }
                    }
                    let size = buf.len() as u64 + rest;
                    return Some(self.error(DocErrorKind::TooLarge {
                        size,
                        limit: self.limit,
                    }));
                }
                Ok(_) => {
                    if buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(self.parse(buf));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(data: &str) -> Vec<Item> {
        JsonlReader::new(data.as_bytes(), "c.jsonl", JsonlFields::default(), 1000).collect()
    }

    #[test]
    fn lines_are_read_as_take_read_until_reads_them() {
        let data = b"ab\ncdef\n\nlonger line here\nno newline at the end";
        for capacity in [1, 2, 3, 5, 64] {
            for limit in [0, 1, 2, 3, 4, 7, 100] {
                let mut ours = std::io::BufReader::with_capacity(capacity, &data[..]);
                let mut std_ = std::io::BufReader::with_capacity(capacity, &data[..]);
                for _ in 0..12 {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let n = read_line_limited(&mut ours, limit, &mut a).unwrap();
                    let m = (&mut std_).take(limit).read_until(b'\n', &mut b).unwrap();
                    assert_eq!((n, &a), (m, &b), "{capacity} {limit}");
                }
            }
        }
    }

    #[test]
    fn reads_text_and_html() {
        let items = read("{\"id\":\"a\",\"text\":\"hello\"}\n\n{\"id\":7,\"html\":\"<p>x</p>\",\"url\":\"http://x/\"}");
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0],
            Item::Document(RawDocument {
                id: "a".into(),
                url: None,
                content: Content::Text("hello".into())
            })
        );
        match &items[1] {
            Item::Document(d) => {
                assert_eq!((d.id.as_str(), d.url.as_deref()), ("7", Some("http://x/")));
                assert!(matches!(&d.content, Content::Html { bytes, .. } if bytes == b"<p>x</p>"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_lines_are_reported_with_line_numbers() {
        let items = read("{\"id\":\"a\",\"text\":\"x\"}\n{bad json\n[1,2]\n{\"id\":\"b\"}\n{\"text\":\"no id\"}\n");
        assert_eq!(items.len(), 5);
        assert!(
            matches!(&items[1], Item::Error(e) if e.id == "c.jsonl:2" && e.to_string().contains("line 2"))
        );
        assert!(matches!(&items[2], Item::Error(e) if e.to_string().contains("not a JSON object")));
        assert!(matches!(&items[3], Item::Error(e) if e.id == "b"));
        assert!(matches!(&items[4], Item::Document(d) if d.id == "c.jsonl:5"));
    }

    #[test]
    fn over_long_lines_are_skipped() {
        let long = format!(
            "{{\"id\":\"big\",\"text\":\"{}\"}}\n{{\"id\":\"s\",\"text\":\"ok\"}}\n",
            "x".repeat(3000)
        );
        let items = read(&long);
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(
            &items[0],
            Item::Error(DocError {
                kind: DocErrorKind::TooLarge { .. },
                ..
            })
        ));
        assert!(matches!(&items[1], Item::Document(d) if d.id == "s"));
    }

    #[test]
    fn custom_fields() {
        let fields = JsonlFields {
            id: "doc".into(),
            text: "body".into(),
            ..JsonlFields::default()
        };
        let items: Vec<Item> =
            JsonlReader::new(&b"{\"doc\":\"q\",\"body\":\"t\"}"[..], "x", fields, 100).collect();
        assert!(
            matches!(&items[0], Item::Document(d) if d.id == "q" && d.content == Content::Text("t".into()))
        );
    }
}
