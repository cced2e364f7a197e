//! The token hashes of the last text a [`crate::Shingler`] normalized on
//! this thread, so that a second shingler given the same text right after
//! (a signature, then the exact verifier's shingle sequence of the same
//! document) does not normalize and tokenize it again.
//!
//! Token hashes depend on the text, the unit and the segmentation only (not
//! on the shingle length), so those are the key; the text is compared in
//! full, never by address. Texts longer than [`MAX_TEXT`] bytes are not
//! remembered, so a thread holds at most a few hundred kilobytes.

use std::cell::RefCell;

use crate::segment::CjkSegmentation;
use crate::shingle::ShingleUnit;

/// Longest text remembered, in bytes.
const MAX_TEXT: usize = 64 * 1024;

/// What the token hashes were computed with.
pub(crate) type Key = (ShingleUnit, CjkSegmentation);

#[derive(Default)]
struct Last {
    key: Option<Key>,
    text: String,
    hashes: Vec<u8>,
}

thread_local! {
    static LAST: RefCell<Last> = RefCell::new(Last::default());
}

/// Replaces `out` with the token hashes of `text` under `key` when they
/// are the last remembered on this thread; `false` otherwise.
pub(crate) fn recall(text: &str, key: Key, out: &mut Vec<u8>) -> bool {
    LAST.try_with(|last| {
        let last = last.borrow();
        if last.key == Some(key) && last.text == text {
            out.clear();
            out.extend_from_slice(&last.hashes);
            true
        } else {
            false
        }
    })
    .unwrap_or(false)
}

/// Remembers the token hashes of `text` under `key` (short texts only).
pub(crate) fn remember(text: &str, key: Key, hashes: &[u8]) {
    if text.len() > MAX_TEXT {
        return;
    }
    let _ = LAST.try_with(|last| {
        let mut last = last.borrow_mut();
        last.key = Some(key);
        last.text.clear();
        last.text.push_str(text);
        last.hashes.clear();
        last.hashes.extend_from_slice(hashes);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: Key = (ShingleUnit::Bigram, CjkSegmentation::Bigrams);

    #[test]
    fn recalls_only_the_same_text_and_key() {
        let mut out = vec![9u8];
        remember("same text", KEY, &[1, 2, 3]);
        assert!(recall("same text", KEY, &mut out));
        assert_eq!(out, [1, 2, 3]);
        // Same length, other content; other key; other text.
        assert!(!recall("same texT", KEY, &mut out));
        assert!(!recall(
            "same text",
            (ShingleUnit::Token, CjkSegmentation::Chars),
            &mut out
        ));
        assert!(!recall("other", KEY, &mut out));
        // Long texts are not remembered (the previous entry stays).
        remember(&"x".repeat(MAX_TEXT + 1), KEY, &[4]);
        assert!(!recall(&"x".repeat(MAX_TEXT + 1), KEY, &mut out));
        assert!(recall("same text", KEY, &mut out));
    }
}
