//! Tests of [`SigSpill`](super::SigSpill): slots as written, fed band
//! keys, replaced and damaged slots.

use super::*;
use crate::Dedup;

fn sigs() -> Vec<Option<Signature>> {
    let dedup = Dedup::new();
    (0..300)
        .map(|i| {
            (i % 5 != 2).then(|| {
                let text = format!(
                    "document number {i} says {} things «à la» 東京 {}",
                    i * 7,
                    i % 11
                );
                dedup.fingerprint(&text, &[]).expect("has words")
            })
        })
        .collect()
}

/// The band keys of a MinHash signature under `params`.
fn bands_of(sig: &Signature, params: LshParams) -> Vec<u64> {
    match sig {
        Signature::MinHash(m) => neardup_index::band_keys(params, m.values()).unwrap(),
        _ => unreachable!("the default method is MinHash"),
    }
}

#[test]
fn signatures_and_their_keys_come_back_as_written() {
    let dir = neardup_testkit::TempDir::new("sig-spill");
    let sigs = sigs();
    let dedup = Dedup::new();
    let seq = ShingleSeq::from_bytes(&[1, 0, 0, 0], 3).unwrap();
    // Whole, then keys for the documents with shingles (every third
    // keeps its signature: it has none).
    for keys_only in [None, SigSpill::keys_only(&dedup)] {
        let mut spill = SigSpill::with_keys(&dir, keys_only).unwrap();
        let shingles = |d: usize| (d % 3 != 0).then_some(&seq);
        for (d, s) in sigs.iter().enumerate() {
            spill.push(s.as_ref(), shingles(d)).unwrap();
        }
        assert_eq!(spill.len(), 300);
        assert_eq!(spill.keys_params().is_some(), keys_only.is_some());
        let docs: Vec<u32> = (0..300).rev().step_by(2).collect();
        let loaded = spill.load(&docs).unwrap();
        for &d in &docs {
            let whole = keys_only.is_none() || shingles(d as usize).is_none();
            let want = sigs[d as usize].as_ref().filter(|_| whole);
            assert_eq!(loaded.get(&d), want, "{d}");
            assert_eq!(spill.has(d), sigs[d as usize].is_some());
        }
        let all: Vec<u32> = (0..300).collect();
        let expected: Vec<(u32, u128)> = (0..300u32)
            .filter_map(|d| {
                let sig = sigs[d as usize].as_ref()?;
                Some((d, signature_key(sig, &mut Vec::new())))
            })
            .collect();
        assert_eq!(spill.keys(&all).unwrap(), expected);
        let with: Vec<u32> = all
            .iter()
            .copied()
            .filter(|&d| spill.has(d))
            .rev()
            .collect();
        let params = spill
            .keys_params()
            .unwrap_or_else(|| band_params(0.5, 128).unwrap());
        // A keys store fed its band keys to the sort instead.
        assert_eq!(spill.is_fed(), keys_only.is_some());
        if keys_only.is_none() {
            let streamed: Vec<Vec<u64>> = spill.band_keys(&with, params).collect();
            let want: Vec<Vec<u64>> = with
                .iter()
                .map(|&d| bands_of(sigs[d as usize].as_ref().unwrap(), params))
                .collect();
            assert_eq!(streamed, want);
        }
        for &d in &with {
            let sig = sigs[d as usize].as_ref().unwrap();
            assert!(spill.holds(d, sig).unwrap());
            let other = sigs.iter().flatten().find(|s| *s != sig).unwrap();
            assert!(!spill.holds(d, other).unwrap());
        }
    }
}

/// The candidate pairs of `docs` (ascending) whose band keys are those
/// of `sigs`, streamed the way a store without fed keys gives them.
fn streamed_pairs(sigs: &[Option<Signature>], docs: &[u32], p: LshParams) -> Vec<(u32, u32)> {
    let keys: Vec<Vec<u64>> = docs
        .iter()
        .map(|&d| bands_of(sigs[d as usize].as_ref().unwrap(), p))
        .collect();
    let mut lsh = neardup_index::MinHashLsh::new();
    lsh.set_params(p);
    let mut s = lsh.spill();
    s.set_run_records(50);
    let mut pairs = Vec::new();
    s.candidate_pairs_of_keys(&keys, &mut neardup_index::MemoryStorage::new(), |a, b| {
        pairs.push((a, b))
    })
    .unwrap();
    pairs
}

