//! Columns of numbers between the Spark kernels and Python as packed
//! little-endian bytes (NumPy's `frombuffer`/`tobytes` on the Python side),
//! not as lists of Python integers: a column of millions of postings or
//! hashes then crosses in one copy instead of one object per value.

/// A column of 64-bit integers from its little-endian bytes.
pub(crate) fn i64s(bytes: &[u8], what: &str) -> Result<Vec<i64>, String> {
    if bytes.len() % 8 != 0 {
        return Err(format!(
            "{what}: {} bytes are not 64-bit integers",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect())
}

/// A column of 32-bit integers from its little-endian bytes.
pub(crate) fn u32s(bytes: &[u8], what: &str) -> Result<Vec<u32>, String> {
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{what}: {} bytes are not 32-bit integers",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// A column of 64-bit floats from its little-endian bytes.
pub(crate) fn f64s(bytes: &[u8], what: &str) -> Result<Vec<f64>, String> {
    Ok(i64s(bytes, what)?
        .into_iter()
        .map(|b| f64::from_bits(b as u64))
        .collect())
}

/// The little-endian bytes of a column of 64-bit floats.
pub(crate) fn f64_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The little-endian bytes of a column of 64-bit integers.
pub(crate) fn i64_bytes(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The little-endian bytes of a column of 32-bit integers.
pub(crate) fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_round_trip_and_ragged_bytes_are_refused() {
        let v = vec![-1i64, 0, i64::MAX, 7];
        assert_eq!(i64s(&i64_bytes(&v), "x").unwrap(), v);
        let w = vec![0u32, u32::MAX, 9];
        assert_eq!(u32s(&u32_bytes(&w), "x").unwrap(), w);
        assert!(i64s(&[0; 7], "x").is_err());
        assert!(u32s(&[0; 5], "x").is_err());
    }
}
