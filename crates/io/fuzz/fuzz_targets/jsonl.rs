//! The JSON Lines reader on arbitrary bytes: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fields = neardup_io::JsonlFields::default();
    for item in neardup_io::JsonlReader::new(data, "fuzz.jsonl", fields, 1 << 16) {
        let _ = item;
    }
});
