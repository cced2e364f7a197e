//! The WARC reader and the raw record reader on arbitrary bytes: never a
//! panic, and every item is accounted for.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for item in neardup_io::WarcReader::new(data, "fuzz.warc", 1 << 20) {
        if let neardup_io::Item::Document(d) = item {
            let _ = d.decode();
        }
    }
    for record in neardup_io::RawRecords::new(data, 1 << 20) {
        assert!(record.bytes.starts_with(b"WARC/"));
    }
});