#[test]
fn fed_band_keys_give_the_pairs_of_the_current_signatures() {
    let dir = neardup_testkit::TempDir::new("sig-spill-fed");
    let mut sigs = sigs();
    let dedup = Dedup::new();
    let seq = ShingleSeq::from_bytes(&[1, 0, 0, 0], 3).unwrap();
    let mut keys_only = SigSpill::keys_only(&dedup).unwrap();
    keys_only.run_records = 64;
    let mut spill = SigSpill::with_keys(&dir, Some(keys_only)).unwrap();
    // Every third document keeps its whole signature (no shingles):
    // its keys are fed too.
    for (d, s) in sigs.iter().enumerate() {
        spill
            .push(s.as_ref(), (d % 3 != 0).then_some(&seq))
            .unwrap();
    }
    // Documents 1 and 4 change after their keys were fed: they now
    // copy documents 8 and 13.
    for (d, from) in [(1, 8), (4, 13)] {
        sigs[d] = sigs[from].clone();
        spill
            .replace(d, sigs[d].as_ref().unwrap(), (d % 3 != 0).then_some(&seq))
            .unwrap();
    }
    let params = spill.keys_params().unwrap();
    // A pass over some of the documents (positions renumber them).
    let docs: Vec<u32> = (0..300u32)
        .filter(|&d| sigs[d as usize].is_some() && d % 4 != 3)
        .collect();
    let want = streamed_pairs(&sigs, &docs, params);
    let pos = |d: u32| docs.binary_search(&d).unwrap() as u32;
    let mut positions = vec![u32::MAX; 300];
    for (k, &d) in docs.iter().enumerate() {
        positions[d as usize] = k as u32;
    }
    assert!(want.contains(&(pos(1), pos(8))) && want.contains(&(pos(4), pos(13))));
    let mut lsh = neardup_index::MinHashLsh::new();
    lsh.set_params(params);
    let mut got = Vec::new();
    let stats = spill
        .fed_pairs(&docs, &positions, &lsh.spill(), |a, b| got.push((a, b)))
        .unwrap();
    assert_eq!(got, want);
    assert!(stats.entry_runs > 10, "{stats:?}");
    // The keys were taken: a second pass has none.
    assert!(!spill.is_fed());
    assert!(spill
        .fed_pairs(&docs, &positions, &lsh.spill(), |_, _| {})
        .is_err());
    drop(spill);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn a_replaced_signature_is_read_from_its_new_place_and_a_damaged_one_is_an_error() {
    let dir = neardup_testkit::TempDir::new("sig-spill-replace");
    let sigs = sigs();
    let mut spill = SigSpill::create(&dir).unwrap();
    for s in sigs.iter().take(3) {
        spill.push(s.as_ref(), None).unwrap();
    }
    spill.replace(1, sigs[8].as_ref().unwrap(), None).unwrap();
    let loaded = spill.load(&[0, 1]).unwrap();
    assert_eq!(Some(&loaded[&1]), sigs[8].as_ref());
    assert_eq!(Some(&loaded[&0]), sigs[0].as_ref());
    let params = band_params(0.5, 128).unwrap();
    // A streamed document without a signature is an error, not a skip.
    let mut keys = spill.band_keys(&[0, 1], params);
    assert_eq!(keys.by_ref().count(), 2);
    assert!(keys.error().is_none());
    let mut bare = SigSpill::create(&dir).unwrap();
    bare.push(None, None).unwrap();
    let mut keys = bare.band_keys(&[0], params);
    assert_eq!(keys.next(), Some(Vec::new()));
    assert_eq!(keys.next(), None);
    assert!(keys.error().is_some());
    // Keys of other bands than those asked for are an error too.
    let seq = ShingleSeq::from_bytes(&[1, 0, 0, 0], 3).unwrap();
    let mut keyed = SigSpill::with_keys(&dir, SigSpill::keys_only(&Dedup::new())).unwrap();
    keyed.push(sigs[0].as_ref(), Some(&seq)).unwrap();
    let other = band_params(0.9, 128).unwrap();
    assert_ne!(keyed.keys_params(), Some(other));
    let mut keys = keyed.band_keys(&[0], other);
    assert_eq!(keys.next(), Some(Vec::new()));
    assert!(keys.error().is_some());
    // Damage every byte after the first 4 of the file: decoding fails.
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.extension().is_some_and(|x| x == "sigs") && std::fs::metadata(p).unwrap().len() > 0
        })
        .unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    for b in bytes.iter_mut().skip(4) {
        *b ^= 0x5a;
    }
    std::fs::write(&path, bytes).unwrap();
    assert!(spill.load(&[0]).is_err() || keyed.load(&[0]).is_err());
    drop((spill, bare, keyed));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}
