//! Parts of one input read alone: a range of lines of a JSON Lines file, a
//! range of row groups of a Parquet file. A reader that spreads a large
//! file over tasks (`neardup.spark.read_documents`) reads its parts with
//! these and gets, part after part, the items [`Inputs::read`] gives for
//! the whole file: the same records, the same ids (`PATH:LINE`,
//! `PATH:row-N`) and the same errors.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::compressed::{GZIP_MAGIC, ZSTD_MAGIC};
use crate::document::Item;
use crate::error::{DocError, DocErrorKind};
use crate::jsonl::JsonlReader;
use crate::source::Inputs;

impl Inputs {
    /// Whether a JSON Lines file is stored plain (not gzip or zstd), so
    /// that its lines can be read by byte ranges.
    pub fn jsonl_is_plain(path: &Path) -> bool {
        let mut head = [0u8; 4];
        let Ok(mut f) = File::open(path) else {
            return false;
        };
        let n = f.read(&mut head).unwrap_or(0);
        !(head[..n].starts_with(&GZIP_MAGIC) || head[..n].starts_with(&ZSTD_MAGIC))
    }

    /// The documents of the lines of a plain JSON Lines file that lie in
    /// bytes `start..end`, where both are line starts (or the file's end)
    /// and `lines_before` lines come before `start`: line numbers in ids
    /// and errors are the file's. The file's name in ids is `path` as
    /// given, as in [`Inputs::read`].
    pub fn read_jsonl_lines(
        &self,
        path: &Path,
        start: u64,
        end: u64,
        lines_before: u64,
    ) -> Box<dyn Iterator<Item = Item> + Send> {
        let name = path.display().to_string();
        let open = || -> std::io::Result<BufReader<std::io::Take<File>>> {
            let mut f = File::open(path)?;
            f.seek(SeekFrom::Start(start))?;
            Ok(BufReader::with_capacity(
                256 * 1024,
                f.take(end.saturating_sub(start)),
            ))
        };
        match open() {
            Ok(r) => {
                let reader: Box<dyn BufRead + Send> = Box::new(r);
                Box::new(
                    JsonlReader::new(
                        reader,
                        name,
                        self.config.fields.clone(),
                        self.config.max_document_bytes,
                    )
                    .after_lines(lines_before),
                )
            }
            Err(e) => Box::new(std::iter::once(Item::Error(DocError {
                id: name,
                kind: DocErrorKind::Read(e.to_string()),
            }))),
        }
    }

    /// The documents of row groups `first..end` of a Parquet file, `rows_before`
    /// rows before them: row numbers in ids and errors are the file's.
    #[cfg(feature = "parquet")]
    pub fn read_parquet_groups(
        &self,
        path: &Path,
        first: usize,
        end: usize,
        rows_before: u64,
    ) -> Box<dyn Iterator<Item = Item> + Send> {
        Box::new(
            crate::parquet_input::ParquetReader::new(
                path,
                self.config.fields.clone(),
                self.config.max_document_bytes,
            )
            .groups(first, end, rows_before),
        )
    }
}
