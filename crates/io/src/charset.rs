//! Charset determination and decoding of HTML bytes.
//!
//! The order is the one browsers follow: a byte order mark, then the HTTP
//! `Content-Type` header, then a `<meta charset>` or `http-equiv` declaration
//! found by a prescan of the document's head, then statistical detection
//! (chardetng) over the first bytes. Declarations are checked against the
//! bytes, since real pages often lie: a page declared in a legacy charset
//! whose bytes are valid UTF-8 with non-ASCII text is decoded as UTF-8, and a
//! page declared UTF-8 whose bytes are mostly invalid UTF-8 is detected.

use encoding_rs::{Encoding, UTF_8};

use crate::prescan::meta_charset;

/// How many leading bytes the detector looks at.
const DETECT_BYTES: usize = 64 * 1024;

/// Where the charset of a decoded document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CharsetSource {
    /// A byte order mark.
    Bom,
    /// The HTTP `Content-Type` header.
    Http,
    /// A `<meta>` declaration in the document.
    Meta,
    /// Statistical detection on the bytes (also used when a declaration
    /// contradicted the bytes).
    Detected,
}

/// A document decoded to text.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The decoded text (malformed sequences replaced by U+FFFD).
    pub text: String,
    /// The WHATWG name of the encoding used, e.g. `UTF-8`, `GBK`, `windows-1252`.
    pub charset: &'static str,
    /// Where the encoding came from.
    pub source: CharsetSource,
    /// Whether malformed byte sequences were replaced.
    pub had_errors: bool,
}

/// Decodes HTML bytes, choosing the charset as described in the module
/// documentation. `http_content_type` is the value of an HTTP `Content-Type`
/// header, if any.
///
/// ```
/// let bytes = b"<meta charset=gbk><p>\xc4\xe3\xba\xc3</p>";
/// let d = neardup_io::decode_html(bytes, None);
/// assert_eq!(d.charset, "GBK");
/// assert!(d.text.contains("你好"));
/// ```
pub fn decode_html(bytes: &[u8], http_content_type: Option<&str>) -> Decoded {
    decode_html_for_url(bytes, http_content_type, None)
}

/// [`decode_html`] for a page whose URL is known: its top-level domain
/// guides detection when nothing is declared, as browsers do (a `.cn` page
/// is more likely GBK than windows-1252).
///
/// ```
/// let gbk = b"<p>\xa1\xbe2005\xc4\xea\xd6\xd0\xb9\xfa\xb8\xef\xc3\xfc\xa1\xbf</p>";
/// let d = neardup_io::decode_html_for_url(gbk, None, Some("http://bbs.example.cn/a.html"));
/// assert_eq!(d.charset, "GBK");
/// ```
pub fn decode_html_for_url(
    bytes: &[u8],
    http_content_type: Option<&str>,
    url: Option<&str>,
) -> Decoded {
    let tld = url.and_then(top_level_domain);
    decode_with_tld(bytes, http_content_type, tld.as_deref())
}

/// The lower-case ASCII top-level domain of a URL's host, if it has one.
fn top_level_domain(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.trim_end_matches('.');
    let tld = host.rsplit('.').next()?.to_ascii_lowercase();
    let ok = !tld.is_empty()
        && host.contains('.')
        && tld
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    ok.then_some(tld)
}

/// [`decode_html_for_url`] taking the bytes: UTF-8 text without a byte
/// order mark becomes the `String` in place, without a copy.
pub fn decode_html_owned(
    bytes: Vec<u8>,
    http_content_type: Option<&str>,
    url: Option<&str>,
) -> Decoded {
    let tld = url.and_then(top_level_domain);
    let (enc, skip, source) = choose(&bytes, http_content_type, tld.as_deref());
    if enc != UTF_8 || skip != 0 {
        return finish(enc, bytes.get(skip..).unwrap_or_default(), source);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Decoded {
            text,
            charset: enc.name(),
            source,
            had_errors: false,
        },
        Err(e) => finish(enc, e.as_bytes(), source),
    }
}

fn decode_with_tld(bytes: &[u8], http_content_type: Option<&str>, tld: Option<&str>) -> Decoded {
    let (enc, skip, source) = choose(bytes, http_content_type, tld);
    finish(enc, bytes.get(skip..).unwrap_or_default(), source)
}

