//! What a spilled document keeps of its signature ([`SigSlot`]) and its
//! bytes on disk: the whole signature when a later step may verify a pair
//! on it, else only what the later steps read of it, the key of identical
//! signatures and the LSH band keys ([`crate::KeyRule::keeps_signature`]
//! decides). For 128 MinHash values that is 16 + 8 a band bytes (about
//! 200) instead of 524.
//!
//! Layout of a slot, little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 1 | `S`: a whole signature follows, or `K`: keys follow |
//! | rest (`S`) | [`Signature::to_bytes`] (its own magic, version and checksum) |
//! | 16 (`K`) | the signature's key ([`crate::batch::cluster`]'s `signature_key`) |
//! | 8 × bands (`K`) | the band keys ([`neardup_index::band_keys`]) |
//! | 4 (`K`) | the low 32 bits of xxh3-64 of everything before |
//!
//! A damaged or cut slot is an error, never a wrong key.

use neardup_sketch::Signature;

use crate::error::Error;

/// Tag of a slot holding a whole signature.
const FULL: u8 = b'S';
/// Tag of a slot holding keys only.
const KEYS: u8 = b'K';
/// Bytes of a keys slot besides its band keys.
const KEYS_FIXED: usize = 1 + 16 + 4;

/// A spilled document's signature, or what the later steps read of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SigSlot {
    /// The whole signature.
    Full(Signature),
    /// The key of identical signatures and the band keys.
    Keys {
        /// The signature's key.
        key: u128,
        /// Its LSH band keys, in band order.
        bands: Vec<u64>,
    },
}

/// Appends the slot of a whole signature.
pub(crate) fn write_full(sig: &Signature, out: &mut Vec<u8>) {
    out.push(FULL);
    out.extend(sig.to_bytes());
}

/// Appends the slot of keys only.
pub(crate) fn write_keys(key: u128, bands: &[u64], out: &mut Vec<u8>) {
    let start = out.len();
    out.push(KEYS);
    out.extend_from_slice(&key.to_le_bytes());
    for b in bands {
        out.extend_from_slice(&b.to_le_bytes());
    }
    let check = xxhash_rust::xxh3::xxh3_64(&out[start..]) as u32;
    out.extend_from_slice(&check.to_le_bytes());
}

fn damaged(what: &str) -> Error {
    Error::signature(format!("a spilled signature cannot be read back: {what}"))
}

/// The slot written by [`write_full`] or [`write_keys`].
///
/// # Errors
/// [`ErrorKind::Signature`](crate::ErrorKind::Signature) for bytes that are
/// not a slot: empty, an unknown tag, cut short, or a checksum that does
/// not match.
pub(crate) fn read_slot(bytes: &[u8]) -> Result<SigSlot, Error> {
    match bytes.split_first() {
        Some((&FULL, rest)) => Signature::from_bytes(rest)
            .map(SigSlot::Full)
            .map_err(|e| damaged(&e.to_string())),
        Some((&KEYS, rest)) => {
            if bytes.len() < KEYS_FIXED || (bytes.len() - KEYS_FIXED) % 8 != 0 {
                return Err(damaged("keys cut short"));
            }
            let (body, check) = bytes.split_at(bytes.len() - 4);
            let want = xxhash_rust::xxh3::xxh3_64(body) as u32;
            if check != want.to_le_bytes() {
                return Err(damaged("checksum mismatch"));
            }
            let (key, bands) = rest[..rest.len() - 4].split_at(16);
            let mut k = [0u8; 16];
            k.copy_from_slice(key);
            let bands = bands
                .chunks_exact(8)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(c);
                    u64::from_le_bytes(b)
                })
                .collect();
            Ok(SigSlot::Keys {
                key: u128::from_le_bytes(k),
                bands,
            })
        }
        Some(_) => Err(damaged("unknown slot")),
        None => Err(damaged("empty slot")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dedup, ErrorKind};

    fn signature() -> Signature {
        Dedup::new()
            .fingerprint("a short text of a few words for a signature", &[])
            .expect("has words")
    }

    #[test]
    fn slots_come_back_as_written() {
        let sig = signature();
        let mut bytes = Vec::new();
        write_full(&sig, &mut bytes);
        assert_eq!(read_slot(&bytes).unwrap(), SigSlot::Full(sig.clone()));
        let bands = vec![7, u64::MAX, 0, 1 << 40];
        let key = u128::MAX - 12_345;
        bytes.clear();
        write_keys(key, &bands, &mut bytes);
        assert_eq!(bytes.len(), KEYS_FIXED + 32);
        assert_eq!(read_slot(&bytes).unwrap(), SigSlot::Keys { key, bands });
        bytes.clear();
        write_keys(3, &[], &mut bytes);
        let empty = SigSlot::Keys {
            key: 3,
            bands: Vec::new(),
        };
        assert_eq!(read_slot(&bytes).unwrap(), empty);
    }

    #[test]
    fn cut_or_damaged_slots_are_typed_errors() {
        let mut keys = Vec::new();
        write_keys(99, &[1, 2, 3], &mut keys);
        let mut full = Vec::new();
        write_full(&signature(), &mut full);
        let is_signature_error = |b: &[u8]| matches!(read_slot(b), Err(e) if matches!(e.kind(), ErrorKind::Signature(_)));
        for bytes in [&keys, &full] {
            for cut in 0..bytes.len() {
                assert!(is_signature_error(&bytes[..cut]), "cut at {cut}");
            }
            for at in 0..bytes.len() {
                let mut damaged = bytes.clone();
                damaged[at] ^= 0x10;
                assert!(is_signature_error(&damaged), "byte {at}");
            }
        }
        assert!(is_signature_error(b"X123"));
    }
}
