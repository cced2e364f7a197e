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
//! document's text, units (8 bytes each) and key units (4 bytes per key).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::analysis::{Analysis, RefMatch};
use crate::decide::KeyMatch;
use crate::error::Error;
use crate::first_seen::First;
use crate::options::Keep;
use crate::spill::{u32_at, Decision, Occurrence, SpillDir};

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
    docs: BufWriter<File>,
    /// Index of the first document of this path.
    from: u32,
    count: u32,
    bytes: u64,
}

fn part_of(key: u64) -> usize {
    (key >> 56) as usize % PARTITIONS
}

impl Deferred {
    /// Starts a partitioned path at document `from` in `parent`, carrying
    /// over the streaming index's first occurrences.
    pub fn start(
        parent: &Path,
        from: u32,
        carried: impl Iterator<Item = (u64, First)>,
    ) -> Result<Deferred, Error> {
        let dir = SpillDir::create(parent)?;
        let mut parts = Vec::with_capacity(PARTITIONS);
        for p in 0..PARTITIONS {
            parts.push(dir.writer(&format!("keys-{p}"))?);
        }
        let docs = dir.writer("docs")?;
        let mut d = Deferred {
            dir,
            parts,
            docs,
            from,
            count: 0,
            bytes: 0,
        };
        for (key, f) in carried {
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

    /// Bytes written so far (documents and key occurrences).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Adds the next document (index `from + count`).
    pub fn push(&mut self, body: &Result<(String, Analysis), String>) -> Result<(), Error> {
        let doc = self.from + self.count;
        self.count += 1;
        let w = &mut self.docs;
        match write_doc_head(w, body)? {
            None => {
                if let Err(msg) = body {
                    self.bytes += msg.len() as u64;
                }
            }
            Some((text, a)) => {
                write_u32s(w, a.units.iter().flat_map(|&(s, e)| [s as u32, e as u32]))?;
                write_u32s(w, a.key_unit.iter().copied())?;
                write_refs(w, &a.references)?;
                for (i, (&key, &unit)) in a.keys.iter().zip(&a.key_unit).enumerate() {
                    let occ = Occurrence {
                        key,
                        doc,
                        unit,
                        key_idx: i as u32,
                    };
                    occ.write(&mut self.parts[part_of(key)])?;
                }
                self.bytes += text.len() as u64
                    + 8 * a.units.len() as u64
                    + (4 + Occurrence::SIZE as u64) * a.keys.len() as u64;
            }
        }
        Ok(())
    }

    /// Decides every partition, then gives the documents back in input
    /// order with their key matches.
    pub fn finish(
        mut self,
        keep: Keep,
        mut emit: impl FnMut(DeferredDoc) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.docs.flush()?;
        for w in &mut self.parts {
            w.flush()?;
        }
        self.parts.clear();
        for p in 0..PARTITIONS {
            self.decide_partition(p, keep)?;
        }
        let mut readers = Vec::with_capacity(PARTITIONS);
        let mut heap = BinaryHeap::new();
        for p in 0..PARTITIONS {
            let mut r = self.dir.reader(&format!("decisions-{p}"))?;
            if let Some(d) = Decision::read(&mut r)? {
                heap.push(Reverse((d, p)));
            }
            readers.push(r);
        }
        let mut docs = self.dir.reader("docs")?;
        for i in 0..self.count {
            let index = self.from + i;
            let body = read_doc(&mut docs, index)?;
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
            emit(DeferredDoc {
                index,
                body,
                matches,
            })?;
        }
        Ok(())
    }

    /// Sorts partition `p` by key and writes its decisions by document.
    fn decide_partition(&self, p: usize, keep: Keep) -> Result<(), Error> {
        let name = format!("keys-{p}");
        let mut occ = Occurrence::read_all(&self.dir.read_all(&name)?);
        self.dir.remove(&name);
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
        let mut w = self.dir.writer(&format!("decisions-{p}"))?;
        for d in &decisions {
            d.write(&mut w)?;
        }
        w.flush()?;
        Ok(())
    }
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
    let text = String::from_utf8(read_bytes(r)?)
        .map_err(|_| Error::corrupt(format!("document {index}: text is not UTF-8")))?;
    Ok(if tag[0] == 1 { Err(text) } else { Ok(text) })
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

fn read_doc(
    r: &mut BufReader<File>,
    index: u32,
) -> Result<Result<(String, Analysis), String>, Error> {
    let text = match read_doc_head(r, index)? {
        Ok(text) => text,
        Err(msg) => return Ok(Err(msg)),
    };
    let bad = |what: &str| Error::corrupt(format!("document {index}: {what}"));
    let units = read_u32s(r)?;
    let key_unit = read_u32s(r)?;
    let mut a = Analysis {
        units: units
            .chunks_exact(2)
            .map(|c| (c[0] as usize, c[1] as usize))
            .collect(),
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
    Ok(Ok((text, a)))
}