/// The charset of `bytes`, how many bytes of byte order mark precede the
/// text, and where the charset came from.
fn choose(
    bytes: &[u8],
    http_content_type: Option<&str>,
    tld: Option<&str>,
) -> (&'static Encoding, usize, CharsetSource) {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return (enc, bom_len, CharsetSource::Bom);
    }
    let declared = http_content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .map(|e| (e, CharsetSource::Http))
        .or_else(|| meta_charset(bytes).map(|e| (e, CharsetSource::Meta)));
    match declared {
        Some((enc, source)) => {
            let enc = html_compatible(enc);
            if enc != UTF_8 && is_non_ascii_utf8(bytes) {
                return (UTF_8, 0, CharsetSource::Detected);
            }
            if enc == UTF_8 && mostly_invalid_utf8(bytes) {
                let guess = detect(bytes, tld);
                if guess != UTF_8 {
                    return (guess, 0, CharsetSource::Detected);
                }
            }
            if enc.is_single_byte() {
                if let Some(multi) = legacy_multibyte(bytes, tld) {
                    return (multi, 0, CharsetSource::Detected);
                }
            }
            (enc, 0, source)
        }
        None => (detect(bytes, tld), 0, CharsetSource::Detected),
    }
}

/// Extracts the `charset` parameter of a `Content-Type` value.
pub fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if name.trim().eq_ignore_ascii_case("charset") {
            let v = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
            (!v.is_empty()).then_some(v)
        } else {
            None
        }
    })
}

/// The HTML standard replaces UTF-16 declarations found in ASCII-compatible
/// bytes by UTF-8, and `x-user-defined` by windows-1252.
fn html_compatible(enc: &'static Encoding) -> &'static Encoding {
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        UTF_8
    } else if enc == encoding_rs::X_USER_DEFINED {
        encoding_rs::WINDOWS_1252
    } else {
        enc
    }
}

fn finish(enc: &'static Encoding, bytes: &[u8], source: CharsetSource) -> Decoded {
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    Decoded {
        text: text.into_owned(),
        charset: enc.name(),
        source,
        had_errors,
    }
}

/// Valid UTF-8 with at least a few multi-byte sequences: a legacy charset
/// almost never produces that by chance.
fn is_non_ascii_utf8(bytes: &[u8]) -> bool {
    let sample = utf8_prefix(bytes, DETECT_BYTES);
    std::str::from_utf8(sample).is_ok() && sample.iter().filter(|&&b| b >= 0xC0).count() >= 4
}

/// More than a quarter of the non-ASCII sequences in the sample are invalid.
fn mostly_invalid_utf8(bytes: &[u8]) -> bool {
    let sample = utf8_prefix(bytes, DETECT_BYTES);
    if std::str::from_utf8(sample).is_ok() {
        return false;
    }
    let (text, _) = UTF_8.decode_without_bom_handling(sample);
    let mut bad = 0usize;
    let mut non_ascii = 0usize;
    for c in text.chars() {
        if c == char::REPLACEMENT_CHARACTER {
            bad += 1;
        }
        if !c.is_ascii() {
            non_ascii += 1;
        }
    }
    bad >= 4 && bad * 4 > non_ascii
}

/// The first `limit` bytes, cut back so as not to end inside a UTF-8 sequence.
fn utf8_prefix(bytes: &[u8], limit: usize) -> &[u8] {
    if bytes.len() <= limit {
        return bytes;
    }
    let mut end = limit;
    // Step back over continuation bytes and the lead byte they belong to.
    while end > 0 && end > limit.saturating_sub(4) {
        match bytes.get(end) {
            Some(b) if (0x80..0xC0).contains(b) => end -= 1,
            _ => break,
        }
    }
    bytes.get(..end).unwrap_or(bytes)
}

/// The legacy multi-byte encodings that pages mislabel as a single-byte
/// one (a Shift_JIS page served as windows-1252 by a misconfigured server).
const MULTIBYTE: [&Encoding; 6] = [
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_JP,
    encoding_rs::GBK,
    encoding_rs::GB18030,
    encoding_rs::BIG5,
    encoding_rs::EUC_KR,
];

/// For a page declared in a single-byte charset: the CJK multi-byte
/// encoding its bytes really are, when detection says so and the sample
/// decodes in it without a single error (text in windows-1252 and its
/// kin almost never does, having accented letters between ASCII).
fn legacy_multibyte(bytes: &[u8], tld: Option<&str>) -> Option<&'static Encoding> {
    let sample = bytes.get(..DETECT_BYTES).unwrap_or(bytes);
    if sample.iter().filter(|&&b| b >= 0x80).count() < 16 {
        return None;
    }
    let guess = detect(bytes, tld);
    if !MULTIBYTE.contains(&guess) {
        return None;
    }
    let mut decoder = guess.new_decoder_without_bom_handling();
    let mut out =
        String::with_capacity(decoder.max_utf8_buffer_length_without_replacement(sample.len())?);
    let last = sample.len() == bytes.len();
    let (result, _) = decoder.decode_to_string_without_replacement(sample, &mut out, last);
    (result == encoding_rs::DecoderResult::InputEmpty).then_some(guess)
}

