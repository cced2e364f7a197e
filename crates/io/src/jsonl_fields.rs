//! Reading only the wanted fields of one JSON Lines object: the id, URL,
//! text and HTML are taken as JSON values, every other field is skipped
//! without being built (no map of the whole object, no string per unread
//! field). Whatever this parser does not accept (a syntax error, a line
//! that is not an object) is left to the full parse of `jsonl.rs`, which
//! names the error.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::jsonl::JsonlFields;

/// The wanted fields of one object; a field absent from the line is
/// `None`. Of a key repeated in the object the last value counts, as in a
/// `serde_json` map.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Picked {
    pub(crate) id: Option<Value>,
    pub(crate) url: Option<Value>,
    pub(crate) html: Option<Value>,
    pub(crate) text: Option<Value>,
}

/// Parses `line` as one JSON object and keeps the fields `fields` names;
/// `None` when the line is not a JSON object. A flat object of strings
/// takes the fast path of [`crate::jsonl_flat`].
pub(crate) fn pick(line: &[u8], fields: &JsonlFields) -> Option<Picked> {
    crate::jsonl_flat::pick_flat(line, fields).or_else(|| pick_serde(line, fields))
}

/// [`pick`] by `serde_json`, for any line.
pub(crate) fn pick_serde(line: &[u8], fields: &JsonlFields) -> Option<Picked> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let picked = PickSeed(fields).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(picked)
}

impl Picked {
    /// Gives `value` to the fields of `roles` (a bit per field).
    pub(crate) fn set(&mut self, roles: u8, value: Value) {
        let slots = [
            (ID, &mut self.id),
            (URL, &mut self.url),
            (HTML, &mut self.html),
            (TEXT, &mut self.text),
        ];
        let mut left = roles.count_ones();
        let mut value = Some(value);
        for (bit, slot) in slots {
            if roles & bit != 0 {
                left -= 1;
                // The last role takes the value, the others a copy.
                *slot = if left == 0 {
                    value.take()
                } else {
                    value.clone()
                };
            }
        }
    }
}

/// The roles of a key: a bit per field it names (one key may name several
/// when the field names coincide).
pub(crate) fn roles(fields: &JsonlFields, key: &str) -> u8 {
    let f = fields;
    [(&f.id, ID), (&f.url, URL), (&f.html, HTML), (&f.text, TEXT)]
        .iter()
        .filter(|(name, _)| name.as_str() == key)
        .fold(0, |acc, (_, bit)| acc | bit)
}

const ID: u8 = 1;
const URL: u8 = 2;
const HTML: u8 = 4;
const TEXT: u8 = 8;

/// The roles of a key, read by `serde_json`.
struct KeySeed<'f>(&'f JsonlFields);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = u8;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u8, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = u8;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<u8, E> {
        Ok(roles(self.0, key))
    }
}

struct PickSeed<'f>(&'f JsonlFields);

impl<'de> DeserializeSeed<'de> for PickSeed<'_> {
    type Value = Picked;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Picked, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PickSeed<'_> {
    type Value = Picked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Picked, A::Error> {
        let mut picked = Picked::default();
        while let Some(roles) = map.next_key_seed(KeySeed(self.0))? {
            if roles == 0 {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            picked.set(roles, map.next_value()?);
        }
        Ok(picked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(line: &str, f: &JsonlFields) -> Option<Picked> {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
            return None;
        };
        Some(Picked {
            id: obj.get(&f.id).cloned(),
            url: obj.get(&f.url).cloned(),
            html: obj.get(&f.html).cloned(),
            text: obj.get(&f.text).cloned(),
        })
    }

    #[test]
    fn same_fields_as_the_full_parse() {
        let f = JsonlFields::default();
        let lines = [
            r#"{"id":"a","text":"hello","cluster":"c1","meta":{"x":[1,2,{"y":null}]}}"#,
            r#"{"id":7,"html":"<p>x</p>","url":"http://x/","text":"t"}"#,
            r#"{"i\u0064":"esc","te\u0078t":"k\u00e9y \"q\"","id":"last"}"#,
            r#"{"id":1.5e3,"text":["not","a","string"],"url":5}"#,
            r#"{"text":"no id"}"#,
            r#"  {"id":"s", "text":"spaces"}  "#,
            "{}",
        ];
        for line in lines {
            assert_eq!(pick(line.as_bytes(), &f), full(line, &f), "{line}");
        }
    }

    #[test]
    fn not_objects_and_bad_json_are_left_to_the_full_parse() {
        let f = JsonlFields::default();
        for line in [
            "[1,2]",
            "\"s\"",
            "{bad json",
            r#"{"id":"a"} x"#,
            r#"{"id":}"#,
        ] {
            assert_eq!(pick(line.as_bytes(), &f), None, "{line}");
        }
    }

    #[test]
    fn one_key_may_name_several_fields() {
        let f = JsonlFields {
            id: "body".into(),
            text: "body".into(),
            ..JsonlFields::default()
        };
        let line = r#"{"body":"both","id":"ignored"}"#;
        let p = pick(line.as_bytes(), &f).unwrap();
        assert_eq!(p, full(line, &f).unwrap());
        assert_eq!(p.id, Some(Value::String("both".into())));
    }
}
