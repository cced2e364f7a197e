//! The arithmetic of `neardup.MinHash`, without Python: the permutations
//! `(a * h + b) mod (2^61 - 1)` (`a`, `b` from splitmix64 of the seed),
//! truncated to 32 bits as datasketch does, the minimum updates, the
//! estimate, and the pickled state (magic, version, seed, slots).

/// The Mersenne prime of the permutations.
pub const PRIME: u64 = (1 << 61) - 1;
/// The largest slot value (datasketch's `_max_hash`).
pub const MAX_HASH: u64 = u32::MAX as u64;
/// The magic and version of the pickled state.
const STATE_MAGIC: &[u8; 4] = b"NDMH";
const STATE_VERSION: u8 = 1;

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn mod_prime(x: u128) -> u64 {
    let lo = (x as u64) & PRIME;
    let hi = (x >> 61) as u64;
    let mut r = lo + (hi & PRIME) + (hi >> 61);
    while r >= PRIME {
        r -= PRIME;
    }
    r
}

/// The `n` permutations `(a, b)` of a seed: `a` in `[1, p)`, `b` in `[0, p)`.
pub fn permutations(seed: u64, n: usize) -> Vec<(u64, u64)> {
    let mut state = seed ^ 0x6E65_6172_6475_7021;
    (0..n)
        .map(|_| {
            let a = splitmix64(&mut state) % (PRIME - 1) + 1;
            let b = splitmix64(&mut state) % PRIME;
            (a, b)
        })
        .collect()
}

/// Lowers `values` to the minima of the permuted hashes `hashes`.
pub fn min_update(values: &mut [u32], perms: &[(u64, u64)], hashes: &[u64]) {
    if let [h] = hashes {
        let h = u128::from(mod_prime(u128::from(*h)));
        for (v, &(a, b)) in values.iter_mut().zip(perms) {
            let x = mod_prime(u128::from(a) * h + u128::from(b)) & MAX_HASH;
            *v = (*v).min(x as u32);
        }
        return;
    }
    let reduced: Vec<u128> = hashes
        .iter()
        .map(|&h| u128::from(mod_prime(u128::from(h))))
        .collect();
    for (v, &(a, b)) in values.iter_mut().zip(perms) {
        let (a, b) = (u128::from(a), u128::from(b));
        let mut m = u64::from(*v);
        for &h in &reduced {
            m = m.min(mod_prime(a * h + b) & MAX_HASH);
        }
        *v = m as u32;
    }
}

/// Estimated Jaccard similarity of two slot arrays of equal length.
pub fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() {
        return 1.0;
    }
    let eq = a.iter().zip(b).filter(|(x, y)| x == y).count();
    eq as f64 / a.len() as f64
}

/// The pickled state: magic, version, seed, count, values (little endian).
pub fn encode_state(seed: u64, values: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(17 + 4 * values.len());
    out.extend_from_slice(STATE_MAGIC);
    out.push(STATE_VERSION);
    out.extend_from_slice(&seed.to_le_bytes());
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Reads [`encode_state`]'s bytes back.
pub fn decode_state(data: &[u8]) -> Result<(u64, Vec<u32>), String> {
    if data.len() < 17 || &data[..4] != STATE_MAGIC {
        return Err("not a neardup MinHash state".into());
    }
    if data[4] != STATE_VERSION {
        return Err(format!("unknown MinHash state version {}", data[4]));
    }
    let seed = u64::from_le_bytes(data[5..13].try_into().expect("8 bytes"));
    let n = u32::from_le_bytes(data[13..17].try_into().expect("4 bytes")) as usize;
    let body = &data[17..];
    if body.len() != 4 * n {
        return Err("truncated MinHash state".into());
    }
    let values = body
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    Ok((seed, values))
}