/// Statistical detection over the first bytes, helped by the top-level
/// domain when known.
fn detect(bytes: &[u8], tld: Option<&str>) -> &'static Encoding {
    let sample = bytes.get(..DETECT_BYTES).unwrap_or(bytes);
    if std::str::from_utf8(utf8_prefix(bytes, DETECT_BYTES)).is_ok() {
        return UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(sample, sample.len() == bytes.len());
    detector.guess(tld.map(str::as_bytes), chardetng::Utf8Detection::Allow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins_over_everything() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("<meta charset=gbk>é".as_bytes());
        let d = decode_html(&bytes, Some("text/html; charset=iso-8859-1"));
        assert_eq!((d.charset, d.source), ("UTF-8", CharsetSource::Bom));
        assert!(d.text.ends_with('é'));
        assert!(!d.text.starts_with('\u{feff}'));
    }

    #[test]
    fn http_header_before_meta() {
        let d = decode_html(
            b"<meta charset=gbk><p>caf\xe9</p>",
            Some("text/html; charset=latin1"),
        );
        assert_eq!((d.charset, d.source), ("windows-1252", CharsetSource::Http));
        assert!(d.text.contains("café"));
    }

    #[test]
    fn meta_http_equiv() {
        let html = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb2312\"></head><body>\xd6\xd0\xce\xc4</body>";
        let d = decode_html(html, Some("text/html"));
        assert_eq!((d.charset, d.source), ("GBK", CharsetSource::Meta));
        assert!(d.text.contains("中文"));
    }

    #[test]
    fn utf8_bytes_override_wrong_legacy_declaration() {
        let html = "<meta charset=iso-8859-1><p>Grüße aus Köln, ça va très bien</p>";
        let d = decode_html(html.as_bytes(), None);
        assert_eq!((d.charset, d.source), ("UTF-8", CharsetSource::Detected));
        assert!(d.text.contains("Grüße"));
    }

    #[test]
    fn invalid_utf8_declared_utf8_is_detected() {
        let gbk = encoding_rs::GBK.encode("<meta charset=utf-8><p>这是一个用中文写的段落，内容足够长以便检测器判断编码。我们再多写一些文字。</p>").0;
        let d = decode_html(&gbk, None);
        assert_eq!(d.source, CharsetSource::Detected);
        assert!(d.text.contains("中文"), "{}", d.charset);
    }

    #[test]
    fn undeclared_legacy_is_detected() {
        let bytes = encoding_rs::WINDOWS_1252
            .encode("<p>Le café était très fréquenté, déjà à l'aube; où aller après?</p>")
            .0;
        let d = decode_html(&bytes, None);
        assert_eq!(d.source, CharsetSource::Detected);
        assert!(d.text.contains("café"), "{}", d.charset);
    }

    #[test]
    fn owned_bytes_decode_as_borrowed_ones() {
        let pages: [&[u8]; 7] = [
            b"",
            b"<p>plain ascii</p>",
            "<p>caf\u{e9} \u{4f60}\u{597d}</p>".as_bytes(),
            b"\xef\xbb\xbf<p>bom</p>",
            b"<meta charset=gbk><p>\xc4\xe3\xba\xc3</p>",
            b"<meta charset=utf-8><p>bad \xff byte caf\xc3\xa9</p>",
            b"<p>\xe9t\xe9 sans d\xe9claration</p>",
        ];
        for page in pages {
            for url in [None, Some("http://example.cn/")] {
                let a = decode_html_for_url(page, None, url);
                let b = decode_html_owned(page.to_vec(), None, url);
                assert_eq!(
                    (a.text, a.charset, a.source, a.had_errors),
                    (b.text, b.charset, b.source, b.had_errors),
                    "{page:?}"
                );
            }
        }
    }

    #[test]
    fn top_level_domains() {
        let cases = [
            ("http://zh.example.cn/a.html", Some("cn")),
            ("https://user@www.Example.DE:8080/x?y", Some("de")),
            ("https://localhost/", None),
            ("not a url", None),
            ("http://example.com./", Some("com")),
            ("http://[::1]/", None),
        ];
        for (url, want) in cases {
            assert_eq!(top_level_domain(url).as_deref(), want, "{url}");
        }
    }

    #[test]
    fn charset_param_parsing() {
        assert_eq!(charset_param("text/html; charset=\"UTF-8\""), Some("UTF-8"));
        assert_eq!(charset_param("text/html;CHARSET=gbk ;x=y"), Some("gbk"));
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(charset_param("text/html; charset="), None);
    }

    #[test]
    fn binary_garbage_and_empty_do_not_panic() {
        let garbage: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let _ = decode_html(&garbage, Some("text/html; charset=utf-8"));
        let d = decode_html(b"", None);
        assert_eq!(d.text, "");
    }

    #[test]
    fn prefix_does_not_split_sequences() {
        let s = "é".repeat(10);
        let p = utf8_prefix(s.as_bytes(), 5);
        assert!(std::str::from_utf8(p).is_ok());
        assert_eq!(p.len(), 4);
    }
}
