//! Parquet input: one document per row, with the same field names as JSON
//! Lines (`id`, `text` or `html`, optional `url`). Read one row group at a
//! time, so memory holds one row group's texts, not the file's.

use std::fs::File;
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};

use crate::document::{Content, Item, RawDocument};
use crate::error::{DocError, DocErrorKind};
use crate::jsonl::JsonlFields;

/// Items of a Parquet file, row group by row group.
pub(crate) struct ParquetReader {
    path: PathBuf,
    name: String,
    fields: JsonlFields,
    limit: u64,
    group: usize,
    groups: Option<usize>,
    /// The row group to stop before (`None`: the file's end).
    end: Option<usize>,
    row: u64,
    pending: std::vec::IntoIter<Item>,
    done: bool,
}

impl ParquetReader {
    pub(crate) fn new(path: &Path, fields: JsonlFields, limit: u64) -> ParquetReader {
        ParquetReader {
            path: path.to_path_buf(),
            name: path.display().to_string(),
            fields,
            limit,
            group: 0,
            groups: None,
            end: None,
            row: 0,
            pending: Vec::new().into_iter(),
            done: false,
        }
    }

    /// Only row groups `first..end`, with `rows_before` rows before them.
    pub(crate) fn groups(mut self, first: usize, end: usize, rows_before: u64) -> ParquetReader {
        self.group = first;
        self.end = Some(end);
        self.row = rows_before;
        self
    }

    fn error(&self, id: String, msg: String) -> Item {
        Item::Error(DocError {
            id,
            kind: DocErrorKind::Read(msg),
        })
    }

    /// Reads the next row group into `pending`; `Err` ends the file.
    fn load_group(&mut self) -> Result<bool, String> {
        let file = File::open(&self.path).map_err(|e| e.to_string())?;
        let reader =
            SerializedFileReader::new(file).map_err(|e| format!("not a Parquet file: {e}"))?;
        let mut groups = *self.groups.get_or_insert(reader.num_row_groups());
        if let Some(end) = self.end {
            groups = groups.min(end);
        }
        if self.group >= groups {
            return Ok(false);
        }
        let rg = reader
            .get_row_group(self.group)
            .map_err(|e| e.to_string())?;
        let rows = rg.get_row_iter(None).map_err(|e| e.to_string())?;
        let mut items = Vec::new();
        for row in rows {
            self.row += 1;
            items.push(match row {
                Ok(row) => self.item(&row),
                Err(e) => self.error(format!("{}:row-{}", self.name, self.row), e.to_string()),
            });
        }
        self.group += 1;
        self.pending = items.into_iter();
        Ok(true)
    }

    fn item(&self, row: &Row) -> Item {
        let mut id = None;
        let mut url = None;
        let mut text = None;
        let mut html = None;
        for (name, field) in row.get_column_iter() {
            let value = match field {
                Field::Str(s) => Some(s.clone().into_bytes()),
                Field::Bytes(b) => Some(b.data().to_vec()),
                Field::Int(i) => Some(i.to_string().into_bytes()),
                Field::Long(i) => Some(i.to_string().into_bytes()),
                Field::UInt(i) => Some(i.to_string().into_bytes()),
                Field::ULong(i) => Some(i.to_string().into_bytes()),
                _ => None,
            };
            if *name == self.fields.id {
                id = value.map(|v| String::from_utf8_lossy(&v).into_owned());
            } else if *name == self.fields.url {
                url = value.map(|v| String::from_utf8_lossy(&v).into_owned());
            } else if *name == self.fields.text {
                text = value;
            } else if *name == self.fields.html {
                html = value;
            }
        }
        let id = id.unwrap_or_else(|| format!("{}:row-{}", self.name, self.row));
        let size = html
            .as_ref()
            .or(text.as_ref())
            .map_or(0, |v| v.len() as u64);
        if size > self.limit {
            return Item::Error(DocError {
                id,
                kind: DocErrorKind::TooLarge {
                    size,
                    limit: self.limit,
                },
            });
        }
        let content = match (html, text) {
            (Some(bytes), _) => Content::Html {
                bytes,
                content_type: None,
            },
            (None, Some(t)) => Content::Text(String::from_utf8_lossy(&t).into_owned()),
            (None, None) => {
                let msg = format!(
                    "row {}: no column {:?} or {:?}",
                    self.row, self.fields.html, self.fields.text
                );
                return self.error(id, msg);
            }
        };
        Item::Document(RawDocument { id, url, content })
    }
}

impl Iterator for ParquetReader {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.pending.next() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            match self.load_group() {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(msg) => {
                    self.done = true;
                    return Some(self.error(self.name.clone(), msg));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_testkit::TempDir;
    use std::sync::Arc;

    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    fn write(path: &Path, groups: &[&[(&str, Option<&str>)]]) {
        let schema = Arc::new(
            parse_message_type(
                "message doc { REQUIRED BYTE_ARRAY id (UTF8); OPTIONAL BYTE_ARRAY text (UTF8); }",
            )
            .unwrap(),
        );
        let props = Arc::new(WriterProperties::builder().build());
        let mut w = SerializedFileWriter::new(File::create(path).unwrap(), schema, props).unwrap();
        for rows in groups {
            let mut rg = w.next_row_group().unwrap();
            let ids: Vec<ByteArray> = rows.iter().map(|(i, _)| ByteArray::from(*i)).collect();
            let mut col = rg.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>()
                .write_batch(&ids, None, None)
                .unwrap();
            col.close().unwrap();
            let texts: Vec<ByteArray> = rows
                .iter()
                .filter_map(|(_, t)| t.map(ByteArray::from))
                .collect();
            let defs: Vec<i16> = rows.iter().map(|(_, t)| i16::from(t.is_some())).collect();
            let mut col = rg.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>()
                .write_batch(&texts, Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            rg.close().unwrap();
        }
        w.close().unwrap();
    }

    #[test]
    fn reads_rows_of_every_group_and_reports_bad_rows() {
        let dir = TempDir::new("parquet-rows");
        let path = dir.join("docs.parquet");
        write(
            &path,
            &[
                &[("a", Some("first text")), ("b", None)],
                &[("c", Some("third"))],
            ],
        );
        let items: Vec<Item> = ParquetReader::new(&path, JsonlFields::default(), 1 << 20).collect();
        assert_eq!(items.len(), 3, "{items:?}");
        assert!(
            matches!(&items[0], Item::Document(d) if d.id == "a" && d.content == Content::Text("first text".into()))
        );
        assert!(matches!(&items[1], Item::Error(e) if e.id == "b"));
        assert!(matches!(&items[2], Item::Document(d) if d.id == "c"));
    }

    #[test]
    fn garbage_is_one_error() {
        let dir = TempDir::new("parquet-garbage");
        let path = dir.write("bad.parquet", b"not parquet at all");
        let items: Vec<Item> = ParquetReader::new(&path, JsonlFields::default(), 1 << 20).collect();
        assert!(matches!(&items[..], [Item::Error(e)] if e.to_string().contains("Parquet")));
    }
}
