//! The records of spill runs and their bytes: each record is written as
//! its difference from the record before it (the first from all zeros),
//! field by field in LEB128 varints, so that a sorted run takes a few
//! bytes a record instead of its fixed width.
//!
//! A field is the difference from the previous record's field while every
//! field before it is equal, else its value: in a sorted run of band
//! entries `(band, key, doc)` the band costs one byte, the key the bits of
//! its gap to the previous key of the band (about 47 of 64 for 2^17
//! entries a band), the document its id's bits. Differences wrap, so any
//! order round-trips; sorted runs are the small ones.

use crate::error::{Error, ErrorKind, Result};

/// A totally ordered record of a spill run.
pub(crate) trait Record: Copy + Ord + Default {
    /// Bytes of one record at most.
    const MAX_SIZE: usize;
    /// Kind written in the run's header.
    const KIND: u32;
    /// Appends `self`, given the record before it (`Default` first).
    fn encode(&self, prev: &Self, out: &mut Vec<u8>);
    /// The record after `prev`, its bytes taken from `next` one at a time.
    fn decode(prev: &Self, next: &mut impl FnMut() -> Result<u8>) -> Result<Self>;
}

fn corrupt(what: &'static str) -> Error {
    Error::new(ErrorKind::Corrupt(what))
}

/// Appends `v` as a LEB128 varint.
fn put(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A LEB128 varint of at most `bits` bits.
fn get(bits: u32, next: &mut impl FnMut() -> Result<u8>) -> Result<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let b = next()?;
        let part = u64::from(b & 0x7f);
        if shift >= bits || (shift > 0 && part >> (bits - shift).min(63) != 0) {
            return Err(corrupt("varint out of range"));
        }
        v |= part << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        shift += 7;
    }
}

/// A field after `prev`: its difference while the fields before are equal.
fn field(value: u64, prev: u64, same_so_far: bool) -> u64 {
    if same_so_far {
        value.wrapping_sub(prev)
    } else {
        value
    }
}

/// The value of a field read by [`get`].
fn unfield(read: u64, prev: u64, same_so_far: bool, mask: u64) -> u64 {
    if same_so_far {
        read.wrapping_add(prev) & mask
    } else {
        read
    }
}

/// `(band, key, doc)` of the LSH spill.
impl Record for (u32, u64, u32) {
    const MAX_SIZE: usize = 5 + 10 + 5;
    const KIND: u32 = 1;
    fn encode(&self, prev: &Self, out: &mut Vec<u8>) {
        let band = field(u64::from(self.0), u64::from(prev.0), true) & 0xffff_ffff;
        put(band, out);
        let key = field(self.1, prev.1, band == 0);
        put(key, out);
        let doc = u64::from(self.2);
        put(
            field(doc, u64::from(prev.2), band == 0 && key == 0) & 0xffff_ffff,
            out,
        );
    }
    fn decode(prev: &Self, next: &mut impl FnMut() -> Result<u8>) -> Result<Self> {
        let band_d = get(32, next)?;
        let band = unfield(band_d, u64::from(prev.0), true, 0xffff_ffff);
        let key_d = get(64, next)?;
        let key = unfield(key_d, prev.1, band_d == 0, u64::MAX);
        let doc_d = get(32, next)?;
        let same = band_d == 0 && key_d == 0;
        let doc = unfield(doc_d, u64::from(prev.2), same, 0xffff_ffff);
        Ok((band as u32, key, doc as u32))
    }
}

/// A candidate pair.
impl Record for (u32, u32) {
    const MAX_SIZE: usize = 5 + 5;
    const KIND: u32 = 2;
    fn encode(&self, prev: &Self, out: &mut Vec<u8>) {
        let a = field(u64::from(self.0), u64::from(prev.0), true) & 0xffff_ffff;
        put(a, out);
        put(
            field(u64::from(self.1), u64::from(prev.1), a == 0) & 0xffff_ffff,
            out,
        );
    }
    fn decode(prev: &Self, next: &mut impl FnMut() -> Result<u8>) -> Result<Self> {
        let a_d = get(32, next)?;
        let a = unfield(a_d, u64::from(prev.0), true, 0xffff_ffff);
        let b_d = get(32, next)?;
        let b = unfield(b_d, u64::from(prev.1), a_d == 0, 0xffff_ffff);
        Ok((a as u32, b as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip<R: Record + std::fmt::Debug>(records: &[R]) -> usize {
        let mut bytes = Vec::new();
        let mut prev = R::default();
        for r in records {
            let before = bytes.len();
            r.encode(&prev, &mut bytes);
            assert!(bytes.len() - before <= R::MAX_SIZE);
            prev = *r;
        }
        let mut at = 0;
        let mut next = || {
            let b = bytes.get(at).copied().ok_or_else(|| corrupt("truncated"));
            at += 1;
            b
        };
        let mut prev = R::default();
        for r in records {
            let got = R::decode(&prev, &mut next).unwrap();
            assert_eq!(got, *r);
            prev = got;
        }
        bytes.len()
    }

    #[test]
    fn records_round_trip_in_any_order_and_sorted_ones_are_small() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut entries: Vec<(u32, u64, u32)> = (0..20_000)
            .map(|_| ((rand() % 32) as u32, rand(), (rand() % 1_000_000) as u32))
            .collect();
        entries.extend([(u32::MAX, u64::MAX, u32::MAX), (0, 0, 0), (5, 9, 0)]);
        roundtrip(&entries);
        entries.sort_unstable();
        entries.dedup();
        let sorted = roundtrip(&entries);
        assert!(sorted < entries.len() * 13, "{sorted} bytes");
        let mut pairs: Vec<(u32, u32)> = (0..5000)
            .map(|_| ((rand() % 3000) as u32, rand() as u32))
            .collect();
        pairs.push((u32::MAX, 0));
        roundtrip(&pairs);
        pairs.sort_unstable();
        roundtrip(&pairs);
    }

    #[test]
    fn an_overlong_or_cut_varint_is_corrupt() {
        let next_of = |bytes: Vec<u8>| {
            let mut it = bytes.into_iter();
            move || it.next().ok_or_else(|| corrupt("truncated"))
        };
        let kind = |r: Result<(u32, u32)>| match r.unwrap_err().kind() {
            ErrorKind::Corrupt(w) => *w,
            other => panic!("{other:?}"),
        };
        let mut long = next_of(vec![0xff, 0xff, 0xff, 0xff, 0x7f, 0]);
        let out_of_range = "varint out of range";
        assert_eq!(kind(<(u32, u32)>::decode(&(0, 0), &mut long)), out_of_range);
        let mut endless = next_of(vec![0x80; 12]);
        assert_eq!(
            kind(<(u32, u32)>::decode(&(0, 0), &mut endless)),
            out_of_range
        );
        let mut cut = next_of(vec![0x81]);
        assert_eq!(kind(<(u32, u32)>::decode(&(0, 0), &mut cut)), "truncated");
    }
}
