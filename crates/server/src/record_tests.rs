//! Tests of [`super::Record`]'s bytes.

use super::*;

fn sample() -> Record {
    Record {
        seq: 7,
        stored_at_ms: 1_700_000_000_000,
        text_len: 42,
        url: Some("https://example.com/a".into()),
        signature: Some(vec![1, 2, 3]),
        duplicate_of: Some(("orig".into(), 0.875)),
        original_seq: Some(3),
        text: Some("main text".into()),
        sketch: None,
        band_keys: None,
    }
}

#[test]
fn round_trips() {
    let r = sample();
    assert_eq!(Record::decode(&r.encode()).unwrap(), r);
    let bare = Record {
        url: None,
        signature: None,
        duplicate_of: None,
        original_seq: None,
        text: None,
        ..sample()
    };
    assert_eq!(Record::decode(&bare.encode()).unwrap(), bare);
    let sketched = Record {
        text: None,
        duplicate_of: None,
        original_seq: None,
        sketch: Some(vec![3, 9, 1, 0, 7, 7]),
        ..sample()
    };
    assert_eq!(Record::decode(&sketched.encode()).unwrap(), sketched);
    let banded = Record {
        signature: None,
        band_keys: Some((u128::MAX - 5, vec![7, u32::MAX, 0, 12])),
        ..sketched.clone()
    };
    let bytes = banded.encode();
    assert_eq!(Record::decode(&bytes).unwrap(), banded);
    assert_eq!(banded.key(), Some(u128::MAX - 5));
    assert!(
        banded.has_text()
            && !Record {
                band_keys: None,
                ..banded
            }
            .has_text()
    );
    assert!(bytes.len() < sketched.encode().len() + 16 + 20);
    // As written before the original's sequence number was recorded.
    let legacy = Record {
        original_seq: None,
        ..sample()
    };
    assert_eq!(Record::decode(&legacy.encode()).unwrap(), legacy);
}

#[test]
fn plain_texts_of_older_records_are_read() {
    // Version 1, seq 1, time 2, text length 5, flags: text only.
    let mut b = vec![1u8];
    b.extend(1u64.to_le_bytes());
    b.extend(2u64.to_le_bytes());
    b.extend(5u32.to_le_bytes());
    b.push(8);
    b.extend(5u32.to_le_bytes());
    b.extend(b"hello");
    assert_eq!(Record::decode(&b).unwrap().text.as_deref(), Some("hello"));
    // A compressed text longer than its recorded length is refused.
    let mut r = sample();
    r.text = Some("x".repeat(100));
    r.text_len = 100;
    let mut bytes = r.encode();
    bytes[17..21].copy_from_slice(&10u32.to_le_bytes());
    assert!(Record::decode(&bytes).is_err());
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = sample().encode();
    for n in 0..bytes.len() {
        assert!(Record::decode(&bytes[..n]).is_err(), "prefix {n}");
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(Record::decode(&extra).is_err());
    let mut newer = bytes;
    newer[0] = 2;
    assert!(Record::decode(&newer).is_err());
}
