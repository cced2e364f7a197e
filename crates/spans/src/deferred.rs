//! The partitioned index: for `--keep none`, and for `--keep first` once
//! the streaming index outgrows the memory budget.
//!
//! Every key occurrence goes to one of [`PARTITIONS`] files by its hash;
//! each document (its text, units and reference matches) to a documents
//! file. At the end each partition is read alone, sorted by key, and its
//! decisions (which key of which document was seen, first where) are
//! written sorted by document; the documents are then read back in input
//! order, with the decisions of all partitions merged, and go through the
//! same rule as the streaming path ([`crate::decide`]).
//!
//! Memory: one partition's occurrences (20 bytes each) and decisions (12
//! bytes each) at a time, so a corpus's keys may be 256 times the budget.
//! Disk: 20 bytes per key occurrence, 12 per repeated key, and each
//! document's text, units (8 bytes each) and key units (4 bytes per key),
//! compressed ([`crate::docs_file`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use crate::analysis::{Analysis, RefMatch};
use crate::decide::KeyMatch;
use crate::docs_file::{DocsReader, DocsWriter};
use crate::error::Error;
use crate::first_seen::First;
use crate::kept_text::{read_kept, write_kept, KEPT_TEXT};
use crate::options::Keep;
use crate::seen_filter::SeenFilter;
use crate::spill::{u32_at, Decision, Occurrence, SpillDir};
use crate::units::Range;

/// Number of partitions.
pub const PARTITIONS: usize = 256;

/// A document of a partitioned run, as read back.
#[derive(Debug)]
pub(crate) struct DeferredDoc {
    pub index: u32,
    pub body: Result<(String, Analysis), String>,
    pub matches: Vec<KeyMatch>,
}

/// Occurrences and documents on their way to disk.
pub(crate) struct Deferred {
    dir: SpillDir,
    parts: Vec<BufWriter<File>>,
    docs: DocsWriter,
    /// Index of the first document of this path.
    from: u32,
    count: u32,
    /// Bytes of key occurrences written.
    key_bytes: u64,
    /// Keys met, when documents keep the text of units that may repeat
    /// only.
    filter: Option<SeenFilter>,
    /// Scratch: which units of a document keep their text.
    kept: Vec<bool>,
}

fn part_of(key: u64) -> usize {
    (key >> 56) as usize % PARTITIONS
}

impl Deferred {
    /// Starts a partitioned path at document `from` in `parent`, carrying
    /// over the streaming index's first occurrences. With `filter` (for
    /// `--keep first` only), a document keeps the text of the units whose
    /// keys it may have met before only.
    pub fn start(
        parent: &Path,
        from: u32,
        carried: impl Iterator<Item = (u64, First)>,
        filter: Option<SeenFilter>,
    ) -> Result<Deferred, Error> {
        let dir = SpillDir::create(parent)?;
        let mut parts = Vec::with_capacity(PARTITIONS);
        for p in 0..PARTITIONS {
            parts.push(dir.writer(&format!("keys-{p}"))?);
        }
        let docs = DocsWriter::create(&dir, "docs")?;
        let mut d = Deferred {
            dir,
            parts,
            docs,
            from,
            count: 0,
            key_bytes: 0,
            filter,
            kept: Vec::new(),
        };
        for (key, f) in carried {
            if let Some(filter) = &mut d.filter {
                filter.insert(key);
            }
            let occ = Occurrence {
                key,
                doc: f.doc,
                unit: f.unit,
                key_idx: u32::MAX,
            };
            occ.write(&mut d.parts[part_of(key)])?;
        }
        Ok(d)
    }

    /// Bytes written so far (documents, compressed, and key occurrences).
    pub fn bytes(&self) -> u64 {
        self.key_bytes + self.docs.disk_bytes()
    }

    /// Adds the next document (index `from + count`).
    pub fn push(&mut self, body: &Result<(String, Analysis), String>) -> Result<(), Error> {
        let doc = self.from + self.count;
        self.count += 1;
        let w = &mut self.docs;
        if let (Some(filter), Ok((text, a))) = (&mut self.filter, body) {
            self.kept.clear();
            self.kept.resize(a.units.len(), false);
            for (&key, &unit) in a.keys.iter().zip(&a.key_unit) {
                if filter.insert(key) {
                    self.kept[unit as usize] = true;
                }
            }
            write_kept(w, text, a, &self.kept)?;
        } else if let Some((_, a)) = write_doc_head(w, body)? {
            write_ranges(w, &a.units)?;
            write_u32s(w, a.key_unit.iter().copied())?;
            write_refs(w, &a.references)?;
        }
        if let Ok((_, a)) = body {
            for (i, (&key, &unit)) in a.keys.iter().zip(&a.key_unit).enumerate() {
                let occ = Occurrence {
                    key,
                    doc,
                    unit,
                    key_idx: i as u32,
                };
                occ.write(&mut self.parts[part_of(key)])?;
            }
            self.key_bytes += Occurrence::SIZE as u64 * a.keys.len() as u64;
        }
        Ok(())
    }

