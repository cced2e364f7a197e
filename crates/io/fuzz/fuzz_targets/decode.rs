//! Charset determination and decoding on arbitrary bytes, with and without
//! an HTTP header: must never panic, and must always return text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (header, body) = match data.split_first() {
        Some((&n, rest)) if (n as usize) <= rest.len() => {
            let (h, b) = rest.split_at(n as usize);
            (Some(String::from_utf8_lossy(h).into_owned()), b)
        }
        _ => (None, data),
    };
    let d = neardup_io::decode_html(body, header.as_deref());
    assert!(!d.charset.is_empty());
});