    /// Decides every partition, then gives the documents back in input
    /// order with their key matches.
    pub fn finish(
        self,
        keep: Keep,
        mut emit: impl FnMut(DeferredDoc) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Deferred {
            dir,
            parts,
            docs,
            from,
            count,
            ..
        } = self;
        docs.finish()?;
        for mut w in parts {
            w.flush()?;
        }
        for p in 0..PARTITIONS {
            decide_partition(&dir, p, keep)?;
        }
        let mut readers = Vec::with_capacity(PARTITIONS);
        let mut heap = BinaryHeap::new();
        for p in 0..PARTITIONS {
            let mut r = dir.reader(&format!("decisions-{p}"))?;
            if let Some(d) = Decision::read(&mut r)? {
                heap.push(Reverse((d, p)));
            }
            readers.push(r);
        }
        let mut docs = DocsReader::open(&dir, "docs")?;
        for i in 0..count {
            let index = from + i;
            let (body, kept) = read_doc(&mut docs, index)?;
            let keys = body.as_ref().map_or(0, |(_, a)| a.keys.len());
            let mut matches: Vec<KeyMatch> = vec![None; keys];
            while let Some(Reverse((d, p))) = heap.peek().copied() {
                if d.doc != index {
                    break;
                }
                heap.pop();
                let slot = matches
                    .get_mut(d.key_idx as usize)
                    .ok_or_else(|| Error::corrupt(format!("document {index}: key out of range")))?;
                *slot = Some(d.first);
                if let Some(next) = Decision::read(&mut readers[p])? {
                    heap.push(Reverse((next, p)));
                }
            }
            if let (Some(kept), Ok((_, a))) = (&kept, &body) {
                // A key met before is in a unit that kept its text.
                let seen_unit = |(m, &u): (&KeyMatch, &u32)| m.is_some() && !kept[u as usize];
                if matches.iter().zip(&a.key_unit).any(seen_unit) {
                    return Err(Error::corrupt(format!(
                        "document {index}: a unit without its text repeats"
                    )));
                }
            }
            emit(DeferredDoc {
                index,
                body,
                matches,
            })?;
        }
        Ok(())
    }
}

/// Sorts partition `p` of `dir` by key and writes its decisions by
/// document.
fn decide_partition(dir: &SpillDir, p: usize, keep: Keep) -> Result<(), Error> {
    let name = format!("keys-{p}");
    let mut occ = Occurrence::read_all(&dir.read_all(&name)?);
    dir.remove(&name);
    occ.sort_unstable();
    let mut decisions = Vec::new();
    let mut i = 0;
    while i < occ.len() {
        let mut j = i + 1;
        while j < occ.len() && occ[j].key == occ[i].key {
            j += 1;
        }
        let group = &occ[i..j];
        let first = group[0];
        let same_unit = |o: &Occurrence| (o.doc, o.unit) == (first.doc, first.unit);
        let shared = group.iter().any(|o| !same_unit(o));
        for o in group {
            if o.key_idx == u32::MAX {
                continue;
            }
            let seen = match keep {
                Keep::First => !same_unit(o),
                Keep::None => shared,
            };
            if seen {
                decisions.push(Decision {
                    doc: o.doc,
                    key_idx: o.key_idx,
                    first: first.doc,
                });
            }
        }
        i = j;
    }
    drop(occ);
    decisions.sort_unstable();
    let mut w = dir.writer(&format!("decisions-{p}"))?;
    for d in &decisions {
        d.write(&mut w)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes the head of a document's record: a tag, then its text or the
/// error that kept it from being read. Returns the text and analysis when
/// it was read, for the caller to write the rest.
pub(crate) fn write_doc_head<'b>(
    w: &mut impl Write,
    body: &'b Result<(String, Analysis), String>,
) -> Result<Option<&'b (String, Analysis)>, Error> {
    match body {
        Err(msg) => {
            w.write_all(&[1])?;
            write_bytes(w, msg.as_bytes())?;
            Ok(None)
        }
        Ok(doc) => {
            w.write_all(&[0])?;
            write_bytes(w, doc.0.as_bytes())?;
            Ok(Some(doc))
        }
    }
}

/// Reads the head written by [`write_doc_head`]: the text, or the error.
pub(crate) fn read_doc_head(
    r: &mut impl Read,
    index: u32,
) -> Result<Result<String, String>, Error> {
    let mut tag = [0u8; 1];
    r.read_exact(&mut tag)?;
    read_text_after(r, tag[0], index)
}

/// The rest of a head whose tag `tag` was read.
fn read_text_after(
    r: &mut impl Read,
    tag: u8,
    index: u32,
) -> Result<Result<String, String>, Error> {
    let text = String::from_utf8(read_bytes(r)?)
        .map_err(|_| Error::corrupt(format!("document {index}: text is not UTF-8")))?;
    Ok(if tag == 1 { Err(text) } else { Ok(text) })
}

/// Writes a document's reference matches (byte ranges and items; the code
/// point offsets are computed again when read back).
pub(crate) fn write_refs(w: &mut impl Write, refs: &[RefMatch]) -> Result<(), Error> {
    write_u32s(
        w,
        refs.iter()
            .flat_map(|m| [m.range.0 as u32, m.range.1 as u32, m.reference]),
    )
}

/// Reads the matches written by [`write_refs`] for the document `text`,
/// checking that they lie in it (code point offsets left to
/// [`Analysis::fill_chars`]).
pub(crate) fn read_refs(r: &mut impl Read, text: &str, index: u32) -> Result<Vec<RefMatch>, Error> {
    let refs: Vec<RefMatch> = read_u32s(r)?
        .chunks_exact(3)
        .map(|c| RefMatch {
            range: (c[0] as usize, c[1] as usize),
            chars: (0, 0),
            reference: c[2],
        })
        .collect();
    if !refs
        .iter()
        .all(|m| m.range.0 <= m.range.1 && text.get(m.range.0..m.range.1).is_some())
    {
        return Err(Error::corrupt(format!(
            "document {index}: a range is outside the text"
        )));
    }
    Ok(refs)
}

pub(crate) fn write_bytes(w: &mut impl Write, b: &[u8]) -> Result<(), Error> {
    w.write_all(&(b.len() as u64).to_le_bytes())?;
    w.write_all(b)?;
    Ok(())
}

pub(crate) fn write_u32s(
    w: &mut impl Write,
    v: impl Iterator<Item = u32> + Clone,
) -> Result<(), Error> {
    let n = v.clone().count() as u64;
    w.write_all(&n.to_le_bytes())?;
    for x in v {
        w.write_all(&x.to_le_bytes())?;
    }
    Ok(())
}

/// Writes ranges (of bytes or code points), two `u32`s each.
pub(crate) fn write_ranges(w: &mut impl Write, ranges: &[Range]) -> Result<(), Error> {
    write_u32s(w, ranges.iter().flat_map(|&(s, e)| [s as u32, e as u32]))
}

/// Reads the ranges written by [`write_ranges`].
pub(crate) fn read_ranges(r: &mut impl Read) -> Result<Vec<Range>, Error> {
    let v = read_u32s(r)?;
    Ok(v.chunks_exact(2)
        .map(|c| (c[0] as usize, c[1] as usize))
        .collect())
}

fn read_len(r: &mut impl Read) -> Result<usize, Error> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    usize::try_from(u64::from_le_bytes(b)).map_err(|_| Error::corrupt("length out of range"))
}

pub(crate) fn read_bytes(r: &mut impl Read) -> Result<Vec<u8>, Error> {
    let n = read_len(r)?;
    let mut v = Vec::new();
    r.take(n as u64).read_to_end(&mut v)?;
    if v.len() != n {
        return Err(Error::corrupt("a record ends early"));
    }
    Ok(v)
}

pub(crate) fn read_u32s(r: &mut impl Read) -> Result<Vec<u32>, Error> {
    let b = read_bytes_of(r, 4)?;
    Ok(b.chunks_exact(4).map(|c| u32_at(c, 0)).collect())
}

fn read_bytes_of(r: &mut impl Read, width: usize) -> Result<Vec<u8>, Error> {
    let n = read_len(r)?;
    let mut v = Vec::new();
    r.take((n * width) as u64).read_to_end(&mut v)?;
    if v.len() != n * width {
        return Err(Error::corrupt("a record ends early"));
    }
    Ok(v)
}

/// A document read back: its text and analysis (or the error that kept it
/// from being read), and which units kept their text when not all did.
type ReadDoc = (Result<(String, Analysis), String>, Option<Vec<bool>>);

fn read_doc(r: &mut DocsReader, index: u32) -> Result<ReadDoc, Error> {
    let mut tag = [0u8; 1];
    r.read_exact(&mut tag)?;
    if tag[0] == KEPT_TEXT {
        let (text, a, kept) = read_kept(r, index)?;
        return Ok((Ok((text, a)), Some(kept)));
    }
    let text = match read_text_after(r, tag[0], index)? {
        Ok(text) => text,
        Err(msg) => return Ok((Err(msg), None)),
    };
    let bad = |what: &str| Error::corrupt(format!("document {index}: {what}"));
    let units = read_ranges(r)?;
    let key_unit = read_u32s(r)?;
    let mut a = Analysis {
        units,
        keys: vec![0; key_unit.len()],
        key_unit,
        references: read_refs(r, &text, index)?,
        ..Default::default()
    };
    let in_text = |&(s, e): &(usize, usize)| s <= e && text.get(s..e).is_some();
    if !a.units.iter().all(in_text) {
        return Err(bad("a range is outside the text"));
    }
    if a.key_unit.iter().any(|&u| u as usize >= a.units.len()) {
        return Err(bad("a key's unit is out of range"));
    }
    a.fill_chars(&text);
    Ok((Ok((text, a)), None))
}
